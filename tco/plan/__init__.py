"""The planner (methodology §19): what to buy, lease, rent or call, and when, so that the
whole plan is done on time at the lowest NPV.

`plan_all(result)` solves the cheapest plan over every supply the scenario offers, and one plan
restricted to each typed option ("only buy 910B", "only rent H100"), so that each option the
user typed is a plan the planner sized and timed, shown beside the optimal one. Each plan's
quantities then become inputs (`plans.<plan>.<key>`) and its money quantities of a model of
its own (`PlanResult.model`, tco.model.plan) that reads the scenario's model: every output
costs it from the same formulas.
"""

from __future__ import annotations

import math
from collections import ChainMap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import modes
from ..errors import TcoError
from ..model.plan import (
    PLAN_COMPONENTS,
    PlanShape,
    Supply,
    plan_money,
)
from .build import fallbacks, problem, restricted
from .problem import TERM_MONTHS, Allowed, Problem
from .solve import Solution, program_of, solve

if TYPE_CHECKING:
    from ..model import Model

OPTIMAL = "plan"
# the solver's columns that follow from the others (what is held, what vouchers pay): not
# quantities of the plan; its money computes them (tco.model.plan)
DERIVED = ("owned", "reserved", "voucher")
ROUND_TOLERANCE = 1e-6  # a quantity within this of a whole number is that number


@dataclass
class Action:
    """One dated action of a plan (docs/json.md, `plan.actions`)."""

    start_years: float
    end_years: float
    action: str  # buy | lease | rent | api | sell
    option: str  # the typed option (or API option) whose terms it uses
    card: str  # the card id ("" for an API)
    quantity: float
    unit: str  # cards | card-hours | tokens/day
    tier: str = ""  # a rent's tier: on_demand | committed | committed_3yr | spot


@dataclass
class PlanResult:
    """A solved plan: its quantities, dated actions, costs per period and per workload."""

    id: str
    option: str  # "" for the optimal plan, else the typed option it is restricted to
    shape: PlanShape
    status: str  # optimal | time_limit | infeasible
    solve_seconds: float
    npv_tco: float
    actions: list[Action] = field(default_factory=list)
    periods: list[dict[str, float]] = field(default_factory=list)
    workloads: dict[str, dict[str, float | None]] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)
    inputs_values: dict[tuple[str, ...], float] = field(default_factory=dict)
    # its money: quantities reading its inputs and the scenario's model, and their values
    model: Any = None
    env: dict[str, Any] = field(default_factory=dict)
    npv_tco_after_tax: float = 0.0  # after income tax (methodology §20)
    # the NPV the plan was chosen on (finance.decision_basis): pre_tax or after_tax; the
    # solver's objective is that NPV (`npv_decision`)
    basis: str = "pre_tax"
    # what the plan's timing rests on (§19, "Price paths"): each card not yet on sale it
    # waits for (the exporters word them: tco.exporters.plan_text.wait_text)
    waits: list[Wait] = field(default_factory=list)
    # the solver's answer it was made from (a what-if's re-solve starts from it; a kept
    # baseline keeps it)
    solution: Solution | None = None

    @property
    def npv_decision(self) -> float:
        """The NPV the plans are chosen and compared on: after tax where the scenario's
        decision basis is (methodology §20), else before."""
        return self.npv_tco_after_tax if self.basis == "after_tax" else self.npv_tco

    @property
    def npv_key(self) -> str:
        """The quantity of `npv_decision` in the plan's money (`<id>.<npv_key>`)."""
        return "npv_tco_after_tax" if self.basis == "after_tax" else "npv_tco"


@dataclass(frozen=True)
class Wait:
    """The optimal plan waits for `card` (on sale `on_sale_month` months after the decision,
    not at it): it first `action`s it
    (buy, lease or rent) `month` months after the decision, and costs `saving` less than
    `rival`, the cheapest plan held to one option whose card is on sale now."""

    card: str
    on_sale_month: int  # when it goes on sale, after the decision
    action: str
    month: int
    saving: float
    rival: str


@dataclass(frozen=True)
class Planning:
    """What the planner was given besides the model: its time grid."""

    months: int = 1


