"""`cards: auto` (issue 13): a cluster sized to deliver the plan, the smallest whole number of
servers whose owned hours cover the planned runs within the horizon (methodology §11).

Worked by hand: a 7B model on 2T tokens, four runs a year, on H100 (8 per server), no lead
time and a familiar CUDA team (nothing to port): the cluster delivers the plan when four
runs fit in the hours it may run, 8,760 x 0.85 = 7,446 h a year. The engine's wall hours
per run at 24 and at 32 cards are read from fixed-size candidates; the check around them is
done here.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

TEXT = (
    "name: auto\nrent_options: none\ncost_of_delay_per_week: 0\n"
    "workloads:\n  - {id: w, params: 7e9, tokens: 2e12, runs_per_year: 4}\n"
    "candidates:\n"
    "  - {id: auto, card: h100-sxm, cards: auto, lead_time_weeks: 0}\n"
    "  - {id: c24, card: h100-sxm, cards: 24, lead_time_weeks: 0}\n"
    "  - {id: c32, card: h100-sxm, cards: 32, lead_time_weeks: 0}\n"
    "finance: {horizon_years: 5, discount_rate: 0.08}\n"
    "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")
HOURS = 8760 * 0.85  # 7,446 h a year the owned cluster may run


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(TEXT), catalog)


def test_auto_picks_the_smallest_cluster_that_delivers_the_plan(result):
    c24, c32, auto = (result.candidate(x) for x in ("c24", "c32", "auto"))
    assert 4 * c24.job["wall_hours"] > HOURS  # 24 cards: four runs need more than a year
    assert 4 * c32.job["wall_hours"] <= HOURS  # 32 cards (one server more): they fit
    assert c24.values["plan_delivered_fraction"] < 1 <= c32.values["plan_delivered_fraction"]
    assert auto.inputs["cards"] == 32
    assert auto.values["npv_tco"] == pytest.approx(c32.values["npv_tco"], rel=1e-12)
    assert auto.values["meets_plan"] == 1 and auto.feasible
    assert "sized to 32 cards to deliver the plan (cards: auto)" in auto.notes
    src = result.inputs["candidates.auto.cards"].source
    assert src == "sized to deliver the plan (cards: auto)"


def test_a_plan_no_cluster_can_deliver_says_so(catalog):
    """A year of lead time on a 5-year horizon with 40 runs a year of a 70B model on 2T
    tokens: no cluster catches up within the horizon."""
    text = TEXT.replace("params: 7e9, tokens: 2e12, runs_per_year: 4",
                        "params: 70e9, tokens: 2e13, runs_per_year: 40")
    text = text.replace("cards: auto, lead_time_weeks: 0", "cards: auto, lead_time_weeks: 52")
    c = compute(load_scenario_text(text), catalog).candidate("auto")
    assert not c.feasible
    assert any("delivers the whole plan within the horizon" in r for r in c.reasons)


def test_a_card_count_replaces_auto_in_a_whatif(tmp_path):
    path = tmp_path / "auto.yaml"
    path.write_text(TEXT)
    out = CliRunner().invoke(cli, ["whatif", str(path), "--set", "candidates.auto.cards=48"])
    assert out.exit_code == 0, out.output
    assert "auto" in out.output
