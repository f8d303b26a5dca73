"""The catalog: accelerator specs, prices, platforms, facilities, stacks, cloud rates, assumptions.

Loaded from the YAML files in pricing/ (shipped) and layered with the user's quote files
(`--catalog FILE`, YAML, CSV or xlsx; later files win). Every numeric figure is a `Figure`
with a source and an as-of date; uncertain ones carry a low/typical/high range.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import CatalogError, UnknownId, did_you_mean
from .resources import pricing_dir
from .yamlio import YamlDoc, load_yaml, read_text

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8")
STACK_IDS = ("cuda", "rocm", "synapseai", "cann")
CATALOG_FILES = (
    "accelerators.yaml",
    "prices.yaml",
    "platforms.yaml",
    "facilities.yaml",
    "stacks.yaml",
    "cloud.yaml",
    "assumptions.yaml",
)


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
        return str(v)

    @model_validator(mode="after")
    def _shape(self) -> Figure:
        nums = [x for x in (self.value, self.low, self.typical, self.high) if x is not None]
        if any(not math.isfinite(x) for x in nums):
            raise ValueError("figures must be finite numbers")
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
    memory_gb: Figure
    memory_bandwidth_gb_per_s: Figure
    scaleup_bandwidth_bidir_gb_per_s: Figure
    scaleup_domain_cards: Figure
    tdp_w: Figure
    mfu: Figure

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
    committed_usd_per_card_hour: Figure | None = None
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
    sources: list[str] = []

    def card(self, card_id: str) -> Accelerator:
        try:
            return self.accelerators[card_id]
        except KeyError:
            raise UnknownId(
                f"unknown card '{card_id}'{did_you_mean(card_id, self.accelerators)}"
            ) from None

    def platform(self, platform_id: str) -> Platform:
        try:
            return self.platforms[platform_id]
        except KeyError:
            raise UnknownId(
                f"unknown platform '{platform_id}'{did_you_mean(platform_id, self.platforms)}"
            ) from None

    def stack(self, stack_id: str) -> Stack:
        try:
            return self.stacks[stack_id]
        except KeyError:
            raise UnknownId(
                f"unknown stack '{stack_id}'{did_you_mean(stack_id, self.stacks)}"
            ) from None

    def region(self, region_id: str) -> Region:
        try:
            return self.regions[region_id]
        except KeyError:
            raise UnknownId(
                f"unknown region '{region_id}'{did_you_mean(region_id, self.regions)}"
            ) from None

    def cooling_option(self, cooling_id: str) -> Cooling:
        try:
            return self.cooling[cooling_id]
        except KeyError:
            raise UnknownId(
                f"unknown cooling '{cooling_id}'{did_you_mean(cooling_id, self.cooling)}"
            ) from None

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


# --- loading --------------------------------------------------------------------------------

_LIST_SECTIONS = {
    "accelerators": ("id", Accelerator),
    "card_prices": ("id", CardPrice),
    "platforms": ("id", Platform),
    "cooling": ("id", Cooling),
    "regions": ("id", Region),
    "stacks": ("id", Stack),
    "cloud_prices": ("card", CloudPrice),
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
        for i, rec in enumerate(body):
            if not isinstance(rec, dict) or key_field not in rec:
                raise CatalogError(f"each record needs '{key_field}'", file=doc.file,
                                   field=f"{section}[{i}]", line=doc.line_of([section, str(i)]))
            ident = str(rec[key_field])
            if ident in target and not partial:
                raise CatalogError(f"duplicate {key_field} '{ident}'", file=doc.file,
                                   field=section, line=doc.line_of([section, ident]))
            merged = dict(target.get(ident, {}))
            merged.update(rec)
            target[ident] = merged


def _validate(raw: dict[str, dict[str, dict[str, Any]]], docs: dict[str, YamlDoc],
              origin: dict[tuple[str, str], str]) -> Catalog:
    built: dict[str, Any] = {}
    for section, (_key, model) in _LIST_SECTIONS.items():
        built[section] = {}
        for ident, rec in raw.get(section, {}).items():
            try:
                built[section][ident] = model.model_validate(rec)
            except ValidationError as exc:
                err = exc.errors()[0]
                loc = [str(x) for x in err["loc"]]
                file = origin.get((section, ident), "catalog")
                doc = docs.get(file)
                line = doc.line_of([section, ident, *loc]) if doc else None
                raise CatalogError(
                    _pydantic_message(err), file=file,
                    field=".".join([section, ident, *loc]), line=line,
                ) from None
    for section in _MAP_SECTIONS:
        built[section] = {}
        for key, fig in raw.get(section, {}).items():
            try:
                built[section][key] = Figure.model_validate(fig)
            except ValidationError as exc:
                err = exc.errors()[0]
                file = origin.get((section, key), "catalog")
                doc = docs.get(file)
                loc = [str(x) for x in err["loc"]]
                raise CatalogError(
                    _pydantic_message(err), file=file, field=".".join([section, key, *loc]),
                    line=doc.line_of([section, key, *loc]) if doc else None,
                ) from None
    catalog = Catalog(**built, sources=list(docs))
    _check_references(catalog)
    return catalog


def _pydantic_message(err: dict[str, Any]) -> str:
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return "unknown field (typo?)"
    if kind == "missing":
        return "required field is missing"
    msg = str(err.get("msg", "invalid"))
    return msg.removeprefix("Value error, ")


def _check_references(cat: Catalog) -> None:
    for card in cat.accelerators.values():
        if card.id not in cat.card_prices:
            raise CatalogError(f"card '{card.id}' has no price record", field="card_prices")
        plat = cat.platforms.get(card.default_platform)
        if plat is None:
            raise CatalogError(
                f"card '{card.id}' names platform '{card.default_platform}', which does not exist"
                f"{did_you_mean(card.default_platform, cat.platforms)}",
                field=f"accelerators.{card.id}.default_platform",
            )
        if card.stack not in cat.stacks:
            raise CatalogError(f"card '{card.id}' names unknown stack '{card.stack}'",
                               field=f"accelerators.{card.id}.stack")
    for plat in cat.platforms.values():
        for cid in plat.cards:
            if cid not in cat.accelerators:
                raise CatalogError(
                    f"platform '{plat.id}' lists unknown card '{cid}'"
                    f"{did_you_mean(cid, cat.accelerators)}",
                    field=f"platforms.{plat.id}.cards",
                )
        if plat.default_cooling not in cat.cooling:
            raise CatalogError(f"platform '{plat.id}' names unknown cooling",
                               field=f"platforms.{plat.id}.default_cooling")
    for cid in cat.card_prices:
        if cid not in cat.accelerators:
            raise CatalogError(f"price for unknown card '{cid}'", field="card_prices")
    for cid in cat.cloud_prices:
        if cid not in cat.accelerators:
            raise CatalogError(f"cloud price for unknown card '{cid}'", field="cloud_prices")


# --- quote files: YAML, or a sheet of rows (id, field, value, source, as_of) -----------------

_SHEET_COLUMNS = ("id", "field", "value", "source", "as_of")


def _rows_from_csv(text: str) -> list[dict[str, str]]:
    return [
        {(k or "").strip().lower(): (v or "").strip() for k, v in row.items()}
        for row in csv.DictReader(io.StringIO(text))
    ]


def _rows_from_xlsx(path: Path) -> list[dict[str, str]]:
    from openpyxl import load_workbook  # only needed for xlsx quotes

    try:
        wb = load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many kinds for a damaged file
        raise CatalogError(f"cannot read as xlsx: {exc}", file=str(path)) from None
    ws = wb.worksheets[0]
    rows = list(ws.iter_rows(values_only=True))
    wb.close()
    if not rows:
        return []
    header = [str(h or "").strip().lower() for h in rows[0]]
    return [
        {h: ("" if v is None else str(v)).strip() for h, v in zip(header, r)} for r in rows[1:]
        if any(v is not None for v in r)
    ]


def _sheet_to_raw(rows: list[dict[str, str]], file: str, cat_raw: dict[str, dict[str, Any]]) -> dict[str, list[Any] | dict[str, Any]]:
    """Turn quote rows into a partial catalog document. The id and field say where it goes."""
    if rows:
        missing = [c for c in _SHEET_COLUMNS if c not in rows[0]]
        if missing:
            raise CatalogError(
                f"missing column(s) {', '.join(missing)}; expected columns "
                f"{', '.join(_SHEET_COLUMNS)} (optional: low, high, note)", file=file,
            )
    out: dict[str, Any] = {}
    for n, row in enumerate(rows, start=2):
        ident, field = row["id"], row["field"]
        where = f"row {n}"
        section = _section_for(ident, field, cat_raw)
        if section is None:
            every = [i for s in _LIST_SECTIONS for i in cat_raw.get(s, {})]
            every += list(_MAP_SECTIONS)
            raise CatalogError(
                f"no catalog record '{ident}' with a field '{field}'{did_you_mean(ident, every)}",
                file=file, field=where,
            )
        fig: dict[str, Any] = {"source": row["source"], "as_of": row["as_of"]}
        try:
            if row.get("low") or row.get("high"):
                fig.update(low=float(row.get("low") or row["value"]), typical=float(row["value"]),
                           high=float(row.get("high") or row["value"]))
            else:
                fig["value"] = float(row["value"])
        except ValueError:
            raise CatalogError(f"value '{row['value']}' is not a number", file=file,
                               field=f"{where} ({ident}.{field})") from None
        if row.get("note"):
            fig["note"] = row["note"]
        if section in _MAP_SECTIONS:
            out.setdefault(section, {})[field] = fig
        else:
            key_field = _LIST_SECTIONS[section][0]
            recs = out.setdefault(section, [])
            rec = next((r for r in recs if r[key_field] == ident), None)
            if rec is None:
                rec = {key_field: ident}
                recs.append(rec)
            rec[field] = fig
    return out


def _section_for(ident: str, field: str, cat_raw: dict[str, dict[str, Any]]) -> str | None:
    if ident in _MAP_SECTIONS:
        return ident
    for section, (_key, model) in _LIST_SECTIONS.items():
        if ident in cat_raw.get(section, {}) and field in model.model_fields:
            return section
    return None


def load_catalog(overlays: Sequence[Path | str] = (), base: Path | None = None) -> Catalog:
    """The shipped catalog, with each overlay (quote file) applied in order; later wins."""
    base = base or pricing_dir()
    raw: dict[str, dict[str, Any]] = {}
    docs: dict[str, YamlDoc] = {}
    origin: dict[tuple[str, str], str] = {}

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
                        origin[(section, str(rec[key_field]))] = file

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
        elif suffix == ".csv":
            rows = _rows_from_csv(read_text(path, CatalogError))
            doc = YamlDoc(_sheet_to_raw(rows, str(path), raw), {}, str(path))
        elif suffix == ".xlsx":
            if not path.exists():
                raise CatalogError("file not found", file=str(path))
            doc = YamlDoc(_sheet_to_raw(_rows_from_xlsx(path), str(path), raw), {}, str(path))
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
