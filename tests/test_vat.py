"""VAT on the purchase (methodology §5), worked by hand on the scenario of tests/test_cashflow.py
(tests/data/cashflow_hand.yaml: capex 133,900, NPV 198,740.666114 at 10 % over 3 years).

A. Net quotes, 13 % VAT, all of it recoverable:
   the capex lines are as quoted: capex_total 133,900
   VAT paid at year 0: 133,900 x 0.13                            = 17,407
   credited at the end of year 1                                  = -17,407
   NPV: + 17,407 - 17,407 / 1.1 = 17,407 x 0.1 / 1.1               = +1,582.454545
                                                                   -> 200,323.120659
B. Gross (含税) quotes, 13 % VAT, none recoverable:
   every purchase price / 1.13: capex_total 133,900 / 1.13        = 118,495.575221
   VAT: 118,495.575221 x 0.13                                     = 15,404.424779
   year 0 pays capex + VAT = 133,900, as quoted; nothing credited in year 1
   hardware capex 118,000 / 1.13                                  = 104,424.778761
   support 10 % of it a year                                      = 10,442.477876 (was 11,800)
     -> -1,357.522124 a full year; year 1 pays 337.25/365.25 of it: -1,253.454719
   residual 0.4 x 104,424.778761                                  = 41,769.911504 (was 47,200)
     -> 5,430.088496 less inflow in year 3
   NPV: -1,253.454719/1.1 - 1,357.522124/1.21 - 1,357.522124/1.331 + 5,430.088496/1.331
      = -1,139.504290 - 1,121.918284 - 1,019.922107 + 4,079.700673 = +798.355992
                                                                   -> 199,539.022106
C. The default (no VAT keys): no VAT line, every number as before (HAND_NPV).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "cashflow_hand.yaml"
HAND_NPV = 198_740.666114  # tests/test_cashflow.py
CAPEX = ("cards", "servers", "network", "cooling", "installation")


def hand(catalog, **finance: object):
    doc = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    doc["finance"].update(finance)
    (cand,) = compute(load_scenario_text(yaml.safe_dump(doc)), catalog).candidates
    return cand


def test_net_quotes_with_recoverable_vat_cost_only_the_wait(catalog):
    c = hand(catalog, vat_rate=0.13)
    v, y = c.values, c.yearly
    assert v["capex_total"] == pytest.approx(133_900)
    assert v["capex_vat"] == pytest.approx(17_407)
    assert v["capex_vat_recovered"] == pytest.approx(17_407)
    assert y[0]["vat"] == pytest.approx(17_407)
    assert y[1]["vat"] == pytest.approx(-17_407)
    assert y[2]["vat"] == y[3]["vat"] == 0
    assert v["npv_tco"] == pytest.approx(200_323.120659, abs=1e-5)
    assert v["undiscounted_tco"] == pytest.approx(hand(catalog).values["undiscounted_tco"])


def test_gross_quotes_with_unrecoverable_vat(catalog):
    c = hand(catalog, vat_rate=0.13, prices_include_vat=1, vat_recoverable_fraction=0)
    v, y = c.values, c.yearly
    assert v["vat_net_factor"] == pytest.approx(1 / 1.13)
    assert v["capex_total"] == pytest.approx(118_495.575221, abs=1e-5)
    assert v["capex_vat"] == pytest.approx(15_404.424779, abs=1e-5)
    assert sum(y[0][k] for k in (*CAPEX, "vat")) == pytest.approx(133_900)  # as quoted
    assert y[1]["vat"] == 0
    assert v["hardware_capex"] == pytest.approx(104_424.778761, abs=1e-5)
    assert y[2]["support"] == pytest.approx(10_442.477876, abs=1e-5)
    assert y[3]["residual_value"] == pytest.approx(-41_769.911504, abs=1e-5)
    assert v["npv_tco"] == pytest.approx(199_539.022106, abs=1e-5)


def test_no_vat_by_default(catalog):
    c = hand(catalog)
    assert c.values["capex_vat"] == 0 and c.values["vat_net_factor"] == 1
    assert all(row["vat"] == 0 for row in c.yearly)
    assert c.values["npv_tco"] == pytest.approx(HAND_NPV, abs=1e-5)


@pytest.mark.parametrize(("field", "value", "message"), [
    ("vat_rate", 0.7, "outside the plausible range 0 to 0.5"),
    ("vat_recoverable_fraction", 1.5, "outside the plausible range 0 to 1"),
    ("prices_include_vat", 0.5, "expected a whole number, found 0.5"),
    ("prices_include_vat", 2, "outside the plausible range 0 to 1"),
])
def test_implausible_vat_is_refused(catalog, field, value, message):
    from tco.errors import TcoError

    with pytest.raises(TcoError) as exc:
        hand(catalog, **{field: value})
    assert message in str(exc.value) and field in str(exc.value)


def test_a_yes_or_no_is_refused_where_1_or_0_is_expected(catalog):
    """`prices_include_vat: true` is a YAML boolean: the file is told to write 1 or 0."""
    from tco.errors import TcoError

    with pytest.raises(TcoError) as exc:
        hand(catalog, prices_include_vat=True)
    assert "prices_include_vat" in str(exc.value)
