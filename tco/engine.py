"""compute(scenario, catalog) -> Result: the one entry point every command and exporter uses.

    resolve (tco.resolve) -> choose (tco.sizing, tco.layout) -> evaluate -> assemble

`compute` = `resolve` (validation against the catalog) + `evaluate` (this module: make the
discrete choices still open, the cluster sizes and layouts; evaluate the model; assemble the
Result). `evaluate` needs neither pydantic nor, unless a cluster must be sized, numpy: a
what-if of a kept `Resolved` starts quickly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .gcpause import paused_gc
from .inputs import site_path
from .model import COMPONENTS, JOB_COMPONENTS, Model, build_model
from .resolve.rent_tiers import tier_label
from .resolved import CandidateInfo, Resolved, input_values, with_values
from .result import COMPLETE_FRACTION, CandidateResult, PortfolioResult, Provenance, Result
from .sizing import MAX_SIZING_NODES, primary_of, size_clusters, sizing_inputs
from .version import __version__

if TYPE_CHECKING:
    from .catalog import Catalog
    from .scenario import Loaded

# a rented option whose plan costs less on demand than reserved (tco.model.cloud.rental)
ON_DEMAND_NOTE = ("rents on demand: paying for the hours used costs less over the horizon than "
                  "a committed reservation paid for every hour")


def rent_notes(notes: list[str], own: int, tier: str, on_demand: bool) -> list[str]:
    """A rented option's notes as its choice of tier says (tco.model.cloud.rental): renting
    at `tier`'s prices, or on demand with ON_DEMAND_NOTE after its `own` resolver notes."""
    said, od = f"at {tier_label(tier)} cloud prices", "at on-demand cloud prices"
    out = [n.replace(od, said) for n in notes if n != ON_DEMAND_NOTE]
    if not on_demand:
        return out
    out = [n.replace(said, od) for n in out]
    return out[:own] + [ON_DEMAND_NOTE] + out[own:]


