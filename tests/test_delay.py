"""The cost of delay is counted from the order to the first useful work (docs/methodology.md
§6, the timeline): the delivery and the port, whichever ends later; a rented option and a
hybrid's bridge from the port on. Numbers worked out by hand (a year is 365.25 / 7 =
52.178571 weeks):

  ascend-910b bought, 20 weeks' lead time, a 12-month CANN port (24 engineer-months, 2
  engineers, a team new to CANN): ready_years = MAX(20 / 52.178571, 24 / 2 / 12)
  = MAX(0.383299, 1) = 1 year -> 52.178571 weeks x 10,000 = 521,785.71 (the lead time
  alone, the old rule, was 20 x 10,000 = 200,000);
  the same card on a 2-month port: MAX(0.383299, 4 / 2 / 12 = 0.166667) -> the 20 weeks,
  200,000;
  mi300x rented, a 3-month ROCm port (6 engineer-months): 0.25 x 52.178571 x 10,000
  = 130,446.43 (a rented option paid none before);
  h100-sxm hybrid, 26 weeks' lead time, CUDA (no port): it rents from the first day, 0
  (the old rule charged the 26 weeks, 260,000).
"""

from __future__ import annotations

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

WEEKS = 365.25 / 7

DELAY = """
name: delay to the first useful work
rent_options: none
cost_of_delay_per_week: 10000
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: cann-12, card: ascend-910b, cards: 64, lead_time_weeks: 20, porting_engineer_months: 24}
  - {id: cann-2, card: ascend-910b, cards: 64, lead_time_weeks: 20, porting_engineer_months: 4}
  - {id: rented, card: mi300x, cards: 64, acquire: rent, porting_engineer_months: 6}
  - {id: bridged, card: h100-sxm, cards: 64, acquire: hybrid, lead_time_weeks: 26}
assumptions: {porting_team_engineers: 2}
finance: {horizon_years: 3, discount_rate: 0.08}
team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0, cann: 0.0, rocm: 0.0}}
"""


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(DELAY, "delay.yaml"), catalog)


def test_a_long_port_costs_its_months_of_delay(result):
    v = result.candidate("cann-12").values
    assert v["porting_months"] == pytest.approx(12)
    assert v["delivery_years"] == pytest.approx(20 / WEEKS, rel=1e-12)
    assert v["ready_years"] == pytest.approx(1.0)
    assert v["delay_weeks"] == pytest.approx(WEEKS, rel=1e-12)
    assert v["lead_time_delay_cost"] == pytest.approx(521_785.714286, abs=1e-6)
    assert result.candidate("cann-12").yearly[0]["lead_time_delay"] == pytest.approx(
        521_785.714286, abs=1e-6)


def test_a_short_port_leaves_the_lead_time(result):
    v = result.candidate("cann-2").values
    assert v["porting_months"] == pytest.approx(2)
    assert v["lead_time_delay_cost"] == pytest.approx(200_000, rel=1e-12)
    # the longer port costs 10 more months of delay in year 0, undiscounted
    longer = result.candidate("cann-12").values["lead_time_delay_cost"]
    assert longer - v["lead_time_delay_cost"] == pytest.approx(321_785.714286, abs=1e-6)


def test_renting_waits_for_the_port_and_a_hybrid_bridges_the_delivery(result):
    assert result.candidate("rented").values["lead_time_delay_cost"] == pytest.approx(
        0.25 * WEEKS * 10_000, rel=1e-12)  # 130,446.43
    bridged = result.candidate("bridged").values
    assert bridged["delivery_years"] == pytest.approx(26 / WEEKS, rel=1e-12)
    assert bridged["lead_time_delay_cost"] == 0
