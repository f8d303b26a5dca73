"""Methodology §8, pricing the shortfall: what closing an option's shortfall would cost.

The runs still waiting at the horizon (`plan.backlog[H]`, in years of planned runs) need the
option's accelerator-hours per planned year for each year of backlog. Closing the gap rents
them: at the card's own cloud price when it has one, else at the rent of the same peak
compute on the cheapest card a cloud sells (`shortfall_price_per_card_hour`,
tco.resolve.shortfall_price). The rent is paid in the horizon's last year (discounted H years):
that is when those runs are still waiting. An option that delivers the plan has 0 of each.

After income tax (`npv_tco_plan_closed_after_tax`, what Monte Carlo ranks a draw by when the
options are ranked after tax, methodology §20): the rent is a research cost deducted as paid,
so (1 - tax rate x R&D factor) of it is kept; the larger cluster's added cards cost what this
cluster's cards cost on average after tax (its after-tax NPV less the port and its upkeep,
kept at the same share, and the cost of delay, income forgone: 1 - tax rate), per card."""

from __future__ import annotations

from ..expr import AND, IF, MAX, ROUNDUP, Expr, ExprLike, Ref
from .base import Builder, fin
from .cashflows import Horizon
from .decision import tier_formula
from .operations import Delivered
from .tax import rd_factor
from .timeline import Work


def shortfall_cost(b: Builder, horizon: int, work: Delivered, plan: Work, hz: Horizon,
                   money: str, own_price: bool, closing: bool = False,
                   able: ExprLike = 1.0, barred: bool = False, partial: bool = False) -> None:
    """`closing`: a bought option whose shortfall buying more cards may close too
    (`_buying_more`); the closed plan then takes the cheaper way. `able`: whether the option
    runs every workload within its limits, the plan aside (for `cards: auto`, feasibility
    without its size target); with `barred` and `partial`, the ranking tier of the plan
    closed (`tier_plan_closed`, what Monte Carlo ranks a draw short of the plan by)."""
    c, q = b.c, b.q
    q("tier_plan_closed", tier_formula(able, barred, 1.0, partial), "tier",
      "Ranking tier of delivering the whole plan with the shortfall closed: 0 when it may be "
      "used (and carries the whole plan), 2 barred here, 3 infeasible", "horizon")
    hours = q("shortfall_card_hours", work.planned_gpu_hours * plan.backlog[horizon], "card-h",
              "Accelerator-hours of the runs still waiting at the horizon", "horizon")
    # rented once, in the last year: on demand (a committed reservation would be paid for
    # every hour of its term; preemptible capacity is not a plan)
    price: Expr = c("on_demand_price_per_card_hour" if own_price
                    else "shortfall_price_per_card_hour")
    price_ref = q("shortfall_rent_price", price, f"{money}/card-h",
                  "Rent per card-hour that closes the shortfall (the card's on-demand cloud "
                  "price, or the same peak compute on the cheapest card rented on demand)",
                  "horizon")
    rent = q("shortfall_rent_cost", hours * price_ref, money,
             "Rent of the accelerator-hours that close the shortfall (undiscounted)", "horizon")
    npv = q("shortfall_rent_npv", rent / (1 + fin("discount_rate")) ** horizon, money,
            "Present value of closing the shortfall by renting in the horizon's last year",
            "horizon")
    rented = hz.npv + npv
    after = Ref(f"{b.cid}.npv_tco_after_tax")
    kept = 1 - fin("tax_rate") * rd_factor()  # of a research cost deducted as paid
    rented_after = after + npv * kept
    if not closing:
        q("npv_tco_plan_closed", rented, money,
          "NPV of delivering the whole plan: the option's NPV plus renting its shortfall",
          "horizon")
        q("npv_tco_plan_closed_after_tax", rented_after, money,
          "NPV after income tax of delivering the whole plan: the option's plus renting its "
          "shortfall, the rent deducted as paid", "horizon")
        return
    bigger, more = _buying_more(b, horizon, hz, money)
    buys = q("shortfall_closed_by_buying", AND(more.gt(0), bigger.lt(rented)), "flag",
             "Buying the larger cluster closes the shortfall for less than renting it",
             "horizon")
    q("npv_tco_plan_closed", IF(buys, bigger, rented), money,
      "NPV of delivering the whole plan: the option's NPV plus renting its shortfall, or "
      "the larger cluster's NPV when buying it costs less", "horizon")
    bigger_after = _buying_more_after_tax(b, hz, money, more, kept)
    buys_after = q("shortfall_closed_by_buying_after_tax",
                   AND(more.gt(0), bigger_after.lt(rented_after)), "flag",
                   "Buying the larger cluster closes the shortfall for less than renting it, "
                   "after income tax", "horizon")
    q("npv_tco_plan_closed_after_tax", IF(buys_after, bigger_after, rented_after), money,
      "NPV after income tax of delivering the whole plan: the option's plus renting its "
      "shortfall, or the larger cluster's when buying it costs less after tax", "horizon")


