"""Methodology §6, operations per year: the hours the cluster runs, what running it costs each
year, the one-time porting and delay, the loan, the residual value and the work delivered."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MAX, MIN, PMT, SUM, Ref
from .base import Builder, a, fin, w
from .capex import Capex
from .cluster import Cluster
from .training import Run
from .units import FLOP_PER_PFLOP_HOUR, HOURS_PER_YEAR, MONTHS_PER_YEAR, W_PER_KW


@dataclass(frozen=True)
class Hours:
    available: Ref
    busy: Ref
    share_done: Ref  # runs_completed_fraction


@dataclass(frozen=True)
class Running:
    electricity: Ref
    colocation: Ref
    support: Ref
    licences: Ref
    staff: Ref
    porting: Ref  # one-time
    porting_maintenance: Ref
    delay: Ref  # one-time
    financed: Ref
    payment: Ref
    residual: Ref


@dataclass(frozen=True)
class Delivered:
    gpu_hours: Ref
    runs: Ref
    pflop_hours: Ref


def hours(b: Builder, runs: dict[str, Run]) -> Hours:
    q = b.q
    avail = q("available_hours_per_year", HOURS_PER_YEAR * Ref("utilization"), "h/yr",
              "Hours per year the cluster can run jobs", "horizon")
    demand = q("demand_hours_per_year", SUM(*[w(wid, "runs_per_year") * r.wall_h
                                              for wid, r in runs.items()]), "h/yr",
               "Hours per year the planned runs need", "horizon")
    busy = q("busy_hours_per_year", MIN(demand, avail), "h/yr", "Hours per year spent training",
             "horizon")
    done = q("runs_completed_fraction", IF(demand.gt(0), busy / demand, 1), "fraction",
             "Share of planned runs the cluster completes", "horizon")
    return Hours(avail, busy, done)


def running(b: Builder, cl: Cluster, cx: Capex, h: Hours, stack: str, horizon: int,
            money: str) -> Running:
    c, q = b.c, b.q
    energy = q("energy_facility_kwh_per_year",
               (cl.train_w * h.busy + cl.idle_w * (HOURS_PER_YEAR - h.busy)) * c("pue")
               / W_PER_KW, "kWh/yr", "Facility energy per year (training and idle)", "horizon")
    elec = q("electricity_per_year", energy * Ref("facility.electricity_price_per_kwh"), money,
             "Electricity per year", "horizon")
    colo = q("colocation_per_year",
             cl.it_kw * Ref("facility.colocation_price_per_kw_month") * MONTHS_PER_YEAR, money,
             "Colocation per year", "horizon")
    support = q("support_per_year", cx.hardware * a("support_fraction_per_year"), money,
                "Hardware support per year", "horizon")
    licences = q("licences_per_year", cl.cards * c("licence_per_card_year"), money,
                 "Software licences per year", "horizon")
    eng_month = Ref("team.engineer_cost_per_month")
    staff = q("operations_staff_per_year",
              cl.cards / 1000 * a("ops_engineers_per_1000_cards") * eng_month * MONTHS_PER_YEAR,
              money, "Operations staff per year", "horizon")
    unfamiliar = 1 - Ref(f"team.familiarity.{stack}")
    porting = q("porting_one_time", c("porting_engineer_months") * eng_month * unfamiliar,
                money, "One-time porting effort", "horizon")
    maintenance = q("porting_maintenance_per_year",
                    c("maintenance_engineer_months_per_year") * eng_month * unfamiliar, money,
                    "Porting maintenance per year", "horizon")
    delay = q("lead_time_delay_cost", c("lead_time_weeks") * Ref("cost_of_delay_per_week"),
              money, "Cost of the delivery lead time", "horizon")
    financed = q("financed_amount", cx.total * fin("financed_fraction"), money,
                 "Capex financed by the loan", "horizon")
    payment = q("loan_payment_per_year",
                -PMT(fin("loan_rate"), fin("loan_term_years"), financed), money,
                "Loan payment per year", "horizon")
    book = q("residual_fraction",
             fin("residual_value_fraction") + (1 - fin("residual_value_fraction"))
             * MAX(0, 1 - horizon / fin("depreciation_years")),
             "fraction", "Book value at the horizon, share of hardware capex", "horizon")
    residual = q("residual_value", cx.hardware * book, money, "Residual value at the horizon",
                 "horizon")
    return Running(elec, colo, support, licences, staff, porting, maintenance, delay, financed,
                   payment, residual)


def delivered(b: Builder, runs: dict[str, Run], h: Hours) -> Delivered:
    """The work the cluster delivers per year: planned runs times the share it completes."""
    q = b.q
    done = {wid: w(wid, "runs_per_year") * h.share_done for wid in runs}
    gpu = q("gpu_hours_per_year", SUM(*[done[wid] * r.gpu_h for wid, r in runs.items()]),
            "card-h/yr", "Delivered accelerator-hours per year", "horizon")
    jobs = q("runs_per_year", SUM(*done.values()), "runs/yr", "Runs completed per year",
             "horizon")
    pflop = q("pflop_hours_per_year",
              SUM(*[done[wid] * r.flops for wid, r in runs.items()]) / FLOP_PER_PFLOP_HOUR,
              "PFLOP-h/yr", "Useful compute per year (model FLOPs)", "horizon")
    return Delivered(gpu, jobs, pflop)
