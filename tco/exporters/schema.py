"""The published JSON Schema of every `--format json` output (tco/schemas/output.schema.json).

The candidate, workload and job objects come from the one table of keys (tco/exporters/fields.py);
the analyses' objects are described here. One schema, one `$defs` entry per command (`compare`,
`job`, `whatif`, `diff`, `sensitivity`, `breakeven`, `montecarlo`, `catalog_list`,
`catalog_show`); the root accepts the output of any of them.

Regenerate the shipped file after changing the table or an output:

    python -m tco.exporters.schema tco/schemas/output.schema.json

(tests/test_json_schema.py fails while the shipped file differs from what this gives.)
"""

from __future__ import annotations

import json
import sys
from typing import Any

from .. import modes
from ..analysis.common import BREAKEVEN_METRICS, METRICS
from ..model import YEAR_SHARES
from .fields import (
    ALL_WORKLOAD_FIELDS,
    CANDIDATE_FIELDS,
    COST_LINES,
    JOB_FIELDS,
    MONEY,
    SERVE_JOB_FIELDS,
    SERVE_WORKLOAD_FIELDS,
    WORKLOAD_FIELDS,
    YEARLY_COLUMNS,
    Field,
)
from .frontier_view import frontier_schema
from .ingest_view import measured_schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"
IN_UNIT = "in `unit`"  # an input value, in the unit the object's `unit` key gives
COMMANDS = ("compare", "job", "whatif", "diff", "sensitivity", "breakeven", "montecarlo",
            "catalog_list", "catalog_show")
JsonObj = dict[str, Any]


def _ref(name: str) -> JsonObj:
    return {"$ref": f"#/$defs/{name}"}


def _unit(unit: str) -> str:
    return unit.replace(MONEY, "currency")


def _text(description: str, unit: str = "") -> str:
    return f"{description} [{_unit(unit)}]" if unit else description


def _t(kind: str, description: str, unit: str = "", null: bool = False) -> JsonObj:
    """A scalar property: JSON type `kind` (or kind-or-null), described with its unit."""
    return {"type": [kind, "null"] if null else kind, "description": _text(description, unit)}


def _obj(props: dict[str, JsonObj], description: str, **extra: Any) -> JsonObj:
    """A closed object: every property present, no other key."""
    return {"type": "object", "description": description, "properties": props,
            "required": list(props), "additionalProperties": False, **extra}


def _array(items: JsonObj, description: str) -> JsonObj:
    return {"type": "array", "description": description, "items": items}


def _strings(description: str) -> JsonObj:
    return _array({"type": "string"}, description)


_JSON_TYPE = {"number": "number", "integer": "integer", "boolean": "boolean",
              "string": "string"}


def field_schema(f: Field) -> JsonObj:
    """The schema of one table field, its unit and null rule in the description."""
    when = {"always": "", "priced": " Null when the candidate could not be priced.",
            "quantified": " Null unless the candidate is priced and feasible.",
            "cloud": " Null unless the candidate is priced and feasible and the catalog has "
                     "a cloud price for the card.",
            "shortfall": " Null unless the candidate is priced and feasible and its shortfall "
                         "can be priced (a cloud price for the card, or for another card usable "
                         "in the region).",
            "lease": " Null unless the candidate is priced and feasible and leases its "
                     "hardware (acquire: lease).",
            "one_run": " Null unless the candidate is priced and feasible and carries one "
                       "workload, a training one."}[f.when]
    text = _text(f.description, f.unit) + ("." + when if when else "")
    if f.kind in _JSON_TYPE:
        return _t(_JSON_TYPE[f.kind], text, null=f.nullable)
    if f.kind == "strings":
        return _strings(text)
    if f.kind == "cost":
        return {"anyOf": [_ref("cost"), {"type": "null"}], "description": text}
    if f.kind == "workloads":
        return {"type": "object", "description": text, "additionalProperties": {
            "anyOf": [_ref("workload"), _ref("serve_workload")]}}
    if f.kind == "yearly":
        return _array(_ref("yearly_row"), text)
    if f.kind == "interval":
        ends = {"p10": _t("number", "10th percentile", f.unit),
                "p90": _t("number", "90th percentile", f.unit)}
        return {"anyOf": [_obj(ends, text), {"type": "null"}], "description": text}
    raise ValueError(f.kind)


def _null_rule(fields: tuple[Field, ...]) -> JsonObj:
    """Infeasible: every quantified figure is null (or empty); feasible: none of them is."""
    quantified = [f for f in fields if f.when in ("quantified", "cloud", "shortfall", "lease",
                                                  "one_run")]
    then: JsonObj = {}
    orelse: JsonObj = {}
    for f in quantified:
        if f.kind == "yearly":
            then[f.key], orelse[f.key] = {"maxItems": 0}, {"minItems": 1}
        else:
            then[f.key] = {"type": "null"}
            if f.when == "quantified":
                orelse[f.key] = {"not": {"type": "null"}}
    if any(f.kind == "workloads" for f in fields):
        inner = _null_rule(ALL_WORKLOAD_FIELDS)
        then["jobs"] = {"additionalProperties": inner["then"]}
        orelse["jobs"] = {"additionalProperties": {"properties": {
            **inner["else"]["properties"], "feasible": {"const": True}}}}
    return {"if": {"properties": {"feasible": {"const": False}}, "required": ["feasible"]},
            "then": {"properties": then}, "else": {"properties": orelse}}


