"""Expert GEMMs of a mixture of experts below dense efficiency (docs/methodology.md §4, issue
12): rows padded to the kernel's tile (MegaBlocks' 128-row blocks) and, when the tokens per
expert are few, bound by reading the expert's weights (roofline). Worked by hand on a
DeepSeek-V3-shaped model on H800 with a pinned layout."""

from __future__ import annotations

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

# 671B parameters, 37B active, 8 experts per token (default), FP8 on H800.
SCENARIO = """
rent_options: none
workloads:
  - {id: w, params: 671e9, active_params: 37e9, tokens: 1e12, precision: fp8,
     global_batch_tokens: GBT, seq_len_tokens: SEQ}
candidates:
  - {id: c, card: h800-sxm, cards: 2048,
     layout: {w: {tp: 2, pp: 4, vp: 2, cp: 1, ep: EP, recompute: 0}}}
"""
# Routed experts inferred: the feed-forward share of the active parameters is 2/3 (8·h² of
# 12·h² per layer), so E = 8 x (671e9 - 37e9 / 3) / (2/3 x 37e9) = 213.62.
EXPERTS = 213.62162
# H800 FP8: 1,978.9 TFLOPS x MFU 0.37 x 1.19 (compute_to_published_mfu_ratio) = 8.7131e14
# FLOP/s while computing; HBM 3,350 GB/s.
SUSTAINED = 8.71309670e14


def job(ep: int, seq: int, batch_seqs: int) -> dict[str, float]:
    from tco.catalog import load_catalog

    text = (SCENARIO.replace("EP", str(ep)).replace("SEQ", str(seq))
            .replace("GBT", str(seq * batch_seqs)))
    (cand,) = compute(load_scenario_text(text, "moe"), load_catalog()).candidates
    return cand.jobs["w"]


def test_large_expert_groups_pay_only_the_padding():
    j = job(ep=16, seq=4096, batch_seqs=15360)
    assert j["routed_experts"] == pytest.approx(EXPERTS, rel=1e-6)
    assert j["sustained_flops_per_card"] == pytest.approx(SUSTAINED, rel=1e-9)
    # tokens per expert per micro-batch: 4,096 / cp 1 x ep 16 x 8 / 213.62 = 2,454.3
    assert j["tokens_per_expert"] == pytest.approx(2454.2834, rel=1e-6)
    # padding: (2,454.3 + 128 / 2) / 2,454.3 = 1.02608; weight reads: 1 byte x 8.7131e14 /
    # (2 x 2,454.3 x 3.35e12) = 0.053 (compute-bound): the padding wins
    assert j["expert_gemm_slowdown"] == pytest.approx(1.0260769, rel=1e-6)


def test_few_tokens_per_expert_are_bound_by_weight_reads():
    j = job(ep=1, seq=1024, batch_seqs=8192)
    # 1,024 x 1 x 8 / 213.62 = 38.35 tokens per expert: padding (38.35 + 64) / 38.35 = 2.669,
    # weight reads 8.7131e14 / (2 x 38.35 x 3.35e12) = 3.391: the weights win
    assert j["tokens_per_expert"] == pytest.approx(38.348178, rel=1e-6)
    assert j["expert_gemm_slowdown"] == pytest.approx(3.3911968, rel=1e-6)


def test_only_the_expert_share_of_compute_slows_down():
    j = job(ep=1, seq=1024, batch_seqs=8192)
    # share of the FLOPs in expert GEMMs: 2/3 x 6 x 37e9 / flops_per_token (attention included)
    share = 2 / 3 * 6 * 37e9 / j["flops_per_token"]
    # no recomputation, every replica has sequences: compute = ideal x (1 + share x (s - 1))
    assert j["compute_seconds"] == pytest.approx(
        j["ideal_step_seconds"] * (1 + share * (j["expert_gemm_slowdown"] - 1)), rel=1e-9)


def test_a_dense_model_is_untouched():
    text = """
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 1e12}
candidates:
  - {id: c, card: h100-sxm, cards: 64, layout: {w: {tp: 8, pp: 1, cp: 1, recompute: 0}}}
"""
    from tco.catalog import load_catalog

    j = compute(load_scenario_text(text), load_catalog()).candidates[0].jobs["w"]
    assert j["expert_gemm_slowdown"] == 1
    # 4,194,304 / 4,096 = 1,024 sequences over 8 replicas: compute is the ideal time
    assert j["compute_seconds"] == pytest.approx(j["ideal_step_seconds"], rel=1e-12)


def test_given_experts_replace_the_inferred_count():
    """DeepSeek-V3's model card states 256 routed experts (arXiv 2412.19437, section 4.2); the
    inference from its parameters gives 213.6. Given, the count is used as it is."""
    from tco.catalog import load_catalog

    text = (SCENARIO.replace("EP", "16").replace("SEQ", "4096")
            .replace("GBT", str(4096 * 15360))
            .replace("precision: fp8,", "precision: fp8, experts: 256,"))
    (cand,) = compute(load_scenario_text(text, "moe"), load_catalog()).candidates
    j = cand.jobs["w"]
    assert j["routed_experts"] == 256
    # 4,096 / cp 1 x ep 16 x 8 / 256 = 2,048 tokens per expert; padding (2,048 + 64) / 2,048
    assert j["tokens_per_expert"] == pytest.approx(2048, rel=1e-12)
    assert j["expert_gemm_slowdown"] == pytest.approx(2112 / 2048, rel=1e-12)


def test_experts_is_a_training_field_with_a_range():
    from tco.catalog import load_catalog
    from tco.errors import TcoError

    for bad in ("experts: -1,", "experts: 10000,", "experts: 2.5,"):
        text = (SCENARIO.replace("EP", "16").replace("SEQ", "4096").replace("GBT", "1e6")
                .replace("precision: fp8,", f"precision: fp8, {bad}"))
        with pytest.raises(TcoError, match="workloads.w.experts"):
            compute(load_scenario_text(text, "moe"), load_catalog())
    serve = ("workloads:\n  - {id: s, kind: serve, params: 70e9, experts: 8, "
             "input_tokens_per_day: 1e9, output_tokens_per_day: 1e8, prompt_tokens: 1000, "
             "output_tokens: 100}\ncandidates:\n  - {id: c, card: h100-sxm, cards: 8}\n")
    with pytest.raises(TcoError, match="experts"):
        compute(load_scenario_text(serve, "serve"), load_catalog())


def test_expert_groups_are_no_wider_than_the_experts_given():
    """592B / 37B is 16x sparse, so the search tries expert groups of 16 cards and more; with
    16 routed experts given (top-1: the 15 a token skips hold the 555B inactive parameters,
    37B each, all of its active ones in the one it uses: the boundary the rule E >= k N / N_a
    allows, a model with no shared parameters), 16 is the widest group in which every card
    holds an expert."""
    from tco.catalog import load_catalog

    text = """
rent_options: none
workloads:
  - {id: w, params: 592e9, active_params: 37e9, tokens: 1e12, precision: fp8, experts: 16,
     experts_per_token: 1}
candidates:
  - {id: c, card: h800-sxm, cards: 2048}
"""
    (cand,) = compute(load_scenario_text(text, "moe"), load_catalog()).candidates
    assert cand.jobs["w"]["expert_parallel"] == 16
