"""Methodology §6 (timeline): when an option's capacity can do useful work.

An owned cluster arrives after its lead time; a stack the team does not know must be ported
first, which takes `porting_months` of calendar time and starts when the option is chosen.
Year t (1..H) is the interval (t-1, t]: the share of it after delivery pays for the installed
hardware, the share after both delivery and the port (`ready_years`) does work on it.

Work is counted in years of planned runs. Runs that fall before there is capacity for them
are not lost: they wait (a backlog) and are done as soon as capacity allows: on an owned
cluster from its spare hours; rented (a rent option, or a hybrid's rented part) at once, since
renting scales out, from the year the port is done. A hybrid owns its cluster and rents what
the cluster cannot do in the year (while it is on order, and the peaks). What is still waiting
at the horizon is the plan's shortfall, shown with every option."""

from __future__ import annotations

from dataclasses import dataclass

from .. import modes
from ..expr import IF, MAX, MIN, SUM, Const, Expr, ExprLike, Ref
from .base import Builder, a
from .units import MONTHS_PER_YEAR, WEEKS_PER_YEAR


@dataclass(frozen=True)
class Timeline:
    installed: dict[int, Ref]  # year t (0..H) -> share of year t with the owned hardware in place
    ready: dict[int, Ref]  # year t -> share of year t with the owned capacity ready for work
    ported: dict[int, Ref]  # year t -> share of year t with the port done (renting can work)
    delay: Ref  # one-time: the cost of waiting from the order to the first useful work


def _after(t: int, start: ExprLike) -> Expr:
    """The share of year t (the interval t-1..t) after `start` years."""
    return MIN(1, MAX(0, t - start))


def waiting(x: Expr, waits: Expr | None) -> Expr:
    """`x` when the option waits for a delivery (`waits` None: no held stock)."""
    return x if waits is None else x * waits


def tranches(b: Builder, n: int) -> list[tuple[Expr, Expr]]:
    """Phased deliveries (`deliveries:`): each one's share of the cluster (normalised, so a
    what-if of one share keeps the whole cluster) and its lead time in years."""
    shares = [b.c(f"delivery.{k}.share") for k in range(1, n + 1)]
    total = SUM(*shares)
    return [(share / total, b.c(f"delivery.{k}.lead_time_weeks") / WEEKS_PER_YEAR)
            for k, share in zip(range(1, n + 1), shares)]