def solve_plan(prob: Problem, allowed: Allowed, exact: bool = True,
               start: Solution | None = None) -> Solution:
    """The cheapest plan, then polished so that every quantity is a whole unit: reservations
    are searched as card counts, then taken in whole servers, rounded down (the work the
    remainder would have done goes to the next cheapest source) or up, whichever costs less
    without leaving more work undone, and the work is allocated again on the decisions taken
    (a linear solve). Searching whole servers of reservations directly is far slower (tens of
    seconds) for a few tenths of a percent (docs/design.md). Not `exact`: servers and ports
    too are chosen by the linear program and rounded up, at most one server more per
    purchase than the whole-number optimum (the plans restricted to one option, which the
    optimal plan is compared with: rounding only makes them dearer). `start`: a plan of a
    problem of the same shape (the baseline's, for a what-if) the search starts from. The
    program is formulated once and solved three times with other bounds."""
    program = program_of(prob, allowed)
    earning = min(((c, key) for key, c in zip(program.keys, program.cost) if key[0] == "buy"),
                  default=None)
    if earning is not None and earning[0] < 0:
        raise TcoError(_earning_purchase(prob, *earning))
    first = solve(prob, allowed, relax=not exact, start=start, program=program)
    if first.status == "infeasible":
        return first
    per_server = {c.id: c.cards_per_server for c in prob.cards}
    best: Solution | None = None
    for rounding in (math.floor, math.ceil):
        fixed: dict[tuple[Any, ...], float] = {}
        for key, v in first.values.items():
            if key[0] == "reserve":
                n = per_server[key[1]]
                tilt = ROUND_TOLERANCE if rounding is math.floor else -ROUND_TOLERANCE
                servers = rounding(v / n + tilt)
                if servers > 0:
                    fixed[key] = float(servers * n)
            elif key[0] in ("buy", "lease", "use"):
                fixed[key] = float(round(v)) if exact else float(math.ceil(v - ROUND_TOLERANCE))
        polished = solve(prob, allowed, fixed=fixed, program=program)
        if polished.status == "infeasible" or _undone(polished) > _undone(first) + 1e-6:
            continue
        if best is None or polished.npv < best.npv:
            best = polished
    if best is None:  # cannot happen: rounding everything up only adds capacity
        return first
    best.seconds += first.seconds
    return best


def _earning_purchase(prob: Problem, cost: float, key: tuple[Any, ...]) -> str:
    """Why no cheapest plan exists: a server bought and held idle to the horizon earns money
    (its after-tax cost `cost` is negative), so the more bought the cheaper the plan."""
    card = next(c for c in prob.cards if c.id == key[1])
    month = int(key[2]) * prob.periods.months
    head = (f"a server of {card.id} bought in month {month} and held idle to the horizon would "
            f"earn {-cost:,.0f}")
    if prob.tax is None:
        return (head + " (its resale exceeds its price and upkeep), so a plan could cost "
                "less the more it bought: no cheapest plan exists; check the card's price "
                "path and resale inputs")
    return (head + f" after income tax at {prob.tax.rate:.1%} with qualifying R&D costs "
            f"deducted {prob.tax.rd:g} times (its tax deductions and its resale, taxed, exceed "
            "its price and upkeep), so a plan could cost less the more it bought: no cheapest "
            "plan exists after tax; set finance.decision_basis: pre_tax, or check "
            "finance.tax_rate, finance.tax_rd_share and finance.tax_rd_extra_deduction_fraction")


def _undone(sol: Solution) -> float:
    """Work a solution leaves undone (runs and shares of traffic)."""
    return sum(v for k, v in sol.values.items() if k[0] in ("short", "unserved"))