def _table_object(fields: tuple[Field, ...], description: str,
                  extra: dict[str, JsonObj] | None = None, after: str = "") -> JsonObj:
    props: dict[str, JsonObj] = {}
    for f in fields:
        props[f.key] = field_schema(f)
        if f.key == after:
            props.update(extra or {})
    return _obj(props, description)


# --- shared pieces ---------------------------------------------------------------------------


def _currency() -> JsonObj:
    return {"type": "string", "pattern": "^[A-Z]{3}$",
            "description": "ISO 4217 code of every money amount in the output (USD, CNY, EUR)"}


def _provenance() -> JsonObj:
    return _obj({
        "tool_version": _t("string", "Version of tco that wrote the output"),
        "catalog_digest": _t("string", "Digest of the catalog used (shipped files and every "
                                       "--catalog quote file)"),
        "scenario_digest": _t("string", "Digest of the validated scenario"),
    }, "What produced the output")


def _cost() -> JsonObj:
    return _obj({k: _t("number", v, "currency", null=True) for k, v in COST_LINES.items()},
                "Cost of one run by cost line (a number is null only if it is not finite)")


def _yearly_row() -> JsonObj:
    def unit(k: str) -> str:
        if k in ("installed_share", "ready_share", "ported_share"):
            return "fraction"
        return "years of planned runs" if k in YEAR_SHARES else "currency"

    props = {k: (_t("integer", v) if k == "year" else _t("number", v, unit(k), null=True))
             for k, v in YEARLY_COLUMNS.items()}
    return _obj(props, "Cash flows of one year by component, and the year's timeline")


def _figure() -> JsonObj:
    number = lambda text: _t("number", text + " (in the figure's unit)")
    return {
        "type": "object",
        "description": "A sourced catalog figure: a point `value`, or a `low`/`typical`/`high` "
                       "range",
        "properties": {
            "value": number("Point value"),
            "low": number("Low end of the plausible range"),
            "typical": number("Typical value"),
            "high": number("High end of the plausible range"),
            "source": _t("string", "Where the figure comes from"),
            "as_of": _t("string", "Date of the source (YYYY-MM or YYYY-MM-DD)"),
            "confidence": {"enum": ["H", "M", "L", "H/M", "M/L"],
                           "description": "Confidence: high, medium or low"},
            "note": _t("string", "Caveat"),
            "unit": _t("string", "Unit, when the field name does not say it"),
            "derived": {"type": "array", "items": {"enum": ["value", "low", "typical", "high"]},
                        "description": "The parts worked out from other figures rather than "
                                       "read from the source"},
        },
        "required": ["source", "as_of"],
        "oneOf": [{"required": ["value"]}, {"required": ["low", "typical", "high"]}],
        "additionalProperties": False,
    }


def _missing() -> JsonObj:
    return _obj({
        "missing": _t("string", "Why no public figure exists (and what to give instead)"),
        "as_of": _t("string", "When the catalog looked (YYYY-MM or YYYY-MM-DD)"),
    }, "A catalog figure no public source gives: the catalog says so instead of inventing one")


# --- compare and job: from the table ---------------------------------------------------------


def _candidate() -> JsonObj:
    return {**_table_object(CANDIDATE_FIELDS, "One candidate of `tco compare`: its identity and "
                            "verdict, the primary workload's headline figures, the horizon "
                            "figures, every workload's run and the yearly cash flows"),
            **_null_rule(CANDIDATE_FIELDS)}


def _workload() -> JsonObj:
    return _table_object(WORKLOAD_FIELDS, "One run of one workload on the candidate's cluster")


def _serve_workload() -> JsonObj:
    return _table_object(SERVE_WORKLOAD_FIELDS, "A serving workload (`kind: serve`) on the "
                         "candidate's cluster: its figures at the latency objective, and a "
                         "year of serving as its 'run'")


