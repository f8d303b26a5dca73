"""The rent price at which an option's shortfall is closed (methodology §8, "Pricing the
shortfall"), for a card that has no cloud price of its own.

A card with a cloud price closes its shortfall at that price (the model reads its
`cloud_price_per_card_hour`). For one without, the catalog's cheapest sourced rent per
sustained BF16 TFLOP-hour (peak x the catalog's MFU) among the cards that may be rented in the
scenario's region (their use not barred there by an export control, tco.policy; not
licence-barred from data centres), each at the region's own offer where it has one,
scaled to this card's sustained compute: renting the same sustained compute on the cheapest
card a cloud sells. Read from catalog figures only (never from the resolved inputs),
so that a what-if of this card's peak and resolving the edited scenario agree.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Accelerator, Catalog, Figure
from .rent_tiers import tier_figure


@dataclass(frozen=True)
class ShortfallPrice:
    usd_per_card_hour: float  # for this card, in USD
    low_usd: float
    high_usd: float
    source: str
    as_of: str


def _tier(catalog: Catalog, card_id: str, pricing: str, region: str) -> Figure | None:
    """The card's on-demand cloud price, whatever the scenario's tier: a shortfall is rented
    once, in the horizon's last year, so a committed reservation (paid for every hour of its
    term) does not fit it, and closing it on preemptible (spot) capacity is not a plan."""
    cloud = catalog.cloud_price(card_id, region)
    if cloud is None:
        return None
    return tier_figure(cloud, "on_demand")[0]


def _sustained(card: Accelerator) -> float | None:
    """Peak BF16 TFLOPS x the catalog's (vendor-tuned) MFU."""
    peak = card.peak("bf16")
    return None if peak is None else peak.best * card.mfu.best


def cheapest_rent(catalog: Catalog, card: Accelerator, region: str,
                  pricing: str) -> ShortfallPrice | None:
    """The cheapest sourced rent of the same sustained compute, per card-hour of `card`; None
    when the card has no BF16 peak or no card with a cloud price may be used in `region`."""
    own = _sustained(card)
    if own is None:
        return None
    best: tuple[float, Accelerator, Figure, float] | None = None
    for cid in catalog.cloud_prices:
        other = catalog.accelerators.get(cid)
        fig = _tier(catalog, cid, pricing, region)
        theirs = _sustained(other) if other is not None else None
        if other is None or fig is None or theirs is None or "gaming_license" in other.flags \
                or (catalog.export_restricted(other, region)
                    and other.export_restriction == "any_use"):
            continue
        if best is None or fig.best / theirs < best[0]:
            best = (fig.best / theirs, other, fig, theirs)
    if best is None:
        return None
    _, other, fig, theirs = best
    scale = own / theirs
    lo, hi = fig.range
    source = (f"derived: the cheapest sourced rent per sustained BF16 TFLOP-hour (peak x "
              f"catalog MFU) usable in region '{region}', {other.name} at {fig.best:g} USD per "
              f"card-hour ({pricing}; {fig.source}), x this card's sustained TFLOPS / its "
              f"({own:g} / {theirs:g})")
    return ShortfallPrice(fig.best * scale, lo * scale, hi * scale, source, fig.as_of)
