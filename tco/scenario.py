"""Scenario files: what the user wants to train, which options to compare, and on what terms.

`load_scenario(path)` parses and validates a YAML file (typos are errors, with the line);
`tco.resolve.resolve(scenario, catalog)` turns it into the flat set of model inputs, each with
its value in the scenario's currency and its source.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from .catalog import PRECISIONS, SERVING_PRECISIONS
from .errors import ScenarioError, did_you_mean, validation_words
from .inputs import (
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    SERVE_ASSUMPTIONS,
    SERVE_CANDIDATE_INPUTS,
)
from .numfields import Num, Whole, takes_text
from .numtext import number_from_text
from .resolved import (
    show_value,
)
from .resources import example_scenario
from .text import check_texts
from .workload_rules import holds_a_sequence
from .yamlio import YamlDoc, load_yaml, load_yaml_text

Precision = Literal["fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8", "fp4"]

# What a record's id may be (a workload's, candidate's, portfolio's, API option's, voucher's):
# the one definition, for the fields and for naming a record by its id in a message.
ID_MAX_CHARS = 64
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
Ident = Annotated[str, Field(min_length=1, max_length=ID_MAX_CHARS, pattern=ID_PATTERN)]
# a site's id has no dot: it is one part of the dotted path facility.sites.<id>.<key>
SiteIdent = Annotated[str, Field(min_length=1, max_length=ID_MAX_CHARS,
                                 pattern=ID_PATTERN.replace("_.-", "_-"))]


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError(f"found {text!r}; expected a name, not blank (leave the field out "
                         "for the default)")
    return text


# A name shown as a title or a label (the report's heading, a chart's legend): not blank
Name = Annotated[str, AfterValidator(_not_blank)]




def _field_error(kind: str, message: str, *at: str) -> PydanticCustomError:
    """A validation error about `at` (path parts below where the validator runs)."""
    return PydanticCustomError(kind, message.replace("{", "{{").replace("}", "}}"),
                               {"at": tuple(at)})


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


TRAINING_ONLY = ("tokens", "runs_per_year", "global_batch_tokens", "seq_len_tokens",
                 "experts_per_token", "experts", "hidden_size", "attention_heads",
                 "qk_head_dim", "moe_layers", "steady_state", "expert_comm_hidden",
                 "expert_nodes_per_token")
# The model's shape, given where a model card states it (0 or absent: inferred from the
# parameters, docs/methodology.md §4); layers and head_dim serve serving workloads too. Left
# out of a scenario's data when not given, so that a scenario's digest is what it was before.
SHAPE_FIELDS = ("layers", "hidden_size", "attention_heads", "head_dim", "qk_head_dim",
                "moe_layers", "steady_state", "expert_comm_hidden",
                "expert_nodes_per_token")
SERVE_REQUIRED = ("input_tokens_per_day", "output_tokens_per_day", "prompt_tokens",
                  "output_tokens")


class Workload(_Strict):
    """A training run (`pretrain`, `finetune`) or a serving workload (`serve`: traffic per
    day, the shape of a request and an optional latency objective; docs/methodology.md §18)."""

    id: Ident
    name: Name | None = None
    kind: Literal["pretrain", "finetune", "serve"] = "pretrain"
    params: Num
    active_params: Num | None = None
    tokens: Num | None = None
    precision: Precision = "bf16"
    runs_per_year: Num = 1.0
    global_batch_tokens: Num | None = None
    seq_len_tokens: Num | None = None
    experts_per_token: Num | None = None
    experts: Whole | None = None  # routed experts per layer (MoE); inferred when not given
    hidden_size: Whole | None = None  # the model's width (0: inferred)
    attention_heads: Whole | None = None  # query heads (0: hidden_size wide attention)
    qk_head_dim: Whole | None = None  # query-key width of a head when not head_dim (MLA)
    moe_layers: Whole | None = None  # layers with experts (MoE; 0: every layer)
    steady_state: Whole | None = None  # 1: a benchmark's step rate, no whole-run losses
    # 1: the schedule hides the all-to-all wholly (DualPipe; 0: comm_overlap_fraction of it),
    # and the servers a token's experts may span (node-limited routing; 0: no limit)
    expert_comm_hidden: Whole | None = None
    expert_nodes_per_token: Whole | None = None
    # serve only
    input_tokens_per_day: Num | None = None
    output_tokens_per_day: Num | None = None
    peak_to_average: Num | None = None
    prompt_tokens: Num | None = None
    output_tokens: Num | None = None
    ttft_ms: Num | None = None
    tpot_ms: Num | None = None
    tokens_per_s_per_user: Num | None = None
    layers: Whole | None = None
    kv_heads: Whole | None = None
    head_dim: Whole | None = None
    # serve only: the precisions it may be served at (each option serves at the one of them its
    # card has that costs least: chosen by search), instead of one `precision`
    precisions: list[Precision] | None = Field(default=None, min_length=1)
    latency_percentile: Num | None = None  # 99 (default): objectives are p99; 50: medians
    speculative_accepted_tokens: Num | None = None
    speculative_draft_tokens: Num | None = None
    speculative_draft_cost: Num | None = None

    @model_validator(mode="after")
    def _fields_of_kind(self) -> Workload:
        if self.kind != "serve":
            if self.precision in SERVING_PRECISIONS and self.precision != "fp4":
                raise _field_error("serving_precision", f"{self.precision} is a serving "
                                   "format (quantized weights); train in bf16, fp16, fp8 or "
                                   "fp4 (NVFP4, on a card with an FP4 peak)", "precision")
            if self.tokens is None:
                raise _field_error("missing", "required field is missing", "tokens")
            for key in SERVE_FIELDS:
                if getattr(self, key) is not None:
                    raise _field_error("unknown_field", f"'{key}' is for a serving workload "
                                       "(kind: serve)", key)
            return self._training_shape()
        for key in TRAINING_ONLY:
            if key in self.model_fields_set:
                raise _field_error("unknown_field", f"'{key}' is for a training workload; a "
                                   "serving workload (kind: serve) has traffic per day "
                                   "instead", key)
        for key in SERVE_REQUIRED:
            if getattr(self, key) is None:
                raise _field_error("missing", f"required for a serving workload: {key}", key)
        if self.tpot_ms is not None and self.tokens_per_s_per_user is not None:
            raise _field_error("conflict", "give tpot_ms or tokens_per_s_per_user, not both "
                               "(tpot_ms = 1000 / tokens_per_s_per_user)",
                               "tokens_per_s_per_user")
        if self.tokens_per_s_per_user is not None and not self.tokens_per_s_per_user > 0:
            raise _field_error("not_positive", "expected a positive number of tokens per "
                               f"second, found {self.tokens_per_s_per_user:g}",
                               "tokens_per_s_per_user")
        return self._serving_options()

    def _serving_options(self) -> Workload:
        """Allowed precisions, the objectives' percentile and speculative decoding."""
        if self.precisions is not None:
            if "precision" in self.model_fields_set:
                raise _field_error("conflict", "give precision or precisions, not both "
                                   "(precisions: the ones each option may serve at)",
                                   "precisions")
            bad = [p for p in self.precisions if p not in SERVABLE]
            if bad:
                raise _field_error("precision", f"{bad[0]} is not a serving precision: expected "
                                   f"some of {', '.join(SERVABLE)}", "precisions")
            if len(set(self.precisions)) < len(self.precisions):
                raise _field_error("duplicate", "a precision is listed twice", "precisions")
            self.precision = self.precisions[0]
        pct = self.latency_percentile
        if pct is not None and pct not in (50.0, 99.0):
            raise _field_error("percentile", f"found {pct:g}; expected 50 (the objectives are "
                               "medians) or 99 (99th percentiles, the default)",
                               "latency_percentile")
        spec = (self.speculative_accepted_tokens, self.speculative_draft_tokens,
                self.speculative_draft_cost)
        if self.speculative_accepted_tokens is None and any(x is not None for x in spec):
            raise _field_error("speculation", "speculative decoding is declared by "
                               "speculative_accepted_tokens (tokens each step gives a "
                               "sequence); give it with the draft's figures",
                               "speculative_accepted_tokens")
        drafted = self.speculative_draft_tokens
        if (drafted is not None and self.speculative_accepted_tokens is not None
                and self.speculative_accepted_tokens > drafted + 1):
            raise _field_error("too_many", f"{self.speculative_accepted_tokens:g} tokens "
                               f"accepted per step from {drafted:g} drafted: expected at most "
                               f"{drafted + 1:g} (the drafted ones and the target's own)",
                               "speculative_accepted_tokens")
        return self

    def _training_shape(self) -> Workload:
        """A global batch holds at least one sequence."""
        batch, seq = self.global_batch_tokens, self.seq_len_tokens
        if not holds_a_sequence(batch, seq):
            raise _field_error("too_small", f"a global batch of {batch:g} tokens is less than "
                               f"one sequence of {seq:g} (seq_len_tokens); expected at least "
                               "one sequence", "global_batch_tokens")
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Only the fields of the workload's kind: a training scenario's data (and digest) is
        what it was before serving existed."""
        data = handler(self)
        drop = TRAINING_ONLY if self.kind == "serve" else SERVE_FIELDS
        if self.precisions is not None:  # `precision` is its first, not the user's
            drop = (*drop, "precision")
        return {k: v for k, v in data.items()
                if not ((k in drop and k not in SHAPE_FIELDS)
                        or ((k in SERVE_FIELDS or k in SHAPE_FIELDS) and v is None))}


SERVE_FIELDS = ("input_tokens_per_day", "output_tokens_per_day", "peak_to_average",
                "prompt_tokens", "output_tokens", "ttft_ms", "tpot_ms",
                "tokens_per_s_per_user", "kv_heads", "precisions",
                "latency_percentile", "speculative_accepted_tokens",
                "speculative_draft_tokens", "speculative_draft_cost")
SERVABLE = ("bf16", "fp16", "fp8", "int8", "fp4")  # the precisions a model is served at


class Delivery(_Strict):
    """One phased delivery of an owned option: the share of the cluster it brings and its
    lead time (methodology §6)."""

    share: Num
    lead_time_weeks: Num


class Candidate(BaseModel):
    """A purchasable option. Besides the fields below it may set any candidate input
    (`card_price`, `mfu`, `lead_time_weeks`, ...) to override the catalog."""

    model_config = ConfigDict(extra="allow")

    id: Ident
    card: str
    name: Name | None = None
    notes: str | None = None
    vendor: str | None = None
    cards: Whole | Literal["auto"] | None = None  # auto: the smallest that delivers the plan
    deadline_days: Num | None = None
    power_cap_kw: Num | None = None
    platform: str | None = None
    cooling: Literal["air", "liquid"] | None = None
    stack: str | None = None
    # Pinned parallel degrees, by workload id; a degree not given is chosen by the layout
    # search (tco.layout). Example: layout: {llama-70b: {tp: 8, pp: 4}}
    layout: dict[str, dict[Literal["tp", "pp", "vp", "cp", "ep", "recompute", "zero3",
                                   "zero2", "hsdp"], Whole]] = {}
    acquire: Literal["buy", "rent", "hybrid", "lease"] = "buy"
    # The workloads this option carries (ids); default every workload of the plan. An option
    # that carries only some of them is costed as part of a portfolio (below).
    workloads: list[str] | None = Field(default=None, min_length=1)
    # Phased deliveries of an owned option (two or more; shares of the cluster summing to 1,
    # each with its lead time), instead of one `lead_time_weeks` for the whole cluster.
    deliveries: list[Delivery] | None = Field(default=None, min_length=2, max_length=52)
    # The site it runs at (an id of `facility.sites`); default the facility's first site.
    site: str | None = None
    # A regional cloud offer to rent at, by its id (pricing/cloud.yaml regional_cloud_prices,
    # e.g. cn-lease-h100-sxm); default the site's region's first offer for the card, else the
    # card's general price.
    cloud: str | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without `site` (and `cloud`) when not given: a single-site scenario's data (and
        digest) is what it was before sites existed."""
        data = handler(self)
        for key in ("site", "cloud"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @model_validator(mode="after")
    def _one_sizing(self) -> Candidate:
        # Unknown keys first: a typo of `cards` would otherwise read as 'no size given'.
        for key in self.model_extra or {}:
            if (key not in CANDIDATE_INPUTS and key not in SERVE_CANDIDATE_INPUTS) or \
                    key == "cards":
                raise _field_error(
                    "unknown_field", f"unknown field '{key}'{did_you_mean(key, _CANDIDATE_FIELDS)}",
                    key)
        extra = self.model_extra or {}
        for key, value in extra.items():  # numeric text, as a typed field takes it (numtext)
            number = number_from_text(value) if isinstance(value, str) else None
            if number is not None and math.isfinite(number):
                extra[key] = number
        if self.deliveries is not None and "lead_time_weeks" in (self.model_extra or {}):
            raise _field_error("deliveries", "give deliveries (each with its lead time) or "
                               "lead_time_weeks (one delivery), not both", "deliveries")
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


_CANDIDATE_FIELDS = (list(Candidate.model_fields) + list(CANDIDATE_INPUTS)
                     + list(SERVE_CANDIDATE_INPUTS))
_ASSUMPTION_KEYS = [*ASSUMPTION_INPUTS, *SERVE_ASSUMPTIONS]


# How much one scenario may ask for. A few kilobytes of YAML could otherwise list tens of
# thousands of options and workloads, each costed with a layout search: minutes of work and
# gigabytes. `make bench` measures 1,000 candidates (docs/design.md); twice that is allowed.
MAX_CANDIDATES = 2_000
MAX_WORKLOADS = 32
MAX_OPTION_WORKLOADS = 4_000  # candidates x workloads, each laid out and costed
MAX_LISTED = 500  # portfolios, API options, sites


class Site(_Strict):
    """A further site of the facility (methodology §3, "Sites"): its region's tariff,
    colocation price and grid carbon unless given, and optionally a PUE for every option
    there and the facility power it can supply. Options name it (`candidates[].site`)."""

    id: SiteIdent
    region: str | None = None  # default: the facility's (first site's) region
    electricity_price_per_kwh: Num | None = None
    colocation_price_per_kw_month: Num | None = None
    carbon_kg_per_kwh: Num | None = None
    pue: Num | None = None
    power_budget_kw: Num | None = None


# a site's optional fields, left out of its data when not given (the digest of a scenario
# written before sites existed stays the same)
_SITE_OPTIONAL = ("pue", "power_budget_kw")


class Facility(_Strict):
    """The first site (the only one unless `sites` lists more): where every option runs
    unless it names another."""

    region: str = "us"
    electricity_price_per_kwh: Num | None = None
    colocation_price_per_kw_month: Num | None = None
    carbon_kg_per_kwh: Num | None = None
    pue: Num | None = None
    power_budget_kw: Num | None = None
    sites: list[Site] = Field(default=[], max_length=MAX_LISTED)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without the fields of sites when not given: a single-site scenario's data (and
        digest) is what it was before sites existed."""
        data = handler(self)
        for key in _SITE_OPTIONAL:
            if data.get(key) is None:
                data.pop(key, None)
        if not data.get("sites"):
            data.pop("sites", None)
        return data

    @model_validator(mode="after")
    def _unique_sites(self) -> Facility:
        seen: set[str] = set()
        for site in self.sites:
            if site.id in seen:
                raise _field_error("duplicate_id", f"duplicate site id '{site.id}'; ids must "
                                   "be unique", "sites", site.id)
            seen.add(site.id)
        return self


class Finance(_Strict):
    horizon_years: Whole = 5
    discount_rate: Num = 0.08
    depreciation_years: Num = 5
    residual_value_fraction: Num = 0.1
    purchase: Literal["buy", "finance"] = "buy"
    financed_fraction: Num | None = None
    loan_rate: Num = 0.07
    loan_term_years: Whole = 3
    # VAT on the purchase (methodology §5): none by default, so quotes are net prices
    vat_rate: Num = 0.0
    prices_include_vat: Num = 0.0  # 1: the quotes are gross (含税), the capex lines net of it
    vat_recoverable_fraction: Num = 1.0  # share credited as input VAT at the end of year 1
    # VAT on running costs (methodology §7): default the facility region's catalog rates
    vat_rate_electricity: Num | None = None
    vat_rate_colocation: Num | None = None
    vat_rate_cloud: Num | None = None
    # Leasing (candidates with `acquire: lease`, methodology §7): the rate, the lessor's
    # residual and the deposit default to sourced figures in pricing/assumptions.yaml
    lease_rate: Num | None = None
    lease_term_months: Whole = 36
    lease_residual_fraction: Num | None = None
    lease_payments_in_advance: Num = 1.0  # 1: each month's payment at its start (in advance)
    lease_buyout: Num = 0.0  # 1: buy at the lessor's residual at the end of the term; 0: return
    lease_deposit_months: Num | None = None
    lease_quoted_rate_factor: Num = 0.0  # a quote's monthly factor; 0: priced from lease_rate
    # Income tax (methodology §20): a jurisdiction's rules (pricing/tax.yaml) in force on the
    # acquisition date (default: its latest), each overridable; none: no tax
    tax_jurisdiction: str | None = None
    tax_acquired_on: str | None = None
    tax_rate: Num | None = None
    tax_depreciation: Literal["straight_line", "macrs_5", "one_time"] | None = None
    tax_life_years: Num | None = None
    tax_bonus_fraction: Num | None = None
    tax_expensing_threshold_per_unit: Num | None = None
    tax_rd_extra_deduction_fraction: Num | None = None
    tax_rd_share: Num | None = None
    # which NPV ranks the options: after tax once a tax rate or jurisdiction is given
    decision_basis: Literal["pre_tax", "after_tax"] | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without the tax fields and running-cost VAT rates not given: a scenario without them
        has the data (and digest) it had before they existed."""
        data = handler(self)
        for key in _OPTIONAL_FIELDS:
            if data.get(key) is None:
                data.pop(key, None)
        return data


