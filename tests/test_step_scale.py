"""The step-time terms that grow with scale (docs/methodology.md §4, issue 12): the latency of
collectives (NCCL's cost model, Megatron-LM's gradient buckets) and the window in which the
data-parallel traffic can hide (the last micro-batch and the pipeline bubble), worked by hand
on a pinned layout."""

from __future__ import annotations

import functools

import pytest

from tco.catalog import load_catalog
from tco.engine import compute
from tco.scenario import load_scenario_text

# 70B on 1,024 H100 (8 per server), pinned to tensor 8, no pipeline: 128 replicas, each with
# 4,194,304 / 4,096 / 128 = 8 micro-batches of one sequence.
SCENARIO = """
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 1e10, global_batch_tokens: 4194304, seq_len_tokens: 4096}
candidates:
  - {id: c, card: h100-sxm, cards: 1024,
     layout: {w: {tp: 8, pp: PP, vp: 1, cp: 1, ep: 1, recompute: 0}}}
"""

# Catalog and assumptions: H100 NVLink 900 GB/s both ways x 0.8 / 2 = 360e9 B/s; NIC 50 GB/s
# x 0.85 = 42.5e9 B/s; NCCL ring/Simple latencies: 8.4 us per collective, 3.4 us per NVLink
# step, 9.6 us per network step; Megatron buckets MAX(40M, 1M x D) parameters.
UP, OUT = 360e9, 42.5e9
BASE, HOP_UP, HOP_OUT = 8.4e-6, 3.4e-6, 9.6e-6


def job(pp: int = 1, zero3: int = 0, **assumptions: float) -> dict[str, float]:
    text = SCENARIO.replace("PP", str(pp)).replace("recompute: 0", f"recompute: 0, zero3: {zero3}")
    if assumptions:
        text += "assumptions:\n" + "".join(f"  {k}: {v}\n" for k, v in assumptions.items())
    (cand,) = compute(load_scenario_text(text, "scale"), _catalog()).candidates
    return cand.jobs["w"]


@functools.cache
def _catalog():
    return load_catalog()


def test_data_parallel_time_has_a_latency_per_bucket():
    j = job()
    # D = 1,024 / 8 = 128 replicas, one per server (k = 8 / 8 = 1): every ring step crosses
    # the network. Shard 70e9 / 8 = 8.75e9 parameters.
    # Bandwidth: 4 bytes x 8.75e9 x (1 - 1/128) / 42.5e9 = 35e9 x 0.9921875 / 42.5e9
    #          = 0.8170956 s.
    # Latency: buckets of MAX(40e6, 128e6) = 128e6 -> 8.75e9 / 128e6 = 68.359375 buckets;
    # a ring of 128 ranks on 128 servers: 8.4 + 127 x 9.6 = 1,227.6 us; a reduce-scatter and
    # an all-gather per bucket: 2 x 68.359375 x 1,227.6e-6 = 0.1678359 s.
    assert j["data_parallel"] == 128
    assert j["dp_comm_seconds"] == pytest.approx(0.8170956 + 0.1678359, rel=1e-6)


def test_tensor_parallel_time_has_a_latency_per_collective():
    j = job()
    lat = job(collective_base_latency_s=0, scaleup_hop_latency_s=0)
    # 8 collectives (4 all-gathers, 4 reduce-scatters) per layer and micro-batch, each a ring
    # of 8 on NVLink: 8.4 + 7 x 3.4 = 32.2 us; L = 70.876 layers, m = 8:
    # 8 x 70.876 x 8 x 32.2e-6 = 0.14606 s.
    assert j["micro_batches"] == 8
    expected = 8 * j["layers"] * 8 * 32.2e-6
    assert expected == pytest.approx(0.14606, rel=1e-4)
    assert j["tp_comm_seconds"] - lat["tp_comm_seconds"] == pytest.approx(expected, rel=1e-9)


