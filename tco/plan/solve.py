"""The planner (methodology §19): the cheapest plan, in present value, that meets the demand of
a `Problem`, as a mixed-integer program solved by HiGHS (scipy.optimize.milp).

Variables, per card c and period k (only those the problem allows):
  buy[c,k], lease[c,k]        whole servers ordered in k (integers)
  owned[c,k]                  servers installed and working for the plan in k (bought ones
                              from arrival to the horizon, leased ones for their term)
  reserve[c,tier,k]           cards reserved in k for a committed tier's term (integers)
  reserved[c,k]               cards under a reservation in k
  work[source,c,w,k]          runs of training workload w done in k on owned, reserved,
                              on-demand or spot cards (fractions of a run)
  serve[source,c,w,k]         share of serving workload w's full traffic carried in k on
                              owned, reserved or on-demand cards
  api[a,w,k]                  share carried by a per-token API
  short[w,window], unserved[w,k]   work left undone, at its fallback price
  use[s]                      1 when the plan uses stack s (its port is paid)

The objective is the plan's NPV, every coefficient the present value of what one unit of the
variable costs (tco.plan.problem: purchases at the start of their period, running costs at the
end of their year, resale at the horizon). `tco.model.plan` computes the same NPV from the
chosen quantities as expression trees; tests compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .problem import PER_HOUR_TIERS, TERM_MONTHS, Allowed, Problem

SOURCES_WORK = ("owned", "reserved", "on_demand", "spot")
SOURCES_SERVE = ("owned", "reserved", "on_demand")
# the decisions a polish fixes (what is not among them is not taken)
FIXED_KINDS = ("buy", "lease", "reserve", "use")


@dataclass
class Solution:
    """The plan the solver chose: every nonzero quantity by its key, and its NPV."""

    status: str  # optimal | time_limit | infeasible
    npv: float
    values: dict[tuple[Any, ...], float] = field(default_factory=dict)
    gap: float = 0.0  # relative MIP gap at the end of the search
    seconds: float = 0.0


class _Program:
    """Columns and rows of the program, added by name."""

    def __init__(self) -> None:
        self.keys: list[tuple[Any, ...]] = []
        self.index: dict[tuple[Any, ...], int] = {}
        self.cost: list[float] = []
        self.lower: list[float] = []
        self.upper: list[float] = []
        self.integer: list[int] = []
        self.rows_i: list[int] = []
        self.rows_j: list[int] = []
        self.rows_v: list[float] = []
        self.row_lo: list[float] = []
        self.row_hi: list[float] = []

    def var(self, key: tuple[Any, ...], cost: float = 0.0, lower: float = 0.0,
            upper: float = np.inf, integer: bool = False) -> int:
        j = len(self.keys)
        self.keys.append(key)
        self.index[key] = j
        self.cost.append(cost)
        self.lower.append(lower)
        self.upper.append(upper)
        self.integer.append(1 if integer else 0)
        return j

    def lp(self, highspy: Any) -> Any:
        """The program as a HiGHS model (the matrix column by column)."""
        lp = highspy.HighsLp()
        n, m = len(self.keys), len(self.row_lo)
        lp.num_col_, lp.num_row_ = n, m
        lp.col_cost_ = np.asarray(self.cost, dtype=float)
        lp.col_lower_ = np.asarray(self.lower, dtype=float)
        lp.col_upper_ = np.asarray(self.upper, dtype=float)
        lp.row_lower_ = np.asarray(self.row_lo, dtype=float)
        lp.row_upper_ = np.asarray(self.row_hi, dtype=float)
        cols = np.asarray(self.rows_j, dtype=np.int64)
        order = np.argsort(cols, kind="stable")
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(cols, minlength=n), out=starts[1:])
        lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
        lp.a_matrix_.start_ = starts
        lp.a_matrix_.index_ = np.asarray(self.rows_i, dtype=np.int64)[order]
        lp.a_matrix_.value_ = np.asarray(self.rows_v, dtype=float)[order]
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous
                           for i in self.integer]
        return lp

    def row(self, terms: list[tuple[int, float]], lo: float, hi: float) -> None:
        if not terms:
            return
        i = len(self.row_lo)
        for j, v in terms:
            self.rows_i.append(i)
            self.rows_j.append(j)
            self.rows_v.append(v)
        self.row_lo.append(lo)
        self.row_hi.append(hi)


def solve(problem: Problem, allowed: Allowed | None = None, time_limit_s: float = 30.0,
          gap: float = 1e-4, start: Solution | None = None,
          fixed: dict[tuple[Any, ...], float] | None = None, relax: bool = False) -> Solution:
    """The cheapest plan meeting `problem`'s demand using only what `allowed` allows.
    `start`: a plan of the same problem's shape (an earlier solve, before a what-if) that the
    search starts from when it is still feasible. `fixed`: decisions taken (the others of
    their kinds are not taken). `relax`: whole servers need not be whole (a linear program)."""
    import time

    import highspy

    allowed = allowed or Allowed()
    prog = _formulate(problem, allowed)
    for key, value in (fixed or {}).items():  # decisions already taken (a polish, a what-if)
        j = prog.index.get(key)
        if j is not None:
            prog.lower[j] = prog.upper[j] = value
    for j, key in enumerate(prog.keys):
        if fixed is not None and key[0] in FIXED_KINDS and key not in fixed:
            prog.lower[j] = prog.upper[j] = 0.0
    if relax:
        prog.integer = [0] * len(prog.integer)
    h = _highs(highspy)
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.passModel(prog.lp(highspy))
    if start is not None and start.values:
        x0 = np.array([start.values.get(k, 0.0) for k in prog.keys])
        h.setSolution(_solution(highspy, x0))
    started = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - started
    status = h.getModelStatus()
    if status not in (highspy.HighsModelStatus.kOptimal, highspy.HighsModelStatus.kTimeLimit):
        return Solution("infeasible", float("nan"), seconds=seconds)
    x = np.asarray(h.getSolution().col_value)
    if x.size != len(prog.keys):
        return Solution("infeasible", float("nan"), seconds=seconds)
    values = {prog.keys[j]: float(x[j]) for j in np.flatnonzero(np.abs(x) > 1e-9)}
    info = h.getInfo()
    return Solution("optimal" if status == highspy.HighsModelStatus.kOptimal else "time_limit",
                    float(h.getObjectiveValue()), values, float(info.mip_gap), seconds)


def _highs(highspy: Any) -> Any:
    """A HiGHS instance that prints nothing: the library writes a banner to standard output
    when the first one is made, which would corrupt a command's JSON there."""
    global _QUIET
    if not _QUIET:
        import os
        import sys

        sys.stdout.flush()
        saved, null = os.dup(1), os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            h = highspy.Highs()
            _flush_c_stdout()
        finally:
            os.dup2(saved, 1)
            os.close(saved)
            os.close(null)
        _QUIET = True
    else:
        h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return h


