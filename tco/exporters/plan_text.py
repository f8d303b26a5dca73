"""The plan (tco.plan, methodology §19) in words and figures every output shares, and its block
of the `tco compare` table: the plan's NPV, its dated actions, each workload's delivery and
cost, the plans restricted to each typed option and the value of flexibility.

Dates count from the scenario's `start` (YYYY-MM): a plan action at 7 months after the decision
of a scenario starting 2027-01 is "2027-08". Without a start they are "month 7" (months after
the decision, month 0 being the decision's own). Presentation only: every figure is the plan's
(`Result.plans`, the same numbers as JSON's `plan`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ..errors import printable
from ..result import Result
from .fmt import money, no_whole_run, number, runs_text
from .plan_view import delivers
from .plan_words import (
    MONTHS_PER_YEAR,
    month_label,
    months_of,
    wait_text,
)


def cards_per_server(result: Result, option: str) -> float:
    """Cards in one server of a typed option (its `cards_per_node` input)."""
    return float(result.env.get(f"candidates.{option}.cards_per_node", 1.0) or 1.0)


def card_name(result: Result, option: str) -> str:
    try:
        return result.candidate(option).info.card_name
    except (KeyError, StopIteration, ValueError):
        return option


def api_name(result: Result, option: str) -> str:
    for a in result.api_options:
        if a.id == option:
            return a.info.name
    return option


def workload_kinds(result: Result) -> dict[str, str]:
    return {wid: kind for wid, _precision, kind in result.structure.workloads}


@dataclass(frozen=True)
class Restricted:
    """A plan restricted to one typed option (or portfolio), beside the optimal one."""

    option: str
    npv_tco: float
    delivers: bool
    delivered_fraction: float
    npv_decision: float  # what plans are compared on: after tax on that basis (PlanResult)


def restricted_plans(result: Result) -> list[Restricted]:
    """The restricted plans, cheapest first among those that deliver, then the others."""
    return sorted(restricted_plans_in_order(result),
                  key=lambda r: (not r.delivers, r.npv_decision))


def flexibility(result: Result) -> tuple[float, str] | None:
    """The value of flexibility (docs/json.md `plan.value_of_flexibility`): the cheapest
    restricted plan that delivers the whole demand, less the optimal plan, on the NPV the plans
    are compared on (after tax on that basis); with that plan's option. None when no
    restricted plan delivers."""
    best = result.plans[0]
    for r in restricted_plans(result):
        if r.delivers:
            return r.npv_decision - best.npv_decision, r.option
    return None


# --- the `tco compare` table's block ----------------------------------------------------------


def action_text(result: Result, a: Any) -> str:
    """One dated action in English, e.g. "2027-01  buy 24 servers (192 cards) of H100 SXM
    (h100-sxm)"."""
    when = month_label(result, a.start_years)
    until = month_label(result, a.end_years)
    card = printable(card_name(result, a.option)) if a.card else ""
    if a.action in ("buy", "lease"):
        per = cards_per_server(result, a.option)
        servers = a.quantity / per
        noun = "server" if round(servers) == 1 else "servers"
        what = (f"{a.action} {number(servers, 0)} {noun} ({number(a.quantity, 0)} cards) of "
                f"{card} ({a.option})")
        if a.action == "lease":
            what += f", until {until}"
        return f"{when}  {what}"
    if a.action == "sell":
        return (f"{when}  end of the horizon: the {number(a.quantity, 0)} {card} cards bought "
                f"({a.option}) are worth their book value")
    if a.action == "rent" and a.unit == "cards":
        term = {"committed": "a 1-year", "committed_3yr": "a 3-year"}.get(a.tier, a.tier)
        return (f"{when}  reserve {number(a.quantity, 0)} {card} cards ({a.option}) for "
                f"{term} term, until {until}")
    if a.action == "rent":
        tier = {"on_demand": "on demand", "spot": "at spot"}.get(a.tier, a.tier)
        last = month_label(result, a.end_years - 1 / MONTHS_PER_YEAR)
        span = when if last == when else f"{when} to {last}"
        return (f"{span}  rent {number(a.quantity, 0)} {card} card-hours {tier} "
                f"({a.option})")
    if a.action == "api":
        last = month_label(result, a.end_years - 1 / MONTHS_PER_YEAR)
        span = when if last == when else f"{when} to {last}"
        return (f"{span}  call {printable(api_name(result, a.option))} ({a.option}) for "
                f"{number(a.quantity / 1e6, 0)} million tokens a day on average")
    return f"{when}  {a.action} {number(a.quantity, 0)} {a.unit} ({a.option})"  # pragma: no cover


