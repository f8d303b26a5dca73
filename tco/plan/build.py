"""The planner's problem from an evaluated model (methodology §19): which supplies a scenario
offers, what each unit of them costs (tco.model.plan's formulas, evaluated on the model's
numbers) and what each workload needs in each period.

A supply is a typed option that brings its own card and inputs (an option generated to rent
another's card rents that option's supply): it may be bought or leased as the option is, and
rented at on-demand and at the scenario's tier where a cloud sells the card. Its physics (a
run's card-hours, the cards a serving peak needs) is the option's own, as the model evaluated
it; nothing here recomputes a formula.
"""

from __future__ import annotations

import math
from collections import ChainMap
from collections.abc import Collection, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .. import modes
from ..expr import Const, Expr, Ref
from ..inputs import site_path
from ..model.plan import (
    Fallback,
    Supply,
    api_cost,
    deductions_present_value,
    first_order_month,
    lease_payment,
    price_path,
    rent_price,
    resale_fraction,
    run_fallback,
    serve_fallback,
    serving_hours,
    unit,
)
from ..model.tax import rd_factor, tax_schedule
from ..resolved import Structure
from ..sizing import RUN_WINDOW_DAYS
from .problem import Allowed, Card, Periods, Problem, Serving, Stack, Tax, Training, Voucher

MONTHS = {"month": 1, "quarter": 3}
RUN_WINDOW_WEEKS = 52.0  # a training run's window: a year of the plan, in weeks of delay


def fallbacks(st: Structure, sup: Mapping[str, Supply], training: Sequence[Training],
              serving: Sequence[Serving], months: int) -> dict[str, Fallback]:
    """What work left undone costs, by workload, the same in every plan (tco.model.plan's
    run_fallback and serve_fallback): a training run on the supplies that can run it whose
    shortfall is rented, a period of serving on those and on the APIs the problem priced it
    with; where there is none of these, on the bought and leased options that can do it. The problem is priced at their values (`problem`); a fixed plan's money writes
    them as formulas (tco.plan.plan_of), so the two cannot differ."""
    short = [s for s in sup.values() if s.cid in st.shortfall_rent]
    assigned = dict(zip(st.candidates, st.assigned)) if st.assigned else {}

    def owners(wid: str, able: Collection[str]) -> list[Supply]:
        """The bought and leased options that can do `wid` and carry it (an option given
        `workloads:` prices only those)."""
        return [s for s in sup.values() if (s.buy or s.lease) and s.cid in able
                and (not assigned.get(s.cid) or wid in assigned[s.cid])]

    out: dict[str, Fallback] = {}
    for t in training:
        runs = t.windows[0][2] if t.windows else 0.0
        able = set(t.able or t.card_hours_per_run)  # every way to do it, too slow or not
        rent = [s for s in short if s.cid in able]
        own = owners(t.id, able)
        out[t.id] = run_fallback(rent, t.id, RUN_WINDOW_WEEKS, runs, own)
    for w in serving:
        own = owners(w.id, w.busy_card_hours)
        out[w.id] = serve_fallback(short, list(w.api), w.id, months, own)
    return out


def supplies(st: Structure, infos: Mapping[str, Any]) -> dict[str, Supply]:
    """Every supply of the scenario, by the id of the option that brings it."""
    out: dict[str, dict[str, Any]] = {}
    for k, cid in enumerate(st.candidates):
        src = st.inputs_of[k]
        info = infos[cid]
        s = out.setdefault(src, {"stack": st.stacks[k], "buy": False, "lease": False,
                                 "rent": False,
                                 "site": st.site(st.site_of_candidate(k))})
        barred = cid in st.barred
        acquire = st.acquire[k]
        if acquire in (modes.BUY, modes.HYBRID) and not barred and not info.blocking:
            s["buy"] = True
        if acquire == modes.LEASE and not barred and not info.blocking:
            s["lease"] = True
        if cid in st.rent and not info.rent_blocking:  # a bar on renting bars the plan's too
            s["rent"] = True
    result = {}
    for src, s in out.items():
        tier = _tier(infos.get(src))
        rent = ("on_demand",) + ((tier,) if tier not in ("", "on_demand") else ()) if s["rent"] else ()
        result[src] = Supply(src, src, s["stack"], s["buy"], s["lease"], rent, s["site"],
                             src in st.resale_curve)
    return result


def _tier(info: Any) -> str:
    return getattr(info, "rent_tier", "") or "on_demand"


