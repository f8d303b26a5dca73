"""Methodology §3, the cluster: servers, spares, power and goodput of `cards` accelerators."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import ROUNDUP, Ref
from .base import Builder, a
from .units import W_PER_KW


@dataclass(frozen=True)
class Cluster:
    cards: Ref
    nodes: Ref
    spares: Ref
    rated_w: Ref
    train_w: Ref
    idle_w: Ref
    it_kw: Ref
    facility_kw: Ref
    goodput: Ref


def cluster(b: Builder) -> Cluster:
    c, q = b.c, b.q
    cards = c("cards")
    nodes = q("nodes", ROUNDUP(cards / c("cards_per_node")), "nodes", "Servers", "cluster")
    spares = q("spare_cards", ROUNDUP(cards * a("hot_spare_fraction")), "cards",
               "Hot-spare cards", "cluster")
    rated_w = q("rated_power_w", cards * c("tdp_w") + nodes * c("node_power_w"), "W",
                "Rated IT power (cards and servers)", "cluster")
    train_w = q("training_power_w", rated_w * a("training_power_fraction"), "W",
                "IT power while training", "cluster")
    idle_w = q("idle_power_w", rated_w * a("idle_power_fraction"), "W", "IT power while idle",
               "cluster")
    it_kw = q("it_capacity_kw", rated_w / W_PER_KW, "kW", "Provisioned IT capacity", "cluster")
    facility_kw = q("facility_power_kw", it_kw * b.site().pue, "kW",
                    "Facility power at rated IT load (IT x PUE)", "cluster")
    failures = q("interruptions_per_hour", cards * a("card_failure_rate_per_hour"), "1/h",
                 "Expected interruptions per hour", "cluster")
    goodput = q(
        "goodput",
        1 - a("checkpoint_overhead_fraction")
        - failures * (a("restart_hours") + a("checkpoint_interval_hours") / 2),
        "fraction", "Goodput: share of wall time doing useful training", "cluster",
    )
    return Cluster(cards, nodes, spares, rated_w, train_w, idle_w, it_kw, facility_kw, goodput)
