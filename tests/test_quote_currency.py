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


SERVE_CNY = """
name: cn api
currency: CNY
rent_options: none
workloads:
  - {id: chat, kind: serve, params: 70e9, input_tokens_per_day: 2e9,
     output_tokens_per_day: 5e8, prompt_tokens: 1000, output_tokens: 250}
candidates:
  - {id: h20, card: h20, cards: 64}
facility: {region: cn}
api_options:
  - {id: api, api: deepinfra-llama-3.3-70b}
"""


def test_an_api_price_quoted_in_cny_comes_back_as_quoted_in_a_cny_scenario(tmp_path, catalog):
    """The API option's catalog price is converted by the one figure-to-input function
    (tco.resolve.figures), with the quoted-currency rule: 0.85 CNY per million prompt
    tokens, quoted, is 0.85 CNY again, its source the quote's, without a USD round trip."""
    from tco.resolve import resolve

    path = quote(tmp_path, "deepinfra-llama-3.3-70b,input_usd_per_million_tokens,0.85,"
                           "Vendor price list,2026-11,CNY\n")
    quoted = resolve(load_scenario_text(SERVE_CNY), load_catalog([path]))
    got = quoted.inputs["api_options.api.input_price_per_million_tokens"]
    assert got.value == 0.85 and (got.low, got.high) == (0.85, 0.85)
    assert got.source == "Vendor price list"
    # the shipped price (USD 0.12, pricing/api.yaml) says it was converted, as before
    shipped = resolve(load_scenario_text(SERVE_CNY), catalog)
    out = shipped.inputs["api_options.api.output_price_per_million_tokens"]
    assert out.value == pytest.approx(0.30 * CNY_PER_USD, rel=1e-12)
    assert out.source.startswith(" (USD x 7.1526 CNY/USD): DeepInfra model page")
    assert (out.low, out.high) == (pytest.approx(0.30 * CNY_PER_USD),
                                   pytest.approx(0.40 * CNY_PER_USD))
    # in a EUR scenario the CNY quote is converted twice (CNY -> USD -> EUR) and says so
    eur = resolve(load_scenario_text(SERVE_CNY.replace("currency: CNY", "currency: EUR")
                                     .replace("region: cn", "region: eu")),
                  load_catalog([path]))
    got = eur.inputs["api_options.api.input_price_per_million_tokens"]
    assert got.value == pytest.approx(0.85 / CNY_PER_USD * 0.86, rel=1e-12)
    assert got.source.startswith(" (USD x 0.86 EUR/USD): Vendor price list (quoted 0.85 CNY")


def test_a_spot_price_quoted_in_cny_keeps_its_overhead_and_loses_the_round_trip(tmp_path):
    """A spot price is a useful card-hour's: x (1 + spot overhead, 0.1 by default in
    pricing/assumptions.yaml). Quoted in CNY in a CNY scenario, its source keeps that factor
    and reads as the quote wrote it (no word of the currency round trip)."""
    from tco.resolve import resolve

    path = quote(tmp_path, "h100-sxm,spot_usd_per_card_hour,12,Broker,2026-11,CNY\n")
    text = ("name: spot\ncurrency: CNY\nrent_pricing: spot\nrent_options: none\n"
            "workloads:\n  - {id: w, params: 7e9, tokens: 1e11, runs_per_year: 2}\n"
            "candidates:\n  - {id: h, card: h100-sxm, cards: 64, acquire: rent}\n")
    r = resolve(load_scenario_text(text), load_catalog([path]))
    over = r.inputs["assumptions.spot_overhead_fraction"].value
    got = r.inputs["candidates.h.cloud_price_per_card_hour"]
    assert got.value == pytest.approx(12 * (1 + over), rel=1e-12)
    assert got.source == (f"spot price x (1 + {over:g} spot overhead, "
                          "assumptions.spot_overhead_fraction): Broker")
