"""The China market in the catalog (issue 31, and the export rule of issue 28): renting
installed capacity is no export; hub regions; regional (CNY) cloud prices; CNY per-token
API prices that come back as quoted; cards with no public price."""

from __future__ import annotations

import pytest

from tco.api import load_source
from tco.engine import compute
from tco.errors import ScenarioError

CNY = 7.1526  # pricing/facilities.yaml exchange_rates.CNY (CFETS 2025-07-16)


def run(catalog, candidates, region="cn", currency="CNY", **extra):
    return compute(load_source({
        "name": "cn", "currency": currency, "rent_options": "none",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
        "candidates": candidates, "facility": {"region": region}, **extra}), catalog)


def test_buying_a_restricted_card_in_china_is_barred_renting_installed_capacity_is_not(catalog):
    r = run(catalog, [{"id": "buy", "card": "h100-sxm", "cards": 64},
                      {"id": "rent", "card": "h100-sxm", "cards": 64, "acquire": "rent"}])
    buy, rent = r.candidate("buy"), r.candidate("rent")
    assert buy.info.blocking == ["export control: NVIDIA H100 SXM5 80GB is restricted in China"]
    assert rent.info.blocking == []
    assert rent.info.flags[0].startswith("export control: NVIDIA H100 SXM5 80GB may not be "
                                         "bought new in China; renting capacity already "
                                         "installed there is not an export")
    assert rent.values["tier"] < 2 <= buy.values["tier"]


def test_rent_options_auto_takes_rentings_bar_not_buyings(catalog):
    r = compute(load_source({
        "name": "cn", "currency": "CNY",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
        "candidates": [{"id": "h800", "card": "h800-sxm", "cards": 64,
                        "cloud_price_per_card_hour": 14}],
        "facility": {"region": "cn"}}), catalog)
    assert r.candidate("h800").info.blocking  # buying new H800 in China: barred
    assert r.candidate("h800-rent").info.blocking == []  # renting the installed base: not


def test_where_any_use_is_barred_renting_is_barred_too(catalog):
    # BIS 2025-05-13 guidance on Huawei Ascend (export_restriction: any_use)
    r = run(catalog, [{"id": "a", "card": "ascend-910b", "cards": 64, "acquire": "rent",
                       "cloud_price_per_card_hour": 2.0}], region="us", currency="USD")
    assert r.candidate("a").info.blocking[0].startswith("export control: ")


def test_a_hub_region_is_part_of_china_and_brings_its_tariff_carbon_and_offers(catalog):
    r = run(catalog, [{"id": "buy", "card": "h100-sxm", "cards": 64},
                      {"id": "rent", "card": "h100-sxm", "cards": 64, "acquire": "rent"}],
            region="cn-ningxia")
    inp = r.inputs
    # pricing/facilities.yaml cn-ningxia: 0.36 CNY/kWh (China Daily 2020-11); MEE 2023 factor
    assert inp["facility.electricity_price_per_kwh"].value == 0.36
    assert inp["facility.carbon_kg_per_kwh"].value == 0.6187
    assert catalog.region("cn-ningxia").pue_cap.value == 1.2
    assert r.candidate("buy").info.blocking  # China's export controls apply in its hubs
    # the China lease of installed H100 nodes: 70,000 CNY a month / 8 / 730 h = 12 CNY, quoted
    price = inp["candidates.rent.cloud_price_per_card_hour"]
    # back as quoted (tests/test_quote_currency.py): the figure exactly, the offer's own source
    assert price.value == 12 and (price.low, price.high) == (12, 12)
    assert price.source.startswith("as on-demand: the only public China figure is a monthly "
                                   "lease (cnBeta")
    assert "quoted" not in price.source and "USD x" not in price.source


def test_a_chinese_api_price_is_picked_by_id_and_comes_back_as_quoted(catalog):
    r = compute(load_source({
        "name": "cn api", "currency": "CNY", "rent_options": "none",
        "workloads": [{"id": "chat", "kind": "serve", "params": 72.7e9,
                       "input_tokens_per_day": 1e9, "output_tokens_per_day": 2e8,
                       "prompt_tokens": 2000, "output_tokens": 400}],
        "candidates": [{"id": "h", "card": "h100-sxm", "cards": 16, "acquire": "rent"}],
        "api_options": [{"id": "sf", "api": "siliconflow-qwen2.5-72b"},
                        {"id": "ds", "api": "deepseek-v4-flash-offpeak"}],
        "facility": {"region": "cn"}}), catalog)
    inp = r.inputs
    # SiliconFlow Qwen2.5-72B 4.13 CNY per million tokens; DeepSeek flash off-peak 1 / 4
    assert inp["api_options.sf.input_price_per_million_tokens"].value == pytest.approx(
        4.13, rel=1e-12)
    assert inp["api_options.ds.output_price_per_million_tokens"].value == pytest.approx(
        4, rel=1e-12)
    src = inp["api_options.sf.output_price_per_million_tokens"].source
    assert src.startswith("SiliconFlow Qwen/Qwen2.5-72B-Instruct 4.13 CNY per million output")
    assert "quoted" not in src and "USD x" not in src  # back as quoted, its source the offer's
    # in a USD scenario the same price is converted: 4.13 / 7.1526
    usd = compute(load_source({**r.scenario_data, "currency": "USD",
                               "facility": {"region": "us"}}), catalog)
    assert usd.inputs["api_options.sf.input_price_per_million_tokens"].value == pytest.approx(
        4.13 / CNY, rel=1e-12)


def test_a_card_without_a_public_price_asks_for_a_quote(catalog):
    with pytest.raises(ScenarioError) as exc:
        run(catalog, [{"id": "k", "card": "hygon-k100-ai", "cards": 64}])
    text = str(exc.value)
    assert "no purchase price per accelerator for 'hygon-k100-ai'" in text
    assert "give card_price" in text and "candidates.k" in text
    r = run(catalog, [{"id": "k", "card": "hygon-k100-ai", "cards": 64, "card_price": 60000}])
    k = r.candidate("k")
    assert k.inputs["card_price"] == 60000 and k.quantified
    # the server is an estimate (pcie-cn-8), the card the buyer's quote: capex is both
    assert k.values["capex_cards"] == pytest.approx(60000 * (64 + k.values["spare_cards"]))


def test_renting_a_card_without_a_public_price_needs_none(catalog):
    r = run(catalog, [{"id": "l", "card": "l20", "cards": 64, "acquire": "rent",
                       "cloud_price_per_card_hour": 5.0}])
    assert r.candidate("l").quantified
    assert r.inputs["candidates.l.card_price"].value == 0.0
