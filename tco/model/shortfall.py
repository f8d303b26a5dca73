"""Methodology §8, pricing the shortfall: what closing an option's shortfall would cost.

The runs still waiting at the horizon (`plan.backlog[H]`, in years of planned runs) need the
option's accelerator-hours per planned year for each year of backlog. Closing the gap rents
them: at the card's own cloud price when it has one, else at the rent of the same peak
compute on the cheapest card a cloud sells (`shortfall_price_per_card_hour`,
tco.shortfall_price). The rent is paid in the horizon's last year (discounted H years):
that is when those runs are still waiting. An option that delivers the plan has 0 of each."""

from __future__ import annotations

from ..expr import Expr
from .base import Builder, fin
from .cashflows import Horizon
from .operations import Delivered
from .timeline import Work


def shortfall_cost(b: Builder, horizon: int, work: Delivered, plan: Work, hz: Horizon,
                   money: str, own_price: bool) -> None:
    c, q = b.c, b.q
    hours = q("shortfall_card_hours", work.planned_gpu_hours * plan.backlog[horizon], "card-h",
              "Accelerator-hours of the runs still waiting at the horizon", "horizon")
    price: Expr = c("cloud_price_per_card_hour" if own_price
                    else "shortfall_price_per_card_hour")
    price_ref = q("shortfall_rent_price", price, f"{money}/card-h",
                  "Rent per card-hour that closes the shortfall (the card's cloud price, or "
                  "the same peak compute on the cheapest rented card)", "horizon")
    rent = q("shortfall_rent_cost", hours * price_ref, money,
             "Rent of the accelerator-hours that close the shortfall (undiscounted)", "horizon")
    npv = q("shortfall_rent_npv", rent / (1 + fin("discount_rate")) ** horizon, money,
            "Present value of closing the shortfall by renting in the horizon's last year",
            "horizon")
    q("npv_tco_plan_closed", hz.npv + npv, money,
      "NPV of delivering the whole plan: the option's NPV plus renting its shortfall",
      "horizon")


