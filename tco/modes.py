"""How capacity is got: the acquisition modes, named once (issue 26).

An option typed in a scenario is bought, leased, rented, or bought with the peaks rented
(hybrid); the engine adds per-token API options, portfolios (options costed together) and
the planner's plan. Every module compares a mode with these names, never with a literal
(tests/test_decide_rules.py checks it), so that a new mode is added here and found everywhere.
"""

from __future__ import annotations

BUY = "buy"
LEASE = "lease"
RENT = "rent"
HYBRID = "hybrid"  # buy a base and rent what it cannot do
API = "api"  # pay per token, no cards
PORTFOLIO = "portfolio"  # options costed together, each carrying its workloads
PLAN = "plan"  # the planner's plan (tco.plan): dated actions over every supply

TYPED = (BUY, RENT, HYBRID, LEASE)  # what a scenario's `acquire` may say (tco.scenario)
MODES = (BUY, LEASE, RENT, HYBRID, PORTFOLIO, API, PLAN)


def holds_cards(acquire: str) -> bool:
    """Cards are delivered and held for the option (bought or leased; a hybrid's base): it
    waits for them and pays their upkeep."""
    return acquire != RENT


def buys_cards(acquire: str) -> bool:
    """Cards are bought (and kept: stock in service, resale)."""
    return acquire in (BUY, HYBRID)


def rents_cards(acquire: str) -> bool:
    """Card-hours are rented from a cloud (all of them, or a hybrid's peaks)."""
    return acquire in (RENT, HYBRID)


def owned_or_leased(acquire: str) -> bool:
    """A fixed cluster, nothing rented (the two modes a lease-or-buy comparison sets apart)."""
    return acquire in (BUY, LEASE)