def test_data_parallel_traffic_hides_only_behind_the_last_micro_batch():
    j = job()
    # Megatron reduces the gradients of a bucket once its last micro-batch's backward has made
    # them, and gathers the parameters during the first micro-batch's forward: the window is
    # one micro-batch's compute (and the bubble, none here).
    # Exposed = 0.5 x tp + MAX(0, dp - 0.9 x compute / 8 - 0)
    comp = j["compute_seconds"]
    window = 0.9 * comp / 8
    expected = 0.5 * j["tp_comm_seconds"] + (j["dp_comm_seconds"] - window)
    assert j["dp_comm_seconds"] > window  # 0.985 s against 0.442 s: not all hidden
    assert j["exposed_comm_seconds"] == pytest.approx(expected, rel=1e-9)


def test_the_pipeline_bubble_also_hides_data_parallel_traffic():
    j = job(pp=2)
    # pp = 2: D = 64, m = 16; the bubble (p - 1) / (v m) = 1/16 of compute is idle time the
    # data-parallel traffic uses. Pipeline traffic hides behind 0.9 x compute (all of it here).
    comp, bubble = j["compute_seconds"], j["bubble_seconds"]
    assert bubble == pytest.approx(comp / 16)
    dp_exposed = max(0.0, j["dp_comm_seconds"] - 0.9 * comp / 16 - bubble)
    assert j["exposed_comm_seconds"] == pytest.approx(
        0.5 * j["tp_comm_seconds"] + dp_exposed, rel=1e-9)


def test_pipeline_sends_pay_a_latency_each():
    j = job(pp=2)
    lat = job(pp=2, collective_base_latency_s=0, scaleout_hop_latency_s=0)
    # a send forward and one backward per micro-batch and virtual stage, over the network:
    # 2 x 1 x 16 x (8.4 + 9.6) us = 0.576 ms
    assert j["pp_comm_seconds"] - lat["pp_comm_seconds"] == pytest.approx(5.76e-4, rel=1e-9)


def test_latency_counts_on_a_single_replica_are_zero():
    # one replica of 8 cards: no data-parallel collective at all
    text = SCENARIO.replace("PP", "1").replace("cards: 1024", "cards: 8").replace(
        "4194304", "32768")
    (cand,) = compute(load_scenario_text(text, "scale"), _catalog()).candidates
    assert cand.jobs["w"]["dp_comm_seconds"] == 0


def test_zero3_shards_parameters_and_gradients_over_the_replicas():
    z1 = job()
    z3 = job(zero3=1)
    # Weights and gradients, 4 bytes x 70e9 / 8 = 35e9 B per card with ZeRO-1; with ZeRO-3
    # split over the 128 replicas, plus two layers gathered (computing, prefetched):
    # 35e9 x (1/128 + 2 / 70.876) = 35e9 x 0.0360308 = 1.2611e9 B.
    # Saving: 35e9 x (1 - 0.0360308) = 33.739 GB per card.
    assert z3["parameter_sharding"] == 1 and z1["parameter_sharding"] == 0
    saved = z1["memory_needed_gb"] - z3["memory_needed_gb"]
    assert saved == pytest.approx(35 * (1 - (1 / 128 + 2 / z1["layers"])), rel=1e-9)
    assert saved == pytest.approx(33.739, rel=1e-4)


def test_zero3_moves_the_parameters_every_micro_batch():
    z3 = job(zero3=1)
    # 1.5 x 4 bytes x 8.75e9 x 8 micro-batches x (1 - 1/128) / 42.5e9 = 9.8051 s, and a
    # collective per layer for each of the 3 passes of each micro-batch, each a ring of 128
    # servers (1,227.6 us): 3 x 70.876 x 8 x 1,227.6e-6 = 2.0882 s.
    bandwidth = 1.5 * 4 * 8.75e9 * 8 * (1 - 1 / 128) / 42.5e9
    latency = 3 * z3["layers"] * 8 * (8.4e-6 + 127 * 9.6e-6)
    assert bandwidth == pytest.approx(9.8051, rel=1e-4)
    assert latency == pytest.approx(2.0882, rel=1e-4)
    assert z3["dp_comm_seconds"] == pytest.approx(bandwidth + latency, rel=1e-9)
    # prefetched layer by layer: it hides behind 0.9 of the whole step's compute
    comp = z3["compute_seconds"]
    assert z3["exposed_comm_seconds"] == pytest.approx(
        0.5 * z3["tp_comm_seconds"] + z3["dp_comm_seconds"] - 0.9 * comp, rel=1e-9)
