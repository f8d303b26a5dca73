"""Issue 14's remaining gaps: Monte Carlo of the cost per token, the serve-first wording, the
dedicated fleet sized for the peak (docs/methodology.md §18)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.resources import example_scenario
from tco.scenario import load_scenario, parse_scenario
from tco.yamlio import YamlDoc

SCENARIO = example_scenario().parent / "train-and-serve.yaml"
METRIC = "cost_per_million_output_tokens"


@pytest.fixture(scope="module")
def train_and_serve(catalog):
    return compute(load_scenario(SCENARIO), catalog)


# --- Monte Carlo of the cost per million output tokens ---------------------------------------


def test_monte_carlo_of_the_cost_per_token_is_exact_when_nothing_is_uncertain(catalog,
                                                                             train_and_serve):
    """Every drawn input collapsed to its baseline: every percentile is the engine's cost per
    million output tokens (tests/test_serving.py works that figure out by hand)."""
    from tco.analysis.montecarlo import montecarlo

    first = montecarlo(train_and_serve, draws=10, seed=1, metric=METRIC)
    data = load_scenario(SCENARIO).scenario.model_dump(mode="python")
    data["distributions"] = {p: {"dist": "triangular", "low": train_and_serve.inputs[p].value,
                                 "high": train_and_serve.inputs[p].value} for p in first.varied}
    base = compute(parse_scenario(YamlDoc(data, {}, "collapsed")), catalog)
    mc = montecarlo(base, draws=2000, seed=4, metric=METRIC)
    assert mc.metric == METRIC
    for cid, p in mc.percentiles.items():
        cost = base.candidate(cid).jobs["chat"][METRIC]
        assert "cost_per_job" not in p
        assert p[METRIC]["p10"] == p[METRIC]["p50"] == p[METRIC]["p90"] == cost
        assert mc.deterministic[cid][METRIC] == cost


def test_monte_carlo_of_the_cost_per_token_equals_the_engine_at_the_drawn_inputs(
        train_and_serve):
    """One draw: its percentile is the scalar engine's value at the drawn inputs."""
    from tco.analysis.montecarlo import drawn_inputs, montecarlo

    base = {p: i.value for p, i in train_and_serve.inputs.items()}
    for seed in (3, 11):
        mc = montecarlo(train_and_serve, draws=1, seed=seed, metric=METRIC)
        drawn = drawn_inputs(train_and_serve, 1, seed)
        env = train_and_serve.model.evaluate({**base, **{p: float(x[0])
                                                         for p, x in drawn.items()}})
        for cid, p in mc.percentiles.items():
            assert p[METRIC]["p50"] == pytest.approx(float(env[f"{cid}.chat.{METRIC}"]),
                                                     rel=1e-12)
        assert "assumptions.decode_mfu_ratio" in drawn


def test_tco_montecarlo_metric_cost_per_million_output_tokens():
    out = CliRunner().invoke(cli, ["montecarlo", str(SCENARIO), "--draws", "400", "--seed", "2",
                                   "--metric", METRIC, "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    from test_json_schema import check

    check("montecarlo", data)
    for c in data["candidates"]:
        q = c[METRIC]
        assert q["p10"] < q["p50"] < q["p90"], c["id"]
        assert "cost_per_job" not in c and c["deterministic"][METRIC] > 0
    table = CliRunner().invoke(cli, ["montecarlo", str(SCENARIO), "--draws", "200",
                                     "--metric", METRIC]).output
    assert "/M out P10" in table
    csv = CliRunner().invoke(cli, ["montecarlo", str(SCENARIO), "--draws", "200", "--metric",
                                   METRIC, "--format", "csv"]).output
    assert f",{METRIC}," in csv


def test_tco_montecarlo_serving_metric_needs_a_serving_workload():
    out = CliRunner().invoke(cli, ["montecarlo", "--draws", "10", "--metric", METRIC])
    assert out.exit_code == 2
    assert "needs a serving workload" in out.output and "Traceback" not in out.output
