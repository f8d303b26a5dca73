"""Each candidate (an option of a card, bought, leased, rented or a hybrid): its hardware from
the catalog, every catalog figure it reads (or the scenario's override), how it is sized, its
layout pins, its deliveries and the risk flags that may bar it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from .. import modes
from ..catalog import SERVING_FALLBACK_STACK, Figure
from ..errors import UnknownId, did_you_mean
from ..inputs import (
    CANDIDATE_INPUTS,
    DELIVERY_INPUTS,
    LAYOUT_INPUTS,
    PRECISION_LAYOUT_SPEC,
    SERVE_CANDIDATE_INPUTS,
    TARGET_INPUTS,
    Input,
    site_path,
)
from ..model.units import PRECISION_CODES
from ..profiles import profile_figure
from ..resolved import CandidateInfo
from .held import held_note
from .policy import export_bar, lift_bars
from .portfolio import assigned_workloads
from .renting import Source, cloud_figures, rent_terms, rent_tier, shortfall_price
from .sites import site_of
from .state import Resolution, SiteFacts

if TYPE_CHECKING:
    from ..catalog import Accelerator, Cooling, Missing, Platform, Stack
    from ..scenario import Candidate

# Overrides a candidate may give for a card the catalog has no cloud price for.
# the planner's price-path inputs a card without a catalog path (or on sale now) takes
PATH_DEFAULTS = {
    "card_price_change_per_year": "default: a constant price (no price path for this card "
                                  "class in pricing/price_paths.yaml)",
    "rent_change_per_year": "default: a constant rent (no price path for this card class)",
    "available_in_months": "default: on sale at the decision",
}
RENT_KEYS = ("cloud_price_per_card_hour", "rent_reserved_fraction",
             "on_demand_price_per_card_hour")


def candidate(r: Resolution, c: Candidate) -> tuple[CandidateInfo, bool]:
    """The candidate's inputs, what is known of it besides numbers, and whether it has a
    cloud price."""
    base = ["candidates", c.id]
    card, platform, stack = hardware(r, c)
    site = site_of(r, c)
    cooling = r.catalog.cooling_option(c.cooling or platform.default_cooling)
    info = CandidateInfo(
        id=c.id, name=c.name or card.name, card=card.id, card_name=card.name,
        vendor=card.vendor, platform=platform.id, platform_name=platform.name,
        cooling=cooling.id, stack=stack.id, stack_name=stack.name, sizing="cards",
        site=site.id,
    )
    figs, rent_note = catalog_figures(r, card, platform, stack, cooling, r.precisions(), site,
                                      c.cloud, base + ["cloud"])
    if "pue" in site.given and "pue" in c.overrides:
        raise r.error(f"{site.words()} gives the PUE every option there runs at "
                      f"({site_path(site.id, 'pue')}); give it there or here, not both",
                      base + ["pue"])
    if "pue" in c.overrides:
        check_pue_cap(r, site, c.overrides["pue"], base + ["pue"])
    p = ".".join(base)
    figure_inputs(r, c, card, info, figs, missing_prices(r, card, platform))
    if r.catalog.region(site.region).pue_cap is not None and f"{p}.pue" in r.inputs:
        # read: resolving checks it against the cap, so a what-if of it resolves again
        r.inputs[f"{p}.pue"]
    serving_options(r, c, card, stack, info)
    for key, why in PATH_DEFAULTS.items():  # no catalog path: constant prices; on sale now
        if f"{p}.{key}" not in r.inputs:
            r.put(r.given(base + [key], c.overrides[key], CANDIDATE_INPUTS[key])
                  if key in c.overrides else
                  Input(path=f"{p}.{key}", value=0.0, spec=CANDIDATE_INPUTS[key],
                        origin="default", source=why))
    if "cloud_price_per_card_hour" not in figs and "cloud_price_per_card_hour" not in \
            c.overrides:
        shortfall_price(r, c, card, p, site.region)
    for key in c.overrides:
        if key in figs or f"{p}.{key}" in r.inputs:  # shortfall_price_per_card_hour
            continue
        if key not in RENT_KEYS:
            raise r.error(_unused(key), base + [key])
        r.put(r.given(base + [key], c.overrides[key], CANDIDATE_INPUTS[key]))
    if f"{p}.cloud_price_per_card_hour" in r.inputs:
        rent_terms(r, p)
    info.acquire = c.acquire
    info.workloads = assigned_workloads(r.loaded, c)
    if info.workloads:
        info.notes.append(f"carries {', '.join(info.workloads)} only: a part of the plan, "
                          "costed whole in a portfolio")
    if c.acquire in (modes.RENT, modes.HYBRID) and f"{p}.cloud_price_per_card_hour" not in r.inputs:
        raise r.error(
            f"{c.acquire} rents, and renting needs a cloud price: the catalog has none "
            f"for '{card.id}'; give "
            "cloud_price_per_card_hour (per card-hour) for this candidate",
            base + ["acquire"])
    size_rule(r, c, info)
    layout_pins(r, c)
    deliveries(r, c, info)
    if site.id:
        info.notes.append(f"at site '{site.id}' (facility.sites, region {site.region})")
    risk_policy(r, card, stack, info, site.region)
    lift_bars(r.loaded, card.id, info)
    if stack.id != "cuda" and card.mfu_basis == "vendor-tuned":
        info.notes.append(f"MFU: the vendor-tuned figure x the team factor for "
                          f"{stack.name.split(' (')[0]} (by team.familiarity)")
    stock = r.sc.policy.holds_stock.get(card.id)
    if stock is not None and c.acquire in (modes.BUY, modes.HYBRID):
        info.notes.append(held_note(card.name))
    if c.notes:
        info.notes.append(c.notes)
    if rent_note:
        info.notes.append(rent_note)
    info.rent_tier = rent_tier(r, card, c, site.region)
    return info, f"{p}.cloud_price_per_card_hour" in r.inputs


def figure_inputs(r: Resolution, c: Candidate, card: Accelerator, info: CandidateInfo,
                  figs: dict[str, Source], missing: dict[str, Missing]) -> None:
    """An input for each catalog figure of the candidate: the scenario's override, a purchase
    figure no public source gives (`missing`: a rented option pays none, another must bring
    its quote), a default that stands in for the figure (colocation's cooling, an as-deployed
    MFU), nothing for a precision the card lacks (the candidate is not priced), or the figure
    itself."""
    base = ["candidates", c.id]
    p = ".".join(base)
    needed = r.precisions(needed=True)
    for key, (fig, why, factor) in figs.items():
        spec = CANDIDATE_INPUTS[key]
        if key in c.overrides:
            r.put(r.given(base + [key], c.overrides[key], spec))
        elif key in missing:
            r.put(missing_input(r, c, card.id, key, missing[key]))
        elif key == "cooling_capex_per_kw":
            r.put(Input(path=f"{p}.{key}", value=0.0, spec=spec, low=0.0, high=0.0,
                        source="colocation: the provider's cooling plant is in the "
                               f"colocation price (catalog plant capex: {fig.best:g} "  # type: ignore[union-attr]
                               "USD/kW, set cooling_capex_per_kw to pay for your own)",
                        origin="default"))
        elif key == "stack_efficiency" and card.mfu_basis == "as-deployed":
            r.put(Input(path=f"{p}.{key}", value=1.0, spec=spec, low=1.0, high=1.0,
                        source=f"catalog: the MFU of {card.id} was measured as a team "
                               "new to the stack deploys it; no factor on top",
                        origin="default"))
        elif fig is None:
            prec = key.removeprefix("peak_tflops_")
            if prec in needed:  # a workload that may use another precision is not barred
                info.infeasible.append(f"{card.name} has no {prec.upper()} support")
            r.put(Input(path=f"{p}.{key}", value=0.0, spec=spec,
                        source=f"catalog: {card.id} has no {prec.upper()} support",
                        origin="catalog"))
        else:
            r.figure(f"{p}.{key}", fig, spec, why=why, factor=factor)


def _unused(key: str) -> str:
    """Why a candidate's figure is refused: no formula of the scenario reads it."""
    why = " (a serving figure: no workload serves)" if key in SERVE_CANDIDATE_INPUTS else ""
    return f"'{key}' is not used by this scenario{why}"


