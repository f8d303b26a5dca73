"""Serving workloads (issue 14; docs/methodology.md §18) against numbers worked out by hand,
and the train-and-serve scenario in every output."""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text

# Round numbers so that every step can be done by hand: one card per replica (TP pinned to 1),
# no all-reduce, no engine overhead, no tail margin on the time per token (a TTFT tail of 2),
# the card's peak x MFU = 1e15 FLOP/s, 4 TB/s read in full.
HAND = """
rent_options: none
workloads:
  - {id: pre, params: 7e9, tokens: 1e11, runs_per_year: 2}
  - id: chat
    kind: serve
    params: 10e9
    precision: fp8
    layers: 40
    kv_heads: 8
    head_dim: 128
    input_tokens_per_day: 1e10
    output_tokens_per_day: 2.5e9
    peak_to_average: 2
    prompt_tokens: 1000
    output_tokens: 250
    ttft_ms: 100
    tpot_ms: 20
candidates:
  - id: h200
    card: h200-sxm
    cards: 16
    memory_gb: 100
    memory_bandwidth_gb_per_s: 4000
    peak_tflops_fp8: 2000
    mfu_fp8: 0.5
    serving_bandwidth_efficiency: 1
    serving_tail_latency_ratio: 1
    serving_allreduce_latency_s: 0
    serving_step_overhead_s: 0
    layout: {chat: {tp: 1}}
assumptions:
  prefill_mfu_ratio: 1
  decode_mfu_ratio: 1
  ttft_tail_latency_ratio: 2
  max_batch_sequences: 1024
"""


@pytest.fixture(scope="module")
def hand(catalog):
    (c,) = compute(load_scenario_text(HAND, "hand.yaml"), catalog).candidates
    return c


def test_kv_cache_and_weights_by_hand(hand):
    job = hand.jobs["chat"]
    # 2 (K and V) x 40 layers x 8 heads x 128 x 1 byte (FP8) = 81,920 B per token
    assert job["kv_cache_bytes_per_token"] == 81_920
    assert job["weight_bytes"] == 10e9  # one byte per parameter at FP8
    # 12·L·h² = N: h = sqrt(10e9 / 480) = 4,564.35
    assert job["hidden_size"] == pytest.approx(math.sqrt(10e9 / 480), rel=1e-12)


def test_prefill_decode_and_batch_by_hand(hand):
    job = hand.jobs["chat"]
    h = math.sqrt(10e9 / 480)
    rate = 2000e12 * 0.5  # peak x MFU x ratio 1, one card
    prefill_s = 1000 * (2 * 10e9 + 2 * 40 * h * 1000) / rate  # 0.0203651 s
    assert job["prefill_seconds"] == pytest.approx(prefill_s, rel=1e-12)
    a_mem = 10e9 / 4000e9  # weights read once a step: 2.5 ms
    ctx = 1000 + 250 / 2
    b_mem = 81_920 * ctx / 4000e9  # KV of one sequence: 23.04 us
    b_cmp = (2 * 10e9 + 4 * 40 * h * ctx) / rate  # 20.82 us
    pf = prefill_s / 250  # prompts interleaved per sequence and step: 81.46 us
    by_memory = (100 * 0.9 * 1e9 - 10e9) / (81_920 * 1250)  # 781.25 sequences
    # the step is additive (methodology §18): 2.5 ms + 125.32 us a sequence
    by_latency = (0.020 - a_mem) / (b_mem + b_cmp + pf)  # 139.64
    assert job["batch_memory_limit"] == pytest.approx(by_memory, rel=1e-12)
    assert job["batch_latency_limit"] == pytest.approx(by_latency, rel=1e-12)
    assert job["batch_sequences"] == 139
    step = a_mem + (b_mem + b_cmp + pf) * 139  # 19.92 ms
    assert job["tpot_ms"] == pytest.approx(step * 1000, rel=1e-12)
    assert job["ttft_ms"] == pytest.approx((prefill_s + step) * 1000, rel=1e-12)
    assert job["tokens_per_s_per_card"] == pytest.approx(139 / step, rel=1e-12)  # 6,978
    assert job["tokens_per_s_per_card"] == pytest.approx(6978.1, rel=1e-4)
    # TTFT 40.3 ms mean, x the tail ratio 2 = 80.6 ms within the 100 ms objective
    assert job["meets_objective"] == 1


