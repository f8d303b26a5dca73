"""The owned cost per GPU-hour of a card under a buyer profile, computed with the real model
(tco compare on a generated scenario), as docs/market.md checks it against published cost
tiers and pricing/cloud.yaml holds derived rents to it.

The scenario is the large neocloud's that SemiAnalysis' published tiers assume (research for
issue 28, section 1.2): a 6-year life and horizon, WACC 10.25 %, $0.087/kWh, PUE 1.35 and
colocation $150/kW-month, the rest from the profile (support 1 %, 2 staff per 1,000 cards);
always busy (utilization 1, and a plan that fills every hour of the year exactly, so that the
model's own `cost_per_gpu_hour` is the cost of an owned card-hour); delivered at once (lead
time 0) to a team that knows the card's stack (no porting), since the tiers price the
hardware, not a first port. About 1,024 cards, a whole number of the platform's servers.
"""

from __future__ import annotations

from tco.api import load_source
from tco.catalog import Catalog
from tco.engine import compute

HOURS_PER_YEAR = 8760.0


def scenario(card: str, cards: int, runs_per_year: float, catalog: Catalog,
             profile: str = "large-neocloud") -> dict[str, object]:
    return {
        "name": f"owned cost per GPU-hour of {card}", "currency": "USD", "profile": profile,
        "utilization": 1.0, "rent_options": "none",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11,
                       "runs_per_year": runs_per_year}],
        "candidates": [{"id": card, "card": card, "cards": cards, "lead_time_weeks": 0}],
        # a neocloud builds shared storage with the cluster, per GPU, as the tiers compared
        # with do: Meta's 24K-GPU cluster has 9.8 TB a GPU (Llama 3, arXiv 2407.21783,
        # section 3.3.1), not the storage one small workload's data would need (issue 27)
        "assumptions": {"storage_tb_per_card": 10},
        "facility": {"region": "us", "electricity_price_per_kwh": 0.087,
                     "colocation_price_per_kw_month": 150},
        "finance": {"horizon_years": 6},
        "team": {"familiarity": {stack: 1.0 for stack in catalog.stacks}},
    }


def owned_cost_per_gpu_hour(card: str, catalog: Catalog,
                            profile: str = "large-neocloud") -> float:
    """USD per owned card-hour: the model's levelized cost per delivered card-hour when the
    plan keeps the cluster busy every hour of the year."""
    per_node = catalog.platform(catalog.card(card).default_platform).cards_per_node.best
    cards = int(per_node * max(1, round(1024 / per_node)))
    # one run a year gives the wall-clock hours of a run; as many runs as fill the year follow
    once = compute(load_source(scenario(card, cards, 1.0, catalog, profile)), catalog)
    runs = HOURS_PER_YEAR / once.candidates[0].values["demand_hours_per_year"]
    full = compute(load_source(scenario(card, cards, runs, catalog, profile)), catalog)
    c = full.candidates[0]
    assert abs(c.values["busy_hours_per_year"] - HOURS_PER_YEAR) < 1e-6
    assert c.values["plan_delivered_fraction"] > 1 - 1e-9  # no shortfall rent in it
    return c.values["cost_per_gpu_hour"]
