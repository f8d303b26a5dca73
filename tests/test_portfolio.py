"""Workload assignment and portfolios (issue 13): an option may carry only some workloads
(`candidates[].workloads`), and a portfolio costs options together.

Worked by hand from the methodology (§6 demand, §8, §14 portfolios): an option's demand is
the runs per year of the workloads it carries times their wall hours; a portfolio's NPV is
the sum of its options'; an option carrying part of the plan ranks in tier 1 (it does not
deliver the plan alone), the portfolio in tier 0 when each option delivers its part.
"""

from __future__ import annotations

import io
import json

import openpyxl
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.html import render_html
from tco.exporters.xlsx.workbook import workbook_bytes
from tco.scenario import load_scenario_text

PLAN = (
    "name: portfolio\nrent_options: none\ncost_of_delay_per_week: 0\n"
    "workloads:\n"
    "  - {id: pre, params: 70e9, tokens: 2e11, runs_per_year: 2}\n"
    "  - {id: ft, kind: finetune, params: 7e9, tokens: 2e10, runs_per_year: 12}\n"
    "finance: {horizon_years: 3, discount_rate: 0.08, residual_value_fraction: 0.1}\n"
    "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")
OPTIONS = (
    "candidates:\n"
    "  - {id: all-h100, card: h100-sxm, cards: 2048, lead_time_weeks: 0}\n"
    "  - {id: pre-h100, card: h100-sxm, cards: 256, workloads: [pre], lead_time_weeks: 0}\n"
    "  - {id: rd-l40s, card: l40s, cards: 8, workloads: [ft], lead_time_weeks: 0}\n"
    "  - {id: l40s-all, card: l40s, cards: 8, lead_time_weeks: 0}\n"
    "portfolios:\n"
    "  - {id: split, name: 'H100 pre-training, L40S fine-tuning', options: [pre-h100, rd-l40s]}\n")


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(PLAN + OPTIONS), catalog)


def test_an_assigned_option_carries_only_its_workloads(result):
    rd, whole = result.candidate("rd-l40s"), result.candidate("l40s-all")
    # demand: 12 fine-tuning runs a year x one run's wall hours (the pre-training not counted)
    assert rd.values["demand_hours_per_year"] == pytest.approx(
        12 * rd.jobs["ft"]["wall_hours"], rel=1e-12)
    assert rd.values["planned_runs_per_year"] == 12
    assert rd.carries == ["ft"] and rd.primary_workload == "ft"
    # 8 L40S cannot hold a 70B model; carrying only the fine-tuning, they are feasible
    assert not whole.feasible and any(r.startswith("pre:") for r in whole.reasons)
    assert rd.feasible
    assert rd.values["plan_delivered_fraction"] == 1 and rd.values["tier"] == 1  # a part only


def test_a_portfolio_is_the_sum_of_its_options_and_delivers_the_plan(result):
    port = next(p for p in result.portfolios if p.id == "split")
    pre, rd = result.candidate("pre-h100"), result.candidate("rd-l40s")
    assert port.values["npv_tco"] == pytest.approx(
        pre.values["npv_tco"] + rd.values["npv_tco"], rel=1e-12)
    assert port.values["capex_total"] == pytest.approx(
        pre.values["capex_total"] + rd.values["capex_total"], rel=1e-12)
    assert port.values["plan_delivered_fraction"] == min(
        pre.values["plan_delivered_fraction"], rd.values["plan_delivered_fraction"]) == 1
    assert port.tier == 0 and port.feasible