def serving_options(r: Resolution, c: Candidate, card: Accelerator, stack: Stack,
                    info: CandidateInfo) -> None:
    """A serving workload's precisions the card has none of make it unserved here; a
    scenario that serves gives the candidate its serving figures."""
    for w in r.sc.workloads:
        allowed = r.allowed(w.id)
        if len(allowed) > 1 and all(card.peak(x) is None for x in allowed):
            info.infeasible.append(f"{card.name} serves none of {w.id}'s precisions ("
                                   f"{', '.join(x.upper() for x in allowed)})")
    if r.serves:
        serving_figures(r, c, stack, f"candidates.{c.id}")


def serving_figures(r: Resolution, c: Candidate, stack: Stack, p: str) -> None:
    """The candidate's serving figures: its stack's vendor-tuned engine's (a stack without
    them serves with SERVING_FALLBACK_STACK's), or the scenario's own."""
    fallback = r.catalog.stack(SERVING_FALLBACK_STACK)
    for key, spec in SERVE_CANDIDATE_INPUTS.items():
        if key in c.overrides:
            r.put(r.given(["candidates", c.id, key], c.overrides[key], spec))
            continue
        fig, why = getattr(stack, key), ""
        if fig is None:
            fig = getattr(fallback, key)
            why = (f"{stack.name.split(' (')[0]} has no serving figure: "
                   f"{fallback.name.split(' (')[0]}'s")
        r.figure(f"{p}.{key}", fig, spec, why=why)


