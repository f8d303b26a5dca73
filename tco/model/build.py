"""build_model(structure) -> Model: each candidate's quantities, chapter by chapter, in the
order docs/methodology.md describes them (§3 to §10, with §12 and §14's feasibility and tier)."""

from __future__ import annotations

from ..resolved import Structure
from .base import Builder, Model
from .capex import capex
from .cashflows import cash_flows, horizon_results
from .cloud import renting
from .cluster import cluster
from .decision import feasibility, tier
from .jobcost import job_costs
from .operations import delivered, hours, running
from .step import bandwidths
from .training import software_factor, training_run


def build_model(structure: Structure) -> Model:
    model = Model(structure)
    for cid in structure.candidates:
        candidate(model, structure, cid)
    return model


def candidate(model: Model, st: Structure, cid: str) -> None:
    b = Builder(model, cid)
    money, horizon = st.currency, st.horizon_years
    k = st.candidates.index(cid)
    cl = cluster(b)
    links, team = bandwidths(b), software_factor(b, st.stacks[k])
    runs = {wid: training_run(b, wid, precision, cl, links, team)
            for wid, precision, _kind in st.workloads}
    feasible = feasibility(b, st.sizing[k], runs[st.workloads[0][0]], list(runs.values()), cl)
    cx = capex(b, cl, money)
    h = hours(b, runs)
    tier(b, feasible, cid in st.barred, h.share_done)
    run = running(b, cl, cx, h, st.stacks[k], horizon, money)
    work = delivered(b, runs, h)
    flows = cash_flows(b, horizon, cx, run, money)
    hz = horizon_results(b, horizon, flows, work, money)
    job_costs(b, runs, cx, run, h, work, horizon, money)
    if cid in st.rent:
        renting(b, cl, h, run, work, hz, horizon, money)
