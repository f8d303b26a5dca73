"""Methodology §14, portfolios: options costed together, each carrying its own workloads.

A portfolio's cost of delivering the plan is the sum of its options' (each option's NPV
already covers only the workloads it carries); it delivers the plan when every option
delivers its part, so its delivered share is the smallest of theirs; it is feasible when
every option is, and barred when any option is. Its tier is the one rule of tier_formula, so
a portfolio ranks against single options on the same basis."""

from __future__ import annotations

from collections.abc import Sequence

from ..expr import AND, MIN, SUM, Ref
from ..resolved import Structure
from .base import Builder, Model
from .decision import tier_formula


def portfolio(model: Model, st: Structure, pid: str, options: Sequence[str]) -> None:
    b, money = Builder(model, pid), st.currency

    def each(key: str) -> list[Ref]:
        return [Ref(f"{oid}.{key}") for oid in options]

    b.q("npv_tco", SUM(*each("npv_tco")), money,
              "NPV of delivering the plan with the portfolio: the sum of its options'", "horizon")
    b.q("undiscounted_tco", SUM(*each("undiscounted_tco")), money,
        "Undiscounted TCO of the portfolio", "horizon")
    b.q("capex_total", SUM(*each("capex_total")), money, "Capex of the portfolio", "horizon")
    done = b.q("plan_delivered_fraction", MIN(*each("plan_delivered_fraction")), "fraction",
               "Share of the plan delivered: the smallest share any option delivers of its "
               "part", "horizon")
    feasible = b.q("feasible", AND(*each("feasible")), "flag",
                   "Feasible: every option runs its workloads", "cluster")
    b.q("plan_shortfall_runs", SUM(*each("plan_shortfall_runs")), "runs",
        "Planned runs still waiting at the horizon, over every option", "horizon")
    barred = any(oid in st.barred for oid in options)
    b.q("tier", tier_formula(feasible, barred, done), "tier",
        "Ranking tier of the portfolio (the options' rule)", "horizon")
