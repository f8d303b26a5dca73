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
    # the quoted figure exactly (not 105,000.17, nor the float round trip's 105,000.00000000001)
    # and the quote's own source: a CNY quote in a CNY scenario reads as quoted (issue 25), with
    # no word of the conversion to USD and back
    assert h20.value == 105000 and (h20.low, h20.high) == (105000, 105000)
    assert h20.source == "Vendor quote"
    a = result.inputs["candidates.a.card_price"]
    assert a.value == 120000 and a.source == "Partner quote"


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