def plan_all(result: Any, planning: Planning = Planning(), restricted_plans: bool = True,
             start: Solution | None = None, solved: Solution | None = None
             ) -> list[PlanResult]:
    """The optimal plan, then one per typed option, for an evaluated `result` (tco.result.
    Result). `start`: the optimal plan of a problem of the same shape (the baseline's, for a
    what-if), which the optimal plan's search starts from. `solved`: the optimal plan of this
    very problem, solved before (kept with the baseline, tco.snapshot): not solved again."""
    st, env = result.structure, result.env
    infos = {c.id: c.info for c in result.candidates}
    prob, sup = problem(st, infos, env, planning.months)
    plans = [(OPTIMAL, "", Allowed())]
    if restricted_plans:
        for cid in st.candidates:
            plans.append((f"plan-{cid}", cid, restricted(cid, st, sup)))
        for pid, *members in st.portfolios:  # a portfolio: what its options may do together
            parts = [restricted(m, st, sup) for m in members]
            plans.append((f"plan-{pid}", pid, Allowed(
                frozenset().union(*[p.modes or frozenset() for p in parts]),
                frozenset().union(*[p.api or frozenset() for p in parts]))))
    out = []
    if solved is not None and not set(solved.values) <= set(program_of(prob, Allowed()).keys):
        solved = None  # not this problem's columns (an entry edited by hand): solved again
    for pid, option, allowed in plans:
        if not option and solved is not None:
            sol = solved
        else:
            sol = solve_plan(prob, allowed, exact=not option, start=None if option else start)
        out.append(_result(result, prob, sup, pid, option, allowed, sol, planning))
    better = _cheaper_restricted(out)
    if better is not None and better.solution is not None:
        out[0] = _result(result, prob, sup, OPTIMAL, "", Allowed(), better.solution, planning)
    out[0].waits.extend(waits(out, prob))
    return out


def _cheaper_restricted(plans: list[PlanResult]) -> PlanResult | None:
    """The cheapest plan held to one option (or portfolio) that costs less than the optimal
    plan `plans[0]` and leaves no more work undone, if any: it is a plan over every supply too.
    The optimal plan's whole-server polish (`solve_plan`) rounds one of the equally cheap
    whole-card optima, a restricted plan's may round another, for less."""
    best = plans[0]
    if best.solution is None or best.status == "infeasible":
        return None
    undone = _undone(best.solution)
    rivals = [p for p in plans[1:] if p.solution is not None and p.status != "infeasible"
              and _undone(p.solution) <= undone + 1e-6 and p.npv_decision < best.npv_decision]
    return min(rivals, key=lambda p: p.npv_decision, default=None)


def decisions(plan: PlanResult, result: Any) -> dict[str, float]:
    """What `plan` buys, leases, rents and calls in each period (the solver's answer at the
    scenario's values): the inputs its money reads that are neither the scenario's inputs nor
    quantities of its model. Held fixed, they make the plan re-costable at other values."""
    known = set(result.inputs) | {q.name for q in result.model.quantities}
    names = {q.name for q in plan.model.quantities}
    return {n: float(plan.env[n]) for n in plan.model.inputs_used()
            if n not in known and n not in names}


def costed(plan: PlanResult, result: Any) -> Model:
    """The scenario's model with `plan`'s money on top: its NPV (`<plan>.npv_tco`) is a
    quantity of it, read from the model's and from the plan's `decisions`."""
    from ..model import Model

    merged = Model(result.structure)
    merged.extend([*result.model.quantities, *plan.model.quantities])
    return merged


def recost(plan: PlanResult, result: Any) -> float:
    """The NPV of `plan` held fixed (what it buys, leases, rents and calls, and when) at the
    values of `result`, the same scenario with other inputs: its money's trees (the ones the
    workbook writes and the live page runs) on `result`'s model. Not a re-solve. The NPV the
    plans are compared on (`PlanResult.npv_key`: after tax on that basis)."""
    values = {p: inp.value for p, inp in result.inputs.items()}
    env: ChainMap[str, Any] = ChainMap({}, decisions(plan, result), result.env, values)
    for q in plan.model.quantities:
        env[q.name] = q.expr.evaluate(env)
    return float(env[f"{plan.id}.{plan.npv_key}"])


def waits(plans: list[PlanResult], prob: Problem) -> list[Wait]:
    """Why the optimal plan (the first) waits for a card not yet on sale (methodology §19,
    "Price paths"): for each such card it uses, the months until it does and what the plan
    saves against the cheapest plan restricted to one option whose card is on sale now (that
    plan's NPV less this one's; work a plan leaves undone is in its NPV at its fallback)."""
    best = plans[0]
    cards = {c.id: c for c in prob.cards}
    later = {c.id for c in prob.cards if c.first_order_period > 0}
    # work a plan leaves undone is priced at its fallback, so NPVs compare on one basis
    now = [p for p in plans[1:] if p.option in cards and cards[p.option].first_order_period == 0]
    if not later or not now:
        return []
    rival = min(now, key=lambda p: p.npv_decision)
    out = []
    for cid in sorted(later):
        used = [a for a in best.actions
                if a.option == cid and a.action in (modes.BUY, modes.LEASE, modes.RENT)]
        if not used or best.npv_decision >= rival.npv_decision:
            continue
        first = min(used, key=lambda a: a.start_years)
        on_sale = cards[cid].first_order_period * prob.periods.months
        out.append(Wait(cid, on_sale, first.action, round(first.start_years * 12),
                        rival.npv_decision - best.npv_decision, rival.option))
    return out


