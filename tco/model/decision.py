"""Methodology §12 and §14: whether a candidate is feasible, and its ranking tier. The one rule
that sizing, the ranking, Monte Carlo (per draw) and the workbook (live cells) all read; the
engine only puts a failed flag into words (tco.engine.infeasible_reasons)."""

from __future__ import annotations

from ..expr import AND, IF, Expr, ExprLike, Ref, lift
from .base import Builder
from .cluster import Cluster
from .training import Run
from .units import COMPLETE_FRACTION


def within_power_budget(b: Builder, cl: Cluster, owned: bool) -> list[Ref]:
    """An owned cluster at a site with a power budget draws no more facility power than the
    site can supply (`within_power_budget`); [] when no budget applies (a rented cluster runs
    in the cloud's facility)."""
    budget = b.site().power_budget_kw
    if budget is None or not owned:
        return []
    return [b.q("within_power_budget", cl.facility_kw.le(budget), "flag",
                "Facility power within the site's power budget", "cluster")]


def feasibility(b: Builder, sizing: str, primary: Run, runs: list[Run], cl: Cluster,
                limits: list[Ref] | None = None) -> Ref:
    """`runnable`, the sizing target's flag (a deadline or a power cap) and `feasible`, which
    also requires every flag of `limits` (the site's power budget)."""
    c, q = b.c, b.q
    limits = limits or []
    runnable = q("runnable", AND(*[r.feasible for r in runs]), "flag",
                 "Runs every workload: fits in memory and makes progress", "cluster")
    within = " and within the site's power budget" if limits else ""
    if sizing == "deadline_days":
        target = q("meets_deadline", primary.wall_d.le(c("deadline_days")), "flag",
                   "A run of the primary workload finishes within the deadline", "cluster")
        return q("feasible", AND(runnable, target, *limits), "flag",
                 f"Feasible: runs every workload and meets the deadline{within}", "cluster")
    if sizing == "power_cap_kw":
        target = q("within_power_cap", cl.facility_kw.le(c("power_cap_kw")), "flag",
                   "Facility power within the power cap", "cluster")
        return q("feasible", AND(runnable, target, *limits), "flag",
                 "Feasible: runs every workload within the power cap"
                 + (" and the site's power budget" if limits else ""), "cluster")
    if sizing == "plan":  # cards: auto; the target is set after the plan (plan_target)
        return runnable
    if limits:
        return q("feasible", AND(runnable, *limits), "flag",
                 "Feasible: runs every workload within the site's power budget", "cluster")
    return q("feasible", runnable, "flag", "Feasible: runs every workload", "cluster")


def plan_target(b: Builder, runnable: Ref, delivered_fraction: Ref,
                limits: list[Ref] | None = None) -> Ref:
    """`cards: auto`: the cluster must deliver the whole plan over the horizon (sizing picks
    the smallest that does), within `limits` (the site's power budget)."""
    limits = limits or []
    target = b.q("meets_plan", delivered_fraction.ge(COMPLETE_FRACTION), "flag",
                 "Delivers the whole plan over the horizon (the size target of cards: auto)",
                 "cluster")
    within = " within the site's power budget" if limits else ""
    return b.q("feasible", AND(runnable, target, *limits), "flag",
               f"Feasible: runs every workload and delivers the plan{within}", "cluster")


def tier_formula(feasible: ExprLike, barred: bool, completed_fraction: ExprLike,
                 partial: bool = False) -> Expr:
    """The ranking tier: 0 feasible, may be bought and completes every planned run; 1 may be
    bought but completes fewer (or carries only some workloads: `partial`, a portfolio's
    part); 2 feasible but barred (export control, licence); 3 infeasible.
    Every candidate ranks by (tier, NPV of TCO): the engine on floats, Monte Carlo on arrays of
    draws and the workbook as a live formula all read this one quantity."""
    allowed: Expr = (lift(1.0) if partial
                     else IF(lift(completed_fraction).ge(COMPLETE_FRACTION), 0.0, 1.0))
    return IF(lift(feasible), 2.0 if barred else allowed, 3.0)


def tier(b: Builder, feasible: Ref, barred: bool, completed_fraction: Ref,
         partial: bool = False) -> Ref:
    return b.q("tier", tier_formula(feasible, barred, completed_fraction, partial), "tier",
               "Ranking tier: 0 delivers every run, 1 fewer runs (or only some workloads), "
               "2 barred here, 3 infeasible", "horizon")
