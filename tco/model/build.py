"""build_model(structure) -> Model: each option's quantities, chapter by chapter, in the order
docs/methodology.md describes them (§3 to §10, with §12 and §14's feasibility and tier)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import modes
from ..expr import AND, IF, MAX, Const, Expr, Ref
from ..resolved import Structure
from .api import api_option
from .base import Builder, Model
from .capex import capex, no_capex
from .cashflows import Money, cash_flows, horizon_results, workload_costs
from .cloud import rental, renting
from .cluster import cluster
from .decision import feasibility, plan_target, tier, within_power_budget
from .held import held_stock
from .jobcost import job_costs
from .lease import lease
from .operations import delivered, hours, running
from .portfolio import portfolio
from .serving import Serving, serving, serving_team, token_costs
from .shortfall import shortfall_cost
from .step import bandwidths
from .storage import storage_tb
from .tax import after_tax, tax_schedule
from .timeline import plan_work, timeline
from .training import Run, software_factor, training_run
from .twincopy import Recipe


def build_model(structure: Structure, copy_twins: bool = True) -> Model:
    """The model of `structure`. The first candidate of each Shape is built chapter by
    chapter; its twins copy its quantities with their own names (tco/model/twincopy.py), or,
    with `copy_twins` False (tests compare both), are built chapter by chapter too."""
    model = Model(structure)
    first: dict[Shape, tuple[int, int, str, str]] = {}  # its quantities' span, id, inputs' id
    recipes: dict[Shape, Recipe] = {}
    for k, cid in enumerate(structure.candidates):
        sh, inputs_of = shape(structure, cid, k), structure.inputs_of[k]
        if copy_twins and sh in first:
            if sh not in recipes:  # made when a second twin comes
                start, end, template, its_inputs = first[sh]
                recipes[sh] = Recipe(model.quantities[start:end], template, its_inputs)
            recipes[sh].copy(model, cid, inputs_of)
            continue
        start = len(model.quantities)
        _candidate(model, structure, cid, inputs_of, sh)
        first.setdefault(sh, (start, len(model.quantities), cid, inputs_of))
    for aid, _name, *workloads in structure.api:
        api_option(model, structure, aid, workloads)
    for members in structure.portfolios:
        portfolio(model, structure, members[0], members[1:])
    return model


@dataclass(frozen=True)
class Shape:
    """Everything about one candidate that shapes its formulas, besides what every candidate
    of the scenario shares (currency, horizon, workloads, objectives): `candidate` reads the
    candidate's part of the Structure only through this. Two candidates of one model with equal
    shapes therefore have the same formulas but for their ids (twins, tco/twins.py)."""

    stack: str
    sizing: str
    acquire: str
    generated: bool  # reads another option's inputs (a generated rent option)
    priced_rent: bool  # the card has a cloud price (always, when rented)
    barred: bool
    shortfall_rent: bool
    closing: bool
    assigned: tuple[str, ...]
    held: str
    held_by_age: bool  # its held stock is valued by its age (a book value), not a price given
    deliveries: int
    site: str  # the site it runs at ("" the first): whose facility inputs it reads
    measured: tuple[str, ...] = ()  # precisions with a serving rate the user measured
    resale_curve: bool = False  # resold on its card class's used-market curve (§6)
    # the compute vouchers that apply to it: (id, "share" | "per_card_hour", has a cap)
    vouchers: tuple[tuple[str, str, bool], ...] = ()
    revoked: bool = False  # its card's licence is revoked mid-horizon (no work after)


def shape(st: Structure, cid: str, k: int | None = None) -> Shape:
    """Candidate `cid`'s Shape in `st` (`k`: its place in `st.candidates`, when known)."""
    k = st.candidates.index(cid) if k is None else k
    return Shape(
        stack=st.stacks[k], sizing=st.sizing[k], acquire=st.acquire[k],
        generated=st.inputs_of[k] != cid, priced_rent=cid in st.rent, barred=cid in st.barred,
        shortfall_rent=cid in st.shortfall_rent, closing=cid in st.closing,
        assigned=tuple(st.assigned[k]) if st.assigned else (),
        held=st.held[k] if st.held else "",
        held_by_age=bool(st.held) and st.held[k] in st.held_by_age,
        deliveries=st.deliveries[k] if st.deliveries else 0,
        site=st.site_of_candidate(k),
        measured=st.measured[k] if st.measured else (),
        resale_curve=st.inputs_of[k] in st.resale_curve,
        vouchers=tuple((vid, kind, capped) for vid, kind, capped, applies in st.vouchers
                       if cid in applies),
        revoked=cid in st.revoked)


def candidate(model: Model, st: Structure, cid: str) -> None:
    _candidate(model, st, cid, st.inputs_of[st.candidates.index(cid)], shape(st, cid))


