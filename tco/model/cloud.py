"""Methodology §10, renting the same delivered accelerator-hours, and the busy share of the year
above which owning the cluster (buying it, or leasing it) costs less than renting."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import AND, IF, MAX, MIN, NPV0, SUM, Expr, Ref
from .base import Builder, fin
from .cashflows import Horizon
from .cluster import Cluster
from .operations import Delivered, Hours, Running
from .timeline import Timeline, Work
from .units import HOURS_PER_YEAR, W_PER_KW, WEEKS_PER_YEAR


@dataclass(frozen=True)
class Rental:
    """A rented option's rent: year t (1..H) -> its flow, and the price of an hour used."""

    flows: dict[int, Expr]
    price: Ref


def rental(b: Builder, cl: Cluster, tl: Timeline, work: Delivered, plan: Work, horizon: int,
           money: str) -> Rental:
    """Rent of the hours the plan uses each year from the port on: at the scenario's tier, a
    committed reservation paid for its reserved share of every hour (take-or-pay), unless
    paying the on-demand price for the hours used costs less over the horizon (in present
    value, so that the option's NPV is the smaller of the two)."""
    c, q = b.c, b.q
    tier, on_demand, used = {}, {}, {}
    for t in range(1, horizon + 1):  # from the port on (tco.model.timeline)
        used[t] = work.planned_gpu_hours * plan.rented[t]
        tier[t], on_demand[t] = _tiers(b, cl, used[t], tl.ported[t])
    # only a reservation has an alternative (on demand and spot are paid per hour used)
    reserves = c("rent_reserved_fraction")
    choose = q("rent_on_demand", AND(reserves.gt(0), _pv(on_demand).lt(_pv(tier))), "flag",
               "1 when paying on-demand prices for the hours used costs less over the horizon "
               "than a committed reservation paid for every hour", "horizon")
    # a run's rent at the price the option pays (methodology §9, §10): the rent of the tier
    # it takes over the card-hours it uses, both in present value; on demand that is the
    # on-demand price, a reservation used to the full its price, one partly idle more
    paid = q("rent_paid_pv", IF(choose, _pv(on_demand), _pv(tier)), money,
             "Present value of the rent paid over the horizon, at the tier taken", "horizon")
    hours = q("rented_card_hours_pv", _pv(used), "card-h",
              "Present value of the card-hours used (discounted as the rent is)", "horizon")
    price = q("rent_price_per_card_hour",
              IF(hours.gt(0), paid / MAX(hours, 1e-12),
                 IF(choose, c("on_demand_price_per_card_hour"), c("cloud_price_per_card_hour"))),
              f"{money}/card-h",
              "Rent per card-hour used, at the price paid: the rent of the tier taken over "
              "the card-hours used (present values)", "horizon")
    return Rental({t: IF(choose, on_demand[t], tier[t]) for t in tier}, price)


def _tiers(b: Builder, cl: Cluster, used: Expr, share: Expr | None = None
           ) -> tuple[Expr, Expr]:
    """What `used` card-hours cost at the scenario's tier (a reservation of the cluster for
    `share` of the year, or all of it, is paid for every hour, take-or-pay) and on demand."""
    c = b.c
    reserved = c("rent_reserved_fraction") * cl.cards * HOURS_PER_YEAR
    if share is not None:
        reserved = reserved * share
    return (MAX(used, reserved) * c("cloud_price_per_card_hour"),
            used * c("on_demand_price_per_card_hour"))


def _pv(flows: dict[int, Expr]) -> Expr:
    """The present value of year-end flows (years 1..H), as the option's NPV counts them."""
    return SUM(*[x / (1 + fin("discount_rate")) ** t for t, x in flows.items()])


def renting(b: Builder, cl: Cluster, h: Hours, run: Running, work: Delivered, hz: Horizon,
            horizon: int, money: str, leased: bool = False) -> None:
    c, q = b.c, b.q
    # a committed reservation is paid for its share of every hour, used or not (take-or-pay);
    # renting the same hours takes the cheaper of it and on-demand, as a rented option does
    reserved_h = c("rent_reserved_fraction") * HOURS_PER_YEAR
    at_tier, at_on_demand = _tiers(b, cl, work.gpu_hours)
    on_demand = q("cloud_on_demand",
                  AND(reserved_h.gt(0), at_on_demand.lt(at_tier)), "flag",
                  "1 when renting the same hours on demand costs less than at the tier",
                  "horizon")
    rent_y = q("cloud_rent_per_year", IF(on_demand, at_on_demand, at_tier),
               money, "Cloud rental of the same accelerator-hours per year (a committed "
               "reservation paid for every hour, or on demand where that costs less)",
               "horizon")
    # renting waits for the port only (no delivery): its cost of delay, as a rented option's
    waits = q("cloud_delay_cost", Ref(f"{b.cid}.ported_years") * WEEKS_PER_YEAR
              * Ref("cost_of_delay_per_week"), money,
              "Cost of delay of renting the same compute: until the port is done", "horizon")
    flows = [run.porting + waits] + [rent_y + run.porting_maintenance for _ in range(horizon)]
    q("cloud_npv", NPV0(fin("discount_rate"), flows), money, "NPV of renting the same compute",
      "horizon")
    # Owning costs fixed_buy + A*e*h (h busy hours a year, A the annuity factor; a lease's
    # payments are fixed like a purchase's capex); renting costs fixed_rent + A*rent(h), where
    # rent(h) is what a renter busy h hours would actually pay (methodology §10): at a tier
    # with a reservation (r > 0), the cheaper of on demand (g_od*h) and the reservation
    # (g_t*MAX(h, R), R = r*8,760 reserved hours); at a tier without one, g_t*h.
    site = b.site()
    energy_slope = ((cl.train_w - cl.idle_w) * site.pue / W_PER_KW * site.electricity_price)
    reserves = c("rent_reserved_fraction")
    tier_slope = cl.cards * c("cloud_price_per_card_hour")
    od_slope = cl.cards * c("on_demand_price_per_card_hour")
    top_slope = IF(reserves.gt(0), MIN(tier_slope, od_slope), tier_slope)  # above R
    fixed_buy = hz.npv - hz.annuity * energy_slope * h.busy
    fixed_rent = run.porting + waits + hz.annuity * run.porting_maintenance
    gap = fixed_buy - fixed_rent
    # Owning minus renting falls with h above R (slope e - top_slope): owning pays from
    # h_top on if h_top >= R. Otherwise owning is already cheaper at R, and (its cost growing
    # with h and the reservation's not, or renting on demand) at every h down to where it
    # equals on demand: h_od. Below 0 (owning's fixed costs are the smaller): 0, any use.
    h_top = gap / (hz.annuity * MAX(top_slope - energy_slope, 1e-12))
    h_od = gap / (hz.annuity * MAX(od_slope - energy_slope, 1e-12))
    q("breakeven_utilization",
      MAX(IF(h_top.ge(reserves * HOURS_PER_YEAR), h_top, h_od), 0) / HOURS_PER_YEAR,
      "fraction", "Busy share of the year above which "
      + ("leasing" if leased else "buying") + " costs less than renting (at the rent a "
      "renter that busy would pay: the tier, or on demand where that costs less)",
      "horizon")
