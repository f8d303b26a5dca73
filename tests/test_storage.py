"""Shared storage (methodology §5): sized from the plan's data (each training workload's dataset
and checkpoints, each serving workload's weights, at a fill fraction), the same for every option
that carries the same workloads; or, when the scenario sets `assumptions.storage_tb_per_card`,
that many terabytes per card.

The data rule at the catalog's defaults (7 bytes per token, 14 bytes per parameter, 10
checkpoints kept, filled to 0.8), by hand:

   70B pre-training on 2T tokens (the built-in example):
     dataset: 2e12 x 7 / 1e12                                     = 14 TB
     checkpoints: 70e9 x 14 x 10 / 1e12                           = 9.8 TB
     storage: (14 + 9.8) / 0.8                                    = 29.75 TB
     capex_storage: 29.75 x 300                                   = 8,925 (every bought option,
                                                                    512 B200 or 1,024 H100)
   serving the same 70B model in FP8 (train-and-serve.yaml): weights 70e9 x 1 / 1e12 = 0.07 TB,
     so an option carrying both: (23.8 + 0.07) / 0.8              = 29.8375 TB
   the 1B workload of tests/test_cashflow.py (3.6e11 tokens): (2.52 + 0.14) / 0.8 = 3.325 TB

The per-card rule, a capex line, its support an opex line, depreciated and resold
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
EXAMPLES = Path(__file__).resolve().parents[1] / "tco" / "scenarios"


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


def test_the_default_storage_is_sized_from_the_data_and_sourced(catalog):
    """The data rule's figures are sourced catalog ranges; 300 USD a TB, in CNY at 7.1526."""
    for key, best in (("dataset_bytes_per_token", 7), ("checkpoint_bytes_per_param", 14),
                      ("checkpoints_kept", 10), ("storage_fill_fraction", 0.8),
                      ("storage_price_per_tb_usd", 300)):
        fig = catalog.assumption(key)
        assert fig.best == best and fig.source and fig.range[0] < best < fig.range[1], key
    result = compute(load_scenario(), load_catalog())
    assert "assumptions.storage_tb_per_card" not in result.inputs  # not set: not an input
    inp = result.inputs["assumptions.storage_price_per_tb"]
    assert inp.value == 300 and inp.origin == "catalog"
    b200, h100 = result.candidate("b200"), result.candidate("h100-sxm")
    assert b200.jobs["llama-70b"]["dataset_tb"] == pytest.approx(14)
    assert b200.jobs["llama-70b"]["checkpoint_tb"] == pytest.approx(9.8)
    for c in (b200, h100):  # 512 and 1,024 cards, the same data: the same storage
        assert c.values["storage_tb"] == pytest.approx(29.75, rel=1e-12)
        assert c.values["capex_storage"] == pytest.approx(8_925, rel=1e-12)
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    doc.update(currency="CNY")
    doc["assumptions"].pop("storage_price_per_tb")
    doc["assumptions"].pop("storage_tb_per_card")
    doc["assumptions"].pop("checkpoint_bytes_per_param")  # the hand case's 0: the catalog's 14
    cny = compute(load_scenario_text(yaml.safe_dump(doc)), catalog)
    assert cny.inputs["assumptions.storage_price_per_tb"].value == pytest.approx(300 * 7.1526)
    assert cny.candidates[0].values["storage_tb"] == pytest.approx(3.325, rel=1e-12)
    assert cny.candidates[0].values["capex_storage"] == pytest.approx(3.325 * 300 * 7.1526,
                                                                      rel=1e-12)


def test_serving_stores_its_weights_and_each_part_its_own_data(catalog):
    result = compute(load_scenario(EXAMPLES / "train-and-serve.yaml"), catalog)
    both = result.candidate("h100-sxm")  # trains and serves
    assert both.jobs["chat"]["storage_data_tb"] == pytest.approx(0.07, rel=1e-12)
    assert both.values["storage_tb"] == pytest.approx(29.8375, rel=1e-12)
    trains = result.candidate("h200-train")  # only the pre-training (a portfolio's part)
    assert trains.values["storage_tb"] == pytest.approx(29.75, rel=1e-12)


def test_storage_per_card_only_when_the_scenario_sets_it(catalog):
    """`assumptions.storage_tb_per_card` set: the older rule, cards x that (1,024 x 2 TB)."""
    text = (EXAMPLES / "example.yaml").read_text(encoding="utf-8")
    text += "\nassumptions: {storage_tb_per_card: 2}\n"
    h100 = compute(load_scenario_text(text), catalog).candidate("h100-sxm")
    assert h100.values["storage_tb"] == pytest.approx(2048)
    assert "dataset_tb" not in h100.jobs["llama-70b"]


def test_a_rented_option_buys_no_storage(catalog):
    result = compute(load_scenario(), catalog)
    rented = result.candidate("b200-rent")
    assert rented.values["capex_storage"] == 0
    assert all(row["storage_support"] == 0 for row in rented.yearly)
