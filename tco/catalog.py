"""The catalog: accelerator specs, prices, platforms, facilities, stacks, cloud rates, assumptions.

Loaded from the YAML files in pricing/ (shipped) and layered with the user's quote files
(`--catalog FILE`, YAML, CSV or xlsx; later files win). Every numeric figure is a `Figure`
with a source and an as-of date; uncertain ones carry a low/typical/high range.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import io
import json
import math
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import CatalogError, UnknownId, did_you_mean
from .inputs import (
    API_INPUTS,
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    FACILITY_INPUTS,
    LEASE_FIGURES,
    LEASE_INPUTS,
    MONEY_DEFAULTS,
    SERVE_ASSUMPTIONS,
    InputSpec,
)
from .resources import pricing_dir
from .yamlio import YamlDoc, check_readable, load_yaml, read_text

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
# Formats only a serving workload may use (weights quantized after training).
SERVING_PRECISIONS = ("int8", "fp4")
STACK_IDS = ("cuda", "rocm", "synapseai", "cann")
CATALOG_FILES = (
    "accelerators.yaml",
    "prices.yaml",
    "platforms.yaml",
    "facilities.yaml",
    "stacks.yaml",
    "cloud.yaml",
    "api.yaml",
    "assumptions.yaml",
)


_DATE = re.compile(r"^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?$")


def as_of_text(v: Any) -> str:
    """An as-of date as text: a year, year-month or full date that exists on the calendar
    (2025, 2025-07, 2025-07-16). A date or datetime value (a spreadsheet date cell) is its
    ISO date."""
    if isinstance(v, dt.datetime):
        return v.date().isoformat()
    if isinstance(v, dt.date):
        return v.isoformat()
    text = "" if v is None else str(v).strip()
    expected = "expected a date such as 2025-07 or 2025-07-16"
    found = _DATE.match(text)
    if not found:
        raise ValueError(f"found {text!r}; {expected}")
    year, month, day = (int(x) if x else 1 for x in found.groups())
    try:
        dt.date(year, month, day)
    except ValueError as exc:  # month 13, February 30, year 0
        raise ValueError(f"found {text!r}, which is not a date ({exc}); {expected}") from None
    return text


class Figure(BaseModel):
    """One sourced number: a point value or a low/typical/high range."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: float | None = None
    low: float | None = None
    typical: float | None = None
    high: float | None = None
    source: str = Field(min_length=3)
    as_of: str
    confidence: Literal["H", "M", "L", "H/M", "M/L"] | None = None
    note: str | None = None
    unit: str | None = None

    @field_validator("as_of", mode="before")
    @classmethod
    def _date_text(cls, v: Any) -> str:
        return as_of_text(v)

    @model_validator(mode="after")
    def _shape(self) -> Figure:
        nums = [x for x in (self.value, self.low, self.typical, self.high) if x is not None]
        bad = [x for x in nums if not math.isfinite(x)]
        if bad:
            raise ValueError(f"found {bad[0]}; expected a finite number")
        if self.value is None:
            if None in (self.low, self.typical, self.high):
                raise ValueError("give either value, or all of low, typical and high")
            if not (self.low <= self.typical <= self.high):  # type: ignore[operator]
                raise ValueError(
                    f"expected low <= typical <= high, got {self.low}, {self.typical}, {self.high}"
                )
        elif any(x is not None for x in (self.low, self.typical, self.high)):
            raise ValueError("give either value, or low/typical/high, not both")
        return self

    @property
    def best(self) -> float:
        """The point estimate: value, or the typical of a range."""
        return float(self.value if self.value is not None else self.typical)  # type: ignore[arg-type]

    @property
    def range(self) -> tuple[float, float]:
        if self.value is not None:
            return (self.value, self.value)
        return (float(self.low), float(self.high))  # type: ignore[arg-type]