def test_cards_energy_and_cost_per_token_by_hand(hand):
    job = hand.jobs["chat"]
    step = job["tpot_ms"] / 1000
    s_in = job["prefill_seconds"] / 1000  # card-seconds per prompt token
    s_out = step / 139 - job["prefill_seconds"] / 250  # decode card-seconds per output token
    avg = (1e10 * s_in + 2.5e9 * s_out) / 86400  # 4.1466 cards busy on average
    assert job["average_cards_busy"] == pytest.approx(avg, rel=1e-12)
    assert job["average_cards_busy"] == pytest.approx(4.1466, rel=1e-4)
    assert job["cards_needed"] == 9  # ROUNDUP(4.15 x 2 / 1) x 1
    assert job["serves_peak"] == 1 and hand.feasible
    # A year of serving: 4.147 cards x 8,760 h, a 4.147/16 share of the cluster's hours.
    assert job["gpu_hours"] == pytest.approx(avg * 8760, rel=1e-12)
    assert job["wall_hours"] == pytest.approx(avg * 8760 / 16, rel=1e-12)
    # Energy: the cluster's serving draw per card x PUE x card-seconds.
    per_card_j = hand.values["training_power_w"] / 16 * hand.inputs["pue"]
    assert job["energy_per_output_token_j"] == pytest.approx(per_card_j * s_out, rel=1e-12)
    # The year's cost split by card-seconds: prompts take 203,651 of 358,258 card-seconds a day.
    share = 1e10 * s_in / (1e10 * s_in + 2.5e9 * s_out)
    assert share == pytest.approx(0.56845, rel=1e-4)
    year = job["cost_per_job"]
    assert job["cost_per_million_input_tokens"] == pytest.approx(
        year * share / (1e10 * 365) * 1e6, rel=1e-12)
    assert job["cost_per_million_output_tokens"] == pytest.approx(
        year * (1 - share) / (2.5e9 * 365) * 1e6, rel=1e-12)


def test_serving_shares_the_cluster_with_training(hand):
    """The plan's hours: two training runs a year plus serving's share of the cluster."""
    train = hand.jobs["pre"]["wall_hours"]
    serve = hand.jobs["chat"]["wall_hours"]
    assert hand.values["demand_hours_per_year"] == pytest.approx(2 * train + serve, rel=1e-12)
    assert hand.values["runs_completed_fraction"] == 1


def test_peak_larger_than_the_cluster_is_infeasible(catalog):
    text = HAND.replace("peak_to_average: 2", "peak_to_average: 5")  # ROUNDUP(20.73) = 21 > 16
    (c,) = compute(load_scenario_text(text, "hand.yaml"), catalog).candidates
    assert not c.feasible
    assert c.reasons == ["chat: the peak needs 21 cards, the cluster has 16"]


def test_objective_out_of_reach_is_infeasible(catalog):
    # One sequence takes 2.5 ms of weights + 0.18 ms of prompts: a 1 ms objective is unreachable
    (c,) = compute(load_scenario_text(HAND.replace("tpot_ms: 20", "tpot_ms: 1"), "h.yaml"),
                   catalog).candidates
    assert not c.feasible and "latency objective cannot be met" in c.reasons[0]


def test_model_that_does_not_fit_is_infeasible(catalog):
    (c,) = compute(load_scenario_text(HAND.replace("params: 10e9", "params: 100e9"), "h.yaml"),
                   catalog).candidates
    assert not c.feasible and "GB per card at tensor parallel 1" in c.reasons[0]


def test_offline_has_no_latency_limit(catalog):
    text = HAND.replace("    ttft_ms: 100\n    tpot_ms: 20\n", "")
    (c,) = compute(load_scenario_text(text, "h.yaml"), catalog).candidates
    assert c.jobs["chat"]["batch_latency_limit"] >= 1e12  # no objective: no limit
    assert c.jobs["chat"]["batch_sequences"] == 781  # the memory limit, 781.25


def test_tokens_per_s_per_user_is_the_time_per_token(catalog):
    text = HAND.replace("tpot_ms: 20", "tokens_per_s_per_user: 50")
    (c,) = compute(load_scenario_text(text, "h.yaml"), catalog).candidates
    assert c.inputs  # resolved
    assert c.jobs["chat"]["batch_sequences"] == 139  # 1000 / 50 = 20 ms, as above


# --- the shipped train-and-serve scenario in every output ------------------------------------

SCENARIO = example_scenario().parent / "train-and-serve.yaml"


def test_train_and_serve_compare_json_has_the_serving_keys():
    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    for c in data["candidates"]:
        if "chat" not in c["carries"]:
            continue  # the option that only trains (its portfolio's API serves)
        chat = c["jobs"]["chat"]
        for key in ("tokens_per_s_per_card", "cost_per_million_input_tokens",
                    "cost_per_million_output_tokens", "cards_needed"):
            assert chat[key] is not None and chat[key] > 0, (c["id"], key)
        assert "train_flops" in c["jobs"]["llama-70b"] and "train_flops" not in chat


def test_train_and_serve_table_and_csv_show_serving():
    table = CliRunner().invoke(cli, ["compare", str(SCENARIO)]).output
    assert "Serving chat" in table and "USD/M out" in table
    csv = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "csv"]).output
    assert "chat.cost_per_million_output_tokens" in csv.splitlines()[0]


