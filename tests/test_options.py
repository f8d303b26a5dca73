"""Options and the timeline (issue 13), checked against hand-worked numbers.

Every expected value below is worked out by hand from the methodology's formulas (§6 timeline,
§7 cash flows, §8 the equal-work basis, §10 rented and hybrid options); where a figure the
timeline does not touch is needed (a yearly colocation bill, one run's accelerator-hours), it
is read from the engine's own quantity and the arithmetic around it is done here. Discounting
at 8 %, five years: annuity sum(1.08**-t, t=1..5) = 3.9927100371.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.decision_words import action_text
from tco.scenario import load_scenario, load_scenario_text

ANNUITY_5 = sum(1.08 ** -t for t in range(1, 6))  # 3.9927100371
YEAR_WEEKS = 365.25 / 7  # a lead time of exactly one year


def scenario(candidates: str, extra: str = "", tokens: float = 2e11) -> str:
    return (
        "name: options\nrent_options: none\ncost_of_delay_per_week: 0\nutilization: 0.85\n"
        f"workloads:\n  - {{id: w, params: 7e9, tokens: {tokens!r}, runs_per_year: 4}}\n"
        f"candidates:\n{candidates}"
        "finance: {horizon_years: 5, discount_rate: 0.08}\n"
        "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n" + extra)


def pv(flows: list[float]) -> float:
    """Net flows of years 0..H discounted at 8 %."""
    return sum(x / 1.08 ** t for t, x in enumerate(flows))


def test_a_lead_time_of_a_year_shifts_the_runs_and_the_costs_of_a_buy_option(catalog):
    """The same 64 H100 ordered with no lead time and with one of a year: the late one does
    nothing in year 1 (a backlog of one year of runs), catches up in year 2 from its spare
    hours, pays no operating cost in year 1, and its NPV moves by exactly that."""
    result = compute(load_scenario_text(scenario(
        "  - {id: now, card: h100-sxm, cards: 64, lead_time_weeks: 0}\n"
        f"  - {{id: late, card: h100-sxm, cards: 64, lead_time_weeks: {YEAR_WEEKS!r}}}\n")),
        catalog)
    now, late = result.candidate("now"), result.candidate("late")
    spare = now.values["capacity_per_demand"]
    assert spare >= 2  # the cluster can run twice the year's runs: it catches up in year 2
    assert [y["work_share"] for y in now.yearly] == [0, 1, 1, 1, 1, 1]
    assert [y["installed_share"] for y in late.yearly] == [0, 0, 1, 1, 1, 1]
    assert [y["work_share"] for y in late.yearly] == [0, 0, 2, 1, 1, 1]  # runs shift
    assert [y["backlog"] for y in late.yearly] == [0, 1, 0, 0, 0, 0]
    assert late.values["ready_years"] == pytest.approx(1.0, rel=1e-12)
    assert late.values["plan_delivered_fraction"] == now.values["plan_delivered_fraction"] == 1
    assert late.values["plan_shortfall_runs"] == 0

    v = now.values
    opex = (v["colocation_per_year"] + v["support_per_year"] + v["storage_support_per_year"]
            + v["licences_per_year"] + v["operations_staff_per_year"])
    elec = v["electricity_per_year"]
    # one more busy hour swaps idle for training draw: (train - idle) W x PUE x tariff
    pue = now.inputs["pue"]
    tariff = result.inputs["facility.electricity_price_per_kwh"].value
    per_busy_h = (v["training_power_w"] - v["idle_power_w"]) * pue / 1000 * tariff
    # year 1: nothing installed, nothing paid; year 2: a full year, twice the busy hours
    assert late.yearly[1]["net"] == pytest.approx(0.0, abs=1e-6)
    elec_2 = elec + per_busy_h * v["demand_hours_per_year"]
    assert late.yearly[2]["electricity"] == pytest.approx(elec_2, rel=1e-12)
    delta = -(opex + elec) / 1.08 + (elec_2 - elec) / 1.08 ** 2
    assert late.values["npv_tco"] - v["npv_tco"] == pytest.approx(delta, rel=1e-9)
    assert abs(delta) > 0.05 * v["npv_tco"] / 5  # visibly: more than a quarter of a year's share


def test_a_too_small_cluster_late_by_a_year_leaves_a_shortfall(catalog):
    """16 H100: fewer hours than the four runs need (capacity_per_demand c < 1). On time it
    delivers c a year; a year late it delivers nothing in year 1 and c in each of 4 years."""
    result = compute(load_scenario_text(scenario(
        f"  - {{id: small, card: h100-sxm, cards: 16, lead_time_weeks: {YEAR_WEEKS!r}}}\n",
        tokens=2e12)),
        catalog)
    c = result.candidate("small")
    cap = c.values["capacity_per_demand"]
    assert 0 < cap < 1
    assert c.values["plan_delivered_fraction"] == pytest.approx(4 * cap / 5, rel=1e-12)
    assert c.values["plan_shortfall_runs"] == pytest.approx(4 * (5 - 4 * cap), rel=1e-12)
    assert c.values["tier"] == 1  # ranks below every option that delivers the plan


def test_a_rented_options_npv_is_porting_plus_the_rented_hours_discounted(frozen):
    """Renting 64 MI300X: the team ports ROCm (6 engineer-months moderate, 3 calendar months
    with 2 engineers), then rents every run's accelerator-hours. The plan keeps the cluster
    busy 5.5 % of the year: a 1-year committed reservation (1.35 an hour, paid for every hour
    from the port on: 0.75 x 64 x 8,760 x 1.35 = 567,648 in year 1, then 756,864 a year)
    costs far more than paying on demand (1.99) for the hours used, so it rents on demand."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    result = compute(load_scenario_text(scenario(
        "  - {id: mi, card: mi300x, cards: 64, acquire: rent}\n")), catalog)
    c = result.candidate("mi")
    assert c.info.acquire == "rent" and c.values["capex_total"] == 0
    porting = 6 * 20000  # engineer-months x cost, familiarity 0
    upkeep = 3 * 20000  # 3 engineer-months a year
    assert c.values["porting_one_time"] == pytest.approx(porting)
    assert c.values["porting_months"] == pytest.approx(3.0)
    assert c.inputs["cloud_price_per_card_hour"] == 1.35  # pricing/cloud.yaml, 1-year committed
    assert c.inputs["rent_reserved_fraction"] == 1
    price = c.inputs["on_demand_price_per_card_hour"]
    assert price == 1.99  # on-demand typical
    hours = 4 * c.job["gpu_hours"]  # four runs a year
    assert hours < 0.06 * 64 * 8760
    assert c.values["rent_on_demand"] == 1
    # its per-run line is at the price it pays (issue 27): on demand, 1.99, not the 1.35 of
    # the reservation it does not take
    assert c.values["rent_price_per_card_hour"] == pytest.approx(1.99, rel=1e-12)
    assert 5 * hours * price < 567_648 + 4 * 756_864
    rent = hours * price
    assert [y["cloud_rent"] for y in c.yearly] == pytest.approx([0] + [rent] * 5, rel=1e-12)
    assert c.values["npv_tco"] == pytest.approx(porting + ANNUITY_5 * (upkeep + rent),
                                                rel=1e-12)
    assert c.values["plan_delivered_fraction"] == 1 and c.values["tier"] == 0
    assert c.job["cost_rental"] == pytest.approx(c.job["gpu_hours"] * 1.99, rel=1e-12)


