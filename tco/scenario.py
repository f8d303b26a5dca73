"""Scenario files: what the user wants to train, which options to compare, and on what terms.

`load_scenario(path)` parses and validates a YAML file (typos are errors, with the line);
`resolve(scenario, catalog)` turns it into the flat set of model inputs, each with its value in
the scenario's currency and its source.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .catalog import PRECISIONS, Catalog, Figure
from .errors import ScenarioError, UnknownId, did_you_mean
from .inputs import (
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    FACILITY_INPUTS,
    FINANCE_INPUTS,
    TARGET_INPUTS,
    TEAM_INPUTS,
    TOP_INPUTS,
    WORKLOAD_INPUTS,
    Input,
    InputSpec,
)
from .resolved import (
    CandidateInfo,
    Resolved,
    Structure,
    scenario_source,
    show_value,
    value_problem,
)
from .resources import example_scenario
from .yamlio import YamlDoc, load_yaml, load_yaml_text

Precision = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8"]


def _not_bool(value: Any) -> Any:
    # YAML reads yes/no/true/false as booleans, and pydantic would take them as 1 and 0.
    if isinstance(value, bool):
        raise PydanticCustomError("not_a_number",
                                  f"expected a number, found a yes/no value ({value})")
    return value


Num = Annotated[float, BeforeValidator(_not_bool)]
Whole = Annotated[int, BeforeValidator(_not_bool)]


def _field_error(kind: str, message: str, *at: str) -> PydanticCustomError:
    """A validation error about `at` (path parts below where the validator runs)."""
    return PydanticCustomError(kind, message.replace("{", "{{").replace("}", "}}"),
                               {"at": tuple(at)})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Workload(_Strict):
    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    name: str | None = None
    kind: Literal["pretrain", "finetune"] = "pretrain"
    params: Num
    active_params: Num | None = None
    tokens: Num
    precision: Precision = "bf16"
    runs_per_year: Num = 1.0
    global_batch_tokens: Num | None = None
    seq_len_tokens: Num | None = None


class Candidate(BaseModel):
    """A purchasable option. Besides the fields below it may set any candidate input
    (`card_price`, `mfu`, `lead_time_weeks`, ...) to override the catalog."""

    model_config = ConfigDict(extra="allow")

    id: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
    card: str
    name: str | None = None
    notes: str | None = None
    vendor: str | None = None
    cards: Whole | None = None
    deadline_days: Num | None = None
    power_cap_kw: Num | None = None
    platform: str | None = None
    cooling: Literal["air", "liquid"] | None = None
    stack: str | None = None

    @model_validator(mode="after")
    def _one_sizing(self) -> Candidate:
        # Unknown keys first: a typo of `cards` would otherwise read as 'no size given'.
        for key in self.model_extra or {}:
            if key not in CANDIDATE_INPUTS or key == "cards":
                raise _field_error(
                    "unknown_field", f"unknown field '{key}'{did_you_mean(key, _CANDIDATE_FIELDS)}",
                    key)
        given = [k for k in ("cards", "deadline_days", "power_cap_kw") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError(
                "give exactly one of cards, deadline_days or power_cap_kw"
                + (f" (got {', '.join(given)})" if given else "")
            )
        return self

    @property
    def overrides(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


_CANDIDATE_FIELDS = list(Candidate.model_fields) + list(CANDIDATE_INPUTS)


class Facility(_Strict):
    region: str = "us"
    electricity_price_per_kwh: Num | None = None
    colocation_price_per_kw_month: Num | None = None
    carbon_kg_per_kwh: Num | None = None


class Finance(_Strict):
    horizon_years: Whole = 5
    discount_rate: Num = 0.08
    depreciation_years: Num = 5
    residual_value_fraction: Num = 0.1
    purchase: Literal["buy", "finance"] = "buy"
    financed_fraction: Num | None = None
    loan_rate: Num = 0.07
    loan_term_years: Whole = 3


class Team(_Strict):
    engineer_cost_per_month: Num | None = None  # default: the catalog's, in the currency
    porting_complexity: Literal["simple", "moderate", "complex"] = "moderate"
    familiarity: dict[str, Num] = {}


class Distribution(_Strict):
    """A Monte Carlo distribution for one input path (values in the scenario's units)."""

    dist: Literal["triangular", "uniform", "normal"] = "triangular"
    low: Num
    high: Num
    mode: Num | None = None

    @model_validator(mode="after")
    def _ordered(self) -> Distribution:
        for key in ("low", "high", "mode"):
            v = getattr(self, key)
            if v is not None and not math.isfinite(v):
                raise _field_error("not_finite", f"expected a finite number, found {v}", key)
        if self.low > self.high:
            raise _field_error("range_order",
                               f"low ({self.low:g}) is above high ({self.high:g})", "low")
        if self.mode is not None and not (self.low <= self.mode <= self.high):
            raise _field_error("range_order", f"mode ({self.mode:g}) is outside low..high "
                               f"({self.low:g} to {self.high:g})", "mode")
        return self


class Scenario(_Strict):
    name: str = Field(default="Untitled scenario", max_length=200)
    description: str | None = None
    currency: Literal["USD", "CNY", "EUR"] = "USD"
    rent_pricing: Literal["on_demand", "committed"] = "committed"
    utilization: Num = 0.85
    cost_of_delay_per_week: Num = 0.0
    workloads: list[Workload] = Field(min_length=1)
    candidates: list[Candidate] = Field(min_length=1)
    facility: Facility = Facility()
    finance: Finance = Finance()
    team: Team = Team()
    assumptions: dict[str, Num] = {}
    distributions: dict[str, Distribution] = {}

    @field_validator("assumptions")
    @classmethod
    def _known_assumptions(cls, value: dict[str, float]) -> dict[str, float]:
        for key in value:
            if key not in ASSUMPTION_INPUTS:
                raise _field_error(
                    "unknown_field",
                    f"unknown assumption '{key}'{did_you_mean(key, ASSUMPTION_INPUTS)}", key)
        return value

    @model_validator(mode="after")
    def _unique_ids(self) -> Scenario:
        for what, items in (("workloads", self.workloads), ("candidates", self.candidates)):
            seen: set[str] = set()
            for item in items:
                if item.id in seen:
                    raise _field_error("duplicate_id", f"duplicate {what[:-1]} id '{item.id}'; "
                                       "ids must be unique", what, item.id)
                seen.add(item.id)
        return self


class Loaded:
    """A validated scenario and the file it came from (for line numbers in later errors)."""

    def __init__(self, scenario: Scenario, doc: YamlDoc | None) -> None:
        self.scenario = scenario
        self.doc = doc
        self.file = doc.file if doc else "<scenario>"

    def error(self, message: str, path: list[str]) -> ScenarioError:
        line = self.doc.line_of(path) if self.doc else None
        return ScenarioError(message, file=self.file, field=".".join(path), line=line)


_FIRST = ("extra_forbidden", "unknown_field")  # a typo also causes a 'missing' error: name the typo


def _validation_error(exc: ValidationError, doc: YamlDoc) -> ScenarioError:
    errors = exc.errors()
    err = next((e for e in errors if e.get("type") in _FIRST), errors[0])
    loc = [str(x) for x in err["loc"]]
    # Lists are addressed by index in pydantic; name the record by its id instead.
    named: list[str] = []
    data: Any = doc.data
    for part in loc:
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            item = data[int(part)]
            ident = item.get("id") if isinstance(item, dict) else None
            named.append(str(ident) if ident is not None else part)
            data = item
        else:
            named.append(part)
            data = data.get(part) if isinstance(data, dict) else None
    named += [str(x) for x in (err.get("ctx") or {}).get("at", ())]
    kind = err.get("type", "")
    found = err.get("input")
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        msg = f"unknown field '{loc[-1]}'{did_you_mean(loc[-1], _fields_at(loc))}"
    elif kind == "missing":
        msg = "required field is missing"
    elif kind.startswith("int"):
        msg = f"expected a whole number, found {show_value(found)}"
    elif kind.startswith("float"):
        msg = f"expected a number, found {show_value(found)}"
    elif kind == "string_pattern_mismatch":
        msg = (f"found {show_value(found)}; expected an id of letters, digits, '_', '.' and '-', "
               "starting with a letter or digit")
    elif msg.startswith("Input should be"):
        msg = f"found {show_value(found)}; " + msg.replace("Input should be", "expected", 1)
    line = doc.line_of(named)
    return ScenarioError(msg, file=doc.file, field=".".join(named) or None, line=line)


def _fields_at(loc: list[str]) -> list[str]:
    """The field names allowed where `loc[-1]` was found (for 'did you mean')."""
    model: Any = Scenario
    parts = iter(loc[:-1])
    for part in parts:
        f = getattr(model, "model_fields", {}).get(part)
        if f is None:
            return []
        ann = f.annotation
        origin = getattr(ann, "__origin__", None)
        args = getattr(ann, "__args__", ())
        if origin in (list, dict):
            next(parts, None)  # the list index or mapping key
            args = args[-1:]
        model = next((a for a in (ann, *args) if hasattr(a, "model_fields")), None)
        if model is None:
            return []
    return list(getattr(model, "model_fields", {}))


def parse_scenario(doc: YamlDoc) -> Loaded:
    if not isinstance(doc.data, dict):
        raise ScenarioError("expected a mapping with workloads and candidates", file=doc.file)
    try:
        scenario = Scenario.model_validate(doc.data)
    except ValidationError as exc:
        raise _validation_error(exc, doc) from None
    return Loaded(scenario, doc)


BUILT_IN_EXAMPLE = "built-in example scenario (tco/scenarios/example.yaml)"


def load_scenario(path: Path | str | None = None) -> Loaded:
    """Read a scenario file; without a path, the built-in example."""
    if path:
        return parse_scenario(load_yaml(Path(path), ScenarioError))
    # Named, not by its install path: outputs must not depend on where tco is installed.
    doc = load_yaml(example_scenario(), ScenarioError)
    doc.file = BUILT_IN_EXAMPLE
    return parse_scenario(doc)


def load_scenario_text(text: str, file: str = "<scenario>") -> Loaded:
    return parse_scenario(load_yaml_text(text, file, ScenarioError))


def quick_job(*, model_params: float, active_params: float | None, tokens: float, card: str,
              cards: int, precision: str, mfu: float | None, region: str, currency: str
              ) -> Loaded:
    """A one-workload, one-candidate scenario for `tco job` (default finance and team)."""
    cand: dict[str, Any] = {"id": card, "card": card, "cards": cards}
    if mfu is not None:
        cand["mfu"] = mfu
    work: dict[str, Any] = {"id": "job", "params": model_params, "tokens": tokens,
                            "precision": precision}
    if active_params is not None:
        work["active_params"] = active_params
    data = {"name": "quick job", "currency": currency, "workloads": [work],
            "candidates": [cand], "facility": {"region": region}}
    return parse_scenario(YamlDoc(data, {}, "command line"))


# --- resolution: scenario + catalog -> inputs ------------------------------------------------


def _check(value: float, spec: InputSpec, loaded: Loaded, fx: float, origin_path: list[str]
           ) -> float:
    problem = value_problem(value, spec, loaded.scenario.currency, fx)
    if problem:
        raise loaded.error(problem, origin_path)
    return float(value)


def _fig_input(path: str, fig: Figure, spec: InputSpec, scale: float = 1.0,
               source_prefix: str = "") -> Input:
    lo, hi = fig.range
    note = fig.note or ""
    src = fig.source if not source_prefix else f"{source_prefix}{fig.source}"
    return Input(path=path, value=fig.best * scale, spec=spec, source=src, as_of=fig.as_of,
                 low=lo * scale, high=hi * scale, note=note, origin="catalog")


def resolve(loaded: Loaded, catalog: Catalog) -> Resolved:
    sc = loaded.scenario
    fx = catalog.usd_to(sc.currency)
    fx_note = "" if sc.currency == "USD" else f" (USD x {fx:g} {sc.currency}/USD)"
    inputs: dict[str, Input] = {}

    def put(inp: Input) -> None:
        inputs[inp.path] = inp

    def scenario_value(path: list[str], value: float, spec: InputSpec) -> Input:
        v = _check(value, spec, loaded, fx, path)
        return Input(path=".".join(path), value=v, spec=spec, source=scenario_source(loaded.file),
                     origin="scenario")

    # assumptions: catalog defaults, scenario overrides
    for key, spec in ASSUMPTION_INPUTS.items():
        path = f"assumptions.{key}"
        if key in sc.assumptions:
            put(scenario_value(["assumptions", key], sc.assumptions[key], spec))
        else:
            put(_fig_input(path, catalog.assumption(key), spec))

    # top level
    for key, spec in TOP_INPUTS.items():
        put(scenario_value([key], getattr(sc, key), spec))

    # finance
    fin = sc.finance
    for key, spec in FINANCE_INPUTS.items():
        value = getattr(fin, key)
        if key == "financed_fraction" and value is None:
            value = 1.0 if fin.purchase == "finance" else 0.0
        put(scenario_value(["finance", key], value, spec))
    if fin.loan_term_years > fin.horizon_years and inputs["finance.financed_fraction"].value > 0:
        raise loaded.error(
            f"loan term {fin.loan_term_years} years is longer than the horizon "
            f"({fin.horizon_years} years); shorten the term or lengthen the horizon",
            ["finance", "loan_term_years"],
        )

    # team
    for key, spec in TEAM_INPUTS.items():
        if getattr(sc.team, key) is not None:
            put(scenario_value(["team", key], getattr(sc.team, key), spec))
        else:
            put(_fig_input(f"team.{key}", catalog.assumption(f"{key}_usd"), spec, fx,
                           fx_note and f"{fx_note}: "))
    fam_spec = InputSpec("familiarity", "fraction", "Team familiarity with the stack "
                         "(share of porting effort already done)", 0, 1,
                         hint="a fraction between 0 and 1", fraction=True)
    for stack_id in catalog.stacks:
        path = ["team", "familiarity", stack_id]
        default = 1.0 if stack_id == "cuda" else 0.0
        if stack_id in sc.team.familiarity:
            put(scenario_value(path, sc.team.familiarity[stack_id], fam_spec))
        else:
            put(Input(path=".".join(path), value=default, spec=fam_spec,
                      source="default: a CUDA team, new to other stacks", origin="default"))
    for stack_id in sc.team.familiarity:
        if stack_id not in catalog.stacks:
            raise loaded.error(f"unknown stack '{stack_id}'{did_you_mean(stack_id, catalog.stacks)}",
                               ["team", "familiarity", stack_id])

    # facility
    try:
        region = catalog.region(sc.facility.region)
    except UnknownId as exc:
        raise loaded.error(str(exc), ["facility", "region"]) from None
    region_fx = fx / catalog.usd_to(region.currency)
    conv = "" if region.currency == sc.currency else (
        f"{region.currency} x {region_fx:g} {sc.currency}/{region.currency}: "
    )
    for key, spec in FACILITY_INPUTS.items():
        given = getattr(sc.facility, key)
        if given is not None:
            put(scenario_value(["facility", key], given, spec))
        else:
            scale = region_fx if spec.money else 1.0
            put(_fig_input(f"facility.{key}", getattr(region, key), spec, scale, conv))

    # workloads
    workloads = []
    for w in sc.workloads:
        base = ["workloads", w.id]
        values = {
            "params": w.params,
            "active_params": w.active_params if w.active_params is not None else w.params,
            "tokens": w.tokens,
            "runs_per_year": w.runs_per_year,
            "global_batch_tokens": w.global_batch_tokens
            if w.global_batch_tokens is not None else inputs["assumptions.global_batch_tokens"].value,
            "seq_len_tokens": w.seq_len_tokens
            if w.seq_len_tokens is not None else inputs["assumptions.seq_len_tokens"].value,
        }
        for key, spec in WORKLOAD_INPUTS.items():
            inp = scenario_value(base + [key], values[key], spec)
            if key == "active_params" and w.active_params is None:
                inp.source, inp.origin = "equal to params (dense model)", "default"
            if key in ("global_batch_tokens", "seq_len_tokens") and getattr(w, key) is None:
                inp.source, inp.origin = f"assumptions.{key}", "default"
            put(inp)
        if values["active_params"] > values["params"]:
            raise loaded.error("active_params cannot exceed params", base + ["active_params"])
        workloads.append((w.id, w.precision, w.kind))

    # candidates
    infos: dict[str, CandidateInfo] = {}
    rent: list[str] = []
    precisions = {p for _, p, _ in workloads}
    for c in sc.candidates:
        base = ["candidates", c.id]
        try:
            card = catalog.card(c.card)
        except UnknownId as exc:
            raise loaded.error(str(exc), base + ["card"]) from None
        try:
            platform = catalog.platform(c.platform or card.default_platform)
        except UnknownId as exc:
            raise loaded.error(str(exc), base + ["platform"]) from None
        if card.id not in platform.cards:
            raise loaded.error(
                f"platform '{platform.id}' does not host '{card.id}' (it hosts "
                f"{', '.join(platform.cards)})", base + ["platform"])
        try:
            stack = catalog.stack(c.stack or card.stack)
        except UnknownId as exc:
            raise loaded.error(str(exc), base + ["stack"]) from None
        cooling = catalog.cooling_option(c.cooling or platform.default_cooling)
        price = catalog.card_prices[card.id]
        cloud = catalog.cloud_prices.get(card.id)
        rent_note = ""
        p = f"candidates.{c.id}"
        figs: dict[str, tuple[Figure | None, float, str]] = {
            "card_price": (price.price_usd, fx, fx_note),
            "lead_time_weeks": (price.lead_time_weeks, 1.0, ""),
            "mfu": (card.mfu, 1.0, ""),
            "stack_efficiency": (stack.efficiency_vs_cuda, 1.0, ""),
            "memory_gb": (card.memory_gb, 1.0, ""),
            "tdp_w": (card.tdp_w, 1.0, ""),
            "scaleup_bandwidth_bidir_gb_per_s": (card.scaleup_bandwidth_bidir_gb_per_s, 1.0, ""),
            "scaleup_domain_cards": (card.scaleup_domain_cards, 1.0, ""),
            "cards_per_node": (platform.cards_per_node, 1.0, ""),
            "node_price": (platform.node_price_usd, fx, fx_note),
            "node_power_w": (platform.node_power_w, 1.0, ""),
            "scaleout_bandwidth_gb_per_s": (platform.scaleout_bandwidth_gb_per_s, 1.0, ""),
            "network_cost_per_card": (platform.network_cost_per_card_usd, fx, fx_note),
            "pue": (cooling.pue, 1.0, ""),
            "cooling_capex_per_kw": (cooling.capex_per_kw_usd, fx, fx_note),
            "porting_engineer_months": (
                getattr(stack, f"porting_engineer_months_{sc.team.porting_complexity}"), 1.0, ""),
            "maintenance_engineer_months_per_year": (
                stack.maintenance_engineer_months_per_year, 1.0, ""),
            "licence_per_card_year": (stack.licence_per_card_year_usd, fx, fx_note),
        }
        for prec in sorted(precisions):
            figs[f"peak_tflops_{prec}"] = (card.peak(prec), 1.0, "")
        if cloud is not None:
            committed = cloud.committed_usd_per_card_hour
            fig = (committed if sc.rent_pricing == "committed" and committed
                   else cloud.on_demand_usd_per_card_hour)
            if sc.rent_pricing == "committed" and not committed:
                rent_note = "no committed cloud price is published: renting uses on-demand"
            figs["cloud_price_per_card_hour"] = (fig, fx, fx_note)
        info = CandidateInfo(
            id=c.id, name=c.name or card.name, card=card.id, card_name=card.name,
            vendor=card.vendor, platform=platform.id, platform_name=platform.name,
            cooling=cooling.id, stack=stack.id, stack_name=stack.name, sizing="cards",
        )
        for key, (fig, scale, note) in figs.items():
            spec = CANDIDATE_INPUTS[key]
            if key in c.overrides:
                put(scenario_value(base + [key], c.overrides[key], spec))
            elif key == "cooling_capex_per_kw":
                put(Input(path=f"{p}.{key}", value=0.0, spec=spec, low=0.0, high=0.0,
                          source="colocation: the provider's cooling plant is in the "
                                 f"colocation price (catalog plant capex: {fig.best:g} USD/kW, "
                                 "set cooling_capex_per_kw to pay for your own)",
                          origin="default"))
            elif fig is None:
                prec = key.removeprefix("peak_tflops_")
                info.infeasible.append(f"{card.name} has no {prec.upper()} support")
                put(Input(path=f"{p}.{key}", value=0.0, spec=spec,
                          source=f"catalog: {card.id} has no {prec.upper()} support",
                          origin="catalog"))
            else:
                put(_fig_input(f"{p}.{key}", fig, spec, scale, note and f"{note}: "))
        for key in c.overrides:
            if key not in figs:
                why = ("no cloud price is published for this card" if
                       key == "cloud_price_per_card_hour" else "not used by this scenario")
                if key == "cloud_price_per_card_hour":
                    put(scenario_value(base + [key], c.overrides[key], CANDIDATE_INPUTS[key]))
                    continue
                raise loaded.error(f"'{key}' is {why}", base + [key])
        if f"{p}.cloud_price_per_card_hour" in inputs:
            rent.append(c.id)
        # cluster size: given, or sized later by the engine for a deadline or power cap
        if c.cards is not None:
            put(scenario_value(base + ["cards"], c.cards, CANDIDATE_INPUTS["cards"]))
        else:
            kind = "deadline_days" if c.deadline_days is not None else "power_cap_kw"
            value = float(getattr(c, kind))
            if not (math.isfinite(value) and value > 0):
                raise loaded.error(f"expected a positive number, found {value!r}", base + [kind])
            put(scenario_value(base + [kind], value, TARGET_INPUTS[kind]))
            info.sizing = kind
            put(Input(path=f"{p}.cards", value=float(inputs[f"{p}.cards_per_node"].value),
                      spec=CANDIDATE_INPUTS["cards"], source=f"to be sized for {kind}",
                      origin="derived"))
        # risk flags (short; the catalog record holds the evidence)
        if sc.facility.region in card.export_restricted_regions:
            info.blocking.append(
                f"export control: {card.name} is restricted for region "
                f"'{sc.facility.region}' (see `tco catalog show {card.id}`)")
        if "gaming_license" in card.flags:
            info.blocking.append(
                "licence: the GeForce driver licence does not permit data-centre deployment")
        info.flags.extend(info.blocking)
        if stack.id != "cuda" or "immature_stack" in card.flags:
            info.flags.append(
                f"software: {stack.name} is not CUDA; porting effort and an efficiency "
                f"penalty are priced in (see `tco catalog show {stack.id}`)")
        if "single_vendor_supply" in card.flags:
            info.flags.append(f"supply: single vendor ({card.vendor}), constrained supply")
        if c.notes:
            info.notes.append(c.notes)
        if rent_note:
            info.notes.append(rent_note)
        infos[c.id] = info

    for path in sc.distributions:
        if path not in inputs:
            raise loaded.error(
                f"no input '{path}'{did_you_mean(path, inputs)}", ["distributions", path])
        spec = inputs[path].spec
        if spec.structural or spec.integer:  # Monte Carlo would silently leave it at its value
            why = ("it sets the shape of the model (how many years are computed)"
                   if spec.structural else "it is a whole number")
            raise loaded.error(
                f"Monte Carlo cannot draw {path}: {why}; remove this distribution and compare "
                f"values with `tco whatif --set {path}=...` instead", ["distributions", path])

    priced = [cid for cid, info in infos.items() if not info.infeasible]
    structure = Structure(
        currency=sc.currency, horizon_years=fin.horizon_years, workloads=tuple(workloads),
        candidates=tuple(priced), stacks=tuple(infos[cid].stack for cid in priced),
        sizing=tuple(infos[cid].sizing for cid in priced),
        barred=tuple(cid for cid in priced if infos[cid].blocking),
        rent=tuple(cid for cid in rent if cid in priced),
    )
    return Resolved(structure=structure, inputs=inputs, candidates=infos, file=loaded.file,
                    scenario_data=sc.model_dump(mode="json"), catalog_digest=catalog.digest(),
                    usd_to_currency=fx, scenario=sc)


__all__ = ["PRECISIONS", "CandidateInfo", "Loaded", "Resolved", "Scenario", "Structure",
           "load_scenario", "resolve"]