def test_the_cheaper_portfolio_is_recommended_everywhere(result, tmp_path):
    """2,048 H100 for both workloads cost more than 256 H100 plus 8 L40S (the same plan)."""
    whole = result.candidate("all-h100")
    port = next(p for p in result.portfolios if p.id == "split")
    assert whole.values["tier"] == 0 and port.values["npv_tco"] < whole.values["npv_tco"]
    said = recommend(result)
    assert said is not None and said.mode == "portfolio" and said.option == "split"
    assert said.options == ("pre-h100", "rd-l40s") and said.runner_up is whole
    path = tmp_path / "p.yaml"
    path.write_text(PLAN + OPTIONS)
    out = CliRunner().invoke(cli, ["compare", str(path), "--format", "json"])
    d = json.loads(out.output)
    # the plan is recommended (issue 27); among the options as typed, the portfolio
    assert d["recommendation"]["mode"] == "plan"
    assert d["recommendation"]["npv_tco"] == d["plan"]["npv_tco"]
    assert d["recommendation"]["best_option"]["mode"] == "portfolio"
    assert d["recommendation"]["best_option"]["options"] == ["pre-h100", "rd-l40s"]
    assert d["portfolios"][0]["npv_tco"] == port.values["npv_tco"]
    assert d["portfolios"][0]["carries"] == {"pre-h100": ["pre"], "rd-l40s": ["ft"]}
    rd = next(c for c in d["candidates"] if c["id"] == "rd-l40s")
    assert list(rd["jobs"]) == ["ft"] and rd["carries"] == ["ft"]
    table = CliRunner().invoke(cli, ["compare", str(path)]).output
    assert "the best option as typed (split)" in table
    assert "  split: pre-h100 (pre) + rd-l40s (ft): NPV" in table
    for lang, headline in (("en", "combine the options of"), ("zh", "建议：采用组合")):
        html = render_html(result, lang)
        assert headline in html and 'data-portfolio="split"' in html
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(result)))
    values = openpyxl.load_workbook(io.BytesIO(workbook_bytes(result)), data_only=True)
    ws, vs = wb["Summary"], values["Summary"]
    row = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "split")
    assert str(ws.cell(r := row, 4).value).startswith("=Model!")
    assert vs.cell(r, 4).value == pytest.approx(port.values["npv_tco"], rel=1e-12)


@pytest.mark.parametrize("options, field, message", [
    ("  - {id: a, card: h100-sxm, cards: 8, workloads: [pretrain]}\n",
     "candidates.a.workloads", "unknown workload 'pretrain' (did you mean: pre?)"),
    ("  - {id: a, card: h100-sxm, cards: 8, workloads: [ft, ft]}\n",
     "candidates.a.workloads", "workload 'ft' is listed twice"),
    (("  - {id: a, card: h100-sxm, cards: 8, workloads: [pre]}\n"
     "  - {id: b, card: l40s, cards: 8}\n"
     "portfolios:\n  - {id: p, options: [a, b]}\n"),
     "portfolios.p.options", "workload 'pre' is carried by both 'a' and 'b'"),
    (("  - {id: a, card: h100-sxm, cards: 8, workloads: [pre]}\n"
     "  - {id: b, card: l40s, cards: 8, workloads: [pre]}\n"
     "portfolios:\n  - {id: p, options: [a, b]}\n"),
     "portfolios.p.options", "workload 'pre' is carried by both 'a' and 'b'"),
    (("  - {id: a, card: h100-sxm, cards: 8, workloads: [pre]}\n"
     "  - {id: b, card: l40s, cards: 8, workloads: [pre]}\n"
     "portfolios:\n  - {id: p, options: [a, c]}\n"),
     "portfolios.p.options", "unknown option 'c'"),
    (("  - {id: a, card: h100-sxm, cards: 8, workloads: [pre]}\n"
     "  - {id: b, card: l40s, cards: 8, workloads: [pre]}\n"
     "portfolios:\n  - {id: p, options: [a, a]}\n"),
     "portfolios.p.options", "option 'a' is listed twice"),
])
def test_bad_assignments_get_one_clear_message(tmp_path, options, field, message):
    path = tmp_path / "bad.yaml"
    path.write_text(PLAN + "candidates:\n" + options)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert field in out.output and message in out.output, out.output
    assert "Traceback" not in out.output


