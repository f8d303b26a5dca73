"""Renting: which cloud price a card is rented at and what of its hours is reserved, the
price a card with no cloud price closes its shortfall at, and the rent options
`rent_options: auto` adds (methodology §8 and §10)."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

from .. import modes
from ..catalog import Figure
from ..errors import did_you_mean
from ..inputs import CANDIDATE_INPUTS, Input
from .policy import rent_bars
from .rent_tiers import tier_figure, tier_label
from .shortfall_price import cheapest_rent
from .state import Resolution

if TYPE_CHECKING:
    from ..catalog import Accelerator
    from ..resolved import CandidateInfo
    from ..scenario import Candidate


class Source(NamedTuple):
    """A catalog figure behind a candidate's input: `why` says what was done to it besides
    converting money (tco.resolve.figures), `factor` what it was multiplied by."""

    fig: Figure | None
    why: str = ""
    factor: float = 1.0


def cloud_figures(r: Resolution, card: Accelerator, region: str, offer: str | None = None,
                  where: list[str] | None = None) -> tuple[dict[str, Source], str]:
    """The cloud price of `card` in `region` (the region's own offer, else the card's general
    price: Catalog.cloud_price) at the scenario's tier (or the tier it falls back to), what
    of the rented hours that tier reserves and its on-demand alternative, by input key; and
    a note when the tier is not the scenario's. Nothing when the catalog has no price.
    `offer`: a regional offer the scenario picks by id (`candidates[].cloud`, at `where`)."""
    if offer is not None:
        offers = r.catalog.regional_cloud_prices
        if offer not in offers:
            raise r.error(f"unknown cloud offer '{offer}'{did_you_mean(offer, offers)}",
                          where or [])
        if offers[offer].card != card.id:
            raise r.error(f"cloud offer '{offer}' rents {offers[offer].card}, not {card.id}",
                          where or [])
    cloud = (r.catalog.regional_cloud_prices[offer] if offer is not None
             else r.catalog.cloud_price(card.id, region))
    if cloud is None:
        return {}, ""
    fig, tier, rent_note = tier_figure(cloud, r.sc.rent_pricing)
    price = Source(fig)
    if tier == "spot":  # the price of a useful card-hour: preempted work is paid too
        over = r.inputs["assumptions.spot_overhead_fraction"].value
        price = Source(fig, f"spot price x (1 + {over:g} spot overhead, "
                            "assumptions.spot_overhead_fraction)", 1 + over)
    return {"cloud_price_per_card_hour": price,
            "rent_reserved_fraction": Source(reserved(r, tier)),
            "on_demand_price_per_card_hour": Source(cloud.on_demand_usd_per_card_hour)}, \
        rent_note


def rent_terms(r: Resolution, p: str) -> None:
    """A cloud price the scenario gives for a card the catalog has none for: its tier's
    reservation, and the price itself as its on-demand alternative."""
    if f"{p}.rent_reserved_fraction" not in r.inputs:
        r.figure(f"{p}.rent_reserved_fraction", reserved(r, r.sc.rent_pricing),
                 CANDIDATE_INPUTS["rent_reserved_fraction"])
    if f"{p}.on_demand_price_per_card_hour" not in r.inputs:
        given = r.inputs[f"{p}.cloud_price_per_card_hour"]
        r.put(Input(path=f"{p}.on_demand_price_per_card_hour", value=given.value,
                    spec=CANDIDATE_INPUTS["on_demand_price_per_card_hour"],
                    low=given.low, high=given.high, as_of=given.as_of, origin="derived",
                    source="the cloud price given: no on-demand figure of its own"))


def reserved(r: Resolution, tier: str) -> Figure:
    """The share of a rented cluster's hours paid used or not: a committed reservation is
    take-or-pay (assumptions.committed_reserved_fraction); on-demand and spot are paid per
    hour used."""
    if tier in ("committed", "committed_3yr"):
        given = r.inputs["assumptions.committed_reserved_fraction"]
        return Figure(value=given.value, as_of=given.as_of or "2026-12",
                      source=f"{tier_label(tier)} prices reserve the cluster for the term: "
                             "assumptions.committed_reserved_fraction (" + given.source + ")")
    return Figure(value=0.0, as_of="2026-12",
                  source=f"{tier_label(tier)} prices are paid per hour used: nothing is "
                         "reserved")


def rent_tier(r: Resolution, card: Accelerator, c: Candidate, region: str) -> str:
    """The tier whose price rents this card in `region`: the scenario's, or the one a missing
    figure falls back to (a price the scenario gives for such a card is taken at that tier,
    whose reservation the card's inputs carry); a price the scenario gives for a card with no
    cloud price is taken at the scenario's tier."""
    cloud = r.catalog.cloud_price(card.id, region)
    if cloud is None:
        return r.sc.rent_pricing if "cloud_price_per_card_hour" in c.overrides else ""
    return tier_figure(cloud, r.sc.rent_pricing)[1]


def shortfall_price(r: Resolution, c: Candidate, card: Accelerator, p: str, region: str
                    ) -> None:
    """A card with no cloud price: the rent of the same peak compute on the cheapest card
    a cloud sells that may be used in `region` (tco.resolve.shortfall_price), or the
    scenario's own figure."""
    key, spec = "shortfall_price_per_card_hour", CANDIDATE_INPUTS["shortfall_price_per_card_hour"]
    if key in c.overrides:
        r.put(r.given(["candidates", c.id, key], c.overrides[key], spec))
        return
    found = cheapest_rent(r.catalog, card, region, r.sc.rent_pricing)
    if found is not None:
        fx = r.usd.scale
        r.put(Input(path=f"{p}.{key}", value=found.usd_per_card_hour * fx,
                    spec=spec, low=found.low_usd * fx, high=found.high_usd * fx,
                    source=found.source + r.usd.note, as_of=found.as_of, origin="derived"))


def check_rent_term(r: Resolution) -> None:
    """A 3-year commitment outlasting the horizon: its later years would be owed and not
    counted, so the tier's price would be had for less than its term."""
    years = r.sc.finance.horizon_years
    if r.sc.rent_pricing == "committed_3yr" and years < 3:
        raise r.error(
            f"3-year committed prices commit for 3 years, longer than the {years}-year "
            "horizon (finance.horizon_years): the years after it would be owed and not "
            "counted; rent at committed (1-year) or on_demand prices, or set a horizon "
            "of at least 3 years", ["rent_pricing"])


def mark_rent_bars(r: Resolution, infos: dict[str, CandidateInfo], rent: list[str]) -> None:
    """Each option with a cloud price (`rent`): the bars on renting its card here, which the
    planner obeys (tco.plan.build): a rent option's own; an owned option's are renting's
    (tco.resolve.policy.rent_bars), not buying's."""
    for cid in rent:
        info = infos[cid]
        if info.acquire == modes.RENT:
            info.rent_blocking = list(info.blocking)
        else:
            info.rent_blocking = renting_bars(r, info)[1]


def renting_bars(r: Resolution, info: CandidateInfo) -> tuple[list[str], list[str]]:
    """(flags, bars) of renting the card `info` owns at its site (tco.resolve.policy.rent_bars):
    shared by a generated rent option and the planner's renting of an owned option's card."""
    region = r.sites[info.site].region
    return rent_bars(r.catalog.card(info.card), info, r.catalog.region(region).place or region)


def rent_options(r: Resolution, infos: dict[str, CandidateInfo], rent: list[str]) -> list[str]:
    """With `rent_options: auto`, an option renting each owned card (bought, leased or
    hybrid) that has a cloud price (and is not rented by a listed option already): the card
    and cluster size of the first candidate owning it, read from that candidate's inputs.
    Their ids, added to `infos`."""
    if r.sc.rent_options != "auto":
        return []
    done = {info.card for info in infos.values() if info.acquire == modes.RENT}
    wids = [w.id for w in r.sc.workloads]
    made = []
    for cid in list(infos):
        info = infos[cid]
        if (info.acquire == modes.RENT or info.infeasible or cid not in rent
                or info.card in done):
            continue
        if not all(info.carries(w) for w in wids):
            continue  # renting part of the plan is not an option for the whole of it
        done.add(info.card)
        gid = f"{cid}-rent"
        while gid in infos:
            gid += "-rent"
        # the tier actually used: a card with no figure at the scenario's tier falls back
        notes = [(f"renting the card and cluster size of '{cid}' at "
                 f"{tier_label(info.rent_tier)} cloud prices (rent_options: auto)")]
        region = r.sites[info.site].region
        cloud = r.catalog.cloud_price(info.card, region)
        if cloud is not None and info.rent_tier != r.sc.rent_pricing:
            notes.append(tier_figure(cloud, r.sc.rent_pricing)[2])
        # renting installed capacity is no export: the owned option's export bar is
        # replaced by renting's (tco.resolve.policy)
        flags, blocking = renting_bars(r, info)
        infos[gid] = replace(
            info, id=gid, name=f"{info.name}, rented", acquire="rent", inputs_of=cid,
            flags=flags, blocking=blocking, infeasible=[], notes=notes)
        made.append(gid)
    return made
