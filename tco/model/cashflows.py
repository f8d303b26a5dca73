"""Methodology §7 and §8: the yearly cash flows, their NPV, and the horizon's levelized costs.

Costs are positive, inflows (residual value, loan proceeds) negative. Year 0 is the decision
(capex, one-time porting, cost of delay); the costs of year t (1..H) fall at its end, scaled by
the timeline (tco.model.timeline): installed hardware costs from delivery, power and work from
the day the capacity is ready; residual value at the end of year H. NPV discounts year t by
(1 + r)^t, so year 0 is undiscounted (numpy-financial's `npv` convention).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MAX, MIN, NPV0, SUM, Const, Expr, Ref
from .base import Builder, fin, w
from .capex import Capex
from .cluster import Cluster
from .lease import Lease
from .operations import Delivered, Hours, Running, year_costs
from .serving import DAYS_PER_YEAR
from .timeline import Timeline, Work
from .training import Run
from .units import RATE_AS_ZERO, TOKENS_PER_MILLION

# Cash-flow components, in the order every table shows them.
CAPEX_COMPONENTS = ("cards", "servers", "network", "storage", "cooling", "installation", "vat")
COMPONENTS = CAPEX_COMPONENTS + (
    "held_stock", "porting", "lead_time_delay", "electricity", "colocation", "support", "storage_support",
    "licences",
    "operations_staff", "porting_maintenance", "cloud_rent", "running_vat", "voucher",
    "financing", "residual_value",
)
COMPONENT_LABELS = {
    "cards": "Accelerators", "servers": "Servers", "network": "Network",
    "storage": "Shared storage", "storage_support": "Shared storage support",
    "cooling": "Cooling", "installation": "Installation",
    "vat": "VAT on the purchase (paid, then recovered)",
    "held_stock": "Held stock (resale forgone)", "porting": "Porting (one-time)",
    "lead_time_delay": "Delay to first useful work", "electricity": "Electricity",
    "colocation": "Colocation", "support": "Support", "licences": "Software licences",
    "operations_staff": "Operations staff", "porting_maintenance": "Porting maintenance",
    "cloud_rent": "Cloud rental",
    "running_vat": "VAT on electricity, colocation and cloud rent (not recovered)",
    "voucher": "Compute vouchers (rent paid by a voucher)",
    "financing": "Financing", "residual_value": "Residual value",
}
# The running costs that bear VAT (methodology §7, "VAT on running costs"), each at its rate
RUNNING_VAT = {"electricity": "vat_rate_electricity", "colocation": "vat_rate_colocation",
               "cloud_rent": "vat_rate_cloud"}
# Each year's totals, after its components: the net flow and the running (undiscounted) total.
YEAR_TOTALS = ("net", "cumulative")
# Each year's timeline (tco.model.timeline): shares of the year, and of a year's planned runs.
# Each year's income tax after them (tco.model.tax, methodology §20).
YEAR_TAX = ("tax_deductions", "income_tax", "net_after_tax")
YEAR_SHARES = ("installed_share", "ready_share", "ported_share", "own_work_share",
               "rented_work_share", "work_share", "backlog")



@dataclass(frozen=True)
class Horizon:
    npv: Ref
    annuity: Ref


@dataclass(frozen=True)
class Money:
    """What the cash flows are made of: capex, running costs and the physics they scale."""

    cx: Capex
    run: Running
    cl: Cluster
    h: Hours
    work: Delivered
    plan: Work
    owned: bool
    lease: Lease | None = None  # a leased option's flows (tco.model.lease), on `financing`
    rent: dict[int, Expr] | None = None  # a rented option's rent in years 1..H (tco.model.cloud)
    # the compute vouchers that apply to it: (id, "share" | "per_card_hour", has a cap)
    vouchers: tuple[tuple[str, str, bool], ...] = ()


def year_parts(b: Builder, t: int, horizon: int, m: Money, tl: Timeline) -> dict[str, Expr]:
    """Each component's flow in year t."""
    zero = Const(0.0)
    if t == 0:
        cx, run = m.cx, m.run
        parts: dict[str, Expr] = {comp: zero for comp in COMPONENTS}
        parts.update(cards=cx.cards, servers=cx.servers, network=cx.network, storage=cx.storage,
                     cooling=cx.cooling, installation=cx.installation, vat=cx.vat,
                     held_stock=cx.held if cx.held is not None else zero,
                     porting=run.porting, lead_time_delay=tl.delay, financing=-run.financed)
        if m.lease is not None:  # the lessor buys the IT equipment; the lessee pays the lease
            parts.update(cards=zero, servers=zero, network=zero, storage=zero,
                         financing=m.lease.flows[0], vat=cx.vat + m.lease.vat[0])
        return parts
    parts = {comp: zero for comp in COMPONENTS}
    parts.update(year_costs(b, t, m.cl, m.h, m.run, tl, m.work, m.plan, m.owned,
                            None if m.rent is None else m.rent[t]))
    if t == 1:  # recoverable input VAT is credited within the first year: a timing cost only
        parts["vat"] = zero - m.cx.vat_recovered  # 0 - x: a plain 0 (not -0) without VAT
    if m.lease is not None:  # VAT on the lease's payments that is not recovered
        parts["vat"] = parts["vat"] + m.lease.vat[t]
    parts["financing"] = (m.lease.flows[t] if m.lease is not None
                          else IF(fin("loan_term_years").ge(t), m.run.payment, 0))
    if t == horizon:
        parts["residual_value"] = -m.run.residual
    return parts