def missing_input(r: Resolution, c: Candidate, card_id: str, key: str, why: Missing) -> Input:
    """A purchase figure no public source gives: a bought or leased option must bring its
    quote (the message names the input); a rented one pays none of it."""
    spec = CANDIDATE_INPUTS[key]
    if c.acquire != modes.RENT:
        raise r.error(
            f"the catalog has no {spec.label.lower()} for '{card_id}' ({why.missing}); "
            f"give {key} for this candidate (a quote, in {r.sc.currency})",
            ["candidates", c.id, "card"])
    return Input(path=f"candidates.{c.id}.{key}", value=0.0, spec=spec, as_of=why.as_of,
                 source=f"catalog: {why.missing} (a rented option pays none)",
                 origin="catalog")


def missing_prices(r: Resolution, card: Accelerator, platform: Platform) -> dict[str, Missing]:
    """The candidate inputs whose catalog figure has no public value (pricing/ says so with
    `missing:`), by input key, with the reason."""
    price = r.catalog.card_prices[card.id]
    out = {}
    for key, rec, field in (("card_price", price, "price_usd"),
                            ("node_price", platform, "node_price_usd"),
                            ("network_cost_per_card", platform, "network_cost_per_card_usd")):
        if field in rec.missing:
            out[key] = rec.missing[field]
    return out


def hardware(r: Resolution, c: Candidate) -> tuple[Accelerator, Platform, Stack]:
    base = ["candidates", c.id]
    catalog = r.catalog
    try:
        card = catalog.card(c.card)
    except UnknownId as exc:
        raise r.error(str(exc), base + ["card"]) from None
    try:
        platform = catalog.platform(c.platform or card.default_platform)
    except UnknownId as exc:
        raise r.error(str(exc), base + ["platform"]) from None
    if card.id not in platform.cards:
        raise r.error(
            f"platform '{platform.id}' does not host '{card.id}' (it hosts "
            f"{', '.join(platform.cards)})", base + ["platform"])
    try:
        stack = catalog.stack(c.stack or card.stack)
    except UnknownId as exc:
        raise r.error(str(exc), base + ["stack"]) from None
    return card, platform, stack


def resale_figures(r: Resolution, card: Accelerator) -> dict[str, Source]:
    """The card class's used-market curve (pricing/resale.yaml), if the catalog has one and
    the scenario gives no salvage share of its own (`finance.residual_value_fraction`: its
    straight line then, the scenario's value winning as everywhere)."""
    curve = r.catalog.resale_curve(card.id)
    if curve is None or "residual_value_fraction" in r.sc.finance.model_fields_set:
        return {}
    # read: a what-if of the salvage share gives one, which replaces the curve, so it
    # resolves again (tco.resolve.state)
    r.inputs["finance.residual_value_fraction"]
    why = f"resale curve {curve.id}"
    return {"resale_haircut_fraction": Source(curve.haircut_fraction, why),
            "resale_retention_per_year": Source(curve.retention_per_year, why)}


