"""resolve(scenario, catalog) -> Resolved: every model input with its value and source.

One builder per section of the scenario, in the order the inputs are listed everywhere
(assumptions, top level, finance, team, facility, workloads, candidates), then the sizing rule
and the risk policy of each candidate, then the model's shape (`Structure`). Values are in the
scenario's currency; a figure the scenario does not give comes from the catalog with its source.

Resolve reads some inputs to make or check others (a workload's default batch is
`assumptions.global_batch_tokens`; a loan needs a financed share). It reads them through
`_Inputs`, which records every such read: `Resolved.read_by_resolve` lists them, and a what-if
of one of them resolves the scenario again (tco.resolved.with_values) instead of changing the
value alone. A new derivation is recorded by being written, not by a list kept beside it.
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

from .api_options import resolve_api_options
from .catalog import Accelerator, Catalog, Cooling, Figure, Platform, Stack
from .errors import UnknownId, did_you_mean
from .held import held_note, held_stock_inputs
from .inputs import (
    ASSUMPTION_INPUTS,
    CANDIDATE_INPUTS,
    DELIVERY_INPUTS,
    FACILITY_INPUTS,
    FINANCE_INPUTS,
    LAYOUT_INPUTS,
    LEASE_INPUTS,
    SERVE_ASSUMPTIONS,
    SERVE_INPUTS,
    TARGET_INPUTS,
    TEAM_INPUTS,
    TOP_INPUTS,
    WORKLOAD_INPUTS,
    WORKLOAD_ZERO_DEFAULTS,
    Input,
    InputSpec,
)
from .policy import LIFTED, check_policy, lift_bars

# the model's error multiplier of each family (resolved from the family's P10 and P90)
MODEL_ERRORS = {f"model_error_{f}": f for f in ("dense_vendor", "dense_team", "small", "moe")}
from .portfolio import assigned_workloads, portfolios
from .rent_tiers import tier_figure, tier_label
from .resolved import CandidateInfo, Resolved, Structure, scenario_source, value_problem
from .scenario import Candidate, Loaded, Workload
from .shortfall_price import cheapest_rent

# The workload inputs a serving workload shares with training ones.
SERVE_SHARED = ("params", "active_params")

FAMILIARITY_SPEC = InputSpec("familiarity", "fraction", "Team familiarity with the stack "
                             "(share of porting effort already done)", 0, 1,
                             hint="a fraction between 0 and 1", fraction=True)


class _Inputs(dict[str, Input]):
    """The inputs made so far; reading one (`inputs[path]`) records that resolve used it."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def __getitem__(self, path: str) -> Input:
        self.read.add(path)
        return super().__getitem__(path)

    def put(self, inp: Input) -> None:
        self[inp.path] = inp


_QUOTED_IN = re.compile(r" \(quoted [0-9,.eE+-]+ ([A-Z]{3}); at ")


def _fig_input(path: str, fig: Figure, spec: InputSpec, scale: float = 1.0,
               source_prefix: str = "") -> Input:
    """An input from a catalog figure, converted by `scale`; `source_prefix` says how. A quote
    given in the scenario's own currency comes back as quoted: its source says so once
    ("quoted 105,000 CNY; at 7.1526 CNY/USD"), without the round trip through USD."""
    lo, hi = fig.range
    quoted = _QUOTED_IN.search(fig.source)
    if quoted and f"{quoted.group(1)}/USD" in source_prefix:
        source_prefix = ""
    src = fig.source if not source_prefix else f"{source_prefix}{fig.source}"
    return Input(path=path, value=fig.best * scale, spec=spec, source=src, as_of=fig.as_of,
                 low=lo * scale, high=hi * scale, note=fig.note or "", origin="catalog")


def resolve(loaded: Loaded, catalog: Catalog) -> Resolved:
    return _Resolver(loaded, catalog).resolved()


