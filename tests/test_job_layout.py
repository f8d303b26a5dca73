"""`tco job --layout`: pinning parallel degrees from the command line (issue 12), and the one
clear message a layout that cannot be placed gets, from the command line or a scenario."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.errors import ScenarioError
from tco.scenario import load_scenario_text

JOB = ["job", "--model-params", "70e9", "--tokens", "2e12", "--card", "h100-sxm",
       "--cards", "1024"]


def run(*args: str) -> tuple[int, str]:
    res = CliRunner().invoke(cli, [*JOB, *args])
    return res.exit_code, res.output


def test_pinned_degrees_are_kept_and_the_rest_searched():
    code, out = run("--layout", "tp=8,pp=4", "--format", "json")
    assert code == 0, out
    job = json.loads(out)
    assert (job["tensor_parallel"], job["pipeline_parallel"]) == (8, 4)
    # data parallel = 1,024 / (8 x 4 x 1) = 32 replicas
    assert job["data_parallel"] == 32
    assert job["virtual_stages"] >= 1  # not pinned: chosen by the search


def test_the_table_says_which_degrees_are_pinned():
    code, out = run("--layout", "tp=2, recompute=1")
    assert code == 0, out
    row = next(line for line in out.splitlines() if line.startswith("layout"))
    assert "TP 2 x" in row and "recompute" in row and row.endswith("(pinned: tp, recompute)")
    code, out = run()
    row = next(line for line in out.splitlines() if line.startswith("layout"))
    assert "pinned" not in row


def test_pinning_the_searched_layout_changes_nothing():
    _, free = run("--format", "json")
    chosen = json.loads(free)
    pins = {"tp": "tensor_parallel", "pp": "pipeline_parallel", "vp": "virtual_stages",
            "cp": "context_parallel", "ep": "expert_parallel", "recompute": "activation_recompute"}
    text = ",".join(f"{k}={chosen[v]}" for k, v in pins.items())
    _, pinned = run("--layout", text, "--format", "json")
    assert json.loads(pinned)["gpu_hours"] == pytest.approx(chosen["gpu_hours"], rel=1e-12)


def test_a_slower_pinned_layout_costs_more_hours():
    _, free = run("--format", "json")
    _, slow = run("--layout", "tp=1,pp=16", "--format", "json")
    assert json.loads(slow)["gpu_hours"] > json.loads(free)["gpu_hours"]


@pytest.mark.parametrize(("text", "message"), [
    ("tp", "'tp' is not DEGREE=N"),
    ("xx=2", "unknown degree 'xx'; expected one of tp, pp, vp, cp, ep, recompute"),
    ("tp=8,tp=4", "tp is given twice"),
    ("tp=0", "tp=0; expected a whole number from 1 to 4096"),
    ("pp=two", "pp=two; expected a whole number"),
    ("recompute=2", "recompute=2; expected 0 or 1"),
    ("zero3=3", "zero3=3; expected 0 or 1"),
    # H100: 8 cards per NVLink domain and per server
    ("tp=16", ("--layout tp: tensor parallelism stays inside the scale-up domain: expected "
               "tp at most 8 on this card, found 16")),
    # 256 stages for about 71 layers (below)
    ("tp=8,pp=256", "--layout pp: pp × vp = 256 stages"),
    # a 70B model has about 71 layers (h = (128 x 70e9 / 12)^(1/3) = 9,072; 9,072 / 128)
    ("pp=32,vp=4", "pp × vp = 128 stages for a model of about 71 layers"),
    ("vp=2,pp=1", "virtual stages (vp > 1) need a pipeline"),
])
def test_bad_layouts_are_one_clear_message(text, message):
    code, out = run("--layout", text)
    assert code == 2, out
    assert message in out
    assert "Traceback" not in out


def test_cards_per_replica_message_names_the_count():
    # tp 8 x pp 64 = 512 cards per replica on a 256-card cluster (64 <= 71 layers)
    res = CliRunner().invoke(cli, [*JOB[:-1], "256", "--layout", "tp=8,pp=64"])
    assert res.exit_code == 2
    assert ("--layout tp: the pinned layout needs 512 cards per replica (tp × pp × cp, or "
            "ep × tp × pp), more than the cluster's 256") in res.output


def test_serving_takes_tp_only():
    serve = ["job", "--serve", "--model-params", "70e9", "--precision", "fp8", "--card",
             "h200-sxm", "--cards", "16", "--input-tokens-per-day", "2e9",
             "--output-tokens-per-day", "5e8", "--prompt-tokens", "2000", "--output-tokens",
             "500"]
    res = CliRunner().invoke(cli, [*serve, "--layout", "tp=4", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["tensor_parallel"] == 4
    res = CliRunner().invoke(cli, [*serve, "--layout", "tp=4,pp=2"])
    assert res.exit_code == 2
    assert "tensor-parallel degree only; expected tp=N" in res.output


def test_a_scenario_layout_that_cannot_be_placed_names_its_field(catalog):
    text = """
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 1e12}
candidates:
  - {id: c, card: h100-sxm, cards: 64, layout: {w: {tp: 8, pp: 16}}}
"""
    with pytest.raises(ScenarioError) as err:
        compute(load_scenario_text(text, "pins.yaml"), catalog)
    # 8 x 16 = 128 cards per replica, on 64
    assert err.value.field == "candidates.c.layout.w.tp"
    assert "needs 128 cards per replica" in err.value.message


def test_a_mixture_of_experts_on_too_few_cards_is_infeasible_not_a_crash():
    # 671B / 37B active is 18x sparse: the search wants an expert group of 16 or more, and 8
    # cards have none; it tries the 8 it has and the memory check says no.
    res = CliRunner().invoke(cli, ["job", "--model-params", "671e9", "--active-params", "37e9",
                                   "--tokens", "1e12", "--card", "h100-sxm", "--cards", "8"])
    assert res.exit_code == 0, res.output
    assert "INFEASIBLE" in res.output and "GB per card" in res.output


def test_zero3_can_be_pinned_and_is_reported():
    code, out = run("--layout", "tp=8,zero3=1")
    assert code == 0, out
    row = next(line for line in out.splitlines() if line.startswith("layout"))
    assert ", ZeRO-3" in row and row.endswith("(pinned: tp, zero3)")
    _, js = run("--layout", "tp=8,zero3=1", "--format", "json")
    assert json.loads(js)["parameter_sharding"] == 1
