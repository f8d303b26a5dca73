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
end of their year, resale at the horizon); after income tax when the problem has a `Tax`
(methodology §20: each cost deducted as paid less the tax it saves, a purchase less its
deductions' present value, resale and vouchers taxed). `tco.model.plan` computes the same NPV from the
chosen quantities as expression trees; tests compare the two.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .problem import TERM_MONTHS, Allowed, Problem

SOURCES_WORK = ("owned", "reserved", "on_demand", "spot")
SOURCES_SERVE = ("owned", "reserved", "on_demand")
# the decisions a polish fixes (what is not among them is not taken)
FIXED_KINDS = ("buy", "lease", "reserve", "use")
# Work left to its fallback costs this much more in the objective than its price, so that at
# a tie (a fallback priced as the on-demand rent it would be done at) the plan does the work
# rather than leave it undone; the NPV reported is without it (methodology §19).
PREFER_DONE = 1e-3


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
        self.premium: dict[int, float] = {}  # objective terms that are not money (PREFER_DONE)

    def var(self, key: tuple[Any, ...], cost: float = 0.0, lower: float = 0.0,
            upper: float = np.inf, integer: bool = False, premium: float = 0.0) -> int:
        """A column of price `cost`, plus `premium` in the objective only."""
        j = len(self.keys)
        self.keys.append(key)
        self.index[key] = j
        if premium:
            self.premium[j] = premium
        self.cost.append(cost + premium)
        self.lower.append(lower)
        self.upper.append(upper)
        self.integer.append(1 if integer else 0)
        return j

    def lp(self, highspy: Any, lower: list[float], upper: list[float], integer: list[int]
           ) -> Any:
        """The program as a HiGHS model (the matrix column by column), with its columns'
        bounds and integrality as given (a solve fixes some: the program is not changed)."""
        lp = highspy.HighsLp()
        n, m = len(self.keys), len(self.row_lo)
        lp.num_col_, lp.num_row_ = n, m
        lp.col_cost_ = np.asarray(self.cost, dtype=float)
        lp.col_lower_ = np.asarray(lower, dtype=float)
        lp.col_upper_ = np.asarray(upper, dtype=float)
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
                           for i in integer]
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
          fixed: dict[tuple[Any, ...], float] | None = None, relax: bool = False,
          program: _Program | None = None) -> Solution:
    """The cheapest plan meeting `problem`'s demand using only what `allowed` allows.
    `start`: a plan of the same problem's shape (an earlier solve, before a what-if) that the
    search starts from when it is still feasible. `fixed`: decisions taken (the others of
    their kinds are not taken). `relax`: whole servers need not be whole (a linear program).
    `program`: `program_of(problem, allowed)` when the caller has it already (a polish solves
    the same program again with decisions fixed)."""
    import time

    import highspy

    prog = program if program is not None else program_of(problem, allowed or Allowed())
    lower, upper = list(prog.lower), list(prog.upper)
    for key, value in (fixed or {}).items():  # decisions already taken (a polish, a what-if)
        j = prog.index.get(key)
        if j is not None:
            lower[j] = upper[j] = value
    for j, key in enumerate(prog.keys):
        if fixed is not None and key[0] in FIXED_KINDS and key not in fixed:
            lower[j] = upper[j] = 0.0
    h = _highs(highspy)
    h.setOptionValue("time_limit", float(time_limit_s))
    h.setOptionValue("mip_rel_gap", float(gap))
    h.passModel(prog.lp(highspy, lower, upper, [0] * len(prog.keys) if relax else prog.integer))
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
    objective = float(h.getObjectiveValue())
    if start is not None and not _agrees(prog.cost, x, objective):
        # HiGHS (1.16) can end a search started from a plan by answering with that plan and
        # another solution's objective: the answer is not its solution, so search afresh
        return solve(problem, allowed, time_limit_s, gap, None, fixed, relax, prog)
    values = {prog.keys[j]: float(x[j]) for j in np.flatnonzero(np.abs(x) > 1e-9)}
    info = h.getInfo()
    npv = objective - sum(v * x[j] for j, v in prog.premium.items())
    return Solution("optimal" if status == highspy.HighsModelStatus.kOptimal else "time_limit",
                    npv, values, float(info.mip_gap), seconds)


