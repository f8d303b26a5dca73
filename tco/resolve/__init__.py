"""Resolution: a validated scenario and the catalog -> `Resolved` (tco/resolved.py), every
model input with its value in the scenario's currency, its range and its source.

    resolver.py        resolve(): the sections in order, then the model's shape (Structure)
    state.py           what resolving has made so far; the reads resolve records
    figures.py         a catalog figure -> an input, currency included (the one place)
    terms.py           assumptions, top level, finance and lease terms, team
    sites.py           the facility's sites: tariff, colocation, carbon, PUE, power budget
    workloads.py       training runs and serving workloads
    candidates.py      each option's hardware, figures, sizing rule, layout pins, deliveries
    renting.py         cloud tiers and reservations, the shortfall's price, rent options
    checks.py          checks across sections
    held.py, policy.py, portfolio.py, api_options.py, rent_tiers.py, shortfall_price.py:
                       held stock, licences, assignment and portfolios, per-token APIs, which
                       cloud tier a price is read at, the shortfall's rent

Importing this package is cheap: `resolve` loads the resolver (and pydantic's validated
catalog) when called, so the engine can name rent tiers (tco.resolve.rent_tiers) on a quick
what-if that never resolves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..benchmarks import Measured
    from ..catalog import Catalog
    from ..resolved import Resolved
    from ..scenario import Loaded


def resolve(loaded: Loaded, catalog: Catalog, measured: Sequence[Measured] | None = None
            ) -> Resolved:
    """Every input of `loaded`'s scenario, checked against `catalog` (tco.resolve.resolver),
    with the efficiencies of its `benchmarks:` as `measured` solved them (tco.measured; a
    scenario with benchmarks is resolved by tco.engine.resolve_scenario, which solves them)."""
    from .resolver import resolve as resolve_sections

    return resolve_sections(loaded, catalog, measured)


__all__ = ["resolve"]
