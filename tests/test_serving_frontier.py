"""The throughput-interactivity frontier, the precision chosen per option, p50 and p99
objectives and speculative decoding (issue 29; docs/methodology.md §18)."""

from __future__ import annotations

import datetime as dt
import json
import math

import pytest
import yaml
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.frontier import at_level
from tco.scenario import load_scenario_text

SERVE = {
    "name": "precision per option", "rent_options": "none",
    "workloads": [{"id": "chat", "kind": "serve", "params": 70.55e9,
                   "precisions": ["fp4", "fp8", "int8", "bf16"], "layers": 80, "kv_heads": 8,
                   "head_dim": 128, "input_tokens_per_day": 2e9, "output_tokens_per_day": 1e9,
                   "prompt_tokens": 1000, "output_tokens": 500, "ttft_ms": 2000,
                   "tokens_per_s_per_user": 20}],
    "candidates": [{"id": "b200", "card": "b200", "cards": 64},
                   {"id": "mi355x", "card": "mi355x", "cards": 64},
                   {"id": "h200", "card": "h200-sxm", "cards": 64},
                   {"id": "a910b", "card": "ascend-910b", "cards": 128}],
    "facility": {"region": "us"},
}


def run(catalog, data):
    return compute(load_scenario_text(yaml.safe_dump(data), "serve.yaml"), catalog)


@pytest.fixture(scope="module")
def result(catalog):
    return run(catalog, SERVE)


def test_each_option_serves_at_the_cheapest_precision_its_card_has(result):
    """precisions [fp4, fp8, int8, bf16]: the B200 and MI355X have FP4, the H200 FP8 and INT8
    (the same peak: FP8, the more accurate of the two within 1%), the 910B INT8 (W8A8; no FP8
    or FP4) — 7 FP4, 5 FP8, 6 INT8."""
    code = {c.id: c.jobs["chat"]["serving_precision"] for c in result.candidates}
    assert code == {"b200": 7, "mi355x": 7, "h200": 5, "a910b": 6}
    assert result.candidate("a910b").jobs["chat"]["weight_bytes"] == 70.55e9  # 1 byte a weight


def test_the_search_compares_precisions_on_the_model_own_numbers(catalog, result):
    """The precision kept has the most tokens per second per card: each option's other
    allowed precisions, pinned, give no more."""
    for cid, kept in (("b200", "fp4"), ("h200", "fp8")):
        best = result.candidate(cid).jobs["chat"]["tokens_per_s_per_card"]
        for prec in ("fp8", "bf16") if kept == "fp4" else ("bf16",):
            one = {**SERVE, "workloads": [{**SERVE["workloads"][0], "precisions": [prec]}]}
            assert run(catalog, one).candidate(cid).jobs["chat"]["tokens_per_s_per_card"] \
                <= best * 1.01, (cid, prec)


def test_a_card_without_any_allowed_precision_cannot_serve(catalog):
    data = {**SERVE, "workloads": [{**SERVE["workloads"][0], "precisions": ["fp4", "fp8"]}]}
    c = run(catalog, data).candidate("a910b")
    assert not c.priced and "serves none of chat's precisions (FP4, FP8)" in c.reasons[0]


def test_precision_and_precisions_are_not_both_given():
    from tco.errors import ScenarioError

    data = {**SERVE, "workloads": [{**SERVE["workloads"][0], "precision": "fp8"}]}
    with pytest.raises(ScenarioError, match="give precision or precisions, not both"):
        load_scenario_text(yaml.safe_dump(data), "s.yaml")


def test_the_frontier_points_are_the_model_at_those_objectives(catalog, result):
    """A frontier point at u tokens/s per user is the model with a median objective of
    1000 / u ms per token: the same tokens per second per card, layout and precision."""
    fr = result.frontiers["chat"]["h200"]
    p = at_level(fr, 30)
    assert p is not None and p.tokens_per_s_per_user >= 30
    w = {**SERVE["workloads"][0], "latency_percentile": 50, "tpot_ms": 1000 / 30}
    del w["tokens_per_s_per_user"]
    job = run(catalog, {**SERVE, "workloads": [w]}).candidate("h200").jobs["chat"]
    assert job["tokens_per_s_per_card"] == pytest.approx(p.tokens_per_s_per_card, rel=1e-12)
    assert int(job["tensor_parallel"]) == p.tensor_parallel
    assert job["cost_per_million_output_tokens"] == pytest.approx(
        p.cost_per_million_output_tokens, rel=1e-12)


def test_the_frontier_falls_as_interactivity_rises_and_holds_the_operating_point(result):
    for cid, fr in result.frontiers["chat"].items():
        users = [p.tokens_per_s_per_user for p in fr.points]
        rates = [p.tokens_per_s_per_card for p in fr.points]
        assert users == sorted(users) and rates == sorted(rates, reverse=True), cid
        job = result.candidate(cid).jobs["chat"]
        if fr.operating is not None:
            assert fr.operating.tokens_per_s_per_card == job["tokens_per_s_per_card"]
            # a p99 objective of 50 ms: the mean is the engine's tail ratio faster
            tail = result.candidate(cid).inputs["serving_tail_latency_ratio"]
            assert fr.operating.tpot_ms <= 50 / tail + 1e-9


