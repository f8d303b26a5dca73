"""Methodology §6, operations per year: the hours the cluster runs, what running it costs each
year, the one-time porting and delay, the loan, the residual value and the work delivered.

An owned cluster (bought, or bought with a loan) runs at most `utilization` of the year; a
rented one is rented for the hours the plan needs, so it completes every planned run."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MIN, PMT, SUM, Const, Expr, Ref
from .base import Builder, a, fin
from .capex import Capex
from .cluster import Cluster
from .depreciation import book_fraction, market_curve
from .timeline import Timeline, Work
from .training import Run
from .units import FLOP_PER_PFLOP_HOUR, HOURS_PER_YEAR, MONTHS_PER_YEAR, W_PER_KW


@dataclass(frozen=True)
class Hours:
    demand: Ref
    available: Ref
    busy: Ref
    share_done: Ref  # runs_completed_fraction


@dataclass(frozen=True)
class Running:
    """Steady-state yearly costs (a full year with the capacity ready) and one-time items."""

    electricity: Ref
    colocation: Ref
    support: Ref
    storage_support: Ref
    licences: Ref
    staff: Ref
    porting: Ref  # one-time
    porting_maintenance: Ref
    rent_price: Expr  # per card-hour (0 when the option neither rents nor bridges)
    financed: Ref
    payment: Ref
    residual: Ref


@dataclass(frozen=True)
class Delivered:
    planned_gpu_hours: Ref  # every planned run, per year
    planned_runs: Ref
    planned_pflop_hours: Ref
    gpu_hours: Ref  # what the capacity completes in a full year (planned x completed share)


def _demand(runs: dict[str, Run]) -> Expr:
    return SUM(*[r.per_year * r.wall_h for r in runs.values()])


def hours(b: Builder, runs: dict[str, Run], owned: bool) -> Hours:
    q = b.q
    demand = q("demand_hours_per_year", _demand(runs), "h/yr",
               "Hours per year the planned runs need", "horizon")
    if owned:
        avail = q("available_hours_per_year", HOURS_PER_YEAR * Ref("utilization"), "h/yr",
                  "Hours per year the cluster can run jobs", "horizon")
    else:
        avail = q("available_hours_per_year", demand, "h/yr",
                  "Hours per year rented: as many as the planned runs need", "horizon")
    busy = q("busy_hours_per_year", MIN(demand, avail), "h/yr", "Hours per year spent training",
             "horizon")
    done = q("runs_completed_fraction", IF(demand.gt(0), busy / demand, 1), "fraction",
             "Share of planned runs the cluster completes", "horizon")
    return Hours(demand, avail, busy, done)


def running(b: Builder, cl: Cluster, cx: Capex, h: Hours, stack: str, horizon: int,
            money: str, owned: bool, rent_price: Expr, leased: bool = False,
            resale_curve: bool = False) -> Running:
    """The yearly running costs of a full year with the capacity ready, the one-time port,
    the loan and the residual value (the cost of delay is the timeline's,
    tco.model.timeline); `resale_curve`: the residual on the card class's used-market curve
    (pricing/resale.yaml) instead of the straight line."""
    c, q = b.c, b.q
    zero = Const(0.0)
    if owned:
        site = b.site()
        energy = q("energy_facility_kwh_per_year",
                   (cl.train_w * h.busy + cl.idle_w * (HOURS_PER_YEAR - h.busy)) * site.pue
                   / W_PER_KW, "kWh/yr", "Facility energy per year (training and idle)",
                   "horizon")
        elec: Expr = energy * site.electricity_price
        colo: Expr = cl.it_kw * site.colocation_price * MONTHS_PER_YEAR
        support: Expr = cx.hardware_list * a("support_fraction_per_year")
        storage_support: Expr = cx.storage_list * a("support_fraction_per_year")
        licences: Expr = cl.cards * c("licence_per_card_year")
        staff: Expr = (cl.cards / 1000 * a("ops_engineers_per_1000_cards")
                       * Ref("team.engineer_cost_per_month") * MONTHS_PER_YEAR)
    else:  # the rental price covers power, space, support, operations and licences
        elec = colo = support = storage_support = licences = staff = zero
    eng_month = Ref("team.engineer_cost_per_month")
    elec_y = q("electricity_per_year", elec, money, "Electricity per year", "horizon")
    colo_y = q("colocation_per_year", colo, money, "Colocation per year", "horizon")
    support_y = q("support_per_year", support, money, "Hardware support per year", "horizon")
    storage_y = q("storage_support_per_year", storage_support, money,
                  "Shared storage support per year", "horizon")
    licence_y = q("licences_per_year", licences, money, "Software licences per year", "horizon")
    staff_y = q("operations_staff_per_year", staff, money, "Operations staff per year",
                "horizon")
    unfamiliar = 1 - Ref(f"team.familiarity.{stack}")
    porting = q("porting_one_time", c("porting_engineer_months") * eng_month * unfamiliar,
                money, "One-time porting effort", "horizon")
    maintenance = q("porting_maintenance_per_year",
                    c("maintenance_engineer_months_per_year") * eng_month * unfamiliar, money,
                    "Porting maintenance per year", "horizon")
    financed = q("financed_amount",
                 cx.total * fin("financed_fraction") if owned and not leased else zero,
                 money, "Capex financed by the loan", "horizon")
    payment = q("loan_payment_per_year",
                -PMT(fin("loan_rate"), fin("loan_term_years"), financed), money,
                "Loan payment per year", "horizon")
    if resale_curve:  # the card class's used-market price (pricing/resale.yaml)
        book = q("residual_fraction", market_curve(b.inputs_of).book_fraction(horizon),
                 "fraction", "Resale value at the horizon, share of hardware capex (the "
                 "card class's used-market curve)", "horizon")
    else:
        book = q("residual_fraction", book_fraction(horizon), "fraction",
                 "Book value at the horizon, share of hardware capex", "horizon")
    # a leased cluster is the lessee's at the horizon only when it buys it at the term's end
    residual = q("residual_value", cx.owned_value() * book * fin("lease_buyout") if leased
                 else cx.owned_value() * book, money,
                 "Residual value at the horizon (hardware and storage, held stock included)",
                 "horizon")
    return Running(elec_y, colo_y, support_y, storage_y, licence_y, staff_y, porting,
                   maintenance, rent_price, financed, payment, residual)


def year_costs(b: Builder, t: int, cl: Cluster, h: Hours, run: Running, tl: Timeline,
               work: Delivered, plan: Work, owned: bool, rent: Expr | None = None
               ) -> dict[str, Expr]:
    """The operating components of year t (1..H): the installed hardware costs from delivery,
    training power for the work done on it, and rent for the work done on rented capacity
    (`rent`: a rented option's, priced by tco.model.cloud.rental)."""
    installed = tl.installed[t]
    if owned:
        site = b.site()
        busy = h.demand * plan.owned[t]
        energy_kwh = ((cl.train_w * busy + cl.idle_w * (HOURS_PER_YEAR * installed - busy))
                      * site.pue / W_PER_KW)
        electricity: Expr = energy_kwh * site.electricity_price
    else:
        electricity = Const(0.0)
    rented = work.planned_gpu_hours * plan.rented[t]
    return {
        "electricity": electricity,
        "colocation": run.colocation * installed,
        "support": run.support * installed,
        "storage_support": run.storage_support * installed,
        "licences": run.licences * installed,
        "operations_staff": run.staff * installed,
        "porting_maintenance": run.porting_maintenance,
        "cloud_rent": rented * run.rent_price if rent is None else rent,
    }


def delivered(b: Builder, runs: dict[str, Run], h: Hours) -> Delivered:
    """The work planned per year, and what the capacity completes of it in a full year."""
    q = b.q
    per_year = {wid: r.per_year for wid, r in runs.items()}
    planned_gpu = q("planned_gpu_hours_per_year",
                    SUM(*[per_year[wid] * r.gpu_h for wid, r in runs.items()]), "card-h/yr",
                    "Accelerator-hours per year the planned runs need", "horizon")
    planned_runs = q("planned_runs_per_year", SUM(*per_year.values()), "runs/yr",
                     "Runs planned per year", "horizon")
    planned_pflop = q("planned_pflop_hours_per_year",
                      SUM(*[per_year[wid] * r.flops for wid, r in runs.items()])
                      / FLOP_PER_PFLOP_HOUR, "PFLOP-h/yr",
                      "Useful compute per year the planned runs need (model FLOPs)", "horizon")
    gpu = q("gpu_hours_per_year", planned_gpu * h.share_done, "card-h/yr",
            "Accelerator-hours per year delivered by the capacity in a full year", "horizon")
    q("runs_per_year", planned_runs * h.share_done, "runs/yr",
      "Runs completed per year once the capacity is ready", "horizon")
    q("pflop_hours_per_year", planned_pflop * h.share_done, "PFLOP-h/yr",
      "Useful compute per year once the capacity is ready (model FLOPs)", "horizon")
    return Delivered(planned_gpu, planned_runs, planned_pflop, gpu)