def workload_text(result: Result, wid: str, w: dict[str, Any]) -> str:
    cur = result.currency
    kind = workload_kinds(result).get(wid, "pretrain")
    first = w.get("first_delivery_years")
    runs = w.get("runs_delivered")
    when = "never" if first is None else month_label(result, first) + (
        f" ({months_of(first)} months after the decision)"
        if getattr(result.scenario, "start", None) else "")
    share = w.get("delivered_fraction") or 0.0
    if kind == "serve":
        cost = w.get("cost_per_million_output_tokens")
        what = f"{money(cost, cur)} per million output tokens" if cost is not None else "n/a"
        return (f"    {wid} (serve): first traffic carried {when}; {share:.0%} of its traffic "
                f"carried; {what}")
    cost = w.get("cost_per_run")
    noun = "fine-tune" if kind == "finetune" else "pre-training run"
    what = f"{money(cost, cur)} per {noun}" if cost is not None else "n/a"
    done = f"{runs_text(runs)} runs, " if runs is not None else ""
    # fewer runs over the horizon than one (0.01 a year): no first run, but work done
    lead = ("no whole run in the horizon" if first is None and no_whole_run(runs)
            else f"first run done by {when}")
    return (f"    {wid} ({kind}): {lead}; {done}{share:.0%} of its runs in their windows; "
            f"{what}")


def plan_block(result: Result) -> str:
    """The plan under the options' table (empty when the planner has no plan)."""
    if not result.plans:
        return ""
    best, cur = result.plans[0], result.currency
    start = getattr(result.scenario, "start", None)
    origin = f"from {start}" if start else "in months after the decision (month 0)"
    state = "delivers every workload in time" if delivers(best) else (
        "leaves some work undone (priced at its fallback)")
    lines = [(f"\nPlan (the cheapest way to do all the work: what to buy, lease, rent or call, "
             f"and when; {best.shape.months}-month periods, dated {origin}):"),
             f"  NPV {money(best.npv_tco, cur)}{_after_tax(best, cur)}, {state}"
             + (f"; solver status {best.status}" if best.status != "optimal" else ""),
             "  Actions:"]
    lines += [f"    {action_text(result, a)}" for a in best.actions] or ["    none"]
    lines += [f"  Why it waits: {wait_text(result, w)}" for w in best.waits]
    lines.append("  Workloads (delivery, and cost at the price the plan pays):")
    lines += [workload_text(result, wid, w) for wid, w in best.workloads.items()]
    rest = restricted_plans(result)
    taxed = best.basis == "after_tax"
    if rest:
        lines.append("  Plans restricted to one typed option (each sized and timed by the "
                     "planner):")
        width = max(len(r.option) for r in rest)
        for r in rest:
            state = "delivers" if r.delivers else f"delivers {r.delivered_fraction:.0%}"
            after = f", after tax {money(r.npv_decision, cur)}" if taxed else ""
            lines.append(f"    {r.option.ljust(width)}  NPV {money(r.npv_tco, cur)}{after}, "
                         f"{state}")
    flex = flexibility(result)
    if flex is not None:
        lines.append(f"  Value of flexibility{' after tax' if taxed else ''}: "
                     f"{money(flex[0], cur)} (the cheapest restricted plan that delivers, "
                     f"{flex[1]}, less the plan)")
    else:
        lines.append("  Value of flexibility: n/a (no plan restricted to one option delivers "
                     "all the work)")
    return "\n".join(lines) + "\n"


def _after_tax(plan: Any, cur: str) -> str:
    """", after tax X (planned on it)" where the plans are chosen after tax, else nothing."""
    if plan.basis != "after_tax":
        return ""
    return f", after tax {money(plan.npv_tco_after_tax, cur)} (planned on the NPV after tax)"


