"""Methodology §19, the money of a plan: what one unit of each supply costs, and the cash flows
and NPV of a fixed plan (the quantities the planner chose, tco/plan/).

Two parts, one definition of each figure:

* `unit(...)`: what one server bought or leased, one card reserved or rented for an hour, one
  busy card-hour and one period of a serving workload's traffic cost, as formulas of the
  supplying candidate's own quantities and inputs (its capex lines per server, its running
  costs per server, its rent prices). The planner evaluates these to price its program.
* `plan_money(...)`: with the plan's quantities as inputs (`plans.<id>.buy.<supply>.<period>`
  and so on, chosen by the planner and editable like any input), each period's costs, their
  present value and the plan's NPV, as quantities of the model: the workbook writes them as
  live formulas, Monte Carlo re-costs a fixed plan per draw, the live page re-costs it.

Conventions (methodology §7): costs are positive; a purchase is paid at the start of the period
it is ordered in; every running cost counts at the end of the year it falls in (period k of m
months falls in year floor(k·m/12) + 1); the resale value of what is owned comes back at the
horizon. Year t is discounted by (1 + r)^t, a purchase at month n by (1 + r)^(n/12).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ..expr import AND, IF, MAX, MIN, ROUNDUP, SUM, Const, Expr, Ref
from .base import Builder, Model, a, fin
from .units import HOURS_PER_YEAR, MONTHS_PER_YEAR, W_PER_KW, WEEKS_PER_YEAR

# A plan's cost per period, by component, in the order every table shows them.
PLAN_COMPONENTS = ("capex", "vat", "vat_recovered", "upkeep", "electricity", "lease", "rent",
                   "api", "porting", "porting_maintenance", "shortfall")
PLAN_COMPONENT_LABELS = {
    "capex": "Purchases (net of VAT)", "vat": "VAT on purchases",
    "vat_recovered": "VAT recovered", "upkeep": "Upkeep of owned servers",
    "electricity": "Electricity of work", "lease": "Lease payments", "rent": "Cloud rent",
    "api": "API fees", "porting": "Porting (one-time)",
    "porting_maintenance": "Porting maintenance", "shortfall": "Work left undone (fallback)",
}
# Paid at the start of the period (purchases); the rest at the end of the period's year.
AT_START = ("capex", "vat", "porting")
TERM_MONTHS = {"committed": 12, "committed_3yr": 36}


@dataclass(frozen=True)
class PlanShape:
    """One plan as the model sees it: its time grid, the supplies it may use and the plan
    quantities it has (each an input `plans.<id>.<key>`, `key` dotted). The optimal plan is
    `plan`; a plan restricted to one typed option is `plan-<option>`."""

    id: str
    option: str  # "" for the optimal plan, else the option it is restricted to
    months: int  # per period
    periods: int
    supplies: tuple[str, ...]  # candidate ids whose cards (and inputs) the plan may use
    stacks: tuple[tuple[str, str], ...]  # (stack, the supply whose port it is priced by)
    keys: tuple[tuple[str, ...], ...] = ()  # the plan's nonzero quantities (see plan_money)
    training: tuple[tuple[str, tuple[tuple[int, int, float], ...]], ...] = ()  # w, windows
    serving: tuple[tuple[str, tuple[float, ...]], ...] = ()  # w, traffic share per period
    api: tuple[tuple[str, str], ...] = ()  # (api option, serving workload) it may call
    lease_term_months: float = 0.0

    def path(self, key: tuple[str, ...]) -> str:
        return f"plans.{self.id}." + ".".join(key)

    @property
    def per_year(self) -> int:
        return int(MONTHS_PER_YEAR) // self.months


@dataclass(frozen=True)
class Unit:
    """What one unit of a supply costs (formulas of the supplying candidate, `cid`)."""

    cid: str
    server_price: Expr  # one server bought, net of VAT: cards with spares, server, network,
    # shared storage, cooling and installation
    vat: Expr  # VAT paid on it
    vat_back: Expr  # the part of that VAT recovered (end of the year of the purchase)
    upkeep: Expr  # one installed server for one period: colocation, support, licences,
    # operations staff and idle power
    busy: Expr  # one card-hour of work on an owned card: electricity above idle
    server_kw: Expr  # facility power one server needs (IT x PUE)
    lead_periods: Expr  # from the order to the server installed, in whole periods
    cards_per_server: Expr
    hours: float  # hours in one period


def unit(cid: str, inputs_of: str, months: int) -> Unit:
    """One server of candidate `cid`'s cluster (reading the inputs of `inputs_of`), priced as
    its own capex and running-cost lines price its whole cluster (methodology §5, §6), per
    server."""
    def own(key: str) -> Ref:
        return Ref(f"{cid}.{key}")

    def given(key: str) -> Ref:
        return Ref(f"candidates.{inputs_of}.{key}")

    nodes = MAX(own("nodes"), 1)
    per_year = MONTHS_PER_YEAR / months
    hours = HOURS_PER_YEAR * months / MONTHS_PER_YEAR
    bought = (own("capex_cards") + own("capex_servers") + own("capex_network")
              + own("capex_storage") + own("capex_cooling") + own("capex_installation"))
    vat = bought / nodes * fin("vat_rate")
    running = (own("colocation_per_year") + own("support_per_year")
               + own("storage_support_per_year") + own("licences_per_year")
               + own("operations_staff_per_year")) / nodes / per_year
    price_kwh = Ref("facility.electricity_price_per_kwh")
    pue = given("pue")
    idle = own("idle_power_w") / nodes * hours * pue / W_PER_KW * price_kwh
    cards = MAX(given("cards"), 1)
    busy = ((own("training_power_w") - own("idle_power_w")) / cards * pue / W_PER_KW
            * price_kwh)
    weeks = WEEKS_PER_YEAR * months / MONTHS_PER_YEAR
    lead = ROUNDUP(given("lead_time_weeks") / weeks)
    return Unit(cid, bought / nodes, vat, vat * fin("vat_recoverable_fraction"),
                running + idle, busy, own("facility_power_kw") / nodes, lead,
                given("cards_per_node"), hours)


def book_fraction(age_years: Expr | float) -> Expr:
    """The share of its price an owned server is worth at `age_years` (methodology §6's
    residual value: straight-line to the residual fraction over the depreciation life)."""
    rvf = fin("residual_value_fraction")
    return rvf + (1 - rvf) * MAX(0, 1 - age_years / fin("depreciation_years"))


def discount_start(months: float) -> Expr:
    return (1 + fin("discount_rate")) ** (-months / MONTHS_PER_YEAR)


def discount_year(year: int) -> Expr:
    return (1 + fin("discount_rate")) ** (-year)


@dataclass(frozen=True)
class Supply:
    """A card the plan may get: the typed candidate whose cluster prices it, and how."""

    cid: str
    inputs_of: str
    stack: str
    buy: bool
    lease: bool
    rent: tuple[str, ...]  # the tiers it may be rented at: on_demand and the scenario's tier


def rent_price(s: Supply, tier: str) -> Expr:
    """Rent per useful card-hour at `tier`: on demand, or the scenario's tier (its price is
    `cloud_price_per_card_hour`; spot's already counts the work preemption loses)."""
    key = "on_demand_price_per_card_hour" if tier == "on_demand" else "cloud_price_per_card_hour"
    return Ref(f"candidates.{s.inputs_of}.{key}")