def test_a_busy_rented_cluster_is_reserved_and_paid_for_every_hour(frozen):
    """The same 64 MI300X with 3e12 tokens a run: the plan keeps the cluster busy 82 % of the
    year, above the price ratio 1.35 / 1.99 = 0.678, so the 1-year committed reservation costs
    less than on demand. It is paid from the port on (3 months): year 1 reserves 0.75 x 64 x
    8,760 = 420,480 card-hours but uses more (the year's four runs, all done after the port),
    so it pays the hours used; years 2-5 pay all 560,640 hours x 1.35 = 756,864."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    result = compute(load_scenario_text(scenario(
        "  - {id: mi, card: mi300x, cards: 64, acquire: rent}\n", tokens=3e12)), catalog)
    c = result.candidate("mi")
    used = 4 * c.job["gpu_hours"]
    assert 0.8 * 560_640 < used < 560_640
    assert c.values["rent_on_demand"] == 0
    # a run at the price paid (issue 27): the reservation's rent over the hours used, in
    # present value; years 2-5 pay for idle hours too, so above the 1.35 of a full one
    price = pv([0, used * 1.35] + [756_864] * 4) / pv([0] + [used] * 5)
    assert 1.35 < price < 1.99
    assert c.values["rent_price_per_card_hour"] == pytest.approx(price, rel=1e-12)
    assert c.job["cost_rental"] == pytest.approx(c.job["gpu_hours"] * price, rel=1e-12)
    assert [y["cloud_rent"] for y in c.yearly] == pytest.approx(
        [0, used * 1.35] + [756_864] * 4, rel=1e-12)
    assert used * 1.35 + 4 * 756_864 < 5 * used * 1.99  # the reservation is the cheaper
    upkeep = 3 * 20000
    want = pv([6 * 20000, upkeep + used * 1.35] + [upkeep + 756_864] * 4)
    assert c.values["npv_tco"] == pytest.approx(want, rel=1e-12)
    assert "rents on demand" not in " ".join(c.notes)


def test_a_port_of_two_years_delays_the_rent_and_catches_up(frozen):
    """A quarter of an engineer porting: 6 / 0.25 = 24 months. Nothing runs in years 1 and 2
    (the port ends exactly at year 2); year 3 rents the backlog of two years and its own."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    result = compute(load_scenario_text(scenario(
        "  - {id: mi, card: mi300x, cards: 64, acquire: rent}\n",
        "assumptions: {porting_team_engineers: 0.25}\n")), catalog)
    c = result.candidate("mi")
    assert [y["rented_work_share"] for y in c.yearly] == [0, 0, 0, 3, 1, 1]
    assert c.values["rent_on_demand"] == 1  # a few runs a year: on demand (test above)
    rent = 4 * c.job["gpu_hours"] * c.inputs["on_demand_price_per_card_hour"]
    upkeep = 3 * 20000
    want = pv([6 * 20000, upkeep, upkeep, upkeep + 3 * rent, upkeep + rent, upkeep + rent])
    assert c.values["npv_tco"] == pytest.approx(want, rel=1e-12)


