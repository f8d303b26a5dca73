"""The catalog's own invariants after the 2026 market refresh (issues 28 and 31): every
figure sourced and dated; typical values inside their ranges and at the median of the Monte
Carlo draw; derived rents not below the owner's cost; the new cards present; and the model's
owned cost per GPU-hour under the large-neocloud profile within ±10% of SemiAnalysis'
published cost tiers (docs/market.md)."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner
from market_support import owned_cost_per_gpu_hour

from tco.analysis.montecarlo import Draw, Sampler, montecarlo
from tco.catalog import Figure, iter_figures
from tco.cli import cli

# SemiAnalysis AI Cloud TCO model, neocloud owned cost per GPU-hour, "August 2025 Pricing
# Surveys & AI Cloud TCO Model" (`costn` in SemiAnalysis' public InferenceX code,
# https://github.com/SemiAnalysisAI/InferenceX-app/blob/8647066/packages/app/src/lib/constants.ts)
NEOCLOUD_TIER_2025_08 = {"h100-sxm": 1.69, "h200-sxm": 1.74, "b200": 2.34, "mi300x": 1.40}

NEW_CARDS = ("b300", "gb200", "gb300", "mi355x", "ascend-910c", "ascend-910b4", "rtx-5090",
             "rtx-pro-6000", "rtx-pro-6000d", "a800-sxm", "l20", "h20-141gb", "rtx-4090d",
             "hygon-k100-ai", "mtt-s4000", "biren-br104", "cambricon-mlu370-x8")
DOMESTIC_VENDORS = {"Huawei", "Hygon", "Moore Threads", "Biren", "Cambricon"}

# money figures: those whose typical value must sit strictly inside its range unless the note
# says why it is at an end ("typical = ...")
MONEY = {("card_prices", "price_usd"), ("platforms", "node_price_usd"),
         ("platforms", "network_cost_per_card_usd"), ("regions", "electricity_price_per_kwh"),
         ("regions", "colocation_price_per_kw_month"),
         ("profiles", "colocation_price_per_kw_month_usd")} | {
    (section, f"{tier}_usd_per_card_hour") for section in ("cloud_prices", "regional_cloud_prices")
    for tier in ("on_demand", "committed", "committed_3yr", "spot")} | {
    ("api_prices", "input_usd_per_million_tokens"), ("api_prices", "output_usd_per_million_tokens")}


def ranges(catalog):
    return [(s, i, f, fig) for s, i, f, fig in iter_figures(catalog) if fig.value is None]


def test_every_figure_has_a_source_and_a_date(catalog):
    for section, ident, field, fig in iter_figures(catalog):
        assert len(fig.source.strip()) > 10, (section, ident, field)
        assert fig.as_of[:4].isdigit() and "2015" <= fig.as_of[:4] <= "2026", (ident, field)
    for rec in (*catalog.card_prices.values(), *catalog.platforms.values()):
        for field, why in rec.missing.items():  # a figure no public source gives says so
            assert "no " in why.missing and "quote" in why.missing, (rec.id, field)


def test_typical_within_the_range_and_money_strictly_inside_or_said_why(catalog):
    for section, ident, field, fig in ranges(catalog):
        assert fig.low <= fig.typical <= fig.high, (section, ident, field)
        if (section, field) in MONEY and fig.low < fig.high and \
                fig.typical in (fig.low, fig.high):
            assert "typical =" in (fig.note or ""), (section, ident, field, fig)


def test_the_monte_carlo_draw_of_every_catalog_range_has_its_typical_value_as_median(catalog):
    """By design (a split triangular, tco/analysis/montecarlo.py): exactly half the mass
    below typical, which is also the mode; checked on the CDF and on draws."""
    figs = [fig for *_, fig in ranges(catalog) if fig.low < fig.high]
    draws = [Draw((str(k),), "split", fig.low, fig.typical, fig.high, -1e30, 1e30)
             for k, fig in enumerate(figs)]
    for d in draws:  # a median: at most half below it, at least half at or below it
        eps = 1e-9 * (d.high - d.low)
        assert d.cdf(d.mode - eps) <= 0.5 + 1e-9 <= d.cdf(d.mode) + 2e-9, d
    x = Sampler(draws).sample(np.random.Generator(np.random.PCG64(3)), 40_000)
    for k, fig in enumerate(figs):
        assert np.mean(x[k] < fig.typical) <= 0.515, fig
        assert np.mean(x[k] <= fig.typical) >= 0.485, fig
        assert fig.low <= x[k].min() and x[k].max() <= fig.high


def test_split_triangular_follows_its_cdf_and_mean():
    # split(0, 1, 4): CDF(0.5) = 0.5 x (0.5/1)^2 = 0.125; CDF(2) = 1 - 0.5 x (2/3)^2 = 7/9;
    # mean = 0.5 x (0 + 2 x 1)/3 + 0.5 x (2 x 1 + 4)/3 = 1/3 + 1 = 4/3
    x = Sampler([Draw(("x",), "split", 0.0, 1.0, 4.0, 0.0, 4.0)]).sample(
        np.random.Generator(np.random.PCG64(11)), 400_000)[0]
    assert np.mean(x <= 0.5) == pytest.approx(0.125, abs=0.003)
    assert np.mean(x <= 1.0) == pytest.approx(0.5, abs=0.003)
    assert np.mean(x <= 2.0) == pytest.approx(7 / 9, abs=0.003)
    assert x.mean() == pytest.approx(4 / 3, abs=0.01)


def test_every_rented_option_of_the_example_has_its_point_npv_inside_its_p10_p90(example):
    """The symptom of issue 28: with triangular(low, typical, high) every rented option's
    point NPV lay below its own 10th percentile."""
    mc = montecarlo(example, draws=4000, seed=1)
    rented = [c for c in example.candidates if c.info.acquire == "rent" and c.quantified]
    assert rented
    for c in rented:
        p = mc.percentiles[c.id]["npv_tco"]
        assert p["p10"] < c.values["npv_tco"] < p["p90"], (c.id, p, c.values["npv_tco"])


def test_owned_cost_per_gpu_hour_is_within_ten_percent_of_the_neocloud_tiers(catalog):
    for card, tier in NEOCLOUD_TIER_2025_08.items():
        cost = owned_cost_per_gpu_hour(card, catalog)
        assert cost == pytest.approx(tier, rel=0.10), (card, cost, tier)


def test_no_derived_rent_is_below_the_owners_cost_of_the_same_card(catalog):
    """The rule of pricing/cloud.yaml: every derived part of a committed rent is at least the
    owner's cost of the same card under the large-neocloud profile."""
    checked = 0
    offers = [*catalog.cloud_prices.values(), *catalog.regional_cloud_prices.values()]
    for offer in offers:
        for tier in ("committed", "committed_3yr"):
            fig: Figure | None = getattr(offer, f"{tier}_usd_per_card_hour")
            if fig is None or not fig.derived:
                continue
            floor = owned_cost_per_gpu_hour(offer.card, catalog)
            for part in fig.derived:
                assert getattr(fig, part) >= floor - 0.005, (offer.card, tier, part, floor)
                checked += 1
    assert checked >= 8  # H100 1-year high, H100 PCIe, H200, B200, MI300X, MI325X, ...


