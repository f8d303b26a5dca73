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
from typing import Any, ClassVar, Literal, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from .errors import CatalogError, UnknownId, did_you_mean, validation_words
from .inputs import (
    API_INPUTS,
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    FACILITY_INPUTS,
    FINANCE_INPUTS,
    LEASE_FIGURES,
    LEASE_INPUTS,
    MONEY_DEFAULTS,
    RUNNING_VAT_KEYS,
    SERVE_ASSUMPTIONS,
    SERVE_CANDIDATE_INPUTS,
    SERVE_DEFAULTS,
    SERVE_INPUTS,
    TAX_INPUTS,
    TOP_INPUTS,
    WORKLOAD_INPUTS,
    InputSpec,
)
from .numfields import Num, Whole, takes_text
from .numtext import number_from_text
from .resources import pricing_dir
from .text import check_texts, first_repeated, text_problem
from .yamlio import YamlDoc, load_yaml, read_bytes, read_text

PRECISIONS = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4")
# Formats only a serving workload may use (weights quantized after training).
SERVING_PRECISIONS = ("int8", "fp4")
STACK_IDS = ("cuda", "rocm", "synapseai", "cann", "dtk", "musa", "supa", "neuware")
CATALOG_FILES = (
    "accelerators.yaml",
    "prices.yaml",
    "platforms.yaml",
    "facilities.yaml",
    "stacks.yaml",
    "cloud.yaml",
    "api.yaml",
    "assumptions.yaml",
    "profiles.yaml",
    "tax.yaml",
    "resale.yaml",
    "price_paths.yaml",
)


# ASCII digits only, as the quote schema's pattern means them (Python's \d takes ２０２６ too)
_DATE = re.compile(r"^([0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2}))?)?$")


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

    value: Num | None = None
    low: Num | None = None
    typical: Num | None = None
    high: Num | None = None
    source: str = Field(min_length=3)
    as_of: str
    confidence: Literal["H", "M", "L", "H/M", "M/L"] | None = None
    note: str | None = None
    unit: str | None = None
    # The parts worked out from other figures rather than read from a source (say how in the
    # source or note): a derived committed rent is held to the owner's cost (pricing/cloud.yaml)
    derived: tuple[Literal["value", "low", "typical", "high"], ...] | None = None

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