def _compare() -> JsonObj:
    return _obj({
        "scenario": _t("string", "Scenario name"),
        "currency": _currency(),
        "horizon_years": _t("integer", "Years of operation after the purchase (year 0)",
                            "years"),
        "recommendation": {"anyOf": [_recommendation(), {"type": "null"}],
                           "description": "The recommended option, null when no option may "
                                          "be used here"},
        "plan": {"anyOf": [_plan(), {"type": "null"}],
                 "description": "The planner's cheapest plan (methodology §19); null when "
                                "the scenario is not planned (more supplies than the planner "
                                "takes)"},
        "workloads": _array(_plan_workload(), "The plan's workloads in scenario order (the "
                            "first is the primary, whose figures head each candidate)"),
        "policy": {"anyOf": [_obj({
            "holds_licence": _strings("Cards (catalog ids) the buyer holds a licence for: "
                                      "their export-control or licence bars are lifted"),
            "holds_stock": {"type": "object", "description": (
                "Cards the buyer holds in service, by catalog card id: `cards`, and "
                "`resale_price_per_card` or `age_years` as the scenario gives them (the "
                "options of that card draw on them, tco.resolve.held)"),
                "additionalProperties": {"type": "object"}},
            "note": _t("string", "The scenario's note on the policy", null=True),
        }, "What the buyer holds (the scenario's `policy`)"), {"type": "null"}],
            "description": "What the buyer holds; null when the scenario states nothing"},
        "portfolios": _array(_portfolio(), "Portfolios (`portfolios` of the scenario), ranked "
                             "by tier then NPV; empty when it has none"),
        "api_options": _array(_api_option(), "Per-token API options (`api_options` of the "
                              "scenario), ranked by tier then NPV; empty when it has none"),
        "candidates": _array(_ref("candidate"), "Every option, ranked: the cheapest that "
                             "delivers the plan and may be used here first, infeasible ones "
                             "last"),
        "serving_frontiers": frontier_schema(),
        "measured_benchmarks": measured_schema(),
        "provenance": _ref("provenance"),
    }, "`tco compare --format json`")


def _plan() -> JsonObj:
    """`plan` of compare (tco/exporters/plan_view.py)."""
    money = "money"
    action = _obj({
        "start_years": _t("number", "When the action starts, from the decision", "years"),
        "end_years": _t("number", "When it ends (a purchase: the horizon; a sale: when sold)",
                        "years"),
        "action": {"enum": ["buy", "lease", "rent", "api", "sell"],
                   "description": "What is done"},
        "option": _t("string", "The typed option (or API option) whose card and terms it uses"),
        "card": _t("string", "The card's catalog id (empty for an API)"),
        "quantity": _t("number", "How much: cards bought, leased, reserved or sold; card-hours "
                       "rented per hour used; tokens a day called"),
        "unit": {"enum": ["cards", "card-hours", "tokens/day"], "description": "Of quantity"},
        "tier": _t("string", "A rent's tier: on_demand, committed, committed_3yr or spot; "
                   "empty otherwise"),
    }, "One dated action of the plan")
    workload = {"type": "object", "description": (
        "Per workload: delivered_fraction (share of its demand met in time), "
        "first_delivery_years (when its first run is done or its traffic first served; null "
        "when never), and cost_per_run (training) or cost_per_million_output_tokens (serving), "
        "levelized (methodology §19); runs_delivered for training"),
        "additionalProperties": {"type": "object"}}
    option = _obj({
        "option": _t("string", "The typed option or portfolio the plan is restricted to"),
        "npv_tco": _t("number", "NPV of that plan", money),
        "npv_tco_after_tax": _t("number", "Its NPV after income tax (methodology §20)", money),
        "delivers_plan": _t("boolean", "Whether it meets every workload's demand in time"),
        "delivered_fraction": _t("number", "The smallest share of a workload's demand it "
                                 "meets", "fraction"),
    }, "A plan restricted to one typed option, sized and timed by the planner")
    period = {"type": "object", "description": (
        "One period: start_years, each cost component in the scenario's currency "
        "(tco.model.plan.PLAN_COMPONENTS) and present_value"),
        "additionalProperties": {"type": "number"}}
    return _obj({
        "npv_tco": _t("number", "NPV of the cheapest plan; the recommendation's when it is the "
                      "plan", money),
        "npv_tco_after_tax": _t("number", "The plan's NPV after income tax (methodology §20; "
                                "`npv_tco` without a tax rate)", money),
        "basis": {"enum": ["pre_tax", "after_tax"], "description": (
            "The NPV the planner minimizes and the plans are compared on "
            "(finance.decision_basis): npv_tco, or npv_tco_after_tax")},
        "status": {"enum": ["optimal", "time_limit", "infeasible"],
                   "description": "How the search ended"},
        "delivers_plan": _t("boolean", "Whether it meets every workload's demand in time"),
        "period_months": _t("integer", "Months per period of the plan's grid", "months"),
        "actions": _array(action, "The plan as dated actions, by start"),
        "workloads": workload,
        "residual_value": _t("number", "Resale value at the horizon of what it bought (the "
                             "card class's used-market curve, else the book value)", money),
        "facts": _strings("What the plan's timing rests on, in words: 'waits for <card>: "
                          "buying it from month 12 costs ... less than the best plan with "
                          "<option>, on sale now' (methodology §19, price paths)"),
        "waits": _array(_obj({
            "card": _t("string", "The card's option id, not on sale at the decision"),
            "on_sale_month": _t("integer", "When it goes on sale, after the decision",
                                "months"),
            "action": {"enum": ["buy", "lease", "rent"],
                       "description": "How the plan first uses it"},
            "month": _t("integer", "When it first does, after the decision", "months"),
            "saving": _t("number", "What the plan costs less than the cheapest plan held to "
                         "one option on sale now", money),
            "rival": _t("string", "That option"),
        }, "A card the plan waits for"), "The facts, as figures"),
        "owed_after_horizon": _t("number", "Present value of reservations and leases still owed "
                                 "after the horizon", money),
        "value_of_flexibility": _t("number", "The cheapest restricted plan that delivers, less "
                                   "this plan's NPV, on the basis (after tax when `basis` is); "
                                   "null when none delivers", money, null=True),
        "options": _array(option, "The plans restricted to each typed option and portfolio"),
        "periods": _array(period, "Each period's costs"),
    }, "The planner's cheapest plan (methodology §19)")


