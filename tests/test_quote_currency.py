"""Quotes as buyers write them: a price in CNY (or EUR) is converted once, at the catalog's
rate, and a CNY scenario gets the quoted number back."""

from pathlib import Path

import pytest

from tco.catalog import load_catalog
from tco.engine import compute
from tco.errors import CatalogError
from tco.scenario import load_scenario_text

CNY_PER_USD = 7.1526  # pricing/facilities.yaml exchange_rates.CNY (CFETS 2025-07-16)
SCENARIO = """
name: cn
currency: CNY
workloads:
  - {id: w, params: 7e9, tokens: 1e11, runs_per_year: 2}
candidates:
  - {id: h20, card: h20, cards: 64}
  - {id: a, card: ascend-910b, cards: 64}
facility: {region: cn}
"""


def quote(tmp_path: Path, rows: str, header: str = "id,field,value,source,as_of,currency"
          ) -> Path:
    path = tmp_path / "q.csv"
    path.write_text(f"{header}\n{rows}", encoding="utf-8")
    return path


def test_a_cny_price_comes_back_as_quoted_in_a_cny_scenario(tmp_path):
    path = quote(tmp_path, "h20,price_cny,105000,Vendor quote,2026-11,\n"
                           "ascend-910b,price_usd,120000,Partner quote,2026-11,CNY\n")
    catalog = load_catalog([path])
    assert catalog.card_prices["h20"].price_usd.best == pytest.approx(105000 / CNY_PER_USD,
                                                                      rel=1e-15)
    result = compute(load_scenario_text(SCENARIO), catalog)
    h20 = result.inputs["candidates.h20.card_price"]
    assert h20.value == pytest.approx(105000, rel=1e-12)  # not 105,000.17
    assert "quoted 105,000 CNY; at 7.1526 CNY/USD" in h20.source
    assert "USD x" not in h20.source  # no round trip through USD in the source: it came back
    assert result.inputs["candidates.a.card_price"].value == pytest.approx(120000, rel=1e-12)


@pytest.mark.parametrize(("rows", "message"), [
    ("h20,lead_time_weeks,12,Vendor,2026-11,CNY\n", "a currency applies to money figures"),
    ("h20,price_usd,105000,Vendor,2026-11,JPY\n", "currency 'JPY' is not one of"),
    ("h20,price_cny,105000,Vendor,2026-11,EUR\n", "the field says CNY but the currency column"),
    ("h20,price_cny,105000,Vendor,2026-11,\nh20,price_usd,14000,Vendor,2026-11,\n",
     "a second row for this id and field"),
])
def test_bad_currency_rows_name_the_file_and_row(tmp_path, rows, message):
    path = quote(tmp_path, rows)
    with pytest.raises(CatalogError) as exc:
        load_catalog([path])
    assert message in str(exc.value)
    assert "q.csv" in str(exc.value)
