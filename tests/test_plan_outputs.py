"""Every output shows the plan (issue 27 item 5; methodology §19) from the same numbers: the
text table, the CSV, the HTML report (en and zh), the workbook and the Python API agree with
the JSON `plan` on its NPV, its actions and the restricted plans' NPVs. (The workbook's plan
cells after LibreOffice recalculation: tests/test_workbook_recalc.py,
test_every_plan_cell_matches_the_engine_after_recalculation, which also compares them with
JSON.)"""

from __future__ import annotations

import csv
import io
import re
from datetime import date

import openpyxl
import pytest

from tco import modes
from tco.api import Run
from tco.engine import compute
from tco.exporters.data import compare_csv, compare_dict, compare_table
from tco.exporters.fmt import money
from tco.exporters.html import write_html
from tco.exporters.plan_text import action_text, month_label
from tco.exporters.xlsx import write_workbook
from tco.exporters.xlsx.layout import plan as layout
from tco.exporters.xlsx.plan import place
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text

DAY = date(2026, 1, 15)


@pytest.fixture(scope="module", params=["example.yaml", "train-and-serve.yaml"])
def result(request, catalog):
    return compute(load_scenario(example_scenario().parent / request.param), catalog)


def test_the_table_shows_the_plan_of_json(result):
    plan = compare_dict(result)["plan"]
    table = compare_table(result)
    assert f"NPV {money(plan['npv_tco'], result.currency)}, delivers every workload" in table
    for a in result.plans[0].actions:
        assert action_text(result, a) in table
    for o in plan["options"]:
        assert re.search(rf"\n    {re.escape(o['option'])} +NPV "
                         rf"{re.escape(money(o['npv_tco'], result.currency))}", table)
    flex = plan["value_of_flexibility"]
    assert f"Value of flexibility: {money(flex, result.currency)}" in table


def test_the_csv_rows_of_kind_plan_are_the_json_plans(result):
    plan = compare_dict(result)["plan"]
    rows = [r for r in csv.DictReader(io.StringIO(compare_csv(result))) if r["acquire"] == "plan"]
    assert [r["id"] for r in rows] == [p.id for p in result.plans]
    assert float(rows[0]["npv_tco"]) == plan["npv_tco"]  # full precision
    assert [float(r["npv_tco"]) for r in rows[1:]] == [o["npv_tco"] for o in plan["options"]]
    assert [r["feasible"] == "True" for r in rows[1:]] == [o["delivers_plan"]
                                                          for o in plan["options"]]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_shows_the_plan_of_json(result, lang, tmp_path):
    plan = compare_dict(result)["plan"]
    path = write_html(result, tmp_path / f"r.{lang}.html", lang=lang, day=DAY)
    html = path.read_text(encoding="utf-8")
    section = html[html.index('<section id="plan"'):html.index("</section>",
                                                                html.index('<section id="plan"'))]
    npvs = dict(re.findall(r'data-plan-npv="([^"]+)" data-value="([^"]+)"', section))
    assert float(npvs["plan"]) == plan["npv_tco"]
    assert {k: float(v) for k, v in npvs.items() if k != "plan"} == {
        f"plan-{o['option']}": o["npv_tco"] for o in plan["options"]}
    actions = re.findall(r'<tr data-action="(\w+)">', section)
    assert actions == [a["action"] for a in plan["actions"]]
    assert "<svg" in section  # the capacity chart


def test_the_workbook_plan_sheet_holds_the_plan_of_json(result, tmp_path):
    """The stored values (LibreOffice's recalculation: test_workbook_recalc.py): each plan's
    NPV cell and the Summary's, and the plan's purchases and reservations as its inputs."""
    plan = compare_dict(result)["plan"]
    path = write_workbook(result, tmp_path / "w.xlsx", generated=DAY)
    wb = openpyxl.load_workbook(path, data_only=True)
    ps = place(result, layout(result))
    assert ps is not None
    for p in result.plans:
        cell = ps.quantities[f"{p.id}.npv_tco"]
        assert wb[cell.sheet].cell(cell.row + 1, cell.col + 1).value == pytest.approx(
            p.npv_tco, rel=1e-12)
    assert ps.quantities  # and each action's quantity is an input of the sheet
    best = result.plans[0]
    for a in plan["actions"]:
        if a["action"] == "buy":
            k = round(a["start_years"] * 12 / best.shape.months)
            path_ = f"plans.plan.buy.{a['option']}.{k}"
            cell = ps.inputs[path_]
            per = result.env[f"candidates.{a['option']}.cards_per_node"]
            assert wb[cell.sheet].cell(cell.row + 1, cell.col + 1).value * per == a["quantity"]
        elif a["action"] == "rent" and a["unit"] == "cards":
            k = round(a["start_years"] * 12 / best.shape.months)
            cell = ps.inputs[f"plans.plan.reserve.{a['option']}.{a['tier']}.{k}"]
            assert wb[cell.sheet].cell(cell.row + 1, cell.col + 1).value == a["quantity"]
    summary = wb.worksheets[0]
    shown = [c.value for row in summary.iter_rows() for c in row if isinstance(c.value, float)]
    assert any(v == pytest.approx(plan["npv_tco"], rel=1e-12) for v in shown)