def running_vat(year: dict[str, Ref]) -> Expr:
    """The VAT on a year's electricity, colocation and cloud rent that is not recovered: each
    line (net of VAT) x its rate x (1 - the recoverable share); the recoverable part is
    credited in the year it is paid, as a lease's (tco.model.lease)."""
    lost = 1 - fin("vat_recoverable_fraction")
    return lost * SUM(*[year[line] * fin(rate) for line, rate in RUNNING_VAT.items()])


def voucher(rent: Ref, price: Expr, vouchers: tuple[tuple[str, str, bool], ...]) -> Expr:
    """What the compute vouchers pay of a year's rent (negative: an inflow): each voucher's
    share of the rent, or its amount per card-hour rented (the rent over its price per
    card-hour), held to its cap per year; together no more than the rent."""
    paid: list[Expr] = []
    for vid, kind, capped in vouchers:
        v = Ref(f"vouchers.{vid}.{kind}")
        amount = (rent * v if kind == "share"
                  else IF(price.gt(0), rent / MAX(price, 1e-12), 0) * v)
        paid.append(MIN(amount, Ref(f"vouchers.{vid}.cap_per_year")) if capped else amount)
    return Const(0.0) - MIN(rent, SUM(*paid))


def cash_flows(b: Builder, horizon: int, m: Money, tl: Timeline, money: str,
               components: list[dict[str, Ref]] | None = None) -> list[Ref]:
    """Years 0..H: each component, the net flow, the running total and the share of the
    year's planned work delivered; the net flows (and each year's components appended to
    `components`, when given)."""
    flows: list[Ref] = []
    for t in range(horizon + 1):
        parts = year_parts(b, t, horizon, m, tl)
        named: dict[str, Ref] = {}
        for comp in COMPONENTS:
            if comp == "running_vat" and t > 0:
                parts[comp] = running_vat(named)
            if comp == "voucher" and t > 0 and m.vouchers:
                parts[comp] = voucher(named["cloud_rent"], m.run.rent_price, m.vouchers)
            named[comp] = b.q(comp, parts[comp], money, COMPONENT_LABELS[comp], "year", year=t)
        refs = list(named.values())
        if components is not None:
            components.append(dict(named))
        flows.append(b.q("net", SUM(*refs), money, f"Net cash flow, year {t}", "year", year=t))
        b.q("cumulative", SUM(*flows), money,
            f"Cumulative net cash flow to year {t} (undiscounted)", "year", year=t)
    return flows


