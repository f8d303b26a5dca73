"""Existing stock: cards the buyer already holds (methodology §13, "Held stock").

A scenario states the cards it holds under `policy.holds_stock`, by card id: how many, and
what one would sell for now (with its share of the server and fabric), or their age, from
which a book value is derived. Every owned option (bought or hybrid) of that card draws on the
stock first and buys only the cards beyond it. The held cards' purchase is sunk and costs
nothing; keeping them forgoes their sale, so their resale value now is a cost at year 0, and
their value at the horizon is recovered with the residual. They draw power, space, support
and staff like bought ones. The model's lines are in tco/model/held.py.

Each held card id gives two inputs: `policy.holds_stock.<card>.cards` and
`policy.holds_stock.<card>.resale_price_per_card` (in the scenario's currency).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .errors import did_you_mean
from .inputs import Input, InputSpec

if TYPE_CHECKING:
    from .catalog import Catalog
    from .scenario import Loaded

MAX_AGE_YEARS = 30  # a held card's age, for its book value

HELD_INPUTS: dict[str, InputSpec] = {s.key: s for s in [
    InputSpec("cards", "cards", "Cards the buyer holds, in service", 1, 1e6, integer=True),
    InputSpec("resale_price_per_card", "money/card", "What one held card (with its share of "
              "server and fabric) would sell for now", 100, 1e6,
              hint="per card in whole currency units, what the used market pays now",
              money=True),
]}


def stock_path(card: str, key: str) -> str:
    return f"policy.holds_stock.{card}.{key}"


def held_stock_inputs(loaded: Loaded, catalog: Catalog, given: Callable[..., Input],
                      read: Callable[[str], Input], fx: float, fx_note: str) -> list[Input]:
    """The inputs of each held stock, checked: a catalog card, and a resale price given or
    an age to derive it from. `given(where, value, spec)` makes a scenario input; `read(path)`
    reads (and records reading) an input already made."""
    out = []
    for card_id, stock in loaded.scenario.policy.holds_stock.items():
        where = ["policy", "holds_stock", card_id]
        if card_id not in catalog.accelerators:
            raise loaded.error(f"unknown card '{card_id}'"
                               f"{did_you_mean(card_id, list(catalog.accelerators))}; expected "
                               "catalog card ids (`tco catalog list`)", where)
        out.append(given(where + ["cards"], stock.cards, HELD_INPUTS["cards"]))
        spec = HELD_INPUTS["resale_price_per_card"]
        if stock.resale_price_per_card is not None:
            out.append(given(where + ["resale_price_per_card"], stock.resale_price_per_card,
                             spec))
        elif stock.age_years is None:
            raise loaded.error("give resale_price_per_card (what a held card sells for now, "
                               "with a source in the note) or age_years (a book value from "
                               "the catalog's new price)", where)
        elif not 0 <= stock.age_years <= MAX_AGE_YEARS:
            raise loaded.error(f"found {stock.age_years:g}, outside the plausible range 0 to "
                               f"{MAX_AGE_YEARS} years for the held cards' age",
                               where + ["age_years"])
        elif _no_new_price(catalog, card_id):
            raise loaded.error(f"the catalog has no new price for '{card_id}' "
                               f"({_no_new_price(catalog, card_id)}), so no book value; give "
                               "resale_price_per_card (what a held card sells for now)", where)
        else:
            out.append(_book_value(catalog, card_id, stock.age_years, read, fx, fx_note))
    return out


def _no_new_price(catalog: Catalog, card_id: str) -> str:
    """Why the catalog has no new price of the card with its server and fabric ("" when it
    has one)."""
    platform = catalog.platform(catalog.card(card_id).default_platform)
    for rec in (catalog.card_prices[card_id], platform):
        for why in rec.missing.values():
            return why.missing
    return ""


def _book_value(catalog: Catalog, card_id: str, age: float, read: Callable[[str], Input],
                fx: float, fx_note: str) -> Input:
    """The held card's book value at `age` years: the new price of the card with its share of
    its default server and fabric, straight-line to the salvage share over the depreciation
    life (the residual rule of methodology §6). Its range is the new prices' catalog ranges at
    the same share, so Monte Carlo draws it."""
    card = catalog.card(card_id)
    platform = catalog.platform(card.default_platform)
    per_node = platform.cards_per_node.best
    figs = (catalog.card_prices[card_id].price_usd, platform.node_price_usd,
            platform.network_cost_per_card_usd)
    scale = (1.0, 1 / per_node, 1.0)
    new_usd, low_usd, high_usd = (sum(f * k for f, k in zip(column, scale)) for column in (
        [f.best for f in figs], [f.range[0] for f in figs], [f.range[1] for f in figs]))
    salvage = read("finance.residual_value_fraction").value
    life = read("finance.depreciation_years").value
    share = salvage + (1 - salvage) * max(0.0, 1 - age / life)
    source = (f"derived: book value at {age:g} years of the catalog's new price "
              f"{new_usd:,.0f} USD (card, 1/{per_node:g} of a {platform.id} server, fabric), "
              f"straight-line to the salvage share {salvage:g} over {life:g} years = "
              f"{share:.4g} of it{fx_note}; give resale_price_per_card from a used-market "
              "quote where one exists")
    return Input(path=stock_path(card_id, "resale_price_per_card"),
                 value=new_usd * share * fx, spec=HELD_INPUTS["resale_price_per_card"],
                 source=source, as_of=catalog.card_prices[card_id].price_usd.as_of,
                 low=low_usd * share * fx, high=high_usd * share * fx, origin="derived")


def held_note(card_name: str) -> str:
    """The note on an option that draws on held stock (translated in templates/strings.yaml);
    the count is an input (`held_cards_used` says how many), so a what-if keeps it true."""
    return (f"draws on the {card_name} cards the buyer holds (policy.holds_stock): "
            "their purchase is sunk; their resale value now is a cost at year 0 and their "
            "value at the horizon is recovered; cards beyond them are bought")