def test_the_api_gives_the_plan_of_json(result):
    run = Run(result)
    plan = run.to_dict()["plan"]
    assert run.plan.npv_tco == plan["npv_tco"]
    frame = run.plan_frame()
    assert frame[["action", "option", "quantity"]].to_dict("records") == [
        {k: a[k] for k in ("action", "option", "quantity")} for a in plan["actions"]]
    periods = run.plan_periods_frame()
    assert len(periods) == len(plan["periods"])
    # methodology §19: the NPV is the periods' present values, plus what is owed after the
    # horizon, less the resale at the horizon discounted by (1 + r)^H
    r = result.env["finance.discount_rate"]
    h = result.structure.horizon_years
    assert periods["present_value"].sum() + plan["owed_after_horizon"] - (
        plan["residual_value"] / (1 + r) ** h) == pytest.approx(plan["npv_tco"], rel=1e-9)


def test_dates_count_from_the_scenario_start(catalog):
    """`start: 2027-03`: month 0 is 2027-03, month 10 is 2028-01; without it "month 10"."""
    text = ("start: 2027-03\nworkloads: [{id: a, params: 7e9, tokens: 1e11}]\n"
            "candidates: [{id: h, card: h100-sxm, cards: 64}]\n")
    dated = compute(load_scenario_text(text), catalog)
    assert dated.scenario.start == "2027-03"
    assert month_label(dated, 0.0) == "2027-03"
    assert month_label(dated, 10 / 12) == "2028-01"
    undated = compute(load_scenario_text(text.split("\n", 1)[1]), catalog)
    assert month_label(undated, 10 / 12) == "month 10"
    assert "dated from 2027-03" in compare_table(dated)


NOTHING_USABLE = """
name: nothing typed may be used
currency: CNY
rent_options: none
workloads:
  - {id: pre, kind: pretrain, params: 3.4e+10, tokens: 1.0e+12, precision: bf16, runs_per_year: 4}
candidates:
  - {id: h20, card: h20, cards: 1024}
facility: {region: cn}
"""


def test_a_plan_with_no_action_is_worded_as_one(catalog):
    """Its one option barred in China (H20, export control, no licence), the cheapest plan
    takes no action and leaves the run undone. The recommendation says so in words, en and
    zh, instead of an empty list of uses ("采用最低成本计划： ；"), and says why: not "(parts
    of it only: )" with nothing after it. (The zh package did this once because its undone
    runs were priced at the cheap rent of another card's compute, below owning the cluster
    that does them: tests/test_planner.py, work no cloud rents.)"""
    from tco.decide import recommend
    from tco.exporters.decision_words import action_text as decision_action
    from tco.exporters.decision_words import reasons_text
    from tco.exporters.html import render_html

    r = compute(load_scenario_text(NOTHING_USABLE), catalog)
    d = recommend(r)
    assert d is not None and d.mode == "plan" and not d.plan.actions and d.uses == ()
    assert decision_action(d, r.currency, "en") == (
        "take no action: the cheapest plan leaves the work undone")
    assert decision_action(d, r.currency, "zh") == "不采取任何行动：最低成本计划不完成这些工作"
    assert [x.code for x in d.reasons] == ["plan_only", "plan_all_barred", "plan_unmet"]
    assert reasons_text(d, r.currency)[1] == (
        "no option typed may be used here: h20 barred (export control or licence); the plan "
        "can use no card of theirs")
    html = render_html(r, "zh")
    assert "建议：<strong>不采取任何行动：最低成本计划不完成这些工作</strong>" in html
    assert "计划： ；" not in html and "计划：；" not in html
    assert "仅承担部分：）" not in html


def test_the_zh_package_buys_the_cards_its_plan_needs(catalog):
    """The zh package (tests/data/zh_package) with no cloud renting its Ascend cards: the plan
    buys them instead of leaving the pre-training undone."""
    from tco.catalog import load_catalog
    from tco.decide import recommend

    package = example_scenario().parents[2] / "tests" / "data" / "zh_package"
    r = compute(load_scenario(package / "scenario.yaml"), load_catalog([package / "quotes.csv"]))
    d = recommend(r)
    assert d is not None and d.mode == "plan" and modes.BUY in d.uses
    assert [a.card for a in d.plan.actions if a.action == modes.BUY] == ["ascend-910b"]


