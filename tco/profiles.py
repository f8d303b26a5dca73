"""Buyer profiles (methodology §2, "Buyer profiles"): a scenario names one (`profile:
hyperscaler | large-neocloud | enterprise`) and takes its figures (pricing/profiles.yaml) as
defaults wherever it gives no value of its own: the cost of capital, the book life, the
cluster's availability, support, operations staff, every candidate's PUE and the colocation
price. The scenario's own value always wins; a figure the profile leaves out (enterprise: PUE
and colocation) stays the cooling option's and the region's.

Each figure becomes an input like any catalog figure, its source prefixed with the profile
("profile large-neocloud: SemiAnalysis ..."), so every output names where it came from and
Monte Carlo draws its range.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import did_you_mean

if TYPE_CHECKING:
    from .catalog import Catalog, Figure
    from .scenario import Loaded

# Each input a profile sets: its path (a candidate's PUE: "pue") -> the profile's field.
PROFILE_FIELDS = {
    "finance.discount_rate": "discount_rate",
    "finance.depreciation_years": "depreciation_years",
    "utilization": "utilization",
    "assumptions.support_fraction_per_year": "support_fraction_per_year",
    "assumptions.ops_engineers_per_1000_cards": "ops_engineers_per_1000_cards",
    "facility.colocation_price_per_kw_month": "colocation_price_per_kw_month_usd",
    "pue": "pue",
}


def profile_figure(loaded: Loaded, catalog: Catalog, path: str) -> tuple[Figure, str] | None:
    """The scenario's profile's figure for the input `path` (a key of PROFILE_FIELDS) and the
    words its source starts with ("profile large-neocloud"); None when the scenario names no
    profile or the profile leaves the figure to the catalog's usual one."""
    name = loaded.scenario.profile
    if name is None or path not in PROFILE_FIELDS:
        return None
    profile = catalog.profiles.get(name)
    if profile is None:
        raise loaded.error(f"unknown profile '{name}'{did_you_mean(name, catalog.profiles)}",
                           ["profile"])
    fig = getattr(profile, PROFILE_FIELDS[path])
    return None if fig is None else (fig, f"profile {name}")


def unset_profile_defaults(scenario: Any, data: dict[str, Any]) -> None:
    """Scenario data dumped to be edited and validated again (tco.analysis.settings): drop
    the fields a buyer profile sets that the scenario did not give, so that the profile still
    sets them (a dump writes every default out, which would read as the scenario's own)."""
    if scenario.profile is None:
        return
    if "utilization" not in scenario.model_fields_set:
        data.pop("utilization", None)
    for key in ("discount_rate", "depreciation_years"):
        if key not in scenario.finance.model_fields_set:
            data.get("finance", {}).pop(key, None)
