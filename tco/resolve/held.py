"""Existing stock: cards the buyer already holds (methodology §13, "Held stock").

A scenario states the cards it holds under `policy.holds_stock`, by card id: how many, and
what one would sell for now (with its share of the server and fabric), or their age, from
which the model derives a book value (tco.model.held). Every owned option (bought or hybrid)
of that card draws on the stock first and buys only the cards beyond it. The held cards' purchase is sunk and costs
nothing; keeping them forgoes their sale, so their resale value now is a cost at year 0, and
their value at the horizon is recovered with the residual. They draw power, space, support
and staff like bought ones. The model's lines are in tco/model/held.py.

Each held card id gives its inputs (tco.inputs.HELD_INPUTS): `policy.holds_stock.<card>.cards`
and `.resale_price_per_card`, or `.age_years` and `.new_price_per_card` (in the scenario's
currency; the catalog's new price unless given).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import did_you_mean
from ..inputs import HELD_INPUTS, Input, stock_path

if TYPE_CHECKING:
    from ..catalog import Catalog
    from .figures import Conversion
    from .state import Resolution


def held_stock_inputs(r: Resolution) -> tuple[str, ...]:
    """The inputs of each held stock, checked: a catalog card, and a resale price given or
    an age to derive a book value from (in the model, tco.model.held). The card ids whose
    stock is valued by its age."""
    loaded, catalog = r.loaded, r.catalog
    by_age = []
    for card_id, stock in loaded.scenario.policy.holds_stock.items():
        where = ["policy", "holds_stock", card_id]
        if card_id not in catalog.accelerators:
            raise loaded.error(f"unknown card '{card_id}'"
                               f"{did_you_mean(card_id, list(catalog.accelerators))}; expected "
                               "catalog card ids (`tco catalog list`)", where)
        r.put(r.given(where + ["cards"], stock.cards, HELD_INPUTS["cards"]))
        age = HELD_INPUTS["age_years"]
        if stock.age_years is not None and not age.lo <= stock.age_years <= age.hi:
            # checked though a resale price values the stock: the outputs show the age given
            raise loaded.error(age.out_of_range(stock.age_years, age.lo, age.hi, age.unit),
                               where + ["age_years"])
        if stock.resale_price_per_card is not None:
            r.put(r.given(where + ["resale_price_per_card"], stock.resale_price_per_card,
                          HELD_INPUTS["resale_price_per_card"]))
            if stock.new_price_per_card is not None:
                raise loaded.error("new_price_per_card values held cards by their age; with "
                                   "resale_price_per_card given it is not used: remove one",
                                   where + ["new_price_per_card"])
        elif stock.age_years is None:
            raise loaded.error("give resale_price_per_card (what a held card sells for now, "
                               "with a source in the note) or age_years (a book value from "
                               "the catalog's new price)", where)
        else:
            r.put(r.given(where + ["age_years"], stock.age_years, HELD_INPUTS["age_years"]))
            if stock.new_price_per_card is not None:
                r.put(r.given(where + ["new_price_per_card"], stock.new_price_per_card,
                              HELD_INPUTS["new_price_per_card"]))
            elif why := _no_new_price(catalog, card_id):
                raise loaded.error(f"the catalog has no new price for '{card_id}' ({why}), "
                                   "so no book value; give new_price_per_card (what one cost "
                                   "new, with its server and fabric share) or "
                                   "resale_price_per_card (what a held card sells for now)",
                                   where)
            else:
                r.put(_new_price(catalog, card_id, r.usd))
            by_age.append(card_id)
    return tuple(by_age)


def _no_new_price(catalog: Catalog, card_id: str) -> str:
    """Why the catalog has no new price of the card with its server and fabric ("" when it
    has one)."""
    platform = catalog.platform(catalog.card(card_id).default_platform)
    for rec in (catalog.card_prices[card_id], platform):
        for why in rec.missing.values():
            return why.missing
    return ""


def _new_price(catalog: Catalog, card_id: str, usd: Conversion) -> Input:
    """What one held card cost new, from the catalog: the card with its share of its default
    server and fabric (used 8-card servers are quoted per card so). Its range is the catalog
    ranges of the three, so Monte Carlo draws it; the book value at the cards' age is the
    model's (tco.model.held, the book schedule of methodology §6)."""
    card = catalog.card(card_id)
    platform = catalog.platform(card.default_platform)
    per_node = platform.cards_per_node.best
    figs = (catalog.card_prices[card_id].price_usd, platform.node_price_usd,
            platform.network_cost_per_card_usd)
    scale = (1.0, 1 / per_node, 1.0)
    new_usd, low_usd, high_usd = (sum(f * k for f, k in zip(column, scale)) for column in (
        [f.best for f in figs], [f.range[0] for f in figs], [f.range[1] for f in figs]))
    fx = usd.scale
    source = (f"derived: the catalog's new price of the card, 1/{per_node:g} of a "
              f"{platform.id} server and its fabric, {new_usd:,.0f} USD{usd.note}; its book "
              "value at the held cards' age is held_book_value_per_card; give "
              "resale_price_per_card from a used-market quote where one exists")
    return Input(path=stock_path(card_id, "new_price_per_card"), value=new_usd * fx,
                 spec=HELD_INPUTS["new_price_per_card"], source=source,
                 as_of=catalog.card_prices[card_id].price_usd.as_of,
                 low=low_usd * fx, high=high_usd * fx, origin="derived")


def held_note(card_name: str) -> str:
    """The note on an option that draws on held stock (translated in templates/strings.yaml);
    the count is an input (`held_cards_used` says how many), so a what-if keeps it true."""
    return (f"draws on the {card_name} cards the buyer holds (policy.holds_stock): "
            "their purchase is sunk; their resale value now is a cost at year 0 and their "
            "value at the horizon is recovered; cards beyond them are bought")
