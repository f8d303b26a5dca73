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
