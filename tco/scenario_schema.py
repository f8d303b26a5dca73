"""The JSON Schema of a scenario file, for editors (completion, checks as you type) and tools.

The shape comes from the scenario's own validation models (tco.scenario, pydantic); every
number's description, unit and plausible range come from tco/inputs.py, so the schema and the
checks `tco validate` makes cannot say different things. Money ranges are in USD and scale with
the scenario's currency, so the schema states them in words rather than as bounds.

The shipped copy is tco/schemas/scenario.schema.json (`tco schema` prints it; `tco init` points
editors at it); regenerate it with

    python -m tco.scenario_schema tco/schemas/scenario.schema.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .inputs import (
    API_INPUTS,
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    FACILITY_INPUTS,
    FINANCE_INPUTS,
    LEASE_INPUTS,
    SERVE_ASSUMPTIONS,
    SERVE_CANDIDATE_INPUTS,
    SERVE_INPUTS,
    SITE_INPUTS,
    TARGET_INPUTS,
    TAX_INPUTS,
    TEAM_INPUTS,
    TOP_INPUTS,
    WORKLOAD_INPUTS,
    InputSpec,
)
from .numtext import accept_number_text
from .schema_shape import stable

SCHEMA_ID = "https://github.com/tco-project/tco/schemas/scenario.schema.json"
JsonObj = dict[str, Any]


def _number(spec: InputSpec) -> JsonObj:
    """One input as a JSON Schema number: its label, unit and plausible range."""
    unit = spec.unit.replace("money", "the scenario's currency")
    hint = f"; {spec.hint}" if spec.hint else ""
    if spec.money:
        span = f"plausible {spec.lo:g} to {spec.hi:g} in USD, scaled to the currency"
    else:
        span = f"plausible {spec.lo:g} to {spec.hi:g}"
    out: JsonObj = {"type": "integer" if spec.integer else "number",
                    "description": f"{spec.label} ({unit}; {span}{hint})"}
    if not spec.money:
        out["minimum"], out["maximum"] = spec.lo, spec.hi
    return out


def _describe(props: JsonObj, specs: dict[str, InputSpec]) -> None:
    """Give each property that is an input its description and range (a nullable number keeps
    its null branch: the catalog's figure is used when it is left out)."""
    for key, spec in specs.items():
        if key not in props:
            continue
        number = _number(spec)
        prop = props[key]
        branches = prop.get("anyOf")
        if branches:
            prop["anyOf"] = [number if b.get("type") in ("number", "integer") else b
                             for b in branches]
            prop["description"] = number["description"]
        else:
            prop.update(number)
        prop.pop("title", None)


_BOUNDS = {"ge": "minimum", "le": "maximum", "gt": "exclusiveMinimum", "lt": "exclusiveMaximum"}


def _bounds(defs: JsonObj) -> None:
    """Each field's numeric bounds (`Field(ge=..., le=...)`) on its number branch as JSON
    Schema's `minimum`/`maximum`, read from the models themselves: pydantic releases write
    them differently or, for an annotated number, not at all."""
    from pydantic import BaseModel

    from . import scenario

    for name, node in defs.items():
        model = getattr(scenario, name, None)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        for field_name, field in model.model_fields.items():
            prop = node.get("properties", {}).get(field.alias or field_name)
            if prop is None:
                continue
            bounds = {_BOUNDS[k]: getattr(m, k) for m in field.metadata for k in _BOUNDS
                      if getattr(m, k, None) is not None}
            for branch in prop.get("anyOf", [prop]):
                if branch.get("type") in ("number", "integer"):
                    branch.update(bounds)


def _layout_keys() -> list[str]:
    """The degrees a candidate's `layout` pins (the Literal of tco.scenario.Candidate)."""
    from typing import get_args

    from .scenario import Candidate

    inner = get_args(Candidate.model_fields["layout"].annotation)[1]  # dict[Literal[...], int]
    return list(get_args(get_args(inner)[0]))


def scenario_schema() -> JsonObj:
    from .scenario import Scenario

    schema = stable(Scenario.model_json_schema())
    _bounds(schema["$defs"])
    layout = schema["$defs"]["Candidate"]["properties"]["layout"]["additionalProperties"]
    layout["propertyNames"] = {"enum": _layout_keys()}  # older pydantic leaves it out
    defs = schema["$defs"]
    _describe(schema["properties"], TOP_INPUTS)
    _describe(defs["Workload"]["properties"], {**WORKLOAD_INPUTS, **SERVE_INPUTS})
    defs["Workload"]["properties"]["tokens_per_s_per_user"]["description"] = (
        "Objective: output tokens per second per user (instead of tpot_ms = 1000 / this)")
    defs["Workload"]["properties"]["precisions"]["description"] = (
        "Serving only, instead of precision: the precisions the model may be served at (its "
        "accuracy floor); each option serves at the one its card has that costs least per "
        "token, chosen by search (docs/methodology.md section 18)")
    _describe(defs["Facility"]["properties"], {**FACILITY_INPUTS, **SITE_INPUTS})
    _describe(defs["Site"]["properties"], {**FACILITY_INPUTS, **SITE_INPUTS})
    defs["Facility"]["properties"]["sites"]["description"] = (
        "Further sites, each with an id that options name (candidates[].site), its region "
        "(default the facility's) and its own tariff, colocation price, carbon, PUE and power "
        "budget; inputs facility.sites.<id>.<key> (methodology section 3, Sites)")
    defs["Site"]["properties"]["region"]["description"] = (
        "A catalog region (`tco catalog list --section regions`); default the facility's")
    _describe(defs["Finance"]["properties"], {**FINANCE_INPUTS, **LEASE_INPUTS, **TAX_INPUTS})
    _describe_tax(defs["Finance"]["properties"])
    _describe(defs["Team"]["properties"], TEAM_INPUTS)
    candidate = defs["Candidate"]
    _describe(candidate["properties"], {"cards": CANDIDATE_INPUTS["cards"], **TARGET_INPUTS})
    for key, spec in {**CANDIDATE_INPUTS, **SERVE_CANDIDATE_INPUTS}.items():
        if key != "cards":  # any other candidate input overrides the catalog's figure
            candidate["properties"][key] = _number(spec)
    candidate["properties"]["site"]["description"] = (
        "The site it runs at, an id of facility.sites; default the facility's first site")
    candidate["additionalProperties"] = False  # a typo is an error, as `tco validate` says
    candidate["description"] = (
        "An option: a card, one of cards / deadline_days / power_cap_kw, and optionally any "
        "candidate input overriding the catalog (card_price, mfu, lead_time_weeks, ...)")
    schema["properties"]["assumptions"] = {
        "type": "object", "additionalProperties": False,
        "description": "Model defaults to override (docs/methodology.md section 2)",
        "properties": {key: _number(spec) for key, spec in
                       {**ASSUMPTION_INPUTS, **SERVE_ASSUMPTIONS}.items()},
    }
    _describe_api(schema)
    schema["properties"]["start"]["description"] = (
        "The month of the decision, YYYY-MM (e.g. 2027-01): the plan's dated actions count "
        "from it; without it they are given in months after the decision (docs/methodology.md "
        "section 19)")
    schema["properties"]["profile"]["description"] = (
        "A buyer profile (pricing/profiles.yaml; `tco catalog list --section profiles`): its "
        "cost of capital, book life, availability, support, operations staff, PUE and "
        "colocation are the defaults of the values this scenario leaves out (methodology "
        "section 2, buyer profiles)")
    schema["properties"]["distributions"]["description"] = (
        "Monte Carlo distributions of your own, by input path (candidates.<id>.card_price, "
        "facility.electricity_price_per_kwh, ...)")
    schema.update(title="tco scenario", description=(
        "What to train, which options to compare, and on what terms (docs/methodology.md; "
        "every number's unit and range from tco/inputs.py). A number may also be numeric text "
        "(\"2e12\": YAML 1.1 parsers such as PyYAML read an exponent without a dot and sign "
        "as text); tco checks its range"))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": SCHEMA_ID,
            **accept_number_text(schema)}


