"""The rules of the decision, each defined once (issue 26): which option may be recommended,
which delivers the plan, which carries only a part of it, which portfolio may be used, the
ranking tier and order, which kind of recommendation wins, and whether a plan delivers.

Every output asks these functions (tests/test_decide_rules.py checks that no other module
re-derives them); the live page runs CHOICE as generated JavaScript (tco.exporters.live).
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import decision_npv, rank, tier
from ..expr import AND, IF, Expr, Ref
from ..result import CandidateResult, PortfolioResult, Result

__all__ = [
    "CHOICE",
    "PLAN_COMPLETE",
    "barred",
    "barred_here",
    "best_api",
    "best_portfolio",
    "choice",
    "complete",
    "delivers",
    "eligible",
    "part_only",
    "plan_delivered_fraction",
    "plan_delivers",
    "portfolio_usable",
    "rank",
    "single",
    "tier",
    "usable",
]

# `tier` (the model's ranking tier, 3 when unpriced) and `rank` (by tier, then NPV, then
# id) are the engine's: it ranks the options as it assembles the Result. They are re-exported
# here so that every output reads every rule from one module.

PLAN_COMPLETE = 1 - 1e-9  # a plan's delivered share at or above this is all of it


def usable(c: CandidateResult) -> bool:
    """May be recommended alone: feasible, priced, not barred here, and carrying every
    workload of the plan (one carrying part of it is recommended only in a portfolio)."""
    return c.feasible and c.priced and not c.info.blocking and not c.info.workloads


def delivers(c: CandidateResult) -> bool:
    """May be recommended alone and delivers the whole plan (tier 0)."""
    return usable(c) and int(c.values["tier"]) == 0


def part_only(c: CandidateResult) -> bool:
    """May be used here but carries only a part of the plan (recommended only in a
    portfolio)."""
    return c.feasible and c.priced and not c.info.blocking and bool(c.info.workloads)


def complete(c: CandidateResult) -> bool:
    """Feasible and delivers every run of every workload over the horizon (whether or not
    it may be used here)."""
    return c.feasible and c.completes_all_runs


def barred_here(c: CandidateResult) -> bool:
    """Feasible, but barred here (export control, licence): never recommended."""
    return c.feasible and bool(c.info.blocking)


def eligible(c: CandidateResult) -> bool:
    """Could be recommended, alone or in a portfolio: tier 0 or 1 (feasible, not barred)."""
    return tier(c) <= 1


def barred(result: Result, p: PortfolioResult) -> list[str]:
    """The options of the portfolio that are barred here (export control, licence)."""
    return [oid for oid in p.options if result.candidate(oid).info.blocking]


def portfolio_usable(result: Result, p: PortfolioResult) -> bool:
    """A portfolio may be used here: feasible, and none of its options barred."""
    return p.feasible and not barred(result, p)


def single(result: Result) -> CandidateResult | None:
    """The best-ranked option that carries the whole plan, unless it is infeasible or barred
    (export, licence). An option carrying part of the plan ranks with the options short of it
    (tier 1) but is recommended only in a portfolio: alone it leaves a workload undone,
    however little it costs."""
    first = next((c for c in result.candidates if not c.info.workloads), None)
    if first is None or not first.feasible or first.info.blocking:
        return None
    return first


def best_portfolio(result: Result) -> PortfolioResult | None:
    """The cheapest portfolio that may be used here and delivers the plan."""
    return next((p for p in result.portfolios if portfolio_usable(result, p) and p.tier == 0),
                None)


def best_api(result: Result) -> CandidateResult | None:
    """The cheapest per-token API option that serves the whole plan (a plan that only
    serves); one serving part of it ranks in a portfolio."""
    return next((a for a in result.api_options if int(a.values["tier"]) == 0), None)


# Which kind of recommendation wins (CHOICE), from the NPVs of delivering the plan with the
# best single option that delivers it, the best portfolio that may be used here and delivers
# it, and the best per-token API that serves it (each +inf when there is none): 2 the API (it
# costs less than the single option and no more than the portfolio), 1 the portfolio (it
# costs less than the single option), 0 the single option. An expression tree, so that the
# live page runs this rule as generated JavaScript (tco.exporters.live) instead of a copy.
SINGLE, PORTFOLIO, API = Ref("single"), Ref("portfolio"), Ref("api")
CHOICE: Expr = IF(AND(API.lt(SINGLE), API.le(PORTFOLIO)), 2.0,
                  IF(PORTFOLIO.lt(SINGLE), 1.0, 0.0))


def choice(single_option: CandidateResult | None, port: PortfolioResult | None,
           api: CandidateResult | None, basis: str = "pre_tax") -> int:
    """CHOICE for these (None: there is none), on the NPV of the decision basis
    (`Structure.decision_basis`, methodology §20), as the engine ranks them."""
    def npv(x: CandidateResult | PortfolioResult | None) -> float:
        return math.inf if x is None else decision_npv(x.values, basis)

    return int(CHOICE.evaluate({"single": npv(single_option), "portfolio": npv(port),
                                "api": npv(api)}))


def plan_delivered_fraction(p: Any) -> float:
    """The smallest share of any workload's demand a plan (tco.plan.PlanResult) meets in
    time (1 when it has no workload)."""
    return min(((w.get("delivered_fraction") or 0.0) for w in p.workloads.values()),
               default=1.0)


def plan_delivers(p: Any) -> bool:
    """Whether a plan meets every workload's demand in time."""
    return plan_delivered_fraction(p) >= PLAN_COMPLETE
