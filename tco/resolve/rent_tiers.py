"""Which catalog cloud price a scenario's `rent_pricing` reads (methodology §10, "Rent
tiers"): on-demand, 1-year committed, 3-year committed or spot. A tier the catalog has no
figure for falls back to the next more expensive one that it has (3-year -> 1-year ->
on-demand; spot -> on-demand), and says so. Spot capacity is preempted: a training job
needs `assumptions.spot_overhead_fraction` more card-hours on it (work lost since the last
checkpoint, restarts), which the resolver folds into the price per useful card-hour."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine names tiers without loading the catalog's models
    from ..catalog import CloudPrice, Figure

TIERS = ("on_demand", "committed", "committed_3yr", "spot")
_FIELD = {"on_demand": "on_demand_usd_per_card_hour",
          "committed": "committed_usd_per_card_hour",
          "committed_3yr": "committed_3yr_usd_per_card_hour",
          "spot": "spot_usd_per_card_hour"}
_FALLBACK = {"on_demand": (), "committed": ("on_demand",),
             "committed_3yr": ("committed", "on_demand"), "spot": ("on_demand",)}
_WORDS = {"on_demand": "on-demand", "committed": "1-year committed",
          "committed_3yr": "3-year committed", "spot": "spot"}


def tier_figure(cloud: CloudPrice, pricing: str) -> tuple[Figure, str, str]:
    """(the figure, the tier it is from, a note when it is not the tier asked for)."""
    for tier in (pricing, *_FALLBACK[pricing]):
        fig = getattr(cloud, _FIELD[tier])
        if fig is not None:
            note = "" if tier == pricing else (
                f"no {_WORDS[pricing]} cloud price is published: renting uses {_WORDS[tier]}")
            return fig, tier, note
    raise AssertionError("every cloud price has an on-demand figure")


def tier_label(tier: str) -> str:
    """A tier as outputs name it: "on-demand", "committed" (1-year), "3-year committed",
    "spot". Always the tier whose price was used, which a fallback makes differ from the
    scenario's `rent_pricing`."""
    return "3-year committed" if tier == "committed_3yr" else tier.replace("_", "-")
