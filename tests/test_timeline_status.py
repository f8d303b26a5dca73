"""An owned option whose lead time leaves it short of the plan says so in the `tco compare`
table (issue 13): its capacity would do every run, so the note on runs per year is silent,
but delivered late it does only part of the plan by the horizon. The table said "ok" beside
a shortfall section saying 0%, and a cost per run and per card-hour of $0.00 when no run was
delivered.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

LATE = """
name: late
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: a, card: h100-sxm, cards: 64, lead_time_weeks: %d}
finance: {horizon_years: 2}
"""


def row(tmp_path, weeks: int) -> str:
    path = tmp_path / "late.yaml"
    path.write_text(LATE % weeks)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 0, out.output
    return next(line for line in out.output.splitlines() if line.startswith("2  a "))


def test_a_late_delivery_is_not_ok_in_the_table(catalog, tmp_path):
    c = compute(load_scenario_text(LATE % 100), catalog).candidate("a")
    # 100 weeks = 100 x 7 / 365.25 = 1.916496 years: nothing in year 1, and in year 2 the
    # cluster's hours for 0.083504 of the year; it has available / demand times the hours the
    # two runs a year need, so it does that many years of runs, of the 2 due
    delivery = 100 * 7 / 365.25
    assert c.values["ready_years"] == pytest.approx(delivery, rel=1e-12)
    demand = 2 * c.jobs["w"]["wall_days"] * 24
    capacity = 0.85 * 8760 / demand  # utilization 0.85 of the year
    done = min(capacity * (2 - delivery), 2)
    assert c.values["plan_delivered_fraction"] == pytest.approx(done / 2, rel=1e-9)
    assert done / 2 == pytest.approx(0.3281, abs=1e-4)
    assert c.values["runs_completed_fraction"] == 1  # capacity enough: no note of its own
    assert row(tmp_path, 100).endswith(
        "delivers 33% of the plan by the horizon (first useful work 23.0 months after the "
        "order)")


def test_no_run_delivered_has_no_cost_per_run(catalog, tmp_path):
    # 150 weeks = 2.87 years: delivered after the 2-year horizon, no run at all
    c = compute(load_scenario_text(LATE % 150), catalog).candidate("a")
    assert c.values["runs_over_horizon"] == 0 and c.values["cost_per_run_horizon"] == 0
    cells = row(tmp_path, 150).split()
    assert cells[8:10] == ["n/a", "n/a"]  # NPV/run, USD/GPU-h (not $0.00)
    assert " ".join(cells[11:]) == ("delivers 0% of the plan by the horizon (first useful work "
                                    "34.5 months after the order)")
