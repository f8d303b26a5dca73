"""Methodology §5, capital expenditure at year 0."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, Const, Ref
from .base import Builder, a, fin
from .cluster import Cluster


@dataclass(frozen=True)
class Capex:
    cards: Ref
    servers: Ref
    network: Ref
    storage: Ref  # shared storage (datasets, checkpoints): capex beside the hardware
    hardware: Ref  # cards + servers + network: what support, depreciation and resale apply to
    cooling: Ref
    installation: Ref
    total: Ref  # net of VAT
    vat: Ref  # VAT paid on the purchase at year 0
    vat_recovered: Ref  # the part of it credited back as input VAT at the end of year 1


def capex(b: Builder, cl: Cluster, money: str) -> Capex:
    """The purchase, net of VAT, and the VAT on it as its own line: quoted prices that include
    VAT are divided by (1 + VAT rate) first."""
    c, q = b.c, b.q
    net = q("vat_net_factor",
            IF(fin("prices_include_vat").gt(0.5), 1 / (1 + fin("vat_rate")), 1), "fraction",
            "Share of a quoted purchase price before VAT (1 when quotes are net)", "horizon")
    cards = q("capex_cards", (cl.cards + cl.spares) * c("card_price") * net, money,
              "Accelerators, spares included", "horizon")
    servers = q("capex_servers", cl.nodes * c("node_price") * net, money, "Servers", "horizon")
    network = q("capex_network", cl.cards * c("network_cost_per_card") * net, money,
                "Network fabric", "horizon")
    hw = q("hardware_capex", cards + servers + network, money, "Hardware capex", "horizon")
    storage_tb = q("storage_tb", cl.cards * a("storage_tb_per_card"), "TB",
                   "Shared storage capacity (usable)", "horizon")
    storage = q("capex_storage", storage_tb * a("storage_price_per_tb") * net, money,
                "Shared storage", "horizon")
    cooling = q("capex_cooling", cl.it_kw * c("cooling_capex_per_kw") * net, money,
                "Cooling capex", "horizon")
    install = q("capex_installation", hw * a("installation_fraction"), money, "Installation",
                "horizon")
    total = q("capex_total", hw + storage + cooling + install, money,
              "Total capex (net of VAT)", "horizon")
    vat = q("capex_vat", total * fin("vat_rate"), money, "VAT on the purchase", "horizon")
    recovered = q("capex_vat_recovered", vat * fin("vat_recoverable_fraction"), money,
                  "VAT on the purchase recovered as input VAT (end of year 1)", "horizon")
    return Capex(cards, servers, network, storage, hw, cooling, install, total, vat, recovered)


def no_capex(b: Builder, money: str) -> Capex:
    """A rented option buys nothing: every capex line is zero (kept, so that every option has
    the same lines in every table)."""
    q, zero = b.q, Const(0.0)
    q("storage_tb", zero, "TB", "Shared storage capacity (usable)", "horizon")
    refs = [q(key, zero, money, label, "horizon") for key, label in (
        ("capex_cards", "Accelerators, spares included"), ("capex_servers", "Servers"),
        ("capex_network", "Network fabric"), ("capex_storage", "Shared storage"),
        ("hardware_capex", "Hardware capex"),
        ("capex_cooling", "Cooling capex"), ("capex_installation", "Installation"),
        ("capex_total", "Total capex (net of VAT)"), ("capex_vat", "VAT on the purchase"),
        ("capex_vat_recovered", "VAT on the purchase recovered as input VAT (end of year 1)"))]
    return Capex(*refs)
