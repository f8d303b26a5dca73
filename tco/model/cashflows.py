"""Methodology §7 and §8: the yearly cash flows, their NPV, and the horizon's levelized costs.

Costs are positive, inflows (residual value, loan proceeds) negative. Year 0 is the purchase
date (capex, one-time porting, cost of delay); operating costs fall at the end of years 1..H;
residual value at the end of year H. NPV discounts year t by (1 + r)^t, so year 0 is
undiscounted (numpy-financial's `npv` convention).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MAX, NPV0, SUM, Const, Expr, Ref
from .base import Builder, fin
from .capex import Capex
from .operations import Delivered, Running
from .units import RATE_AS_ZERO

# Cash-flow components, in the order every table shows them.
CAPEX_COMPONENTS = ("cards", "servers", "network", "cooling", "installation")
COMPONENTS = CAPEX_COMPONENTS + (
    "porting", "lead_time_delay", "electricity", "colocation", "support", "licences",
    "operations_staff", "porting_maintenance", "financing", "residual_value",
)
COMPONENT_LABELS = {
    "cards": "Accelerators", "servers": "Servers", "network": "Network",
    "cooling": "Cooling", "installation": "Installation", "porting": "Porting (one-time)",
    "lead_time_delay": "Lead-time delay", "electricity": "Electricity",
    "colocation": "Colocation", "support": "Support", "licences": "Software licences",
    "operations_staff": "Operations staff", "porting_maintenance": "Porting maintenance",
    "financing": "Financing", "residual_value": "Residual value",
}
# Each year's totals, after its components: the net flow and the running (undiscounted) total.
YEAR_TOTALS = ("net", "cumulative")


@dataclass(frozen=True)
class Horizon:
    npv: Ref
    annuity: Ref


def year_parts(t: int, horizon: int, cx: Capex, run: Running) -> dict[str, Expr]:
    """Each component's flow in year t."""
    first, last = t == 0, t == horizon
    zero = Const(0.0)

    def once(x: Expr) -> Expr:
        return x if first else zero

    def yearly(x: Expr) -> Expr:
        return zero if first else x

    return {
        "cards": once(cx.cards), "servers": once(cx.servers), "network": once(cx.network),
        "cooling": once(cx.cooling), "installation": once(cx.installation),
        "porting": once(run.porting), "lead_time_delay": once(run.delay),
        "electricity": yearly(run.electricity), "colocation": yearly(run.colocation),
        "support": yearly(run.support), "licences": yearly(run.licences),
        "operations_staff": yearly(run.staff),
        "porting_maintenance": yearly(run.porting_maintenance),
        "financing": (-run.financed if first
                      else IF(fin("loan_term_years").ge(t), run.payment, 0)),
        "residual_value": -run.residual if last else zero,
    }


def cash_flows(b: Builder, horizon: int, cx: Capex, run: Running, money: str) -> list[Ref]:
    """Years 0..H: each component, the net flow and the running total; the net flows."""
    flows: list[Ref] = []
    for t in range(horizon + 1):
        parts = year_parts(t, horizon, cx, run)
        refs = [b.q(comp, parts[comp], money, COMPONENT_LABELS[comp], "year", year=t)
                for comp in COMPONENTS]
        flows.append(b.q("net", SUM(*refs), money, f"Net cash flow, year {t}", "year", year=t))
        b.q("cumulative", SUM(*flows), money,
            f"Cumulative net cash flow to year {t} (undiscounted)", "year", year=t)
    return flows


def horizon_results(b: Builder, horizon: int, flows: list[Ref], work: Delivered,
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
    q("equivalent_annual_cost", npv / annuity, money, "Equivalent annual cost", "horizon")
    q("cost_per_gpu_hour", IF(work.gpu_hours.gt(0), npv / MAX(annuity * work.gpu_hours, 1e-12), 0),
      f"{money}/card-h", "Levelized cost per delivered accelerator-hour", "horizon")
    q("cost_per_pflop_hour",
      IF(work.pflop_hours.gt(0), npv / MAX(annuity * work.pflop_hours, 1e-12), 0),
      f"{money}/PFLOP-h", "Levelized cost per effective PFLOP-hour", "horizon")
    q("cost_per_run_horizon", IF(work.runs.gt(0), npv / MAX(annuity * work.runs, 1e-12), 0),
      money, "Levelized cost per completed run over the horizon", "horizon")
    q("runs_over_horizon", work.runs * horizon, "runs", "Runs completed over the horizon",
      "horizon")
    return Horizon(npv, annuity)
