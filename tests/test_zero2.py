"""ZeRO-2 as a layout choice (issue 12; docs/methodology.md §4, "Data parallel with ZeRO-2"):
the gradients are sharded over the data-parallel group, the weights are not; each
micro-batch's gradients are reduce-scattered in its backward pass and the parameters
all-gathered once per step (Rajbhandari et al. 2020, arXiv 1910.02054, s.5.2 and s.7.2.1)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

# 7B (dense) on 64 H100, 1,024 sequences of 4,096 tokens a step, tensor, pipeline and context
# 1: 64 data-parallel replicas of 16 micro-batches each.
TEXT = ("rent_options: none\n"
        "workloads:\n  - {id: w, params: 7e9, tokens: 1e11, global_batch_tokens: 4194304,"
        " seq_len_tokens: 4096}\n"
        "candidates:\n"
        "  - {id: z1, card: h100-sxm, cards: 64, layout: {w: {tp: 1, pp: 1, cp: 1, zero3: 0,"
        " zero2: 0}}}\n"
        "  - {id: z2, card: h100-sxm, cards: 64, layout: {w: {tp: 1, pp: 1, cp: 1, zero3: 0,"
        " zero2: 1}}}\n")


@pytest.fixture(scope="module")
def jobs(catalog):
    result = compute(load_scenario_text(TEXT), catalog)
    return {c.id: c.jobs["w"] for c in result.candidates}


def test_zero2_shards_the_gradients_only(jobs):
    z1, z2 = jobs["z1"], jobs["z2"]
    assert (z1["data_parallel"], z1["micro_batches"]) == (64, 16)
    assert (z1["gradient_sharding"], z2["gradient_sharding"]) == (0, 1)
    # weights and gradients, 4 bytes a parameter (weight_grad_bytes_per_param): ZeRO-2 keeps
    # the weights' 2 bytes and 2 / 64 of the gradients' -> saves 4 x 7e9 x (1 - (1 + 1/64) / 2)
    # = 28e9 x 0.4921875 = 13.78125 GB per card
    assert z1["memory_needed_gb"] - z2["memory_needed_gb"] == pytest.approx(13.78125)


def test_zero2_moves_the_gradients_every_micro_batch(jobs):
    # (m + 1) / 2 = (16 + 1) / 2 = 8.5 times ZeRO-1's bytes and bucketed collectives a step
    assert jobs["z2"]["dp_comm_seconds"] == pytest.approx(8.5 * jobs["z1"]["dp_comm_seconds"])


def test_zero2_and_zero3_together_are_refused():
    out = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxm", "--cards", "64",
                                   "--layout", "zero3=1,zero2=1"])
    assert out.exit_code == 2, out.output
    assert "--layout zero2: ZeRO-3 shards the gradients already" in out.output
    assert "Traceback" not in out.output


def test_a_pinned_zero2_is_kept_and_shown():
    out = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxm", "--cards", "64",
                                   "--layout", "zero2=1"])
    assert out.exit_code == 0, out.output
    assert "ZeRO-2 (pinned: zero2)" in out.output