def test_train_and_serve_is_costed_end_to_end(catalog):
    result = compute(load_scenario(SCENARIO), catalog)
    h200 = next(c for c in result.candidates if c.id == "h200-sxm")
    # Two pre-training runs and a year of serving share the cluster; the NPV covers both.
    runs = h200.jobs["llama-70b"]["wall_hours"] * 2 + h200.jobs["chat"]["wall_hours"]
    assert h200.values["demand_hours_per_year"] == pytest.approx(runs, rel=1e-12)
    assert h200.feasible and h200.jobs["chat"]["meets_objective"] == 1
    tail = h200.inputs["serving_tail_latency_ratio"]  # TensorRT-LLM's p99 / mean, 1.08
    assert h200.jobs["chat"]["tpot_ms"] <= 50 / tail + 1e-9  # p99 objective / tail ratio


def test_job_serve_json():
    out = CliRunner().invoke(cli, [
        "job", "--serve", "--model-params", "70e9", "--precision", "fp8", "--card", "h200-sxm",
        "--cards", "16", "--input-tokens-per-day", "2e9", "--output-tokens-per-day", "5e8",
        "--prompt-tokens", "2000", "--output-tokens", "500", "--tpot-ms", "50",
        "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["tokens_per_s_per_card"] > 0 and data["cards_needed"] >= 1


def test_job_serve_needs_its_traffic():
    out = CliRunner().invoke(cli, ["job", "--serve", "--model-params", "70e9", "--card",
                                   "h200-sxm", "--cards", "8"])
    assert out.exit_code == 2 and "--serve needs --input-tokens-per-day" in out.output


# --- the report's serving section (templates/serving.html.j2), in English and Chinese --------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_has_a_serving_section_with_the_engines_numbers(catalog, lang):
    import datetime as dt
    import re

    from tco.exporters.html import render_html
    from tco.exporters.serving_report import per_million

    result = compute(load_scenario(SCENARIO), catalog)
    html = render_html(result, lang, day=dt.date(2026, 12, 3))
    section = html[html.index('<section id="serving"'):]
    section = section[:section.index("</section>")]
    assert '<figure class="chart-figure" id="chart-serve-chat">' in section
    assert "<svg" in section  # the chart of the cost per million output tokens
    h200 = next(c for c in result.candidates if c.id == "h200-sxm")
    row = re.search(r'data-candidate="h200-sxm">(.*?)</tr>', section, re.DOTALL).group(1)
    assert per_million(h200.jobs["chat"]["cost_per_million_output_tokens"], "USD") in row
    assert f'{h200.jobs["chat"]["tokens_per_s_per_card"]:,.0f}' in row
    if lang == "zh":
        assert "推理服务" in section and "每百万输出词元" in section
        text = re.sub(r"<svg.*?</svg>|<[^>]+>", " ", section, flags=re.DOTALL)
        # no English words of ours left (the scenario's own names are the user's)
        assert not re.search(r"\b(tokens|Serving|objective|per card)\b",
                             text.replace("Serving the 70B model (chat)", ""))


def test_a_training_only_report_has_no_serving_section(catalog, example):
    import datetime as dt

    from tco.exporters.html import render_html

    assert 'id="serving"' not in render_html(example, "en", day=dt.date(2026, 12, 3))


# --- what-if, sensitivity and Monte Carlo over serving inputs ---------------------------------


def test_sensitivity_of_the_cost_per_token_to_serving_inputs(catalog):
    from tco.analysis.sensitivity import sensitivity

    loaded = load_scenario(SCENARIO)
    s = sensitivity(loaded, catalog, swing=0.2, metric="cost_per_million_output_tokens")
    bars = {b.path: b for b in s.bars["h200-sxm"]}
    # A 20% slower time per token allows a larger batch: cheaper output tokens; so does more
    # sustained memory bandwidth (the weights are read every step).
    path = "candidates.h200-sxm.serving_bandwidth_efficiency"
    assert "workloads.chat.tpot_ms" in bars and path in bars
    hbm = bars[path]
    assert hbm.metric_high < hbm.metric_low
    base = s.baseline["h200-sxm"]
    h200 = compute(loaded, catalog).candidate("h200-sxm")
    assert base == pytest.approx(h200.jobs["chat"]["cost_per_million_output_tokens"])
    tpot = bars["workloads.chat.tpot_ms"]
    assert tpot.metric_high < base < tpot.metric_low


def test_the_serving_metric_needs_a_serving_workload(catalog, example):
    from tco.analysis.common import metric_name
    from tco.errors import TcoError

    with pytest.raises(TcoError, match="needs a serving workload"):
        metric_name(example, "h100-sxm", "cost_per_million_output_tokens")


def test_monte_carlo_draws_the_serving_assumptions(catalog):
    from tco.analysis.montecarlo import montecarlo

    mc = montecarlo(compute(load_scenario(SCENARIO), catalog), draws=500, seed=3)
    for path in ("assumptions.decode_mfu_ratio", "assumptions.prefill_mfu_ratio",
                 "candidates.h200-sxm.serving_bandwidth_efficiency",
                 "candidates.h200-sxm.serving_tail_latency_ratio"):
        assert path in mc.varied
    npv = mc.percentiles["h200-sxm"]["npv_tco"]
    assert npv["p10"] < npv["p50"] < npv["p90"]