_OPTIONAL_FIELDS = ("tax_jurisdiction", "tax_acquired_on", "tax_rate", "tax_depreciation",
                    "tax_life_years", "tax_bonus_fraction", "tax_expensing_threshold_per_unit",
                    "decision_basis", "tax_rd_extra_deduction_fraction", "tax_rd_share",
                    "vat_rate_electricity", "vat_rate_colocation",
                    "vat_rate_cloud")


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


class HeldStock(_Strict):
    """Cards the buyer already holds, in service (with their servers and fabric): sunk, priced
    at what they would sell for now (tco.resolve.held). Give the resale price, or their age for a
    book value from their new price (the catalog's unless given)."""

    cards: Whole  # 1 to 1e6, checked with the field named (tco.inputs.HELD_INPUTS)
    resale_price_per_card: Num | None = None  # per card with its share of the server, now
    age_years: Num | None = None  # 0 to 30 (checked in tco.resolve.held, naming the field)
    # with age_years: what one cost new (with its share of the server); the catalog's if left out
    new_price_per_card: Num | None = None

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without `new_price_per_card` when not given: a scenario's data (and digest) is what
        it was before the field existed."""
        data = handler(self)
        if data.get("new_price_per_card") is None:
            data.pop("new_price_per_card", None)
        return data


class Policy(_Strict):
    """What the buyer holds: lifts the catalog's export-control and licence bars for the
    cards named, and existing stock by card id, with a note every output prints
    (tco.resolve.policy, tco.resolve.held)."""

    holds_licence: list[str] = []  # catalog card ids
    holds_stock: dict[str, HeldStock] = {}  # by catalog card id
    note: str | None = Field(default=None, max_length=500)
    # China's rules (methodology §21): the most cards of each id a vendor allocates per quarter
    # (the planner's buy limit), and the month a card's licence is revoked (YYYY-MM; the
    # scenario's start dates it): its clusters do no work after it, their costs stay
    supply_limit_cards_per_quarter: dict[str, Num] = {}
    licence_revoked_from: dict[str, str] = {}

    @field_validator("licence_revoked_from", mode="before")
    @classmethod
    def _months(cls, value: Any) -> Any:
        for card, month in (value or {}).items() if isinstance(value, dict) else ():
            if not (isinstance(month, str) and re.fullmatch(r"[0-9]{4}-(0[1-9]|1[0-2])", month)):
                raise _field_error("month", f"found {show_value(month)}; expected a month as "
                                   "YYYY-MM, e.g. 2027-06 (quoted)", str(card))
        return value

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without the China rules when not given: a scenario's data (and digest) is what it
        was before they existed."""
        data = handler(self)
        for key in ("supply_limit_cards_per_quarter", "licence_revoked_from"):
            if not data.get(key):
                data.pop(key, None)
        return data


