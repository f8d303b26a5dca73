"""An option carrying only a part of the plan (`candidates[].workloads`) is recommended only in
a portfolio (issue 13): alone it leaves a workload undone, however little it costs. Without a
portfolio it is never "the recommendation", nor the Monte Carlo's cheapest, and every output
says what it carries rather than "delivers 100% of the plan".
"""

from __future__ import annotations

import html
import io
import json
import re

import openpyxl
import pytest
from click.testing import CliRunner

from tco.analysis.montecarlo import montecarlo
from tco.cli import cli
from tco.decide import Reason
from tco.decide import recommend as recommend_plan
from tco.decide import recommend_option as recommend
from tco.decide.rules import single
from tco.engine import compute
from tco.exporters.html import render_html
from tco.exporters.xlsx.workbook import workbook_bytes
from tco.scenario import load_scenario_text

PLAN = (
    "name: parts\nrent_options: none\n"
    "workloads:\n"
    "  - {id: pre, params: 7e9, tokens: 1e12, runs_per_year: 4}\n"
    "  - {id: ft, kind: finetune, params: 1e9, tokens: 1e9, runs_per_year: 12}\n"
    "finance: {horizon_years: 3, discount_rate: 0.08, residual_value_fraction: 0.1}\n"
    "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")
# 8 H100 for four 7B pre-training runs a year: 153 days a run, 51 % of the plan (tier 1);
# 8 L40S for the fine-tuning only: far cheaper, also tier 1 (a part of the plan)
SHORT = "  - {id: short, card: h100-sxm, cards: 8, lead_time_weeks: 0}\n"
RD = "  - {id: rd, card: l40s, cards: 8, workloads: [ft], lead_time_weeks: 0}\n"
def text(page: str) -> str:
    """The page's words, without tags or runs of spaces."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


PRE = "  - {id: big, card: h100-sxm, cards: 64, workloads: [pre], lead_time_weeks: 0}\n"


# the pre-2026-12 prices (tests/data/catalog_2026_11.yaml) the NPVs below were read on
@pytest.fixture(scope="module")
def short_and_part(frozen):
    return compute(load_scenario_text(PLAN + "candidates:\n" + SHORT + RD), frozen)


@pytest.fixture(scope="module")
def parts_only(frozen):
    return compute(load_scenario_text(PLAN + "candidates:\n" + PRE + RD), frozen)


def test_a_part_of_the_plan_is_not_recommended_over_an_option_carrying_all_of_it(
        short_and_part):
    r = short_and_part
    short, rd = r.candidate("short"), r.candidate("rd")
    # both rank in tier 1, the part first by NPV (the ranking is the model's)
    assert short.values["tier"] == rd.values["tier"] == 1
    assert rd.values["npv_tco"] < short.values["npv_tco"]
    assert [c.id for c in r.candidates] == ["rd", "short"]
    assert short.values["plan_delivered_fraction"] == pytest.approx(0.51, abs=0.01)
    # ... but the recommendation is the option that carries the whole plan, short of it
    assert single(r) is short
    rec = recommend(r)
    assert rec is not None and rec.option == "short" and not rec.delivers_plan
    first = rec.reasons[0]
    assert first.code.startswith("none_delivers") and first.figures["delivered"] == \
        pytest.approx(0.51, abs=0.01)
    assert first.figures["npv"] == short.values["npv_tco"]
    # the option carrying a part of the plan is named in no reason
    assert not any("rd" in map(str, reason.figures.values()) for reason in rec.reasons)


def test_the_monte_carlo_never_calls_a_part_of_the_plan_the_cheapest(short_and_part):
    mc = montecarlo(short_and_part, draws=200, seed=3)
    assert mc.prob_cheapest == {"rd": 0.0, "short": 1.0}


def test_the_report_says_what_a_part_carries_not_that_it_delivers_the_plan(short_and_part):
    page = render_html(short_and_part)
    assert "Feasible; carries ft only (a part of the plan, costed whole in a portfolio)" in page
    assert "delivers only 100%" not in page and "delivers 100% of the plan" not in page
    # the workload it does not carry is "not carried", not "Infeasible"
    assert page.count("not carried") == 4  # pre on rd: layout, time, card-hours, cost


def test_parts_without_a_portfolio_recommend_nothing_and_say_why(parts_only, tmp_path):
    r = parts_only
    assert all(c.feasible and c.values["plan_delivered_fraction"] == 1 for c in r.candidates)
    assert single(r) is None and recommend(r) is None
    # the planner combines them: the plan is recommended, and says why no option is
    plan = recommend_plan(r)
    assert plan.mode == "plan" and plan.best_option is None
    assert plan.reasons[1] == Reason("plan_no_option", {"parts": ["rd", "big"]})
    why = "(parts of it only: rd, big); the plan combines what may be used"
    # the table, the JSON, the report and the workbook (en and zh)
    path = tmp_path / "parts.yaml"
    path.write_text(PLAN + "candidates:\n" + PRE + RD)
    table = CliRunner().invoke(cli, ["compare", str(path)])
    assert table.exit_code == 0, table.output
    assert "Recommendation: follow the cheapest plan" in table.output
    assert why in table.output
    data = json.loads(CliRunner().invoke(cli, ["compare", str(path), "--format", "json"]).output)
    assert data["recommendation"]["option"] == "plan"
    assert data["recommendation"]["best_option"] is None
    # the report's reasons for the plan (templates/decide.yaml plan_no_option)
    assert ("No single option that may be used here delivers the whole plan (parts of it "
            "only: rd, big ); the plan combines what may be used.") in text(render_html(r))
    assert ("在此可用的单一选项都不能完成全部计划（仅承担部分： rd、big ）；该计划组合可用的来源。"
            in text(render_html(r, lang="zh")))
    for lang, said in (("en", ("no single option that may be used here delivers the whole "
                               "plan " + why)),
                       ("zh", ("在此可用的单一选项都不能完成全部计划（仅承担部分：rd、big）；"
                               "该计划组合可用的来源"))):
        wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r, lang=lang)))
        cells = [v for row in wb.worksheets[0].iter_rows(max_row=8, values_only=True)
                 for v in row if isinstance(v, str)]
        assert any(said in v for v in cells), (lang, cells)
