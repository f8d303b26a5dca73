"""Methodology §9, the cost of one run of each workload: the cluster's fixed costs per hour it
can run, times the run's wall time, plus the run's own electricity and a share of porting."""

from __future__ import annotations

from ..expr import MAX, SUM, Const, Ref
from .base import Builder
from .capex import Capex
from .depreciation import book_schedule
from .lease import Lease
from .operations import Delivered, Hours, Running
from .training import Run
from .units import MONTHS_PER_YEAR, TOKENS_PER_MILLION

# Per-job cost lines (their sum is the job's total).
JOB_COMPONENTS = ("hardware", "electricity", "facility", "operations", "rental", "porting")
JOB_COMPONENT_LABELS = {"hardware": "Hardware", "electricity": "Electricity",
                        "facility": "Facility", "operations": "Operations", "rental": "Rental",
                        "porting": "Porting"}


def job_costs(b: Builder, runs: dict[str, Run], cx: Capex, run: Running, h: Hours,
              work: Delivered, horizon: int, money: str, owned: bool,
              leased: Lease | None = None) -> None:
    q, zero = b.q, Const(0.0)
    capacity = h.available  # cluster hours per year over which fixed costs are spread
    if leased is None:
        hw_per_hour = q(
            "hardware_cost_per_cluster_hour",
            book_schedule().charge_per(capacity, cx.owned_value(), cx.cooling, cx.installation),
            f"{money}/h", "Straight-line depreciation per available cluster-hour", "horizon")
    else:  # the lessor's equipment costs its payments; what the lessee buys depreciates
        hw_per_hour = q(
            "hardware_cost_per_cluster_hour",
            (MONTHS_PER_YEAR * leased.payment
             + book_schedule().write_off_per_year(cx.cooling + cx.installation)) / capacity,
            f"{money}/h", "A year of lease payments, and straight-line depreciation of the "
            "cooling and installation bought, per available cluster-hour", "horizon")
    fac_per_hour = q("facility_cost_per_cluster_hour", run.colocation / capacity, f"{money}/h",
                     "Colocation per available cluster-hour", "horizon")
    ops_per_hour = q("operations_cost_per_cluster_hour",
                     (run.support + run.storage_support + run.licences + run.staff
                      + run.porting_maintenance)
                     / capacity,
                     f"{money}/h", "Support, licences, staff and port upkeep per cluster-hour",
                     "horizon")
    runs_horizon = MAX(Ref(f"{b.cid}.runs_over_horizon"), 1)
    for wid, r in runs.items():
        lines = [
            b.jq(wid, "cost_hardware", hw_per_hour * r.wall_h, money,
                 "Hardware share per run (depreciation, or lease payments when leased)"),
            b.jq(wid, "cost_electricity",
                 r.e_fac * b.site().electricity_price if owned else zero,
                 money, "Electricity per run (in the rental price when rented)"),
            b.jq(wid, "cost_facility", fac_per_hour * r.wall_h, money,
                 "Colocation share per run"),
            b.jq(wid, "cost_operations", ops_per_hour * r.wall_h, money,
                 "Operations share per run"),
            b.jq(wid, "cost_rental", zero if owned else r.gpu_h * run.rent_price, money,
                 "Rental of the run's accelerator-hours (rented options)"),
            b.jq(wid, "cost_porting", run.porting / runs_horizon, money,
                 "One-time porting spread over the horizon's runs"),
        ]
        cost = b.jq(wid, "cost_per_job", SUM(*lines), money, "Cost per run")
        b.jq(wid, "cost_per_million_tokens", cost / (r.tokens / TOKENS_PER_MILLION),
             money, "Cost per million tokens served (prompt and output)" if r.serving
             else "Cost per million training tokens")
