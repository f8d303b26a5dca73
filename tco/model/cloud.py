"""Methodology §10, renting the same delivered accelerator-hours, and the busy share of the year
at which owning the cluster (buying it, or leasing it) costs the same as renting."""

from __future__ import annotations

from ..expr import MAX, NPV0, Ref
from .base import Builder, fin
from .cashflows import Horizon
from .cluster import Cluster
from .operations import Delivered, Hours, Running
from .units import HOURS_PER_YEAR, W_PER_KW


def renting(b: Builder, cl: Cluster, h: Hours, run: Running, work: Delivered, hz: Horizon,
            horizon: int, money: str, leased: bool = False) -> None:
    c, q = b.c, b.q
    rent_y = q("cloud_rent_per_year", work.gpu_hours * c("cloud_price_per_card_hour"), money,
               "Cloud rental of the same accelerator-hours per year", "horizon")
    flows = [run.porting] + [rent_y + run.porting_maintenance for _ in range(horizon)]
    q("cloud_npv", NPV0(fin("discount_rate"), flows), money, "NPV of renting the same compute",
      "horizon")
    # Owning costs fixed + e*h, renting costs porting + g*h (h = busy hours per year); a
    # lease's payments are fixed like a purchase's capex.
    energy_slope = ((cl.train_w - cl.idle_w) * c("pue") / W_PER_KW
                    * Ref("facility.electricity_price_per_kwh"))
    rent_slope = cl.cards * c("cloud_price_per_card_hour")
    fixed_buy = hz.npv - hz.annuity * energy_slope * h.busy
    fixed_rent = run.porting + hz.annuity * run.porting_maintenance
    q("breakeven_utilization",
      (fixed_buy - fixed_rent) / (hz.annuity * MAX(rent_slope - energy_slope, 1e-12)
                                  * HOURS_PER_YEAR),
      "fraction", "Busy share of the year at which "
      + ("leasing" if leased else "buying") + " costs the same as renting",
      "horizon")
