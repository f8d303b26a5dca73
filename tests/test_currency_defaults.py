"""Money defaults come from the catalog in USD and are converted to the scenario's currency."""

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

TEXT = """
currency: CURRENCY
workloads: [{id: w, params: 7e9, tokens: 1e11}]
candidates: [{id: m, card: mi300x, cards: 8}]
"""


def test_default_engineer_cost_follows_the_currency(catalog):
    usd = compute(load_scenario_text(TEXT.replace("CURRENCY", "USD")), catalog)
    cny = compute(load_scenario_text(TEXT.replace("CURRENCY", "CNY")), catalog)
    rate = catalog.usd_to("CNY")
    default_usd = catalog.assumption("engineer_cost_per_month_usd").best
    assert usd.inputs["team.engineer_cost_per_month"].value == default_usd
    assert cny.inputs["team.engineer_cost_per_month"].value == pytest.approx(default_usd * rate)
    # porting (engineer-months x cost) is the same amount of money in either currency
    assert cny.candidate("m").values["porting_one_time"] == pytest.approx(
        usd.candidate("m").values["porting_one_time"] * rate, rel=1e-12)


def test_cooling_plant_is_not_paid_twice(catalog):
    # The colocation price includes the provider's cooling: no cooling capex by default ...
    base = compute(load_scenario_text(TEXT.replace("CURRENCY", "USD")), catalog).candidate("m")
    assert base.values["capex_cooling"] == 0
    assert base.values["colocation_per_year"] > 0
    # ... unless the buyer pays for its own equipment: 2,000 USD/kW on the rated IT capacity
    own = TEXT.replace("CURRENCY", "USD").replace("cards: 8}", "cards: 8, cooling_capex_per_kw: 2000}")
    m = compute(load_scenario_text(own), catalog).candidate("m")
    assert m.values["capex_cooling"] == pytest.approx(m.values["it_capacity_kw"] * 2000)