class Portfolio(_Strict):
    """Options costed together, each carrying its own workloads; together they carry every
    workload of the plan exactly once."""

    id: Ident
    name: Name | None = None
    options: list[str] = Field(min_length=2)


class ApiOption(_Strict):
    """Serving workloads served by a per-token API instead of cards (methodology §18): the
    price is the catalog's (pricing/api.yaml, by `api`) unless given here; without `api`, the
    scenario gives both prices and their source. It carries only serving workloads; a plan
    that also trains combines it with an option that trains, in a portfolio."""

    id: Ident
    api: str | None = None  # a price id of the catalog's api_prices
    name: Name | None = None
    # The serving workloads it serves (ids); default every serving workload of the plan.
    workloads: list[str] | None = Field(default=None, min_length=1)
    input_price_per_million_tokens: Num | None = None
    output_price_per_million_tokens: Num | None = None
    # Where the prices given here come from (they are in the scenario's currency, as every
    # amount of a scenario; a price quoted in another goes in a quote file, --catalog)
    source: str | None = Field(default=None, min_length=1, max_length=500)


class Voucher(_Strict):
    """A compute voucher (算力券, methodology §7 "Compute vouchers"): a local government pays a
    share of the rent of compute (or an amount per card-hour) up to a cap per year, for the
    rented options it applies to: those named, and every rented option of the cards named."""

    id: Ident
    name: Name | None = None
    share: Num | None = None  # share of the rent covered
    per_card_hour: Num | None = None  # or an amount per rented card-hour (scenario currency)
    cap_per_year: Num | None = None  # the most it pays per year (scenario currency); none: no cap
    options: list[str] = []  # option ids it applies to
    cards: list[str] = []  # card ids: every rented option of these cards
    source: str = Field(min_length=3, max_length=500)  # the policy that grants it

    @model_validator(mode="after")
    def _one_rule(self) -> Voucher:
        if (self.share is None) == (self.per_card_hour is None):
            raise _field_error("voucher", "give either share (of the rent) or per_card_hour, "
                               "one of them", "share")
        if not self.options and not self.cards:
            raise _field_error("voucher", "name the options or the cards it applies to "
                               "(options: [...] or cards: [...])", "options")
        return self


