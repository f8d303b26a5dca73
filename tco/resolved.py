"""What `resolve(scenario, catalog)` produces, as plain data, and how one input is changed in it.

`tco.resolve.resolve` validates a scenario against the catalog (pydantic) and returns a
`Resolved`: every model input with its value and source, the model's shape (`Structure`) and
what is known of each candidate besides numbers (`CandidateInfo`). Nothing here imports
pydantic or numpy, so a `Resolved` can be kept (tco.snapshot) and edited by a quick command
without them.

`with_values` applies `--set PATH=VALUE` edits to a `Resolved` directly, which is exactly what
editing the scenario and resolving it again gives, for every input that resolve copies from the
scenario one to one. For the few that resolve derives other inputs from, or checks against
another input, it returns None and the caller resolves the edited scenario again.
tests/test_analysis_whatif.py checks both ways against each other for every input path.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass, field, replace
from typing import Any

from .errors import ScenarioError, UnknownId
from .inputs import Input, InputSpec
from .numtext import number_from_text
from .workload_rules import shapes_hold


@dataclass(frozen=True)
class Structure:
    """What shapes the model rather than feeding it numbers."""

    currency: str
    horizon_years: int
    workloads: tuple[tuple[str, str, str], ...]  # (id, precision, kind)
    candidates: tuple[str, ...]  # priced candidates (none structurally infeasible)
    stacks: tuple[str, ...]  # each candidate's software stack, in the same order
    sizing: tuple[str, ...]  # each candidate's size rule: cards | deadline_days | power_cap_kw
    acquire: tuple[str, ...]  # each candidate's way of getting the capacity: buy | rent
    inputs_of: tuple[str, ...]  # whose inputs it reads: itself, or the option it was made from
    barred: tuple[str, ...]  # candidates that may not be bought here (export control, licence)
    rent: tuple[str, ...]  # candidates with a cloud price
    # the serving objectives given (`workloads.<id>.ttft_ms` / `.tpot_ms`); a serve workload
    # without one is offline (maximum throughput)
    objectives: tuple[str, ...] = ()
    # candidates whose shortfall can be priced: a cloud price, or a rent of the same peak
    # compute on another card (`shortfall_price_per_card_hour`, tco.resolve.shortfall_price)
    shortfall_rent: tuple[str, ...] = ()
    # each candidate's workloads (ids), in the order of `candidates`; () carries every one
    assigned: tuple[tuple[str, ...], ...] = ()
    # portfolios costed together: (id, option, option, ...)
    portfolios: tuple[tuple[str, ...], ...] = ()
    # per-token API options: (id, name, serving workload, ...) (tco.resolve.api_options)
    api: tuple[tuple[str, ...], ...] = ()
    # each candidate's held stock (the card id under `policy.holds_stock`, tco.resolve.held), in the
    # order of `candidates`; "" when it buys every card (or rents)
    held: tuple[str, ...] = ()
    # options whose shortfall buying more cards may close too (bought, a fixed size or target,
    # a price to rent it with; tco/model/shortfall.py)
    closing: tuple[str, ...] = ()
    # each candidate's phased deliveries (`deliveries:`, tco/model/timeline.py), in the order
    # of `candidates`: how many; 0 when it arrives at once (or rents)
    deliveries: tuple[int, ...] = ()
    # held stock valued by its age (the card ids): the model's book value of its new price
    # (tco.model.held), not a resale price given
    held_by_age: tuple[str, ...] = ()
    # the facility's sites (tco.resolve.sites): each (id, what it gives besides its region's
    # figures: "pue", "power_budget_kw"); the first site's id is "" (its inputs are
    # `facility.<key>`, tco.inputs.site_path)
    sites: tuple[tuple[str, ...], ...] = (("",),)
    # each candidate's site id, in the order of `candidates`; () when every one is at the first
    site_of: tuple[str, ...] = ()
    # shared storage sized per card (the scenario sets `assumptions.storage_tb_per_card`), not
    # from the workloads' data (tco/model/storage.py)
    storage_per_card: bool = False
    # compute vouchers (tco.resolve.vouchers): each (id, "share" | "per_card_hour", whether it
    # has a cap per year, the priced options it applies to)
    vouchers: tuple[tuple[str, str, bool, tuple[str, ...]], ...] = ()
    # options whose card's licence is revoked mid-horizon (policy.licence_revoked_from): each
    # reads its candidates.<id>.licence_revoked_years
    revoked: tuple[str, ...] = ()
    # vendors' allocation quotas (policy.supply_limit_cards_per_quarter): (card id, cards a
    # quarter), a limit of the planner
    supply_limits: tuple[tuple[str, float], ...] = ()

    def site(self, site_id: str) -> tuple[str, ...]:
        """The site `site_id` as `sites` lists it."""
        return next(s for s in self.sites if s[0] == site_id)

    def site_of_candidate(self, k: int) -> str:
        """The site id of the k-th candidate."""
        return self.site_of[k] if self.site_of else ""
    # the precisions each workload may use, in the order of `workloads`: a serving workload's
    # `precisions` (the search picks one per candidate), else its one precision; () all one
    precisions: tuple[tuple[str, ...], ...] = ()
    # serving workloads that declare speculative decoding (`speculative_accepted_tokens`)
    speculative: tuple[str, ...] = ()
    # each candidate's precisions with a serving rate the user measured (`benchmarks:`), in
    # the order of `candidates`; () none
    measured: tuple[tuple[str, ...], ...] = ()
    # income tax (methodology §20, tco.resolve.tax): the schedule owned equipment is deducted
    # on (straight_line | macrs_5 | one_time), macrs_5's yearly shares, and which NPV ranks
    # the options (pre_tax | after_tax)
    tax_depreciation: str = "straight_line"
    tax_table: tuple[float, ...] = ()
    decision_basis: str = "pre_tax"
    # candidates (by the id whose inputs they read) resold at the horizon on their card
    # class's used-market curve (methodology §6, pricing/resale.yaml); others at book value
    resale_curve: tuple[str, ...] = ()

    def allowed(self, wid: str) -> tuple[str, ...]:
        """The precisions workload `wid` may serve at (its one precision unless it allows
        several)."""
        for k, (w, prec, _kind) in enumerate(self.workloads):
            if w == wid:
                return self.precisions[k] if self.precisions else (prec,)
        raise KeyError(wid)


@dataclass
class CandidateInfo:
    """Everything about a candidate that is not a number: names, ids, flags, notes."""

    id: str
    name: str
    card: str
    card_name: str
    vendor: str
    platform: str
    platform_name: str
    cooling: str
    stack: str
    stack_name: str
    sizing: str  # cards | deadline_days | power_cap_kw | plan (cards: auto)
    acquire: str = "buy"  # buy | rent
    inputs_of: str = ""  # a generated rent option: the candidate whose card and size it rents
    flags: list[str] = field(default_factory=list)
    blocking: list[str] = field(default_factory=list)  # flags that bar buying it here
    # the flags that bar renting its card here (tco.resolve.renting.mark_rent_bars): a rent
    # option's own bars; an owned option's, those renting would carry (export control may
    # bar buying new and allow renting what is installed)
    rent_blocking: list[str] = field(default_factory=list)
    infeasible: list[str] = field(default_factory=list)  # known before any arithmetic
    notes: list[str] = field(default_factory=list)
    workloads: list[str] = field(default_factory=list)  # the workloads it carries; [] = all
    rent_tier: str = ""  # the cloud tier its rent price is from (tco.resolve.rent_tiers); "" = none
    deliveries: int = 0  # phased deliveries of an owned option (`deliveries:`); 0 = one
    site: str = ""  # the site it runs at (`candidates[].site`); "" = the facility's first

    def carries(self, wid: str) -> bool:
        return not self.workloads or wid in self.workloads

    @property
    def inputs_id(self) -> str:
        """Whose inputs (`candidates.<id>.*`) it reads: its own, or its source's."""
        return self.inputs_of or self.id


