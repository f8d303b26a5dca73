"""A job runs whole data-parallel replicas (issue 12; docs/methodology.md §4): the replicas are
cards / (tp × pp × cp) rounded down, the cards left over idle (paid for, doing no work) and
the output says how many; the layout search prefers layouts that use the cards, and
`cards: auto` sizes in whole replicas."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from tco import layout
from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

# 7B on 2T tokens four times a year on H100 (as tests/test_cards_auto.py), every candidate
# pinned to tensor 8 x pipeline 3: a replica of 24 cards, three 8-card servers.
TEXT = (
    "name: whole\nrent_options: none\ncost_of_delay_per_week: 0\n"
    "workloads:\n  - {id: w, params: 7e9, tokens: 2e12, runs_per_year: 4}\n"
    "candidates:\n"
    "  - {id: auto, card: h100-sxm, cards: auto, lead_time_weeks: 0, layout: {w: {tp: 8, pp: 3}}}\n"
    "  - {id: c24, card: h100-sxm, cards: 24, lead_time_weeks: 0, layout: {w: {tp: 8, pp: 3}}}\n"
    "  - {id: c40, card: h100-sxm, cards: 40, lead_time_weeks: 0, layout: {w: {tp: 8, pp: 3}}}\n"
    "  - {id: c48, card: h100-sxm, cards: 48, lead_time_weeks: 0, layout: {w: {tp: 8, pp: 3}}}\n"
    "finance: {horizon_years: 5, discount_rate: 0.08}\n"
    "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(TEXT), catalog)


def test_left_over_cards_idle(result):
    c24, c40 = result.candidate("c24").job, result.candidate("c40").job
    # 40 / (8 x 3 x 1) = 1.67: one whole replica of 24 cards, 40 - 24 = 16 idle
    assert (c40["data_parallel"], c40["idle_cards"]) == (1, 16)
    assert (c24["data_parallel"], c24["idle_cards"]) == (1, 0)
    # the 16 idle cards do no work: the same step as on 24 cards (it was 1.67 replicas,
    # 40 / 24 = 1.67 times the throughput)...
    assert c40["tokens_per_second"] == pytest.approx(c24["tokens_per_second"], rel=1e-12)
    # ...but are paid for: accelerator-hours count all 40 cards for the whole run
    assert c40["gpu_hours"] == pytest.approx(40 * c40["wall_hours"], rel=1e-12)
    assert c40["gpu_hours"] > 40 / 24 * 0.99 * c24["gpu_hours"]


def test_cards_auto_sizes_in_whole_replicas(result):
    """At 24 cards four runs take 4 x 3,158 h > 7,446 h (8,760 x 0.85); 32 and 40 cards are
    still one replica (8 and 16 idle), so the plan needs two: 48 cards."""
    auto, c24 = result.candidate("auto"), result.candidate("c24")
    assert 4 * c24.job["wall_hours"] > 8760 * 0.85
    assert auto.inputs["cards"] == 48
    assert (auto.job["data_parallel"], auto.job["idle_cards"]) == (2, 0)
    assert auto.values["meets_plan"] == 1


def test_a_pinned_pipeline_of_three_on_512_cards(catalog):
    """The issue's example: pp 3 (and tp 2) on 512 H100: 512 / 6 = 85.3 replicas were
    modelled; now 85 replicas of 6 cards work (510) and 2 idle, and the table says so."""
    out = CliRunner().invoke(cli, ["job", "--model-params", "70e9", "--tokens", "2e12",
                                   "--card", "h100-sxm", "--cards", "512",
                                   "--layout", "tp=2,pp=3,cp=1"])
    assert out.exit_code == 0, out.output
    assert "DP 85 (2 cards idle)" in out.output


def test_the_search_prefers_the_layout_that_uses_the_cards():
    """Two layouts equally fast (within 1 %): the one without idle cards wins even though it is
    less simple (a deeper pipeline)."""
    combos = [(8, 1, 1, 1, 1, 0, 0, 0, 0), (8, 2, 1, 1, 1, 0, 0, 0, 0)]  # replicas of 8 and 16 cards
    got = {"fits_memory": np.array([1.0, 1.0]), "step_seconds": np.array([1.0, 1.001]),
           "memory_needed_gb": np.array([50.0, 40.0])}
    ok = np.array([True, True])
    assert int(layout.best(got, combos, ok)) == 0  # no idle cards either way: the simpler
    # 40 cards: 5 replicas of 8 use them all, 2 replicas of 16 leave 8 idle
    assert list(layout.idle_cards(combos, 40.0)) == [0, 8]
    assert int(layout.best(got, combos, ok, layout.idle_cards(combos, 40.0))) == 0
    # were the simpler layout the one leaving 8 cards idle, the deeper pipeline that uses
    # every card would win
    assert int(layout.best(got, combos, ok, np.array([8.0, 0.0]))) == 1


def test_expert_groups_tile_the_whole_replicas():
    """An expert group of 16 over 3 replicas (24 cards of tp 8) would straddle replicas."""
    combos = [(1, 1, 1, 1, 16, 0, 0, 0, 0), (1, 1, 1, 1, 8, 0, 0, 0, 0)]
    assert list(layout.fits_cards(combos, 24.0)) == [False, True]


def test_the_compare_table_says_how_many_cards_idle(tmp_path):
    """512 / (2 x 3) = 85 replicas of 6 cards: 510 work, 2 idle; the search's own layout on
    512 cards uses them all, so its row says nothing."""
    path = tmp_path / "idle.yaml"
    path.write_text("workloads:\n  - {id: w, params: 70e9, tokens: 2e12}\nrent_options: none\n"
                    "candidates:\n"
                    "  - {id: pinned, card: h100-sxm, cards: 512, layout: {w: {tp: 2, pp: 3}}}\n"
                    "  - {id: free, card: h100-sxm, cards: 512}\n")
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 0, out.output
    rows = {line.split()[1]: line for line in out.output.splitlines()
            if line[:1].isdigit()}
    assert "2x3x1x1" in rows["pinned"] and rows["pinned"].count("(2 idle)") == 1
    assert "idle" not in rows["free"]
    assert "(N idle): cards left over by the whole data-parallel replicas" in out.output
