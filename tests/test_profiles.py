"""Buyer profiles (pricing/profiles.yaml, tco/profiles.py): a named profile's figures are the
defaults of what a scenario leaves out; the scenario's own values win; `enterprise` is the
catalog's default."""

from __future__ import annotations

import pytest

from tco.api import load_source
from tco.engine import compute

BASE = {
    "name": "profiles", "rent_options": "none",
    "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
    "candidates": [{"id": "h", "card": "h100-sxm", "cards": 64},
                   {"id": "g", "card": "gb200", "cards": 72}],
}


def resolved(catalog, **extra):
    return compute(load_source({**BASE, **extra}), catalog)


def test_a_profile_sets_what_the_scenario_leaves_out_with_its_source(catalog):
    r = resolved(catalog, profile="large-neocloud")
    inp = r.inputs
    # pricing/profiles.yaml large-neocloud
    assert inp["finance.discount_rate"].value == 0.1025
    assert inp["finance.depreciation_years"].value == 6
    assert inp["utilization"].value == 0.9
    assert inp["assumptions.support_fraction_per_year"].value == 0.01
    assert inp["assumptions.ops_engineers_per_1000_cards"].value == 2
    assert inp["candidates.h.pue"].value == 1.35 == inp["candidates.g.pue"].value  # liquid too
    assert inp["facility.colocation_price_per_kw_month"].value == 175
    for path in ("finance.discount_rate", "candidates.h.pue",
                 "facility.colocation_price_per_kw_month"):
        assert inp[path].source.startswith("profile large-neocloud: "), path
    assert (inp["candidates.h.pue"].low, inp["candidates.h.pue"].high) == (1.2, 1.4)  # drawn


def test_the_scenarios_own_values_win_over_the_profile(catalog):
    r = resolved(catalog, profile="hyperscaler", utilization=0.7,
                 finance={"discount_rate": 0.12},
                 facility={"region": "us", "colocation_price_per_kw_month": 99},
                 assumptions={"support_fraction_per_year": 0.03},
                 candidates=[{"id": "h", "card": "h100-sxm", "cards": 64, "pue": 1.5}])
    inp = r.inputs
    assert inp["utilization"].value == 0.7
    assert inp["finance.discount_rate"].value == 0.12
    assert inp["facility.colocation_price_per_kw_month"].value == 99
    assert inp["assumptions.support_fraction_per_year"].value == 0.03
    assert inp["candidates.h.pue"].value == 1.5
    assert inp["finance.depreciation_years"].value == 6  # not given: the profile's
    assert inp["candidates.h.pue"].origin == "scenario"


def test_a_profile_converts_its_usd_colocation_to_the_scenarios_currency(catalog):
    r = resolved(catalog, profile="large-neocloud", currency="CNY",
                 facility={"region": "us"})
    rate = catalog.usd_to("CNY")
    assert r.inputs["facility.colocation_price_per_kw_month"].value == pytest.approx(175 * rate)


def test_enterprise_is_the_catalogs_default(catalog):
    """A scenario that gives none of the profile's figures costs the same with or without
    `profile: enterprise`: its figures are the catalog's and the schema's defaults."""
    none, named = resolved(catalog), resolved(catalog, profile="enterprise")
    for path in ("finance.discount_rate", "finance.depreciation_years", "utilization",
                 "assumptions.support_fraction_per_year",
                 "assumptions.ops_engineers_per_1000_cards", "candidates.h.pue",
                 "candidates.g.pue", "facility.colocation_price_per_kw_month"):
        a, b = none.inputs[path], named.inputs[path]
        span = [(x.low if x.low is not None else x.value,
                 x.high if x.high is not None else x.value) for x in (a, b)]
        assert a.value == b.value and span[0] == span[1], path  # the same value and range
    for a in none.candidates:
        assert named.candidate(a.id).values["npv_tco"] == a.values["npv_tco"], a.id


def test_the_neocloud_profile_costs_an_owned_cluster_less_than_the_enterprise(catalog):
    ent = resolved(catalog, profile="enterprise").candidate("h").values
    neo = resolved(catalog, profile="large-neocloud").candidate("h").values
    # support 1 % of hardware instead of 5 %: the largest single difference (methodology §2)
    assert neo["support_per_year"] == pytest.approx(ent["support_per_year"] / 5, rel=1e-9)


def test_an_unknown_profile_is_refused_naming_the_field(catalog):
    from tco.errors import ScenarioError

    with pytest.raises(ScenarioError) as exc:
        resolved(catalog, profile="neocloud")
    assert "profile" in str(exc.value) and "large-neocloud" in str(exc.value)


def test_a_what_if_of_a_profile_scenario_keeps_the_profiles_defaults(catalog):
    """`tco whatif` validates an edited copy of the scenario again: the profile must still set
    what the scenario leaves out (a dump writes every default out as if given)."""
    from tco.analysis.settings import apply_values

    loaded = load_source({**BASE, "profile": "large-neocloud"})
    edited = apply_values(loaded, {"candidates.h.mfu": 0.35}, "--set candidates.h.mfu=0.35")
    r = compute(edited, catalog)
    assert r.inputs["finance.discount_rate"].value == 0.1025  # the profile's, not 0.08
    assert r.inputs["utilization"].value == 0.9
    assert r.inputs["candidates.h.mfu"].value == 0.35
    again = apply_values(loaded, {"finance.discount_rate": 0.09}, "--set")
    assert compute(again, catalog).inputs["finance.discount_rate"].value == 0.09


def test_naming_the_enterprise_profile_in_a_file_changes_nothing(catalog, example):
    """As test_enterprise_is_the_catalogs_default, from the example's own text (the profile
    added; every value the example gives stays given)."""
    from tco.resources import example_scenario
    from tco.scenario import load_scenario_text

    text = example_scenario().read_text(encoding="utf-8") + "\nprofile: enterprise\n"
    named = compute(load_scenario_text(text), catalog)
    for a in example.candidates:
        if a.quantified:
            assert named.candidate(a.id).values["npv_tco"] == pytest.approx(
                a.values["npv_tco"], rel=1e-12), a.id