_QUIET = False


def _flush_c_stdout() -> None:
    try:
        import ctypes

        ctypes.CDLL(None).fflush(None)
    except (OSError, AttributeError, TypeError):  # no C library to flush (not POSIX)
        pass


def _solution(highspy: Any, x: np.ndarray) -> Any:
    sol = highspy.HighsSolution()
    sol.col_value = list(map(float, x))
    sol.value_valid = True
    return sol


def _formulate(p: Problem, allowed: Allowed) -> _Program:
    prog = _Program()
    per = p.periods
    P, hours = per.count, per.hours
    ready = {s.id: s.ready_period for s in p.stacks}
    port_var: dict[str, int] = {}
    for s in p.stacks:
        upkeep = sum(s.upkeep_per_period * per.at_year_end(k) for k in range(P))
        if s.port_cost > 0 or upkeep > 0:
            port_var[s.id] = prog.var(("use", s.id), s.port_cost + upkeep, 0, 1, integer=True)
    uses: dict[str, list[tuple[int, float]]] = {}  # stack -> allocation columns, scaled
    own_hours: dict[tuple[str, int], list[tuple[int, float]]] = {}
    own_peak: dict[tuple[str, int], list[tuple[int, float]]] = {}
    res_hours: dict[tuple[str, int], list[tuple[int, float]]] = {}
    res_peak: dict[tuple[str, int], list[tuple[int, float]]] = {}
    power: dict[int, list[tuple[int, float]]] = {}

    for c in p.cards:
        n = c.cards_per_server
        owns = (c.buy and allowed.may(c.id, "buy")) or (c.lease and allowed.may(c.id, "lease"))
        fixed = allowed.fixed_servers.get(c.id)
        if owns or fixed:
            # owned[k] = owned[k-1] + arrivals(k) - leases ending(k)
            owned = [prog.var(("owned", c.id, k)) for k in range(P)]
            arrivals: dict[int, list[tuple[int, float]]] = {k: [] for k in range(P)}
            if (c.buy and allowed.may(c.id, "buy")) or fixed:
                for k in range(P):
                    arrive = k + c.lead_periods
                    if arrive >= P or k < c.first_order_period:
                        continue
                    upkeep = sum(c.upkeep_per_server_period * per.at_year_end(j)
                                 for j in range(arrive, P))
                    price = c.server_price[k]
                    cost = (price * per.at_start(k) + upkeep
                            - price * c.resale_fraction[k] * per.at_start(P))
                    lo = hi = None
                    if fixed is not None:
                        lo = hi = float(fixed if k == 0 else 0)
                    j = prog.var(("buy", c.id, k), cost, lo or 0.0,
                                 np.inf if hi is None else hi, integer=True)
                    arrivals[arrive].append((j, 1.0))
            if c.lease and allowed.may(c.id, "lease") and c.lease_term_periods > 0:
                term = c.lease_term_periods
                for k in range(P):
                    arrive = k + c.lead_periods
                    if arrive >= P:
                        continue
                    # payments for the whole term (an obligation past the horizon is still
                    # owed), upkeep while the plan has it
                    pay = sum(c.lease_payment_per_server_period * per.at_year_end(t)
                              for t in range(arrive, arrive + term))
                    upkeep = sum(c.upkeep_per_server_period * per.at_year_end(t)
                                 for t in range(arrive, min(arrive + term, P)))
                    j = prog.var(("lease", c.id, k), pay + upkeep, integer=True)
                    arrivals[arrive].append((j, 1.0))
                    if arrive + term < P:
                        arrivals[arrive + term].append((j, -1.0))
            for k in range(P):
                terms = [(owned[k], 1.0)] + [(j, -v) for j, v in arrivals[k]]
                if k > 0:
                    terms.append((owned[k - 1], -1.0))
                prog.row(terms, 0.0, 0.0)
                own_hours[(c.id, k)] = [(owned[k], -c.utilization * hours * n)]
                own_peak[(c.id, k)] = [(owned[k], -float(n))]
                power.setdefault(k, []).append((owned[k], c.facility_kw_per_server))
        terms_tiers = [t for t in TERM_MONTHS if t in c.rent and allowed.may(c.id, "rent")]
        if terms_tiers:
            reserved = [prog.var(("reserved", c.id, k)) for k in range(P)]
            starts: dict[int, list[tuple[int, float]]] = {k: [] for k in range(P)}
            for tier in terms_tiers:
                term = TERM_MONTHS[tier] // per.months
                for k in range(P):
                    cost = sum(c.rent[tier][min(k, P - 1)] * hours * per.at_year_end(t)
                               for t in range(k, k + term))
                    j = prog.var(("reserve", c.id, tier, k), cost)  # whole servers after the polish
                    starts[k].append((j, 1.0))
                    if k + term < P:
                        starts[k + term].append((j, -1.0))
            for k in range(P):
                terms = [(reserved[k], 1.0)] + [(j, -v) for j, v in starts[k]]
                if k > 0:
                    terms.append((reserved[k - 1], -1.0))
                prog.row(terms, 0.0, 0.0)
                res_hours[(c.id, k)] = [(reserved[k], -c.utilization * hours)]
                res_peak[(c.id, k)] = [(reserved[k], -1.0)]

    runs_total = {t.id: sum(r for _a, _b, r in t.windows) for t in p.training}
    for t in p.training:
        for wi, (first, last, runs) in enumerate(t.windows):
            terms: list[tuple[int, float]] = [
                (prog.var(("short", t.id, wi), t.shortfall_per_run * per.at_year_end(last)),
                 1.0)]
            for c in p.cards:
                h = t.card_hours_per_run.get(c.id)
                if h is None:
                    continue
                for k in range(max(first, ready.get(c.stack, 0)), last + 1):
                    for src in SOURCES_WORK:
                        key = (c.id, k)
                        if src == "owned":
                            if key not in own_hours:
                                continue
                            cost = h * c.busy_per_card_hour * per.at_year_end(k)
                        elif src == "reserved":
                            if key not in res_hours:
                                continue
                            cost = 0.0
                        else:
                            if src not in c.rent or not allowed.may(c.id, "rent"):
                                continue
                            extra = 1 / (1 - c.spot_overhead) if src == "spot" else 1.0
                            cost = h * extra * c.rent[src][k] * per.at_year_end(k)
                        j = prog.var(("work", src, c.id, t.id, k), cost)
                        terms.append((j, 1.0))
                        if src == "owned":
                            own_hours[key].append((j, h))
                        elif src == "reserved":
                            res_hours[key].append((j, h))
                        if c.stack in port_var:
                            uses.setdefault((c.stack, t.id), []).append((j, 1.0))
            prog.row(terms, runs, np.inf)

    for s in p.serving:
        for k in range(P):
            share = s.traffic[k]
            if share <= 0:
                continue
            terms = [(prog.var(("unserved", s.id, k),
                               s.shortfall_per_period * per.at_year_end(k)), 1.0)]
            for aid, cost in s.api.items():
                if allowed.may_call(aid):
                    terms.append((prog.var(("api", aid, s.id, k),
                                           cost[k] * per.at_year_end(k)), 1.0))
            for c in p.cards:
                peak = s.peak_cards.get(c.id)
                if peak is None or k < ready.get(c.stack, 0):
                    continue
                busy = s.busy_card_hours[c.id]
                key = (c.id, k)
                for src in SOURCES_SERVE:
                    if src == "owned":
                        if key not in own_hours:
                            continue
                        cost = busy * c.busy_per_card_hour * per.at_year_end(k)
                    elif src == "reserved":
                        if key not in res_hours:
                            continue
                        cost = 0.0
                    else:
                        if "on_demand" not in c.rent or not allowed.may(c.id, "rent"):
                            continue
                        cost = busy * c.rent["on_demand"][k] * per.at_year_end(k)
                    j = prog.var(("serve", src, c.id, s.id, k), cost)
                    terms.append((j, 1.0))
                    if src == "owned":
                        own_hours[key].append((j, busy))
                        own_peak[key].append((j, peak))
                    elif src == "reserved":
                        res_hours[key].append((j, busy))
                        res_peak[key].append((j, peak))
                    if c.stack in port_var:
                        uses.setdefault((c.stack, s.id), []).append((j, 1.0))
            prog.row(terms, share, share)

    for rows in (own_hours, own_peak, res_hours, res_peak):
        for terms in rows.values():
            if len(terms) > 1:
                prog.row(terms, -np.inf, 0.0)
    most = {t.id: runs_total[t.id] for t in p.training}
    most.update({s.id: float(sum(s.traffic)) for s in p.serving})
    for (stack, wid), terms in uses.items():
        # a stack's cards do a workload's work only while the plan uses (has ported) it
        prog.row(terms + [(port_var[stack], -most[wid])], -np.inf, 0.0)
    if p.power_budget_kw is not None:
        for terms in power.values():
            prog.row(terms, -np.inf, p.power_budget_kw)
    return prog
