"""Methodology §13 (held stock): an owned option that draws on cards the buyer holds.

The held cards used are the stock or the cluster, whichever is smaller; the rest is bought.
Held hardware is in service with its servers, fabric, storage and cooling, so every purchase
line (tco.model.capex) is the bought share of the cluster's; the held cards' purchase is sunk.
Keeping them forgoes their sale: `held_stock_value` (their resale value now: a price the
scenario gives, or their book value at their age, `held_book_value_per_card`) is a cost at
year 0, and it loses value by the residual rule from now on, so its book value at the horizon
is recovered with the residual. Power, colocation, staff and licences scale with the whole
cluster as before, and support is priced on the whole cluster's hardware at purchase prices
(a support contract on held hardware costs as on new).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import MIN, Expr, Ref
from ..inputs import stock_path
from .base import Builder
from .cluster import Cluster
from .depreciation import book_fraction


@dataclass(frozen=True)
class Held:
    used: Ref  # held cards in the cluster
    bought_share: Ref  # share of the cluster bought
    value: Ref  # resale value now of the held cards used: the year-0 opportunity cost


def held_stock(b: Builder, cl: Cluster, card: str, money: str, by_age: bool = False) -> Held:
    """`by_age`: the stock is valued at its book value now (its new price x the book share at
    its age, tco.model.depreciation), not at a resale price given."""
    q = b.q
    used = q("held_cards_used", MIN(Ref(stock_path(card, "cards")), cl.cards), "cards",
             "Held cards in the cluster (the stock, or the cluster if smaller)", "cluster")
    bought = q("bought_share", 1 - used / cl.cards, "fraction",
               "Share of the cluster bought (the rest is held stock)", "cluster")
    per_card: Expr = Ref(stock_path(card, "resale_price_per_card"))
    if by_age:
        per_card = q("held_book_value_per_card",
                     Ref(stock_path(card, "new_price_per_card"))
                     * book_fraction(Ref(stock_path(card, "age_years"))), money,
                     "Book value now of one held card: its new price x the book share at its "
                     "age", "horizon")
    value = q("held_stock_value", used * per_card, money,
              "Resale value now of the held cards used: the sale forgone by keeping them",
              "horizon")
    return Held(used, bought, value)