def _api_option() -> JsonObj:
    money, per_m = "currency", "currency/1e6 tokens"

    def price(what: str) -> JsonObj:
        return _obj({"value": _t("number", f"API price per million {what} tokens", per_m),
                     "source": _t("string", "Where the price was read (or `scenario`)"),
                     "as_of": _t("string", "Date of the price", null=True)},
                    f"The price per million {what} tokens, with its source")

    return _obj({
        "id": _t("string", "API option id, as in the scenario"),
        "name": _t("string", "Its name (the scenario's, else provider and model)"),
        "carries": _strings("The serving workloads (ids) it serves"),
        "prices": _obj({"input_price_per_million_tokens": price("prompt (input)"),
                        "output_price_per_million_tokens": price("output")},
                       "Its two prices"),
        "npv_tco": _t("number", "NPV of the API fees over the horizon (year-end payments "
                      "in years 1..horizon)", money),
        "npv_tco_after_tax": _t("number", "NPV of the API fees after income tax (deducted as "
                                "paid: `npv_tco` x (1 - tax rate))", money),
        "undiscounted_tco": _t("number", "API fees over the horizon, undiscounted", money),
        "plan_delivered_fraction": _t("number", "Share of its part of the plan delivered (1)",
                                      "fraction"),
        "tier": _t("integer", "Ranking tier: 0 serves the whole plan, 1 a part of it (ranked "
                   "in a portfolio)"),
        "api_fees_per_year": _t("number", "API fees per year, paid at the end of each year "
                                "1..horizon", money),
        "jobs": {"type": "object", "description": "By serving workload id",
                 "additionalProperties": _obj({
                     "cost_per_million_input_tokens": _t("number", "Price per million prompt "
                                                         "tokens", per_m),
                     "cost_per_million_output_tokens": _t("number", "Price per million output "
                                                          "tokens", per_m),
                     "cost_per_million_tokens": _t("number", "Fees per million tokens served "
                                                   "(prompt and output)", per_m),
                     "tokens_per_year": _t("number", "Tokens served per year", "tokens"),
                     "cost_per_job": _t("number", "API fees of a year of serving", money),
                 }, "One serving workload's figures")},
    }, "One per-token API option")


def _portfolio() -> JsonObj:
    def num(text: str, unit: str) -> JsonObj:
        return _t("number", text + "; null when infeasible", unit, null=True)

    return _obj({
        "id": _t("string", "Portfolio id, as in the scenario"),
        "name": _t("string", "Portfolio name (the id when the scenario gives none)"),
        "options": _strings("Its options' ids"),
        "carries": {"type": "object", "description": "Option id -> the workloads it carries",
                    "additionalProperties": _strings("Workload ids")},
        "feasible": _t("boolean", "Whether every option runs its workloads"),
        "barred": _strings("Its options barred here (export control, licence)"),
        "tier": _t("integer", "Ranking tier, the options' rule: 0 may be used here and "
                              "delivers the plan, 1 delivers less, 2 barred, 3 infeasible"),
        "npv_tco": num("NPV of delivering the plan: the sum of its options'", "currency"),
        "npv_tco_after_tax": num("NPV after income tax: the sum of its options'", "currency"),
        "undiscounted_tco": num("Undiscounted TCO, the sum of its options'", "currency"),
        "capex_total": num("Capex, the sum of its options'", "currency"),
        "plan_delivered_fraction": num("Share of the plan delivered: the smallest share any "
                                       "option delivers of its part", "fraction"),
        "plan_shortfall_runs": num("Planned runs still waiting at the horizon, every option",
                                   "runs"),
    }, "Options costed together, each carrying its own workloads")


def _plan_workload() -> JsonObj:
    return _obj({
        "id": _t("string", "Workload id, the key of each candidate's `jobs`"),
        "name": _t("string", "Workload name (the id when the scenario gives none)"),
        "kind": _t("string", "pretrain or finetune"),
        "precision": _t("string", "Training precision (which peak and MFU are read)"),
        "runs_per_year": _t("number", "Runs planned per year", "runs/yr"),
        "params": _t("number", "Parameters", "parameters"),
        "active_params": _t("number", "Parameters active per token", "parameters"),
        "mixture_of_experts": _t("boolean", "Fewer active than total parameters: its results "
                                            "are optimistic (`warning`)"),
        "warning": _t("string", "The methodology's warning on mixture-of-experts results; "
                                "null for a dense model", null=True),
    }, "One workload of the plan")