class Benchmark(_Strict):
    """A benchmark you ran (docs/methodology.md §18, "Your own benchmarks"): a result file
    (`file`, read relative to the scenario) or the measurement inline (`serving` or
    `training`, as `tco ingest` writes it), and what the file does not say: the card, how many
    cards ran it, the tensor-parallel degree, the precision, the serving workload whose model
    it served, the engine and the date."""

    file: str | None = Field(default=None, min_length=1, max_length=1000)
    serving: dict[str, Any] | None = None
    training: list[dict[str, Any]] | None = None
    card: str | None = None
    cards: Whole | None = Field(default=None, ge=1, le=1_000_000)
    tp: Whole | None = Field(default=None, ge=1, le=1024)
    precision: Precision | None = None
    workload: str | None = None
    engine: str | None = Field(default=None, max_length=200)
    measured_on: str | None = Field(default=None, max_length=40)
    prompt_tokens: Num | None = None
    output_tokens: Num | None = None

    @model_validator(mode="after")
    def _one_source(self) -> Benchmark:
        given = [k for k in ("file", "serving", "training") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of file, serving or training"
                             + (f" (got {', '.join(given)})" if given else ""))
        return self


class Scenario(_Strict):
    name: Name = Field(default="Untitled scenario", max_length=200)
    description: str | None = None
    # the month of the decision (YYYY-MM): the plan's dated actions count from it; without it
    # they say "month N" after the decision (docs/methodology.md section 19)
    start: str | None = None
    currency: Literal["USD", "CNY", "EUR"] = "USD"
    # committed: 1-year; committed_3yr: 3-year; spot: interruptible, with its overhead
    rent_pricing: Literal["on_demand", "committed", "committed_3yr", "spot"] = "committed"
    # auto: besides the candidates, rent each owned card (bought, leased, hybrid) with a cloud
    # price (one option per card, the size of the first candidate with it); none: only those
    # listed
    rent_options: Literal["auto", "none"] = "auto"
    # a buyer profile (pricing/profiles.yaml, tco.profiles): its figures are the defaults of
    # the values this scenario leaves out
    profile: Literal["hyperscaler", "large-neocloud", "enterprise"] | None = None
    utilization: Num = 0.85
    cost_of_delay_per_week: Num = 0.0
    workloads: list[Workload] = Field(min_length=1, max_length=MAX_WORKLOADS)
    candidates: list[Candidate] = Field(min_length=1, max_length=MAX_CANDIDATES)
    facility: Facility = Facility()
    finance: Finance = Finance()
    team: Team = Team()
    assumptions: dict[str, Num] = {}
    distributions: dict[str, Distribution] = {}
    portfolios: list[Portfolio] = Field(default=[], max_length=MAX_LISTED)
    policy: Policy = Policy()
    # per-token APIs that may serve the serving workloads (each an option of its own)
    api_options: list[ApiOption] = Field(default=[], max_length=MAX_LISTED)
    # benchmarks you ran: they replace the catalog's efficiencies for their card (tco.measured)
    benchmarks: list[Benchmark] = Field(default=[], max_length=MAX_LISTED)
    # compute vouchers (算力券) that pay part of the rent of the options they apply to
    vouchers: list[Voucher] = Field(default=[], max_length=MAX_LISTED)

    @model_serializer(mode="wrap")
    def _dump(self, handler: Any) -> dict[str, Any]:
        """Without `api_options` when there is none, and without `profile` when none is named:
        a scenario's data (and digest) is what it was before they existed."""
        data = handler(self)
        for key in ("api_options", "benchmarks", "vouchers"):
            if not data.get(key):
                data.pop(key, None)
        if data.get("profile") is None:  # likewise without a profile
            data.pop("profile", None)
        if data.get("start") is None:  # and without a start month
            data.pop("start", None)
        return data

    @field_validator("start", mode="before")
    @classmethod
    def _month(cls, value: Any) -> Any:
        if value is None or isinstance(value, str) and re.fullmatch(
                r"[0-9]{4}-(0[1-9]|1[0-2])", value):
            return value
        raise ValueError(f"found {show_value(value)}; expected a month as YYYY-MM, e.g. "
                         "2027-01 (quoted or not)")

    @field_validator("assumptions")
    @classmethod
    def _known_assumptions(cls, value: dict[str, float]) -> dict[str, float]:
        for key in value:
            if key not in _ASSUMPTION_KEYS:
                raise _field_error(
                    "unknown_field",
                    f"unknown assumption '{key}'{did_you_mean(key, _ASSUMPTION_KEYS)}", key)
        return value

    @model_validator(mode="after")
    def _not_too_much(self) -> Scenario:
        pairs = len(self.candidates) * len(self.workloads)
        if pairs > MAX_OPTION_WORKLOADS:
            raise _field_error("too_long", f"{len(self.candidates):,} candidates x "
                               f"{len(self.workloads)} workloads is {pairs:,} to lay out and "
                               f"cost; at most {MAX_OPTION_WORKLOADS:,} (split the scenario)",
                               "candidates")
        return self

    @model_validator(mode="after")
    def _unique_ids(self) -> Scenario:
        for what, items in (("workloads", self.workloads), ("candidates", self.candidates),
                            ("api_options", self.api_options), ("vouchers", self.vouchers)):
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