def horizon_results(b: Builder, horizon: int, flows: list[Ref], work: Delivered, plan: Work,
                    money: str) -> Horizon:
    q = b.q
    rate = fin("discount_rate")
    npv = q("npv_tco", NPV0(rate, flows), money, "NPV of TCO", "horizon")
    q("undiscounted_tco", SUM(*flows), money, "Undiscounted TCO", "horizon")
    # Below RATE_AS_ZERO, 1 - (1+r)^-H loses every digit to rounding (a subnormal rate gives 0):
    # the factor is H there, to within r*H/2 relative.
    annuity = q("annuity_factor",
                IF(rate.gt(RATE_AS_ZERO), (1 - (1 + rate) ** (-horizon)) / MAX(rate, RATE_AS_ZERO),
                   horizon),
                "years", "Present value of 1 per year for the horizon", "horizon")
    shares = [plan.done[t] for t in range(horizon + 1)]
    work_years = q("discounted_work_years", NPV0(rate, shares), "years",
                   "Present value of the plan's years of work delivered", "horizon")
    q("equivalent_annual_cost", npv / annuity, money, "Equivalent annual cost", "horizon")
    q("cost_per_gpu_hour",
      IF((work_years * work.planned_gpu_hours).gt(0),
         npv / MAX(work_years * work.planned_gpu_hours, 1e-12), 0),
      f"{money}/card-h", "Levelized cost per delivered accelerator-hour", "horizon")
    q("cost_per_pflop_hour",
      IF((work_years * work.planned_pflop_hours).gt(0),
         npv / MAX(work_years * work.planned_pflop_hours, 1e-12), 0),
      f"{money}/PFLOP-h", "Levelized cost per effective PFLOP-hour", "horizon")
    q("runs_over_horizon", work.planned_runs * SUM(*shares), "runs",
      "Runs delivered over the horizon (owned and bridged)", "horizon")
    q("plan_delivered_fraction", SUM(*shares) / horizon, "fraction",
      "Share of the horizon's planned runs delivered by its end", "horizon")
    q("plan_shortfall_runs", work.planned_runs * plan.backlog[horizon], "runs",
      "Planned runs still waiting at the horizon (no capacity for them in time)", "horizon")
    return Horizon(npv, annuity)


def workload_costs(b: Builder, runs: dict[str, Run], work: Delivered, hz: Horizon,
                   money: str) -> None:
    """Each workload's levelized cost over the horizon (methodology §8, "Per workload"): the
    NPV split among the workloads an option carries by the card-hours each takes a year, over
    the present value of what each delivers: runs of a training workload, million output
    tokens of a serving one. The plan-level `cost_per_run_horizon` only where one training
    workload is all the option carries (otherwise runs of different kinds are not one unit)."""
    work_years = Ref(f"{b.cid}.discounted_work_years")
    planned = work.planned_gpu_hours
    per_run: Ref | None = None
    for wid, r in runs.items():
        share = b.jq(wid, "card_hour_share",
                     IF(planned.gt(0), r.per_year * r.gpu_h / MAX(planned, 1e-12), 0),
                     "fraction", "Share of the option's planned card-hours this workload "
                     "takes (its share of the NPV)")
        npv_w = b.jq(wid, "npv_tco_share", hz.npv * share, money,
                     "The workload's share of the NPV of TCO, by its card-hours")
        if r.serving:  # split between prompt and output tokens as the year's cost is (§18)
            prompt = Ref(f"{b.cid}.{wid}.input_cost_share")
            for side, share_of, day in (("input", prompt, "input_tokens_per_day"),
                                        ("output", 1 - prompt, "output_tokens_per_day")):
                tokens_m = work_years * w(wid, day) * DAYS_PER_YEAR / TOKENS_PER_MILLION
                b.jq(wid, f"cost_per_million_{side}_tokens_horizon",
                     IF(tokens_m.gt(0), npv_w * share_of / MAX(tokens_m, 1e-12), 0), money,
                     f"Levelized cost per million {side} tokens served over the horizon (its "
                     f"share of the NPV, the {'prompt' if side == 'input' else 'output'} "
                     "part, over the discounted tokens served)")
            continue
        per_run = b.jq(wid, "cost_per_run_horizon",
                       IF((work_years * r.per_year).gt(0),
                          npv_w / MAX(work_years * r.per_year, 1e-12), 0), money,
                       "Levelized cost per run over the horizon (its share of the NPV over "
                       "its discounted runs delivered)")
    if len(runs) == 1 and per_run is not None:
        b.q("cost_per_run_horizon", per_run, money,
            "Levelized cost per run over the horizon (its one workload's)", "horizon")