def test_a_hybrid_rents_what_its_cluster_cannot_do(frozen):
    """16 H100 bought (capacity_per_demand c < 1) and the rest rented: each year the cluster
    does c of the runs and (1 - c) is rented. It costs the bought cluster's flows plus that
    rent, and delivers the whole plan where buying alone leaves a shortfall."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    result = compute(load_scenario_text(scenario(
        "  - {id: hy, card: h100-sxm, cards: 16, lead_time_weeks: 0, acquire: hybrid}\n"
        "  - {id: own, card: h100-sxm, cards: 16, lead_time_weeks: 0}\n", tokens=2e12)),
        catalog)
    hy, own = result.candidate("hy"), result.candidate("own")
    cap = hy.values["capacity_per_demand"]
    assert 0 < cap < 1
    assert [y["own_work_share"] for y in hy.yearly] == pytest.approx([0] + [cap] * 5)
    assert [y["rented_work_share"] for y in hy.yearly] == pytest.approx([0] + [1 - cap] * 5)
    # the peaks are rented as they come: on demand (3.49), not at the committed tier (2.35)
    assert hy.inputs["on_demand_price_per_card_hour"] == 3.49
    rent = 4 * hy.job["gpu_hours"] * hy.inputs["on_demand_price_per_card_hour"] * (1 - cap)
    assert hy.values["npv_tco"] - own.values["npv_tco"] == pytest.approx(ANNUITY_5 * rent,
                                                                         rel=1e-9)
    assert hy.values["plan_delivered_fraction"] == 1 and hy.values["tier"] == 0
    assert own.values["plan_shortfall_runs"] == pytest.approx(4 * 5 * (1 - cap), rel=1e-9)
    assert own.values["tier"] == 1
    said = recommend(result)
    assert said is not None and said.option == "hy" and said.mode == "hybrid"
    assert action_text(said, result.currency) == ("buy NVIDIA H100 SXM5 80GB and rent what it cannot do (hybrid)"
                             .replace("NVIDIA H100 SXM5 80GB", hy.info.card_name))


def test_the_example_recommends_renting_in_every_output(catalog):
    """The built-in example's own numbers: renting on demand costs far less than buying any
    cluster (the plan keeps a cluster busy about a third of the year, too little for a
    committed reservation paid for every hour), so it recommends a rent option; the JSON says
    mode rent and pricing on-demand."""
    result = compute(load_scenario(), catalog)
    said = recommend(result)
    assert said is not None and said.mode == "rent"
    assert result.candidates[0].id == said.option
    cheapest_buy = min(c.values["npv_tco"] for c in result.candidates
                       if c.quantified and not c.info.blocking and c.info.acquire == "buy")
    assert said.npv_tco < cheapest_buy
    out = CliRunner().invoke(cli, ["compare", "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    # the recommendation is the plan (issue 27); the best single option is kept beside it
    plan_rec, rec = data["recommendation"], data["recommendation"]["best_option"]
    assert plan_rec["option"] == "plan" and plan_rec["npv_tco"] == data["plan"]["npv_tco"]
    assert rec["option"] == said.option and rec["mode"] == "rent"
    assert rec["pricing"] == "on-demand" and rec["reasons"]
    assert rec["action"].startswith("rent ") and rec["action"].endswith(" at on-demand prices")
    table = CliRunner().invoke(cli, ["compare"]).output
    assert "Recommendation: follow the cheapest plan: " in table
    assert f"the best option as typed ({said.option})" in table