def _result(result: Any, prob: Problem, sup: dict[str, Supply], pid: str, option: str,
            allowed: Allowed, sol: Solution, planning: Planning) -> PlanResult:
    from ..model import Model

    st = result.structure
    model = Model(st)
    own: dict[str, Any] = {}
    env = ChainMap(own, result.env)
    per = prob.periods
    keys = tuple(tuple(str(k) for k in key) for key in sol.values
                 if key[0] not in DERIVED)
    used_supplies = tuple(sorted({k[1] for k in keys if k[0] in ("buy", "lease", "reserve")}
                                 | {k[2] for k in keys if k[0] in ("work", "serve")}))
    stacks = tuple((s.stack, s.cid) for s in sup.values()
                   if s.cid == next(x.cid for x in sup.values() if x.stack == s.stack))
    apis = tuple((aid, wid) for aid, _name, *wids in st.api for wid in wids
                 if allowed.may_call(aid))
    shape = PlanShape(
        id=pid, option=option, months=per.months, periods=per.count, supplies=used_supplies,
        stacks=stacks, keys=keys,
        training=tuple((t.id, t.windows) for t in prob.training),
        serving=tuple((s.id, s.traffic) for s in prob.serving), api=apis,
        lease_term_months=float(env.get("finance.lease_term_months", 0) or 0),
        vouchers=tuple((v.id, v.kind, v.cap is not None, v.supplies) for v in prob.vouchers))
    # what work left undone costs is the workload's, the same in every plan (also in a plan
    # held to one option): the formulas the problem was priced with (tco.plan.build)
    undone = fallbacks(st, sup, prob.training, prob.serving, per.months)
    chosen = {}
    for key, v in sol.values.items():
        if key[0] not in DERIVED:
            chosen[tuple(str(k) for k in key)] = v
            env[shape.path(tuple(str(k) for k in key))] = v
    plan_money(model, shape, sup, st.currency, st.horizon_years, undone)
    for q in model.quantities:
        env[q.name] = q.expr.evaluate(env)
    npv = float(env[f"{pid}.npv_tco"])
    periods = []
    for k in range(per.count):
        row = {c: float(env.get(f"{pid}.p{k}.{c}", 0.0)) for c in PLAN_COMPONENTS}
        row["present_value"] = float(env[f"{pid}.p{k}.present_value"])
        row["start_years"] = per.start_years(k)
        periods.append(row)
    out = PlanResult(pid, option, shape, sol.status, sol.seconds, npv,
                     _actions(prob, sup, sol, result), periods,
                     _workloads(prob, sol, env, pid),
                     {"residual_value": float(env[f"{pid}.residual_value"]),
                      "owed_after_horizon": float(env[f"{pid}.owed_after_horizon"]),
                      "mip_gap": sol.gap, "objective": sol.npv})
    out.inputs_values, out.model, out.env, out.solution = chosen, model, own, sol
    out.npv_tco_after_tax = float(env[f"{pid}.npv_tco_after_tax"])
    out.basis = st.decision_basis
    return out