class _Resolver:
    def __init__(self, loaded: Loaded, catalog: Catalog) -> None:
        self.loaded, self.catalog, self.sc = loaded, catalog, loaded.scenario
        self.fx = catalog.usd_to(self.sc.currency)
        self.fx_note = "" if self.sc.currency == "USD" else (
            f" (USD x {self.fx:g} {self.sc.currency}/USD)")
        self.inputs = _Inputs()
        self.objectives: list[str] = []  # serving objectives given: workloads.<id>.<key>
        self.serve_assumed = False

    def resolved(self) -> Resolved:
        self.assumptions()
        self.top_level()
        self.finance()
        self.team()
        self.facility()
        for inp in held_stock_inputs(self.loaded, self.catalog, self.given, self.inputs.__getitem__,
                                     self.fx, self.fx_note):
            self.put(inp)  # existing stock (tco.held)
        workloads = self.workloads()
        infos, rent = {}, []
        precisions = sorted({p for _, p, _ in workloads}
                            # FP4 training runs at FP8's sustained rate but for its GEMMs
                            | {"fp8" for _, p, kind in workloads
                               if p == "fp4" and kind != "serve"})
        for c in self.sc.candidates:
            infos[c.id], rented = self.candidate(c, precisions)
            if rented:
                rent.append(c.id)
        check_policy(self.loaded, self.catalog)
        self.check_rent_term()
        self.check_stock_used(infos)
        self.check_licences_used(infos)
        rent += self.rent_options(infos, rent)
        priced = [cid for cid, info in infos.items() if not info.infeasible]
        api = resolve_api_options(self.loaded, self.catalog, self.fx, self.fx_note, self.put,
                                  self.given, [*infos, *(p.id for p in self.sc.portfolios)])
        self.check_distributions()  # every input known, the API options' prices included
        shortfall_rent = tuple(cid for cid in priced if cid in rent or f"candidates."
                               f"{infos[cid].inputs_of or cid}.shortfall_price_per_card_hour"
                               in self.inputs)
        # bought options whose shortfall buying more cards may close too (§8): not one sized
        # to the plan (none), to a power cap (more cards would break it), or drawing on held
        # stock (the added cards' price would differ from the cluster's average)
        closing = tuple(cid for cid in shortfall_rent if infos[cid].acquire == "buy"
                        and infos[cid].sizing in ("cards", "deadline_days")
                        and not infos[cid].inputs_of
                        and infos[cid].card not in self.sc.policy.holds_stock)
        structure = Structure(
            currency=self.sc.currency, horizon_years=self.sc.finance.horizon_years,
            workloads=tuple(workloads), candidates=tuple(priced),
            stacks=tuple(infos[cid].stack for cid in priced),
            sizing=tuple(infos[cid].sizing for cid in priced),
            acquire=tuple(infos[cid].acquire for cid in priced),
            inputs_of=tuple(infos[cid].inputs_of or cid for cid in priced),
            barred=tuple(cid for cid in priced if infos[cid].blocking),
            rent=tuple(cid for cid in rent if cid in priced),
            objectives=tuple(self.objectives),
            shortfall_rent=shortfall_rent, closing=closing,
            assigned=tuple(tuple(infos[cid].workloads) for cid in priced),
            portfolios=portfolios(self.loaded, infos, priced, [w[0] for w in workloads],
                                  {a[0]: list(a[2:]) for a in api}),
            api=api,
            held=tuple(infos[cid].card if infos[cid].acquire in ("buy", "hybrid")
                       and infos[cid].card
                       in self.sc.policy.holds_stock else "" for cid in priced),
            deliveries=tuple(infos[cid].deliveries if infos[cid].acquire != "rent" else 0
                             for cid in priced),
        )
        return Resolved(structure=structure, inputs=dict(self.inputs), candidates=infos,
                        file=self.loaded.file, scenario_data=self.sc.model_dump(mode="json"),
                        catalog_digest=self.catalog.digest(), usd_to_currency=self.fx,
                        read_by_resolve=frozenset(self.inputs.read), scenario=self.sc)

    # --- helpers ---------------------------------------------------------------------------

    def given(self, where: list[str], value: float, spec: InputSpec) -> Input:
        """An input the scenario gives at `where`, checked against its plausible range."""
        problem = value_problem(value, spec, self.sc.currency, self.fx)
        if problem:
            raise self.loaded.error(problem, where)
        return Input(path=".".join(where), value=float(value), spec=spec,
                     source=scenario_source(self.loaded.file), origin="scenario")

    def put(self, inp: Input) -> None:
        self.inputs.put(inp)

    # --- one builder per scenario section --------------------------------------------------

    def assumptions(self) -> None:
        for key, spec in ASSUMPTION_INPUTS.items():
            if key in MODEL_ERRORS:
                continue  # after their P10 and P90 (model_errors)
            if key in self.sc.assumptions:
                self.put(self.given(["assumptions", key], self.sc.assumptions[key], spec))
            elif spec.money:  # in the catalog in USD (`<key>_usd`), in the scenario's currency
                self.put(_fig_input(f"assumptions.{key}", self.catalog.assumption(f"{key}_usd"),
                                    spec, self.fx, self.fx_note and f"{self.fx_note}: "))
            else:
                self.put(_fig_input(f"assumptions.{key}", self.catalog.assumption(key), spec))

        self.model_errors()

    def model_errors(self) -> None:
        """The model's error on a run's time to train, one multiplier per family: 1 at the
        point value; its range is the family's P10 and P90 (themselves assumptions, fitted on
        the model's out-of-sample errors), which Monte Carlo draws lognormally between."""
        for key, family in MODEL_ERRORS.items():
            spec = ASSUMPTION_INPUTS[key]
            if key in self.sc.assumptions:
                self.put(self.given(["assumptions", key], self.sc.assumptions[key], spec))
                continue
            p10 = self.inputs[f"assumptions.model_error_p10_{family}"]
            p90 = self.inputs[f"assumptions.model_error_p90_{family}"]
            self.put(Input(path=f"assumptions.{key}", value=1.0, spec=spec, low=p10.value,
                           high=p90.value, as_of=p90.as_of, origin="derived",
                           source="the model's point value (1); Monte Carlo draws it "
                                  f"lognormally with P10 {p10.value:g} and P90 {p90.value:g} "
                                  f"(assumptions.model_error_p10_{family}, _p90_{family})"))

    def top_level(self) -> None:
        for key, spec in TOP_INPUTS.items():
            self.put(self.given([key], getattr(self.sc, key), spec))

    def finance(self) -> None:
        fin = self.sc.finance
        for key, spec in FINANCE_INPUTS.items():
            value = getattr(fin, key)
            if key == "financed_fraction" and value is None:
                value = 1.0 if fin.purchase == "finance" else 0.0
            self.put(self.given(["finance", key], value, spec))
        term = self.inputs["finance.loan_term_years"].value
        if term > fin.horizon_years and self.inputs["finance.financed_fraction"].value > 0:
            raise self.loaded.error(
                f"loan term {int(term)} years is longer than the horizon "
                f"({fin.horizon_years} years); shorten the term or lengthen the horizon",
                ["finance", "loan_term_years"])
        self.lease_terms()

    def lease_terms(self) -> None:
        """The lease's terms (finance.lease_*), when a candidate leases: the rate, the
        lessor's residual and the deposit from the catalog unless given."""
        fin = self.sc.finance
        given = [k for k in LEASE_INPUTS
                 if getattr(fin, k) != type(fin).model_fields[k].default]
        if not any(c.acquire == "lease" for c in self.sc.candidates):
            if given:
                raise self.loaded.error(f"'{given[0]}' is not used by this scenario: no "
                                        "candidate has acquire: lease", ["finance", given[0]])
            return
        for key, spec in LEASE_INPUTS.items():
            value = getattr(fin, key)
            if value is None:
                self.put(_fig_input(f"finance.{key}", self.catalog.assumption(key), spec))
            else:
                self.put(self.given(["finance", key], value, spec))
        term = self.inputs["finance.lease_term_months"].value
        horizon_months = 12 * fin.horizon_years
        if term < horizon_months and self.inputs["finance.lease_buyout"].value < 0.5:
            raise self.loaded.error(
                f"a lease of {int(term)} months that returns the hardware (lease_buyout 0) "
                f"ends before the horizon ({horizon_months} months); give a term of at least "
                f"{horizon_months} months, or lease_buyout: 1 to buy the hardware at the end "
                "of the term", ["finance", "lease_term_months"])

    def team(self) -> None:
        team = self.sc.team
        for key, spec in TEAM_INPUTS.items():
            if getattr(team, key) is not None:
                self.put(self.given(["team", key], getattr(team, key), spec))
            else:
                self.put(_fig_input(f"team.{key}", self.catalog.assumption(f"{key}_usd"), spec,
                                    self.fx, self.fx_note and f"{self.fx_note}: "))
        for stack_id in self.catalog.stacks:
            where = ["team", "familiarity", stack_id]
            if stack_id in team.familiarity:
                self.put(self.given(where, team.familiarity[stack_id], FAMILIARITY_SPEC))
            else:
                self.put(Input(path=".".join(where), value=1.0 if stack_id == "cuda" else 0.0,
                               spec=FAMILIARITY_SPEC, origin="default",
                               source="default: a CUDA team, new to other stacks"))
        for stack_id in team.familiarity:
            if stack_id not in self.catalog.stacks:
                raise self.loaded.error(
                    f"unknown stack '{stack_id}'{did_you_mean(stack_id, self.catalog.stacks)}",
                    ["team", "familiarity", stack_id])

    def facility(self) -> None:
        sc, catalog = self.sc, self.catalog
        try:
            region = catalog.region(sc.facility.region)
        except UnknownId as exc:
            raise self.loaded.error(str(exc), ["facility", "region"]) from None
        region_fx = self.fx / catalog.usd_to(region.currency)
        conv = "" if region.currency == sc.currency else (
            f"{region.currency} x {region_fx:g} {sc.currency}/{region.currency}: ")
        for key, spec in FACILITY_INPUTS.items():
            given = getattr(sc.facility, key)
            if given is not None:
                self.put(self.given(["facility", key], given, spec))
            else:
                scale = region_fx if spec.money else 1.0
                self.put(_fig_input(f"facility.{key}", getattr(region, key), spec, scale, conv))

    def workloads(self) -> list[tuple[str, str, str]]:
        out = []
        for w in self.sc.workloads:
            base = ["workloads", w.id]
            for key, spec in WORKLOAD_INPUTS.items():
                if w.kind == "serve" and key not in SERVE_SHARED:
                    continue
                given = getattr(w, key)
                if given is not None:
                    self.put(self.given(base + [key], given, spec))
                    continue
                if key in WORKLOAD_ZERO_DEFAULTS:
                    self.put(Input(path=".".join(base + [key]), value=0.0, spec=spec,
                                   origin="default",
                                   source=f"default: {WORKLOAD_ZERO_DEFAULTS[key]}"))
                    continue
                # a default read from another input (recorded: see the module's docstring)
                source = "params" if key == "active_params" else f"assumptions.{key}"
                path = ".".join(base + [source]) if key == "active_params" else source
                inp = self.given(base + [key], self.inputs[path].value, spec)
                inp.source = ("equal to params (dense model)" if key == "active_params"
                              else source)
                inp.origin = "default"
                self.put(inp)
            p = ".".join(base)
            if self.inputs[f"{p}.active_params"].value > self.inputs[f"{p}.params"].value:
                raise self.loaded.error("active_params cannot exceed params",
                                        base + ["active_params"])
            if w.kind == "serve":
                self.serve_inputs(w)
            out.append((w.id, w.precision, w.kind))
        if all(w.kind != "serve" and w.runs_per_year == 0 for w in self.sc.workloads):
            first = self.sc.workloads[0].id
            raise self.loaded.error(
                "every workload has runs_per_year 0: the plan has no work to cost (renting it "
                "would cost nothing); give at least one run a year",
                ["workloads", first, "runs_per_year"])
        unused = [k for k in SERVE_ASSUMPTIONS if k in self.sc.assumptions]
        if unused and not self.serve_assumed:
            raise self.loaded.error(f"'{unused[0]}' is a serving assumption and no workload "
                                    "serves (kind: serve)", ["assumptions", unused[0]])
        return out

    def serve_inputs(self, w: Workload) -> None:
        """A serving workload's traffic, request shape and objective (given ones only: no
        objective is an offline workload; tokens_per_s_per_user is given as tpot_ms)."""
        base = ["workloads", w.id]
        for key, spec in SERVE_INPUTS.items():
            value = getattr(w, key)
            if key == "tpot_ms" and w.tokens_per_s_per_user is not None:
                inp = self.given(base + ["tokens_per_s_per_user"],
                                 1000 / w.tokens_per_s_per_user, spec)
                inp.path = ".".join(base + [key])
                inp.source += f" (1000 / tokens_per_s_per_user {w.tokens_per_s_per_user:g})"
                self.put(inp)
                self.objectives.append(inp.path)
            elif value is not None:
                self.put(self.given(base + [key], value, spec))
                if key in ("ttft_ms", "tpot_ms"):
                    self.objectives.append(".".join(base + [key]))
            elif key == "peak_to_average":
                self.put(Input(path=".".join(base + [key]), value=1.0, spec=spec,
                               origin="default", source="default: traffic flat over the day"))
            elif key in ("layers", "kv_heads", "head_dim"):
                self.put(Input(path=".".join(base + [key]), value=0.0, spec=spec,
                               origin="default", source="default: inferred from the "
                               "parameters (docs/methodology.md §18)"))
        if not self.serve_assumed:
            self.serve_assumed = True
            for key, spec in SERVE_ASSUMPTIONS.items():
                if key in self.sc.assumptions:
                    self.put(self.given(["assumptions", key], self.sc.assumptions[key], spec))
                else:
                    self.put(_fig_input(f"assumptions.{key}", self.catalog.assumption(key),
                                        spec))

    # --- candidates ------------------------------------------------------------------------

    def candidate(self, c: Candidate, precisions: list[str]) -> tuple[CandidateInfo, bool]:
        """The candidate's inputs, what is known of it besides numbers, and whether it has a
        cloud price."""
        base = ["candidates", c.id]
        card, platform, stack = self.hardware(c)
        cooling = self.catalog.cooling_option(c.cooling or platform.default_cooling)
        info = CandidateInfo(
            id=c.id, name=c.name or card.name, card=card.id, card_name=card.name,
            vendor=card.vendor, platform=platform.id, platform_name=platform.name,
            cooling=cooling.id, stack=stack.id, stack_name=stack.name, sizing="cards",
        )
        figs, rent_note = self.figures(card, platform, stack, cooling, precisions)
        p = ".".join(base)
        for key, (fig, scale, note) in figs.items():
            spec = CANDIDATE_INPUTS[key]
            if key in c.overrides:
                self.put(self.given(base + [key], c.overrides[key], spec))
            elif key == "cooling_capex_per_kw":
                self.put(Input(path=f"{p}.{key}", value=0.0, spec=spec, low=0.0, high=0.0,
                               source="colocation: the provider's cooling plant is in the "
                                      f"colocation price (catalog plant capex: {fig.best:g} "
                                      "USD/kW, set cooling_capex_per_kw to pay for your own)",
                               origin="default"))
            elif key == "stack_efficiency" and card.mfu_basis == "as-deployed":
                self.put(Input(path=f"{p}.{key}", value=1.0, spec=spec, low=1.0, high=1.0,
                               source=f"catalog: the MFU of {card.id} was measured as a team "
                                      "new to the stack deploys it; no factor on top",
                               origin="default"))
            elif fig is None:
                prec = key.removeprefix("peak_tflops_")
                info.infeasible.append(f"{card.name} has no {prec.upper()} support")
                self.put(Input(path=f"{p}.{key}", value=0.0, spec=spec,
                               source=f"catalog: {card.id} has no {prec.upper()} support",
                               origin="catalog"))
            else:
                self.put(_fig_input(f"{p}.{key}", fig, spec, scale, note and f"{note}: "))
        if "cloud_price_per_card_hour" not in figs and "cloud_price_per_card_hour" not in \
                c.overrides:
            self.shortfall_price(c, card, p)
        for key in c.overrides:
            if key in figs or f"{p}.{key}" in self.inputs:  # shortfall_price_per_card_hour
                continue
            if key not in ("cloud_price_per_card_hour", "rent_reserved_fraction",
                           "on_demand_price_per_card_hour"):
                raise self.loaded.error(f"'{key}' is not used by this scenario", base + [key])
            self.put(self.given(base + [key], c.overrides[key], CANDIDATE_INPUTS[key]))
        if f"{p}.cloud_price_per_card_hour" in self.inputs:
            self.rent_terms(p)
        info.acquire = c.acquire
        info.workloads = assigned_workloads(self.loaded, c)
        if info.workloads:
            info.notes.append(f"carries {', '.join(info.workloads)} only: a part of the plan, "
                              "costed whole in a portfolio")
        if c.acquire in ("rent", "hybrid") and f"{p}.cloud_price_per_card_hour" not in \
                self.inputs:
            raise self.loaded.error(
                f"{c.acquire} rents, and renting needs a cloud price: the catalog has none "
                f"for '{card.id}'; give "
                "cloud_price_per_card_hour (per card-hour) for this candidate",
                base + ["acquire"])
        self.size_rule(c, info)
        self.layout_pins(c)
        self.deliveries(c, info)
        self.risk_policy(card, stack, info)
        lift_bars(self.loaded, card.id, info)
        if stack.id != "cuda" and card.mfu_basis == "vendor-tuned":
            info.notes.append(f"MFU: the vendor-tuned figure x the team factor for "
                              f"{stack.name.split(' (')[0]} (by team.familiarity)")
        stock = self.sc.policy.holds_stock.get(card.id)
        if stock is not None and c.acquire in ("buy", "hybrid"):
            info.notes.append(held_note(card.name))
        if c.notes:
            info.notes.append(c.notes)
        if rent_note:
            info.notes.append(rent_note)
        info.rent_tier = self.rent_tier(card, c)
        return info, f"{p}.cloud_price_per_card_hour" in self.inputs

    def deliveries(self, c: Candidate, info: CandidateInfo) -> None:
        """Phased deliveries of an owned option: each one's share and lead time as inputs
        (`candidates.<id>.delivery.<k>.share`, `.lead_time_weeks`), the shares checked to make
        the whole cluster."""
        if not c.deliveries:
            return
        where = ["candidates", c.id, "deliveries"]
        if c.acquire == "lease":
            raise self.loaded.error("deliveries of a leased option are not modelled (the "
                                    "lease commences at one delivery); give lead_time_weeks",
                                    where)
        if c.acquire == "rent":
            raise self.loaded.error("deliveries are for an owned option (buy or hybrid); a "
                                    "rented one needs no delivery", where)
        if info.card in self.sc.policy.holds_stock:
            raise self.loaded.error(
                f"deliveries with held stock of '{info.card}' (policy.holds_stock) are not "
                "modelled; give the bought cards' lead_time_weeks instead", where)
        total = 0.0
        for k, d in enumerate(c.deliveries, start=1):
            for key, spec in DELIVERY_INPUTS.items():
                inp = self.given(["candidates", c.id, "delivery", str(k), key],
                                 getattr(d, key), spec)
                self.put(inp)
            total += d.share
        if abs(total - 1) > 1e-6:
            raise self.loaded.error(f"the deliveries' shares add up to {total:g}; expected 1 "
                                    "(the whole cluster)", where)
        info.deliveries = len(c.deliveries)
        info.notes.append("delivered in parts (share of the cluster / lead time in weeks): "
                          + ", ".join(f"{d.share:.0%} / {d.lead_time_weeks:.3g}"
                                      for d in c.deliveries))

    def hardware(self, c: Candidate) -> tuple[Accelerator, object, Stack]:
        base = ["candidates", c.id]
        catalog = self.catalog
        try:
            card = catalog.card(c.card)
        except UnknownId as exc:
            raise self.loaded.error(str(exc), base + ["card"]) from None
        try:
            platform = catalog.platform(c.platform or card.default_platform)
        except UnknownId as exc:
            raise self.loaded.error(str(exc), base + ["platform"]) from None
        if card.id not in platform.cards:
            raise self.loaded.error(
                f"platform '{platform.id}' does not host '{card.id}' (it hosts "
                f"{', '.join(platform.cards)})", base + ["platform"])
        try:
            stack = catalog.stack(c.stack or card.stack)
        except UnknownId as exc:
            raise self.loaded.error(str(exc), base + ["stack"]) from None
        return card, platform, stack

    def figures(self, card: Accelerator, platform: Platform, stack: Stack, cooling: Cooling,
                precisions: list[str]) -> tuple[dict[str, tuple[Figure | None, float, str]], str]:
        """Each catalog figure of a candidate by input key: (figure, scale to the scenario's
        currency, note on the conversion); and a note on the cloud price chosen."""
        fx, fx_note, sc = self.fx, self.fx_note, self.sc
        price = self.catalog.card_prices[card.id]
        figs: dict[str, tuple[Figure | None, float, str]] = {
            "card_price": (price.price_usd, fx, fx_note),
            "lead_time_weeks": (price.lead_time_weeks, 1.0, ""),
            "mfu": (card.mfu, 1.0, ""),
            "stack_efficiency": (stack.efficiency_vs_cuda, 1.0, ""),
            **({"mfu_fp8": (card.mfu_fp8 or card.mfu, 1.0,
                            "" if card.mfu_fp8 else "no FP8 figure, the BF16 one")}
               if {"fp8", "int8", "fp4"} & set(precisions) else {}),
            "memory_gb": (card.memory_gb, 1.0, ""),
            "tdp_w": (card.tdp_w, 1.0, ""),
            "scaleup_bandwidth_bidir_gb_per_s": (card.scaleup_bandwidth_bidir_gb_per_s, 1.0, ""),
            "scaleup_domain_cards": (card.scaleup_domain_cards, 1.0, ""),
            "cards_per_node": (platform.cards_per_node, 1.0, ""),
            "node_price": (platform.node_price_usd, fx, fx_note),
            "node_power_w": (platform.node_power_w, 1.0, ""),
            "scaleout_bandwidth_gb_per_s": (platform.scaleout_bandwidth_gb_per_s, 1.0, ""),
            "network_cost_per_card": (platform.network_cost_per_card_usd, fx, fx_note),
            "card_failure_rate_per_hour": (self.failure_rate(card), 1.0, ""),
            "pue": (cooling.pue, 1.0, ""),
            "cooling_capex_per_kw": (cooling.capex_per_kw_usd, fx, fx_note),
            "porting_engineer_months": (
                getattr(stack, f"porting_engineer_months_{sc.team.porting_complexity}"), 1.0, ""),
            "maintenance_engineer_months_per_year": (
                stack.maintenance_engineer_months_per_year, 1.0, ""),
            "licence_per_card_year": (stack.licence_per_card_year_usd, fx, fx_note),
        }
        for prec in precisions:
            figs[f"peak_tflops_{prec}"] = (card.peak(prec), 1.0, "")
        # decode reads memory, and so do small expert GEMMs (a mixture of experts)
        figs["memory_bandwidth_gb_per_s"] = (card.memory_bandwidth_gb_per_s, 1.0, "")
        rent_note = ""
        cloud = self.catalog.cloud_prices.get(card.id)
        if cloud is not None:
            fig, tier, rent_note = tier_figure(cloud, sc.rent_pricing)
            scale, note = fx, fx_note
            if tier == "spot":  # the price of a useful card-hour: preempted work is paid too
                over = self.inputs["assumptions.spot_overhead_fraction"].value
                scale, note = fx * (1 + over), (
                    f"spot price x (1 + {over:g} spot overhead, "
                    f"assumptions.spot_overhead_fraction){fx_note}")
            figs["cloud_price_per_card_hour"] = (fig, scale, note)
            figs["rent_reserved_fraction"] = (self.reserved(tier), 1.0, "")
            figs["on_demand_price_per_card_hour"] = (cloud.on_demand_usd_per_card_hour, fx,
                                                     fx_note)
        return figs, rent_note

    def failure_rate(self, card: Accelerator) -> Figure:
        """Interruptions per card-hour: the card class's own measured figure, else the
        assumption's (which a scenario's assumptions.card_failure_rate_per_hour overrides
        for every card)."""
        given = self.inputs["assumptions.card_failure_rate_per_hour"]
        if card.failure_rate_per_card_hour is not None and given.origin != "scenario":
            return card.failure_rate_per_card_hour
        src = "scenario" if given.origin == "scenario" else given.source
        if given.low is not None and given.high is not None and given.low < given.high:
            return Figure(low=given.low, typical=given.value, high=given.high, source=src,
                          as_of=given.as_of or "2026-12")
        return Figure(value=given.value, source=src, as_of=given.as_of or "2026-12")

    def rent_terms(self, p: str) -> None:
        """A cloud price the scenario gives for a card the catalog has none for: its tier's
        reservation, and the price itself as its on-demand alternative."""
        if f"{p}.rent_reserved_fraction" not in self.inputs:
            self.put(_fig_input(f"{p}.rent_reserved_fraction", self.reserved(self.sc.rent_pricing),
                                CANDIDATE_INPUTS["rent_reserved_fraction"]))
        if f"{p}.on_demand_price_per_card_hour" not in self.inputs:
            given = self.inputs[f"{p}.cloud_price_per_card_hour"]
            self.put(Input(path=f"{p}.on_demand_price_per_card_hour", value=given.value,
                           spec=CANDIDATE_INPUTS["on_demand_price_per_card_hour"],
                           low=given.low, high=given.high, as_of=given.as_of, origin="derived",
                           source="the cloud price given: no on-demand figure of its own"))

    def reserved(self, tier: str) -> Figure:
        """The share of a rented cluster's hours paid used or not: a committed reservation is
        take-or-pay (assumptions.committed_reserved_fraction); on-demand and spot are paid per
        hour used."""
        if tier in ("committed", "committed_3yr"):
            given = self.inputs["assumptions.committed_reserved_fraction"]
            return Figure(value=given.value, as_of=given.as_of or "2026-12",
                          source=f"{tier_label(tier)} prices reserve the cluster for the term: "
                                 "assumptions.committed_reserved_fraction (" + given.source + ")")
        return Figure(value=0.0, as_of="2026-12",
                      source=f"{tier_label(tier)} prices are paid per hour used: nothing is "
                             "reserved")

    def rent_tier(self, card: Accelerator, c: Candidate) -> str:
        """The tier whose price rents this card: the scenario's, or the one a missing figure
        falls back to; a price the scenario gives is taken at the scenario's tier."""
        cloud = self.catalog.cloud_prices.get(card.id)
        if "cloud_price_per_card_hour" in c.overrides:
            return self.sc.rent_pricing
        return "" if cloud is None else tier_figure(cloud, self.sc.rent_pricing)[1]

    def shortfall_price(self, c: Candidate, card: Accelerator, p: str) -> None:
        """A card with no cloud price: the rent of the same peak compute on the cheapest card
        a cloud sells (tco.shortfall_price), or the scenario's own figure."""
        key, spec = "shortfall_price_per_card_hour", CANDIDATE_INPUTS["shortfall_price_per_card_hour"]
        if key in c.overrides:
            self.put(self.given(["candidates", c.id, key], c.overrides[key], spec))
            return
        found = cheapest_rent(self.catalog, card, self.sc.facility.region, self.sc.rent_pricing)
        if found is not None:
            self.put(Input(path=f"{p}.{key}", value=found.usd_per_card_hour * self.fx,
                           spec=spec, low=found.low_usd * self.fx, high=found.high_usd * self.fx,
                           source=found.source + self.fx_note, as_of=found.as_of,
                           origin="derived"))

    def size_rule(self, c: Candidate, info: CandidateInfo) -> None:
        """The cluster size: given, or a target (deadline or power cap) the engine sizes for."""
        base = ["candidates", c.id]
        if c.cards == "auto" and c.acquire == "hybrid":
            # every base delivers the plan (the rest is rented): auto would keep the smallest
            raise self.loaded.error(
                "cards: auto sizes an owned cluster to the smallest that delivers the plan; a "
                "hybrid rents whatever its base cannot do, so every size delivers it and auto "
                "would keep the smallest that runs; give cards: N for the base it owns (or "
                "acquire: buy with cards: auto)", base + ["cards"])
        if c.cards == "auto":  # the engine sizes it to deliver the plan (sizing "plan")
            info.sizing = "plan"
            self.inputs.put(Input(path=f"{'.'.join(base)}.cards", value=1.0,
                                  spec=CANDIDATE_INPUTS["cards"],
                                  source="to be sized to deliver the plan (cards: auto)",
                                  origin="derived"))
            return
        if c.cards is not None:
            self.put(self.given(base + ["cards"], c.cards, CANDIDATE_INPUTS["cards"]))
            return
        kind = "deadline_days" if c.deadline_days is not None else "power_cap_kw"
        if kind == "deadline_days" and self.sc.workloads[0].kind == "serve":
            raise self.loaded.error(
                "deadline_days sizes the cluster for a run of the first workload, which serves; "
                "give cards, or list a training workload first", base + [kind])
        value = float(getattr(c, kind))
        if not (math.isfinite(value) and value > 0):
            raise self.loaded.error(f"expected a positive number, found {value!r}", base + [kind])
        self.put(self.given(base + [kind], value, TARGET_INPUTS[kind]))
        info.sizing = kind
        p = ".".join(base)
        # a placeholder until the engine sizes it (tco.engine.size_clusters)
        self.inputs.put(Input(path=f"{p}.cards", value=1.0, spec=CANDIDATE_INPUTS["cards"],
                              source=f"to be sized for {kind}", origin="derived"))

    def layout_pins(self, c: Candidate) -> None:
        """One input per layout degree and workload: pinned by the scenario, or a placeholder
        the engine's layout search fills in (tco.layout)."""
        base = ["candidates", c.id, "layout"]
        wids = [w.id for w in self.sc.workloads]
        kinds = {w.id: w.kind for w in self.sc.workloads}
        for wid in c.layout:
            if wid not in wids:
                raise self.loaded.error(f"unknown workload '{wid}'{did_you_mean(wid, wids)}",
                                        base + [wid])
            if c.workloads and wid not in c.workloads:
                raise self.loaded.error(
                    f"pins a layout for workload '{wid}', which this option does not carry "
                    f"(its workloads: {', '.join(c.workloads)})", base + [wid])
            other = sorted(set(c.layout[wid]) - {"tp"})
            if kinds[wid] == "serve" and other:
                raise self.loaded.error(
                    f"a serving workload is laid out by its tensor-parallel degree only: "
                    f"expected tp, found {', '.join(other)}", base + [wid, other[0]])
        for wid in wids:
            pins = c.layout.get(wid, {})
            for key, spec in LAYOUT_INPUTS.items():
                where = base + [wid, key]
                if key in pins:
                    self.put(self.given(where, pins[key], spec))
                else:
                    self.put(Input(path=".".join(where),
                                   value=float(key not in ("recompute", "zero3", "zero2", "hsdp")),
                                   spec=spec, source="to be chosen by the layout search",
                                   origin="derived"))

    def risk_policy(self, card: Accelerator, stack: Stack, info: CandidateInfo) -> None:
        """Risk flags (short; the catalog record holds the evidence); some bar buying here."""
        region = self.sc.facility.region
        if region in card.export_restricted_regions:
            place = self.catalog.region(region).place or region
            info.blocking.append(f"export control: {card.name} is restricted in {place}")
        if "gaming_license" in card.flags:
            info.blocking.append(
                "licence: the GeForce driver licence does not permit data-centre deployment")
        info.flags.extend(info.blocking)
        if stack.id != "cuda" or "immature_stack" in card.flags:
            info.flags.append(
                f"software: {stack.name} is not CUDA; porting effort and an efficiency "
                "penalty are priced in")
        if "single_vendor_supply" in card.flags:
            info.flags.append(f"supply: single vendor ({card.vendor}), constrained supply")

    def rent_options(self, infos: dict[str, CandidateInfo], rent: list[str]) -> list[str]:
        """With `rent_options: auto`, an option renting each owned card (bought, leased or
        hybrid) that has a cloud price (and is not rented by a listed option already): the card
        and cluster size of the first candidate owning it, read from that candidate's inputs.
        Their ids, added to `infos`."""
        if self.sc.rent_options != "auto":
            return []
        done = {info.card for info in infos.values() if info.acquire == "rent"}
        wids = [w.id for w in self.sc.workloads]
        made = []
        for cid in list(infos):
            info = infos[cid]
            if (info.acquire == "rent" or info.infeasible or cid not in rent
                    or info.card in done):
                continue
            if not all(info.carries(w) for w in wids):
                continue  # renting part of the plan is not an option for the whole of it
            done.add(info.card)
            gid = f"{cid}-rent"
            while gid in infos:
                gid += "-rent"
            # the tier actually used: a card with no figure at the scenario's tier falls back
            notes = [(f"renting the card and cluster size of '{cid}' at "
                     f"{tier_label(info.rent_tier)} cloud prices (rent_options: auto)")]
            cloud = self.catalog.cloud_prices.get(info.card)
            if cloud is not None and info.rent_tier != self.sc.rent_pricing:
                notes.append(tier_figure(cloud, self.sc.rent_pricing)[2])
            infos[gid] = replace(
                info, id=gid, name=f"{info.name}, rented", acquire="rent", inputs_of=cid,
                flags=list(info.flags), blocking=list(info.blocking), infeasible=[],
                notes=notes)
            made.append(gid)
        return made

    def check_stock_used(self, infos: dict[str, CandidateInfo]) -> None:
        """Held stock is drawn on by the owned (bought or hybrid) options of its card; stock
        that no option draws on would be costed nowhere, most likely a card id that is not the
        one the options buy."""
        owned = {info.card for info in infos.values() if info.acquire in ("buy", "hybrid")}
        for card in self.sc.policy.holds_stock:
            if card not in owned:
                cards = ", ".join(sorted(owned)) or "none"
                raise self.loaded.error(
                    f"no bought or hybrid option uses card '{card}', so its held stock would "
                    f"be costed nowhere (cards the options buy: {cards}); add an option of that "
                    "card, or remove the stock", ["policy", "holds_stock", card])

    def check_rent_term(self) -> None:
        """A 3-year commitment outlasting the horizon: its later years would be owed and not
        counted, so the tier's price would be had for less than its term."""
        years = self.sc.finance.horizon_years
        if self.sc.rent_pricing == "committed_3yr" and years < 3:
            raise self.loaded.error(
                f"3-year committed prices commit for 3 years, longer than the {years}-year "
                "horizon (finance.horizon_years): the years after it would be owed and not "
                "counted; rent at committed (1-year) or on_demand prices, or set a horizon "
                "of at least 3 years", ["rent_pricing"])

    def check_licences_used(self, infos: dict[str, CandidateInfo]) -> None:
        """A licence lifts a bar of a card an option uses; one that lifts nothing (no option
        uses the card, or nothing bars it in this region) is most likely the wrong card id or
        region, and would print a claim that changes no figure."""
        for card in self.sc.policy.holds_licence:
            mine = [info for info in infos.values() if info.card == card]
            where = ["policy", "holds_licence"]
            if not mine:
                cards = ", ".join(sorted({info.card for info in infos.values()}))
                raise self.loaded.error(
                    f"no option uses card '{card}', so its licence would lift nothing (cards "
                    f"of the options: {cards}); add an option of that card, or remove it",
                    where)
            if not any(LIFTED in flag for info in mine for flag in info.flags):
                raise self.loaded.error(
                    f"card '{card}' is not barred in region '{self.sc.facility.region}' (no "
                    "export control or licence bar to lift), so the licence changes nothing; "
                    "remove it, or check facility.region", where)

    def check_distributions(self) -> None:
        for path in self.sc.distributions:
            if path not in self.inputs:
                raise self.loaded.error(f"no input '{path}'{did_you_mean(path, self.inputs)}",
                                        ["distributions", path])
            spec = dict.__getitem__(self.inputs, path).spec
            if spec.structural or spec.integer:  # Monte Carlo would leave it at its value
                why = ("it sets the shape of the model (how many years are computed)"
                       if spec.structural else "it is a whole number")
                raise self.loaded.error(
                    f"Monte Carlo cannot draw {path}: {why}; remove this distribution and "
                    f"compare values with `tco whatif --set {path}=...` instead",
                    ["distributions", path])