def path_figures(r: Resolution, card: Accelerator) -> dict[str, Source]:
    """The card class's price path (pricing/price_paths.yaml), if the catalog has one."""
    path = r.catalog.price_path(card.id)
    if path is None:
        return {}
    why = f"price path {path.id}"
    return {"card_price_change_per_year": Source(path.card_price_change_per_year, why),
            "rent_change_per_year": Source(path.rent_change_per_year, why)}


def catalog_figures(r: Resolution, card: Accelerator, platform: Platform, stack: Stack,
                    cooling: Cooling, precisions: list[str], site: SiteFacts,
                    offer: str | None = None, where: list[str] | None = None
                    ) -> tuple[dict[str, Source], str]:
    """Each catalog figure of a candidate by input key (None: the card lacks a precision);
    and a note on the cloud price chosen. No PUE at a site that gives its own."""
    price = r.catalog.card_prices[card.id]
    figs: dict[str, Source] = {
        "card_price": Source(price.price_usd),
        "lead_time_weeks": Source(price.lead_time_weeks),
        "mfu": Source(card.mfu),
        "stack_efficiency": Source(stack.efficiency_vs_cuda),
        **({"mfu_fp8": Source(card.mfu_fp8 or card.mfu,
                              "" if card.mfu_fp8 else "no FP8 figure, the BF16 one")}
           if {"fp8", "int8", "fp4"} & set(precisions) else {}),
        "memory_gb": Source(card.memory_gb),
        "tdp_w": Source(card.tdp_w),
        "scaleup_bandwidth_bidir_gb_per_s": Source(card.scaleup_bandwidth_bidir_gb_per_s),
        "scaleup_domain_cards": Source(card.scaleup_domain_cards),
        "cards_per_node": Source(platform.cards_per_node),
        "node_price": Source(platform.node_price_usd),
        "node_power_w": Source(platform.node_power_w),
        "scaleout_bandwidth_gb_per_s": Source(platform.scaleout_bandwidth_gb_per_s),
        "network_cost_per_card": Source(platform.network_cost_per_card_usd),
        "card_failure_rate_per_hour": Source(failure_rate(r, card)),
        **resale_figures(r, card),
        **path_figures(r, card),
        # the buyer profile's PUE, if the scenario names one that sets it (tco.profiles)
        "pue": Source(*profiled) if (profiled := profile_figure(r.loaded, r.catalog, "pue"))
        else Source(cooling.pue),
        "cooling_capex_per_kw": Source(cooling.capex_per_kw_usd),
        "porting_engineer_months": Source(
            getattr(stack, f"porting_engineer_months_{r.sc.team.porting_complexity}")),
        "maintenance_engineer_months_per_year": Source(
            stack.maintenance_engineer_months_per_year),
        "licence_per_card_year": Source(stack.licence_per_card_year_usd),
    }
    for prec in precisions:
        figs[f"peak_tflops_{prec}"] = Source(card.peak(prec))
    # decode reads memory, and so do small expert GEMMs (a mixture of experts)
    figs["memory_bandwidth_gb_per_s"] = Source(card.memory_bandwidth_gb_per_s)
    cloud, rent_note = cloud_figures(r, card, site.region, offer, where)
    figs.update(cloud)
    if "pue" in site.given:  # the site's, read by the model through its site (tco.model.base)
        del figs["pue"]
    else:
        figs["pue"] = capped_pue(r, figs["pue"], site)
    return figs, rent_note


def capped_pue(r: Resolution, pue: Source, site: SiteFacts) -> Source:
    """An option's PUE from the catalog (its cooling's, or the buyer profile's) held to its
    site's region's PUE cap (methodology §3, "PUE caps"): a data centre in a region whose rules
    cap the PUE runs at the cap at worst, so each part of the figure above it is the cap."""
    cap = r.catalog.region(site.region).pue_cap
    fig = pue.fig
    if cap is None or fig is None:
        return pue
    limit = cap.best
    parts = {k: getattr(fig, k) for k in ("value", "low", "typical", "high")}
    if all(v is None or v <= limit for v in parts.values()):
        return pue
    held = {k: (None if v is None else min(v, limit)) for k, v in parts.items()}
    why = ((f"{pue.why}, " if pue.why else "") + f"held to the {limit:g} PUE cap of region "
           f"{site.region} (catalog regions.{site.region}.pue_cap)")
    return Source(fig.model_copy(update=held), why, pue.factor)