def _reason_code() -> JsonObj:
    return _obj({
        "code": _t("string", "The reason's code (templates/decide.yaml words each in English "
                             "and Chinese)"),
        "figures": {"type": "object", "description": "The figures it quotes, by name: "
                    "amounts in the scenario's currency, shares as fractions, option ids"},
    }, "A reason as a code and its figures")


def _recommendation(nested: bool = False) -> JsonObj:
    props: JsonObj = {
        "option": _t("string", "Id of the recommended option, portfolio or API option; "
                               "'plan' for the planner's cheapest plan (`plan`)"),
        "mode": {"enum": list(modes.MODES),
                 "description": "How the capacity is got: buy (outright or with a loan), "
                                "lease (the hardware leased, run as if owned), rent, "
                                "hybrid (buy, and rent what the cluster cannot do), "
                                "portfolio (options costed together, `options`), api "
                                "(a per-token API serves the plan, `api_options`; no cards), "
                                "or plan (the planner's cheapest plan, `plan`; the modes it "
                                "uses in `uses`)"},
        "name": _t("string", "The option's name ('plan' for the plan)"),
        "card_name": _t("string", "The accelerator's name (a plan's: those it uses, joined "
                                  "with ' + ')"),
        "cards": _t("integer", "Accelerators in the cluster bought or rented (a plan's: "
                               "bought or leased)", "cards"),
        "pricing": _t("string", "The cloud tier rented at (committed or on-demand); null when "
                                "bought", null=True),
        "npv_tco": _t("number", "NPV of delivering the plan (the option's `npv_tco`; a plan's "
                                "equals `plan.npv_tco`)", "currency"),
        "delivers_plan": _t("boolean", "Whether it delivers the whole plan over the horizon"),
        "action": _t("string", "The recommendation in words: 'rent NVIDIA B200 at committed "
                               "prices', 'buy ...', 'lease ...', 'buy ... and rent what it cannot do "
                               "(hybrid)', 'follow the cheapest plan: buy and rent ...'"),
        "reasons": _array(_t("string", "A reason"), "Why, in English: its rank and what the "
                          "other mode would cost (`reason_codes` in words)"),
        "reason_codes": _array(_reason_code(), "Why, as codes with their figures"),
        "options": _strings("The option ids it consists of: [option] for one option, the "
                            "portfolio's options for a portfolio, the options whose terms a "
                            "plan's actions use"),
        "uses": _strings("A plan's modes (buy, lease, rent, api); empty otherwise"),
        "actions": _array(_obj({
            "start_years": _t("number", "When it starts", "years"),
            "end_years": _t("number", "When it ends", "years"),
            "action": _t("string", "buy, lease, rent, api or sell"),
            "option": _t("string", "The typed option whose terms it uses"),
            "quantity": _t("number", "How much, in `unit`"),
            "unit": _t("string", "cards, card-hours or tokens/day"),
        }, "One dated action"), "A plan's dated actions (`plan.actions` in short); empty "
                                "otherwise"),
        "value_of_flexibility": _t("number", "A plan's saving over the cheapest plan held to "
                                             "one option that delivers; null otherwise or "
                                             "when none delivers", "currency", null=True),
        "runner_up_plan": _t("string", "That plan's option; null otherwise", null=True),
        "basis": {"enum": ["pre_tax", "after_tax"],
                  "description": "The NPV the options are ranked on (finance.decision_basis, "
                                 "methodology §20): `npv_tco`, or `npv_tco_after_tax`"},
    }
    props["best_option"] = ({"type": "null", "description": "Null inside best_option"}
                            if nested else
                            {"anyOf": [_recommendation(nested=True), {"type": "null"}],
                             "description": "When the plan is recommended: the best option "
                                            "(or portfolio, or API) as typed, as a "
                                            "recommendation of its own; null otherwise"})
    return _obj(props, "The recommendation: the planner's cheapest plan when the scenario is "
                       "planned, else the best-ranked option that may be used here")


def _job() -> JsonObj:
    return {"description": "`tco job --format json`: a training run, or a serving workload "
                           "(`tco job --serve`)",
            "anyOf": [_job_object(JOB_FIELDS, "the candidate, then one run of its one "
                                              "workload (`feasible` is the candidate's)"),
                      _job_object(SERVE_JOB_FIELDS, "the candidate, then its serving "
                                                    "workload (`feasible` is the candidate's)")]}


def _job_object(fields: tuple[Field, ...], description: str) -> JsonObj:
    obj = _table_object(fields, description, {"currency": _currency()}, after="blocking")
    obj["properties"]["provenance"] = _ref("provenance")
    obj["required"] = list(obj["properties"])
    return {**obj, **_null_rule(fields)}


# --- the analyses ----------------------------------------------------------------------------


