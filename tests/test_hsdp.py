"""HSDP as a layout choice (issue 12; docs/methodology.md §4, "Hybrid sharding"): ZeRO-3
within a server (parameters, gradients and optimizer state over its data-parallel ranks),
replicas across servers whose gradients are all-reduced every micro-batch (PyTorch FSDP's
HYBRID_SHARD, Zhao et al. 2023, arXiv 2304.11277, s.3.2.2)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

# 7B (dense) on 64 H100 (8 servers of 8), 64 sequences of 4,096 tokens a step, tensor,
# pipeline and context 1: 64 replicas of one micro-batch, 8 data-parallel ranks per server.
LAYOUT = "tp: 1, pp: 1, cp: 1, zero3: 1"
TEXT = ("rent_options: none\n"
        "workloads:\n  - {id: w, params: 7e9, tokens: 1e11, global_batch_tokens: 262144,"
        " seq_len_tokens: 4096}\n"
        "candidates:\n"
        f"  - {{id: z3, card: h100-sxm, cards: 64, layout: {{w: {{{LAYOUT}, hsdp: 0}}}}}}\n"
        f"  - {{id: hs, card: h100-sxm, cards: 64, layout: {{w: {{{LAYOUT}, hsdp: 1}}}}}}\n")


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(TEXT), catalog)


def test_hsdp_holds_a_server_s_share_of_the_state(result):
    z3, hs = (result.candidate(c).jobs["w"] for c in ("z3", "hs"))
    assert (hs["data_parallel"], hs["micro_batches"], hs["hybrid_sharding"]) == (64, 1, 1)
    # 16 bytes a parameter (weights and gradients 4, optimizer 12) over the 8 ranks of a
    # server instead of all 64: 16 x 7e9 x (1/8 - 1/64) = 112e9 x 7/64 = 12.25 GB more a card
    assert hs["memory_needed_gb"] - z3["memory_needed_gb"] == pytest.approx(12.25)


def test_hsdp_keeps_the_gathers_inside_the_server(result):
    hs = result.candidate("hs")
    v = {k: result.inputs[f"assumptions.{k}"].value for k in (
        "collective_base_latency_s", "scaleup_hop_latency_s", "scaleout_hop_latency_s",
        "dp_bucket_min_params", "dp_bucket_params_per_replica", "dp_bytes_per_param")}
    up, out = hs.values["scaleup_bytes_per_s"], hs.values["scaleout_bytes_per_s"]
    layers = hs.jobs["w"]["layers"]
    # bytes: 1.5 x 4 x 7e9 x 7/8 over NVLink (ZeRO-3's three moves inside the server) and
    # 4 x 7e9 x (1/8 - 1/64) over the network (the all-reduce of a server's shard across 8)
    bw = v["dp_bytes_per_param"] * 7e9 * (1.5 * 7 / 8 / up + 7 / 64 / out)
    # latency: 3 collectives a layer on a ring of 8 inside; across servers buckets of
    # MAX(40M, 1M x 8) parameters of the 7e9 / 8 shard, each reduce-scatter + all-gather on
    # a ring of 8 servers
    inner = 3 * layers * (v["collective_base_latency_s"] + 7 * v["scaleup_hop_latency_s"])
    buckets = 7e9 / 8 / max(v["dp_bucket_min_params"], v["dp_bucket_params_per_replica"] * 8)
    outer = 2 * buckets * (v["collective_base_latency_s"] + 7 * v["scaleout_hop_latency_s"])
    assert hs.jobs["w"]["dp_comm_seconds"] == pytest.approx(bw + inner + outer, rel=1e-12)
    # a third of ZeRO-3's network bytes (the parameter gathers) no longer cross servers
    assert hs.jobs["w"]["dp_comm_seconds"] < result.candidate("z3").jobs["w"]["dp_comm_seconds"]


def test_hsdp_without_zero3_is_refused():
    out = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxm", "--cards", "64",
                                   "--layout", "zero3=0,hsdp=1"])
    assert out.exit_code == 2, out.output
    assert "--layout hsdp: HSDP is ZeRO-3 sharding inside a server" in out.output
    assert "Traceback" not in out.output


def test_a_pinned_hsdp_is_shown():
    out = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxm", "--cards", "64", "--batch-tokens",
                                   "262144", "--seq-len", "4096", "--layout", "hsdp=1"])
    assert out.exit_code == 0, out.output
    assert ", HSDP (pinned: hsdp)" in out.output


def test_hsdp_needs_two_data_parallel_ranks_in_a_server():
    """tp 8 fills an 8-card server: one data-parallel rank in it, nothing to shard within."""
    out = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxm", "--cards", "64",
                                   "--layout", "tp=8,hsdp=1"])
    assert out.exit_code == 2, out.output
    assert ("--layout hsdp: HSDP shards within a server, over its data-parallel ranks: "
            "expected tp × cp at most 4 (half the server's 8 cards), found 8") in out.output
