"""`tco job`'s training shape and pins that make no sense are one message naming the option,
exit 2 (they were accepted: a 1,000-token batch of 100,000-token sequences gave a run of
11,113 days; routed experts on a dense model were ignored; an expert-parallel pin on a dense
model laid it out over 8 expert groups it does not have)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from refusals import refused, scenario_refused

from tco.cli import cli
from tco.scenario import load_scenario_text

JOB = ["job", "--model-params", "70e9", "--tokens", "2e12", "--card", "h100-sxm",
       "--cards", "1024"]


@pytest.mark.parametrize(("extra", "message"), [
    (["--seq-len", "100000", "--batch-tokens", "1000"],
     "--batch-tokens: a global batch of 1000 tokens is less than one sequence of 100000"),
    (["--experts", "8"], "--experts: routed experts are for a mixture of experts"),
    (["--experts", "8", "--active-params", "70e9"],
     "--experts: routed experts are for a mixture of experts"),
    (["--layout", "ep=8"], "--layout ep: expert parallelism spreads a mixture of experts'"),
    (["--precision", "int8"], "--precision: int8 is a serving format"),
    # 3-card tensor groups in 8-card servers: 1,024 / (3 x 4) = 85.3 data-parallel replicas
    (["--layout", "tp=3"], ("--layout tp: tensor-parallel groups tile the scale-up domain "
                            "of 8 cards: expected tp a divisor of 8, found 3")),
])
def test_a_shape_that_cannot_be_is_one_message_naming_the_option(extra, message):
    out = CliRunner().invoke(cli, [*JOB, *extra])  # some are click's usage errors
    assert out.exit_code == 2, out.output
    assert message in out.output and "Traceback" not in out.output
    assert "workloads.job" not in out.output  # the option, not the path it was turned into


def test_a_batch_of_exactly_one_sequence_and_a_moe_with_experts_are_fine():
    ok = CliRunner().invoke(cli, [*JOB, "--seq-len", "4096", "--batch-tokens", "4096"])
    assert ok.exit_code == 0, ok.output
    moe = CliRunner().invoke(cli, [*JOB, "--active-params", "10e9", "--experts", "64",
                                   "--layout", "ep=8"])
    assert moe.exit_code == 0, moe.output
    assert "EP 8" in moe.output


def test_the_scenario_says_the_same(tmp_path):
    text = """
workloads:
  - {id: w, params: 70e9, tokens: 1e12, seq_len_tokens: 8192, global_batch_tokens: 4096}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
"""
    from tco.errors import TcoError

    with pytest.raises(TcoError, match="global_batch_tokens"):
        load_scenario_text(text, "s.yaml")


MOE = ["job", "--model-params", "47e9", "--active-params", "13e9", "--tokens", "1e12",
       "--card", "h100-sxm", "--cards", "256"]


@pytest.mark.parametrize(("extra", "message"), [
    # the search keeps every card of an expert group holding an expert; a pin skipped that
    (["--experts", "8", "--experts-per-token", "2", "--layout", "ep=16"],
     "--layout ep: an expert group of 16 cards for 8 routed experts: expected ep at most 8"),
    # each token goes to experts_per_token (8 by default, pricing/assumptions.yaml) experts,
    # and the experts it skips hold the inactive parameters: with 8 of 16 experts a token,
    # the 8 it uses would hold 8 x 34e9 / 8 = 34e9, more than its 13e9 active ones;
    # 8 x 47 / 13 = 28.9, so 29 experts at least (all 8 of 8: none would be inactive; 2:
    # fewer than a token goes to)
    (["--experts", "16"], ("--experts: 16 routed experts per layer, each token routed to 8 "
                           "of them (experts_per_token): the experts a token skips hold the "
                           "inactive parameters, so the 8 it uses would hold more than its "
                           "active parameters: expected at least 29 experts")),
    (["--experts", "8"], "expected at least 29 experts"),
    (["--experts", "2"], ("--experts: 2 routed experts per layer, each token routed to 8 of "
                          "them (experts_per_token)")),
    (["--experts-per-token", "2", "--active-params", "47e9"],
     "--experts-per-token: routed experts are for a mixture of experts"),
])
def test_expert_groups_and_experts_that_cannot_be(extra, message):
    out = CliRunner().invoke(cli, [*MOE, *extra])  # some are click's usage errors
    assert out.exit_code == 2, out.output
    assert message in out.output and "Traceback" not in out.output


def test_too_few_routed_experts_in_a_scenario_file_are_refused_by_validate(tmp_path):
    """The rule above is checked when the scenario is resolved, not by the layout search:
    `tco validate` refuses the file (it accepted it), naming the file, line and field; and a
    what-if that breaks it (fewer experts, or fewer active parameters) is refused too."""
    path, msg = scenario_refused(
        tmp_path, "workloads:\n  - {id: m, params: 47e9, active_params: 13e9, tokens: 1e12, "
        "experts: 16}\ncandidates:\n  - {id: h, card: h100-sxm, cards: 256}\n", "validate")
    # 8 x 47 / 13 = 28.9: 29 at least, as above
    assert msg.startswith(f"{path}:2: workloads.m.experts: 16 routed experts per layer, each "
                          "token routed to 8 of them (experts_per_token)")
    assert "expected at least 29 experts (experts_per_token x params / active_params)" in msg
    path.write_text(path.read_text().replace("experts: 16", "experts: 32"))
    assert CliRunner().invoke(cli, ["validate", str(path)]).exit_code == 0
    # 8 x 47 / 10 = 37.6 > 32; 8 x 47 / 13 = 28.9 > 24
    for setting, least in (("workloads.m.active_params=10e9", 38),
                           ("workloads.m.experts=24", 29)):
        msg = refused(["whatif", str(path), "--set", setting])
        assert "workloads.m.experts: " in msg and f"expected at least {least} experts" in msg


def test_an_expert_group_as_wide_as_the_experts_is_fine():
    # Mixtral 8x7B: 8 experts, top-2 (arXiv 2401.04088)
    out = CliRunner().invoke(cli, [*MOE, "--experts", "8", "--experts-per-token", "2",
                                   "--layout", "ep=8"])
    assert out.exit_code == 0, out.output
    assert "EP 8" in out.output


def test_a_serving_tensor_group_tiles_the_server_too():
    assert "expected tp a divisor of 8, found 3" in refused([
        "job", "--serve", "--model-params", "70e9", "--precision", "fp8", "--card", "h200-sxm",
        "--cards", "16", "--input-tokens-per-day", "2e9", "--output-tokens-per-day", "5e8",
        "--prompt-tokens", "2000", "--output-tokens", "500", "--layout", "tp=3"])


def test_an_implausible_model_size_names_its_option():
    msg = refused(["job", "--model-params", "1e20", "--tokens", "1e12", "--card", "h100-sxm",
                   "--cards", "8"])
    assert msg.startswith("--model-params: found 1e+20, outside the plausible range")
