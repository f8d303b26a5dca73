"""Issue 14's remaining gaps: Monte Carlo of the cost per token, the serve-first wording, the
dedicated fleet sized for the peak (docs/methodology.md §18)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_serving import HAND

from tco.cli import cli
from tco.engine import compute
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text, parse_scenario
from tco.yamlio import YamlDoc

SCENARIO = example_scenario().parent / "train-and-serve.yaml"
METRIC = "cost_per_million_output_tokens"


@pytest.fixture(scope="module")
def train_and_serve(catalog):
    return compute(load_scenario(SCENARIO), catalog)


# --- Monte Carlo of the cost per million output tokens ---------------------------------------


PORTFOLIO = "train-h200-serve-api"  # tco/scenarios/train-and-serve.yaml


def test_monte_carlo_of_the_cost_per_token_is_exact_when_nothing_is_uncertain(catalog,
                                                                             train_and_serve):
    """Every drawn input collapsed to its baseline: every percentile is the engine's cost per
    million output tokens (tests/test_serving.py works that figure out by hand)."""
    from tco.analysis.montecarlo import montecarlo

    first = montecarlo(train_and_serve, draws=10, seed=1, metric=METRIC)
    data = load_scenario(SCENARIO).scenario.model_dump(mode="python", exclude_unset=True)
    data["distributions"] = {p: {"dist": "triangular", "low": train_and_serve.inputs[p].value,
                                 "high": train_and_serve.inputs[p].value} for p in first.varied}
    base = compute(parse_scenario(YamlDoc(data, {}, "collapsed")), catalog)
    mc = montecarlo(base, draws=2000, seed=4, metric=METRIC)
    assert mc.metric == METRIC
    # the option that only trains serves no token: it has no cost per token
    assert METRIC not in mc.percentiles["h200-train"] and "h200-train" in mc.prob_cheapest
    # the portfolio ranks beside the options (its NPV only: no one cost per token)
    assert METRIC not in mc.percentiles[PORTFOLIO] and PORTFOLIO in mc.prob_cheapest
    for cid, p in mc.percentiles.items():
        if cid in ("h200-train", PORTFOLIO):
            continue
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
        drawn = drawn_inputs(train_and_serve, 1, seed, METRIC)
        env = train_and_serve.model.evaluate({**base, **{p: float(x[0])
                                                         for p, x in drawn.items()}})
        for cid, p in mc.percentiles.items():
            if cid in ("h200-train", PORTFOLIO):  # no serving workload, or no one cost
                continue
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
        if c["id"] in ("h200-train", PORTFOLIO):  # no serving workload, or no one cost
            assert c[METRIC] is None and METRIC not in c["deterministic"]
            continue
        q = c[METRIC]
        # ordered; an API price whose typical is an end of its range (DeepInfra's, the lower
        # of the two prices seen) puts half its draws there, so P10 may equal P50
        assert q["p10"] <= q["p50"] <= q["p90"] and q["p10"] < q["p90"], c["id"]
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


# --- a dedicated fleet sized for the peak ----------------------------------------------------


def test_dedicated_fleet_cost_per_token_by_hand(catalog):
    """tests/test_serving.py's hand case: 4.1466 cards busy on average, 9 at the peak. On a
    fleet of its own the lines that follow the cards scale by 9 / 4.1466 = 2.1704; the
    electricity follows the tokens and porting is one effort."""
    (c,) = compute(load_scenario_text(HAND, "hand.yaml"), catalog).candidates
    job = c.jobs["chat"]
    factor = 9 / job["average_cards_busy"]
    assert job["peak_fleet_factor"] == pytest.approx(factor, rel=1e-12)
    assert factor == pytest.approx(2.1704, rel=1e-4)
    fixed = sum(job[f"cost_{k}"] for k in ("hardware", "facility", "operations", "rental"))
    year = fixed * factor + job["cost_electricity"] + job["cost_porting"]
    assert job["dedicated_fleet_cost_per_year"] == pytest.approx(year, rel=1e-12)
    share = job["input_cost_share"]  # 0.56845, worked out in tests/test_serving.py
    per_m = year * (1 - share) / (2.5e9 * 365) * 1e6
    assert job["dedicated_cost_per_million_output_tokens"] == pytest.approx(per_m, rel=1e-12)
    # idle capacity costs more per token than the shared cluster's serving share
    assert (job["cost_per_million_output_tokens"]
            < job["dedicated_cost_per_million_output_tokens"]
            < factor * job["cost_per_million_output_tokens"])


def test_dedicated_fleet_cost_per_token_is_shown_wherever_serving_is(train_and_serve):
    import datetime as dt
    import re

    from tco.exporters.html import render_html
    from tco.exporters.serving_report import per_million

    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "json"])
    data = json.loads(out.output)
    h200 = train_and_serve.candidate("h200-sxm").jobs["chat"]
    got = next(c for c in data["candidates"] if c["id"] == "h200-sxm")["jobs"]["chat"]
    assert got["dedicated_cost_per_million_output_tokens"] == pytest.approx(
        h200["dedicated_cost_per_million_output_tokens"], rel=1e-12)
    assert "own fleet /M out" in CliRunner().invoke(cli, ["compare", str(SCENARIO)]).output
    csv = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "csv"]).output
    assert "chat.dedicated_cost_per_million_output_tokens" in csv.splitlines()[0]
    for lang, head in (("en", "own fleet at the peak"), ("zh", "按峰值独立配置")):
        html = render_html(train_and_serve, lang, day=dt.date(2026, 12, 3))
        section = html[html.index('<section id="serving"'):]
        assert head in section
        row = re.search(r'data-candidate="h200-sxm">(.*?)</tr>', section, re.DOTALL).group(1)
        assert per_million(h200["dedicated_cost_per_million_output_tokens"], "USD") in row


# --- a plan that serves first is worded as serving ------------------------------------------

SERVE_FIRST = HAND.replace("  - {id: pre, params: 7e9, tokens: 1e11, runs_per_year: 2}\n", "")


@pytest.fixture(scope="module")
def serve_first_result(catalog):
    return compute(load_scenario_text(SERVE_FIRST, "serve-first.yaml"), catalog)


def test_the_table_of_a_plan_that_serves_first_shows_serving_figures(serve_first_result,
                                                                     tmp_path):
    from tco.exporters.data import compare_table

    table = compare_table(serve_first_result)
    header = table.splitlines()[1]
    assert "days/run" not in header and "cost/run" not in header and "layout" not in header
    # NPV/M out: the serving workload's levelized cost per million output tokens (issue 27;
    # "NPV/yr" divided the NPV by the years of serving and any other workload's runs alike)
    assert "cards at peak" in header and "USD/M out*" in header and "NPV/M out" in header
    job = serve_first_result.candidates[0].jobs["chat"]
    row = table.splitlines()[3]
    # the hand case: 9 cards at the peak, TP 1
    assert job["cards_needed"] == 9 and " 9 " in row and f"${job[METRIC]:,.3f}" in row
    assert f"${job['cost_per_million_output_tokens_horizon']:,.3f}" in row
    assert "cost/run*: one run" not in table and "M out*: cost per million output" in table


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_of_a_plan_that_serves_first_words_it_as_serving(serve_first_result, lang):
    import datetime as dt
    import re

    from report_support import unplanned

    from tco.exporters.html import render_html

    # the option-level key figures (planned, the report's key figures are the plan's)
    html = render_html(unplanned(serve_first_result), lang, day=dt.date(2026, 12, 3))
    kpis = html[html.index('class="kpis'):]
    kpis = re.sub(r"<[^>]+>", " ", kpis[:kpis.index("</section>")]
                  if "</section>" in kpis else kpis[:3000])
    table = html[html.index('id="comparison"'):]
    table = re.sub(r"<[^>]+>", " ", table[:table.index("</table>")])
    job = serve_first_result.candidates[0].jobs["chat"]
    if lang == "en":
        for words in ("Cost per training run", "Time to train"):
            assert words not in kpis and words not in table
        assert "Cost per million output tokens (USD)" in kpis and "Cards at the peak" in kpis
        assert "USD per million output tokens" in table and "Cards at the peak" in table
        assert "Cost of a year of serving" in html and "Cost per run" not in table
    else:
        for words in ("单次训练成本", "训练时长"):
            assert words not in kpis and words not in table
        assert "每百万输出词元成本（USD）" in kpis and "峰值所需卡数" in kpis
        assert "一年推理服务的成本" in html
    assert f"${job[METRIC]:,.3f}" in kpis and f"${job[METRIC]:,.3f}" in table


# --- the engine's fixed time per decode step -------------------------------------------------


def test_a_per_step_overhead_by_hand(catalog):
    """tests/test_serving.py's hand case with 2 ms of engine time per step: a_mem 2.5 ms,
    b_mem 23.04 us, b_cmp 20.82 us, pf 81.46 us (worked out there). The 20 ms objective leaves
    20 − 2.5 − 2 = 15.5 ms for the sequences: 15.5 ms / 125.32 us = 123.7, so 123 sequences
    (139 without it); the step is 0.0025 + 0.002 + 125.32e-6·123 = 19.91 ms."""
    base = compute(load_scenario_text(HAND, "h.yaml"), catalog).candidates[0].jobs["chat"]
    text = HAND.replace("    serving_step_overhead_s: 0\n", "    serving_step_overhead_s: 0.002\n")
    (c,) = compute(load_scenario_text(text, "h.yaml"), catalog).candidates
    job = c.jobs["chat"]
    b_mem, b_cmp = base["decode_kv_read_seconds_per_sequence"], \
        base["decode_compute_seconds_per_sequence"]
    pf = base["prefill_seconds_per_sequence_step"]
    assert b_mem == pytest.approx(23.04e-6, rel=1e-9) and pf == pytest.approx(81.46e-6, rel=1e-3)
    by_latency = (0.020 - 0.0025 - 0.002) / (b_mem + b_cmp + pf)
    assert job["batch_latency_limit"] == pytest.approx(by_latency, rel=1e-12)
    assert by_latency == pytest.approx(123.7, rel=1e-3) and job["batch_sequences"] == 123
    step = 0.0025 + 0.002 + (b_mem + b_cmp + pf) * 123
    assert job["tpot_ms"] == pytest.approx(step * 1000, rel=1e-12)
    assert job["tokens_per_s_per_card"] < base["tokens_per_s_per_card"]


def test_sensitivity_of_the_cost_per_token_leaves_out_an_option_that_only_trains(catalog):
    from tco.analysis.sensitivity import sensitivity

    s = sensitivity(load_scenario(SCENARIO), catalog, swing=0.2, metric=METRIC)
    assert "h200-train" not in s.bars and "h200-sxm" in s.bars
