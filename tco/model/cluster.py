"""Methodology §3, the cluster: servers, spares, power and how often `cards` accelerators are
interrupted (the job's effective training time follows in tco.model.training, §4)."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import MAX, MIN, ROUNDUP, Ref
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
    failures: Ref  # interruptions per hour of the whole cluster
    restart_h: Ref  # hours from an interruption to training again (before lost work)


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
    failures = q("interruptions_per_hour", cards * c("card_failure_rate_per_hour"), "1/h",
                 "Expected interruptions per hour", "cluster")
    q("mtbf_hours", 1 / MAX(failures, 1e-12), "h",
      "Mean time between interruptions of a job on every card", "cluster")
    # A hardware interruption takes a server out until it is replaced; the job restarts at
    # once on a hot spare if one is free, else it waits for the replacement. Spares free for
    # it: those not already standing in for servers under replacement.
    hardware = failures * a("hardware_interruption_fraction")
    needed = q("spare_cards_needed", hardware * a("node_replacement_hours")
               * c("cards_per_node"), "cards",
               "Spare cards standing in for servers under replacement, on average", "cluster")
    covered = q("spare_coverage", MIN(1, spares / MAX(needed, 1e-12)), "fraction",
                "Share of hardware interruptions that restart on a hot spare at once",
                "cluster")
    restart_h = q("restart_time_hours", a("restart_hours") + a("hardware_interruption_fraction")
                  * (1 - covered) * a("node_replacement_hours"), "h",
                  "Time to restart after an interruption (waiting for a replacement server "
                  "when no spare is free)", "cluster")
    return Cluster(cards, nodes, spares, rated_w, train_w, idle_w, it_kw, facility_kw,
                   failures, restart_h)