def plan_csv_rows(result: Result) -> list[dict[str, Any]]:
    """The compare CSV's rows of `acquire` `plan`: the plan, then each restricted plan, with
    the table's columns they have (id, name, whether it delivers as `feasible`, NPV; what a
    restricted plan delivers in `notes`). The dated actions and costs per period do not fit
    one row of the one table: they are in JSON (`plan`), the workbook and the report."""
    if not result.plans:
        return []
    best = result.plans[0]
    rows = [{"id": best.id, "name": "Plan (cheapest over every supply)", "card": "",
             "acquire": "plan", "feasible": delivers(best), "npv_tco": best.npv_tco,
             "notes": [] if delivers(best) else ["leaves some work undone"]}]
    for p, r in zip(result.plans[1:], restricted_plans_in_order(result)):
        rows.append({"id": p.id, "name": f"Plan restricted to {p.option}", "card": "",
                     "acquire": "plan", "feasible": r.delivers, "npv_tco": p.npv_tco,
                     "notes": [] if r.delivers else
                     [f"delivers {r.delivered_fraction:.0%} of the work in time"]})
    return rows


def restricted_plans_in_order(result: Result) -> list[Restricted]:
    """The restricted plans in the planner's order (that of `Result.plans[1:]`)."""
    out = []
    for p in result.plans[1:]:
        share = min((w.get("delivered_fraction") or 0.0) for w in p.workloads.values()) \
            if p.workloads else 1.0
        out.append(Restricted(p.option, p.npv_tco, delivers(p), share, p.npv_decision))
    return out


# --- capacity against the work, per period (the report's chart) -------------------------------

SOURCES = ("owned", "leased", "reserved", "on_demand", "spot", "api")
HOURS_PER_YEAR = 8760.0  # tco.model.units.HOURS_PER_YEAR: the plan's hours in a period


def capacity(result: Result, p: Any) -> tuple[dict[str, list[float]], list[float]]:
    """Per period of plan `p`: the accelerators each source gives (owned and leased servers
    installed, cards reserved: all their cards; on demand and spot: the card-hours rented over
    the period's hours; an API: the share of traffic it carries as the accelerators that share
    keeps busy on the card carrying the rest of that workload, else on the first that could),
    and the accelerators busy with the plan's work (card-hours of work over the period's hours,
    the API's equivalent included). Units: accelerators, averaged over the period."""
    shape, env, values = p.shape, result.env, p.inputs_values
    m, P = shape.months, shape.periods
    hours = HOURS_PER_YEAR * m / MONTHS_PER_YEAR
    out = {s: [0.0] * P for s in SOURCES}
    busy = [0.0] * P
    terms = {"committed": 12, "committed_3yr": 36}
    lease_periods = math.ceil(shape.lease_term_months / m - 1e-9) if shape.lease_term_months else 0
    carried: dict[str, dict[str, float]] = {}  # serving workload -> supply -> share carried
    for key, v in values.items():
        if key[0] == "serve":
            carried.setdefault(key[3], {}).setdefault(key[2], 0.0)
            carried[key[3]][key[2]] += v
    for key, v in values.items():
        kind = key[0]
        if kind in ("buy", "lease"):
            s, j = key[1], int(key[2])
            lead = round(float(p.env.get(f"{p.id}.{s}.lead_periods", 0.0)))
            cards = v * cards_per_server(result, s)
            end = P if kind == "buy" else min(P, j + lead + lease_periods)
            for k in range(j + lead, end):
                out["owned" if kind == "buy" else "leased"][k] += cards
        elif kind == "reserve":
            j = int(key[3])
            for k in range(j, min(P, j + terms.get(key[2], 12) // m)):
                out["reserved"][k] += v
        elif kind in ("work", "serve"):
            src, s, wid, k = key[1], key[2], key[3], int(key[4])
            cards = (v * float(env.get(f"{s}.{wid}.gpu_hours", 0.0)) / hours if kind == "work"
                     else v * float(env.get(f"{s}.{wid}.average_cards_busy", 0.0)))
            busy[k] += cards
            if src in ("on_demand", "spot"):
                out[src][k] += cards
        elif kind == "api":
            wid, k = key[2], int(key[3])
            on = carried.get(wid, {})
            ref = max(on, key=lambda s: on[s]) if on else next(
                (s for s in shape.supplies if f"{s}.{wid}.average_cards_busy" in env), "")
            cards = v * float(env.get(f"{ref}.{wid}.average_cards_busy", 0.0)) if ref else 0.0
            out["api"][k] += cards
            busy[k] += cards
    return out, busy