@dataclass
class Resolved:
    structure: Structure
    inputs: dict[str, Input]
    candidates: dict[str, CandidateInfo]
    file: str  # how errors and sources name the scenario
    scenario_data: dict[str, Any]  # the validated scenario as JSON-ready data
    catalog_digest: str
    usd_to_currency: float  # exchange rate: plausible money ranges are in USD
    read_by_resolve: frozenset[str] = frozenset()
    # inputs resolve read to make or check another (tco.resolve.state): editing one resolves again
    sized: frozenset[str] = frozenset()
    # candidates whose discrete choices are made: the size of a cluster sized for a deadline or
    # power cap (its `cards` input), and every candidate's layouts (tco.layout)
    catalog_files: tuple[str, ...] = ()
    # the quote files layered over the shipped catalog, in order, as given (--catalog)
    scenario: Any = None  # the validated tco.scenario.Scenario, when at hand


def input_values(resolved: Resolved) -> dict[str, float]:
    """Every input's value by its path: what the model is evaluated on."""
    return {path: inp.value for path, inp in resolved.inputs.items()}


def scenario_source(file: str) -> str:
    """The source of an input the scenario sets: "scenario" (the file is named once, in the
    provenance; a path is not a source a reader can check)."""
    del file
    return "scenario"


def show_value(value: Any) -> str:
    """A value as an error message quotes it (long ones shortened)."""
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    if value is None:  # YAML's null: `~`, `null` or nothing after the colon
        return "nothing (null)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def value_problem(value: Any, spec: InputSpec, currency: str, usd_to_currency: float
                  ) -> str | None:
    """Why `value` cannot be the input `spec` (None when it can): the plausibility check every
    number from a scenario passes, wherever it was written."""
    unit = spec.unit.replace("money", currency)
    written = value
    if isinstance(value, str):  # numeric text, as the scenario's typed fields take it
        value = number_from_text(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return f"expected a number ({unit}), found {show_value(written)}"
    v = float(value)
    if not math.isfinite(v):
        return f"expected a finite number, found {written!r}"
    lo, hi = spec.lo, spec.hi
    if spec.money:
        lo, hi = lo * usd_to_currency, hi * usd_to_currency
    if not (lo <= v <= hi):
        return spec.out_of_range(v, lo, hi, unit)
    if spec.integer and v != int(v):
        return f"expected a whole number, found {v:g}"
    return None


WHOLE_WORKLOAD_KEYS = ("layers", "kv_heads", "head_dim", "experts", "hidden_size",
                       "attention_heads", "qk_head_dim", "moe_layers", "steady_state",
                       "expert_comm_hidden", "expert_nodes_per_token")  # Whole


def set_path(data: dict[str, Any], path: str, value: float) -> None:
    """Set input `path` in scenario data (as the scenario file would write it)."""
    head, _, rest = path.partition(".")
    if head in ("utilization", "cost_of_delay_per_week") and not rest:
        data[head] = value
    elif head in ("facility", "finance", "assumptions") and rest and "." not in rest:
        data[head][rest] = int(value) if rest in ("horizon_years", "loan_term_years",
                                                         "lease_term_months") else value
    elif head == "facility" and rest.startswith("sites."):  # a further site, by its id
        sid, _, key = rest.removeprefix("sites.").partition(".")
        site = next((s for s in data["facility"].get("sites", []) if s["id"] == sid), None)
        if site is None or not key or "." in key:
            raise UnknownId(f"no input '{path}'")
        site[key] = value
    elif head == "team" and rest == "engineer_cost_per_month":
        data["team"][rest] = value
    elif head == "policy" and rest.startswith("holds_stock."):
        card, _, key = rest.removeprefix("holds_stock.").rpartition(".")
        data["policy"]["holds_stock"][card][key] = int(value) if key == "cards" else value
    elif head == "team" and rest.startswith("familiarity."):
        data["team"]["familiarity"][rest.removeprefix("familiarity.")] = value
    elif head in ("workloads", "candidates", "api_options", "vouchers"):
        # Ids may contain dots: find the record whose id prefixes the rest of the path.
        for rec in data[head]:
            prefix = f"{rec['id']}."
            key = rest.removeprefix(prefix)
            if head == "candidates" and rest.startswith(prefix) and key.startswith("layout."):
                wid, _, degree = key.removeprefix("layout.").rpartition(".")
                rec.setdefault("layout", {}).setdefault(wid, {})[degree] = int(value)
                return
            if head == "candidates" and rest.startswith(prefix) and key.startswith("delivery."):
                k, _, field = key.removeprefix("delivery.").partition(".")
                rec["deliveries"][int(k) - 1][field] = value  # delivery k = 1, 2, ...
                return
            if rest.startswith(prefix) and "." not in rest.removeprefix(prefix):
                key = rest.removeprefix(prefix)
                if head == "candidates" and key == "cards":
                    rec.update(cards=int(value), deadline_days=None, power_cap_kw=None)
                elif head == "workloads" and key in WHOLE_WORKLOAD_KEYS:
                    rec[key] = int(value)  # as validation stores a whole number
                elif head == "workloads" and key == "tpot_ms":
                    rec.pop("tokens_per_s_per_user", None)  # the objective's other form
                    rec[key] = value
                else:
                    rec[key] = value
                return
        raise UnknownId(f"no input '{path}'")
    else:
        raise UnknownId(f"no input '{path}'")


def _derives(resolved: Resolved, path: str, inp: Input) -> bool:
    if inp.spec.structural or path in resolved.read_by_resolve:
        return True
    if path.startswith("candidates."):
        cid, key = path.removeprefix("candidates.").rsplit(".", 1)
        # An unpriced candidate (a precision it lacks) may become priced: a new structure.
        # A card count for a cluster sized by deadline or power cap replaces that rule.
        return cid not in resolved.structure.candidates or (
            key == "cards" and resolved.candidates[cid].sizing != "cards")
    return False


def with_values(resolved: Resolved, values: dict[str, float], file: str
                ) -> Resolved | None:
    """`resolved` as resolving the scenario with each input path set to its value would give
    it (the scenario now named `file`), or None when an edited input is one resolve derives
    others from. A value that fails the plausibility check raises the same ScenarioError."""
    for path in values:
        if path not in resolved.inputs or _derives(resolved, path, resolved.inputs[path]):
            return None
    data = copy.deepcopy(resolved.scenario_data)
    for path, value in values.items():
        set_path(data, path, float(value))  # as validation stores a number
    if not shapes_hold(data):  # a rule across fields fails: resolving again gives its message
        return None
    source = scenario_source(file)
    inputs: dict[str, Input] = {}
    for path, inp in resolved.inputs.items():
        if path in values:
            st = resolved.structure
            problem = value_problem(values[path], inp.spec, st.currency, resolved.usd_to_currency)
            if problem:
                raise ScenarioError(problem, file=file, field=path)
            inp = Input(path=path, value=float(values[path]), spec=inp.spec, source=source,
                        origin="scenario")
        elif inp.origin == "scenario":
            inp = replace(inp, source=source)
        else:
            inp = replace(inp)
        inputs[path] = inp
    return replace(resolved, inputs=inputs, file=file, scenario_data=data,
                   scenario=None)