def check_pue_cap(r: Resolution, site: SiteFacts, pue: float, where: list[str]) -> None:
    """A PUE the scenario gives above its site's region's cap is refused: a data centre there
    may not be approved to run at it (methodology §3, "PUE caps")."""
    cap = r.catalog.region(site.region).pue_cap
    if cap is not None and float(pue) > cap.best + 1e-12:
        raise r.error(
            f"PUE {float(pue):g} is above the {cap.best:g} cap of region {site.region} "
            f"({cap.source}): a data centre there may not be approved to run at it; give a "
            f"PUE of at most {cap.best:g}, or a site in another region", where)


def failure_rate(r: Resolution, card: Accelerator) -> Figure:
    """Interruptions per card-hour: the card class's own measured figure, else the
    assumption's (which a scenario's assumptions.card_failure_rate_per_hour overrides for
    every card)."""
    given = r.inputs["assumptions.card_failure_rate_per_hour"]
    if card.failure_rate_per_card_hour is not None and given.origin != "scenario":
        return card.failure_rate_per_card_hour
    src = "scenario" if given.origin == "scenario" else given.source
    if given.low is not None and given.high is not None and given.low < given.high:
        return Figure(low=given.low, typical=given.value, high=given.high, source=src,
                      as_of=given.as_of or "2026-12")
    return Figure(value=given.value, source=src, as_of=given.as_of or "2026-12")


def size_rule(r: Resolution, c: Candidate, info: CandidateInfo) -> None:
    """The cluster size: given, or a target (deadline or power cap) the engine sizes for."""
    base = ["candidates", c.id]
    if c.cards == "auto" and c.acquire == modes.HYBRID:
        # every base delivers the plan (the rest is rented): auto would keep the smallest
        raise r.error(
            "cards: auto sizes an owned cluster to the smallest that delivers the plan; a "
            "hybrid rents whatever its base cannot do, so every size delivers it and auto "
            "would keep the smallest that runs; give cards: N for the base it owns (or "
            "acquire: buy with cards: auto)", base + ["cards"])
    if c.cards == "auto":  # the engine sizes it to deliver the plan (sizing "plan")
        info.sizing = "plan"
        r.put(Input(path=f"{'.'.join(base)}.cards", value=1.0, spec=CANDIDATE_INPUTS["cards"],
                    source="to be sized to deliver the plan (cards: auto)", origin="derived"))
        return
    if c.cards is not None:
        r.put(r.given(base + ["cards"], c.cards, CANDIDATE_INPUTS["cards"]))
        return
    kind = "deadline_days" if c.deadline_days is not None else "power_cap_kw"
    if kind == "deadline_days" and r.sc.workloads[0].kind == "serve":
        raise r.error(
            "deadline_days sizes the cluster for a run of the first workload, which serves; "
            "give cards, or list a training workload first", base + [kind])
    value = float(getattr(c, kind))
    if not (math.isfinite(value) and value > 0):
        raise r.error(f"expected a positive number, found {value!r}", base + [kind])
    r.put(r.given(base + [kind], value, TARGET_INPUTS[kind]))
    info.sizing = kind
    p = ".".join(base)
    # a placeholder until sizing chooses it (tco.sizing.size_clusters)
    r.put(Input(path=f"{p}.cards", value=1.0, spec=CANDIDATE_INPUTS["cards"],
                source=f"to be sized for {kind}", origin="derived"))