def _candidate(model: Model, st: Structure, cid: str, inputs_of: str, sh: Shape) -> None:
    """`cid`'s quantities: what shapes them is `sh`, or shared by every candidate of `st`."""
    b = Builder(model, cid, inputs_of, st.site(sh.site))
    money, horizon, stack = st.currency, st.horizon_years, sh.stack
    owned = sh.acquire != modes.RENT  # buy, or hybrid (buy and rent what it cannot do)
    priced_rent = sh.priced_rent  # the card has a cloud price (always, when rented)
    cl = cluster(b)
    links, team = bandwidths(b), software_factor(b, stack)
    serves: dict[str, Serving] = {}
    runs: dict[str, Run] = {}
    serve_team = serving_team(b, stack) if any(k == "serve" for _w, _p, k in st.workloads) \
        else None
    for wid, precision, kind in st.workloads:
        if kind == "serve":
            assert serve_team is not None
            serves[wid] = serving(b, wid, st.allowed(wid), cl, links[0], serve_team,
                                  st.objectives, peak_must_fit=sh.acquire in (modes.BUY, modes.LEASE),
                                  speculative=wid in st.speculative, measured=sh.measured)
            runs[wid] = serves[wid].run
        else:
            runs[wid] = training_run(b, wid, precision, cl, links, team)
    # the workloads it carries (all unless assigned): their runs are its demand and its plan
    carried = {wid: r for wid, r in runs.items() if not sh.assigned or wid in sh.assigned}
    limits = within_power_budget(b, cl, owned)  # the site's power budget, if it has one
    feasible = feasibility(b, sh.sizing, next(iter(carried.values())),
                           list(carried.values()), cl, limits)
    held = held_stock(b, cl, sh.held, money, sh.held_by_age) if sh.held else None
    waits = None if held is None else IF(held.bought_share.gt(0), 1, 0)
    leased = sh.acquire == modes.LEASE
    kinds = {wid: kind for wid, _precision, kind in st.workloads}
    cx = (capex(b, cl, money, storage_tb(b, [(wid, kinds[wid]) for wid in carried], cl,
                                         st.storage_per_card), held, leased)
          if owned else no_capex(b, money))
    h = hours(b, carried, owned)
    # a rented option's rent is priced below (tco.model.cloud.rental); a hybrid rents its
    # peaks and the bridge as they come: on demand when the tier is a reservation
    rent_price: Expr = (IF(b.c("rent_reserved_fraction").gt(0),
                           b.c("on_demand_price_per_card_hour"), b.c("cloud_price_per_card_hour"))
                        if priced_rent else Const(0.0))
    phases = sh.deliveries if owned else 0
    run = running(b, cl, cx, h, stack, horizon, money, owned, rent_price, leased,
                  sh.resale_curve and not leased)
    work = delivered(b, carried, h)
    tl = timeline(b, horizon, stack, owned, money, waits, phases,
                  bridged=sh.acquire == modes.HYBRID, revoked=sh.revoked)
    plan = plan_work(b, horizon, tl, h.demand, h.available, sh.acquire)
    ls = lease(b, cx, Ref(f"{cid}.delivery_years"), horizon, money) if leased else None
    rented = None if owned else rental(b, cl, tl, work, plan, horizon, money)
    if rented is not None:  # its runs are charged at the tier it rents at
        run = replace(run, rent_price=rented.price)
    m = Money(cx, run, cl, h, work, plan, owned, ls, None if rented is None else rented.flows,
              sh.vouchers)
    components: list[dict[str, Ref]] = []
    flows = cash_flows(b, horizon, m, tl, money, components)
    hz = horizon_results(b, horizon, flows, work, plan, money)
    # what it bought (net of VAT; a lessee its cooling and installation), held stock as if
    # bought at its resale price; a unit is one server (its cards and chassis)
    basis = (cx.total if cx.held is None else cx.total + cx.held) if owned else None
    per_server = (cx.cards + cx.servers) / MAX(cl.nodes, 1) if owned else None
    after_tax(b, horizon, components, flows, basis,
              tax_schedule(st.tax_depreciation, st.tax_table, per_server), leased, money)
    able: Expr = feasible  # runs every workload within its limits, the plan aside
    if sh.sizing == "plan":  # cards: auto, sized to deliver the plan
        able = AND(feasible, *limits) if limits else feasible
        feasible = plan_target(b, feasible, Ref(f"{cid}.plan_delivered_fraction"), limits)
    partial = len(carried) < len(runs)
    if sh.shortfall_rent:
        shortfall_cost(b, horizon, work, plan, hz, money, priced_rent, sh.closing, able,
                       sh.barred, partial)
    tier(b, feasible, sh.barred, Ref(f"{cid}.plan_delivered_fraction"), partial=partial)
    job_costs(b, runs, cx, run, h, work, horizon, money, owned, ls)
    for wid, sv in serves.items():
        token_costs(b, wid, sv, Ref(f"{cid}.{wid}.cost_per_job"), money)
    workload_costs(b, carried, work, hz, money)  # after token_costs: its prompt share
    if sh.acquire in (modes.BUY, modes.LEASE) and priced_rent:
        renting(b, cl, h, run, work, hz, horizon, money, leased)