def _buying_more(b: Builder, horizon: int, hz: Horizon, money: str) -> tuple[Ref, Ref]:
    """The larger cluster that delivers the plan, sized as `cards: auto` sizes it when a run's
    hours scale inversely with the cards (linear scaling), and its NPV with each added card
    costing what this cluster's cards cost on average (its NPV less the port, its upkeep and
    the cost of delay, per card). (NPV of the larger cluster, cards added)."""
    c, q, cid = b.c, b.q, b.cid
    ready, spare = Ref(f"{cid}.ready_years"), Ref(f"{cid}.capacity_per_demand")
    # capacity c from year `ready` delivers c x (H - ready) planned years: all H when
    # c >= H / (H - ready); none can when the cluster is ready only at the horizon
    need = q("shortfall_capacity_needed",
             IF(ready.lt(horizon), horizon / MAX(horizon - ready, 1e-12), 0), "ratio",
             "Hours per hour of planned runs a cluster ready when this one is needs to "
             "deliver the whole plan by the horizon (0: none can)", "horizon")
    step = c("cards_per_node")
    sized = ROUNDUP(c("cards") * need / MAX(spare, 1e-12) / step) * step
    more = q("shortfall_buy_cards",
             IF(AND(need.gt(0), spare.gt(0)), MAX(sized - c("cards"), 0), 0), "cards",
             "Cards added to close the shortfall by buying: the whole servers that give the "
             "capacity needed at linear scaling, less this cluster's (0: none can)", "horizon")
    port, delay = _fixed_costs(cid, hz)
    fixed = port + delay
    per_card = q("npv_per_card", (hz.npv - fixed) / c("cards"), money,
                 "NPV per card, less the port, its upkeep and the cost of delay (what an added "
                 "card costs)", "horizon")
    extra = q("shortfall_buy_npv", more * per_card, money,
              "Extra NPV of closing the shortfall by buying the added cards", "horizon")
    bigger = q("npv_tco_bought_larger", hz.npv + extra, money,
               "NPV of the larger cluster that delivers the plan", "horizon")
    return bigger, more




def _fixed_costs(cid: str, hz: Horizon) -> tuple[Expr, Ref]:
    """What an added card does not add: the port and its upkeep (present value), and the cost
    of delay."""
    port = (Ref(f"{cid}.porting_one_time")
            + hz.annuity * Ref(f"{cid}.porting_maintenance_per_year"))
    return port, Ref(f"{cid}.lead_time_delay_cost")


def _buying_more_after_tax(b: Builder, hz: Horizon, money: str, more: Ref, kept: Expr) -> Ref:
    """The larger cluster's NPV after income tax: this cluster's, plus the added cards at its
    after-tax NPV per card (less the port and its upkeep, deducted as paid, and the cost of
    delay, income forgone)."""
    cid, q = b.cid, b.q
    port, delay = _fixed_costs(cid, hz)
    after = Ref(f"{cid}.npv_tco_after_tax")
    fixed = port * kept + delay * (1 - fin("tax_rate"))
    per_card = q("npv_per_card_after_tax", (after - fixed) / b.c("cards"), money,
                 "NPV per card after income tax, less the port, its upkeep and the cost of "
                 "delay after tax (what an added card costs after tax)", "horizon")
    return q("npv_tco_bought_larger_after_tax", after + more * per_card, money,
             "NPV after income tax of the larger cluster that delivers the plan", "horizon")
