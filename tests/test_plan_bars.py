"""The planner obeys the bars the options carry (methodology §13, §19): a card barred from
data centres by its licence is neither bought nor rented by the plan, however cheap its rent;
renting installed NVIDIA capacity in China, which export control allows while it bars buying
new, stays open to the plan even with no generated rent option."""

from __future__ import annotations

from tco.api import load_source
from tco.engine import compute

GEFORCE_BAR = "licence: the GeForce driver licence does not permit data-centre deployment"


def _plan_options(result):
    return {a.option for a in result.plans[0].actions}


def test_a_licence_barred_card_is_not_rented_by_the_plan_however_cheap(catalog):
    # RTX 4090 rent at 0.02 per card-hour, a hundredth of the H100's: before the planner
    # obeyed renting's bars it rented every run on the 4090s (`tco whatif` of the example
    # at that price: 22 million card-hours a year of GeForce cards in a data centre)
    r = compute(load_source({
        "name": "bars", "currency": "USD",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
        "candidates": [
            {"id": "h100", "card": "h100-sxm", "cards": 64},
            {"id": "g", "card": "rtx-4090", "cards": 64, "cloud_price_per_card_hour": 0.02,
             "on_demand_price_per_card_hour": 0.02}],
        "facility": {"region": "us"}}), catalog)
    rented = r.candidate("g-rent")
    assert rented.info.rent_blocking == [GEFORCE_BAR]
    assert r.candidate("g").info.rent_blocking == [GEFORCE_BAR]
    assert _plan_options(r) and not _plan_options(r) & {"g", "g-rent"}
    only_rent = next(p for p in r.plans if p.option == "g-rent")
    assert not only_rent.actions  # held to the barred option, the plan does nothing
    assert only_rent.workloads["w"]["delivered_fraction"] == 0.0


def test_renting_installed_capacity_in_china_stays_open_to_the_plan(catalog):
    # buying new H800 in China is barred; with no rent option generated (rent_options: none)
    # the owned option's cloud price is still the installed base's, which may be rented
    r = compute(load_source({
        "name": "cn", "currency": "CNY", "rent_options": "none",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
        "candidates": [{"id": "h800", "card": "h800-sxm", "cards": 64,
                        "cloud_price_per_card_hour": 14}],
        "facility": {"region": "cn"}}), catalog)
    info = r.candidate("h800").info
    assert info.blocking and info.rent_blocking == []
    plan = r.plans[0]
    assert {a.action for a in plan.actions} <= {"rent", "reserve"} and plan.actions
    assert plan.workloads["w"]["delivered_fraction"] == 1.0