def lease_payment(s: Supply, months: int) -> Expr:
    """One leased server's payment per period (the lease of its cluster, per server)."""
    return (Ref(f"{s.cid}.lease_payment_per_month") / MAX(Ref(f"{s.cid}.nodes"), 1) * months)


def serving_hours(s: Supply, wid: str, hours: float) -> Expr:
    """Card-hours a period of a serving workload's full traffic keeps busy on `s`'s cards."""
    return Ref(f"{s.cid}.{wid}.average_cards_busy") * hours


def api_cost(aid: str, wid: str, per_year: int) -> Expr:
    """A period of serving workload `wid`'s full traffic on API option `aid`."""
    return Ref(f"{aid}.{wid}.cost_per_job") / per_year


def run_fallback(supplies: Iterable[Supply], wid: str, window_weeks: float, runs: float
                 ) -> Expr:
    """What a run of training workload `wid` left undone in its window costs: renting its
    card-hours on demand on the dearest card the scenario offers (each card's on-demand
    price, or the same sustained compute on the cheapest card a cloud rents:
    `shortfall_rent_price`, methodology §8), and the business's cost of delay for its share
    of the window. The dearest, so that a plan never leaves work undone while some way to do
    it exists: what is undone is what no supply could do in time."""
    rents = [Ref(f"{s.cid}.{wid}.gpu_hours") * Ref(f"{s.cid}.shortfall_rent_price")
             for s in supplies]
    delay = Ref("cost_of_delay_per_week") * window_weeks / max(runs, 1e-12)
    return (MAX(*rents) if rents else Const(0.0)) + delay


