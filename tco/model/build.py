"""build_model(structure) -> Model: each option's quantities, chapter by chapter, in the order
docs/methodology.md describes them (§3 to §10, with §12 and §14's feasibility and tier)."""

from __future__ import annotations

from ..expr import IF, Const, Expr, Ref
from ..resolved import Structure
from .api import api_option
from .base import Builder, Model
from .capex import capex, no_capex
from .cashflows import Money, cash_flows, horizon_results
from .cloud import renting
from .cluster import cluster
from .decision import feasibility, plan_target, tier
from .held import held_stock
from .jobcost import job_costs
from .lease import lease
from .operations import delivered, hours, running
from .portfolio import portfolio
from .serving import Serving, serving, token_costs
from .shortfall import shortfall_cost
from .step import bandwidths
from .timeline import plan_work, timeline
from .training import Run, software_factor, training_run


def build_model(structure: Structure) -> Model:
    model = Model(structure)
    for cid in structure.candidates:
        candidate(model, structure, cid)
    for aid, _name, *workloads in structure.api:
        api_option(model, structure, aid, workloads)
    for members in structure.portfolios:
        portfolio(model, structure, members[0], members[1:])
    return model


def candidate(model: Model, st: Structure, cid: str) -> None:
    k = st.candidates.index(cid)
    b = Builder(model, cid, st.inputs_of[k])
    money, horizon, stack = st.currency, st.horizon_years, st.stacks[k]
    owned = st.acquire[k] != "rent"  # buy, or hybrid (buy and rent what it cannot do)
    priced_rent = cid in st.rent  # the card has a cloud price (always, when rented)
    cl = cluster(b)
    links, team = bandwidths(b), software_factor(b, st.stacks[k])
    serves: dict[str, Serving] = {}
    runs: dict[str, Run] = {}
    for wid, precision, kind in st.workloads:
        if kind == "serve":
            serves[wid] = serving(b, wid, precision, cl, links[0], team, st.objectives,
                                  peak_must_fit=st.acquire[k] in ("buy", "lease"))
            runs[wid] = serves[wid].run
        else:
            runs[wid] = training_run(b, wid, precision, cl, links, team)
    # the workloads it carries (all unless assigned): their runs are its demand and its plan
    carried = {wid: r for wid, r in runs.items() if not st.assigned or not st.assigned[k]
               or wid in st.assigned[k]}
    feasible = feasibility(b, st.sizing[k], next(iter(carried.values())),
                           list(carried.values()), cl)
    held = held_stock(b, cl, st.held[k], money) if st.held and st.held[k] else None
    waits = None if held is None else IF(held.bought_share.gt(0), 1, 0)
    leased = st.acquire[k] == "lease"
    cx = capex(b, cl, money, held, leased) if owned else no_capex(b, money)
    h = hours(b, carried, owned)
    rent_price: Expr = b.c("cloud_price_per_card_hour") if priced_rent else Const(0.0)
    phases = st.deliveries[k] if st.deliveries and owned else 0
    run = running(b, cl, cx, h, stack, horizon, money, owned, rent_price, waits, phases, leased)
    work = delivered(b, carried, h)
    tl = timeline(b, horizon, stack, owned, waits, phases)
    plan = plan_work(b, horizon, tl, h.demand, h.available, st.acquire[k])
    ls = lease(b, cx, Ref(f"{cid}.delivery_years"), horizon, money) if leased else None
    m = Money(cx, run, cl, h, work, plan, owned, ls)
    flows = cash_flows(b, horizon, m, tl, money)
    hz = horizon_results(b, horizon, flows, work, plan, money)
    if st.sizing[k] == "plan":  # cards: auto, sized to deliver the plan
        feasible = plan_target(b, feasible, Ref(f"{cid}.plan_delivered_fraction"))
    if cid in st.shortfall_rent:
        shortfall_cost(b, horizon, work, plan, hz, money, priced_rent, cid in st.closing)
    tier(b, feasible, cid in st.barred, Ref(f"{cid}.plan_delivered_fraction"),
         partial=len(carried) < len(runs))
    job_costs(b, runs, cx, run, h, work, horizon, money, owned, ls)
    for wid, sv in serves.items():
        token_costs(b, wid, sv, Ref(f"{cid}.{wid}.cost_per_job"), money)
    if st.acquire[k] in ("buy", "lease") and priced_rent:
        renting(b, cl, h, run, work, hz, horizon, money, leased)