def timeline(b: Builder, horizon: int, stack: str, owned: bool, money: str,
             waits: Expr | None = None, deliveries: int = 0, bridged: bool = False,
             revoked: bool = False) -> Timeline:
    """`waits` (held stock only): 1 when the owned option waits for a delivery, 0 when held
    stock is the whole cluster; with some cards bought, the cluster counts from completion.
    `deliveries` (an owned option's phased deliveries, 0 for one): each share of the cluster
    is installed, and works, from its own delivery. `bridged` (a hybrid): renting does the
    work from the port on, whatever the delivery. `revoked`: the card's licence is revoked
    `licence_revoked_years` after the decision (methodology §21): no share of a year after it
    is ready for work or ported (renting it stops too), while the installed share, which its
    costs follow, stays."""
    c, q = b.c, b.q
    unfamiliar = 1 - Ref(f"team.familiarity.{stack}")
    porting = q("porting_months",
                c("porting_engineer_months") * unfamiliar / a("porting_team_engineers"),
                "months", "Calendar time to port the software to the stack", "horizon")
    ported = q("ported_years", porting / MONTHS_PER_YEAR, "years",
               "Time from the decision until the port is done", "horizon")
    phases = tranches(b, deliveries) if owned and deliveries else []
    first = MIN(*[years for _share, years in phases]) if phases else None
    delivered = q("delivery_years", first if first is not None else
                  waiting(c("lead_time_weeks") / WEEKS_PER_YEAR, waits) if owned
                  else Const(0.0), "years",
                  "Time from the order until the (first) hardware is installed (0 when rented)",
                  "horizon")
    ready = q("ready_years", MAX(delivered, ported), "years",
              "Time until the first useful work: hardware installed and port done", "horizon")
    # the first useful work: rented (and a hybrid's bridge) from the port on; owned once
    # delivered and ported; phased, each share from its own (weighted by the share it brings)
    if bridged or not owned:
        waited: Expr = ported
    elif phases:
        waited = SUM(*[share * MAX(years, ported) for share, years in phases])
    else:
        waited = ready
    weeks = q("delay_weeks", waited * WEEKS_PER_YEAR, "weeks",
              "Weeks from the order to the first useful work (delivery and porting; phased "
              "deliveries weighted by the share each brings)", "horizon")
    delay = q("lead_time_delay_cost", weeks * Ref("cost_of_delay_per_week"), money,
              "Cost of delay from the order to the first useful work", "horizon")
    out = Timeline({}, {}, {}, delay)
    for t in range(horizon + 1):  # year 0 (the decision) has no share of any year: 0
        installed: Expr = _after(t, delivered) if owned else Const(0.0)
        working: Expr = _after(t, ready) if owned else Const(0.0)
        if phases:  # each share from its own delivery (and the port)
            installed = SUM(*[share * _after(t, years) for share, years in phases])
            working = SUM(*[share * _after(t, MAX(years, ported)) for share, years in phases])
        ported_t: Expr = _after(t, ported)
        if revoked:  # nothing works after the revocation; the hardware stays installed
            gone = _after(t, c("licence_revoked_years"))
            working = MAX(0, working - gone)
            ported_t = MAX(0, ported_t - gone)
        out.installed[t] = q("installed_share", installed, "fraction",
                             f"Share of year {t} with the owned hardware in place", "year",
                             year=t)
        out.ready[t] = q("ready_share", working, "fraction",
                         f"Share of year {t} with the owned capacity ready for work", "year",
                         year=t)
        out.ported[t] = q("ported_share", ported_t, "fraction",
                          f"Share of year {t} with the port done", "year", year=t)
    return out


@dataclass(frozen=True)
class Work:
    owned: dict[int, Ref]  # year t -> planned-years of work done on owned capacity
    rented: dict[int, Ref]  # year t -> planned-years of work done on rented capacity
    done: dict[int, Ref]  # year t -> planned-years of work delivered
    backlog: dict[int, Ref]  # year t -> planned-years of runs still waiting at its end


RENTED_CAPACITY = 1e9  # planned-years of work renting can do in a year: unbounded


def plan_work(b: Builder, horizon: int, tl: Timeline, demand_h: Ref, available_h: Ref,
              acquire: str) -> Work:
    """Year by year, in years of planned runs: what owned and rented capacity do, the backlog
    of runs that waited for capacity included, and the backlog left."""
    q, zero = b.q, Const(0.0)
    spare = q("capacity_per_demand",
              IF(demand_h.gt(0), available_h / MAX(demand_h, 1e-12), 0) if acquire != modes.RENT
              else zero, "ratio", "Hours the owned cluster can run per hour the planned runs "
              "need", "horizon")
    out = Work({}, {}, {}, {})
    backlog: Expr = zero
    for t in range(horizon + 1):
        due = zero if t == 0 else 1 + backlog
        own = MIN(spare * tl.ready[t], due)
        out.owned[t] = q("own_work_share", own, "fraction",
                         f"Year {t}'s work on owned capacity, in years of planned runs (above 1 "
                         "when catching up)", "year", year=t)
        rented = (IF(tl.ported[t].gt(0), due - out.owned[t], 0) if acquire in (modes.RENT, modes.HYBRID)
                  else zero)
        out.rented[t] = q("rented_work_share", rented, "fraction",
                          f"Year {t}'s work on rented capacity, in years of planned runs",
                          "year", year=t)
        out.done[t] = q("work_share", out.owned[t] + out.rented[t], "fraction",
                        f"Year {t}'s work delivered, in years of planned runs", "year", year=t)
        backlog = out.backlog[t] = q("backlog", due - out.done[t], "fraction",
                    f"Planned runs still waiting at the end of year {t}, in years of planned "
                    "runs", "year", year=t)
    return out