def problem(st: Structure, infos: Mapping[str, Any], env: Mapping[str, Any],
            months: int = 1) -> tuple[Problem, dict[str, Supply]]:
    """The planner's problem for an evaluated model (`env`: every input and quantity)."""
    periods = Periods(st.horizon_years * 12 // months, months, float(env["finance.discount_rate"]))
    sup = supplies(st, infos)
    P = periods.count
    # the plan is chosen on the NPV the options are ranked on (methodology §20)
    taxed = st.decision_basis == "after_tax"

    def val(expr: Any) -> float:
        return float(expr.evaluate(env))

    cards = [_card(st, infos, env, s, periods, taxed) for s in sup.values()]
    training, serving = [], []
    apis = {aid: tuple(wids) for aid, _name, *wids in st.api}
    per_year = periods.per_year
    for wid, _precision, kind in st.workloads:
        if kind == "serve":
            hours = periods.hours
            peak, busy = {}, {}
            for s in sup.values():
                if _ok(env, f"{s.cid}.{wid}.feasible"):
                    peak[s.cid] = float(env[f"{s.cid}.{wid}.cards_needed"])
                    busy[s.cid] = val(serving_hours(s, wid, hours))
            calls = {aid: tuple([val(api_cost(aid, wid, per_year))] * P)
                     for aid, wids in apis.items() if wid in wids}
            serving.append(Serving(wid, tuple([1.0] * P), peak, busy, calls, 0.0))
        else:
            runs = float(env[f"workloads.{wid}.runs_per_year"])
            able = tuple(s.cid for s in sup.values() if _ok(env, f"{s.cid}.{wid}.feasible")
                         and math.isfinite(float(env[f"{s.cid}.{wid}.gpu_hours"])))
            # a supply does a run if its run fits in the run's window (a year) on its cluster:
            # more clusters run more runs at once, not one run faster
            hours_per_run = {cid: float(env[f"{cid}.{wid}.gpu_hours"]) for cid in able
                             if float(env[f"{cid}.{wid}.wall_days"]) <= RUN_WINDOW_DAYS}
            windows = tuple((y * per_year, (y + 1) * per_year - 1, runs)
                            for y in range(st.horizon_years))
            training.append(Training(wid, hours_per_run, windows, 0.0, able))
    undone = fallbacks(st, sup, training, serving, months)
    training = [replace(t, shortfall_per_run=val(undone[t.id].work + undone[t.id].delay),
                        shortfall_delay_per_run=val(undone[t.id].delay)) for t in training]
    serving = [replace(w, shortfall_per_period=val(undone[w.id].work + undone[w.id].delay),
                       shortfall_delay_per_period=val(undone[w.id].delay)) for w in serving]
    stacks = _stacks(sup, env, months, per_year)
    # each site's power budget (its energy quota), where it gives one (methodology §3, Sites)
    budgets = {site[0]: float(env[site_path(site[0], "power_budget_kw")]) for site in st.sites
               if "power_budget_kw" in site[1:]}
    limits = {card: float(n) for card, n in st.supply_limits}
    return Problem(periods, tuple(cards), tuple(training), tuple(serving), tuple(stacks),
                   budgets, limits, vouchers(st, env),
                   Tax(float(env["finance.tax_rate"]), val(rd_factor())) if taxed else None), sup


def _card(st: Structure, infos: Mapping[str, Any], env: Mapping[str, Any], s: Supply,
          periods: Periods, taxed: bool) -> Card:
    """What supply `s` offers the plan and what each unit of it costs, period by period."""
    months, P = periods.months, periods.count

    def val(expr: Any) -> float:
        return float(expr.evaluate(env))

    u = unit(s.cid, s.inputs_of, months, s.site)
    owned = s.buy or s.lease
    price = val(u.server_price) if owned else 0.0
    vat, back = (val(u.vat), val(u.vat_back)) if owned else (0.0, 0.0)
    # on the card's price path (the plan's money, tco.model.plan, the same formula)
    card_path = [val(price_path(s, "card_price_change_per_year", periods.start_years(k)))
                 for k in range(P)]
    rent_path = [val(price_path(s, "rent_change_per_year", periods.start_years(k)))
                 for k in range(P)]
    # the VAT paid at the order and recovered at its year's end: as a price at the order
    gross = [(price + vat - back * periods.at_year_end(k) / periods.at_start(k))
             * card_path[k] for k in range(P)]
    resale = [price * card_path[k]
              * val(resale_fraction(periods.horizon_years - periods.start_years(k), s))
              / max(g, 1e-300) for k, g in enumerate(gross)] if owned else [0.0] * P
    deductions = _deductions(st, env, [price * card_path[k] for k in range(P)],
                             periods.per_year) if owned and taxed else []
    lease_pay = val(lease_payment(s, months)) if s.lease else 0.0
    term = round(float(env.get("finance.lease_term_months", 0) or 0) / months)
    return Card(
        id=s.cid, stack=s.stack,
        cards_per_server=round(val(u.cards_per_server)),
        lead_periods=int(val(u.lead_periods)) if owned else 0,
        buy=s.buy, lease=s.lease and lease_pay > 0 and term > 0,
        server_price=tuple(gross), upkeep_per_server_period=val(u.upkeep) if owned else 0.0,
        busy_per_card_hour=val(u.busy) if owned else 0.0,
        resale_fraction=tuple(resale), lease_payment_per_server_period=lease_pay,
        lease_term_periods=term, facility_kw_per_server=val(u.server_kw) if owned else 0.0,
        rent={t: tuple(val(rent_price(s, t)) * rent_path[k] for k in range(P))
              for t in s.rent},
        first_order_period=math.ceil(val(first_order_month(s)) / months - 1e-9),
        utilization=float(env["utilization"]), site=s.site[0],
        card=getattr(infos.get(s.cid), "card", ""),
        stop_period=_stop(env, st, s, months),
        tax_deductions_per_server=tuple(deductions))


def _deductions(st: Structure, env: Mapping[str, Any], server_price: Sequence[float],
                per_year: int) -> list[float]:
    """The present value of the tax deductions of one server bought in each period, whose
    price then is `server_price[k]` (tco.model.plan's formula, as the plan's money writes
    it; the schedule's expensing threshold compares that price): one evaluation per tax year,
    over its periods' prices at once."""
    import numpy as np

    out: list[float] = []
    for year in range(1, st.horizon_years + 1):
        prices = np.asarray(server_price[(year - 1) * per_year:year * per_year], dtype=float)
        schedule = tax_schedule(st.tax_depreciation, st.tax_table, Ref(_SERVER_PRICE))
        held = st.horizon_years - year + 1
        left: list[Expr] = [Const(1.0)] + [schedule.book_fraction(t) for t in range(1, held + 1)]
        pv = deductions_present_value(left, year, st.horizon_years).evaluate(
            ChainMap({_SERVER_PRICE: prices}, env))
        out.extend((prices * np.broadcast_to(pv, prices.shape)).tolist())
    return out


_SERVER_PRICE = "plan.server_price"  # one server's price, in _deductions' evaluations


def _stacks(sup: Mapping[str, Supply], env: Mapping[str, Any], months: int,
            per_year: int) -> list[Stack]:
    """Each software stack the supplies use, once: its port's cost, its months rounded up to
    whole periods, and its upkeep per period (from the first supply of the stack)."""
    stacks = []
    seen: set[str] = set()
    for s in sup.values():
        if s.stack in seen:
            continue
        seen.add(s.stack)
        port_months = float(env[f"{s.cid}.porting_months"])
        stacks.append(Stack(s.stack, float(env[f"{s.cid}.porting_one_time"]),
                            math.ceil(port_months / months - 1e-9),
                            float(env[f"{s.cid}.porting_maintenance_per_year"]) / per_year))
    return stacks


def voucher_supplies(st: Structure, applies: tuple[str, ...]) -> tuple[str, ...]:
    """The supplies whose rent a voucher pays: those of the options it applies to."""
    return tuple(sorted({st.inputs_of[st.candidates.index(cid)] for cid in applies}))


def vouchers(st: Structure, env: Mapping[str, Any]) -> tuple[Voucher, ...]:
    """The scenario's compute vouchers at their values (tco.resolve.vouchers)."""
    return tuple(Voucher(vid, kind, float(env[f"vouchers.{vid}.{kind}"]),
                         float(env[f"vouchers.{vid}.cap_per_year"]) if capped else None,
                         voucher_supplies(st, applies))
                 for vid, kind, capped, applies in st.vouchers if applies)


def _stop(env: Mapping[str, Any], st: Structure, s: Supply, months: int) -> int | None:
    """The first period a supply whose licence is revoked may do no work (None: never)."""
    if s.cid not in st.revoked:
        return None
    years = float(env[f"candidates.{s.inputs_of}.licence_revoked_years"])
    return math.ceil(years * 12 / months - 1e-9)


def _ok(env: Mapping[str, Any], name: str) -> bool:
    v = env.get(name)
    return v is not None and bool(v)


def restricted(option: str, st: Structure, sup: Mapping[str, Supply]) -> Allowed:
    """Only what typed option `option` may do: its own supply in its own mode (a hybrid buys
    and rents; a rented option rents at every tier its card has), or an API option's calls."""
    if option in st.candidates:
        k = st.candidates.index(option)
        src, acquire = st.inputs_of[k], st.acquire[k]
        modes = {"buy": {"buy"}, "lease": {"lease"}, "rent": {"rent"},
                 "hybrid": {"buy", "rent"}}.get(acquire, {acquire})
        return Allowed(frozenset((src, m) for m in modes), frozenset())
    return Allowed(frozenset(), frozenset({option}))
