"""Published serving throughput against the DEFAULT serving model (issue 14; methodology §18).

Each case (tests/data/serving_benchmarks.yaml, with its MLPerf result log) is run with the
shipped catalog and no override: the model (parameters, layers, KV heads), the request shape,
the MLPerf scenario's latency objective, the card and the card count. Every submission is the
vendor's own tuned engine, so the team is familiar with the stack (team factor 1), exactly as
the training calibration runs vendor benchmarks (tests/test_calibration.py, `familiar`):
evaluating a ROCm submission with a CUDA team's factor would make it look slower than it ran.

* IN-SAMPLE: the cases the serving ratios (prefill_mfu_ratio, decode_mfu_ratio) were fitted
  on, so that their median error is near zero.
* OUT-OF-SAMPLE: cases no figure was set from. Their median |error| is the stated accuracy;
  issue 14's target is 25%.
* EXCLUDED: kept and reported, not counted (an input the model needs is not published).

An error is published / modelled tokens per second per card − 1 (positive: the model is
slower than the published result, pessimistic).
"""

from __future__ import annotations

import statistics

import pytest
from serving_support import benchmarks, case_name, error, serve_job

DATA = benchmarks()
CASES = DATA["cases"]
OUT_OF_SAMPLE_MEDIAN = 0.25  # issue 14's target for the held-out set
IN_SAMPLE_CENTRE = 0.05
CASE_TOLERANCE = 0.35
# Documented misses (methodology §18, tight latency): beyond the tolerance, kept as strict
# expected failures so that a change that fixes (or worsens past) them is noticed.
MISSES = {"llama2-70b Interactive 8xmi300x (v5.1)": -0.578,
          "llama2-70b Interactive 8xb200 (v5.1)": -0.495}


@pytest.fixture(scope="module")
def case_errors(catalog) -> dict[str, float]:
    return {case_name(c): error(catalog, c, DATA) for c in CASES}


def test_every_case_has_its_source_and_log():
    for c in CASES:
        assert c["source"].startswith("https://github.com/mlcommons/inference_results_v")
        assert c["log"].startswith(("closed/", "open/")) and c["model"] in c["log"]
        assert c["sample"] in ("in", "out", "excluded")


def test_out_of_sample_median_error(case_errors):
    out = [abs(case_errors[case_name(c)]) for c in CASES if c["sample"] == "out"]
    assert len(out) >= 10
    assert statistics.median(out) <= OUT_OF_SAMPLE_MEDIAN, statistics.median(out)


def test_in_sample_is_centred(case_errors):
    ins = [case_errors[case_name(c)] for c in CASES if c["sample"] == "in"]
    assert abs(statistics.median(ins)) <= IN_SAMPLE_CENTRE, ins


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason="documented miss "
                                            f"({MISSES[case_name(c)]:+.1%}), methodology §18"))
    if case_name(c) in MISSES else c
    for c in CASES if c["sample"] != "excluded"],
    ids=[case_name(c) for c in CASES if c["sample"] != "excluded"])
def test_case_within_tolerance(case, case_errors):
    assert abs(case_errors[case_name(case)]) <= CASE_TOLERANCE


@pytest.mark.parametrize("name", sorted(MISSES))
def test_documented_misses_are_as_stated(name, case_errors):
    assert case_errors[name] == pytest.approx(MISSES[name], abs=0.0005)


def test_the_step_overhead_is_fitted_on_the_in_sample_median(catalog):
    """`decode_step_overhead_s` is 0 because the in-sample median |error| is least there: on
    a grid of 0 to 4 ms it only grows (1.7% at 0, 2.7% at 2 ms, 4.1% at 4 ms). The one
    in-sample case it helps (Interactive, -24% at 0, -18% at 2 ms) is not a fit: a figure
    set by one case is tuning to it (methodology §18)."""
    def median_in(overhead: float) -> float:
        return statistics.median(abs(error(catalog, c, DATA, assumptions={
            "decode_step_overhead_s": overhead})) for c in CASES if c["sample"] == "in")

    grid = [median_in(x) for x in (0.0, 0.001, 0.002, 0.004)]
    assert grid == sorted(grid) and grid[0] < grid[1]
    assert catalog.assumption("decode_step_overhead_s").best == 0.0


def test_vendor_runs_are_not_charged_a_team_factor(catalog):
    """A ROCm submission runs with familiarity 1: its serving rate is the vendor-tuned one.
    With a CUDA team's default (familiarity 0 on ROCm) it would be slower by the stack's
    factor, which is the user's own shortfall, not the vendor's."""
    case = next(c for c in CASES if c["card"] == "mi300x" and c["scenario"] == "Offline")
    tuned = serve_job(catalog, case, DATA)
    assert tuned["tensor_parallel"] >= 1
    # The scenario serve_job builds states familiarity 1 for the card's stack.
    assert error(catalog, case, DATA) == pytest.approx(
        case["tokens_per_s"] / case["cards"] / tuned["tokens_per_s_per_card"] - 1)


def test_offline_llama2_70b_on_h100_by_hand(catalog):
    """MLPerf v4.1 H100 Offline, the model's own arithmetic (TP 2, compute-bound decode):
    per sequence and step, decode FLOPs = 2·68.98e9 + 4·80·h·(300 + 290.3/2) with
    h = sqrt(68.98e9 / (12·80)) = 8,476.7, i.e. 1.3796e11 + 1.2079e9 = 1.3917e11 FLOP; the
    replica's compute = 2 × 1,978.9e12 × 0.37 (H100 FP8 MFU) × 1.2 (decode ratio)
    = 1.7572e15 FLOP/s: 7.920e-5 s per sequence. Prefill of one request: 300 × (1.3796e11 +
    2·80·8,476.7·300) / (2 × 1,978.9e12 × 0.37 × 1.3) = 300 × 1.3837e11 / 1.9037e15 = 0.021806 s,
    i.e. 7.5115e-5 s per sequence per step (/ 290.3). Memory: 2 × 80 × 0.9 = 144 GB usable on
    two cards, weights 68.98 GB, KV 163,840 B/token × 590.3 tokens = 96.717 MB a sequence:
    (144 − 68.98) / 0.096717 = 775.7, so 775 sequences, under the engine's 1,024."""
    case = next(c for c in CASES if c["card"] == "h100-sxm" and c["cards"] == 8
                and c["scenario"] == "Offline" and c["model"] == "llama2-70b")
    job = serve_job(catalog, case, DATA)
    assert job["tensor_parallel"] == 2
    assert job["hidden_size"] == pytest.approx(8476.7, rel=1e-4)
    assert job["decode_compute_seconds_per_sequence"] == pytest.approx(7.920e-5, rel=1e-3)
    assert job["prefill_seconds"] == pytest.approx(0.021806, rel=1e-3)
    assert job["kv_cache_bytes_per_token"] == 2 * 80 * 8 * 128 * 1
    assert job["batch_sequences"] == 775