_R = TypeVar("_R")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Accelerator(_Record):
    id: str
    name: str
    vendor: str
    stack: Literal["cuda", "rocm", "synapseai", "cann"]
    form_factor: str
    pcie_gen: int
    scaleup_interconnect: str
    default_platform: str
    flags: list[Literal["gaming_license", "single_vendor_supply", "immature_stack"]] = []
    export_restricted_regions: list[str] = []
    export_note: str | None = None
    license_note: str | None = None
    notes: str | None = None
    peak_tflops_fp64: Figure | None = None
    peak_tflops_fp32: Figure | None = None
    peak_tflops_tf32: Figure | None = None
    peak_tflops_bf16: Figure | None = None
    peak_tflops_fp16: Figure | None = None
    peak_tflops_fp8: Figure | None = None
    peak_tflops_int8: Figure | None = None  # dense TOPS
    peak_tflops_fp4: Figure | None = None
    memory_gb: Figure
    memory_bandwidth_gb_per_s: Figure
    scaleup_bandwidth_bidir_gb_per_s: Figure
    scaleup_domain_cards: Figure
    tdp_w: Figure
    mfu: Figure
    mfu_fp8: Figure | None = None
    # vendor-tuned: the figure is what the vendor's (or model owner's) tuned stack measured, so
    # a team new to the stack reaches less (the stack's factor, by familiarity); as-deployed:
    # the figure already includes a new team's shortfall, and no factor applies on top.
    mfu_basis: Literal["vendor-tuned", "as-deployed"] = "vendor-tuned"
    # interruptions per card-hour measured on this card class; absent: the assumption
    # (assumptions.card_failure_rate_per_hour) serves it
    failure_rate_per_card_hour: Figure | None = None

    def peak(self, precision: str) -> Figure | None:
        return getattr(self, f"peak_tflops_{precision}")


class CardPrice(_Record):
    id: str
    price_usd: Figure
    lead_time_weeks: Figure


class Platform(_Record):
    id: str
    name: str
    cards: list[str]
    default_cooling: Literal["air", "liquid"]
    cards_per_node: Figure
    node_price_usd: Figure
    node_power_w: Figure
    scaleout_bandwidth_gb_per_s: Figure
    network_cost_per_card_usd: Figure
    notes: str | None = None


class Cooling(_Record):
    id: str
    name: str
    pue: Figure
    capex_per_kw_usd: Figure
    notes: str | None = None


class Region(_Record):
    id: str
    name: str
    place: str = ""  # the place by name, as sentences say it: "China", "the United States"
    place_zh: str = ""  # the same in Chinese: "中国"
    currency: Literal["USD", "CNY", "EUR"]
    electricity_price_per_kwh: Figure
    colocation_price_per_kw_month: Figure
    carbon_kg_per_kwh: Figure
    notes: str | None = None


class Stack(_Record):
    id: str
    name: str
    maturity: str
    efficiency_vs_cuda: Figure
    porting_engineer_months_simple: Figure
    porting_engineer_months_moderate: Figure
    porting_engineer_months_complex: Figure
    maintenance_engineer_months_per_year: Figure
    licence_per_card_year_usd: Figure


class CloudPrice(_Record):
    card: str
    on_demand_usd_per_card_hour: Figure
    committed_usd_per_card_hour: Figure | None = None  # 1-year
    committed_3yr_usd_per_card_hour: Figure | None = None
    spot_usd_per_card_hour: Figure | None = None  # interruptible; see spot_overhead_fraction
    notes: str | None = None


class ApiPrice(_Record):
    """A per-token API's price for one open model (pricing/api.yaml): USD per million prompt
    and output tokens."""

    id: str
    provider: str
    model: str
    params: float | None = None  # the model's parameters, as the provider names it
    input_usd_per_million_tokens: Figure
    output_usd_per_million_tokens: Figure
    notes: str | None = None


class Catalog(_Record):
    """Every record, keyed by id. Built by `load_catalog`."""

    accelerators: dict[str, Accelerator]
    card_prices: dict[str, CardPrice]
    platforms: dict[str, Platform]
    cooling: dict[str, Cooling]
    regions: dict[str, Region]
    exchange_rates: dict[str, Figure]
    stacks: dict[str, Stack]
    cloud_prices: dict[str, CloudPrice]
    assumptions: dict[str, Figure]
    api_prices: dict[str, ApiPrice] = {}
    sources: list[str] = []

    def card(self, card_id: str) -> Accelerator:
        return _lookup(self.accelerators, card_id, "card")

    def platform(self, platform_id: str) -> Platform:
        return _lookup(self.platforms, platform_id, "platform")

    def stack(self, stack_id: str) -> Stack:
        return _lookup(self.stacks, stack_id, "stack")

    def region(self, region_id: str) -> Region:
        return _lookup(self.regions, region_id, "region")

    def cooling_option(self, cooling_id: str) -> Cooling:
        return _lookup(self.cooling, cooling_id, "cooling")

    def usd_to(self, currency: str) -> float:
        """Units of `currency` per US dollar."""
        if currency == "USD":
            return 1.0
        try:
            return self.exchange_rates[currency].best
        except KeyError:
            raise UnknownId(
                f"no exchange rate for '{currency}'"
                f"{did_you_mean(currency, list(self.exchange_rates) + ['USD'])}"
            ) from None

    def assumption(self, key: str) -> Figure:
        return self.assumptions[key]

    def digest(self) -> str:
        """A short hash of every figure, so a report says exactly which catalog it used."""
        blob = json.dumps(self.model_dump(mode="json", exclude={"sources"}), sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:12]