class Missing(BaseModel):
    """A figure no public source gives: why, and as of when. The catalog says so rather than
    invent one (`price_usd: {missing: "no public price as of 2026-12; give your quote",
    as_of: 2026-12}`); a scenario gives its own quote for it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    missing: str = Field(min_length=3)
    as_of: str

    @field_validator("as_of", mode="before")
    @classmethod
    def _date_text(cls, v: Any) -> str:
        return as_of_text(v)


_R = TypeVar("_R")


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _MayBeMissing(_Record):
    """A record some of whose money figures may have no public value: such a figure is written
    `{missing: why, as_of: date}` in place of the figure, and kept in `missing` by field name
    (the field itself is then None)."""

    MAY_BE_MISSING: ClassVar[tuple[str, ...]] = ()
    missing: dict[str, Missing] = {}

    @model_validator(mode="before")
    @classmethod
    def _take_missing(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        out = dict(data)
        gone = dict(out.get("missing") or {})
        for field in cls.MAY_BE_MISSING:
            fig = out.get(field)
            if isinstance(fig, dict) and "missing" in fig:
                gone[field] = out.pop(field)
        if gone:
            out["missing"] = gone
        return out

    @model_validator(mode="after")
    def _one_of_each(self) -> _MayBeMissing:
        for field in self.MAY_BE_MISSING:
            given = getattr(self, field) is not None
            if given and field in self.missing:
                raise ValueError(f"{field}: give the figure or say it is missing, not both")
            if not given and field not in self.missing:
                raise ValueError(f"{field}: required field is missing (give the figure, or "
                                 "{missing: why no public figure exists, as_of: date})")
        unknown = [f for f in self.missing if f not in self.MAY_BE_MISSING]
        if unknown:
            raise ValueError(f"missing: '{unknown[0]}' is not a figure that may be missing "
                             f"(only {', '.join(self.MAY_BE_MISSING)})")
        return self


class Accelerator(_Record):
    id: str
    name: str
    vendor: str
    stack: Literal["cuda", "rocm", "synapseai", "cann", "dtk", "musa", "supa", "neuware"]
    form_factor: str
    pcie_gen: Whole = Field(ge=1, le=10)  # a generation: -1, 0 or 1e308 was shown as given
    scaleup_interconnect: str
    default_platform: str
    flags: list[Literal["gaming_license", "single_vendor_supply", "immature_stack"]] = []
    export_restricted_regions: list[str] = []
    # What an export control in those regions bars (export_note cites the rule): buying new
    # chips only (renting capacity already installed there is no export: the EAR controls the
    # export, reexport and in-country transfer of the item, not the sale of its compute), or
    # any use there (renting included)
    export_restriction: Literal["new_purchase", "any_use"] = "new_purchase"
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


class CardPrice(_MayBeMissing):
    MAY_BE_MISSING: ClassVar[tuple[str, ...]] = ("price_usd",)
    id: str
    price_usd: Figure | None = None
    lead_time_weeks: Figure


class Platform(_MayBeMissing):
    MAY_BE_MISSING: ClassVar[tuple[str, ...]] = ("node_price_usd", "network_cost_per_card_usd")
    id: str
    name: str
    cards: list[str]
    default_cooling: Literal["air", "liquid"]
    cards_per_node: Figure
    node_price_usd: Figure | None = None
    node_power_w: Figure
    scaleout_bandwidth_gb_per_s: Figure
    network_cost_per_card_usd: Figure | None = None
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
    # the wider region whose rules and offers also apply here (a Chinese hub is part of "cn":
    # its export controls and its regional cloud prices)
    part_of: str | None = None
    electricity_price_per_kwh: Figure
    colocation_price_per_kw_month: Figure
    carbon_kg_per_kwh: Figure
    # the highest PUE a new data centre here may be approved with (a policy cap, not a
    # measurement); data for the sites of a plan (a new build's PUE is held to it)
    pue_cap: Figure | None = None
    # VAT charged on running costs here (methodology §7, "VAT on running costs"): on the
    # electricity bill, on colocation (IDC) and on cloud rent; a region without them inherits
    # its wider region's (part_of), else none
    vat_rate_electricity: Figure | None = None
    vat_rate_colocation: Figure | None = None
    vat_rate_cloud: Figure | None = None
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
    # Serving with the stack's vendor-tuned engine (methodology §18); a stack without them
    # serves with SERVING_FALLBACK_STACK's.
    serving_bandwidth_efficiency: Figure | None = None
    serving_step_overhead_s: Figure | None = None
    serving_allreduce_latency_s: Figure | None = None
    serving_tail_latency_ratio: Figure | None = None
    serving_stock_efficiency: Figure | None = None


SERVING_STACK_FIGURES = ("serving_bandwidth_efficiency", "serving_step_overhead_s",
                         "serving_allreduce_latency_s", "serving_tail_latency_ratio",
                         "serving_stock_efficiency")
SERVING_FALLBACK_STACK = "rocm"  # the non-CUDA stack whose serving figures are fitted


class CloudPrice(_Record):
    card: str
    # A regional offer (section regional_cloud_prices): its own id, the region it rents in
    # (a scenario in that region rents the card at it instead of the card's general price)
    # and who sells it
    id: str | None = None
    region: str | None = None
    provider: str | None = None
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
    # the model's parameters, as the provider names it; held to a model's plausible range
    # (_NUMBER_SPECS: -1 and 1e308 were shown by catalog show as given)
    params: Num | None = None
    input_usd_per_million_tokens: Figure
    output_usd_per_million_tokens: Figure
    notes: str | None = None


class Profile(_Record):
    """A buyer profile (pricing/profiles.yaml): defaults a scenario takes with `profile: id`
    where it gives no value of its own (tco.profiles)."""

    id: str
    name: str
    notes: str | None = None
    discount_rate: Figure
    depreciation_years: Figure
    utilization: Figure
    support_fraction_per_year: Figure
    ops_engineers_per_1000_cards: Figure
    pue: Figure | None = None  # None: the candidate's cooling option's PUE
    colocation_price_per_kw_month_usd: Figure | None = None  # None: the region's colocation


class TaxTable(_Record):
    """A statutory depreciation table (pricing/tax.yaml): the share of an asset's cost
    deducted in each tax year of its service, the first year first."""

    id: str
    shares: tuple[Num, ...] = Field(min_length=1)
    source: str = Field(min_length=3)
    as_of: str
    notes: str | None = None

    @field_validator("as_of", mode="before")
    @classmethod
    def _date_text(cls, v: Any) -> str:
        return as_of_text(v)

    @model_validator(mode="after")
    def _whole(self) -> TaxTable:
        if any(x < 0 for x in self.shares) or abs(sum(self.shares) - 1) > 1e-9:
            raise ValueError(f"expected shares of at least 0 that add up to 1, found "
                             f"{list(self.shares)} (sum {sum(self.shares):g})")
        return self


class TaxRule(_Record):
    """A jurisdiction's income-tax terms for equipment acquired within dates (pricing/tax.yaml,
    methodology §20): the rate, the depreciation schedule with its life, the bonus share
    deducted in the first year and the unit value up to which equipment is deducted at once
    (in `currency`; none when absent)."""

    id: str
    jurisdiction: str
    name: str
    currency: str = "USD"
    acquired_from: str
    acquired_until: str | None = None
    rate: Figure
    depreciation: Literal["straight_line", "macrs_5", "one_time"]
    life_years: Figure
    bonus_fraction: Figure
    expensing_threshold_per_unit: Figure | None = None
    rd_extra_deduction_fraction: Figure | None = None  # the R&D super-deduction's extra share
    notes: str | None = None

    @field_validator("acquired_from", "acquired_until", mode="before")
    @classmethod
    def _date_text(cls, v: Any) -> str | None:
        return None if v is None else as_of_text(v)


class ResaleCurve(_Record):
    """A card class's used-market value (pricing/resale.yaml, methodology §6): haircut x
    retention^t of the new price at t years."""

    id: str
    name: str
    cards: tuple[str, ...]
    haircut_fraction: Figure
    retention_per_year: Figure
    notes: str | None = None


class PricePath(_Record):
    """How a card class's new price and rent move per year (pricing/price_paths.yaml,
    methodology §19): each a yearly change, -0.1 for 10 % cheaper a year."""

    id: str
    name: str
    cards: tuple[str, ...]
    card_price_change_per_year: Figure
    rent_change_per_year: Figure
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
    regional_cloud_prices: dict[str, CloudPrice] = {}
    profiles: dict[str, Profile] = {}
    tax_rules: dict[str, TaxRule] = {}
    tax_tables: dict[str, TaxTable] = {}
    resale_curves: dict[str, ResaleCurve] = {}
    price_paths: dict[str, PricePath] = {}
    sources: list[str] = []
    overlay_files: list[str] = []  # the quote files layered over it, in order, as given

    def overlays(self) -> tuple[str, ...]:
        """The quote files layered over the shipped catalog, in order, as they were given."""
        return tuple(self.overlay_files)

    def regions_of(self, region: str) -> tuple[str, ...]:
        """The region and the wider ones it is part of (cn-ningxia -> cn-ningxia, cn)."""
        out = [region]
        while (rec := self.regions.get(out[-1])) is not None and rec.part_of \
                and rec.part_of not in out:
            out.append(rec.part_of)
        return tuple(out)

    def export_restricted(self, card: Accelerator, region: str) -> bool:
        """Whether an export control restricts `card` in `region` (or a wider region it is
        part of)."""
        return any(r in card.export_restricted_regions for r in self.regions_of(region))

    def cloud_price(self, card_id: str, region: str | None = None) -> CloudPrice | None:
        """The price a scenario in `region` rents `card_id` at: the region's own offer (the
        first listed), else a wider region's, else the card's general cloud price (or None)."""
        for place in self.regions_of(region) if region is not None else ():
            for offer in self.regional_cloud_prices.values():
                if offer.card == card_id and offer.region == place:
                    return offer
        return self.cloud_prices.get(card_id)

    def resale_curve(self, card_id: str) -> ResaleCurve | None:
        """The used-market curve of `card_id`'s class, if the catalog has one."""
        return next((c for c in self.resale_curves.values() if card_id in c.cards), None)

    def price_path(self, card_id: str) -> PricePath | None:
        """How the new price and rent of `card_id`'s class move, if the catalog says."""
        return next((c for c in self.price_paths.values() if card_id in c.cards), None)

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
        blob = json.dumps(self.model_dump(mode="json", exclude={"sources", "overlay_files"}),
                          sort_keys=True)
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
    ("regions", "pue_cap"): _C["pue"],
    **{("regions", k): FINANCE_INPUTS[k] for k in RUNNING_VAT_KEYS},
    ("stacks", "efficiency_vs_cuda"): _C["stack_efficiency"],
    **{("stacks", f"porting_engineer_months_{c}"): _C["porting_engineer_months"]
       for c in ("simple", "moderate", "complex")},
    ("stacks", "maintenance_engineer_months_per_year"): _C["maintenance_engineer_months_per_year"],
    ("stacks", "licence_per_card_year_usd"): _C["licence_per_card_year"],
    **{("stacks", k): spec for k, spec in SERVE_CANDIDATE_INPUTS.items()},
    ("cloud_prices", "on_demand_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "committed_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "committed_3yr_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    ("cloud_prices", "spot_usd_per_card_hour"): _C["cloud_price_per_card_hour"],
    **{("regional_cloud_prices", f"{t}_usd_per_card_hour"): _C["cloud_price_per_card_hour"]
       for t in ("on_demand", "committed", "committed_3yr", "spot")},
    **{("profiles", k): spec for k, spec in (
        ("discount_rate", FINANCE_INPUTS["discount_rate"]),
        ("depreciation_years", FINANCE_INPUTS["depreciation_years"]),
        ("utilization", TOP_INPUTS["utilization"]),
        ("support_fraction_per_year", ASSUMPTION_INPUTS["support_fraction_per_year"]),
        ("ops_engineers_per_1000_cards", ASSUMPTION_INPUTS["ops_engineers_per_1000_cards"]),
        ("pue", _C["pue"]),
        ("colocation_price_per_kw_month_usd", FACILITY_INPUTS["colocation_price_per_kw_month"]))},
    ("api_prices", "input_usd_per_million_tokens"): API_INPUTS["input_price_per_million_tokens"],
    ("api_prices", "output_usd_per_million_tokens"):
        API_INPUTS["output_price_per_million_tokens"],
    **{("assumptions", k): spec for k, spec in ASSUMPTION_INPUTS.items()},
    **{("assumptions", k): spec for k, spec in MONEY_DEFAULTS.items()},
    **{("assumptions", k): spec for k, spec in SERVE_ASSUMPTIONS.items()},
    **{("assumptions", k): LEASE_INPUTS[k] for k in LEASE_FIGURES},
    **{("assumptions", k): SERVE_INPUTS[k] for k in SERVE_DEFAULTS},
    # the yearly price paths, resale curves and tax rules feed these inputs too (a quote's
    # tax rate of 5, a rise of 1e308 a year or a haircut of 1e300 were taken)
    ("price_paths", "card_price_change_per_year"): _C["card_price_change_per_year"],
    ("price_paths", "rent_change_per_year"): _C["rent_change_per_year"],
    ("resale_curves", "haircut_fraction"): _C["resale_haircut_fraction"],
    ("resale_curves", "retention_per_year"): _C["resale_retention_per_year"],
    ("tax_rules", "rate"): TAX_INPUTS["tax_rate"],
    ("tax_rules", "life_years"): TAX_INPUTS["tax_life_years"],
    ("tax_rules", "bonus_fraction"): TAX_INPUTS["tax_bonus_fraction"],
    ("tax_rules", "rd_extra_deduction_fraction"): TAX_INPUTS["tax_rd_extra_deduction_fraction"],
    # in the rule's currency (_figure_currency): -1 or 1e308 CNY a unit was taken
    ("tax_rules", "expensing_threshold_per_unit"):
        TAX_INPUTS["tax_expensing_threshold_per_unit"],
}
# Plain numbers of a record (not sourced figures) held to an input's range all the same
_NUMBER_SPECS: dict[tuple[str, str], InputSpec] = {
    ("api_prices", "params"): WORKLOAD_INPUTS["params"],
}
# Units of the currency for one US dollar. The ranges hold every rate with room to spare (the
# yuan has traded between about 1.5 and 8.7 per USD since 1980, the euro between about 0.63 and
# 1.21 since 1999: Federal Reserve H.10 historical rates,
# https://www.federalreserve.gov/releases/h10/hist/) and refuse a rate written the other way
# round (0.14 USD per CNY for 7.15 CNY per USD), which would make every converted figure about
# fifty times wrong.
_EXCHANGE_SPECS = {
    "CNY": InputSpec("exchange_rate", "CNY per USD", "Exchange rate", 1.0, 20.0,
                     "units of the currency for one US dollar, e.g. 7.2 CNY, not US dollars "
                     "per unit"),
    "EUR": InputSpec("exchange_rate", "EUR per USD", "Exchange rate", 0.2, 5.0,
                     "units of the currency for one US dollar, e.g. 0.86 EUR"),
}