_ID = re.compile(ID_PATTERN)
_FIRST = ("extra_forbidden", "unknown_field")  # a typo also causes a 'missing' error: name the typo


def _validation_error(exc: ValidationError, doc: YamlDoc) -> ScenarioError:
    errors = exc.errors()
    err = next((e for e in errors if e.get("type") in _FIRST), errors[0])
    # a union's member tags (`function-before[...]`, `literal['auto']`) are not fields
    loc = [str(x) for x in err["loc"] if "[" not in str(x)]
    # Lists are addressed by index in pydantic; name the record by its id instead, when it is
    # one (an id that is itself the fault, 9,000 characters or `true`, would make the message
    # that names it 9,000 characters long, or not say where it is: its index does)
    named: list[str] = []
    keyed: list[str] = []  # as tco.yamlio keys the lines: by any id
    data: Any = doc.data
    for part in loc:
        if isinstance(data, list) and part.isdigit() and int(part) < len(data):
            item = data[int(part)]
            ident = item.get("id") if isinstance(item, dict) else None
            named.append(ident if isinstance(ident, str) and len(ident) <= ID_MAX_CHARS
                         and _ID.fullmatch(ident) else part)
            keyed.append(str(ident) if ident is not None else part)
            data = item
        else:
            named.append(part)
            keyed.append(part)
            data = data.get(part) if isinstance(data, dict) else None
    at = [str(x) for x in (err.get("ctx") or {}).get("at", ())]
    named += at
    keyed += at
    kind = err.get("type", "")
    found = err.get("input")
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
    if kind == "extra_forbidden":
        msg = f"unknown field '{loc[-1]}'{did_you_mean(loc[-1], _fields_at(loc))}"
    elif kind == "missing":
        msg = "required field is missing"
    elif kind.startswith("int"):
        also = " or auto" if isinstance(found, str) and loc[-1:] == ["cards"] else ""
        msg = f"expected a whole number{also}, found {show_value(found)}"
    elif kind.startswith("float"):
        msg = f"expected a number, found {show_value(found)}"
    elif kind == "string_pattern_mismatch":
        msg = (f"found {show_value(found)}; expected an id of letters, digits, '_', '.' and '-', "
               "starting with a letter or digit")
    else:
        msg = validation_words(kind, msg, found, err.get("ctx") or {}, show_value(found)) or msg
    line = doc.line_of(keyed)
    return ScenarioError(msg, file=doc.file, field=".".join(named) or None, line=line)


