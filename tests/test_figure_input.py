"""A catalog figure becomes an input through one function (tco.resolve.figures.figure_input):
its value, range, date and note are kept; money, and only money, is converted into the
scenario's currency, and the source says how."""

import pytest

from tco.catalog import Figure
from tco.inputs import CANDIDATE_INPUTS, FACILITY_INPUTS
from tco.resolve import resolve
from tco.resolve.figures import SAME, Conversion, between, figure_input, from_usd
from tco.scenario import load_scenario_text

PRICE = Figure(low=10, typical=12, high=20, source="Vendor list", as_of="2026-11",
               note="list price")
PUE = Figure(value=1.3, source="Survey", as_of="2024-12")


def test_money_is_converted_with_its_range_and_the_source_says_so(catalog):
    cny = from_usd(catalog, "CNY")  # 7.1526 CNY/USD, pricing/facilities.yaml
    inp = figure_input("candidates.x.card_price", PRICE, CANDIDATE_INPUTS["card_price"], cny)
    assert (inp.value, inp.low, inp.high) == (12 * 7.1526, 10 * 7.1526, 20 * 7.1526)
    assert inp.source == " (USD x 7.1526 CNY/USD): Vendor list"
    assert (inp.as_of, inp.note, inp.origin) == ("2026-11", "list price", "catalog")


def test_a_figure_that_is_not_money_is_never_converted(catalog):
    inp = figure_input("candidates.x.pue", PUE, CANDIDATE_INPUTS["pue"],
                       from_usd(catalog, "CNY"))
    assert (inp.value, inp.low, inp.high, inp.source) == (1.3, 1.3, 1.3, "Survey")


def test_usd_into_usd_says_nothing_and_a_factor_with_its_reason_heads_the_source(catalog):
    usd = from_usd(catalog, "USD")
    assert usd == Conversion(1.0, "", "USD")
    inp = figure_input("p", PRICE, CANDIDATE_INPUTS["cloud_price_per_card_hour"], usd,
                       why="x 1.5 for a reason", factor=1.5)
    assert (inp.value, inp.low, inp.high) == (18.0, 15.0, 30.0)
    assert inp.source == "x 1.5 for a reason: Vendor list"


def test_a_region_tariff_is_converted_from_the_regions_own_currency(catalog):
    """EUR into CNY through USD: 7.1526 / 0.86 CNY per EUR (pricing/facilities.yaml)."""
    eur_to_cny = between(catalog, "EUR", "CNY")
    assert eur_to_cny.scale == pytest.approx(7.1526 / 0.86, rel=1e-15)
    tariff = Figure(value=0.15, source="Eurostat", as_of="2025-10")
    inp = figure_input("facility.electricity_price_per_kwh", tariff,
                       FACILITY_INPUTS["electricity_price_per_kwh"], eur_to_cny)
    assert inp.value == pytest.approx(0.15 * 7.1526 / 0.86, rel=1e-15)
    assert inp.source == "EUR x 8.31698 CNY/EUR: Eurostat"
    assert between(catalog, "CNY", "CNY") == SAME


def test_grid_carbon_in_a_region_of_another_currency_is_not_said_to_be_converted(catalog):
    """Carbon per kWh is no money: a EU facility in a CNY scenario keeps the figure's own
    source (it read "EUR x 8.31698 CNY/EUR: ..." before the conversion moved into one
    function, though the number was never converted)."""
    text = ("name: eu\ncurrency: CNY\nrent_options: none\n"
            "workloads:\n  - {id: w, params: 7e9, tokens: 1e11, runs_per_year: 2}\n"
            "candidates:\n  - {id: h, card: h100-sxm, cards: 64}\nfacility: {region: eu}\n")
    r = resolve(load_scenario_text(text), catalog)
    carbon = r.inputs["facility.carbon_kg_per_kwh"]
    assert carbon.value == catalog.region("eu").carbon_kg_per_kwh.best
    assert not carbon.source.startswith("EUR x")
    assert r.inputs["facility.electricity_price_per_kwh"].source.startswith("EUR x 8.31698 "
                                                                          "CNY/EUR: ")
