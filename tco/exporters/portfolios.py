"""Portfolios (options costed together, tco/model/portfolio.py) in JSON and the CLI table."""

from __future__ import annotations

from typing import Any

from ..decide.rules import barred
from ..result import Result
from .fmt import money

KEYS = ("npv_tco", "npv_tco_after_tax", "undiscounted_tco", "capex_total", "plan_delivered_fraction",
        "plan_shortfall_runs")


def portfolios_json(result: Result) -> list[dict[str, Any]]:
    """`portfolios` in `tco compare` JSON, ranked like the candidates."""
    out = []
    for p in result.portfolios:
        d: dict[str, Any] = {"id": p.id, "name": p.name, "options": list(p.options),
                             "carries": {oid: result.candidate(oid).carries
                                         for oid in p.options},
                             "feasible": p.feasible, "barred": barred(result, p),
                             "tier": p.tier}
        d.update({k: p.values[k] if p.feasible else None for k in KEYS})
        out.append(d)
    return out


def portfolio_block(result: Result) -> str:
    """Under the CLI table: each portfolio, its options and what they carry, its NPV."""
    if not result.portfolios:
        return ""
    cur, lines = result.currency, []
    for p in result.portfolios:
        parts = " + ".join(f"{oid} ({', '.join(result.candidate(oid).carries)})"
                           for oid in p.options)
        if not p.feasible:
            state = "infeasible: an option cannot run its workloads"
        else:
            state = (f"NPV {money(p.values['npv_tco'], cur)}, delivers "
                     f"{p.values['plan_delivered_fraction']:.0%} of the plan")
            if barred(result, p):
                state += f"; barred here ({', '.join(barred(result, p))})"
        lines.append(f"  {p.id}: {parts}: {state}")
    return "\nPortfolios (options costed together, each carrying its workloads):\n" + \
        "\n".join(lines) + "\n"