def _takes_text(path: tuple[str, ...]) -> bool:
    """Whether a scenario takes text at `path` (a name, a note), for the YAML checks' hints."""
    return takes_text(Scenario, path)


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


def parse_scenario(doc: YamlDoc, edited: bool = False) -> Loaded:
    """The validated scenario of `doc`; `edited`: a copy changed on the command line (what-if
    settings), where fields the user did not write are not refused (_dense_experts)."""
    if not isinstance(doc.data, dict):
        raise ScenarioError("expected a mapping with workloads and candidates", file=doc.file)
    check_texts(doc.data, ScenarioError, doc.file, doc.line_of)
    try:
        scenario = Scenario.model_validate(doc.data)
    except ValidationError as exc:
        raise _validation_error(exc, doc) from None
    if not edited:
        _dense_experts(scenario, doc)
    return Loaded(scenario, doc)


def _dense_experts(scenario: Scenario, doc: YamlDoc) -> None:
    """Routed experts written on a dense training workload (active_params absent or equal to
    params) were ignored: refused, naming the field. Not in the workload's validation: a
    what-if of active_params on a mixture of experts that gives its experts stays harmless."""
    for wl in scenario.workloads:
        dense = wl.active_params is None or wl.active_params >= wl.params
        if wl.kind != "serve" and (wl.experts or 0) > 0 and dense:
            path = ("workloads", wl.id, "experts")
            raise ScenarioError(
                f"routed experts are for a mixture of experts, and this workload is dense "
                f"(active_params {'not given' if wl.active_params is None else 'equal to params'}"
                f"): expected active_params below params with experts, or no experts "
                f"(found {wl.experts})", file=doc.file, field=".".join(path),
                line=doc.line_of(path))