def test_a_portfolio_that_misses_a_workload_is_refused(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(PLAN + "candidates:\n"
                    "  - {id: a, card: h100-sxm, cards: 8, workloads: [pre]}\n"
                    "  - {id: b, card: h100-sxm, cards: 8, workloads: [pre]}\n"
                    "  - {id: c, card: l40s, cards: 8, workloads: [ft]}\n"
                    "portfolios:\n  - {id: p, options: [a]}\n")
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2 and "portfolios" in out.output  # fewer than two options


ROCM = PLAN + (
    "candidates:\n"
    "  - {id: pre-mi, card: mi300x, cards: 256, workloads: [pre], lead_time_weeks: 0}\n"
    "  - {id: ft-mi, card: mi300x, cards: 16, workloads: [ft], lead_time_weeks: 0}\n"
    "  - {id: ft-h, card: h100-sxm, cards: 16, workloads: [ft], lead_time_weeks: 0}\n"
    "portfolios:\n"
    "  - {id: rocm, options: [pre-mi, ft-mi]}\n"
    "  - {id: mixed, options: [pre-mi, ft-h]}\n")


def test_options_on_one_stack_share_one_port(catalog):
    """Both options on ROCm, new to the team: each counts the moderate port, 6 engineer-months
    x 20,000 = 120,000 at year 0, and its upkeep, 3 engineer-months a year x 20,000 = 60,000
    (pricing/stacks.yaml). The team ports once: the portfolio takes back 120,000 + 60,000 x
    the 3-year annuity at 8 % ((1 - 1.08**-3) / 0.08 = 2.5770970), 274,625.82, and 120,000 +
    3 x 60,000 = 300,000 undiscounted. A portfolio on two stacks takes back nothing."""
    r = compute(load_scenario_text(ROCM), catalog)
    a, b = r.candidate("pre-mi"), r.candidate("ft-mi")
    for c in (a, b):
        assert c.values["porting_one_time"] == 120_000
        assert c.values["porting_maintenance_per_year"] == 60_000
    rocm, mixed = (next(p for p in r.portfolios if p.id == pid) for pid in ("rocm", "mixed"))
    annuity = (1 - 1.08 ** -3) / 0.08
    assert rocm.values["shared_porting_npv"] == pytest.approx(120_000 + 60_000 * annuity)
    assert rocm.values["npv_tco"] == pytest.approx(
        a.values["npv_tco"] + b.values["npv_tco"] - 274_625.8230, rel=1e-9)
    assert rocm.values["undiscounted_tco"] == pytest.approx(
        a.values["undiscounted_tco"] + b.values["undiscounted_tco"] - 300_000, rel=1e-12)
    h = r.candidate("ft-h")
    assert "shared_porting_npv" not in mixed.values
    assert mixed.values["npv_tco"] == a.values["npv_tco"] + h.values["npv_tco"]


def test_staff_and_colocation_of_a_portfolio_are_the_pooled_fleets(catalog):
    """Staff are 2 engineers per 1,000 cards (pricing/assumptions.yaml) at 20,000 a month:
    256 + 16 = 272 pooled cards need 0.544 engineers, 130,560 a year, the sum of the
    options' (122,880 + 7,680): counting them per option counts nothing twice."""
    r = compute(load_scenario_text(ROCM), catalog)
    a, b = r.candidate("pre-mi"), r.candidate("ft-mi")
    assert r.inputs["assumptions.ops_engineers_per_1000_cards"].value == 2
    pooled = (256 + 16) / 1000 * 2 * 20_000 * 12  # 130,560
    assert pooled == pytest.approx(130_560)
    assert a.values["operations_staff_per_year"] + b.values["operations_staff_per_year"] == \
        pytest.approx(pooled, rel=1e-12)


def test_sensitivity_montecarlo_and_breakeven_take_a_portfolio(catalog, result, tmp_path):
    """A portfolio's NPV is the sum of its options' (CUDA and Ada: no stack shared), so
    moving an input that only one option reads moves the portfolio by exactly that option's
    change; its Monte Carlo mean is the sum of its options' means (the mean is linear); and
    its NPV is linear in the H100's price, so the break-even against all-h100 is where the
    two lines cross: split + k x (p - p0) = all, k = d NPV(split) / d price, found from two
    prices."""
    from tco.analysis.breakeven import breakeven
    from tco.analysis.montecarlo import montecarlo
    from tco.analysis.sensitivity import sensitivity
    from tco.scenario import load_scenario_text as load

    loaded = load(PLAN + OPTIONS)
    sens = sensitivity(loaded, catalog, result=result)
    split, pre = sens.bars["split"], sens.bars["pre-h100"]
    assert sens.baseline["split"] == pytest.approx(
        result.candidate("pre-h100").values["npv_tco"]
        + result.candidate("rd-l40s").values["npv_tco"], rel=1e-12)
    price = "candidates.pre-h100.card_price"
    (bar,) = [b for b in split if b.path == price]
    (own,) = [b for b in pre if b.path == price]
    assert bar.metric_high - sens.baseline["split"] == pytest.approx(
        own.metric_high - sens.baseline["pre-h100"], rel=1e-9)

    mc = montecarlo(result, draws=2000, seed=3)
    assert mc.percentiles["split"].get("cost_per_job") is None  # no one run: absent (null)
    assert mc.percentiles["split"]["npv_tco"]["mean"] == pytest.approx(
        mc.percentiles["pre-h100"]["npv_tco"]["mean"]
        + mc.percentiles["rd-l40s"]["npv_tco"]["mean"], rel=1e-9)
    assert sum(mc.prob_cheapest.values()) == pytest.approx(1.0)
    assert mc.prob_cheapest["pre-h100"] == 0  # carries part of the plan: tier 1, never first

    b = breakeven(loaded, catalog, price, "split", "all-h100", result=result)
    p0 = result.inputs[price].value
    at = {x: compute(load((PLAN + OPTIONS).replace(
        "{id: pre-h100, card: h100-sxm, cards: 256,",
        f"{{id: pre-h100, card: h100-sxm, cards: 256, card_price: {x},")), catalog)
        for x in (p0, 2 * p0)}
    npv = {x: r.portfolios[0].values["npv_tco"] for x, r in at.items()}
    k = (npv[2 * p0] - npv[p0]) / p0
    gap = result.candidate("all-h100").values["npv_tco"] - npv[p0]
    assert b.value == pytest.approx(p0 + gap / k, rel=1e-6)
    path = tmp_path / "plan.yaml"
    path.write_text(PLAN + OPTIONS)
    out = CliRunner().invoke(cli, ["breakeven", str(path), "--vary", price, "--candidate",
                                   "split", "--vs", "all-h100", "--metric", "cost_per_job"])
    assert out.exit_code == 2 and "split is a portfolio: its metric is npv_tco" in out.output


def test_the_port_taken_back_after_tax_is_an_rd_cost(catalog):
    """The shared port (274,625.82, above) was deducted as paid in each option's after-tax
    NPV as a qualifying R&D cost: at 25 % with R&D costs deducted twice it kept 1 - 0.25 x 2
    = 0.5 of itself there, so the portfolio takes back 0.5 x 274,625.82 after tax (not 0.75 x,
    as income would be)."""
    text = ROCM.replace("finance: {", "finance: {tax_rate: 0.25, tax_rd_share: 1, "
                        "tax_rd_extra_deduction_fraction: 1, ", 1)
    assert text != ROCM
    r = compute(load_scenario_text(text), catalog)
    a, b = r.candidate("pre-mi"), r.candidate("ft-mi")
    rocm = next(p for p in r.portfolios if p.id == "rocm")
    assert rocm.values["npv_tco_after_tax"] == pytest.approx(
        a.values["npv_tco_after_tax"] + b.values["npv_tco_after_tax"] - 0.5 * 274_625.8230,
        rel=1e-9)