def _actions(prob: Problem, sup: dict[str, Supply], sol: Solution, result: Any) -> list[Action]:
    per = prob.periods
    cards = {c.id: c for c in prob.cards}
    info = {c.id: c.info for c in result.candidates}
    horizon = float(per.horizon_years)
    out: list[Action] = []

    def years(k: int) -> float:
        return per.start_years(k)

    for key, v in sorted(sol.values.items(), key=lambda kv: str(kv[0])):
        kind = key[0]
        if kind == "buy":
            c = cards[key[1]]
            n = v * c.cards_per_server
            out.append(Action(years(key[2]), horizon, "buy", key[1], info[key[1]].card, n,
                              "cards"))
            out.append(Action(horizon, horizon, "sell", key[1], info[key[1]].card, n, "cards"))
        elif kind == "lease":
            c = cards[key[1]]
            end = years(key[2] + c.lead_periods + c.lease_term_periods)
            out.append(Action(years(key[2]), end, "lease", key[1], info[key[1]].card,
                              v * c.cards_per_server, "cards"))
        elif kind == "reserve":
            end = years(key[3]) + TERM_MONTHS[key[2]] / 12
            out.append(Action(years(key[3]), end, "rent", key[1], info[key[1]].card, v,
                              "cards", key[2]))
    # per-hour rent and API calls: one action per run of consecutive periods
    runs: dict[tuple[Any, ...], dict[int, float]] = {}
    for key, v in sol.values.items():
        if key[0] in ("work", "serve") and key[1] in ("on_demand", "spot"):
            card_h = (next(t for t in prob.training if t.id == key[3]).card_hours_per_run[key[2]]
                      if key[0] == "work"
                      else next(s for s in prob.serving if s.id == key[3]).busy_card_hours[key[2]])
            runs.setdefault(("rent", key[2], key[1]), {}).setdefault(key[4], 0.0)
            runs[("rent", key[2], key[1])][key[4]] += v * card_h
        elif key[0] == "api":
            runs.setdefault(("api", key[1], key[2]), {}).setdefault(key[3], 0.0)
            runs[("api", key[1], key[2])][key[3]] += v
    for (kind, a, b), by_period in sorted(runs.items()):
        ks = sorted(by_period)
        groups: list[list[int]] = []
        for k in ks:
            if groups and groups[-1][-1] == k - 1:
                groups[-1].append(k)
            else:
                groups.append([k])
        for g in groups:
            total = sum(by_period[k] for k in g)
            if kind == "rent":
                out.append(Action(years(g[0]), years(g[-1] + 1), "rent", a, info[a].card, total,
                                  "card-hours", b))
            else:
                tokens = _tokens_per_day(result, b)
                out.append(Action(years(g[0]), years(g[-1] + 1), "api", a, "",
                                  tokens * total / len(g), "tokens/day"))
    out.sort(key=lambda x: (x.start_years, x.action, x.option))
    return out


def _share(done: float, due: float) -> float:
    """The share of `due` that `done` meets (1 within rounding of the solver's arithmetic)."""
    if due <= 0:
        return 1.0
    share = done / due
    return 1.0 if share >= 1 - ROUND_TOLERANCE else share


def _tokens_per_day(result: Any, wid: str) -> float:
    env = result.env
    return float(env.get(f"workloads.{wid}.input_tokens_per_day", 0.0)) + float(
        env.get(f"workloads.{wid}.output_tokens_per_day", 0.0))


