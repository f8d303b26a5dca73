"""Published serving throughput against the DEFAULT serving model (issues 14 and 29;
methodology §18).

Each case (tests/data/serving_benchmarks.yaml: MLPerf Inference results with their logs, and
InferenceX throughput-interactivity points with their pages) is run with the shipped catalog
and no override: the model (parameters, layers, KV heads), the request shape, the objective
(MLPerf's scenario, or the frontier's time per token at the median), the card and the card
count. A vendor's tuned engine runs with the team familiar with the stack (team factor 1), a
stock engine with a team new to it (the stack's serving_stock_efficiency).

* IN-SAMPLE: the cases the serving figures were fitted on (tests/serving_fit.py).
* OUT-OF-SAMPLE: cases no figure was set from. The acceptance of issue 29 counts the
  latency-bound ones (Server, Interactive, frontier): median |error| at most 25%, none beyond
  ±60%; Offline is reported apart.
* TEAM: stock engines (MLPerf open division), the your-team side of the distinction.

An error is published / modelled output tokens per second per card − 1 (positive: the model is
slower than the published result, pessimistic).
"""

from __future__ import annotations

import statistics

import pytest
from serving_fit import FIGURES, current, in_sample, loss
from serving_support import (
    LATENCY_BOUND,
    benchmarks,
    case_name,
    error,
    scenario_of,
    serve_job,
)

DATA = benchmarks()
CASES = DATA["cases"]
MEDIAN_TARGET = 0.25  # issue 29: median |error| on the held-out latency-bound results
WORST_TARGET = 0.60  # issue 29: none beyond ±60%


@pytest.fixture(scope="module")
def case_errors(catalog) -> dict[str, float]:
    return {case_name(c): error(catalog, c, DATA) for c in CASES
            if c["sample"] != "excluded"}


def errors_of(case_errors: dict[str, float], sample: str, scenarios: tuple[str, ...]
              ) -> list[float]:
    return [case_errors[case_name(c)] for c in CASES
            if c["sample"] == sample and scenario_of(c) in scenarios]


def test_every_case_has_its_source():
    names = [case_name(c) for c in CASES]
    assert len(set(names)) == len(names)
    for c in CASES:
        assert c["sample"] in ("in", "out", "team", "excluded")
        assert c["tuning"] in ("vendor", "stock") if "tuning" in c else c["sample"] == "excluded"
        if c.get("kind") == "frontier":
            assert c["page"].startswith("https://inferencex.semianalysis.com/compare-precision/")
        else:
            assert c["source"].startswith("https://github.com/mlcommons/inference_results_v")
            assert c["log"].startswith(("closed/", "open/"))


def test_out_of_sample_latency_bound_meets_issue_29(case_errors):
    """The accuracy issue 29 asks for, on the held-out Server, Interactive and frontier
    results: median |error| at most 25% and none beyond ±60%."""
    out = errors_of(case_errors, "out", LATENCY_BOUND)
    assert len(out) >= 30
    assert statistics.median(abs(e) for e in out) <= MEDIAN_TARGET
    worst = max(out, key=abs)
    assert abs(worst) <= WORST_TARGET, worst


def test_out_of_sample_offline_is_reported_and_within_the_same_bounds(case_errors):
    out = errors_of(case_errors, "out", ("Offline",))
    assert len(out) >= 20
    assert statistics.median(abs(e) for e in out) <= MEDIAN_TARGET
    assert max(abs(e) for e in out) <= WORST_TARGET


def test_in_sample_is_centred(case_errors):
    ins = errors_of(case_errors, "in", ("Offline", *LATENCY_BOUND))
    assert abs(statistics.median(ins)) <= 0.10, ins
    assert statistics.median(abs(e) for e in ins) <= 0.15, ins


def test_the_shipped_figures_are_the_fit(catalog):
    """The serving figures in pricing/ are the in-sample fit (tests/serving_fit.py), rounded:
    moving any one of them by 3% in either direction does not lower the in-sample loss by more
    than the rounding can (0.002)."""
    cases = in_sample(catalog, DATA)
    shipped = current(catalog)
    base = float(loss(cases, shipped))
    for name in FIGURES:
        for k in (0.97, 1.03):
            moved = float(loss(cases, {**shipped, name: shipped[name] * k}))
            assert moved >= base - 0.002, (name, k, moved, base)


def test_a_stock_engine_is_slower_than_the_vendors(catalog):
    """The your-team side: a stock engine (familiarity 0) serves at the stack's
    serving_stock_efficiency of the vendor-tuned rate, never faster."""
    for case in [c for c in CASES if c["sample"] == "team"][:4]:
        stock = serve_job(catalog, case, DATA)["tokens_per_s_per_card"]
        tuned = serve_job(catalog, {**case, "tuning": "vendor"}, DATA)["tokens_per_s_per_card"]
        assert 0 < stock < tuned, case_name(case)


@pytest.mark.parametrize("case", [c for c in CASES if c["sample"] in ("in", "out")],
                         ids=[case_name(c) for c in CASES if c["sample"] in ("in", "out")])
def test_case_within_the_bound(case, case_errors):
    assert abs(case_errors[case_name(case)]) <= WORST_TARGET


def test_the_tensor_parallel_search_on_cuda(catalog):
    """MLPerf v5.1: NVIDIA runs Llama 2 70B at TP 1 in Interactive (its B200 and H200 configs,
    research for issue 29 §2.4); the model's search picks one or two cards per replica there
    (on ROCm it picks four where AMD ran one: methodology §18), and four for 139 tokens/s per
    user on B200, as InferenceX's concurrency implies."""
    inter = [c for c in CASES if c.get("scenario") == "Interactive" and c["sample"] == "in"
             and catalog.card(c["card"]).stack == "cuda"]
    assert inter
    for case in inter:
        assert serve_job(catalog, case, DATA)["tensor_parallel"] <= 2, case_name(case)
    fast = next(c for c in CASES if c.get("kind") == "frontier" and c["card"] == "b200"
                and c["tokens_per_s_per_user"] == 139 and c["precision"] == "fp8")
    assert serve_job(catalog, fast, DATA)["tensor_parallel"] == 4
