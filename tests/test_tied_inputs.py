"""A dense model's active parameters are its parameters: resolve sets the one equal to the
other by default, and `tco whatif` of the parameters resolves again, so both move. Sensitivity,
Monte Carlo and break-even varied the parameters alone, which made the dense model a mixture
of experts (8.4B parameters, 7B active) and priced that; they now move the tied input with its
source (tco.analysis.common.ties). Found by a hostile-input hunt."""

from __future__ import annotations

import pytest

from tco.analysis.breakeven import breakeven
from tco.analysis.common import ties
from tco.analysis.montecarlo import montecarlo
from tco.analysis.sensitivity import sensitivity
from tco.analysis.whatif import whatif
from tco.engine import compute
from tco.errors import TcoError
from tco.scenario import load_scenario_text

DENSE = """
name: dense
currency: USD
workloads:
  - {id: w, kind: pretrain, params: 7.0e+9, tokens: 2.0e+11, precision: bf16, runs_per_year: 4}
candidates:
  - {id: h100, card: h100-sxm, cards: %s}
  - {id: mi, card: mi300x, cards: 1024}
facility: {region: us}
finance: {horizon_years: 3, discount_rate: 0.08}
"""


def npv_at(catalog, params: float, cid: str, cards: int = 64) -> float:
    """The engine's NPV of `cid` for the scenario written with `params` (and so as many
    active ones), as resolving it gives."""
    text = (DENSE % cards).replace("params: 7.0e+9", f"params: {params!r}")
    return compute(load_scenario_text(text), catalog).candidate(cid).values["npv_tco"]


def test_the_active_parameters_follow_the_parameters(catalog):
    r = compute(load_scenario_text(DENSE % 64), catalog)
    assert ties(r.inputs)["workloads.w.params"] == ("workloads.w.active_params",)
    # given, they are the user's own: no tie
    moe = compute(load_scenario_text((DENSE % 64).replace(
        "params: 7.0e+9,", "params: 7.0e+9, active_params: 7.0e+9,")), catalog)
    assert "workloads.w.params" not in ties(moe.inputs)


def test_sensitivity_moves_them_together(catalog):
    loaded = load_scenario_text(DENSE % 64)
    s = sensitivity(loaded, catalog, swing=0.2)
    bar = next(b for b in s.bars["h100-rent"] if b.path == "workloads.w.params")
    assert bar.metric_high == pytest.approx(npv_at(catalog, 8.4e9, "h100-rent"), rel=1e-9)
    assert bar.metric_low == pytest.approx(npv_at(catalog, 5.6e9, "h100-rent"), rel=1e-9)
    # the tied input is no bar of its own (varied alone it would be a mixture of experts)
    assert all(b.path != "workloads.w.active_params" for bars in s.bars.values() for b in bars)
    # the same as tco whatif
    c = whatif(loaded, catalog, ["workloads.w.params=8.4e9"])
    after = next(x for x in c.candidates if x.id == "h100-rent").npv.after
    assert bar.metric_high == pytest.approx(after, rel=1e-9)


def test_monte_carlo_draws_them_together(catalog):
    text = DENSE % 64 + ("distributions:\n  workloads.w.params: {dist: uniform, low: 8.399e+9, "
                         "high: 8.401e+9}\n")
    r = compute(load_scenario_text(text), catalog)
    mc = montecarlo(r, draws=2000, seed=3)
    p50 = mc.percentiles["h100-rent"]["npv_tco"]["p50"]
    # the other inputs are drawn too: the median of the draws lies near the NPV at 8.4e9
    # (dense), far from the mixture of experts the draws priced before (about 2x)
    assert p50 == pytest.approx(npv_at(catalog, 8.4e9, "h100-rent"), rel=0.1)
    # one draw for the two, yet no "draw shared by 2 candidates": the tie is no sharing
    assert "workloads.w.active_params" in mc.varied
    assert all("workloads.w.active_params" not in group for group in mc.shared)


def test_break_even_moves_them_together_and_stops_where_an_option_cannot_run(catalog):
    """8 H100 hold a dense 7B model; above about 35.7B parameters they cannot (memory), and
    the break-even says so rather than pricing them there."""
    loaded = load_scenario_text(DENSE % 8)
    b = breakeven(loaded, catalog, "workloads.w.params", "h100", "mi")
    edge = next(c for c in b.crossings if c.jump and c.note.startswith("h100 cannot run"))
    low, high = edge.bracket
    assert high / low - 1 <= 1e-3
    assert npv_at(catalog, low, "h100", cards=8) == pytest.approx(edge.metric_a, rel=1e-9)
    r = compute(load_scenario_text((DENSE % 8).replace("params: 7.0e+9", f"params: {high!r}")),
                catalog)
    assert not r.candidate("h100").feasible
    assert b.statement.startswith("no break-even for workloads.w.params between 7e+07 and "
                                  "7e+11: h100 keeps the lower NPV of TCO than mi where both "
                                  "can run the work; h100 cannot run the work above a value "
                                  "between ")


def test_break_even_refuses_an_option_that_cannot_run_the_work(catalog):
    loaded = load_scenario_text((DENSE % 8).replace("params: 7.0e+9", "params: 4.0e+11"))
    with pytest.raises(TcoError, match=r"h100 cannot run the work here \(w: needs .* GB per "
                                       r"card.*\): it has no cost to compare"):
        breakeven(loaded, catalog, "candidates.h100.card_price", "h100", "mi")


def test_monte_carlo_refuses_a_distribution_of_a_tied_input(catalog):
    text = DENSE % 64 + ("distributions:\n  workloads.w.active_params: {dist: uniform, low: 5e+9, "
                         "high: 7e+9}\n")
    r = compute(load_scenario_text(text), catalog)
    with pytest.raises(TcoError, match=r"workloads.w.active_params is not given: it is "
                                       r"workloads.w.params's value by default"):
        montecarlo(r, draws=100, seed=1)