def _describe_api(schema: JsonObj) -> None:
    """The per-token API options: their inputs, and the catalog's price or both prices with
    their source (tco.api_options)."""
    defs = schema["$defs"]
    api = defs["ApiOption"]["properties"]
    _describe(api, API_INPUTS)
    api["api"]["description"] = ("A per-token API price of the catalog (pricing/api.yaml; "
                                 "`tco catalog list --section api`); without it, give both "
                                 "prices and their source")
    api["source"]["description"] = ("Where the prices given here come from (the provider's "
                                    "price page, your quote); required without `api`")
    # the catalog's price, or both prices with their source (tco.api_options)
    defs["ApiOption"]["anyOf"] = [
        {"required": ["api"]},
        {"required": [*API_INPUTS, "source"]},
    ]
    api["workloads"]["description"] = ("The serving workloads (ids) it serves; default every "
                                       "serving workload of the plan")
    schema["properties"]["api_options"]["description"] = (
        "Per-token APIs that may serve the serving workloads, each an option of its own (in a "
        "portfolio with an option that trains when the plan also trains; methodology "
        "section 18)")


def _describe_tax(tax: dict[str, Any]) -> None:
    """The tax fields that are not numeric inputs (methodology section 20)."""
    tax["tax_jurisdiction"]["description"] = (
        "Income tax rules of pricing/tax.yaml (us-federal, us, cn): rate, depreciation "
        "schedule, bonus share and one-time threshold, each overridable by its tax_* field "
        "(methodology section 20, Tax)")
    tax["tax_acquired_on"]["description"] = (
        "Date the equipment is acquired (2026-03): picks the jurisdiction's rule in force; "
        "default its latest")
    tax["tax_depreciation"]["description"] = (
        "How owned equipment is deducted: straight_line (over tax_life_years), "
        "macrs_5 (IRS Table A-1) or one_time")
    tax["decision_basis"]["description"] = (
        "Which NPV ranks the options: pre_tax (npv_tco) or after_tax (npv_tco_after_tax); "
        "default after_tax when the tax rate is above 0")


def schema_text() -> str:
    # keys sorted: the text is the same whichever pydantic release wrote the dict
    return json.dumps(scenario_schema(), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


if __name__ == "__main__":  # python -m tco.scenario_schema PATH
    with open(sys.argv[1], "w", encoding="utf-8", newline="\n") as out:
        out.write(schema_text())