def _workloads(prob: Problem, sol: Solution, env: Any, pid: str
               ) -> dict[str, dict[str, float | None]]:
    """Each workload's delivery (share of its demand met in time, when its first run is done
    or its traffic first served) and its cost: the plan's NPV less the API fees, split among
    the workloads by the present value of the card-hours each uses, plus the API fees of a
    serving workload, per discounted run or per discounted million output tokens (levelized,
    as methodology §8 levelizes an option's cost per run)."""
    per = prob.periods
    out: dict[str, dict[str, float | None]] = {}
    card_h: dict[str, float] = {}  # present value of the card-hours each workload uses
    api_pv: dict[str, float] = {}
    hours = {t.id: t.card_hours_per_run for t in prob.training}
    busy = {s.id: s.busy_card_hours for s in prob.serving}
    for key, v in sol.values.items():
        if key[0] == "work":
            card_h[key[3]] = card_h.get(key[3], 0.0) + (
                v * hours[key[3]][key[2]] * per.at_year_end(key[4]))
        elif key[0] == "serve":
            card_h[key[3]] = card_h.get(key[3], 0.0) + (
                v * busy[key[3]][key[2]] * per.at_year_end(key[4]))
    for s in prob.serving:
        for aid in s.api:
            for k in range(per.count):
                v = sol.values.get(("api", aid, s.id, k), 0.0)
                if v:
                    api_pv[s.id] = api_pv.get(s.id, 0.0) + v * s.api[aid][k] * per.at_year_end(k)
    npv = float(env[f"{pid}.npv_tco"])
    rest = npv - sum(api_pv.values())
    total_h = sum(card_h.values())

    def share(wid: str) -> float:
        return rest * card_h.get(wid, 0.0) / total_h if total_h > 0 else 0.0
    for t in prob.training:
        done = [0.0] * per.count
        for key, v in sol.values.items():
            if key[0] == "work" and key[3] == t.id:
                done[key[4]] += v
        due = sum(r for _a, _b, r in t.windows)
        total, first = 0.0, None
        for k, d in enumerate(done):
            total += d
            if first is None and total >= 1 - ROUND_TOLERANCE:
                first = per.start_years(k + 1)
        runs_pv = sum(d * per.at_year_end(k) for k, d in enumerate(done))
        out[t.id] = {"delivered_fraction": _share(total, due),
                     "first_delivery_years": first, "runs_delivered": total,
                     "cost_per_run": share(t.id) / runs_pv if runs_pv > 0 else None}
    for s in prob.serving:
        served = [0.0] * per.count
        for key, v in sol.values.items():
            if key[0] in ("serve", "api") and key[-2] == s.id:
                served[key[-1]] += v
        need = sum(s.traffic)
        first = next((per.start_years(k) for k, v in enumerate(served) if v > 0), None)
        out_tokens = float(env.get(f"workloads.{s.id}.output_tokens_per_day", 0.0)) * (
            365.25 / per.per_year)  # per period of full traffic
        tokens_pv = sum(v * out_tokens * per.at_year_end(k) for k, v in enumerate(served))
        cost = share(s.id) + api_pv.get(s.id, 0.0)
        out[s.id] = {"delivered_fraction": _share(sum(served), need),
                     "first_delivery_years": first,
                     "cost_per_million_output_tokens": cost / tokens_pv * 1e6
                     if tokens_pv > 0 else None}
    return out


MAX_SUPPLIES = 64  # more supplies than this are not planned (see docs/methodology.md §19)
# what each kind of plan quantity counts, for its input's unit and label
_KINDS = {
    "buy": ("servers", "Servers bought in period {k} ({s})", True),
    "lease": ("servers", "Servers leased from period {k} ({s})", True),
    "reserve": ("cards", "Cards reserved ({t}) from period {k} ({s})", True),
    "work": ("runs", "Runs of {w} done in period {k} on {src} {s} cards", False),
    "serve": ("fraction", "Share of {w}'s traffic carried in period {k} on {src} {s} cards",
              False),
    "api": ("fraction", "Share of {w}'s traffic carried in period {k} by {s}", False),
    "short": ("runs", "Runs of {w} left undone in window {k}", False),
    "unserved": ("fraction", "Share of {w}'s traffic left unserved in period {k}", False),
    "use": ("flag", "1 when the plan uses (ports) the {s} stack", True),
}


def plan_inputs(plans: list[PlanResult]) -> dict[str, Any]:
    """Each plan's quantities as inputs of origin "derived" (chosen by the planner): the
    workbook shows them with their defined names, and an edited one re-costs the plan."""
    from ..inputs import Input, InputSpec

    out = {}
    for p in plans:
        for key in p.shape.keys:
            unit, label, integer = _KINDS[key[0]]
            fields = {"s": "", "k": key[-1], "w": "", "src": "", "t": ""}
            if key[0] in ("buy", "lease"):
                fields["s"] = key[1]
            elif key[0] == "reserve":
                fields.update(s=key[1], t=key[2])
            elif key[0] in ("work", "serve"):
                fields.update(src=key[1].replace("_", "-"), s=key[2], w=key[3])
            elif key[0] == "api":
                fields.update(s=key[1], w=key[2])
            elif key[0] in ("short", "unserved"):
                fields["w"] = key[1]
            elif key[0] == "use":
                fields["s"] = key[1]
            path = p.shape.path(key)
            spec = InputSpec(".".join(key), unit, label.format(**fields), 0.0, 1e9,
                             integer=integer, structural=True)
            out[path] = Input(path, float(p_value(p, key)), spec,
                              source=f"chosen by the planner ({p.status})", origin="derived",
                              unit=unit)
    return out


def p_value(p: PlanResult, key: tuple[str, ...]) -> float:
    return p.inputs_values[key]