def serve_fallback(supplies: Iterable[Supply], apis: Iterable[str], wid: str, months: int
                   ) -> Expr:
    """What a period of serving workload `wid`'s full traffic left unserved costs: the
    dearest of its API options and of renting the busy card-hours on demand (as above), and
    the cost of delay for the period."""
    per_year = int(MONTHS_PER_YEAR) // months
    hours = HOURS_PER_YEAR / per_year
    ways: list[Expr] = [api_cost(aid, wid, per_year) for aid in apis]
    ways += [serving_hours(s, wid, hours) * Ref(f"{s.cid}.shortfall_rent_price")
             for s in supplies]
    delay = Ref("cost_of_delay_per_week") * WEEKS_PER_YEAR / per_year
    return (MAX(*ways) if ways else Const(0.0)) + delay


def plan_money(model: Model, shape: PlanShape, supplies: Mapping[str, Supply], money: str,
               horizon: int, fallbacks: Mapping[str, Expr]) -> Ref:
    """Each period's costs of the fixed plan `shape`, their present value and the plan's NPV
    (`<plan>.npv_tco`), as quantities of the model. Every cost is a plan quantity (an input)
    times a unit cost (`unit`, `rent_price`, ...): the planner priced its program with the
    same formulas, so the NPV here is its objective (tests compare them)."""
    b, m, P = Builder(model, shape.id), shape.months, shape.periods
    per_year, hours = shape.per_year, HOURS_PER_YEAR * shape.months / MONTHS_PER_YEAR
    for wid, expr in fallbacks.items():
        b.q(f"{wid}.fallback", expr, money,
            "What work of this workload left undone costs (a run, or a period of its traffic)",
            "plan")

    def x(*key: object) -> Ref:
        return Ref(shape.path(tuple(str(k) for k in key)))

    by_kind: dict[str, list[tuple[str, ...]]] = {}
    for key in shape.keys:
        by_kind.setdefault(key[0], []).append(key)
    cost: dict[int, dict[str, list[Expr]]] = {k: {c: [] for c in PLAN_COMPONENTS}
                                              for k in range(P)}
    units = {s: unit(s, supplies[s].inputs_of, m) for s in shape.supplies}
    residual: list[Expr] = []
    after: list[Expr] = []  # leases and reservations paid past the horizon: present value
    lead: dict[str, Ref] = {}
    for s in shape.supplies:
        u = units[s]
        buys = [int(k[2]) for k in by_kind.get("buy", []) if k[1] == s]
        leases = [int(k[2]) for k in by_kind.get("lease", []) if k[1] == s]
        if not buys and not leases:
            continue
        lead[s] = b.q(f"{s}.lead_periods", u.lead_periods, "periods",
                      f"Periods from an order of {s}'s servers to their installation", "plan")
        term = ROUNDUP(fin("lease_term_months") / m) if leases else Const(0.0)
        for j in buys:
            n = x("buy", s, j)
            cost[j]["capex"].append(n * u.server_price)
            cost[j]["vat"].append(n * u.vat)
            cost[j]["vat_recovered"].append(n * u.vat_back)
            age = horizon - j * m / MONTHS_PER_YEAR
            residual.append(n * u.server_price * book_fraction(age))
        pay = lease_payment(supplies[s], m) if leases else Const(0.0)
        for j in leases:  # payments past the horizon are still owed
            n_term = int(round(float(shape.lease_term_months) / m))
            for k in range(max(P, j), j + n_term + 60):
                after.append(x("lease", s, j) * pay * IF(AND((lead[s] + j).le(k),
                                                             (lead[s] + j + term).gt(k)), 1, 0)
                             * discount_year(k // per_year + 1))
        for k in range(P):
            owned: list[Expr] = [x("buy", s, j) * IF((lead[s] + j).le(k), 1, 0)
                                 for j in buys if j <= k]
            leased = [x("lease", s, j) * IF(AND((lead[s] + j).le(k), (lead[s] + j + term).gt(k)),
                                            1, 0) for j in leases if j <= k]
            if not owned and not leased:
                continue
            servers = b.q(f"{s}.p{k}.servers", SUM(*(owned + leased)), "servers",
                          f"{s}'s servers installed in period {k}", "plan")
            cost[k]["upkeep"].append(servers * u.upkeep)
            if leased:
                cost[k]["lease"].append(SUM(*leased) * pay)
    for key in by_kind.get("work", []) + by_kind.get("serve", []):
        kind, src, s, wid, k = key[0], key[1], key[2], key[3], int(key[4])
        sup = supplies[s]
        card_h = (Ref(f"{s}.{wid}.gpu_hours") if kind == "work"
                  else serving_hours(sup, wid, hours))
        used = x(*key) * card_h
        if src == "owned":
            cost[k]["electricity"].append(used * units[s].busy)
        elif src in ("on_demand", "spot"):
            cost[k]["rent"].append(used * rent_price(sup, src))
    for key in by_kind.get("reserve", []):
        _kind, s, tier, j = key[0], key[1], key[2], int(key[3])
        term_p = TERM_MONTHS[tier] // m
        for k in range(j, min(j + term_p, P)):
            cost[k]["rent"].append(x(*key) * hours * rent_price(supplies[s], tier))
    for key in by_kind.get("reserve", []):
        _kind, s, tier, j = key[0], key[1], key[2], int(key[3])
        for k in range(P, j + TERM_MONTHS[tier] // m):
            after.append(x(*key) * hours * rent_price(supplies[s], tier)
                         * discount_year(k // per_year + 1))
    for key in by_kind.get("api", []):
        aid, wid, k = key[1], key[2], int(key[3])
        cost[k]["api"].append(x(*key) * api_cost(aid, wid, per_year))
    for key in by_kind.get("unserved", []):
        wid, k = key[1], int(key[2])
        cost[k]["shortfall"].append(x(*key) * Ref(f"{shape.id}.{wid}.fallback"))
    for key in by_kind.get("short", []):
        wid, wi = key[1], int(key[2])
        last = dict(shape.training)[wid][wi][1]
        cost[last]["shortfall"].append(x(*key) * Ref(f"{shape.id}.{wid}.fallback"))
    for key in by_kind.get("use", []):
        stack = key[1]
        s = dict(shape.stacks)[stack]
        cost[0]["porting"].append(x(*key) * Ref(f"{s}.porting_one_time"))
        for k in range(P):
            cost[k]["porting_maintenance"].append(
                x(*key) * Ref(f"{s}.porting_maintenance_per_year") / per_year)
    present = []
    for k in range(P):
        parts = {c: b.q(f"p{k}.{c}", SUM(*cost[k][c]) if cost[k][c] else Const(0.0), money,
                        PLAN_COMPONENT_LABELS[c] + f", period {k}", "plan")
                 for c in PLAN_COMPONENTS if cost[k][c] or c in ("capex",)}
        start = SUM(*[parts[c] for c in AT_START if c in parts]) if any(
            c in parts for c in AT_START) else Const(0.0)
        later = [parts[c] for c in parts if c not in AT_START and c != "vat_recovered"]
        back = parts.get("vat_recovered")
        year_end = SUM(*later) if later else Const(0.0)
        if back is not None:
            year_end = year_end - back
        pv = start * discount_start(k * m) + year_end * discount_year(k // per_year + 1)
        present.append(b.q(f"p{k}.present_value", pv, money,
                           f"Present value of period {k}'s costs", "plan"))
    resale = b.q("residual_value", SUM(*residual) if residual else Const(0.0), money,
                 "Resale value at the horizon of the servers bought (their book value)", "plan")
    owed = b.q("owed_after_horizon", SUM(*after) if after else Const(0.0), money,
               "Present value of reservations still owed after the horizon", "plan")
    return b.q("npv_tco", SUM(*present) + owed - resale * discount_year(horizon), money,
               "NPV of the plan", "plan")