def _agrees(cost: list[float], x: np.ndarray, objective: float) -> bool:
    """Whether the solver's objective is the cost of the solution it returned (to 1e-7)."""
    return abs(float(np.dot(cost, x)) - objective) <= 1e-7 * max(1.0, abs(objective))


def _highs(highspy: Any) -> Any:
    """A HiGHS instance that prints nothing: the library writes a banner to standard output
    when the first one is made, which would corrupt a command's JSON there."""
    global _QUIET
    if not _QUIET:
        import os
        import sys

        if sys.stdout is not None:  # closed (`>&-`): held on the null device (tco.cli)
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
    # one thread: the programs are small, and a process that has run HiGHS with worker
    # threads cannot run it again in a forked child (tco.exporters.report_files)
    h.setOptionValue("threads", 1)
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


def program_of(p: Problem, allowed: Allowed) -> _Program:
    """The program of `p` restricted to what `allowed` allows (its columns, rows and costs)."""
    return _Formulation(p, allowed).program()


Terms = list[tuple[int, float]]


class _Formulation:
    """The program of a problem, built supply by supply and workload by workload."""

    def __init__(self, p: Problem, allowed: Allowed) -> None:
        self.p, self.allowed, self.prog = p, allowed, _Program()
        per = p.periods
        self.P, self.hours = per.count, per.hours
        # discount factors of a payment at a period's start and at the end of its year, for
        # periods past the horizon too (what is still owed)
        far = self.P + max([c.lead_periods + c.lease_term_periods for c in p.cards] + [0]) \
            + max(TERM_MONTHS.values()) // per.months
        self.start = [per.at_start(k) for k in range(far + 1)]
        self.year_end = [per.at_year_end(k) for k in range(far + 1)]
        self.ready = {s.id: s.ready_period for s in p.stacks}
        self.port: dict[str, int] = {}
        self.uses: dict[tuple[str, str], Terms] = {}  # (stack, workload) -> allocations
        self.own_hours: dict[tuple[str, int], Terms] = {}
        self.own_peak: dict[tuple[str, int], Terms] = {}
        self.res_hours: dict[tuple[str, int], Terms] = {}
        self.res_peak: dict[tuple[str, int], Terms] = {}
        self.power: dict[tuple[str, int], Terms] = {}  # (site, period) -> servers' kW
        self.orders: dict[tuple[str, int], Terms] = {}  # (card, quarter) -> cards ordered
        # (supply, period) -> rent paid (undiscounted) and card-hours rented, for vouchers
        self.rent_paid: dict[tuple[str, int], Terms] = {}
        self.rent_hours: dict[tuple[str, int], Terms] = {}
        # planned after tax (Problem.tax): what a cost deducted as paid and an income keep
        tax = p.tax
        self.rate = tax.rate if tax is not None else 0.0
        self.kept = tax.kept_of_cost if tax is not None else 1.0
        self.kept_income = tax.kept_of_income if tax is not None else 1.0

    def program(self) -> _Program:
        for s in self.p.stacks:
            self.stack(s)
        for c in self.p.cards:
            self.owned(c)
            self.reserved(c)
        for t in self.p.training:
            self.training(t)
        for s in self.p.serving:
            self.serving(s)
        self.limits()
        return self.prog

    def pv_running(self, per_period: float, first: int, end: int) -> float:
        """Present value of `per_period` in each period first..end-1 (year-end counting)."""
        return per_period * sum(self.year_end[first:end])

    def stack(self, s: Any) -> None:
        upkeep = self.pv_running(s.upkeep_per_period, 0, self.P)
        if s.port_cost > 0 or upkeep > 0:
            self.port[s.id] = self.prog.var(("use", s.id), (s.port_cost + upkeep) * self.kept,
                                            0, 1, integer=True)

    def owned(self, c: Any) -> None:
        """Servers bought and leased, and the servers installed in each period."""
        prog, P, allowed = self.prog, self.P, self.allowed
        buys = c.buy and allowed.may(c.id, "buy")
        leases = c.lease and allowed.may(c.id, "lease") and c.lease_term_periods > 0
        fixed = allowed.fixed_servers.get(c.id)
        if not (buys or leases or fixed):
            return
        arrivals: dict[int, Terms] = {k: [] for k in range(P)}
        months = self.p.periods.months
        # a card whose licence is revoked is not ordered after the revocation
        last = P if c.stop_period is None else min(P, c.stop_period)
        for k in range(c.first_order_period, last - c.lead_periods) if buys or fixed else ():
            arrive = k + c.lead_periods
            price = c.server_price[k]
            # after tax: less its deductions, and the resale is taxed income
            deducted = c.tax_deductions_per_server[k] if c.tax_deductions_per_server else 0.0
            cost = (price * self.start[k] - self.rate * deducted
                    + self.pv_running(c.upkeep_per_server_period, arrive, P) * self.kept
                    - price * c.resale_fraction[k] * self.start[P] * self.kept_income)
            n = float(fixed if k == 0 else 0) if fixed is not None else None
            j = prog.var(("buy", c.id, k), cost, n or 0.0, np.inf if n is None else n,
                         integer=True)
            arrivals[arrive].append((j, 1.0))
            self.orders.setdefault((c.card, k * months // 3), []).append(
                (j, float(c.cards_per_server)))
        term = c.lease_term_periods
        for k in range(c.first_order_period, last - c.lead_periods) if leases else ():
            arrive = k + c.lead_periods
            # payments for the whole term (owed past the horizon too), upkeep while in use
            cost = (self.pv_running(c.lease_payment_per_server_period, arrive, arrive + term)
                    + self.pv_running(c.upkeep_per_server_period, arrive, min(arrive + term, P))
                    ) * self.kept
            j = prog.var(("lease", c.id, k), cost, integer=True)
            arrivals[arrive].append((j, 1.0))
            self.orders.setdefault((c.card, k * months // 3), []).append(
                (j, float(c.cards_per_server)))
            if arrive + term < P:
                arrivals[arrive + term].append((j, -1.0))
        installed = self.stock("owned", c.id, arrivals)
        for k in range(P):
            self.own_hours[(c.id, k)] = [(installed[k], -c.utilization * self.hours
                                          * c.cards_per_server)]
            self.own_peak[(c.id, k)] = [(installed[k], -float(c.cards_per_server))]
            self.power.setdefault((c.site, k), []).append((installed[k],
                                                           c.facility_kw_per_server))

    def stock(self, kind: str, cid: str, changes: dict[int, Terms]) -> list[int]:
        """Columns of what is held in each period: stock[k] = stock[k-1] + changes(k)."""
        held = [self.prog.var((kind, cid, k)) for k in range(self.P)]
        for k in range(self.P):
            terms = [(held[k], 1.0)] + [(j, -v) for j, v in changes[k]]
            if k > 0:
                terms.append((held[k - 1], -1.0))
            self.prog.row(terms, 0.0, 0.0)
        return held

    def reserved(self, c: Any) -> None:
        """Cards reserved at each committed tier, and the cards under reservation."""
        tiers = [t for t in TERM_MONTHS if t in c.rent and self.allowed.may(c.id, "rent")]
        if not tiers:
            return
        P, months = self.P, self.p.periods.months
        starts: dict[int, Terms] = {k: [] for k in range(P)}
        for tier in tiers:
            term = TERM_MONTHS[tier] // months
            for k in range(c.first_order_period, P):  # not before it is on sale
                cost = c.rent[tier][k] * self.hours * sum(self.year_end[k:k + term]) * self.kept
                j = self.prog.var(("reserve", c.id, tier, k), cost)  # whole servers: polish
                starts[k].append((j, 1.0))
                for kk in range(k, min(k + term, P)):  # each period's rent, for vouchers
                    self.rent_paid.setdefault((c.id, kk), []).append(
                        (j, c.rent[tier][k] * self.hours))
                    self.rent_hours.setdefault((c.id, kk), []).append((j, self.hours))
                if k + term < P:
                    starts[k + term].append((j, -1.0))
        held = self.stock("reserved", c.id, starts)
        for k in range(P):
            self.res_hours[(c.id, k)] = [(held[k], -c.utilization * self.hours)]
            self.res_peak[(c.id, k)] = [(held[k], -1.0)]

    def source_cost(self, c: Any, src: str, card_hours: float, k: int) -> float | None:
        """What `card_hours` of work on `c`'s cards from `src` cost in period k (present
        value); None when the plan may not use that source."""
        key = (c.id, k)
        if src == "owned":
            return (card_hours * c.busy_per_card_hour * self.year_end[k] * self.kept
                    if key in self.own_hours else None)
        if src == "reserved":
            return 0.0 if key in self.res_hours else None
        if src not in c.rent or not self.allowed.may(c.id, "rent") or \
                k < c.first_order_period:
            return None
        extra = 1 / (1 - c.spot_overhead) if src == "spot" else 1.0
        return card_hours * extra * c.rent[src][k] * self.year_end[k] * self.kept

    def allocate(self, j: int, c: Any, src: str, k: int, wid: str, card_hours: float,
                 peak: float | None = None) -> None:
        """Column j uses `card_hours` (and `peak` cards) of c's source `src` in period k."""
        if src == "owned":
            self.own_hours[(c.id, k)].append((j, card_hours))
            if peak is not None:
                self.own_peak[(c.id, k)].append((j, peak))
        elif src == "reserved":
            self.res_hours[(c.id, k)].append((j, card_hours))
            if peak is not None:
                self.res_peak[(c.id, k)].append((j, peak))
        else:  # rented per hour used: what it pays, for vouchers
            paid = card_hours * (1 / (1 - c.spot_overhead) if src == "spot" else 1.0)
            self.rent_paid.setdefault((c.id, k), []).append((j, paid * c.rent[src][k]))
            self.rent_hours.setdefault((c.id, k), []).append((j, paid))
        if c.stack in self.port:
            self.uses.setdefault((c.stack, wid), []).append((j, 1.0))

    def undone(self, fallback: float, delay: float) -> float:
        """What work left undone at `fallback` costs on the plan's basis: the way to do it is
        a cost deducted as paid, the cost of delay in it (`delay`) income forgone."""
        return (fallback - delay) * self.kept + delay * self.kept_income

    def training(self, t: Any) -> None:
        """Each window's runs done on some card and source, or left undone at a price."""
        for wi, (first, last, runs) in enumerate(t.windows):
            price = self.undone(t.shortfall_per_run, t.shortfall_delay_per_run) \
                * self.year_end[last]
            terms: Terms = [(self.prog.var(("short", t.id, wi), price,
                                           premium=price * PREFER_DONE), 1.0)]
            for c in self.p.cards:
                h = t.card_hours_per_run.get(c.id)
                if h is None:
                    continue
                stop = last + 1 if c.stop_period is None else min(last + 1, c.stop_period)
                for k in range(max(first, self.ready.get(c.stack, 0)), stop):
                    for src in SOURCES_WORK:
                        cost = self.source_cost(c, src, h, k)
                        if cost is None:
                            continue
                        j = self.prog.var(("work", src, c.id, t.id, k), cost)
                        terms.append((j, 1.0))
                        self.allocate(j, c, src, k, t.id, h)
            self.prog.row(terms, runs, runs)  # work beyond the runs due is worth nothing

    def serving(self, s: Any) -> None:
        """Each period's traffic carried by some card and source or API, or left unserved."""
        for k in range(self.P):
            share = s.traffic[k]
            if share <= 0:
                continue
            price = self.undone(s.shortfall_per_period, s.shortfall_delay_per_period) \
                * self.year_end[k]
            terms: Terms = [(self.prog.var(("unserved", s.id, k), price,
                                           premium=price * PREFER_DONE), 1.0)]
            for aid, cost in s.api.items():
                if self.allowed.may_call(aid):
                    terms.append((self.prog.var(("api", aid, s.id, k),
                                                cost[k] * self.year_end[k] * self.kept),
                                        1.0))
            for c in self.p.cards:
                peak = s.peak_cards.get(c.id)
                if peak is None or k < self.ready.get(c.stack, 0) \
                        or c.stop_period is not None and k >= c.stop_period:
                    continue
                busy = s.busy_card_hours[c.id]
                for src in SOURCES_SERVE:
                    cost = self.source_cost(c, src, busy, k) if src != "spot" else None
                    if cost is None:
                        continue
                    j = self.prog.var(("serve", src, c.id, s.id, k), cost)
                    terms.append((j, 1.0))
                    self.allocate(j, c, src, k, s.id, busy, peak)
            self.prog.row(terms, share, share)

    def vouchers(self) -> None:
        """Compute vouchers: in each year, what each pays (an inflow at the year's end) is no
        more than its share of the rent of its supplies (or its amount per card-hour rented)
        and its cap; together no more than that rent."""
        if not self.p.vouchers:
            return
        per_year, prog = self.p.periods.per_year, self.prog
        years = range(self.P // per_year)

        def rent(supplies: set[str], y: int, by: dict[tuple[str, int], Terms],
                 scale: float) -> Terms:
            return [(j, -v * scale) for s in sorted(supplies)
                    for k in range(y * per_year, (y + 1) * per_year)
                    for j, v in by.get((s, k), [])]

        everyone: set[str] = set()
        paid: dict[int, Terms] = {y: [] for y in years}
        for v in self.p.vouchers:
            everyone |= set(v.supplies)
            by = self.rent_paid if v.kind == "share" else self.rent_hours
            for y in years:
                j = prog.var(("voucher", v.id, y + 1),
                             -self.year_end[(y + 1) * per_year - 1] * self.kept_income,
                             0.0, np.inf if v.cap is None else v.cap)
                prog.row([(j, 1.0)] + rent(set(v.supplies), y, by, v.rate), -np.inf, 0.0)
                paid[y].append((j, 1.0))
        for y in years:
            prog.row(paid[y] + rent(everyone, y, self.rent_paid, 1.0), -np.inf, 0.0)

    def limits(self) -> None:
        """Capacity and peak rows, the ports' links, and each site's power budget (its energy
        quota): the owned servers standing there in a period draw no more."""
        prog = self.prog
        for rows in (self.own_hours, self.own_peak, self.res_hours, self.res_peak):
            for terms in rows.values():
                if len(terms) > 1:
                    prog.row(terms, -np.inf, 0.0)
        most = {t.id: sum(r for _a, _b, r in t.windows) for t in self.p.training}
        most.update({s.id: float(sum(s.traffic)) for s in self.p.serving})
        for (stack, wid), terms in self.uses.items():
            # a stack's cards do a workload's work only while the plan uses (has ported) it
            prog.row(terms + [(self.port[stack], -most[wid])], -np.inf, 0.0)
        self.vouchers()
        for (card, _quarter), terms in self.orders.items():  # the vendors' quotas
            most = self.p.supply_limit_cards_per_quarter.get(card)
            if most is not None:
                prog.row(terms, -np.inf, most)
        for (site, _k), terms in self.power.items():
            budget = self.p.power_budget_kw.get(site)
            if budget is not None:
                prog.row(terms, -np.inf, budget)