class _Where:
    """The file and line that gave a catalog record or field, for error messages."""

    def __init__(self, docs: dict[str, YamlDoc], origin: dict[tuple[str, ...], str],
                 shipped: frozenset[str] = frozenset()) -> None:
        self.docs = docs
        self.origin = origin
        self.shipped = shipped  # the shipped catalog's files (not the user's quotes)

    def __call__(self, section: str, ident: str, *rest: str) -> dict[str, Any]:
        file = (self.origin.get((section, ident, rest[0])) if rest else None) or \
            self.origin.get((section, ident)) or "catalog"
        doc = self.docs.get(file)
        line = doc.line_of([section, ident, *rest]) if doc else None
        return {"file": file, "line": line}


class Quoted:
    """A quote's figure given in another currency, as written (`numbers`: value, low, high),
    and the rate that converted it to USD."""

    def __init__(self, currency: str, numbers: dict[str, float], rate: float, field: str
                 ) -> None:
        self.currency, self.numbers, self.rate = currency, numbers, rate
        self.field = field  # as the quote names it: price_cny, or price_usd with a currency


def _check_plausible(cat: Catalog, where: _Where,
                     quoted: dict[tuple[str, str, str], Quoted]) -> None:
    """Every figure inside the plausible range of the input it feeds (catches wrong units).
    A figure quoted in another currency is checked, and reported, in that currency, as it was
    written; a range the user's own exchange rate moved names that rate."""
    for key, fig in cat.exchange_rates.items():
        _check_rate(key, fig, where)
    _check_numbers(cat, where)
    _check_dates(cat, where)
    checks: list[tuple[str, str, str, Figure, InputSpec, str, float]] = []
    for section, ident, field, fig in iter_figures(cat):
        spec = _FIGURE_SPECS.get((section, field))
        if spec is None or section == "exchange_rates":
            continue
        currency = _figure_currency(cat, section, ident)
        fx = cat.usd_to(currency) if spec.money else 1.0
        unit = spec.unit.replace("money", currency)
        if section in _MAP_SECTIONS:
            ident, field = field, ""
        checks.append((section, ident, field, fig, spec, unit, fx))
    for section, ident, field, fig, spec, unit, fx in checks:
        lo, hi = spec.lo * fx, spec.hi * fx
        given = quoted.get((section, ident, field))
        for part in ("value", "low", "typical", "high"):
            v = getattr(fig, part)
            if v is None or lo <= v <= hi:
                continue
            path = [x for x in (field, part) if x]
            at = where(section, ident, *path)
            if given is not None:  # in the currency it was quoted in, as written
                written = given.numbers.get("value" if part == "typical" else part,
                                            given.numbers["value"])
                cur = given.currency
                message = spec.out_of_range(written, lo * given.rate, hi * given.rate,
                                            unit.replace("USD", cur)).replace(
                    f"found {written:g},", f"found {written:g} {cur} ({v:,.6g} USD at "
                    f"{given.rate:g} {cur}/USD),", 1)
                path = [given.field, part]
            else:
                message = spec.out_of_range(v, lo, hi, unit) + _rate_note(cat, section, ident,
                                                                          spec, where)
            raise CatalogError(message, field=".".join([section, ident, *path]), **at)