def _line(what: str) -> JsonObj:
    return _obj({
        "key": _t("string", "Quantity or cost line"),
        "label": _t("string", "Its label"),
        "before": _t("number", f"{what} before", "currency", null=True),
        "after": _t("number", f"{what} after", "currency", null=True),
        "delta": _t("number", "after - before; null when either is null", "currency",
                    null=True),
    }, f"{what}, before and after (null where the candidate is absent or not quantified)")


def _comparison() -> JsonObj:
    maybe_int = lambda text: _t("integer", text, null=True)
    maybe_bool = lambda text: _t("boolean", text, null=True)
    return _obj({
        "before": _t("string", "Label of the first result (`baseline`, or the first file)"),
        "after": _t("string", "Label of the second result (the --set changes, or the second "
                              "file)"),
        "currency": _currency(),
        "inputs": _array(_obj({
            "path": _t("string", "Dotted input path"),
            "label": _t("string", "What the input is"),
            "unit": _t("string", "Its unit (money in the output's currency)"),
            "before": _t("number", "Value before; null when the input is new", null=True),
            "after": _t("number", "Value after; null when the input is gone", null=True),
        }, "An input whose value differs"), "Every input whose value differs"),
        "candidates": _array(_obj({
            "id": _t("string", "Candidate id"),
            "name": _t("string", "Candidate name"),
            "rank_before": maybe_int("1-based place in the first ranking; null when not "
                                     "ranked (absent, infeasible or barred)"),
            "rank_after": maybe_int("1-based place in the second ranking"),
            "feasible_before": maybe_bool("Feasible in the first result; null when absent"),
            "feasible_after": maybe_bool("Feasible in the second result; null when absent"),
            "npv_tco": _line("NPV of TCO"),
            "cost_per_job": _line("Cost of one run of the primary workload"),
            "npv_components": _array(_line("Present value of one cash-flow component"),
                                     "NPV of TCO by cash-flow component (they sum to it)"),
            "cost_per_job_lines": _array(_line("One cost line of a run"),
                                         "Cost of one run by cost line"),
            "notes": _strings("What else changed (feasibility, sizing)"),
        }, "One candidate's change"), "Candidates in the first ranking, new ones last"),
        "portfolios": _array(_obj({
            "id": _t("string", "Portfolio id"),
            "name": _t("string", "Portfolio name"),
            "options": _strings("The option ids it costs together"),
            "npv_tco": _line("NPV of TCO of the portfolio"),
            "plan_delivered_fraction": _obj({
                "key": _t("string", "plan_delivered_fraction"),
                "label": _t("string", "What the line is"),
                "before": _t("number", "Share before", "fraction", null=True),
                "after": _t("number", "Share after", "fraction", null=True),
                "delta": _t("number", "after - before; null when either is null", "fraction",
                            null=True),
            }, "Share of the plan delivered over the horizon, before and after"),
            "notes": _strings("What else changed (feasibility; present in one result only)"),
        }, "One portfolio's change"), "Portfolios (options costed together) in the first "
            "result's order, new ones last"),
        "ranking_before": _strings("Feasible candidates that may be bought, best first"),
        "ranking_after": _strings("The same, after"),
        "ranking_flips": _t("boolean", "Whether candidates in both rankings change order"),
        "notes": _strings("Ranking changes and every candidate's notes"),
    }, "`tco whatif` / `tco diff --format json`: two results side by side")


def _sensitivity() -> JsonObj:
    tornado = _tornado
    return _obj({
        "metric": {"enum": list(METRICS), "description": "The metric moved"},
        "mode": {"enum": ["swing", "range"], "description":
                 "swing: every input -swing/+swing; range: its catalog low..high"},
        "swing": _t("number", "The swing; null in range mode", "fraction", null=True),
        "currency": _currency(),
        "candidates": _array(tornado("Candidate id"), "Priced candidates"),
        "plan": {"anyOf": [tornado("The plan's id (`plan`: the cheapest plan)"),
                           {"type": "null"}],
                 "description": "The cheapest plan held fixed (what it buys, leases, rents and "
                                "calls, and when) and re-costed at each case (not re-solved); "
                                "null unless the scenario is planned and the metric is npv_tco"},
    }, "`tco sensitivity --format json`")


def _tornado(what: str) -> JsonObj:
    n = lambda text, unit="": _t("number", text, unit)
    return _obj({
            "id": _t("string", what),
            "baseline": n("The metric at the baseline", "currency"),
            "bars": _array(_obj({
                "path": _t("string", "Dotted input path"),
                "label": _t("string", "What the input is"),
                "unit": _t("string", "Unit of the input values"),
                "base_value": n("Input value at the baseline", IN_UNIT),
                "low_value": n("Input value moved down", IN_UNIT),
                "high_value": n("Input value moved up", IN_UNIT),
                "metric_low": n("The metric with the input at low_value", "currency"),
                "metric_high": n("The metric with the input at high_value", "currency"),
                "effect": n("|metric_high - metric_low|", "currency"),
                "clipped": _t("boolean", "A move reached the input's plausible range and was "
                                         "cut there"),
            }, "One input moved down and up"), "Inputs by effect, largest first"),
        }, "One tornado")


