"""The rules of the decision, each defined once (issue 26): which option may be recommended,
which delivers the plan, which carries only a part of it, which portfolio may be used, the
ranking tier and order, which kind of recommendation wins, and whether a plan delivers.

Every output asks these functions (tests/test_decide_rules.py checks that no other module
re-derives them). The rules on one option, portfolio or API and the choice between them are
expression trees (RULES, CHOICE) over an option's facts (FACTS: 1 or 0, fixed for a Result)
and two of its model quantities (its tier and delivered share): Python evaluates them here,
and the live page runs the same trees as generated JavaScript (tco.exporters.live), its inputs
moving the quantities.
"""

from __future__ import annotations

import math
from typing import Any

from ..engine import decision_npv, rank, tier
from ..expr import AND, IF, Expr, Ref
from ..model import COMPLETE_FRACTION
from ..result import CandidateResult, PortfolioResult, Result

__all__ = [
    "CHOICE",
    "FACTS",
    "PLAN_COMPLETE",
    "QUANTITIES",
    "RULES",
    "barred",
    "barred_here",
    "best_api",
    "best_portfolio",
    "choice",
    "complete",
    "delivers",
    "eligible",
    "facts",
    "part_only",
    "plan_delivered_fraction",
    "plan_delivers",
    "portfolio_delivers",
    "portfolio_facts",
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


# An option's facts, each 1 or 0: feasible; priced (the model computed its numbers); barred
# here (export control, licence); carrying only part of the plan (`workloads:`, recommended
# only in a portfolio); carrying every workload it has figures for. A portfolio's are
# feasible and barred (one of its options is).
FACTS = ("feasible", "priced", "barred", "part", "whole")
# the model quantities the rules read, which the live page's inputs move
QUANTITIES = ("tier", "plan_delivered_fraction")
FEASIBLE, PRICED, BARRED, PART, WHOLE = (Ref(name) for name in FACTS)
TIER, DELIVERED = (Ref(name) for name in QUANTITIES)


def _no(fact: Ref) -> Expr:
    return 1 - fact  # facts are 1 or 0


RULES: dict[str, Expr] = {
    # may be recommended alone: feasible, priced, not barred, carrying the whole plan
    "usable": AND(FEASIBLE, PRICED, _no(BARRED), _no(PART)),
    # may be recommended alone and delivers the whole plan (tier 0)
    "delivers": AND(FEASIBLE, PRICED, _no(BARRED), _no(PART), TIER.lt(1)),
    # may be used here but carries only part of the plan (recommended only in a portfolio)
    "part_only": AND(FEASIBLE, PRICED, _no(BARRED), PART),
    # delivers every run of every workload over the horizon (whether or not it may be used)
    "complete": AND(FEASIBLE, PRICED, WHOLE, DELIVERED.ge(COMPLETE_FRACTION)),
    # feasible, but barred here: never recommended
    "barred_here": AND(FEASIBLE, BARRED),
    # the best-ranked option carrying the whole plan leads unless infeasible or barred
    "may_lead": AND(FEASIBLE, _no(BARRED)),
    # a portfolio that may be used here and delivers the plan
    "portfolio_delivers": AND(FEASIBLE, _no(BARRED), TIER.lt(1)),
    # a per-token API option that serves the whole plan
    "api_delivers": TIER.lt(1),
}


def facts(c: CandidateResult) -> dict[str, float]:
    """The option's FACTS, 1 or 0."""
    return {"feasible": float(c.feasible), "priced": float(c.priced),
            "barred": float(bool(c.info.blocking)), "part": float(bool(c.info.workloads)),
            "whole": float(all(c.info.carries(wid) for wid in c.jobs))}


def portfolio_facts(result: Result, p: PortfolioResult) -> dict[str, float]:
    """A portfolio's FACTS (feasible; barred: one of its options is)."""
    return {"feasible": float(p.feasible), "barred": float(bool(barred(result, p)))}


def _holds(rule: str, known: dict[str, float], values: dict[str, float]) -> bool:
    env = {**known, **{q: values.get(q, math.nan) for q in QUANTITIES}}
    return RULES[rule].evaluate(env) != 0


def usable(c: CandidateResult) -> bool:
    """May be recommended alone: feasible, priced, not barred here, and carrying every
    workload of the plan (one carrying part of it is recommended only in a portfolio)."""
    return _holds("usable", facts(c), c.values)


def delivers(c: CandidateResult) -> bool:
    """May be recommended alone and delivers the whole plan (tier 0)."""
    return _holds("delivers", facts(c), c.values)


def part_only(c: CandidateResult) -> bool:
    """May be used here but carries only a part of the plan (recommended only in a
    portfolio)."""
    return _holds("part_only", facts(c), c.values)


def complete(c: CandidateResult) -> bool:
    """Feasible and delivers every run of every workload over the horizon (whether or not
    it may be used here)."""
    return _holds("complete", facts(c), c.values)


def barred_here(c: CandidateResult) -> bool:
    """Feasible, but barred here (export control, licence): never recommended."""
    return _holds("barred_here", facts(c), c.values)


def eligible(c: CandidateResult) -> bool:
    """Could be recommended, alone or in a portfolio: tier 0 or 1 (feasible, not barred)."""
    return tier(c) <= 1


def barred(result: Result, p: PortfolioResult) -> list[str]:
    """The options of the portfolio that are barred here (export control, licence)."""
    return [oid for oid in p.options if result.candidate(oid).info.blocking]


def portfolio_usable(result: Result, p: PortfolioResult) -> bool:
    """A portfolio may be used here: feasible, and none of its options barred."""
    return p.feasible and not barred(result, p)


def portfolio_delivers(result: Result, p: PortfolioResult) -> bool:
    """A portfolio may be used here and delivers the plan."""
    return _holds("portfolio_delivers", portfolio_facts(result, p), p.values)


def single(result: Result) -> CandidateResult | None:
    """The best-ranked option that carries the whole plan, unless it is infeasible or barred
    (export, licence). An option carrying part of the plan ranks with the options short of it
    (tier 1) but is recommended only in a portfolio: alone it leaves a workload undone,
    however little it costs."""
    first = next((c for c in result.candidates if not c.info.workloads), None)
    if first is None or not _holds("may_lead", facts(first), first.values):
        return None
    return first


def best_portfolio(result: Result) -> PortfolioResult | None:
    """The cheapest portfolio that may be used here and delivers the plan."""
    return next((p for p in result.portfolios if portfolio_delivers(result, p)), None)


def best_api(result: Result) -> CandidateResult | None:
    """The cheapest per-token API option that serves the whole plan (a plan that only
    serves); one serving part of it ranks in a portfolio."""
    return next((a for a in result.api_options if _holds("api_delivers", {}, a.values)), None)


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
