"""Shared storage (methodology §5): a capex line, its support an opex line, depreciated and resold
with the hardware; worked by hand on the scenario of tests/test_cashflow.py
(tests/data/cashflow_hand.yaml: 8 cards, 3 years at 10 %, support 10 % a year, book value 0.4 of
capex at the horizon, year 1 installed for 337.25/365.25 of it; NPV 198,740.666114 without
storage) with 10 TB per card at 300 a TB:

   storage: 8 cards x 10 TB                                       = 80 TB
   capex_storage: 80 x 300                                        = 24,000 (year 0)
   capex_total: 133,900 + 24,000 (installation is on the compute)  = 157,900
   storage support: 24,000 x 0.10                                = 2,400 a year
     year 1: 2,400 x 337.25 / 365.25                              = 2,216.016427
   residual: 24,000 x 0.4                                         = 9,600 more inflow in year 3
   NPV: + 24,000 + 2,216.016427/1.1 + 2,400/1.21 + 2,400/1.331 - 9,600/1.331
      = 24,000 + 2,014.560388 + 1,983.471074 + 1,803.155522 - 7,212.622089
      = +22,588.564896                                            -> 221,329.231010
   cost per run: hardware share ((118,000 + 24,000) x 0.8 + 10,000 + 5,900) / (4 x 4,380 h)
      = 129,500 / 17,520 = 7.391553 per cluster-hour x 1,500 h     = 11,087.328767
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tco.catalog import load_catalog
from tco.engine import compute
from tco.scenario import load_scenario, load_scenario_text

DATA = Path(__file__).parent / "data" / "cashflow_hand.yaml"


def hand(catalog, **assumptions: object):
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    doc["assumptions"].update(assumptions)
    (cand,) = compute(load_scenario_text(yaml.safe_dump(doc)), catalog).candidates
    return cand


def test_storage_by_hand(catalog):
    c = hand(catalog, storage_tb_per_card=10, storage_price_per_tb=300)
    v, y = c.values, c.yearly
    assert v["storage_tb"] == pytest.approx(80)
    assert v["capex_storage"] == pytest.approx(24_000)
    assert v["capex_total"] == pytest.approx(157_900)
    assert v["capex_installation"] == pytest.approx(5_900)
    assert y[0]["storage"] == pytest.approx(24_000)
    assert y[1]["storage_support"] == pytest.approx(2_216.016427, abs=1e-5)
    assert y[2]["storage_support"] == y[3]["storage_support"] == pytest.approx(2_400)
    assert y[3]["residual_value"] == pytest.approx(-(47_200 + 9_600))
    assert v["npv_tco"] == pytest.approx(221_329.231010, abs=1e-5)
    assert c.jobs["small"]["cost_hardware"] == pytest.approx(11_087.328767, abs=1e-5)


def test_no_storage_leaves_the_hand_worked_cash_flow(catalog):
    c = hand(catalog)  # the file sets storage_tb_per_card: 0
    assert c.values["capex_storage"] == 0
    assert all(row["storage"] == 0 and row["storage_support"] == 0 for row in c.yearly)
    assert c.values["npv_tco"] == pytest.approx(198_740.666114, abs=1e-5)


def test_the_default_storage_is_sourced_and_converted(catalog):
    """The catalog's default: 10 TB a card at 300 USD a TB; in CNY at the catalog's 7.1526."""
    tb = catalog.assumption("storage_tb_per_card")
    price = catalog.assumption("storage_price_per_tb_usd")
    assert (tb.best, price.best) == (10, 300) and tb.source and price.source
    result = compute(load_scenario(), load_catalog())
    inp = result.inputs["assumptions.storage_price_per_tb"]
    assert inp.value == 300 and inp.origin == "catalog"
    h100 = result.candidate("h100-sxm").values
    assert h100["capex_storage"] == pytest.approx(1024 * 10 * 300)  # 3,072,000
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    doc.update(currency="CNY")
    doc["assumptions"].pop("storage_price_per_tb")
    cny = compute(load_scenario_text(yaml.safe_dump(doc)), catalog)
    assert cny.inputs["assumptions.storage_price_per_tb"].value == pytest.approx(300 * 7.1526)


def test_a_rented_option_buys_no_storage(catalog):
    result = compute(load_scenario(), catalog)
    rented = result.candidate("b200-rent")
    assert rented.values["capex_storage"] == 0
    assert all(row["storage_support"] == 0 for row in rented.yearly)
