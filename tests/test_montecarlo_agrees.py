"""Monte Carlo agrees with itself (issue 27): the chance of being cheapest and the percentiles
come from the same per-draw figures; an option short of the plan in a draw is priced, not
dropped; a point estimate outside its own P10-P90 band is explained by the skewed inputs.

Before, a cluster sized by `cards: auto` kept its size in every draw, fell a hair short of the
plan in a quarter of them, became infeasible there and dropped out: below, its P90 ($2.62M)
lay under the 48-card cluster's P10 ($3.10M), yet it was the cheapest in only 76 % of draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from test_analysis_montecarlo import with_distributions
from test_storage import EXAMPLES

from tco.analysis.montecarlo import montecarlo
from tco.analysis.skew import median
from tco.engine import compute
from tco.scenario import load_scenario, load_scenario_text

AUTO = """
name: auto mc
rent_options: none
cost_of_delay_per_week: 0
workloads:
  - {id: w, params: 7e9, tokens: 2e12, runs_per_year: 4}
candidates:
  - {id: auto, card: h100-sxm, cards: auto, lead_time_weeks: 0}
  - {id: big, card: h100-sxm, cards: 48, lead_time_weeks: 0}
finance: {horizon_years: 5, discount_rate: 0.08}
team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}
"""
DRAWS = 2000  # no more than SAMPLES_KEPT: the samples are every draw


@pytest.fixture(scope="module")
def auto(catalog):
    result = compute(load_scenario_text(AUTO, "auto.yaml"), catalog)
    return result, montecarlo(result, draws=DRAWS, seed=1)


def test_a_hairs_shortfall_is_priced_not_dropped(auto):
    result, mc = auto
    assert result.candidate("auto").inputs["cards"] == 32  # sized to just deliver the plan
    assert mc.short_share["auto"] > 0.1  # short of the plan in many draws...
    assert mc.ranked_share["auto"] == 1  # ... and ranked in every one
    a, b = mc.percentiles["auto"]["npv_tco"], mc.percentiles["big"]["npv_tco"]
    assert a["p90"] < b["p10"]
    # at least 0.8 follows from the percentiles (test below); 98.95 % of the 2,000 draws with
    # seed 1 (99.25 % before the resale curves, issue 28, were drawn too): not the 76 % of old
    assert mc.prob_cheapest["auto"] >= 0.98


def test_the_chance_of_being_cheapest_is_read_from_the_drawn_figures(auto):
    """Both options may rank in every draw, so the cheapest of each draw is the lower of the
    two drawn NPVs the percentiles are made of."""
    _result, mc = auto
    npv = np.vstack([mc.samples["auto"], mc.samples["big"]])
    assert npv.shape == (2, DRAWS)
    for cid, row in (("auto", 0), ("big", 1)):
        assert np.percentile(npv[row], 10) == pytest.approx(
            mc.percentiles[cid]["npv_tco"]["p10"], rel=1e-12)
    wins = np.bincount(np.argmin(npv, axis=0), minlength=2) / DRAWS
    assert mc.prob_cheapest["auto"] == wins[0] and mc.prob_cheapest["big"] == wins[1]


@pytest.mark.parametrize("source", [None, "train-and-serve.yaml", "auto"])
def test_an_option_above_anothers_p90_is_rarely_the_cheapest(catalog, source, auto):
    """If A's P90 lies below B's P10, B is cheaper than A in at most the 10 % of draws above
    A's P90 and the 10 % below B's P10: B leads in at most 20 % of the draws where A may rank
    (a draw in which A cannot rank, B may lead freely)."""
    if source == "auto":
        mc = auto[1]
    else:
        path = None if source is None else EXAMPLES / source
        mc = montecarlo(compute(load_scenario(path), catalog), draws=DRAWS, seed=4)
    checked = 0
    for a, pa in mc.percentiles.items():
        for b, pb in mc.percentiles.items():
            if a != b and pa["npv_tco"]["p90"] < pb["npv_tco"]["p10"]:
                checked += 1
                unranked = 1 - mc.ranked_share.get(a, 1.0)
                assert mc.prob_cheapest[b] <= 0.2 + unranked + 1e-12, (a, b)
    assert checked  # not vacuous


def test_every_point_is_in_its_band_or_says_why(example):
    mc = montecarlo(example, draws=DRAWS, seed=2)
    noted = {(o.candidate, o.metric) for o in mc.outside}
    for cid, bands in mc.percentiles.items():
        for metric, band in bands.items():
            point = mc.deterministic.get(cid, {}).get(metric)
            if point is None:
                continue
            inside = band["p10"] <= point <= band["p90"]
            assert inside != ((cid, metric) in noted), (cid, metric)
    for o in mc.outside:  # the skewed inputs pull the figure towards its band
        assert all((k.effect > 0) == (o.side == "below") for k in o.skewed)
        if o.candidate.endswith("-rent") and o.metric == "npv_tco":  # rent dominates
            assert o.skewed[0].path.endswith("on_demand_price_per_card_hour")


def test_a_skewed_input_is_named_with_its_median(catalog):
    """B200's card price drawn triangular(p, mode p, 3p) where p is its catalog price (38,000
    in the 2026-12 catalog): its point value is the low end, so the point NPV lies below its
    P10. The median of that triangular is high - (high - low) / sqrt(2) = 3p - 2p / 1.414214
    (P(x <= m) = 1 - ((high - m) / (high - low))^2 = 1/2): 60,259.88 for p = 38,000."""
    p = compute(load_scenario(), catalog).inputs["candidates.b200.card_price"].value
    assert p == 38000  # the catalog's figure (pricing/accelerators.yaml): the text above
    loaded = with_distributions(load_scenario(), {
        "candidates.b200.card_price": {"dist": "triangular", "low": p, "mode": p,
                                       "high": 3 * p}})
    result = compute(loaded, catalog)
    mc = montecarlo(result, draws=DRAWS, seed=5)
    (o,) = [o for o in mc.outside if o.candidate == "b200" and o.metric == "npv_tco"]
    assert o.side == "below" and o.point == result.candidate("b200").values["npv_tco"]
    first = o.skewed[0]
    assert first.path == "candidates.b200.card_price"
    assert (first.value, first.low, first.high) == (38000, 38000, 114000)
    assert first.median == pytest.approx(114000 - 76000 / math.sqrt(2), rel=1e-9)
    assert first.median == pytest.approx(60259.88, abs=0.01)
    # the NPV with the price alone at its median: 512 cards and 11 spares (2 %) bought at
    # 22,259.88 more, plus what follows the hardware's price (installation, support, residual)
    assert first.effect > 523 * (60259.88 - 38000)
    assert "candidates.b200.card_price (typical 3.8e+04, median of its draws 6.026e+04" in \
        o.text(lambda x: f"{x:.0f}")


def test_the_median_of_each_distribution():
    from tco.analysis.montecarlo import Draw

    tri = Draw(("x",), "triangular", 0.0, 0.0, 1.0, 0.0, 1.0)
    assert median(tri) == pytest.approx(1 - 1 / math.sqrt(2), rel=1e-12)
    uni = Draw(("x",), "uniform", 2.0, 0.0, 6.0, 0.0, 10.0)
    assert median(uni) == pytest.approx(4.0, rel=1e-12)
    normal = Draw(("x",), "normal", 10.0, 12.0, 20.0, 0.0, 100.0)  # mean 12
    assert median(normal) == pytest.approx(12.0, rel=1e-9)
    clipped = Draw(("x",), "uniform", 2.0, 0.0, 6.0, 0.0, 3.0)  # cut at 3: the median too
    assert median(clipped) == 3.0
