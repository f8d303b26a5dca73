"""The plan in JSON (docs/json.md, `plan`): the cheapest plan's NPV, its dated actions, each
workload's delivery and cost, its costs per period, and the plans restricted to each typed
option beside it with the value of flexibility."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from ..decide.rules import plan_delivered_fraction
from ..decide.rules import plan_delivers as delivers
from ..model.plan import PLAN_COMPONENTS
from ..result import Result
from .plan_words import wait_text


def plan_json(result: Result) -> dict[str, Any] | None:
    if not result.plans:
        return None
    best, others = result.plans[0], result.plans[1:]
    options = [{"option": p.option, "npv_tco": p.npv_tco,
                "npv_tco_after_tax": p.npv_tco_after_tax, "delivers_plan": delivers(p),
                "delivered_fraction": plan_delivered_fraction(p)}
               for p in others]
    # plans are compared on the NPV they were chosen on (after tax on that basis)
    delivering = [p.npv_decision for p in others if delivers(p)]
    return {
        "npv_tco": best.npv_tco,
        "npv_tco_after_tax": best.npv_tco_after_tax,
        "basis": best.basis,
        "status": best.status,
        "delivers_plan": delivers(best),
        "period_months": best.shape.months,
        "actions": [asdict(a) for a in best.actions],
        "workloads": best.workloads,
        "residual_value": best.values.get("residual_value"),
        "owed_after_horizon": best.values.get("owed_after_horizon"),
        "value_of_flexibility": (min(delivering) - best.npv_decision) if delivering else None,
        "facts": [wait_text(result, w) for w in best.waits],
        "waits": [asdict(w) for w in best.waits],
        "options": options,
        "periods": [{"start_years": row["start_years"],
                     **{c: row[c] for c in PLAN_COMPONENTS},
                     "present_value": row["present_value"]} for row in best.periods],
    }
