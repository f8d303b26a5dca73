"""The scenario-wide terms, in the order inputs are listed everywhere: the model's
assumptions, the top-level inputs (utilization, cost of delay), finance (with a lease's terms
when an option leases) and the team."""

from __future__ import annotations

from .. import modes
from ..errors import did_you_mean
from ..inputs import (
    ASSUMPTION_INPUTS,
    FINANCE_INPUTS,
    LEASE_INPUTS,
    RUNNING_VAT_KEYS,
    TEAM_INPUTS,
    TOP_INPUTS,
    Input,
    InputSpec,
)
from .state import Resolution

FAMILIARITY_SPEC = InputSpec("familiarity", "fraction", "Team familiarity with the stack "
                             "(share of porting effort already done)", 0, 1,
                             hint="a fraction between 0 and 1", fraction=True)


# the model's error multiplier of each family (resolved from the family's P10 and P90)
MODEL_ERRORS = {f"model_error_{f}": f for f in ("dense_vendor", "dense_team", "small", "moe")}
# Assumptions that are inputs only when the scenario gives them: shared storage per card
# replaces the storage sized from the data (tco/model/storage.py).
GIVEN_ONLY = ("storage_tb_per_card",)


def assumptions(r: Resolution) -> None:
    for key, spec in ASSUMPTION_INPUTS.items():
        if key in MODEL_ERRORS:
            continue  # after their P10 and P90 (model_errors)
        if key in r.sc.assumptions:
            r.put(r.given(["assumptions", key], r.sc.assumptions[key], spec))
        elif key in GIVEN_ONLY or r.from_profile(f"assumptions.{key}", spec):
            continue  # not an input unless given; or the buyer profile's (tco.profiles)
        else:  # money is in the catalog in USD (`<key>_usd`)
            r.figure(f"assumptions.{key}",
                     r.catalog.assumption(f"{key}_usd" if spec.money else key), spec)
    model_errors(r)


def model_errors(r: Resolution) -> None:
    """The model's error on a run's time to train, one multiplier per family: 1 at the
    point value; its range is the family's P10 and P90 (themselves assumptions, fitted on
    the model's out-of-sample errors), which Monte Carlo draws lognormally between."""
    for key, family in MODEL_ERRORS.items():
        spec = ASSUMPTION_INPUTS[key]
        if key in r.sc.assumptions:
            r.put(r.given(["assumptions", key], r.sc.assumptions[key], spec))
            continue
        p10 = r.inputs[f"assumptions.model_error_p10_{family}"]
        p90 = r.inputs[f"assumptions.model_error_p90_{family}"]
        r.put(Input(path=f"assumptions.{key}", value=1.0, spec=spec, low=p10.value,
                    high=p90.value, as_of=p90.as_of, origin="derived",
                    source="the model's point value (1); Monte Carlo draws it "
                           f"lognormally with P10 {p10.value:g} and P90 {p90.value:g} "
                           f"(assumptions.model_error_p10_{family}, _p90_{family})"))


def top_level(r: Resolution) -> None:
    for key, spec in TOP_INPUTS.items():
        if key in r.sc.model_fields_set or not r.from_profile(key, spec):
            r.put(r.given([key], getattr(r.sc, key), spec))


def finance(r: Resolution) -> None:
    fin = r.sc.finance
    for key, spec in FINANCE_INPUTS.items():
        if key not in fin.model_fields_set and r.from_profile(f"finance.{key}", spec):
            continue
        value = getattr(fin, key)
        if key == "financed_fraction" and value is None:
            value = 1.0 if fin.purchase == "finance" else 0.0
        if key in RUNNING_VAT_KEYS and value is None:
            running_vat_rate(r, key, spec)
            continue
        r.put(r.given(["finance", key], value, spec))
    term = r.inputs["finance.loan_term_years"].value
    if term > fin.horizon_years and r.inputs["finance.financed_fraction"].value > 0:
        raise r.error(
            f"loan term {int(term)} years is longer than the horizon "
            f"({fin.horizon_years} years); shorten the term or lengthen the horizon",
            ["finance", "loan_term_years"])
    lease_terms(r)


def running_vat_rate(r: Resolution, key: str, spec: InputSpec) -> None:
    """A VAT rate on running costs the scenario does not give: the facility region's (or the
    wider region's it is part of), else none (methodology §7, "VAT on running costs")."""
    region = r.sc.facility.region
    for rid in r.catalog.regions_of(region):
        rec = r.catalog.regions.get(rid)
        fig = getattr(rec, key, None) if rec is not None else None
        if fig is not None:
            r.figure(f"finance.{key}", fig, spec)
            return
    r.put(Input(path=f"finance.{key}", value=0.0, spec=spec, origin="default",
                source=f"none: the catalog has no such VAT for region {region}"))


def lease_terms(r: Resolution) -> None:
    """The lease's terms (finance.lease_*), when a candidate leases: the rate, the lessor's
    residual and the deposit from the catalog unless given."""
    fin = r.sc.finance
    given = [k for k in LEASE_INPUTS
             if getattr(fin, k) != type(fin).model_fields[k].default]
    if not any(c.acquire == modes.LEASE for c in r.sc.candidates):
        if given:
            raise r.error(f"'{given[0]}' is not used by this scenario: no candidate has "
                          "acquire: lease", ["finance", given[0]])
        return
    for key, spec in LEASE_INPUTS.items():
        value = getattr(fin, key)
        if value is None:
            r.figure(f"finance.{key}", r.catalog.assumption(key), spec)
        else:
            r.put(r.given(["finance", key], value, spec))
    term = r.inputs["finance.lease_term_months"].value
    horizon_months = 12 * fin.horizon_years
    if term < horizon_months and r.inputs["finance.lease_buyout"].value < 0.5:
        raise r.error(
            f"a lease of {int(term)} months that returns the hardware (lease_buyout 0) "
            f"ends before the horizon ({horizon_months} months); give a term of at least "
            f"{horizon_months} months, or lease_buyout: 1 to buy the hardware at the end "
            "of the term", ["finance", "lease_term_months"])


def team(r: Resolution) -> None:
    team = r.sc.team
    for key, spec in TEAM_INPUTS.items():
        if getattr(team, key) is not None:
            r.put(r.given(["team", key], getattr(team, key), spec))
        else:
            r.figure(f"team.{key}", r.catalog.assumption(f"{key}_usd"), spec)
    for stack_id in r.catalog.stacks:
        where = ["team", "familiarity", stack_id]
        if stack_id in team.familiarity:
            r.put(r.given(where, team.familiarity[stack_id], FAMILIARITY_SPEC))
        else:
            r.put(Input(path=".".join(where), value=1.0 if stack_id == "cuda" else 0.0,
                        spec=FAMILIARITY_SPEC, origin="default",
                        source="default: a CUDA team, new to other stacks"))
    for stack_id in team.familiarity:
        if stack_id not in r.catalog.stacks:
            raise r.error(
                f"unknown stack '{stack_id}'{did_you_mean(stack_id, r.catalog.stacks)}",
                ["team", "familiarity", stack_id])
