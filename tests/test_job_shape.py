"""`tco job --seq-len --batch-tokens --experts`: a training run's shape from the command line,
the same run as a scenario that states it (docs/cli.md)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tco.catalog import load_catalog
from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

# Llama 3.1 405B as its model card states it: 15.6T tokens, 8K context, 16M-token batch, H100.
JOB = ["job", "--model-params", "405e9", "--tokens", "15.6e12", "--card", "h100-sxm",
       "--cards", "16384", "--format", "json"]


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, [*JOB, *args])
    return res.exit_code, res.output


def test_the_shape_given_is_the_shape_used_and_equals_the_scenario():
    code, out = run("--seq-len", "8192", "--batch-tokens", "16e6")
    assert code == 0, out
    job = json.loads(out)
    text = """
rent_options: none
workloads:
  - {id: job, params: 405e9, tokens: 15.6e12, seq_len_tokens: 8192, global_batch_tokens: 16e6}
candidates:
  - {id: h100-sxm, card: h100-sxm, cards: 16384}
"""
    (c,) = compute(load_scenario_text(text), load_catalog()).candidates
    assert job["gpu_hours"] == pytest.approx(c.jobs["job"]["gpu_hours"], rel=1e-12)
    # and it is not the default shape (4,096-token sequences, assumptions.global_batch_tokens)
    code, default = run()
    assert code == 0 and json.loads(default)["gpu_hours"] != job["gpu_hours"]


def test_experts_reach_the_mixture_of_experts():
    res = CliRunner().invoke(cli, [
        "job", "--model-params", "592e9", "--active-params", "37e9", "--tokens", "1e12",
        "--precision", "fp8", "--card", "h800-sxm", "--cards", "2048", "--experts", "16",
        "--experts-per-token", "1", "--format", "json"])
    assert res.exit_code == 0, res.output
    # 16x sparse: groups of 16 cards and more are tried, and none wider than 16 experts
    assert json.loads(res.output)["expert_parallel"] == 16


@pytest.mark.parametrize(("args", "message"), [
    (["--seq-len", "5"], "--seq-len: found 5, outside the plausible range 16 to 1e+07 tokens"),
    (["--batch-tokens", "1e20"], "--batch-tokens: found 1e+20, outside the plausible range"),
    (["--experts", "-3"], "--experts: found -3, outside the plausible range 0 to 4096"),
])
def test_a_bad_shape_names_its_option(args, message):
    code, out = run(*args)
    assert code == 2 and message in out and "Traceback" not in out


def test_a_training_shape_is_refused_for_serving():
    res = CliRunner().invoke(cli, [
        "job", "--serve", "--model-params", "70e9", "--card", "h100-sxm", "--cards", "8",
        "--seq-len", "4096", "--input-tokens-per-day", "1e9", "--output-tokens-per-day", "1e8",
        "--prompt-tokens", "1000", "--output-tokens", "100"])
    assert res.exit_code == 2 and "--seq-len is for a training run, not --serve" in res.output


SERVE = ["job", "--serve", "--model-params", "70e9", "--precision", "fp8", "--card",
         "h200-sxm", "--input-tokens-per-day", "2e10", "--output-tokens-per-day", "5e9",
         "--prompt-tokens", "2000", "--output-tokens", "500", "--ttft-ms", "2000",
         "--tpot-ms", "50", "--format", "json"]


def test_a_serving_job_without_cards_is_sized_like_cards_auto():
    """`tco job --serve` without --cards answers "how many cards": the cluster `cards: auto`
    sizes for the same workload (at least the cards its peak needs)."""
    res = CliRunner().invoke(cli, SERVE)
    assert res.exit_code == 0, res.output
    job = json.loads(res.output)
    text = """
rent_options: none
workloads:
  - {id: job, kind: serve, params: 70e9, precision: fp8, input_tokens_per_day: 2e10,
     output_tokens_per_day: 5e9, prompt_tokens: 2000, output_tokens: 500, ttft_ms: 2000,
     tpot_ms: 50}
candidates:
  - {id: h200-sxm, card: h200-sxm, cards: auto}
"""
    (c,) = compute(load_scenario_text(text), load_catalog()).candidates
    assert job["cards"] == c.inputs["cards"] >= job["cards_needed"] > 0
    assert any("cards: auto" in n for n in job["notes"])


def test_a_training_job_still_needs_cards():
    res = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e12",
                                   "--card", "h100-sxm"])
    assert res.exit_code == 2 and "Missing option '--cards'" in res.output
