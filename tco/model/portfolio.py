"""Methodology §14, portfolios: options costed together, each carrying its own workloads.

A portfolio's cost of delivering the plan is the sum of its options' (each option's NPV
already covers only the workloads it carries), less the porting counted twice: options on
the same software stack share one port and its upkeep. Staff and colocation scale with the
cards and kW (per 1,000 cards, per kW), so the options' sum is already the pooled fleet's.
It delivers the plan when every option delivers its part, so its delivered share is the
smallest of theirs; it is feasible when every option is, and barred when any option is. Its tier is the one rule of tier_formula, so
a portfolio ranks against single options on the same basis."""

from __future__ import annotations

from collections.abc import Sequence

from ..expr import AND, MAX, MIN, SUM, Expr, Ref
from ..resolved import Structure
from .base import Builder, Model, fin
from .decision import tier_formula
from .tax import rd_factor


def portfolio(model: Model, st: Structure, pid: str, options: Sequence[str]) -> None:
    b, money = Builder(model, pid), st.currency

    def each(key: str) -> list[Ref]:
        return [Ref(f"{oid}.{key}") for oid in options]

    shared = _shared_porting(b, st, options, money)
    npv: Expr = SUM(*each("npv_tco"))
    flat: Expr = SUM(*each("undiscounted_tco"))
    if shared is not None:
        npv, flat = npv - shared[0], flat - shared[1]
    b.q("npv_tco", npv, money,
        "NPV of delivering the plan with the portfolio: the sum of its options', a stack "
        "ported once", "horizon")
    after: Expr = SUM(*each("npv_tco_after_tax"))
    if shared is not None:  # the port taken back was deducted as paid, an R&D cost
        after = after - shared[0] * (1 - fin("tax_rate") * rd_factor())
    b.q("npv_tco_after_tax", after, money, "NPV of the portfolio after income tax: the sum "
        "of its options', a stack ported once", "horizon")
    b.q("undiscounted_tco", flat, money, "Undiscounted TCO of the portfolio", "horizon")
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


def _shared_porting(b: Builder, st: Structure, options: Sequence[str], money: str
                    ) -> tuple[Ref, Ref] | None:
    """Options of a portfolio on the same software stack share one port: the team ports it
    and keeps it working once. Each option's NPV counts its own port, so the portfolio takes
    back all but the largest of them, stack by stack (one-time at year 0, upkeep each year of
    the horizon). (NPV, undiscounted) taken back; None when no two options share a stack."""
    stacks: dict[str, list[str]] = {}
    for oid in options:
        if oid in st.candidates:  # a per-token API option ports nothing
            stacks.setdefault(st.stacks[st.candidates.index(oid)], []).append(oid)
    twice = [ids for ids in stacks.values() if len(ids) > 1]
    if not twice:
        return None

    def extra(key: str) -> Expr:
        """What counting `key` per option adds over counting it once per stack."""
        return SUM(*[SUM(*[Ref(f"{o}.{key}") for o in ids]) - MAX(*[Ref(f"{o}.{key}")
                                                                     for o in ids])
                     for ids in twice])

    horizon, annuity = st.horizon_years, Ref(f"{twice[0][0]}.annuity_factor")
    once = b.q("shared_porting_one_time", extra("porting_one_time"), money,
               "Porting counted again by options on a stack already ported (taken back)",
               "horizon")
    upkeep = b.q("shared_porting_maintenance_per_year", extra("porting_maintenance_per_year"),
                 money, "Port upkeep counted again by options on the same stack, per year "
                 "(taken back)", "horizon")
    npv = b.q("shared_porting_npv", once + annuity * upkeep, money,
              "NPV taken back for porting a stack once in the portfolio", "horizon")
    return npv, once + horizon * upkeep
