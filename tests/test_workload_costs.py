"""Levelized costs per workload (docs/methodology.md §8, "Per workload"): the NPV split among
the workloads an option carries by the card-hours each takes, each share over what it
delivers; no plan-level cost per run unless the option carries one training workload.

Worked by hand on an H100 cluster rented on demand at p an hour by a team that knows CUDA (no
port, no upkeep, no delay), so that its NPV is the rent alone: each year
p x (1 x g_pre + 6 x g_ft) for a pre-training run a year and six fine-tunes (g: a run's
card-hours), NPV = annuity x p x (g_pre + 6 g_ft). The pre-training's share is
g_pre / (g_pre + 6 g_ft), so its levelized cost per run is
   annuity x p x g_pre / (annuity x 1 run) = p x g_pre,
and a fine-tune's p x g_ft: what a run's card-hours cost, as a run rented on demand should.
The old plan-level figure, NPV / (annuity x 7 runs) = p x (g_pre + 6 g_ft) / 7, priced a
fine-tune and a pre-training run alike.

Serving the model too (the same cluster): a year of serving takes avg x 8,760 card-hours, so
its levelized cost per million output tokens is p x avg x 8,760 x (1 - prompt share) /
(output tokens a day x 365 / 1e6), which is the year's cost per million output tokens
(`cost_per_million_output_tokens`) exactly when the option rents on demand with no port.
"""

from __future__ import annotations

import pytest
from test_storage import EXAMPLES

from tco.engine import compute
from tco.exporters.data import compare_dict
from tco.scenario import load_scenario, load_scenario_text

PLAN = """
name: per workload
rent_options: none
rent_pricing: on_demand
cost_of_delay_per_week: 0
workloads:
  - {id: pre, params: 7e9, tokens: 2e11, runs_per_year: 1}
  - {id: ft, kind: finetune, params: 7e9, tokens: 2e10, runs_per_year: 6}
candidates:
  - {id: rented, card: h100-sxm, cards: 64, acquire: rent}
  - {id: bought, card: h100-sxm, cards: 64, lead_time_weeks: 0}
finance: {horizon_years: 5, discount_rate: 0.08}
team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}
"""

SERVE = """
  - id: chat
    kind: serve
    params: 7e9
    input_tokens_per_day: 2e8
    output_tokens_per_day: 5e7
    prompt_tokens: 1000
    output_tokens: 250
"""


@pytest.fixture(scope="module")
def plan(catalog):
    return compute(load_scenario_text(PLAN, "plan.yaml"), catalog)


def test_each_run_costs_its_own_card_hours(plan):
    c = plan.candidate("rented")
    p = c.inputs["on_demand_price_per_card_hour"]
    g_pre, g_ft = c.jobs["pre"]["gpu_hours"], c.jobs["ft"]["gpu_hours"]
    assert c.values["npv_tco"] == pytest.approx(c.values["annuity_factor"] * p
                                                * (g_pre + 6 * g_ft), rel=1e-12)
    share = g_pre / (g_pre + 6 * g_ft)
    assert c.jobs["pre"]["card_hour_share"] == pytest.approx(share, rel=1e-12)
    assert c.jobs["ft"]["card_hour_share"] == pytest.approx(1 - share, rel=1e-12)
    assert c.jobs["pre"]["cost_per_run_horizon"] == pytest.approx(p * g_pre, rel=1e-12)
    assert c.jobs["ft"]["cost_per_run_horizon"] == pytest.approx(p * g_ft, rel=1e-12)
    # a tenth of the tokens: a tenth of the card-hours and of the cost (same cluster)
    assert c.jobs["ft"]["cost_per_run_horizon"] == pytest.approx(
        c.jobs["pre"]["cost_per_run_horizon"] / 10, rel=1e-9)


def test_the_shares_add_up_to_the_npv_and_no_plan_level_figure_is_made(plan):
    for c in plan.candidates:
        jobs = c.jobs
        assert jobs["pre"]["card_hour_share"] + jobs["ft"]["card_hour_share"] == \
            pytest.approx(1, rel=1e-12)
        assert jobs["pre"]["npv_tco_share"] + jobs["ft"]["npv_tco_share"] == pytest.approx(
            c.values["npv_tco"], rel=1e-12)
        assert "cost_per_run_horizon" not in c.values  # two workloads: no one run
    d = compare_dict(plan)
    for cand in d["candidates"]:
        assert cand["cost_per_run_horizon"] is None
        assert cand["jobs"]["pre"]["cost_per_run_horizon"] > \
            cand["jobs"]["ft"]["cost_per_run_horizon"] > 0


def test_serving_is_levelized_per_million_output_tokens(catalog):
    text = PLAN.replace("runs_per_year: 6}\n", "runs_per_year: 6}\n" + SERVE, 1)
    c = compute(load_scenario_text(text, "serve.yaml"), catalog).candidate("rented")
    p = c.inputs["on_demand_price_per_card_hour"]
    chat = c.jobs["chat"]
    year = p * chat["average_cards_busy"] * 8760
    prompt = chat["input_cost_share"]
    assert chat["cost_per_million_output_tokens_horizon"] == pytest.approx(
        year * (1 - prompt) / (5e7 * 365 / 1e6), rel=1e-9)
    assert chat["cost_per_million_input_tokens_horizon"] == pytest.approx(
        year * prompt / (2e8 * 365 / 1e6), rel=1e-9)
    assert chat["cost_per_million_output_tokens_horizon"] == pytest.approx(
        chat["cost_per_million_output_tokens"], rel=1e-9)
    assert c.jobs["pre"]["cost_per_run_horizon"] == pytest.approx(
        p * c.jobs["pre"]["gpu_hours"], rel=1e-12)


def test_one_training_workload_keeps_the_plan_level_figure(catalog):
    """The built-in example (one pre-training workload): the option's figure is its one
    workload's; train-and-serve's options carry two workloads, so they have none."""
    ex = compute(load_scenario(), catalog)
    for c in ex.candidates:
        if c.quantified:
            assert c.values["cost_per_run_horizon"] == c.jobs["llama-70b"][
                "cost_per_run_horizon"]
    both = compute(load_scenario(EXAMPLES / "train-and-serve.yaml"), catalog)
    assert "cost_per_run_horizon" not in both.candidate("h100-sxm").values
    assert "cost_per_run_horizon" in both.candidate("h200-train").values  # trains only
