"""A catalog figure becomes a model input here, and only here: `figure_input`.

A catalog figure (tco.catalog.Figure) is a point value or a low/typical/high range with its
source and as-of date. Its input keeps all of them: the value is the figure's best estimate,
the range its low and high (what sensitivity and Monte Carlo vary), both in the scenario's
units. Money is converted at resolution (the model has no currencies), by a `Conversion`:
the catalog's USD (or a region's own currency) into the scenario's, at the catalog's rate,
and the source says so ("(USD x 7.1526 CNY/USD): <source>"). A figure that is not money is
never converted, whatever conversion the caller holds.

The quoted-currency rule: a price a quote file gave in the scenario's own currency ("quoted
105,000 CNY; at 7.1526 CNY/USD", tco.catalog) was converted to USD once, on loading (the
catalog keeps prices in USD); it comes back as quoted: the figure the quote gave, its source as
the quote wrote it, with no word of the round trip through USD. Rounding to 12 significant
digits removes the round trip's float error (120,000 / 7.1526 x 7.1526 =
120,000.00000000001), not a digit of a quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..inputs import Input, InputSpec

if TYPE_CHECKING:
    from ..catalog import Catalog, Figure


@dataclass(frozen=True)
class Conversion:
    """Money from the catalog's currency into the scenario's: multiply by `scale`. `note` is
    what the input's source says of it ("" when nothing is converted); `quoted_in`, for a
    conversion from USD, the currency whose quotes come back as quoted."""

    scale: float = 1.0
    note: str = ""
    quoted_in: str = ""


SAME = Conversion()


def from_usd(catalog: Catalog, currency: str) -> Conversion:
    """USD (most catalog money) into `currency`, at the catalog's exchange rate."""
    fx = catalog.usd_to(currency)
    return Conversion(fx, "" if currency == "USD" else f" (USD x {fx:g} {currency}/USD)",
                      currency)


def between(catalog: Catalog, held_in: str, currency: str) -> Conversion:
    """A region's own currency (its tariff and colocation price) into `currency`, through
    the catalog's rates of both against USD."""
    fx = catalog.usd_to(currency) / catalog.usd_to(held_in)
    return Conversion(fx, "" if held_in == currency else f"{held_in} x {fx:g} {currency}/{held_in}")


_QUOTED_IN = re.compile(r" \(quoted [0-9,.eE+-]+ ([A-Z]{3}); at [0-9.eE+-]+ [A-Z]{3}/USD\)$")


def figure_input(path: str, fig: Figure, spec: InputSpec, convert: Conversion = SAME,
                 why: str = "", factor: float = 1.0) -> Input:
    """The input at `path` from catalog figure `fig`: value and range converted by `convert`
    when `spec` is money, and by `factor` (a spot price's overhead); `why` says what was done
    to the figure besides a currency conversion, at the head of its source."""
    lo, hi, best = fig.range + (fig.best,)
    scale = convert.scale * factor if spec.money else factor
    note = convert.note if spec.money else ""
    quoted = _QUOTED_IN.search(fig.source)
    if note and quoted and quoted.group(1) == convert.quoted_in:
        # a quote in the scenario's currency comes back as quoted (the module's docstring)
        def exact(x: float) -> float:
            return float(f"{x * scale:.12g}")

        source = fig.source[:quoted.start()]
        return Input(path=path, value=exact(best), spec=spec,
                     source=f"{why}: {source}" if why else source, as_of=fig.as_of,
                     low=exact(lo), high=exact(hi), note=fig.note or "", origin="catalog")
    head = f"{why}{note}"
    return Input(path=path, value=best * scale, spec=spec,
                 source=f"{head}: {fig.source}" if head else fig.source, as_of=fig.as_of,
                 low=lo * scale, high=hi * scale, note=fig.note or "", origin="catalog")