BUILT_IN_EXAMPLE = "built-in example scenario (tco/scenarios/example.yaml)"


def load_scenario(path: Path | str | None = None) -> Loaded:
    """Read a scenario file; without a path, the built-in example."""
    if path:
        return parse_scenario(load_yaml(Path(path), ScenarioError, _takes_text))
    # Named, not by its install path: outputs must not depend on where tco is installed.
    doc = load_yaml(example_scenario(), ScenarioError)
    doc.file = BUILT_IN_EXAMPLE
    return parse_scenario(doc)


def load_scenario_text(text: str, file: str = "<scenario>") -> Loaded:
    return parse_scenario(load_yaml_text(text, file, ScenarioError, _takes_text))


def quick_job(*, model_params: float, active_params: float | None, tokens: float | None,
              card: str, cards: int | None, precision: str, mfu: float | None, region: str,
              currency: str, serve: dict[str, float] | None = None,
              layout: dict[str, int] | None = None,
              training: dict[str, float] | None = None) -> Loaded:
    """A one-workload, one-candidate scenario for `tco job` (default finance and team); with
    `serve` (the serving fields given), a serving workload (`tco job --serve`); `layout` pins
    parallel degrees (`--layout`); `training` gives a training run's shape (sequence length,
    global batch, routed experts)."""
    # no count: sized to deliver the plan (a serving job: its peak; cards: auto)
    cand: dict[str, Any] = {"id": card, "card": card, "cards": "auto" if cards is None else cards}
    if mfu is not None:
        cand["mfu"] = mfu
    if layout:
        cand["layout"] = {"job": layout}
    work: dict[str, Any] = {"id": "job", "params": model_params, "precision": precision}
    if serve is not None:
        work.update(kind="serve", **serve)
    else:
        work.update(tokens=tokens, **(training or {}))
    if active_params is not None:
        work["active_params"] = active_params
    data = {"name": "quick job", "currency": currency, "workloads": [work],
            "candidates": [cand], "facility": {"region": region}}
    return parse_scenario(YamlDoc(data, {}, "command line"))


__all__ = ["PRECISIONS", "Loaded", "Scenario", "load_scenario"]