def _check_numbers(cat: Catalog, where: _Where) -> None:
    """Every plain number of _NUMBER_SPECS inside its input's plausible range."""
    for (section, field), spec in _NUMBER_SPECS.items():
        for ident, rec in getattr(cat, section).items():
            v = getattr(rec, field)
            if v is not None and not spec.lo <= v <= spec.hi:
                raise CatalogError(spec.out_of_range(v, spec.lo, spec.hi, spec.unit),
                                   field=f"{section}.{ident}.{field}",
                                   **where(section, ident, field))


def _check_rate(currency: str, fig: Figure, where: _Where) -> None:
    spec = _EXCHANGE_SPECS[currency]
    for part in ("value", "low", "typical", "high"):
        v = getattr(fig, part)
        if v is not None and not spec.lo <= v <= spec.hi:
            raise CatalogError(spec.out_of_range(v, spec.lo, spec.hi, spec.unit),
                               field=f"exchange_rates.{currency}.{part}",
                               **where("exchange_rates", currency, part))


def _figure_currency(cat: Catalog, section: str, ident: str) -> str:
    """The currency a record's money figures are written in: a region's or a tax rule's own,
    else USD."""
    if section == "regions":
        return cat.regions[ident].currency
    if section == "tax_rules":
        return cat.tax_rules[ident].currency
    return "USD"


def _check_dates(cat: Catalog, where: _Where) -> None:
    """A quote file's figure is dated no later than today: as_of is when it was quoted, so a
    later date is a typo (2062 for 2026) that would make the quote look newer than the
    catalog's. The clock's date in UTC, a day of grace for time zones east of it; the shipped
    catalog is not checked (a machine whose clock is behind must still run)."""
    today = dt.datetime.now(tz=dt.UTC).date()
    latest = today + dt.timedelta(days=1)
    for section, ident, field, fig in iter_figures(cat):
        path = (section, field) if section in _MAP_SECTIONS else (section, ident, field)
        at = where(*path)
        if at["file"] in where.shipped or at["file"] == "catalog":
            continue
        year, month, day = (int(x) if x else 1 for x in _DATE.match(fig.as_of).groups())
        if dt.date(year, month, day) > latest:
            raise CatalogError(f"found {fig.as_of!r}, a date after today ({today}); expected "
                               "the date the figure was quoted", field=".".join([*path, "as_of"]),
                               **where(*path, "as_of"))


def _rate_note(cat: Catalog, section: str, ident: str, spec: InputSpec, where: _Where) -> str:
    """'; the range is at the exchange rate 700 CNY/USD set in q.csv:2' when a quote file's
    exchange rate scaled the range of a figure written in that currency."""
    currency = _figure_currency(cat, section, ident)
    if not spec.money or currency == "USD":
        return ""
    at = where("exchange_rates", currency)
    if at["file"] in where.shipped:
        return ""
    line = f":{at['line']}" if at["line"] else ""
    return (f"; the range is at the exchange rate {cat.usd_to(currency):g} {currency}/USD set "
            f"in {at['file']}{line}")


