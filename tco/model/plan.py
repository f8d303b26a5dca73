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

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..expr import AND, IF, MAX, MIN, ROUNDUP, SUM, Const, Expr, Ref
from .base import Builder, Model, fin, site_inputs
from .depreciation import book_fraction, market_curve
from .tax import rd_factor, tax_schedule
from .units import HOURS_PER_YEAR, MONTHS_PER_YEAR, W_PER_KW, WEEKS_PER_YEAR

# A plan's cost per period, by component, in the order every table shows them.
PLAN_COMPONENTS = ("capex", "vat", "vat_recovered", "upkeep", "electricity", "lease", "rent",
                   "voucher", "api", "porting", "porting_maintenance", "shortfall")
PLAN_COMPONENT_LABELS = {
    "capex": "Purchases (net of VAT)", "vat": "VAT on purchases",
    "vat_recovered": "VAT recovered", "upkeep": "Upkeep of owned servers",
    "electricity": "Electricity of work", "lease": "Lease payments", "rent": "Cloud rent",
    "voucher": "Compute vouchers (rent they pay)",
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
    # compute vouchers: (id, "share" | "per_card_hour", has a cap, the supplies it pays for)
    vouchers: tuple[tuple[str, str, bool, tuple[str, ...]], ...] = ()

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


def unit(cid: str, inputs_of: str, months: int, site: tuple[str, ...] = ("",)) -> Unit:
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
    at = site_inputs(site, inputs_of)  # its site's tariff and PUE (methodology §3, Sites)
    price_kwh, pue = at.electricity_price, at.pue
    idle = own("idle_power_w") / nodes * hours * pue / W_PER_KW * price_kwh
    cards = MAX(given("cards"), 1)
    busy = ((own("training_power_w") - own("idle_power_w")) / cards * pue / W_PER_KW
            * price_kwh)
    weeks = WEEKS_PER_YEAR * months / MONTHS_PER_YEAR
    lead = ROUNDUP(given("lead_time_weeks") / weeks)
    return Unit(cid, bought / nodes, vat, vat * fin("vat_recoverable_fraction"),
                running + idle, busy, own("facility_power_kw") / nodes, lead,
                given("cards_per_node"), hours)


def resale_fraction(age_years: Expr | float, supply: Supply | None = None) -> Expr:
    """The share of its price an owned server of `supply` is worth at `age_years`
    (methodology §6's residual value): its card class's used-market curve where the catalog
    has one, else the book value (tco/model/depreciation.py, the one definition of each)."""
    if supply is not None and supply.resale_curve:
        return market_curve(supply.inputs_of).book_fraction(age_years)
    return book_fraction(age_years)


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
    site: tuple[str, ...] = ("",)  # the site its servers run at, as Structure.sites lists it
    resale_curve: bool = False  # resold on its card class's used-market curve (§6)


def rent_price(s: Supply, tier: str) -> Expr:
    """Rent per useful card-hour at `tier`: on demand, or the scenario's tier (its price is
    `cloud_price_per_card_hour`; spot's already counts the work preemption loses)."""
    key = "on_demand_price_per_card_hour" if tier == "on_demand" else "cloud_price_per_card_hour"
    return Ref(f"candidates.{s.inputs_of}.{key}")


def price_path(s: Supply, key: str, years: float) -> Expr:
    """What a price of `s`'s card moves by from the decision to `years` later (methodology
    §19, "Price paths"): (1 + change per year)^years, `key` card_price_change_per_year (a
    server ordered then) or rent_change_per_year (a card-hour rented then, a reservation
    started then)."""
    return (1 + Ref(f"candidates.{s.inputs_of}.{key}")) ** years


def first_order_month(s: Supply) -> Expr:
    """Months from the decision until `s`'s card may be ordered or rented (0: on sale)."""
    return Ref(f"candidates.{s.inputs_of}.available_in_months")


def lease_payment(s: Supply, months: int) -> Expr:
    """One leased server's payment per period (the lease of its cluster, per server)."""
    return (Ref(f"{s.cid}.lease_payment_per_month") / MAX(Ref(f"{s.cid}.nodes"), 1) * months)


def serving_hours(s: Supply, wid: str, hours: float) -> Expr:
    """Card-hours a period of a serving workload's full traffic keeps busy on `s`'s cards."""
    return Ref(f"{s.cid}.{wid}.average_cards_busy") * hours


def api_cost(aid: str, wid: str, per_year: int) -> Expr:
    """A period of serving workload `wid`'s full traffic on API option `aid`."""
    return Ref(f"{aid}.{wid}.cost_per_job") / per_year


@dataclass(frozen=True)
class Fallback:
    """What work left undone costs, in two parts taxed differently (methodology §20): `work`,
    the dearest way to do it (a cost, qualifying R&D), and `delay`, the business's cost of
    delay (income forgone: deducted once, never as R&D)."""

    work: Expr
    delay: Expr


def run_fallback(supplies: Iterable[Supply], wid: str, window_weeks: float, runs: float,
                 owned: Iterable[Supply] = ()) -> Fallback:
    """What a run of training workload `wid` left undone in its window costs: renting its
    card-hours on demand on the dearest card the scenario offers (each card's on-demand
    price, or the same sustained compute on the cheapest card a cloud rents:
    `shortfall_rent_price`, methodology §8), and the business's cost of delay for its share
    of the window. The dearest, so that a plan never leaves work undone while some way to do
    it exists: what is undone is what no supply could do in time. Where no cloud rents a card
    that can run it, the ways are owning one (`owned`): each bought or leased option's
    levelized cost per run over the horizon (`cost_per_run_horizon`, §8), the dearest of them;
    without it the work would be priced at its delay alone, and a plan could leave undone
    work the scenario's own options do."""
    rents = [Ref(f"{s.cid}.{wid}.gpu_hours") * Ref(f"{s.cid}.shortfall_rent_price")
             for s in supplies]
    rents += [Ref(f"{s.cid}.{wid}.cost_per_run_horizon") for s in owned]
    delay = Ref("cost_of_delay_per_week") * window_weeks / max(runs, 1e-12)
    return Fallback(MAX(*rents) if rents else Const(0.0), delay)


def serve_fallback(supplies: Iterable[Supply], apis: Iterable[str], wid: str, months: int,
                   owned: Iterable[Supply] = ()) -> Fallback:
    """What a period of serving workload `wid`'s full traffic left unserved costs: the
    dearest of its API options and of renting the busy card-hours on demand (as above), and
    the cost of delay for the period. Where no API serves it and no cloud rents a card that
    can, the ways are owning one (`owned`): each bought or leased option's share of its NPV
    for the workload over its discounted years of work, a period's part of it."""
    per_year = int(MONTHS_PER_YEAR) // months
    hours = HOURS_PER_YEAR / per_year
    ways: list[Expr] = [api_cost(aid, wid, per_year) for aid in apis]
    ways += [serving_hours(s, wid, hours) * Ref(f"{s.cid}.shortfall_rent_price")
             for s in supplies]
    ways += [Ref(f"{s.cid}.{wid}.npv_tco_share")
             / MAX(Ref(f"{s.cid}.discounted_work_years"), 1e-12) / per_year for s in owned]
    delay = Ref("cost_of_delay_per_week") * WEEKS_PER_YEAR / per_year
    return Fallback(MAX(*ways) if ways else Const(0.0), delay)


def plan_money(model: Model, shape: PlanShape, supplies: Mapping[str, Supply], money: str,
               horizon: int, fallbacks: Mapping[str, Fallback]) -> Ref:
    """Each period's costs of the fixed plan `shape`, their present value and the plan's NPV
    (`<plan>.npv_tco`), as quantities of the model. Every cost is a plan quantity (an input)
    times a unit cost (`unit`, `rent_price`, ...): the planner priced its program with the
    same formulas, so the NPV here is its objective (tests compare them)."""
    return _Money(model, shape, supplies, money, horizon, fallbacks).npv()


class _Money:
    """The quantities of one plan's money, added supply by supply and kind by kind."""

    def __init__(self, model: Model, shape: PlanShape, supplies: Mapping[str, Supply],
                 money: str, horizon: int, fallbacks: Mapping[str, Fallback]) -> None:
        self.b, self.shape, self.supplies = Builder(model, shape.id), shape, supplies
        self.money, self.horizon, self.P = money, horizon, shape.periods
        self.per_year = shape.per_year
        self.hours = HOURS_PER_YEAR * shape.months / MONTHS_PER_YEAR
        for wid, fb in fallbacks.items():
            delay = self.b.q(f"{wid}.fallback_delay", fb.delay, money, "The cost of delay in "
                             "what work of this workload left undone costs (income forgone)",
                             "plan")
            self.b.q(f"{wid}.fallback", fb.work + delay, money, "What work of this workload "
                     "left undone costs (a run, or a period of its traffic)", "plan")
        # [period] the cost of delay within the work left undone then (taxed apart, §20)
        self.delay: dict[int, list[Expr]] = {k: [] for k in range(self.P)}
        self.cost: dict[int, dict[str, list[Expr]]] = {
            k: {c: [] for c in PLAN_COMPONENTS} for k in range(self.P)}
        self.units = {s: unit(s, supplies[s].inputs_of, shape.months, supplies[s].site)
                      for s in shape.supplies}
        self.residual: list[Expr] = []
        # each purchase (methodology §20): its supply, period, cost and one server's price
        self.bought: list[tuple[str, int, Expr, Expr]] = []
        self.parts: list[dict[str, Ref]] = []  # each period's components (total())
        self.after: list[Expr] = []  # leases and reservations owed past the horizon: PV
        self.by_kind: dict[str, list[tuple[str, ...]]] = {}
        # each supply's rent and card-hours rented per period (for the vouchers)
        self.rent_of: dict[tuple[str, int], list[Expr]] = {}
        self.hours_of: dict[tuple[str, int], list[Expr]] = {}
        for key in shape.keys:
            self.by_kind.setdefault(key[0], []).append(key)

    def x(self, *key: object) -> Ref:
        return Ref(self.shape.path(tuple(str(k) for k in key)))

    def npv(self) -> Ref:
        for s in self.shape.supplies:
            self.owned(s)
        self.work()
        self.reservations()
        self.vouchers()
        self.calls()
        return self.total()

    def vouchers(self) -> None:
        """What the compute vouchers pay of each year's rent, in the year's last period: each
        its share of its supplies' rent (or its amount per card-hour rented), to its cap, and
        together no more than that rent (tco.model.cashflows.voucher, per option)."""
        if not self.shape.vouchers:
            return
        per_year = self.per_year

        def year_sum(by: dict[tuple[str, int], list[Expr]], supplies: set[str], y: int) -> Expr:
            terms = [e for sid in sorted(supplies) for k in range(y * per_year, (y + 1) * per_year)
                     for e in by.get((sid, k), [])]
            return SUM(*terms) if terms else Const(0.0)

        everyone: set[str] = set()
        for y in range(self.P // per_year):
            paid: list[Expr] = []
            for vid, kind, capped, supplies in self.shape.vouchers:
                everyone |= set(supplies)
                base = year_sum(self.rent_of if kind == "share" else self.hours_of,
                                set(supplies), y)
                amount = base * Ref(f"vouchers.{vid}.{kind}")
                paid.append(MIN(amount, Ref(f"vouchers.{vid}.cap_per_year")) if capped
                            else amount)
            rent = year_sum(self.rent_of, everyone, y)
            self.cost[(y + 1) * per_year - 1]["voucher"].append(
                Const(0.0) - MIN(rent, SUM(*paid)))

    def owned(self, s: str) -> None:
        """Servers bought and leased by supply `s`: purchases, upkeep while installed, lease
        payments, and the book value of what was bought at the horizon."""
        u, b, m, P = self.units[s], self.b, self.shape.months, self.P
        buys = [int(k[2]) for k in self.by_kind.get("buy", []) if k[1] == s]
        leases = [int(k[2]) for k in self.by_kind.get("lease", []) if k[1] == s]
        if not buys and not leases:
            return
        lead = b.q(f"{s}.lead_periods", u.lead_periods, "periods",
                   f"Periods from an order of {s}'s servers to their installation", "plan")
        term = ROUNDUP(fin("lease_term_months") / m) if leases else Const(0.0)
        for j in buys:
            n = self.x("buy", s, j)
            # the price on the card's path when ordered (methodology §19, "Price paths")
            path = price_path(self.supplies[s], "card_price_change_per_year",
                              j * m / MONTHS_PER_YEAR)
            paid = u.server_price * path
            self.cost[j]["capex"].append(n * paid)
            self.cost[j]["vat"].append(n * u.vat * path)
            self.cost[j]["vat_recovered"].append(n * u.vat_back * path)
            age = self.horizon - j * m / MONTHS_PER_YEAR
            self.residual.append(n * paid * resale_fraction(age, self.supplies[s]))
            self.bought.append((s, j, n * paid, paid))
        pay = lease_payment(self.supplies[s], m) if leases else Const(0.0)

        def leased_in(j: int, k: int) -> Expr:
            return IF(AND((lead + j).le(k), (lead + j + term).gt(k)), 1, 0)

        n_term = round(float(self.shape.lease_term_months) / m)
        for j in leases:  # payments past the horizon are still owed
            for k in range(max(P, j), j + n_term + 60):
                self.after.append(self.x("lease", s, j) * pay * leased_in(j, k)
                                  * discount_year(k // self.per_year + 1))
        for k in range(P):
            bought = [self.x("buy", s, j) * IF((lead + j).le(k), 1, 0) for j in buys if j <= k]
            leased = [self.x("lease", s, j) * leased_in(j, k) for j in leases if j <= k]
            if not bought and not leased:
                continue
            servers = b.q(f"{s}.p{k}.servers", SUM(*(bought + leased)), "servers",
                          f"{s}'s servers installed in period {k}", "plan")
            self.cost[k]["upkeep"].append(servers * u.upkeep)
            if leased:
                self.cost[k]["lease"].append(SUM(*leased) * pay)

    def work(self) -> None:
        """Work and traffic carried on cards: electricity on owned ones, rent per hour used."""
        for key in self.by_kind.get("work", []) + self.by_kind.get("serve", []):
            kind, src, s, wid, k = key[0], key[1], key[2], key[3], int(key[4])
            sup = self.supplies[s]
            card_h = (Ref(f"{s}.{wid}.gpu_hours") if kind == "work"
                      else serving_hours(sup, wid, self.hours))
            used = self.x(*key) * card_h
            if src == "owned":
                self.cost[k]["electricity"].append(used * self.units[s].busy)
            elif src in ("on_demand", "spot"):
                paid = used * rent_price(sup, src) * price_path(
                    sup, "rent_change_per_year", k * self.shape.months / MONTHS_PER_YEAR)
                self.cost[k]["rent"].append(paid)
                self.rent_of.setdefault((s, k), []).append(paid)
                # the card-hours rented: a spot price already counts the work preemption
                # loses (per useful card-hour), as the solver and a rented option count them
                self.hours_of.setdefault((s, k), []).append(used)

    def reservations(self) -> None:
        """Cards reserved: every hour of the term, those past the horizon still owed."""
        P, m = self.P, self.shape.months
        for key in self.by_kind.get("reserve", []):
            s, tier, j = key[1], key[2], int(key[3])
            sup = self.supplies[s]  # a reservation keeps the price of its start
            price = self.x(*key) * self.hours * rent_price(sup, tier) * price_path(
                sup, "rent_change_per_year", j * m / MONTHS_PER_YEAR)
            for k in range(j, j + TERM_MONTHS[tier] // m):
                if k < P:
                    self.cost[k]["rent"].append(price)
                    self.rent_of.setdefault((s, k), []).append(price)
                    self.hours_of.setdefault((s, k), []).append(self.x(*key) * self.hours)
                else:
                    self.after.append(price * discount_year(k // self.per_year + 1))

    def calls(self) -> None:
        """API fees, work left undone at its fallback, and the ports of the stacks used."""
        for key in self.by_kind.get("api", []):
            aid, wid, k = key[1], key[2], int(key[3])
            self.cost[k]["api"].append(self.x(*key) * api_cost(aid, wid, self.per_year))
        fallback = {wid: Ref(f"{self.shape.id}.{wid}.fallback")
                    for wid, _w in self.shape.training + self.shape.serving}
        windows = dict(self.shape.training)
        for key in self.by_kind.get("unserved", []) + self.by_kind.get("short", []):
            k = (int(key[2]) if key[0] == "unserved"
                 else windows[key[1]][int(key[2])][1])  # a run: its window's last period
            self.cost[k]["shortfall"].append(self.x(*key) * fallback[key[1]])
            self.delay[k].append(self.x(*key) * Ref(f"{self.shape.id}.{key[1]}.fallback_delay"))
        port_of = dict(self.shape.stacks)
        for key in self.by_kind.get("use", []):
            s = port_of[key[1]]
            self.cost[0]["porting"].append(self.x(*key) * Ref(f"{s}.porting_one_time"))
            for k in range(self.P):
                self.cost[k]["porting_maintenance"].append(
                    self.x(*key) * Ref(f"{s}.porting_maintenance_per_year") / self.per_year)

    def total(self) -> Ref:
        """Each period's components and present value, the resale and what is owed after
        the horizon, and the NPV."""
        b, money, m = self.b, self.money, self.shape.months
        present = []
        for k in range(self.P):
            parts = {c: b.q(f"p{k}.{c}", SUM(*self.cost[k][c]), money,
                            PLAN_COMPONENT_LABELS[c] + f", period {k}", "plan")
                     for c in PLAN_COMPONENTS if self.cost[k][c]}
            self.parts.append(parts)
            start = [parts[c] for c in AT_START if c in parts]
            later: Expr = SUM(*[parts[c] for c in parts
                                if c not in AT_START and c != "vat_recovered"] or [Const(0.0)])
            if "vat_recovered" in parts:
                later = later - parts["vat_recovered"]
            pv = (SUM(*start) * discount_start(k * m) if start else Const(0.0)) \
                + later * discount_year(k // self.per_year + 1)
            present.append(b.q(f"p{k}.present_value", pv, money,
                               f"Present value of period {k}'s costs", "plan"))
        resale = b.q("residual_value", SUM(*self.residual) if self.residual else Const(0.0),
                     money, "Resale value at the horizon of the servers bought (their book "
                     "value)", "plan")
        owed = b.q("owed_after_horizon", SUM(*self.after) if self.after else Const(0.0), money,
                   "Present value of leases and reservations still owed after the horizon",
                   "plan")
        npv = b.q("npv_tco", SUM(*present) + owed - resale * discount_year(self.horizon),
                  money, "NPV of the plan", "plan")
        self.after_tax(npv, resale, owed)
        return npv

    def after_tax(self, npv: Ref, resale: Ref, owed: Ref) -> Ref:
        """The plan's NPV after income tax (methodology §20), from the option model's
        schedule: running costs, rent, leases, API fees, ports and work left undone deducted
        as paid; each purchase deducted on the tax schedule from the tax year it is made in
        (what is left of it at the horizon then), and the resale taxed at the horizon.

        A period's deductions are one quantity that reads the period's components and, for
        each purchase, its cost times the present value of the deductions of one unit bought
        then (a quantity of its own, from the tax basis left after each tax year): a cell
        stays short however many supplies and periods the plan has."""
        b, money, m, H = self.b, self.money, self.shape.months, self.horizon
        factor = {(s, j): self.tax_factor(s, j, one) for s, j, _, one in self.bought}
        rd = rd_factor()
        periods: list[Expr] = []
        for k, parts in enumerate(self.parts):
            deducted: list[Expr] = []
            # qualifying R&D costs count rd times (a voucher, taxable income, once; the cost
            # of delay within work left undone, income forgone, once)
            later = [parts[c] * (1 if c == "voucher" else rd) for c in parts
                     if c not in AT_START and c not in ("vat_recovered", "shortfall")]
            if "shortfall" in parts:
                delay = b.q(f"p{k}.shortfall_delay", SUM(*self.delay[k]), money,
                            f"Cost of delay within the work left undone, period {k}", "plan")
                later.append((parts["shortfall"] - delay) * rd + delay)
            if later:
                deducted.append(SUM(*later) * discount_year(k // self.per_year + 1))
            if "porting" in parts:
                deducted.append(parts["porting"] * rd * discount_start(k * m))
            deducted += [cost * factor[s, j] for s, j, cost, _ in self.bought if j == k]
            if deducted:
                periods.append(b.q(f"p{k}.tax_deductions_present_value", SUM(*deducted), money,
                                   f"Present value of period {k}'s tax deductions", "plan"))
        # what is owed after the horizon is rent and lease payments: R&D costs as paid
        pv = b.q("tax_deductions_present_value", SUM(*periods, owed * rd), money,
                 "Present value of the plan's tax deductions (leases and reservations "
                 "owed after the horizon included)", "plan")
        rate = fin("tax_rate")
        return b.q("npv_tco_after_tax",
                   npv - rate * pv + rate * resale * discount_year(H), money,
                   "NPV of the plan after income tax", "plan")

    def tax_factor(self, s: str, j: int, one: Expr) -> Ref:
        """The present value of the tax deductions of one unit of money spent on supply `s`'s
        servers in period `j` (one server then costs `one`): its share deducted in each tax
        year it is held within the horizon, from the tax year of the purchase, and the basis
        left at the horizon, when it is sold; the charges while held count as R&D costs do
        (rd_factor)."""
        b, H, st = self.b, self.horizon, self.b.model.structure
        year = j // self.per_year + 1  # the tax year of the purchase
        schedule = tax_schedule(st.tax_depreciation, st.tax_table, one)
        left = [Const(1.0)] + [
            b.q(f"{s}.b{j}.tax_basis_left_y{t}", schedule.book_fraction(t), "fraction",
                f"Tax basis left of {s}'s servers bought in period {j} after {t} tax years",
                "plan") for t in range(1, H - year + 2)]
        pv = deductions_present_value(left, year, H)
        return b.q(f"{s}.b{j}.tax_deduction_factor", pv, "fraction",
                   f"Present value of the tax deductions per unit spent on {s}'s servers in "
                   f"period {j}", "plan")


def deductions_present_value(left: Sequence[Expr], year: int, horizon: int) -> Expr:
    """The present value of the tax deductions of one unit of money spent on equipment in tax
    year `year` (1 = the first) and sold at the horizon, from `left[t]`, the tax basis left
    after t tax years (left[0] = 1, t up to the years it is held): each year's depreciation
    charge, an R&D cost (rd_factor), at that year's end, and the basis left at the sale (not
    an R&D cost) at the horizon. The plan's money and the planner's costs both use it."""
    years = horizon - year + 1  # tax years it is held within the horizon
    return SUM(*[(left[t - 1] - left[t]) * discount_year(year + t - 1)
                 for t in range(1, years + 1)]) * rd_factor() + left[years] * discount_year(horizon)
