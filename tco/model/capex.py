"""Methodology §5, capital expenditure at year 0."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import Const, Ref
from .base import Builder, a
from .cluster import Cluster


@dataclass(frozen=True)
class Capex:
    cards: Ref
    servers: Ref
    network: Ref
    hardware: Ref  # cards + servers + network: what support, depreciation and resale apply to
    cooling: Ref
    installation: Ref
    total: Ref


def capex(b: Builder, cl: Cluster, money: str) -> Capex:
    c, q = b.c, b.q
    cards = q("capex_cards", (cl.cards + cl.spares) * c("card_price"), money,
              "Accelerators, spares included", "horizon")
    servers = q("capex_servers", cl.nodes * c("node_price"), money, "Servers", "horizon")
    network = q("capex_network", cl.cards * c("network_cost_per_card"), money,
                "Network fabric", "horizon")
    hw = q("hardware_capex", cards + servers + network, money, "Hardware capex", "horizon")
    cooling = q("capex_cooling", cl.it_kw * c("cooling_capex_per_kw"), money, "Cooling capex",
                "horizon")
    install = q("capex_installation", hw * a("installation_fraction"), money, "Installation",
                "horizon")
    total = q("capex_total", hw + cooling + install, money, "Total capex", "horizon")
    return Capex(cards, servers, network, hw, cooling, install, total)


def no_capex(b: Builder, money: str) -> Capex:
    """A rented option buys nothing: every capex line is zero (kept, so that every option has
    the same lines in every table)."""
    q, zero = b.q, Const(0.0)
    refs = [q(key, zero, money, label, "horizon") for key, label in (
        ("capex_cards", "Accelerators, spares included"), ("capex_servers", "Servers"),
        ("capex_network", "Network fabric"), ("hardware_capex", "Hardware capex"),
        ("capex_cooling", "Cooling capex"), ("capex_installation", "Installation"),
        ("capex_total", "Total capex"))]
    cards, servers, network, hw, cooling, install, total = refs
    return Capex(cards, servers, network, hw, cooling, install, total)