@pytest.mark.parametrize("uses, en, zh", [
    (("rent", "api"), "follow the cheapest plan: rent NVIDIA H100 and pay per token",
     "采用最低成本计划：租用 NVIDIA H100，并按词元付费"),
    (("buy", "rent", "api"), "follow the cheapest plan: buy and rent NVIDIA H100 and pay per token",
     None),
    (("api",), "follow the cheapest plan: pay per token", "采用最低成本计划：按词元付费"),
    (("buy", "rent"), "follow the cheapest plan: buy and rent NVIDIA H100", None),
])
def test_a_plans_action_puts_the_cards_verbs_before_them_and_paying_per_token_after(
        uses, en, zh):
    """"rent and pay per token NVIDIA H100" read as if the tokens were the card's: the cards'
    verbs go before the cards, paying per token after them; an API alone names no card."""
    from tco.decide.recommend import Decision
    from tco.exporters.decision_words import action_text as decision_action

    cards = ("NVIDIA H100",) if uses != ("api",) else ()
    d = Decision(option="plan", mode="plan", name="plan", card_name="", cards=0, pricing="",
                 npv_tco=1.0, delivers_plan=True, runner_up=None, other_mode=None, uses=uses,
                 card_names=cards)
    assert decision_action(d, "USD", "en") == en
    if zh is not None:
        assert decision_action(d, "USD", "zh") == zh


@pytest.mark.parametrize("servers, en, zh", [
    (1, "buy 1 server (8 cards) of", "购买 英伟达 A100 SXM4 80GB 服务器 1 台（8 张加速卡）"),
    (3, "buy 3 servers (24 cards) of", "购买 英伟达 A100 SXM4 80GB 服务器 3 台（24 张加速卡）"),
])
def test_one_server_is_a_server(catalog, servers, en, zh):
    """"Buy 1 servers" read wrong: one server is singular in the table and the report."""
    import datetime as dt

    from tco.exporters.plan_report import action_row
    from tco.exporters.report_view import View
    from tco.plan import Action

    r = compute(load_scenario(), catalog)
    a = Action(start_years=0.0, end_years=5.0, action="buy", option="a100-deadline",
               card="a100-sxm", quantity=8.0 * servers, unit="cards", tier="")
    assert en in action_text(r, a)
    words = action_row(View(r, "en", dt.date(2026, 12, 5)), a)["text"]
    assert words.startswith(f"Buy {servers} server{'s' if servers > 1 else ''} ({8 * servers} "
                            "accelerators) of ")
    assert action_row(View(r, "zh", dt.date(2026, 12, 5)), a)["text"] == zh


def test_a_what_if_re_solves_the_cheapest_plan_alone(catalog):
    """`tco whatif` on a planned scenario re-solves its cheapest plan at the changed values
    and says what it costs before and after, without solving the plans held to one option
    (a what-if compares the cheapest plans): the figures are those of `tco compare` on each."""
    from tco.analysis.whatif import whatif

    loaded = load_scenario(example_scenario())
    said = whatif(loaded, catalog, ["candidates.b200.cloud_price_per_card_hour=9.0"])
    before, after = said.before, said.after
    assert before._plans is None and after._plans is None  # the restricted plans unsolved
    b, a = before.cheapest_plan, after.cheapest_plan
    full = compute(loaded, catalog).plans[0]
    assert b.npv_tco == pytest.approx(full.npv_tco, rel=1e-12)
    note = next(n for n in said.notes if n.startswith("the plan, re-solved"))
    assert note.startswith(f"the plan, re-solved at these values: NPV of TCO {b.npv_tco:,.0f} "
                           f"-> {a.npv_tco:,.0f} USD")
    assert a.npv_tco > b.npv_tco  # the B200 it reserves costs more


FRACTIONAL_RUNS = """
name: fractional runs
workloads:
  - {id: w, kind: pretrain, params: 7.0e+9, tokens: 2.0e+11, precision: bf16,
     runs_per_year: %s}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
facility: {region: us}
finance: {horizon_years: 3, discount_rate: 0.08}
"""


@pytest.mark.parametrize(("runs", "text"), [
    (8.0, "8"), (7.5, "7.5"), (0.03, "0.03"), (0.9996, "0.9996"), (0.003, "0.003"),
    (1234.5, "1,234.5"),
])
def test_a_count_of_runs_is_never_rounded_to_a_whole_one(runs, text):
    from tco.exporters.fmt import runs_text

    assert runs_text(runs) == text


@pytest.mark.parametrize(("per_year", "lead", "runs"), [
    (2.5, "first run done by month ", "7.5"),  # 2.5 a year over 3 years, not '8'
    (0.01, "no whole run in the horizon", "0.03"),  # not 'first run done by never; 0 runs'
])
def test_a_plans_runs_are_counted_as_the_json_counts_them(catalog, per_year, lead, runs):
    from tco.exporters.plan_text import workload_text

    r = compute(load_scenario_text(FRACTIONAL_RUNS % per_year), catalog)
    w = r.plans[0].workloads["w"]
    assert w["runs_delivered"] == pytest.approx(float(runs), rel=1e-9)
    text = workload_text(r, "w", w)
    assert text.startswith(f"    w (pretrain): {lead}") and f"; {runs} runs, 100% " in text
