"""The break-even utilization compares owning with the rent a renter would actually pay at
each use (methodology §10; issue 25): at a committed tier, the cheaper of the reservation
(paid for every hour, take-or-pay) and on demand.

Before issue 25 the break-even compared owning with the tier at every use. A cluster cheaper
than the reservation's floor then got a negative break-even ("buying is cheaper at any use")
while renting on demand cost several times less at low use.

The scenario is the hand-worked purchase of tests/test_cashflow.py (tests/data/cashflow_hand.yaml)
with other cloud prices. From that file's hand calculation:
  annuity factor (3 years, 10 %): 1/1.1 + 1/1.21 + 1/1.331         = 2.486851991
  energy slope e: (4,000 - 1,000) W x 1.5 PUE / 1000 x 0.10        = 0.45 an hour
  fixed_buy: 198,740.666114 - 2.486851991 x 0.45 x 3,000           = 195,383.415927
  fixed_rent: 20,000 porting + 2,174.107143 its delay (the half-month port at 1,000 a week,
    0.5 / 12 x 365.25 / 7 weeks) + 2.486851991 x 5,000 maintenance  =  34,608.367098
  gap = fixed_buy - fixed_rent                                      = 160,775.048829
The plan uses 24,000 card-hours a year (2 runs x 12,000) on 8 cards; a committed tier
reserves every hour: R = 8,760 hours, 70,080 card-hours.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "cashflow_hand.yaml"
ANNUITY = 2.486851991
GAP = 160_775.048829
E = 0.45
CARDS = 8
R_HOURS = 8_760


def _bought(catalog, tier: float, on_demand: float):
    text = DATA.read_text().replace(
        "    cloud_price_per_card_hour: 2.0\n",
        f"    cloud_price_per_card_hour: {tier}\n").replace(
        "    on_demand_price_per_card_hour: 2.0  # so renting the same hours is 2.0 an hour used\n",
        f"    on_demand_price_per_card_hour: {on_demand}\n")
    assert f"cloud_price_per_card_hour: {tier}\n" in text
    assert f"on_demand_price_per_card_hour: {on_demand}\n" in text
    (c,) = compute(load_scenario_text(text, "tiers"), catalog).candidates
    return c


def test_a_reservation_cheaper_at_the_plan_but_on_demand_at_low_use(catalog):
    """Tier 1.00 a card-hour for every hour, on demand 3.00.

    At the plan's own 24,000 card-hours the reservation costs MAX(24,000, 70,080) x 1.00 =
    70,080 a year, on demand 24,000 x 3.00 = 72,000: the tier is rented (cloud_on_demand 0).
    Above R the rent is 8 x MIN(1, 3) = 8 an hour:
      h_top = 160,775.048829 / (2.486851991 x (8 - 0.45)) = 8,562.92 h, below R = 8,760:
    owning already costs less than the reservation's floor, so the break-even is where owning
    equals on demand (24 an hour):
      h_od = 160,775.048829 / (2.486851991 x (24 - 0.45)) = 2,745.22 h = 0.313382 of the year.
    The old formula said (8,562.92 - 8,760) / 8,760 = -2.25 %, "buying is cheaper at any use",
    while at 1,000 busy hours renting on demand costs 24,000 a year against owning's ~65,500.
    """
    c = _bought(catalog, 1.0, 3.0)
    assert c.values["cloud_on_demand"] == 0
    assert c.values["cloud_rent_per_year"] == pytest.approx(70_080)
    assert c.values["breakeven_utilization"] == pytest.approx(0.313382, abs=1e-6)


def test_a_reservation_dear_even_at_full_use(catalog):
    """Tier 0.90, on demand 3.00: h_top = 160,775.048829 / (2.486851991 x (7.2 - 0.45)) =
    9,577.78 h, above R: renting the reservation costs less at every use a year has, so the
    break-even is above 1 (1.093354), which the report shows as "never"."""
    c = _bought(catalog, 0.9, 3.0)
    assert c.values["breakeven_utilization"] == pytest.approx(1.093354, abs=1e-6)


def test_on_demand_at_the_plan_gives_the_same_as_before(catalog):
    """Tier 2.00, on demand 3.00: on demand is rented at the plan (72,000 < 140,160);
    h_top = 160,775.048829 / (2.486851991 x (16 - 0.45)) = 4,157.56 h < R, so the
    break-even is h_od = 2,745.22 h, 0.313382 (the old formula gave the same here)."""
    c = _bought(catalog, 2.0, 3.0)
    assert c.values["cloud_on_demand"] == 1
    assert c.values["breakeven_utilization"] == pytest.approx(0.313382, abs=1e-6)


@pytest.mark.parametrize("tier,on_demand", [(1.0, 3.0), (0.9, 3.0), (2.0, 3.0), (2.0, 2.0)])
def test_the_break_even_is_where_owning_starts_to_cost_less_than_the_rent_paid(
        catalog, tier, on_demand):
    """An oracle of the definition, from the hand figures above and not the model's tree:
    owning costs gap + annuity x e x h (relative to renting's fixed costs), renting
    annuity x MIN(on demand x h, tier x MAX(h, R)) x cards; the break-even is the busy hours
    above which owning is always the cheaper, found by scanning h a tenth of an hour apart."""
    c = _bought(catalog, tier, on_demand)

    def owning_minus_renting(h: float) -> float:
        rent = CARDS * min(on_demand * h, tier * max(h, R_HOURS))
        return GAP + ANNUITY * (E * h - rent)

    top = 2 * R_HOURS
    h = top
    while h > 0 and owning_minus_renting(h) <= 0:
        h -= 0.1
    expected = (h + 0.05) / R_HOURS if h < top else None
    got = c.values["breakeven_utilization"]
    if expected is None:  # owning never costs less within two years' worth of hours
        assert got > 2
    else:
        assert got == pytest.approx(expected, abs=0.1 / R_HOURS)