def test_the_precision_is_chosen_per_objective(catalog):
    """FP4's block-scaled weights are read at fp4_weight_read_ratio of the bandwidth FP8's are:
    at tight latency the weight read dominates the step, and where FP4 reads at less than half
    FP8's rate (0.3 here, as a stock MXFP4 kernel might: InferenceX's MI355X FP4 was slower than
    its FP8 above 55 tokens/s per user), FP8 serves the fast end of the B200's frontier and FP4
    the rest: the precision follows the objective, not the workload."""
    fr = run(catalog, {**SERVE, "assumptions": {"fp4_weight_read_ratio": 0.3}}
             ).frontiers["chat"]["b200"]
    assert at_level(fr, 20).precision == "fp4"
    assert at_level(fr, 100).precision == "fp8" and fr.points[-1].precision == "fp8"


def test_a_median_objective_allows_a_larger_batch_than_a_p99_one(catalog, result):
    w = {**SERVE["workloads"][0], "latency_percentile": 50}
    med = run(catalog, {**SERVE, "workloads": [w]}).candidate("h200").jobs["chat"]
    p99 = result.candidate("h200").jobs["chat"]
    assert med["tpot_objective_ratio"] == 1 and p99["tpot_objective_ratio"] == pytest.approx(1.08)
    assert med["batch_sequences"] >= p99["batch_sequences"]
    assert med["tpot_mean_target_ms"] == pytest.approx(50.0)


def test_speculative_decoding_by_hand(catalog):
    """Declared as 2.5 tokens accepted per step from 3 drafted, the draft costing 5% of the
    step's fixed part: the step's per-sequence compute and all-reduce grow by 1 + 3, the
    prefill per step by 2.5, its fixed part by 1.05, and each step gives 2.5 tokens."""
    w = {**SERVE["workloads"][0], "precisions": ["fp8"], "speculative_accepted_tokens": 2.5}
    data = {**SERVE, "workloads": [w], "candidates": [SERVE["candidates"][2]]}
    job = run(catalog, data).candidate("h200").jobs["chat"]
    fixed = (job["decode_weight_read_seconds"] + job["decode_allreduce_latency_seconds"]
             + job["decode_step_overhead_seconds"]) * 1.05
    per = (job["decode_kv_read_seconds_per_sequence"]
           + (job["decode_compute_seconds_per_sequence"]
              + job["decode_allreduce_seconds_per_sequence"]) * 4
           + job["prefill_seconds"] * 2.5 / 500)
    assert job["step_fixed_seconds"] == pytest.approx(fixed, rel=1e-12)
    assert job["step_seconds_per_sequence"] == pytest.approx(per, rel=1e-12)
    b = job["batch_sequences"]
    assert job["tpot_ms"] == pytest.approx((fixed + per * b) / 2.5 * 1000, rel=1e-12)
    tp = job["tensor_parallel"]
    assert job["tokens_per_s_per_card"] == pytest.approx(b * 2.5 / (fixed + per * b) / tp,
                                                         rel=1e-12)


def test_speculation_needs_its_accepted_tokens():
    from tco.errors import ScenarioError

    w = {**SERVE["workloads"][0], "speculative_draft_tokens": 3}
    with pytest.raises(ScenarioError, match="declared by speculative_accepted_tokens"):
        load_scenario_text(yaml.safe_dump({**SERVE, "workloads": [w]}), "s.yaml")
    w = {**SERVE["workloads"][0], "speculative_accepted_tokens": 5,
         "speculative_draft_tokens": 2}
    with pytest.raises(ScenarioError, match="expected at most 3"):
        load_scenario_text(yaml.safe_dump({**SERVE, "workloads": [w]}), "s.yaml")


@pytest.fixture(scope="module")
def serve_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("frontier") / "serve.yaml"
    path.write_text(yaml.safe_dump(SERVE), encoding="utf-8")
    return str(path)


def test_the_frontier_in_json_text_report_and_workbook(serve_file, result, tmp_path):
    from openpyxl import load_workbook

    from tco.exporters.html import render_html
    from tco.exporters.xlsx import write_workbook

    out = CliRunner().invoke(cli, ["compare", serve_file, "--format", "json"])
    data = json.loads(out.output)
    h200 = data["serving_frontiers"]["chat"]["h200"]
    assert h200["points"] and h200["operating_point"]["precision"] == "fp8"
    assert h200["latency_percentile"] == 99
    table = CliRunner().invoke(cli, ["compare", serve_file]).output
    assert "Frontier of chat" in table and ">= 30" in table and "(TP" in table
    html = render_html(result, "en", day=dt.date(2026, 12, 3))
    assert 'id="chart-frontier-chat"' in html and 'id="frontier-chat"' in html
    path = write_workbook(result, tmp_path / "w.xlsx", generated=dt.date(2026, 12, 3))
    ws = load_workbook(path)["Frontier"]
    cells = [c for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    live = [c.value for c in cells if c.value.startswith("=Model!")]
    assert len(live) >= 4 * 7  # the operating point of each option reads the Model sheet
    assert any(c.value == "FP8" for c in cells)


def test_frontier_values_are_finite(result):
    for row in result.frontiers.values():
        for fr in row.values():
            for p in fr.points:
                assert all(math.isfinite(v) for v in (p.tokens_per_s_per_card, p.tpot_ms,
                                                      p.cost_per_million_output_tokens))
