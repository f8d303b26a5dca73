"""Methodology §5, capital expenditure at year 0."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, Const, Expr, Ref
from .base import Builder, a, fin
from .cluster import Cluster
from .held import Held


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
    # support is priced on these: the whole cluster's hardware and storage at purchase prices
    # (held stock included, tco.model.held); the bought lines above when nothing is held
    hardware_list: Expr
    storage_list: Expr
    held: Expr | None  # resale value now of held cards used (year-0 opportunity cost)

    def owned_value(self) -> Expr:
        """What is owned and depreciates: hardware and storage bought, and held stock."""
        both = self.hardware + self.storage
        return both if self.held is None else both + self.held


def capex(b: Builder, cl: Cluster, money: str, storage_tb: Ref, held: Held | None = None,
          leased: bool = False) -> Capex:
    """The purchase, net of VAT, and the VAT on it as its own line: quoted prices that include
    VAT are divided by (1 + VAT rate) first. `storage_tb`: the shared storage's usable
    terabytes (tco.model.storage). With held stock, each line is the bought share of the
    whole cluster's (tco.model.held). `leased`: the lessor buys the IT equipment (its lines
    price the lease, tco.model.lease); the lessee buys the cooling and installation."""
    c, q = b.c, b.q
    net = q("vat_net_factor",
            IF(fin("prices_include_vat").gt(0.5), 1 / (1 + fin("vat_rate")), 1), "fraction",
            "Share of a quoted purchase price before VAT (1 when quotes are net)", "horizon")

    def bought(whole: Expr) -> Expr:
        return whole if held is None else whole * held.bought_share

    whole_cards = (cl.cards + cl.spares) * c("card_price") * net
    whole_servers = cl.nodes * c("node_price") * net
    whole_network = cl.cards * c("network_cost_per_card") * net
    cards = q("capex_cards", bought(whole_cards), money, "Accelerators, spares included",
              "horizon")
    servers = q("capex_servers", bought(whole_servers), money, "Servers", "horizon")
    network = q("capex_network", bought(whole_network), money, "Network fabric", "horizon")
    hw = q("hardware_capex", cards + servers + network, money, "Hardware capex", "horizon")
    whole_storage = storage_tb * a("storage_price_per_tb") * net
    storage = q("capex_storage", bought(whole_storage), money, "Shared storage", "horizon")
    cooling = q("capex_cooling", bought(cl.it_kw * c("cooling_capex_per_kw") * net), money,
                "Cooling capex", "horizon")
    install = q("capex_installation", hw * a("installation_fraction"), money, "Installation",
                "horizon")
    total = q("capex_total", cooling + install if leased else hw + storage + cooling + install,
              money, "Total capex (net of VAT)", "horizon")
    vat = q("capex_vat", total * fin("vat_rate"), money, "VAT on the purchase", "horizon")
    recovered = q("capex_vat_recovered", vat * fin("vat_recoverable_fraction"), money,
                  "VAT on the purchase recovered as input VAT (end of year 1)", "horizon")
    if held is None:
        return Capex(cards, servers, network, storage, hw, cooling, install, total, vat,
                     recovered, hw, storage, None)
    hw_list = q("hardware_list_value", whole_cards + whole_servers + whole_network, money,
                "The whole cluster's hardware at purchase prices, held stock included (what "
                "support is priced on)", "horizon")
    storage_list = q("storage_list_value", whole_storage, money,
                     "The whole cluster's shared storage at purchase prices", "horizon")
    return Capex(cards, servers, network, storage, hw, cooling, install, total, vat, recovered,
                 hw_list, storage_list, held.value)


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
    return Capex(*refs, refs[4], refs[3], None)