def scenario_digest(scenario_data: Mapping[str, Any]) -> str:
    blob = json.dumps(scenario_data, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def resolve_scenario(loaded: Loaded, catalog: Catalog) -> Resolved:
    """Every input of a scenario (tco.resolve), its `benchmarks:` solved for their
    efficiencies first (tco.measured inverts the model, a layer above resolving)."""
    from .resolve import resolve

    if not loaded.scenario.benchmarks:
        return resolve(loaded, catalog, ())
    from .measured import resolve_benchmarks

    return resolve(loaded, catalog, resolve_benchmarks(loaded, catalog))


def compute(loaded: Loaded, catalog: Catalog) -> Result:
    """Evaluate every candidate of a scenario."""
    with paused_gc():
        return evaluate(resolve_scenario(loaded, catalog))


def evaluate(resolved: Resolved, model: Model | None = None) -> Result:
    """Size the clusters not sized yet, evaluate the model (built for `resolved.structure`
    unless given) and assemble the Result (whose `resolved` holds the sizes)."""
    with paused_gc():
        if model is None:
            model = build_model(resolved.structure)
        resolved = size_clusters(model, resolved)
        result = assemble(resolved, model, evaluate_model(model, input_values(resolved)))
        result.planner = plans_of
        return result


def plans_of(result: Result, restricted: bool = True) -> list[Any]:
    """The plans of `result` (tco.plan): the cheapest plan and (`restricted`) one per typed
    option, each with its quantities as inputs and its money as quantities of a model of its
    own."""
    from .plan import MAX_SUPPLIES, plan_all
    from .plan.build import supplies

    infos = {c.id: c.info for c in result.candidates}
    if not result.structure.candidates or len(supplies(result.structure, infos)) > MAX_SUPPLIES:
        return []
    with paused_gc():
        return plan_all(result, restricted_plans=restricted, start=result.plan_start,
                        solved=result.plan_solved)


TWINS_EVALUATED_TOGETHER = 8  # twins of at least this many are evaluated as arrays


def evaluate_model(model: Model, values: dict[str, float]) -> dict[str, Any]:
    """`model.evaluate(values)`, the same numbers in the same order, with each group of at
    least TWINS_EVALUATED_TOGETHER twins (tco/twins.py) evaluated at once."""
    from . import twins

    if not twins.GROUPED:
        return model.evaluate(values)
    done: dict[str, list[Any]] = {}
    for group in twins.groups(model, model.structure.candidates):
        if len(group.members) >= TWINS_EVALUATED_TOGETHER:
            done.update(twins.values_of_members(group, model, values) or {})
    env: dict[str, Any] = dict(values)
    qs, i = model.quantities, 0
    while i < len(qs):
        q = qs[i]
        rows = done.get(q.candidate)
        own = model.of_candidate(q.candidate) if rows is not None else ()
        # a candidate's quantities follow each other in the model (tco.model.build)
        if (rows is None or own[0] is not q or i + len(own) > len(qs)
                or qs[i + len(own) - 1] is not own[-1]):
            env[q.name] = q.expr.evaluate(env)
            i += 1
            continue
        env.update(zip([x.name for x in own], rows))
        i += len(own)
    return env


def edited(resolved: Resolved, model: Model, values: Mapping[str, float], file: str
           ) -> Resolved | None:
    """`resolved` with input values changed as resolving the edited scenario would give it, the
    clusters whose size depends on a changed input to be sized again; None when an input
    resolve derives others from changed (see tco.resolved.with_values)."""
    out = with_values(resolved, dict(values), file)
    if out is None:
        return None
    again = {cid for cid in out.sized if sizing_inputs(model, out, cid) & set(values)}
    return replace(out, sized=out.sized - again)


def _first(v: object) -> float:
    """A quantity's value as a float (a one-element array from sizing included)."""
    if isinstance(v, (int, float)):
        return float(v)
    import numpy as np

    return float(np.asarray(v).reshape(-1)[0])


@dataclass(frozen=True)
class _Places:
    """Where the Result keeps a candidate's quantities, by their places in its
    `model.of_candidate`: its values (key, place), each workload's and each year's."""

    values: tuple[tuple[str, ...], tuple[int, ...]]
    jobs: tuple[tuple[str, tuple[str, ...], tuple[int, ...]], ...]
    years: tuple[tuple[tuple[str, ...], tuple[int, ...]], ...]

    def fill(self, got: list[float]) -> tuple[dict[str, float], dict[str, dict[str, float]],
                                              list[dict[str, float]]]:
        """(values, jobs, yearly) of a candidate whose quantities' values are `got`."""
        keys, at = self.values
        return (dict(zip(keys, [got[i] for i in at])),
                {wid: dict(zip(keys, [got[i] for i in at])) for wid, keys, at in self.jobs},
                [{"year": float(t), **dict(zip(keys, [got[i] for i in at]))}
                 for t, (keys, at) in enumerate(self.years)])


def _places(model: Model, cid: str, kept: dict[Any, _Places]) -> _Places:
    """`cid`'s _Places: a year's or a workload's quantity under its name's last part, any
    other under the rest of its name after the id (ids may contain dots). The same for
    twins (tco/twins.py): `kept` keeps them by Shape."""
    from . import twins

    sh = twins.shapes(model).get(cid)
    out = kept.get(sh) if sh is not None and twins.GROUPED else None
    if out is not None:
        return out
    values: dict[str, int] = {}
    jobs: dict[str, dict[str, int]] = {}
    years: list[dict[str, int]] = []
    for i, q in enumerate(model.of_candidate(cid)):
        if q.year is not None:
            years.extend({} for _ in range(q.year + 1 - len(years)))
            years[q.year][q.name.rsplit(".", 1)[1]] = i
        elif q.workload is not None:
            jobs.setdefault(q.workload, {})[q.name.rsplit(".", 1)[1]] = i
        else:
            values[q.name[len(cid) + 1:]] = i
    out = kept[sh] = _Places((tuple(values), tuple(values.values())),
                             tuple((w, tuple(k), tuple(k.values())) for w, k in jobs.items()),
                             tuple((tuple(k), tuple(k.values())) for k in years))
    return out


def assemble(resolved: Resolved, model: Model, env: Mapping[str, object]) -> Result:
    st = resolved.structure
    candidates = []
    own_inputs = inputs_by_candidate(resolved)
    places: dict[Any, _Places] = {}
    for cid, info in resolved.candidates.items():
        reasons = list(info.infeasible)
        values: dict[str, float] = {}
        yearly: list[dict[str, float]] = []
        jobs: dict[str, dict[str, float]] = {}
        notes = list(info.notes)
        cand_inputs = own_inputs[cid]
        if cid in st.candidates:
            got = [env[q.name] for q in model.of_candidate(cid)]
            values, jobs, yearly = _places(model, cid, places).fill(
                [v if type(v) is float else _first(v) for v in got])
            if not values["feasible"]:
                budget = resolved.inputs.get(site_path(info.site, "power_budget_kw"))
                reasons += infeasible_reasons(info, cand_inputs, values, {
                    wid: job for wid, job in jobs.items() if info.carries(wid)},
                    None if budget is None else budget.value)
            if values.get("rent_on_demand") and info.rent_tier.startswith("committed"):
                # tco.model.cloud.rental: on demand costs less than the reservation
                notes = rent_notes(notes, len(info.notes), info.rent_tier, True)
                info = replace(info, rent_tier="on_demand")
            if not reasons and values["runs_completed_fraction"] < COMPLETE_FRACTION:
                notes.append(completes_note(values["runs_completed_fraction"]))
            if info.sizing == "plan":
                notes.append(f"sized to {int(cand_inputs['cards']):,} cards to deliver the "
                             "plan (cards: auto)")
            elif info.sizing != "cards":
                target = cand_inputs[info.sizing]
                unit = "days" if info.sizing == "deadline_days" else "kW"
                notes.append(f"sized to {int(cand_inputs['cards']):,} cards for "
                             f"{info.sizing.replace('_days', '').replace('_kw', '')} "
                             f"{target:g} {unit}")
        candidates.append(CandidateResult(
            id=cid, info=info, feasible=not reasons, reasons=reasons, notes=notes,
            inputs=cand_inputs, values=values, jobs=jobs, yearly=yearly,
            primary_workload=primary_of(resolved, cid),
        ))
    provenance = Provenance(
        tool_version=__version__, catalog_digest=resolved.catalog_digest,
        scenario_digest=scenario_digest(resolved.scenario_data), scenario_file=resolved.file,
        catalog_files=resolved.catalog_files,
    )
    return Result(
        scenario_data=resolved.scenario_data, structure=st, inputs=resolved.inputs,
        candidates=rank(candidates, resolved.structure.decision_basis), provenance=provenance, model=model,
        components=COMPONENTS, job_components=JOB_COMPONENTS, validated=resolved.scenario,
        resolved=resolved, env=env if isinstance(env, dict) else dict(env), portfolios=portfolio_results(resolved, model, env),
        api_options=api_results(resolved, model, env),
    )


def completes_note(fraction: float) -> str:
    """The note of a cluster that completes fewer runs than planned (the live report writes it
    again from this sentence when a reader's change moves the fraction)."""
    return f"the cluster completes only {fraction:.0%} of the planned runs per year"


def portfolio_results(resolved: Resolved, model: Model, env: Mapping[str, object]
                      ) -> list[PortfolioResult]:
    """Each portfolio's quantities (tco/model/portfolio.py), ranked by tier then NPV."""
    names = {p["id"]: p.get("name") or p["id"]
             for p in resolved.scenario_data.get("portfolios", [])}
    out = []
    for pid, *options in resolved.structure.portfolios:
        values = {q.name[len(pid) + 1:]: _first(env[q.name]) for q in model.of_candidate(pid)}
        out.append(PortfolioResult(pid, names.get(pid, pid), list(options), values))
    basis = resolved.structure.decision_basis
    return sorted(out, key=lambda p: (p.tier, decision_npv(p.values, basis), p.id))


def api_results(resolved: Resolved, model: Model, env: Mapping[str, object]
                ) -> list[CandidateResult]:
    """Each per-token API option (tco/model/api.py) as a result shaped like a candidate's,
    ranked by tier then NPV; `inputs` holds its prices."""
    out = []
    for aid, name, *workloads in resolved.structure.api:
        values: dict[str, float] = {}
        jobs: dict[str, dict[str, float]] = {}
        for q in model.of_candidate(aid):
            key, v = q.name.rsplit(".", 1)[1], _first(env[q.name])
            if q.workload is not None:
                jobs.setdefault(q.workload, {})[key] = v
            else:
                values[key] = v
        p = f"api_options.{aid}."
        inputs = {k[len(p):]: i.value for k, i in resolved.inputs.items() if k.startswith(p)}
        info = CandidateInfo(id=aid, name=name, card="", card_name=name, vendor="",
                             platform="", platform_name="", cooling="", stack="",
                             stack_name="", sizing="api", acquire="api",
                             workloads=list(workloads))
        out.append(CandidateResult(aid, info, True, [], [], {"cards": 0.0, **inputs}, values,
                                   jobs, [], workloads[0]))
    basis = resolved.structure.decision_basis
    return sorted(out, key=lambda c: (int(c.values["tier"]), decision_npv(c.values, basis),
                                      c.id))


def infeasible_reasons(info: CandidateInfo, inputs: Mapping[str, float],
                       values: Mapping[str, float], jobs: Mapping[str, Mapping[str, float]],
                       budget_kw: float | None = None) -> list[str]:
    """Why the model's `feasible` is false, in words: one reason per flag that failed. The
    model decides (tco.model); this only says which of its rules did. `budget_kw`: the power
    budget of the option's site, when it has one."""
    reasons = []
    for wid, job in jobs.items():
        if "tokens_per_s_per_card" in job:  # a serving workload
            reasons += serving_reasons(wid, job, inputs)
        elif not job["fits_memory"]:
            reasons.append(
                f"{wid}: needs {job['memory_needed_gb']:.1f} GB per card, "
                f"{job['memory_usable_gb']:.1f} GB usable"
                f" ({int(inputs['cards']):,} cards x {inputs['memory_gb']:g} GB)")
    for wid, job in jobs.items():
        if job.get("goodput", 1.0) <= 0:
            reasons.append(f"{wid}: the cluster is interrupted too often to make progress "
                           f"(goodput {job['goodput']:.2f})")
    where = f"site '{info.site}'" if info.site else "the facility"
    largest = (f"up to {int(inputs['cards_per_node'] * MAX_SIZING_NODES):,} cards"
               if budget_kw is None else
               f"within the {budget_kw:g} kW power budget of {where}")
    if not values.get("meets_deadline", 1.0):
        reasons.append(f"no cluster {largest} finishes a run within "
                       f"{inputs['deadline_days']:g} days")
    if not values.get("meets_plan", 1.0):
        reasons.append(f"no cluster {largest} delivers the whole plan within the horizon")
    if not values.get("within_power_cap", 1.0):
        reasons.append(
            f"{'one server' if inputs['cards'] <= inputs['cards_per_node'] else 'the cluster'} "
            f"needs {values['facility_power_kw']:,.1f} kW, over the "
            f"{inputs['power_cap_kw']:g} kW power cap")
    if not values.get("within_power_budget", 1.0):
        reasons.append(
            f"{'one server' if inputs['cards'] <= inputs['cards_per_node'] else 'the cluster'} "
            f"needs {values['facility_power_kw']:,.1f} kW, over the {budget_kw:g} kW power "
            f"budget of {where}")
    if not reasons:  # a rule the model gained that has no words yet still shows
        reasons.append("infeasible by the model's rules")
    return reasons


def serving_reasons(wid: str, job: Mapping[str, float], inputs: Mapping[str, float]
                    ) -> list[str]:
    """Why a serving workload cannot be served: it does not fit, the objective cannot be met,
    or the cluster is smaller than the peak needs (tco.model.serving's flags)."""
    tp = int(job["tensor_parallel"])
    if not job["fits_memory"]:
        return [(f"{wid}: the weights and one sequence need {job['memory_needed_gb']:.1f} "
                 f"GB per card at tensor parallel {tp}, {job['memory_usable_gb']:.1f} GB "
                 f"usable ({inputs['memory_gb']:g} GB cards)")]
    if not job["meets_objective"]:
        return [(f"{wid}: the latency objective cannot be met on this card (best: first "
                 f"token in {job['ttft_ms']:,.0f} ms, {job['tpot_ms']:.1f} ms per token at "
                 f"tensor parallel {tp}, one sequence per replica)")]
    if not job.get("serves_peak", 1.0):
        return [(f"{wid}: the peak needs {int(job['cards_needed']):,} cards, the cluster "
                 f"has {int(inputs['cards']):,}")]
    return []


def inputs_by_candidate(resolved: Resolved) -> dict[str, dict[str, float]]:
    """For each candidate, the value of every input under `candidates.<id>.`, by the rest of
    its path, in input order (in one pass over the inputs: ids may contain dots, so every dot
    of a path is tried as the end of an id)."""
    out: dict[str, dict[str, float]] = {cid: {} for cid in resolved.candidates}
    generated = {cid: info.inputs_of for cid, info in resolved.candidates.items()
                 if info.inputs_of}
    for path, inp in resolved.inputs.items():
        if not path.startswith("candidates."):
            continue
        rest = path[len("candidates."):]
        dot = rest.find(".")
        while dot != -1:
            own = out.get(rest[:dot])
            if own is not None:
                own[rest[dot + 1:]] = inp.value
            dot = rest.find(".", dot + 1)
    for cid, source in generated.items():  # a generated option reads its source's inputs
        out[cid] = out[source]
    return out


def decision_npv(values: Mapping[str, float], basis: str) -> float:
    """The NPV options are ranked on (methodology §14, §20): the NPV of TCO, or the NPV after
    income tax when the scenario's decision basis (`Structure.decision_basis`,
    `finance.decision_basis`) is after_tax."""
    return float(values["npv_tco_after_tax" if basis == "after_tax" else "npv_tco"])


def rank(candidates: list[CandidateResult], basis: str = "pre_tax") -> list[CandidateResult]:
    """By the model's tier (tco.model.tier_formula), then NPV (`decision_npv`) within it,
    then id."""
    return sorted(candidates, key=lambda c: (tier(c), decision_npv(c.values, basis)
                                             if c.feasible else 0.0, c.id))


def tier(c: CandidateResult) -> int:
    """The candidate's ranking tier: the model's, 3 when it could not be priced."""
    return int(c.values["tier"]) if c.priced else 3
