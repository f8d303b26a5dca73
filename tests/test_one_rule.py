"""Feasibility and the ranking tier are the model's quantities, and every consumer reads them:
a second rule anywhere (the engine, Monte Carlo, the workbook) drifting from them fails here."""

import numpy as np
import pytest

from tco.analysis.montecarlo import cheapest_counts
from tco.engine import compute, rank, tier
from tco.scenario import load_scenario_text

# One candidate failing each rule, beside feasible ones (hand-checked figures in comments).
HOSTILE = """
name: every rule
rent_options: none   # one option per rule; generated rent options: tests/test_options.py
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: ok, card: h100-sxm, cards: 1024}
  - {id: gaming, card: rtx-4090, cards: 1024}          # fits (1024 x 24 GB), barred: licence
  - {id: tiny, card: rtx-4090, cards: 8}               # 70B on 8 x 24 GB: out of memory
  - {id: huge, card: h100-sxm, cards: 300000}          # ~6 interruptions/h: slow, runs
  - {id: rush, card: a100-80gb-sxm, deadline_days: 0.5}    # no A100 cluster trains 2T tokens in 12 h
  - {id: watt, card: h100-sxm, power_cap_kw: 1}        # one HGX server draws ~10 kW
  - {id: slow, card: h100-sxm, cards: 64}              # feasible, completes fewer runs
"""


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(HOSTILE), catalog)


def test_each_candidate_fails_the_rule_it_was_built_to_fail(result):
    flags = {c.id: c for c in result.candidates}
    assert flags["ok"].feasible and tier(flags["ok"]) == 0
    assert flags["gaming"].feasible and tier(flags["gaming"]) == 2
    assert not flags["tiny"].jobs["w"]["fits_memory"] and not flags["tiny"].feasible
    # 300,000 H100 at 1.97e-5 interruptions per card-hour: one every 10 minutes (M = 0.169 h);
    # Daly's effective training time with a 0.15 h restart is about e^(-R/M) = 0.41 at best:
    # the run makes progress, slowly (no size makes none: Daly's ratio stays above zero)
    huge = flags["huge"].job
    assert huge["effective_training_time"] < 0.45 and flags["huge"].feasible
    assert flags["rush"].values["meets_deadline"] == 0 and not flags["rush"].feasible
    assert "within 0.5 days" in "; ".join(flags["rush"].reasons)
    assert flags["watt"].values["within_power_cap"] == 0 and not flags["watt"].feasible
    assert "over the 1 kW power cap" in "; ".join(flags["watt"].reasons)
    assert flags["watt"].inputs["cards"] == 8  # one server kept
    assert flags["slow"].feasible and tier(flags["slow"]) == 1


def test_the_engine_reads_the_models_rule(result):
    for c in result.candidates:
        assert c.feasible == bool(c.values["feasible"]), c.id
        assert bool(c.reasons) == (not c.feasible), c.id  # every failed rule is worded
        assert tier(c) == c.values["tier"], c.id
    # the ranking is (model tier, NPV, id), nothing else
    want = sorted(result.candidates, key=lambda c: (c.values["tier"],
                                                    c.values["npv_tco"] if c.feasible else 0,
                                                    c.id))
    assert [c.id for c in rank(list(result.candidates))] == [c.id for c in want]
    assert [c.id for c in result.candidates] == [c.id for c in want]


def test_monte_carlo_ranks_by_the_same_tier(result):
    # the model's tiers, one draw each: only 'ok' and 'slow' may lead, 'ok' first (tier 0)
    ids = [c.id for c in result.candidates]
    npv = np.array([[result.candidate(cid).values["npv_tco"]] for cid in ids])
    tiers = [np.array([result.candidate(cid).values["tier"]]) for cid in ids]
    counts = dict(zip(ids, cheapest_counts(npv, tiers).tolist()))
    assert counts == {cid: int(cid == "ok") for cid in ids}