def _breakeven() -> JsonObj:
    maybe = lambda text, unit: _t("number", text, unit, null=True)
    return _obj({
        "path": _t("string", "The input varied (dotted path)"),
        "label": _t("string", "What the input is"),
        "unit": _t("string", "Unit of the input values"),
        "candidate": _t("string", "Candidate id A"),
        "versus": _t("string", "Candidate id B"),
        "metric": {"enum": list(BREAKEVEN_METRICS), "description": "The metric compared"},
        "currency": _currency(),
        "value": maybe("The break-even value closest to the baseline; null when there is none "
                       "or the order flips between two whole numbers", IN_UNIT),
        "base_value": _t("number", "The input's baseline value", IN_UNIT),
        "baseline": _obj({
            "metric_candidate": maybe("A's metric at the baseline", "currency"),
            "metric_versus": maybe("B's metric at the baseline", "currency"),
        }, "The metric of both at the baseline (null only if not finite)"),
        "scan": _obj({"low": _t("number", "Lowest value searched", IN_UNIT),
                      "high": _t("number", "Highest value searched", IN_UNIT)},
                     "The range searched"),
        "crossings": _array(_obj({
            "value": maybe("Where A and B cost the same; null for a whole-number input whose "
                           "order flips between two values", IN_UNIT),
            "exact": _t("boolean", "False: a jump or a whole-number input (see note)"),
            "bracket": {"type": "array", "items": {"type": "number"}, "minItems": 2,
                        "maxItems": 2, "description": "Input values either side [in `unit`]"},
            "metric_candidate": maybe("A's metric there", "currency"),
            "metric_versus": maybe("B's metric there", "currency"),
            "note": _t("string", "Why it is not exact; empty when it is"),
        }, "One crossing"), "Every crossing, closest to the baseline first"),
        "statement": _t("string", "The answer in one sentence"),
    }, "`tco breakeven --format json`")


MC_BASIS = {"enum": ["pre_tax", "after_tax"],
            "description": "What each draw is ranked on (`prob_cheapest`, the plan's "
                           "`cheaper_share`): the NPV of TCO before tax, or after income tax "
                           "(an option short of the plan: its npv_tco_plan_closed_after_tax), "
                           "as tco compare ranks (finance.decision_basis); the percentiles are "
                           "before tax either way"}


def _montecarlo() -> JsonObj:
    def pct(what: str) -> JsonObj:
        return _obj({p: _t("number", f"{p.upper() if p != 'mean' else 'Mean'} of {what}",
                           "currency") for p in ("p10", "p50", "p90", "mean")},
                    f"Distribution of {what} over the draws")

    def candidate(metric: str, what: str, none: str) -> JsonObj:
        """One option or portfolio under `--metric metric`; `none` says when it is null."""
        base = {metric: _t("number", f"{what[0].upper()}{what[1:]} at the baseline{none}",
                           "currency", null=True)}
        det = _obj({"npv_tco": _t("number", "NPV of TCO at the baseline (no draw)",
                                  "currency"), **base}, "The metrics without any draw")
        det["required"] = ["npv_tco"]  # the metric is absent where it is null
        return _obj({
            "id": _t("string", "Candidate id, or a portfolio's id (options costed together)"),
            "npv_tco": pct("NPV of TCO of delivering the plan (an option short of it in a "
                           "draw: its npv_tco_plan_closed there)"),
            metric: {"anyOf": [pct(what), {"type": "null"}], "description": what + none},
            "prob_cheapest": _t("number", "Share of draws in which it ranks first (tier, then "
                                "NPV of TCO on the `basis`, the same draws as `npv_tco`), "
                                "among the options and portfolios", "fraction"),
            "short_share": _t("number", "Share of draws in which it falls short of the plan "
                              "and is ranked, and drawn, at its NPV with the shortfall closed",
                              "fraction"),
            "ranked_share": _t("number", "Share of draws in which it may rank first at all "
                               "(not barred, not infeasible in the draw, not a part of the "
                               "plan)", "fraction"),
            "deterministic": det,
            "outside": _array(_obj({
                "metric": _t("string", "npv_tco or the metric"),
                "side": {"enum": ["below", "above"],
                         "description": "below its P10, or above its P90"},
                "deterministic": _t("number", "The point estimate", "currency"),
                "p10": _t("number", "Its P10", "currency"),
                "p90": _t("number", "Its P90", "currency"),
                "message": _t("string", "The note as the table prints it"),
                "skewed_inputs": _array(_obj({
                    "path": _t("string", "Input path"),
                    "value": _t("number", "The point estimate's value of it"),
                    "median": _t("number", "The median of its draws"),
                    "low": _t("number", "Its distribution's low end"),
                    "high": _t("number", "Its distribution's high end"),
                    "effect": _t("number", "The figure with this input alone at its median, "
                                 "less the point estimate", "currency"),
                }, "A drawn input whose draws lie mostly on one side of the point's value"),
                    "Largest effect first; empty when no single input explains it"),
            }, "A point estimate outside its own P10-P90 band, and why"),
                "The figures whose point estimate lies outside their P10-P90 band"),
        }, f"One priced candidate or feasible portfolio (--metric {metric})")

    return _obj({
        "draws": _t("integer", "Number of draws"),
        "seed": _t("integer", "Random seed (the same seed gives the same output)"),
        "currency": _currency(),
        "basis": MC_BASIS,
        "varied": _strings("Input paths drawn"),
        "shared_draws": _array(_strings("Paths that share one draw"),
                               "Groups of inputs that take one draw (the same catalog figure)"),
        "candidates": _array({"oneOf": [
            candidate("cost_per_job", "the cost of one run of the primary workload",
                      "; null for a portfolio (no one run)"),
            candidate("cost_per_million_output_tokens",
                      "the first serving workload's cost per million output tokens",
                      "; null for an option that does not carry the serving workload, or a "
                      "portfolio")]},
            "Priced candidates, then feasible portfolios"),
        "warnings": _array(_obj({
            "kind": {"enum": ["clipped", "unused"],
                     "description": "clipped: the input's plausible range cuts the "
                                    "distribution; unused: no result depends on the input"},
            "path": _t("string", "Input path of the distribution"),
            "share_clipped": _t("number", "Share of draws moved to the range's bound",
                                "fraction", null=True),
            "message": _t("string", "The warning as the table prints it"),
        }, "A distribution the run could not use as given"), "Warnings about the distributions"),
        "plan": _plan_band(pct),
    }, "`tco montecarlo --format json`")