# --- plausibility: the same ranges as the inputs they feed (tco/inputs.py) ----------------

_C = CANDIDATE_INPUTS
_FIGURE_SPECS: dict[tuple[str, str], InputSpec] = {
    **{("accelerators", f"peak_tflops_{p}"): _C[f"peak_tflops_{p}"] for p in PRECISIONS},
    **{("accelerators", k): _C[k] for k in ("memory_gb", "scaleup_bandwidth_bidir_gb_per_s",
                                             "scaleup_domain_cards", "tdp_w", "mfu",
                                             "mfu_fp8")},
    ("accelerators", "memory_bandwidth_gb_per_s"): _C["memory_bandwidth_gb_per_s"],
    ("card_prices", "price_usd"): _C["card_price"],
    ("card_prices", "lead_time_weeks"): _C["lead_time_weeks"],
    ("platforms", "cards_per_node"): _C["cards_per_node"],
    ("platforms", "node_price_usd"): _C["node_price"],
    ("platforms", "node_power_w"): _C["node_power_w"],
    ("platforms", "scaleout_bandwidth_gb_per_s"): _C["scaleout_bandwidth_gb_per_s"],
    ("platforms", "network_cost_per_card_usd"): _C["network_cost_per_card"],
    ("cooling", "pue"): _C["pue"],
    ("cooling", "capex_per_kw_usd"): _C["cooling_capex_per_kw"],
    **{("regions", k): spec for k, spec in FACILITY_INPUTS.items()},
    ("stacks", "efficiency_vs_cuda"): _C["stack_efficiency"],
    **{("stacks", f"porting_engineer_months_{c}"): _C["porting_engineer_months"]
       for c in ("simple", "moderate", "complex")},
    ("stacks", "maintenance_engineer_months_per_year"): _C["maintenance_engineer_months_per_year"],
    ("stacks", "licence_per_card_year_usd"): _C["licence_per_card_year"],
    ("cloud_prices", "on_demand_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "committed_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "committed_3yr_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "spot_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("api_prices", "input_usd_per_million_tokens"): API_INPUTS["input_price_per_million_tokens"],
    ("api_prices", "output_usd_per_million_tokens"):
        API_INPUTS["output_price_per_million_tokens"],
    **{("assumptions", k): spec for k, spec in ASSUMPTION_INPUTS.items()},
    **{("assumptions", k): spec for k, spec in MONEY_DEFAULTS.items()},
    **{("assumptions", k): spec for k, spec in SERVE_ASSUMPTIONS.items()},
    **{("assumptions", k): LEASE_INPUTS[k] for k in LEASE_FIGURES},
}
_EXCHANGE_SPEC = InputSpec("exchange_rate", "per USD", "Units of the currency per US dollar",
                           1e-3, 1e5, "units of the currency for one US dollar, e.g. 7.2 CNY")


class _Where:
    """The file and line that gave a catalog record or field, for error messages."""

    def __init__(self, docs: dict[str, YamlDoc], origin: dict[tuple[str, ...], str]) -> None:
        self.docs = docs
        self.origin = origin

    def __call__(self, section: str, ident: str, *rest: str) -> dict[str, Any]:
        file = (self.origin.get((section, ident, rest[0])) if rest else None) or \
            self.origin.get((section, ident)) or "catalog"
        doc = self.docs.get(file)
        line = doc.line_of([section, ident, *rest]) if doc else None
        return {"file": file, "line": line}


def _check_plausible(cat: Catalog, where: _Where) -> None:
    """Every figure inside the plausible range of the input it feeds (catches wrong units)."""
    checks: list[tuple[str, str, str, Figure, InputSpec, str, float]] = []
    for key, fig in cat.exchange_rates.items():
        checks.append(("exchange_rates", key, "", fig, _EXCHANGE_SPEC, f"{key} per USD", 1.0))
    for section, ident, field, fig in iter_figures(cat):
        spec = _FIGURE_SPECS.get((section, field))
        if spec is None or section == "exchange_rates":
            continue
        currency = cat.regions[ident].currency if section == "regions" else "USD"
        fx = cat.usd_to(currency) if spec.money else 1.0
        unit = spec.unit.replace("money", currency)
        if section in _MAP_SECTIONS:
            ident, field = field, ""
        checks.append((section, ident, field, fig, spec, unit, fx))
    for section, ident, field, fig, spec, unit, fx in checks:
        lo, hi = spec.lo * fx, spec.hi * fx
        for part in ("value", "low", "typical", "high"):
            v = getattr(fig, part)
            if v is not None and not lo <= v <= hi:
                path = [x for x in (field, part) if x]
                raise CatalogError(spec.out_of_range(v, lo, hi, unit),
                                   field=".".join([section, ident, *path]),
                                   **where(section, ident, *path))


def _check_keys(raw: dict[str, dict[str, Any]], where: _Where) -> None:
    """Mapping sections take known keys only: an unknown one is a typo, not a new figure."""
    currencies = [c for c in get_args(Region.model_fields["currency"].annotation) if c != "USD"]
    for section, known in (("assumptions", [*ASSUMPTION_INPUTS, *MONEY_DEFAULTS, *SERVE_ASSUMPTIONS,
                                           *LEASE_FIGURES]),
                           ("exchange_rates", currencies)):
        for key in raw.get(section, {}):
            if key not in known:
                raise CatalogError(f"unknown key '{key}'{did_you_mean(key, known)}",
                                   field=f"{section}.{key}", **where(section, key))


def _lookup(records: dict[str, _R], ident: str, kind: str) -> _R:
    """The record with this id, or UnknownId with the closest ids."""
    try:
        return records[ident]
    except KeyError:
        raise UnknownId(f"unknown {kind} '{ident}'{did_you_mean(ident, records)}") from None


# --- loading --------------------------------------------------------------------------------

_LIST_SECTIONS = {
    "accelerators": ("id", Accelerator),
    "card_prices": ("id", CardPrice),
    "platforms": ("id", Platform),
    "cooling": ("id", Cooling),
    "regions": ("id", Region),
    "stacks": ("id", Stack),
    "cloud_prices": ("card", CloudPrice),
    "api_prices": ("id", ApiPrice),
}
_MAP_SECTIONS = ("exchange_rates", "assumptions")


def _merge_raw(raw: dict[str, dict[str, dict[str, Any]]], doc: YamlDoc, partial: bool) -> None:
    data = doc.data
    if data is None:
        return
    if not isinstance(data, dict):
        raise CatalogError("expected a mapping of catalog sections at the top", file=doc.file)
    known = list(_LIST_SECTIONS) + list(_MAP_SECTIONS)
    for section, body in data.items():
        if section not in known:
            raise CatalogError(
                f"unknown section '{section}'{did_you_mean(str(section), known)}; "
                f"expected one of {', '.join(known)}",
                file=doc.file, line=doc.line_of([section]),
            )
        target = raw.setdefault(section, {})
        if section in _MAP_SECTIONS:
            if not isinstance(body, dict):
                raise CatalogError("expected a mapping", file=doc.file, field=section,
                                   line=doc.line_of([section]))
            for key, fig in body.items():
                target[str(key)] = fig
            continue
        key_field = _LIST_SECTIONS[section][0]
        if not isinstance(body, list):
            raise CatalogError("expected a list of records", file=doc.file, field=section,
                               line=doc.line_of([section]))
        given: dict[tuple[str, str], int] = {}  # (id, field) -> record index, in this file
        for i, rec in enumerate(body):
            if not isinstance(rec, dict) or key_field not in rec:
                raise CatalogError(f"each record needs '{key_field}'", file=doc.file,
                                   field=f"{section}[{i}]", line=doc.line_of([section, str(i)]))
            ident = str(rec[key_field])
            if ident in target and not partial:
                raise CatalogError(f"duplicate {key_field} '{ident}'", file=doc.file,
                                   field=section, line=doc.line_of([section, ident]))
            for field in rec:
                if field == key_field:
                    continue
                if (ident, str(field)) in given:
                    first = doc.line_of([section, str(given[(ident, str(field))])])
                    raise CatalogError(
                        f"a second record for {key_field} '{ident}' gives {field} again (the "
                        f"first is at line {first}); keep one",
                        file=doc.file, field=f"{section}.{ident}.{field}",
                        line=doc.line_of([section, str(i)]))
                given[(ident, str(field))] = i
            merged = dict(target.get(ident, {}))
            merged.update(rec)
            target[ident] = merged


def _validate(raw: dict[str, dict[str, dict[str, Any]]], docs: dict[str, YamlDoc],
              origin: dict[tuple[str, ...], str]) -> Catalog:
    where = _Where(docs, origin)
    _check_keys(raw, where)
    built: dict[str, Any] = {}
    for section, (_key, model) in _LIST_SECTIONS.items():
        built[section] = {}
        for ident, rec in raw.get(section, {}).items():
            try:
                built[section][ident] = model.model_validate(rec)
            except ValidationError as exc:
                err = _first_error(exc)
                loc = [str(x) for x in err["loc"]]
                raise CatalogError(_pydantic_message(err, loc, model),
                                   field=".".join([section, ident, *loc]),
                                   **where(section, ident, *loc)) from None
    for section in _MAP_SECTIONS:
        built[section] = {}
        for key, fig in raw.get(section, {}).items():
            try:
                built[section][key] = Figure.model_validate(fig)
            except ValidationError as exc:
                err = _first_error(exc)
                loc = [str(x) for x in err["loc"]]
                raise CatalogError(_pydantic_message(err, loc, Figure),
                                   field=".".join([section, key, *loc]),
                                   **where(section, key, *loc)) from None
    catalog = Catalog(**built, sources=list(docs))
    _check_references(catalog, where)
    _check_plausible(catalog, where)
    return catalog


def _first_error(exc: ValidationError) -> Any:
    # A typo also causes a 'missing' error for the intended field: report the typo.
    errors = exc.errors()
    return next((e for e in errors if e.get("type") == "extra_forbidden"), errors[0])


def _pydantic_message(err: Any, loc: list[str], model: type[BaseModel]) -> str:
    kind = err.get("type", "")
    found = err.get("input")
    if kind == "extra_forbidden":
        for part in loc[:-1]:  # the model that owns the unknown key
            ann = getattr(model, "model_fields", {}).get(part)
            args = getattr(ann.annotation, "__args__", ()) if ann else ()
            model = next((a for a in (getattr(ann, "annotation", None), *args)
                          if isinstance(a, type) and issubclass(a, BaseModel)), BaseModel)
        return f"unknown field '{loc[-1]}'{did_you_mean(loc[-1], model.model_fields)}"
    if kind == "missing":
        return "required field is missing"
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if kind.startswith(("float", "int")):
        return f"expected a number, found {found!r}"
    if kind == "string_too_short" and loc and loc[-1] == "source":
        return f"found {found!r}; expected a source: who said so, where (a URL) and when"
    if msg.startswith("Input should be"):
        shown = "a mapping" if isinstance(found, dict) else "a list" if isinstance(
            found, list) else repr(found)
        return f"found {shown}; " + msg.replace("Input should be", "expected", 1)
    return msg


def _check_references(cat: Catalog, where: _Where) -> None:
    def fail(message: str, section: str, ident: str, *field: str) -> CatalogError:
        return CatalogError(message, field=".".join([section, ident, *field]),
                            **where(section, ident, *field))

    for card in cat.accelerators.values():
        if card.id not in cat.card_prices:
            raise fail(f"card '{card.id}' has no price record in card_prices",
                       "accelerators", card.id)
        plat = cat.platforms.get(card.default_platform)
        if plat is None:
            raise fail(f"platform '{card.default_platform}' does not exist"
                       f"{did_you_mean(card.default_platform, cat.platforms)}",
                       "accelerators", card.id, "default_platform")
        if card.stack not in cat.stacks:
            raise fail(f"unknown stack '{card.stack}'{did_you_mean(card.stack, cat.stacks)}",
                       "accelerators", card.id, "stack")
    for plat in cat.platforms.values():
        for cid in plat.cards:
            if cid not in cat.accelerators:
                raise fail(f"unknown card '{cid}'{did_you_mean(cid, cat.accelerators)}",
                           "platforms", plat.id, "cards")
        if plat.default_cooling not in cat.cooling:
            raise fail(f"unknown cooling '{plat.default_cooling}'"
                       f"{did_you_mean(plat.default_cooling, cat.cooling)}",
                       "platforms", plat.id, "default_cooling")
    for section, records in (("card_prices", cat.card_prices), ("cloud_prices", cat.cloud_prices)):
        for cid in records:
            if cid not in cat.accelerators:
                raise fail(f"price for unknown card '{cid}'{did_you_mean(cid, cat.accelerators)}",
                           section, cid)


# --- quote files: YAML, or a sheet of rows (id, field, value, source, as_of) -----------------

_SHEET_COLUMNS = ("id", "field", "value", "source", "as_of")
_SHEET_OPTIONAL = ("low", "high", "note", "currency")
# A money figure is kept in USD (`..._usd`); a quote may give it in another currency, by a
# `currency` column or by naming the field with the currency (`price_cny` for `price_usd`).
_QUOTE_CURRENCIES = ("USD", "CNY", "EUR")

Row = tuple[int, dict[str, str]]  # (line or sheet row number, cells by column name)


def _rows_from_csv(text: str, file: str) -> tuple[list[str], list[Row]]:
    """The header and the rows (by the line each starts on) of a CSV quote file.

    The csv module refuses a cell longer than its field limit (131,072 characters unless
    changed: a process-wide setting left alone here). No cell of a quote comes near it (an id,
    a field name, numbers, a date, a source, a note): a longer one, usually the rest of the file
    after an unclosed quote, is reported with the row it starts on. A row with fewer cells than
    the header is an error too (a lost comma shifts every cell after it)."""
    reader = csv.reader(io.StringIO(text))
    header: list[str] | None = None
    rows: list[Row] = []
    while True:
        start = reader.line_num + 1  # a quoted cell may span lines: name the row's first
        try:
            cells = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            if "field larger than field limit" in str(exc):
                raise CatalogError(f"a cell is longer than {csv.field_size_limit():,} "
                                   "characters (the limit); is a quote character (\") left "
                                   "unclosed?", file=file, line=start) from None
            if "new-line character seen in unquoted field" in str(exc):
                raise CatalogError("a line break (carriage return) inside a cell that is not "
                                   "quoted; put the cell in double quotes, or save the file "
                                   "with ordinary line ends", file=file, line=start) from None
            raise CatalogError(f"malformed CSV: {exc}", file=file, line=start) from None
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            header = [c.strip().lower() for c in cells]
            continue
        if len(cells) < len(header):
            missing = [h for h in header[len(cells):] if h]
            raise CatalogError(
                f"the row has {len(cells)} cell(s) but the header has {len(header)}: no "
                f"{', '.join(missing) or 'cell'} (a missing comma? leave a cell empty, not out)",
                file=file, line=start)
        rows.append((start, _cells(header, cells)))
    return header or [], rows


def _rows_from_xlsx(path: Path) -> tuple[list[str], list[Row]]:
    from openpyxl import load_workbook  # only needed for xlsx quotes

    try:
        wb = load_workbook(path, read_only=True, data_only=True)
        ws = wb.worksheets[0]
        table = [[_xlsx_text(c.value, getattr(c, "number_format", None)) for c in r]
                 for r in ws.iter_rows()]
        wb.close()
    except Exception as exc:  # noqa: BLE001  (openpyxl raises many kinds for a damaged file)
        raise CatalogError(f"cannot read as xlsx: {exc}", file=str(path)) from None
    header: list[str] | None = None
    rows: list[Row] = []
    for n, cells in enumerate(table, start=1):
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            header = [c.strip().lower() for c in cells]
            continue
        cells += [""] * (len(header) - len(cells))  # a sheet has no short rows: blank cells
        rows.append((n, _cells(header, cells)))
    return header or [], rows


def _xlsx_text(value: Any, number_format: str | None) -> str:
    """A cell as the text a CSV would hold. A date cell (a spreadsheet stores dates as
    numbers shown through a date format) is its ISO date, as precise as its format shows:
    2025-07-16, or 2025-07 for a format without the day (`mmm yyyy`), or 2025 for a year."""
    if value is None:
        return ""
    if isinstance(value, dt.datetime | dt.date):
        day = value.date() if isinstance(value, dt.datetime) else value
        shown = re.sub(r'"[^"]*"|\[[^]]*]|\\.', "", (number_format or "").lower())
        if "d" in shown or "m" not in shown and "y" not in shown:
            return day.isoformat()
        return f"{day.year:04d}-{day.month:02d}" if "m" in shown else f"{day.year:04d}"
    return str(value)


def _cells(header: list[str], cells: list[str]) -> dict[str, str]:
    out = {h: (c or "").strip() for h, c in zip(header, cells)}
    extra = [c for c in cells[len(header):] if c.strip()]
    if extra:
        out[""] = extra[0]  # a cell beyond the last named column
    return out


def _figure_fields(model: type[BaseModel]) -> list[str]:
    return [name for name, f in model.model_fields.items()
            if Figure in (f.annotation, *getattr(f.annotation, "__args__", ()))]


def _check_header(header: list[str], file: str) -> None:
    expected = (f"expected columns {', '.join(_SHEET_COLUMNS)} "
                f"(optional: {', '.join(_SHEET_OPTIONAL)})")
    if not header:
        raise CatalogError(f"empty quote file; {expected}", file=file)
    missing = [c for c in _SHEET_COLUMNS if c not in header]
    if missing:
        raise CatalogError(f"missing column(s) {', '.join(missing)}; {expected}", file=file,
                           line=1)
    allowed = _SHEET_COLUMNS + _SHEET_OPTIONAL
    for col in header:
        if col and col not in allowed:
            hint = did_you_mean(col, allowed, list_up_to=0)
            raise CatalogError(f"unknown column '{col}'{hint}; {expected}", file=file, line=1)


def _sheet_to_raw(header: list[str], rows: list[Row], file: str,
                  cat_raw: dict[str, dict[str, Any]]) -> YamlDoc:
    """Turn quote rows into a partial catalog document. The id and field say where it goes;
    each path's line is the row it came from."""
    _check_header(header, file)
    if not rows:
        raise CatalogError("no quote rows below the header", file=file, line=1)
    out: dict[str, Any] = {}
    lines: dict[tuple[str, ...], int] = {}
    first_row: dict[tuple[str, str], int] = {}
    for n, row in rows:
        ident, field = row["id"], row["field"]
        if row.get(""):
            raise CatalogError(f"cell '{row['']}' is beyond the named columns", file=file,
                               line=n)
        field, currency = _quote_currency(row, field, file, n, ident)
        if (ident, field) in first_row:
            raise CatalogError(
                f"a second row for this id and field (the first is row "
                f"{first_row[(ident, field)]}); keep one",
                file=file, line=n, field=f"{ident}.{field}")
        first_row[(ident, field)] = n
        section = _section_for(ident, field, cat_raw)
        if section is None:
            raise CatalogError(_no_record_message(ident, field, cat_raw), file=file, line=n,
                               field=f"{ident}.{field}")
        fig: dict[str, Any] = {"source": row["source"], "as_of": row["as_of"]}
        cells = [("value", row["value"]), ("low", row.get("low")), ("high", row.get("high"))]
        nums: dict[str, float] = {}
        for col, text in cells:
            if text:
                try:
                    nums[col] = float(text)
                except ValueError:
                    raise CatalogError(f"{col} '{text}' is not a number", file=file, line=n,
                                       field=f"{ident}.{field}") from None
        if "value" not in nums:
            raise CatalogError("value is empty; expected a number", file=file, line=n,
                               field=f"{ident}.{field}")
        if currency != "USD":  # converted once, here, at the catalog's own rate
            rate = _rate(cat_raw, currency, file, n)
            fig["source"] = (f"{row['source']} (quoted {nums['value']:,.10g} {currency}; "
                             f"at {rate:g} {currency}/USD)")
            nums = {k: v / rate for k, v in nums.items()}
        if "low" in nums or "high" in nums:
            fig.update(low=nums.get("low", nums["value"]), typical=nums["value"],
                       high=nums.get("high", nums["value"]))
        else:
            fig["value"] = nums["value"]
        if row.get("note"):
            fig["note"] = row["note"]
        if section in _MAP_SECTIONS:
            out.setdefault(section, {})[field] = fig
            lines[(section, field)] = n
        else:
            key_field = _LIST_SECTIONS[section][0]
            recs = out.setdefault(section, [])
            rec = next((r for r in recs if r[key_field] == ident), None)
            if rec is None:
                rec = {key_field: ident}
                recs.append(rec)
                lines[(section, ident)] = n
            rec[field] = fig
            lines[(section, ident, field)] = n
    return YamlDoc(out, lines, file)


def _quote_currency(row: dict[str, str], field: str, file: str, n: int, ident: str
                    ) -> tuple[str, str]:
    """(the catalog field, the currency of the quoted numbers): `price_cny` is `price_usd`
    quoted in CNY; a `currency` column names it for a `..._usd` field."""
    given = (row.get("currency") or "").strip().upper()
    if given and given not in _QUOTE_CURRENCIES:
        raise CatalogError(f"currency '{row['currency']}' is not one of "
                           f"{', '.join(_QUOTE_CURRENCIES)}", file=file, line=n,
                           field=f"{ident}.{field}")
    base, _, suffix = field.rpartition("_")
    named = suffix.upper() if base and suffix.upper() in _QUOTE_CURRENCIES else ""
    if named and named != "USD":
        if given and given != named:
            raise CatalogError(f"the field says {named} but the currency column says {given}",
                               file=file, line=n, field=f"{ident}.{field}")
        return f"{base}_usd", named
    if given and given != "USD" and not field.endswith("_usd"):
        raise CatalogError(f"a currency applies to money figures (fields ending in _usd), not "
                           f"'{field}'", file=file, line=n, field=f"{ident}.{field}")
    return field, given or "USD"


def _rate(cat_raw: dict[str, dict[str, Any]], currency: str, file: str, n: int) -> float:
    fig = cat_raw.get("exchange_rates", {}).get(currency)
    if not isinstance(fig, dict):
        raise CatalogError(f"no exchange rate for {currency} in the catalog", file=file, line=n)
    return float(fig.get("value", fig.get("typical")))


def _section_for(ident: str, field: str, cat_raw: dict[str, dict[str, Any]]) -> str | None:
    if ident in _MAP_SECTIONS:
        return ident
    for section, (_key, model) in _LIST_SECTIONS.items():
        if ident in cat_raw.get(section, {}) and field in _figure_fields(model):
            return section
    return None


def _no_record_message(ident: str, field: str, cat_raw: dict[str, dict[str, Any]]) -> str:
    sections = [s for s in _LIST_SECTIONS if ident in cat_raw.get(s, {})]
    if sections:
        fields = [f for s in sections for f in _figure_fields(_LIST_SECTIONS[s][1])]
        return (f"'{ident}' has no figure '{field}'{did_you_mean(field, fields)}; a quote sets "
                "one sourced number (a price, a spec), not a name or a list")
    every = [i for s in _LIST_SECTIONS for i in cat_raw.get(s, {})] + list(_MAP_SECTIONS)
    return f"no catalog record '{ident}'{did_you_mean(ident, every)}"


def load_catalog(overlays: Sequence[Path | str] = (), base: Path | None = None) -> Catalog:
    """The shipped catalog, with each overlay (quote file) applied in order; later wins."""
    base = base or pricing_dir()
    raw: dict[str, dict[str, Any]] = {}
    docs: dict[str, YamlDoc] = {}
    origin: dict[tuple[str, ...], str] = {}  # (section, id[, field]) -> the file that set it

    def note_origin(doc_data: Any, file: str) -> None:
        if not isinstance(doc_data, dict):
            return
        for section, body in doc_data.items():
            if section in _MAP_SECTIONS and isinstance(body, dict):
                for key in body:
                    origin[(section, str(key))] = file
            elif section in _LIST_SECTIONS and isinstance(body, list):
                key_field = _LIST_SECTIONS[section][0]
                for rec in body:
                    if isinstance(rec, dict) and key_field in rec:
                        ident = str(rec[key_field])
                        origin.setdefault((section, ident), file)
                        for field in rec:
                            origin[(section, ident, str(field))] = file

    for name in CATALOG_FILES:
        path = base / name
        doc = load_yaml(path, CatalogError)
        docs[str(path)] = doc
        note_origin(doc.data, str(path))
        _merge_raw(raw, doc, partial=False)
    for overlay in overlays:
        path = Path(overlay)
        suffix = path.suffix.lower()
        if suffix in (".yaml", ".yml"):
            doc = load_yaml(path, CatalogError)
            if not doc.data:
                raise CatalogError("empty quote file; expected catalog sections such as "
                                   "card_prices", file=str(path))
        elif suffix == ".csv":
            doc = _sheet_to_raw(*_rows_from_csv(read_text(path, CatalogError), str(path)),
                                str(path), raw)
        elif suffix == ".xlsx":
            check_readable(path, CatalogError)
            doc = _sheet_to_raw(*_rows_from_xlsx(path), str(path), raw)
        else:
            raise CatalogError(
                f"unsupported quote file type '{suffix or '(none)'}'; expected .yaml, .csv or .xlsx",
                file=str(path),
            )
        docs[str(path)] = doc
        note_origin(doc.data, str(path))
        _merge_raw(raw, doc, partial=True)
    return _validate(raw, docs, origin)


def iter_figures(cat: Catalog) -> Iterable[tuple[str, str, str, Figure]]:
    """(section, id, field, figure) for every figure in the catalog."""
    for section in _LIST_SECTIONS:
        for ident, rec in getattr(cat, section).items():
            for field in type(rec).model_fields:
                value = getattr(rec, field)
                if isinstance(value, Figure):
                    yield section, ident, field, value
    for section in _MAP_SECTIONS:
        for key, fig in getattr(cat, section).items():
            yield section, section, key, fig