def test_the_new_cards_are_listed_with_sources_and_shown(catalog):
    listing = CliRunner().invoke(cli, ["catalog", "list"])
    assert listing.exit_code == 0
    for card in NEW_CARDS:
        assert card in catalog.accelerators
        line = next(x for x in listing.output.splitlines() if x.startswith(card + " "))
        price = catalog.card_prices[card]
        if price.price_usd is None:  # no public price: the list says so, with the reason
            assert "no public figure" in line and "no public price" in line
        else:
            assert "(" in line or price.price_usd.value is not None
        shown = CliRunner().invoke(cli, ["catalog", "show", card])
        assert shown.exit_code == 0, shown.output
        assert "card_prices.price_usd" in shown.output
        peak = catalog.card(card).peak("bf16")
        assert peak.source[:30] in shown.output  # each figure with its source


def test_at_least_four_domestic_vendors_with_sourced_specs(catalog):
    vendors = {c.vendor for c in catalog.accelerators.values() if c.vendor in DOMESTIC_VENDORS}
    assert len(vendors) >= 4, vendors


def test_rack_scale_systems_are_the_unit(catalog):
    for card, per_rack in (("gb200", 72), ("gb300", 72), ("ascend-910c", 384)):
        c = catalog.card(card)
        plat = catalog.platform(c.default_platform)
        assert plat.cards_per_node.best == per_rack == c.scaleup_domain_cards.best
        assert plat.default_cooling == "liquid"


def test_ascend_serves_int8_and_blackwell_has_fp4(catalog):
    assert catalog.card("ascend-910b").peak("int8").best == 2 * catalog.card(
        "ascend-910b").peak("fp16").best  # W8A8: the cube's INT8 rate is twice its FP16
    assert catalog.card("ascend-910c").peak("int8") is not None
    for card in ("b200", "b300", "gb200", "gb300", "mi355x", "rtx-5090", "rtx-pro-6000"):
        assert catalog.card(card).peak("fp4") is not None, card