def _plan_band(pct: Any) -> JsonObj:
    """`montecarlo.plan`: the cheapest plan held fixed and re-costed in every draw."""
    return {"anyOf": [_obj({
        "id": _t("string", "The plan's id (`plan`: the cheapest plan, tco compare's `plan`)"),
        "npv_tco": pct("the plan's NPV of TCO, held fixed (what it buys, leases, rents and "
                       "calls, and when) and re-costed in each draw"),
        "deterministic": _t("number", "The plan's NPV of TCO at the baseline (no draw)",
                            "currency"),
        "cheaper_share": _t("number", "Share of draws in which the plan, held fixed, costs no "
                            "more than the candidate ranked first in that draw (both on the "
                            "`basis`)", "fraction"),
    }, "The cheapest plan held fixed and re-costed in every draw (the same draws)"),
        {"type": "null"}], "description": "The cheapest plan held fixed and re-costed in every "
                                          "draw; null when the scenario is not planned"}


def _catalog_list() -> JsonObj:
    return _array({
        "type": "object",
        "description": "One catalog record: its id and the section's key figures (null when "
                       "the record lacks one)",
        "properties": {"id": _t("string", "Record id")},
        "required": ["id"],
        "additionalProperties": {"anyOf": [_ref("figure"), _ref("missing"), {"type": "null"}]},
    }, "`tco catalog list --format json`: the records of one section")


def _catalog_show() -> JsonObj:
    fact = {"anyOf": [_ref("figure"), _ref("missing"), {"type": ["string", "number", "boolean"]},
                      _strings("A list of ids or regions")]}
    return _obj({
        "id": _t("string", "The record id asked for"),
        "figures": {"type": "object", "description": "Every field of every record with that "
                    "id, as `<section>.<field>` (`<section>.<record id>.<field>` for a catalog "
                    "file such as facilities): a sourced figure, or a plain fact",
                    "additionalProperties": fact},
    }, "`tco catalog show --format json`")


def output_schema() -> JsonObj:
    defs: JsonObj = {
        "compare": _compare(),
        "job": _job(),
        "whatif": {**_ref("comparison"), "description": "`tco whatif --format json`"},
        "diff": {**_ref("comparison"), "description": "`tco diff --format json`"},
        "sensitivity": _sensitivity(),
        "breakeven": _breakeven(),
        "montecarlo": _montecarlo(),
        "catalog_list": _catalog_list(),
        "catalog_show": _catalog_show(),
        "candidate": _candidate(),
        "workload": _workload(),
        "serve_workload": _serve_workload(),
        "cost": _cost(),
        "yearly_row": _yearly_row(),
        "provenance": _provenance(),
        "comparison": _comparison(),
        "figure": _figure(),
        "missing": _missing(),
    }
    assert set(COMMANDS) <= set(defs)
    return {
        "$schema": DIALECT,
        "title": "tco JSON output",
        "description": ("The JSON written by every tco command with --format json; "
                        "`$defs/<command>` is one command's output (catalog list and show are "
                        "catalog_list and catalog_show). Money is in the output's `currency`; "
                        "units are in brackets. docs/json.md explains the keys and null rules."),
        "anyOf": [_ref(name) for name in COMMANDS],
        "$defs": defs,
    }


def schema_text() -> str:
    return json.dumps(output_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str]) -> None:
    """Print the schema, or write it to the path given."""
    if argv:
        from ..fsio import write_atomic

        write_atomic(argv[0], schema_text())
    else:
        sys.stdout.write(schema_text())


if __name__ == "__main__":
    main(sys.argv[1:])
