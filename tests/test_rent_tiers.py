"""Rent tiers (issue 13, methodology §10): on-demand, 1-year and 3-year committed, and spot
with its interruption overhead, each from its sourced catalog figure (pricing/cloud.yaml,
pricing/assumptions.yaml); a tier without a figure falls back to a dearer one and says so."""

from __future__ import annotations

import pytest
from test_options import ANNUITY_5

from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.decision_words import action_text
from tco.scenario import load_scenario_text


def _scenario(pricing: str) -> str:
    return ("name: tiers\nrent_options: none\ncost_of_delay_per_week: 0\n"
            f"rent_pricing: {pricing}\n"
            "workloads:\n  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}\n"
            "candidates:\n  - {id: h, card: h100-sxm, cards: 64, acquire: rent}\n"
            "  - {id: m, card: mi300x, cards: 64, acquire: rent}\n"
            "  - {id: l, card: l40s, cards: 64, acquire: rent}\n"
            "finance: {horizon_years: 5, discount_rate: 0.08}\n"
            "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")


@pytest.mark.parametrize("pricing, price", [
    # pricing/cloud.yaml h100-sxm (2026-12): on-demand typical 2.90 (AIMultiple 2026-05 median)
    ("on_demand", 2.90),
    ("committed", 2.35),  # 1-year committed typical (SemiAnalysis, 2026-03)
    ("committed_3yr", 1.30),  # 3-year: SemiAnalysis 3-year rental survey, 2025-08
    ("spot", 1.52 * 1.10),  # spot typical 1.52 x (1 + 0.10 spot overhead) = 1.672
])
def test_each_tier_reads_its_figure(catalog, pricing, price):
    r = compute(load_scenario_text(_scenario(pricing)), catalog)
    h = r.candidate("h")
    assert h.inputs["cloud_price_per_card_hour"] == pytest.approx(price, rel=1e-12)
    # the rented option's NPV: porting 0 (CUDA, familiar), upkeep 0, rent of four runs a
    # year; a committed tier reserves the 64 cards for every hour (64 x 8,760 x price a
    # year), far more than these few runs cost on demand (2.90), so it rents on demand
    hours = 4 * h.job["gpu_hours"]
    reserved = pricing.startswith("committed")
    assert h.inputs["rent_reserved_fraction"] == (1 if reserved else 0)
    if reserved:
        assert hours * 2.90 < 64 * 8760 * price
    rent = hours * (2.90 if reserved else price)
    assert h.values["rent_on_demand"] == (1 if reserved else 0)
    assert ("rents on demand" in " ".join(h.notes)) == reserved
    assert h.values["npv_tco"] == pytest.approx(ANNUITY_5 * rent, rel=1e-12)


def test_spot_carries_its_overhead_in_the_source_and_the_range(catalog):
    r = compute(load_scenario_text(_scenario("spot")), catalog)
    inp = r.inputs["candidates.h.cloud_price_per_card_hour"]
    assert inp.source.startswith("spot price x (1 + 0.1 spot overhead, "
                                 "assumptions.spot_overhead_fraction): RunPod H100 SXM spot")
    assert (inp.low, inp.high) == pytest.approx((0.81 * 1.1, 3.44 * 1.1), rel=1e-12)
    said = recommend(r)
    assert said is not None and said.pricing == "spot"


def test_a_tier_without_a_figure_falls_back_and_says_so(catalog):
    """The MI300X has no spot price in the catalog: spot rents on-demand (1.99); the L40S has
    no 3-year price: 3-year rents 1-year committed (1.00)."""
    spot = compute(load_scenario_text(_scenario("spot")), catalog).candidate("m")
    assert spot.inputs["cloud_price_per_card_hour"] == 1.99
    assert "no spot cloud price is published: renting uses on-demand" in spot.notes
    three = compute(load_scenario_text(_scenario("committed_3yr")), catalog).candidate("l")
    assert three.inputs["cloud_price_per_card_hour"] == 1.0
    assert ("no 3-year committed cloud price is published: renting uses 1-year committed"
            in three.notes)


def test_a_fallback_is_labelled_by_the_tier_it_used(catalog):
    """Under spot pricing the MI300X (no spot figure in pricing/cloud.yaml) rents on-demand at
    1.99: every output names on-demand, never spot. Its generated rent option says so in its
    note, the recommendation (JSON `pricing`, the action) and the live report's headline read
    the same tier; the H100, which has a spot figure, stays "spot"."""
    import datetime as dt

    from tco.exporters.report_view import View

    text = _scenario("spot").replace("rent_options: none", "rent_options: auto").replace(
        "  - {id: m, card: mi300x, cards: 64, acquire: rent}\n",
        "  - {id: m, card: mi300x, cards: 64}\n").replace(
        "  - {id: h, card: h100-sxm, cards: 64, acquire: rent}\n", "")
    r = compute(load_scenario_text(text), catalog)
    rented = r.candidate("m-rent")
    assert rented.inputs["cloud_price_per_card_hour"] == 1.99  # on-demand, no spot overhead
    assert rented.info.rent_tier == "on_demand"
    assert rented.notes[:2] == [
        ("renting the card and cluster size of 'm' at on-demand cloud prices "
        "(rent_options: auto)"),
        "no spot cloud price is published: renting uses on-demand"]
    assert not any("spot cloud prices" in n for n in rented.notes)
    only = compute(load_scenario_text(_scenario("spot").replace(
        "  - {id: h, card: h100-sxm, cards: 64, acquire: rent}\n", "").replace(
        "  - {id: l, card: l40s, cards: 64, acquire: rent}\n", "")), catalog)
    said = recommend(only)
    assert said is not None and said.option == "m" and said.pricing == "on-demand"
    assert action_text(said, only.currency) == "rent AMD Instinct MI300X 192GB at on-demand prices"
    view = View(only, "en", dt.date(2026, 12, 3))
    assert view.live_candidate(only.candidate("m"))["pricing"] == "on-demand"
    spot = compute(load_scenario_text(_scenario("spot")), catalog)
    assert spot.candidate("h").info.rent_tier == "spot"
    assert spot.candidate("m").info.rent_tier == "on_demand"