def layout_pins(r: Resolution, c: Candidate) -> None:
    """One input per layout degree and workload: pinned by the scenario, or a placeholder
    the engine's layout search fills in (tco.layout)."""
    base = ["candidates", c.id, "layout"]
    wids = [w.id for w in r.sc.workloads]
    kinds = {w.id: w.kind for w in r.sc.workloads}
    for wid in c.layout:
        if wid not in wids:
            raise r.error(f"unknown workload '{wid}'{did_you_mean(wid, wids)}", base + [wid])
        if c.workloads and wid not in c.workloads:
            raise r.error(
                f"pins a layout for workload '{wid}', which this option does not carry "
                f"(its workloads: {', '.join(c.workloads)})", base + [wid])
        other = sorted(set(c.layout[wid]) - {"tp"})
        if kinds[wid] == "serve" and other:
            raise r.error(
                f"a serving workload is laid out by its tensor-parallel degree only: "
                f"expected tp, found {', '.join(other)}", base + [wid, other[0]])
    for w in r.sc.workloads:
        allowed = r.allowed(w.id)
        if w.kind == "serve" and len(allowed) > 1:
            card = r.catalog.card(c.card)
            has = [x for x in allowed if card.peak(x) is not None] or list(allowed)
            r.put(Input(path=".".join(base + [w.id, "precision"]),
                        value=PRECISION_CODES[has[0]], spec=PRECISION_LAYOUT_SPEC,
                        source="to be chosen by the precision search", origin="derived"))
    for wid in wids:
        pins = c.layout.get(wid, {})
        for key, spec in LAYOUT_INPUTS.items():
            where = base + [wid, key]
            if key in pins:
                r.put(r.given(where, pins[key], spec))
            else:
                r.put(Input(path=".".join(where),
                            value=float(key not in ("recompute", "zero3", "zero2", "hsdp")),
                            spec=spec, source="to be chosen by the layout search",
                            origin="derived"))


def deliveries(r: Resolution, c: Candidate, info: CandidateInfo) -> None:
    """Phased deliveries of an owned option: each one's share and lead time as inputs
    (`candidates.<id>.delivery.<k>.share`, `.lead_time_weeks`), the shares checked to make
    the whole cluster."""
    if not c.deliveries:
        return
    where = ["candidates", c.id, "deliveries"]
    if c.acquire == modes.LEASE:
        raise r.error("deliveries of a leased option are not modelled (the lease commences "
                      "at one delivery); give lead_time_weeks", where)
    if c.acquire == modes.RENT:
        raise r.error("deliveries are for an owned option (buy or hybrid); a rented one "
                      "needs no delivery", where)
    if info.card in r.sc.policy.holds_stock:
        raise r.error(
            f"deliveries with held stock of '{info.card}' (policy.holds_stock) are not "
            "modelled; give the bought cards' lead_time_weeks instead", where)
    total = 0.0
    for k, d in enumerate(c.deliveries, start=1):
        for key, spec in DELIVERY_INPUTS.items():
            r.put(r.given(["candidates", c.id, "delivery", str(k), key], getattr(d, key),
                          spec))
        total += d.share
    if abs(total - 1) > 1e-6:
        raise r.error(f"the deliveries' shares add up to {total:g}; expected 1 (the whole "
                      "cluster)", where)
    info.deliveries = len(c.deliveries)
    info.notes.append("delivered in parts (share of the cluster / lead time in weeks): "
                      + ", ".join(f"{d.share:.0%} / {d.lead_time_weeks:.3g}"
                                  for d in c.deliveries))


def risk_policy(r: Resolution, card: Accelerator, stack: Stack, info: CandidateInfo,
                region: str) -> None:
    """Risk flags (short; the catalog record holds the evidence); some bar buying in the
    region of the option's site."""
    if r.catalog.export_restricted(card, region):
        place = r.catalog.region(region).place or region
        bar = export_bar(card, place, info.acquire == modes.RENT)  # renting installed capacity
        (info.blocking if bar.blocks else info.flags).append(bar.text)
    if "gaming_license" in card.flags:
        info.blocking.append(
            "licence: the GeForce driver licence does not permit data-centre deployment")
    info.flags.extend(info.blocking)
    if stack.id != "cuda" or "immature_stack" in card.flags:
        info.flags.append(
            f"software: {stack.name} is not CUDA; porting effort and an efficiency "
            "penalty are priced in")
    if "single_vendor_supply" in card.flags:
        info.flags.append(f"supply: single vendor ({card.vendor}), constrained supply")