def _check_keys(raw: dict[str, dict[str, Any]], where: _Where) -> None:
    """Mapping sections take known keys only: an unknown one is a typo, not a new figure."""
    currencies = [c for c in get_args(Region.model_fields["currency"].annotation) if c != "USD"]
    for section, known in (("assumptions", [*ASSUMPTION_INPUTS, *MONEY_DEFAULTS, *SERVE_ASSUMPTIONS,
                                           *LEASE_FIGURES, *SERVE_DEFAULTS]),
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
    "regional_cloud_prices": ("id", CloudPrice),
    "profiles": ("id", Profile),
    "tax_rules": ("id", TaxRule),
    "tax_tables": ("id", TaxTable),
    "resale_curves": ("id", ResaleCurve),
    "price_paths": ("id", PricePath),
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
            if partial and section == "regions":
                _check_region_currency(target.get(ident), rec, doc)
            merged = dict(target.get(ident, {}))
            merged.update(rec)
            target[ident] = merged


_REGION_MONEY = ("electricity_price_per_kwh", "colocation_price_per_kw_month")


def _check_region_currency(before: dict[str, Any] | None, rec: dict[str, Any], doc: YamlDoc
                           ) -> None:
    """A quote that changes a region's currency restates its prices in the new currency: the
    catalog's CNY tariff would otherwise be read as dollars, seven times too dear, without a
    word."""
    if before is None or "currency" not in rec or rec["currency"] == before.get("currency"):
        return
    missing = [k for k in _REGION_MONEY if k not in rec]
    if missing:
        raise CatalogError(
            f"changes the currency of region '{rec.get('id')}' from {before.get('currency')} "
            f"to {rec['currency']} without giving {', '.join(missing)} in {rec['currency']}; "
            "its prices would be read in the new currency as they stand",
            file=doc.file, field=f"regions.{rec.get('id')}.currency",
            line=doc.line_of(["regions", str(rec.get("id")), "currency"]))


_NAMED_CURRENCY = re.compile(r"^(.*)_(cny|eur)(_.*)?$")


def _named_currencies(raw: dict[str, dict[str, dict[str, Any]]], where: _Where) -> None:
    """A money figure written in its own currency by its field's name (`price_cny` for
    `price_usd`, `input_cny_per_million_tokens` for `input_usd_per_million_tokens`), in a
    pricing file or a YAML quote, is marked as quoted in that currency and renamed to its
    field; `_convert_quoted` then converts it once, at the rate in force once every quote file
    is layered, exactly as a sheet's `price_cny` row. Its source says so ("quoted 4 CNY; at
    7.1526 CNY/USD"), which is how a scenario in that currency gets the quoted number back
    (tco.resolve.figures), and a figure out of range is reported in the currency written. A
    figure that is not a mapping of numbers is left for the model's own check to name."""
    for section, (_key, model) in _LIST_SECTIONS.items():
        fields = _figure_fields(model)
        for ident, rec in raw.get(section, {}).items():
            for field in list(rec):
                found = _NAMED_CURRENCY.match(str(field))
                if not found:
                    continue
                base, cur, rest = found.group(1), found.group(2).upper(), found.group(3) or ""
                target = f"{base}_usd{rest}"
                if target not in fields:
                    continue
                if target in rec:
                    raise CatalogError(f"gives both {field} and {target}; keep one",
                                       field=f"{section}.{ident}.{field}",
                                       **where(section, ident, field))
                fig = rec.pop(field)
                nums = _quoted_numbers(fig)
                if nums is not None and isinstance(fig.get("source"), str):
                    fig = {**fig, _QUOTED: (cur, nums, field)}
                rec[target] = fig


def _quoted_numbers(fig: Any) -> dict[str, float] | None:
    """A YAML figure's numbers as a quote sheet holds them (value, and low and high when it
    is a range), or None when it is not a figure of numbers."""
    if not isinstance(fig, dict) or "missing" in fig:
        return None
    parts: dict[str, float] = {}
    for k in ("value", "low", "typical", "high"):
        v = fig.get(k)
        if v is None:
            continue
        number = number_from_text(v) if isinstance(v, str) else (
            float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None)
        if number is None or not math.isfinite(number):
            return None
        parts[k] = number
    centre = parts.pop("value", parts.pop("typical", None))
    if centre is None:
        return None
    return {"value": centre, **parts}


def _validate(raw: dict[str, dict[str, dict[str, Any]]], where: _Where,
              quoted: dict[tuple[str, str, str], Quoted]) -> Catalog:
    built: dict[str, Any] = {}
    for section, (_key, model) in _LIST_SECTIONS.items():
        built[section] = {}
        for ident, rec in raw.get(section, {}).items():
            try:
                built[section][ident] = model.model_validate(rec)
            except ValidationError as exc:
                err = _first_error(exc)
                loc = [str(x) for x in err["loc"]]
                # a figure quoted in another currency is named as the quote wrote it
                said = quoted.get((section, ident, loc[0])) if loc else None
                shown = [said.field, *loc[1:]] if said is not None else loc
                raise CatalogError(_pydantic_message(err, loc, model),
                                   field=".".join([section, ident, *shown]),
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
    catalog = Catalog(**built, sources=list(where.docs))
    _check_references(catalog, where)
    _check_plausible(catalog, where, quoted)
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
    shown = "a mapping" if isinstance(found, dict) else "a list" if isinstance(
        found, list) else f"{found:.6g}" if isinstance(found, int) and not isinstance(
        found, bool) and abs(found) > 10**15 else repr(found)  # 1e308 as a whole number
    return validation_words(kind, msg, found, err.get("ctx") or {}, shown) or msg


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
    for rid, region in cat.regions.items():
        if region.part_of is not None and region.part_of not in cat.regions:
            raise fail(f"unknown region '{region.part_of}'"
                       f"{did_you_mean(region.part_of, cat.regions)}", "regions", rid, "part_of")
    for oid, offer in cat.regional_cloud_prices.items():
        if offer.card not in cat.accelerators:
            raise fail(f"price for unknown card '{offer.card}'"
                       f"{did_you_mean(offer.card, cat.accelerators)}",
                       "regional_cloud_prices", oid, "card")
        if offer.region not in cat.regions:
            raise fail(f"unknown region '{offer.region}'"
                       f"{did_you_mean(str(offer.region), cat.regions)}; a regional cloud "
                       "price names the region it rents in", "regional_cloud_prices", oid,
                       "region")


# --- quote files: YAML, or a sheet of rows (id, field, value, source, as_of) -----------------

_SHEET_COLUMNS = ("id", "field", "value", "source", "as_of")
_SHEET_OPTIONAL = ("low", "high", "note", "currency")
# A money figure is kept in USD (`..._usd`); a quote may give it in another currency, by a
# `currency` column or by naming the field with the currency (`price_cny` for `price_usd`).
_QUOTE_CURRENCIES = ("USD", "CNY", "EUR")

Row = tuple[int, dict[str, str]]  # (line or sheet row number, cells by column name)

# What a quote sheet may hold (a quote sets some figures of the catalog; its header has at most
# nine named columns). A sheet beyond these is refused before it is read into memory: a file
# of a few kilobytes can otherwise claim a million rows, or a cell of hundreds of megabytes.
MAX_SHEET_ROWS = 10_000  # rows with a value, the header included
MAX_SHEET_COLUMNS = 64
MAX_CELL_CHARS = 131_072  # the csv module's default field limit
# An xlsx file is a zip archive of XML parts; they are checked before openpyxl opens it.
XLSX_MAX_PARTS = 1_000
XLSX_MAX_BYTES = 16 * 2**20  # every part, uncompressed, together
XLSX_MAX_RATIO = 100  # uncompressed over compressed size of a part of more than 1 MiB
_MIB = 2**20
_TOO_MANY_ROWS = (f"more than {MAX_SHEET_ROWS:,} rows; a quote file sets some figures of the "
                  "catalog, a few hundred at most")


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
        if len(rows) + 1 > MAX_SHEET_ROWS:  # the header and the rows read so far
            raise CatalogError(_TOO_MANY_ROWS, file=file, line=start)
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
        if len(cells) > MAX_SHEET_COLUMNS:
            raise CatalogError(f"{len(cells):,} cells in a row; a quote sheet has at most "
                               f"{MAX_SHEET_COLUMNS} columns", file=file, line=start)
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


def _check_xlsx_archive(path: Path, data: io.BytesIO) -> None:
    """Refuse an xlsx whose parts would expand beyond what a quote needs (a zip bomb), or
    that declares an XML document type (entity expansion), before openpyxl reads any of it.
    Each part is read through, counting the bytes it really expands to: a part that expands
    beyond the size its archive entry declares is refused too."""
    import zipfile

    file = str(path)
    try:
        with zipfile.ZipFile(data) as archive:
            parts = archive.infolist()
            if len(parts) > XLSX_MAX_PARTS:
                raise CatalogError(f"the xlsx archive has {len(parts):,} parts; a workbook has "
                                   f"a few dozen (limit {XLSX_MAX_PARTS:,})", file=file)
            total = 0
            for part in parts:
                declared = part.file_size
                if declared > _MIB and declared > XLSX_MAX_RATIO * max(part.compress_size, 1):
                    raise CatalogError(
                        f"part {part.filename!r} of the xlsx expands from "
                        f"{part.compress_size:,} to {declared:,} bytes (more than "
                        f"{XLSX_MAX_RATIO} times); refusing a file that may exhaust memory",
                        file=file)
                total += declared
                if total > XLSX_MAX_BYTES:
                    raise CatalogError(
                        f"the xlsx expands to more than {XLSX_MAX_BYTES // _MIB} MiB "
                        "uncompressed; a quote sheet needs far less (is it a quote?)", file=file)
            total = 0
            for part in parts:
                total += _read_part(archive, part, XLSX_MAX_BYTES - total, file)
    except CatalogError:
        raise
    except Exception as exc:  # noqa: BLE001  (zipfile, zlib, lzma, bz2: a damaged archive)
        raise CatalogError(f"cannot read as xlsx: {exc}", file=file) from None


def _read_part(archive: Any, part: Any, budget: int, file: str) -> int:
    """Read one part through (at most `budget` bytes), refusing an XML document type; its
    expanded size."""
    size, tail = 0, b""
    with archive.open(part) as fh:
        while chunk := fh.read(1 << 16):
            size += len(chunk)
            if size > budget or size > part.file_size:
                raise CatalogError(f"part {part.filename!r} of the xlsx expands beyond the "
                                   "size it declares, or beyond "
                                   f"{XLSX_MAX_BYTES // _MIB} MiB; refusing it", file=file)
            window = (tail + chunk).upper()
            if b"<!DOCTYPE" in window or b"<!ENTITY" in window:
                raise CatalogError(f"part {part.filename!r} of the xlsx declares an XML "
                                   "document type, which a workbook never does (it can "
                                   "expand without bound); refusing it", file=file)
            tail = chunk[-16:]
    return size


def _rows_from_xlsx(path: Path) -> tuple[list[str], list[Row]]:
    """The header and rows of the first sheet, read within MAX_SHEET_ROWS, MAX_SHEET_COLUMNS
    and MAX_CELL_CHARS, whatever size the sheet claims (its stored dimension is ignored)."""
    from openpyxl import load_workbook  # only needed for xlsx quotes

    # read once, as every input is (tco.yamlio.read_bytes): a FIFO no program writes into
    # is refused instead of waited on for ever, and a shell's `<(...)`, which cannot be
    # read twice or sought in, is an archive like any other
    data = io.BytesIO(read_bytes(path, CatalogError))
    _check_xlsx_archive(path, data)
    file = str(path)
    table: list[tuple[int, list[str]]] = []  # (row number, cells) of rows with a value
    unsaved: list[tuple[int, int]] = []  # (row, column) of an empty cell of a filled row
    try:
        wb = load_workbook(data, read_only=True, data_only=True)
        try:
            _one_sheet(wb, file)
            ws = wb.worksheets[0]
            ws.reset_dimensions()  # a claimed A1:XFD1048576 would pad every row to 16,384
            for n, r in enumerate(ws.iter_rows(), start=1):
                if r:  # a row missing from the sheet comes as ()
                    cells = _xlsx_row(n, r, file)
                    if cells:
                        if len(table) >= MAX_SHEET_ROWS:
                            raise CatalogError(_TOO_MANY_ROWS, file=file, line=n)
                        table.append((n, cells))
                        unsaved += [(n, col) for col, text in enumerate(cells) if not text]
        finally:
            wb.close()
        if unsaved:
            _formulas_without_results(data, unsaved, file)
    except CatalogError:
        raise
    except Exception as exc:  # noqa: BLE001  (openpyxl raises many kinds for a damaged file)
        raise CatalogError(f"cannot read as xlsx: {exc}", file=file) from None
    header: list[str] | None = None
    rows: list[Row] = []
    for n, cells in table:
        if not any(c.strip() for c in cells):
            continue
        if header is None:
            header = [c.strip().lower() for c in cells]
            continue
        cells += [""] * (len(header) - len(cells))  # a sheet has no short rows: blank cells
        rows.append((n, _cells(header, cells)))
    return header or [], rows


def _one_sheet(wb: Any, file: str) -> None:
    """A quote workbook's rows are on one sheet: a second sheet with values would be ignored
    without a word (an older price list kept beside the new one, or more rows)."""
    filled = [ws.title for ws in wb.worksheets if _has_values(ws)]
    if len(filled) > 1:
        raise CatalogError(f"the workbook has {len(filled)} sheets with values "
                           f"({', '.join(repr(t) for t in filled[:5])}); a quote workbook holds "
                           "its rows on one sheet: move them to one, or give each sheet as a "
                           "file of its own", file=file)


def _has_values(ws: Any) -> bool:
    ws.reset_dimensions()
    for n, row in enumerate(ws.iter_rows(), start=1):
        if any(getattr(c, "value", None) is not None for c in row[:MAX_SHEET_COLUMNS]):
            return True
        if n >= MAX_SHEET_ROWS:
            return False
    return False


def _formulas_without_results(data: io.BytesIO, empty: list[tuple[int, int]], file: str
                              ) -> None:
    """An empty cell of a filled row that holds a formula: the workbook was saved by a program
    that does not compute (a script), so the formula has no result to read; said, rather than
    'empty'."""
    from openpyxl import load_workbook

    wb = load_workbook(data, read_only=True, data_only=False)
    try:
        ws = wb.worksheets[0]
        ws.reset_dimensions()
        wanted = dict.fromkeys(n for n, _col in empty)
        cols = {(n, col) for n, col in empty}
        for n, row in enumerate(ws.iter_rows(), start=1):
            if n > max(wanted):
                break
            if n not in wanted:
                continue
            for col, cell in enumerate(row[:MAX_SHEET_COLUMNS]):
                value = getattr(cell, "value", None)
                if (n, col) in cols and isinstance(value, str) and value.startswith("="):
                    shown = value if len(value) <= 60 else value[:57] + "..."
                    raise CatalogError(
                        f"the cell {getattr(cell, 'coordinate', '')} holds a formula ({shown}) "
                        "with no saved result; open and save the workbook in a spreadsheet "
                        "program, which computes it, or type the number", file=file, line=n)
    finally:
        wb.close()


def _xlsx_row(n: int, row: Any, file: str) -> list[str]:
    """One sheet row as text, within the limits (row `n`, counted from 1)."""
    filled = [c for c in row if getattr(c, "value", None) is not None]
    if not filled:
        return []
    if len(row) > MAX_SHEET_COLUMNS and any(getattr(c, "value", None) is not None
                                            for c in row[MAX_SHEET_COLUMNS:]):
        raise CatalogError(f"a cell beyond column {MAX_SHEET_COLUMNS}; a quote sheet has at "
                           f"most {MAX_SHEET_COLUMNS} columns", file=file, line=n)
    cells = [_xlsx_text(c.value, getattr(c, "number_format", None))
             for c in row[:MAX_SHEET_COLUMNS]]
    for col, text in enumerate(cells, start=1):
        if len(text) > MAX_CELL_CHARS:
            raise CatalogError(f"the cell in column {col} is {len(text):,} characters long; "
                               f"the limit is {MAX_CELL_CHARS:,}", file=file, line=n)
    return cells


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
    twice = first_repeated(c for c in header if c)
    if twice:  # the row's later cell would win without a word
        raise CatalogError(f"column '{twice}' is given twice; keep one", file=file, line=1)


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
        for col, text in row.items():
            problem = text_problem(text)
            if problem:
                raise CatalogError(problem, file=file, line=n, field=col or "(beyond the "
                                   "named columns)")
        ident, field = row["id"], row["field"]
        if row.get(""):
            raise CatalogError(f"cell '{row['']}' is beyond the named columns", file=file,
                               line=n)
        field, currency = _quote_currency(row, field, file, n, ident)
        if (ident, field) in first_row:
            raise CatalogError(
                f"a second row for this id and field (the first is row "
                f"{first_row[(ident, field)]}); keep one",
                file=file, line=n, field=f"{ident}.{row['field']}")
        first_row[(ident, field)] = n
        section = _section_for(ident, field, cat_raw)
        if section is None:
            raise CatalogError(_no_record_message(ident, field, cat_raw), file=file, line=n,
                               field=f"{ident}.{row['field']}")
        fig: dict[str, Any] = {"source": row["source"], "as_of": row["as_of"]}
        cells = [("value", row["value"]), ("low", row.get("low")), ("high", row.get("high"))]
        nums: dict[str, float] = {}
        for col, text in cells:
            if text:
                number = number_from_text(text)
                if number is None:
                    raise CatalogError(f"{col} '{text}' is not a number", file=file, line=n,
                                       field=f"{ident}.{row['field']}")
                if not math.isfinite(number):
                    raise CatalogError(f"{col} '{text}' is beyond the largest number (about "
                                       "1.8e308); expected a finite number", file=file,
                                       line=n, field=f"{ident}.{row['field']}")
                nums[col] = number
        if "value" not in nums:
            raise CatalogError("value is empty; expected a number", file=file, line=n,
                               field=f"{ident}.{row['field']}")
        low, high = nums.get("low", nums["value"]), nums.get("high", nums["value"])
        if not low <= nums["value"] <= high:
            shown = ", ".join(f"{k} {row[k]}" for k in ("low", "value", "high") if k in nums)
            raise CatalogError(f"expected low <= value <= high, found {shown}"
                               + ("" if currency == "USD" else f" ({currency})"),
                               file=file, line=n, field=f"{ident}.{row['field']}")
        if currency != "USD":
            # converted to USD once every quote file is read (`_convert_quoted`), at the rate
            # then in force: the same for every file, whatever their order
            fig[_QUOTED] = (currency, dict(nums), row["field"])
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
    money = field.endswith("_usd") or "_usd_" in field  # price_usd, on_demand_usd_per_...
    if given and given != "USD" and not money:
        raise CatalogError(f"a currency applies to money figures (fields named with _usd), not "
                           f"'{field}'", file=file, line=n, field=f"{ident}.{field}")
    return field, given or "USD"


_QUOTED = "_quoted"  # a sheet figure's key while it is in the currency it was quoted in


def _convert_quoted(raw: dict[str, dict[str, Any]], where: _Where
                    ) -> dict[tuple[str, str, str], Quoted]:
    """Convert every figure a sheet quoted in another currency to USD, at the exchange rate in
    force once every quote file is layered (the shipped one, or the one quote file that sets
    it): each file's prices convert at the same rate, in whatever order the files are given.
    Returns what was written, for messages in the user's own currency."""
    rates: dict[str, float] = {}
    out: dict[tuple[str, str, str], Quoted] = {}
    for section, records in raw.items():
        items = ([(section, key, fig) for key, fig in records.items()]
                 if section in _MAP_SECTIONS else
                 [(ident, f, fig) for ident, rec in records.items() for f, fig in rec.items()])
        for ident, field, fig in items:
            if not (isinstance(fig, dict) and _QUOTED in fig):
                continue
            currency, nums, written = fig[_QUOTED]
            if currency not in rates:
                rates[currency] = _rate(raw, currency, where)
            rate = rates[currency]
            converted = {k: v for k, v in fig.items() if k not in (_QUOTED, "value", "low",
                                                                   "typical", "high")}
            given = fig.get("source")
            # a source the figure's own check would refuse (empty, a letter) is left as given,
            # for that check to name: the conversion's words would otherwise pass it
            converted["source"] = (f"{given} (quoted {nums['value']:,.10g} {currency}; "
                                   f"at {rate:g} {currency}/USD)"
                                   if isinstance(given, str) and len(given.strip()) >= 3
                                   else given)
            usd = {k: v / rate for k, v in nums.items()}
            if "low" in usd or "high" in usd:
                converted.update(low=usd.get("low", usd["value"]), typical=usd["value"],
                                 high=usd.get("high", usd["value"]))
            else:
                converted["value"] = usd["value"]
            if section in _MAP_SECTIONS:
                records[field] = converted
            else:
                records[ident][field] = converted
            out[(section, ident, field)] = Quoted(currency, nums, rate, written)
    return out


def _rate(raw: dict[str, dict[str, Any]], currency: str, where: _Where) -> float:
    """The catalog's rate for `currency` (units per USD), checked before anything is
    converted with it."""
    fig = raw.get("exchange_rates", {}).get(currency)
    if fig is None:
        raise CatalogError(f"no exchange rate for {currency} in the catalog",
                           field=f"exchange_rates.{currency}", **where("exchange_rates",
                                                                        currency))
    try:
        figure = Figure.model_validate(fig)
    except ValidationError as exc:
        err = _first_error(exc)
        loc = [str(x) for x in err["loc"]]
        raise CatalogError(_pydantic_message(err, loc, Figure),
                           field=".".join(["exchange_rates", currency, *loc]),
                           **where("exchange_rates", currency, *loc)) from None
    _check_rate(currency, figure, where)
    return figure.best


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
        doc = load_yaml(path, CatalogError, _takes_text)
        check_texts(doc.data, CatalogError, doc.file, doc.line_of)
        docs[str(path)] = doc
        note_origin(doc.data, str(path))
        _merge_raw(raw, doc, partial=False)
    shipped = frozenset(docs)
    rates_set: dict[str, tuple[Any, str]] = {}  # currency -> (rate, file) of a quote file
    for overlay in overlays:
        path = Path(overlay)
        suffix = path.suffix.lower()
        if suffix in (".yaml", ".yml"):
            doc = load_yaml(path, CatalogError, _takes_text)
            if not doc.data:
                raise CatalogError("empty quote file; expected catalog sections such as "
                                   "card_prices", file=str(path))
        elif suffix == ".csv":
            doc = _sheet_to_raw(*_rows_from_csv(read_text(path, CatalogError), str(path)),
                                str(path), raw)
        elif suffix == ".xlsx":
            doc = _sheet_to_raw(*_rows_from_xlsx(path), str(path), raw)
        else:
            raise CatalogError(
                f"unsupported quote file type '{suffix or '(none)'}'; expected .yaml, .csv or .xlsx",
                file=str(path),
            )
        check_texts(doc.data, CatalogError, doc.file, doc.line_of)
        _check_rate_conflict(doc, rates_set, docs)
        docs[str(path)] = doc
        note_origin(doc.data, str(path))
        _merge_raw(raw, doc, partial=True)
    where = _Where(docs, origin, shipped)
    _check_keys(raw, where)
    _named_currencies(raw, where)
    quoted = _convert_quoted(raw, where)
    catalog = _validate(raw, where, quoted)
    catalog.overlay_files = [str(Path(o)) for o in overlays]
    return catalog


def _check_rate_conflict(doc: YamlDoc, rates_set: dict[str, tuple[Any, str]],
                         docs: dict[str, YamlDoc]) -> None:
    """Two quote files that set different exchange rates for one currency are refused: the
    rate converts every file's prices in that currency, so which one wins would depend on the
    order the files are given, and the money would change without a word."""
    data = doc.data if isinstance(doc.data, dict) else {}
    rates = data.get("exchange_rates")
    if not isinstance(rates, dict):
        return
    for currency, fig in rates.items():
        rate = (fig.get("value", fig.get("typical")) if isinstance(fig, dict) else fig)
        earlier = rates_set.get(str(currency))
        if earlier is not None and earlier[0] != rate:
            first = docs[earlier[1]].line_of(["exchange_rates", str(currency)])
            raise CatalogError(
                f"sets the {currency} exchange rate to {rate}, and {earlier[1]}"
                f"{f':{first}' if first else ''} sets it to {earlier[0]}; the rate converts "
                f"every quote file's {currency} prices, so give it in one file only",
                file=doc.file, line=doc.line_of(["exchange_rates", str(currency)]),
                field=f"exchange_rates.{currency}")
        rates_set.setdefault(str(currency), (rate, doc.file))


def _takes_text(path: tuple[str, ...]) -> bool:
    """Whether a catalog or quote file takes text at `path` (section, record id or key, field
    ...): a name, a source, a note; for the YAML checks' hints."""
    if len(path) < 3:
        return False
    if path[0] in _LIST_SECTIONS:
        return takes_text(_LIST_SECTIONS[path[0]][1], path[2:])
    return path[0] in _MAP_SECTIONS and takes_text(Figure, path[2:])


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
