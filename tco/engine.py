"""compute(scenario, catalog) -> Result: the one entry point every command and exporter uses.

`compute` = `resolve` (tco.scenario: validation against the catalog) + `evaluate` (this module:
size the clusters, evaluate the model, assemble the Result). `evaluate` needs neither pydantic
nor, unless a cluster must be sized, numpy: a what-if of a kept `Resolved` starts quickly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from . import __version__
from .gcpause import paused_gc
from .inputs import Input
from .model import COMPONENTS, JOB_COMPONENTS, Model, build_model
from .rent_tiers import tier_label
from .resolved import CandidateInfo, Resolved, with_values
from .result import COMPLETE_FRACTION, CandidateResult, PortfolioResult, Provenance, Result

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


MAX_SIZING_NODES = 20000  # the largest cluster sizing will consider, in servers
COARSE_SIZES = 48  # sizes of the geometric grid the layout is searched on while sizing


def scenario_digest(scenario_data: Mapping[str, Any]) -> str:
    blob = json.dumps(scenario_data, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def input_values(resolved: Resolved) -> dict[str, float]:
    return {path: inp.value for path, inp in resolved.inputs.items()}


# Sizing tries whole servers: the grid of sizes reads this input besides the model's formulas.
SIZE_STEP_INPUT = "cards_per_node"


def _sizing_targets(resolved: Resolved, cid: str) -> list[str]:
    """The quantities the size of `cid` is chosen by (the first three), and its layouts."""
    primary = primary_of(resolved, cid)
    return [f"{cid}.feasible", f"{cid}.runnable", f"{cid}.{primary}.wall_days"] + [
        f"{cid}.{wid}.step_seconds" for wid, _p, _k in resolved.structure.workloads]


def primary_of(resolved: Resolved, cid: str) -> str:
    """The first workload option `cid` carries (every option carries the plan's first unless
    it is assigned others): its run is the deadline's and the headline's."""
    info = resolved.candidates[cid]
    return next(wid for wid, _p, _k in resolved.structure.workloads if info.carries(wid))


def sizing_inputs(model: Model, resolved: Resolved, cid: str) -> set[str]:
    """Every input the size and the layouts the engine picks for `cid` depend on."""
    p = f"candidates.{cid}"
    chosen = {path for path in model.inputs_feeding(_sizing_targets(resolved, cid))
              if path.startswith(f"{p}.layout.")}
    own = {f"{p}.cards"} if resolved.candidates[cid].sizing != "cards" else set()
    return ((model.inputs_feeding(_sizing_targets(resolved, cid)) | {f"{p}.{SIZE_STEP_INPUT}"})
            - own - chosen)


def size_clusters(model: Model, resolved: Resolved) -> Resolved:
    """`resolved` with a card count for each candidate sized for a deadline or power cap and
    not sized yet: the smallest feasible size for a deadline, the fastest feasible size within
    a power cap. When no size is feasible the model's flags say why: the size kept is the
    fastest that runs (deadline) or the largest within the cap (power).

    All sizes of a candidate are evaluated at once as an array (1..MAX_SIZING_NODES servers).
    """
    st = resolved.structure
    # a generated rent option reads its source's size and layout: only own inputs are chosen
    todo = [cid for cid, own in zip(st.candidates, st.inputs_of)
            if cid == own and cid not in resolved.sized]
    if not todo:
        return resolved
    from . import layout

    values = input_values(resolved)
    inputs = dict(resolved.inputs)
    formulas: dict[Any, Any] = {}  # the sizing formulas of the first twin of each Shape
    with layout.memo():  # twins of one card and size choose their layouts once
        for cid, kind in zip(st.candidates, st.sizing):
            if cid in todo and kind != "cards":
                inputs[f"candidates.{cid}.cards"] = _size(model, resolved, cid, values,
                                                          formulas)
        out = replace(resolved, inputs=inputs, sized=resolved.sized | set(todo))
        return layout.choose(model, out, todo)


def _sizing_formulas(model: Model, resolved: Resolved, cid: str,
                     formulas: dict[Any, Any] | None) -> tuple[str, Model, Model, Any]:
    """(first twin, the model of the sizing targets, of feasibility alone, its names ->
    cid's): made once per Shape (tco/twins.py) when `formulas` keeps them, else cid's own."""
    from . import twins

    sh = twins.shapes(model).get(cid)
    if formulas is None or sh is None or not twins.GROUPED:
        targets = _sizing_targets(resolved, cid)
        return cid, model.feeding(targets[:3]), model.feeding(targets[:1]), lambda n: n
    if sh not in formulas:
        targets = _sizing_targets(resolved, cid)
        formulas[sh] = (cid, model.feeding(targets[:3]), model.feeding(targets[:1]))
    first, needs, feasible = formulas[sh]
    return first, needs, feasible, twins.pair(model, first, cid).rename


def _size(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
          formulas: dict[Any, Any] | None = None) -> Input:
    """The `cards` input of `cid` sized for its deadline or power cap (see size_clusters).
    Within one sizing (`formulas` kept), a twin whose inputs the choice reads (its formulas',
    the layout search's, the pinned degrees) have the same values as an earlier one's gets
    the same size without the search."""
    p = f"candidates.{cid}"
    kind = resolved.candidates[cid].sizing
    key = _sizing_key(model, resolved, cid, values, formulas)
    if key is None or formulas is None:
        cards = _sized_cards(model, resolved, cid, values, formulas)
    else:
        if key not in formulas:
            formulas[key] = _sized_cards(model, resolved, cid, values, formulas)
        cards = formulas[key]
    return replace(resolved.inputs[f"{p}.cards"], value=cards, low=cards, high=cards,
                   source="sized to deliver the plan (cards: auto)" if kind == "plan"
                   else f"sized for {kind} = {values[f'{p}.{kind}']:g}")


def _sizing_key(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
                formulas: dict[Any, Any] | None) -> tuple[Any, ...] | None:
    """What the size of `cid` depends on besides the scenario's shared inputs: its Shape and
    the value of every input of its own the sizing reads (None: not remembered)."""
    from . import layout, twins

    sh = twins.shapes(model).get(cid)
    if formulas is None or sh is None or not twins.GROUPED:
        return None
    first, needs, _feasible, rename = _sizing_formulas(model, resolved, cid, formulas)
    reads = formulas.get(("reads", sh))
    if reads is None:
        names = set(needs.inputs_used())
        for wid, _p, kind in resolved.structure.workloads:
            names.update(model.feeding(layout.targets(first, wid, kind == "serve"))
                         .inputs_used())
            names.update(layout._grid_reads(first, wid))
        p = f"candidates.{first}"
        names.update({f"{p}.{SIZE_STEP_INPUT}", f"{p}.{resolved.candidates[first].sizing}"})
        reads = formulas[("reads", sh)] = sorted(names)
    pins = tuple(tuple(sorted(layout.pinned(resolved, cid, wid).items()))
                 for wid, _p, _k in resolved.structure.workloads)
    return ("size", sh, pins, tuple(values.get(rename(n)) for n in reads))


def _sized_cards(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
                 formulas: dict[Any, Any] | None = None) -> float:
    """The card count `_size` gives `cid`.

    Each size is evaluated with the best layout at the nearest smaller size of a coarse
    geometric grid (tco.layout.per_size); the layout at the chosen size is chosen after.
    The formulas evaluated are those of the first twin of cid's Shape in `formulas` (the
    same as cid's but for the names), on cid's values. A deadline's (or the plan's) smallest
    size is looked for among the FIRST_SIZES smallest first: when one of them is feasible
    the sizes after it cannot change the choice, and each size's numbers are the same
    whatever the length of the array they are computed in (numpy, element by element)."""
    import numpy as np

    from . import layout

    first, needs, feasible_model, rename = _sizing_formulas(model, resolved, cid, formulas)
    p = f"candidates.{cid}"
    trial = values[f"{p}.{SIZE_STEP_INPUT}"] * np.arange(1, MAX_SIZING_NODES + 1,
                                                           dtype=float)
    coarse = np.unique(np.round(np.geomspace(1, MAX_SIZING_NODES, COARSE_SIZES)))
    coarse_cards = values[f"{p}.{SIZE_STEP_INPUT}"] * coarse
    at = np.searchsorted(coarse_cards, trial, side="right") - 1
    # Only the quantities the choice reads, from only the inputs they read: the other
    # formulas of the candidate (cash flows, ...) over every size, or a copy of every
    # input of a scenario of many candidates, would take longer than the sizing.
    own: dict[str, Any] = {path: values[rename(path)] for path in needs.inputs_used()}
    chosen = layout.per_size(model, resolved, cid, coarse_cards, values)
    kind = resolved.candidates[cid].sizing
    smallest = kind in ("deadline_days", "plan")
    for n in ((FIRST_SIZES, MAX_SIZING_NODES) if smallest else (MAX_SIZING_NODES,)):
        env = {**own, **{path: chosen[rename(path)][at[:n]]
                         for path in _layout_paths(resolved, first)},
               f"candidates.{first}.cards": trial[:n]}
        env = needs.evaluate(env)
        feasible, runnable, wall = (np.broadcast_to(np.asarray(env[name], dtype=float), (n,))
                                    for name in _sizing_targets(resolved, first)[:3])
        feasible, runnable = feasible > 0, runnable > 0
        if smallest and feasible.any():
            # deadline, plan: the first (smallest) size meeting it
            pick = _confirmed(model, resolved, cid, values, own, np.nonzero(feasible)[0],
                              trial, (first, feasible_model, rename))
            if pick is not None or n == MAX_SIZING_NODES:
                return float(trial[np.nonzero(feasible)[0][0] if pick is None else pick])
        elif n == MAX_SIZING_NODES:
            return float(trial[_unmet_or_capped(kind, feasible, runnable, wall, env, first)])
    raise AssertionError("the last pass evaluates every size")


FIRST_SIZES = 1024  # a deadline's smallest size is looked for among so many servers first


def _unmet_or_capped(kind: str, feasible: Any, runnable: Any, wall: Any,
                     env: Mapping[str, Any], first: str) -> int:
    """Over every size: a power cap's fastest feasible size (past some size more cards only
    slow a run: interruptions grow with size); when none is feasible, the fastest that runs
    (deadline, plan) or the largest within the cap (power)."""
    import numpy as np

    if feasible.any():
        return int(np.argmin(np.where(feasible, wall, np.inf)))
    if kind in ("deadline_days", "plan"):
        usable = runnable & np.isfinite(wall) & (wall > 0)
        return int(np.argmin(np.where(usable, wall, np.inf))) if usable.any() else 0
    within = np.asarray(env.get(f"{first}.within_power_cap", 0.0)) > 0
    within = np.broadcast_to(within, feasible.shape)
    return int(np.nonzero(within)[0][-1]) if within.any() else 0


def _confirmed(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
               own: dict[str, Any], sizes: Any, trial: Any,
               formulas: tuple[str, Model, Any], tries: int = 8) -> int | None:
    """The first of the trial sizes `sizes` (indices, smallest first, each feasible with the
    coarse grid's layout) that is still feasible with the layout the search picks at exactly
    that size: that choice prefers the simplest of the layouts within 1 % of the fastest, so
    it may miss a deadline the grid's layout met by less than that; when none of the first
    `tries` is, the first. None when there are fewer than `tries` sizes and none of them is:
    a size past those evaluated might be (with every size evaluated, the caller keeps the
    first). `formulas`: (first twin, its feasibility's model, its names -> cid's), `own` in
    the first twin's names."""
    import numpy as np

    from . import layout

    first, needs, rename = formulas
    paths = _layout_paths(resolved, first)
    for i in sizes[:tries]:
        cards = trial[i:i + 1]
        chosen = layout.at_size(model, resolved, cid, float(cards[0]), values)
        env = {**own, **{path: chosen[rename(path)] for path in paths},
               f"candidates.{first}.cards": cards}
        if np.asarray(needs.evaluate(env)[f"{first}.feasible"]).ravel()[0] > 0:
            return int(i)
    return int(sizes[0]) if len(sizes) >= tries else None


def _layout_paths(resolved: Resolved, cid: str) -> list[str]:
    """The layout inputs of `cid` (every degree of every workload)."""
    from .layout import layout_path
    from .model.step import DEGREES

    return [layout_path(cid, wid, d) for wid, _p, _k in resolved.structure.workloads
            for d in DEGREES]


def compute(loaded: Loaded, catalog: Catalog) -> Result:
    """Evaluate every candidate of a scenario."""
    from .resolver import resolve

    with paused_gc():
        return evaluate(resolve(loaded, catalog))


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


def plans_of(result: Result) -> list[Any]:
    """The plans of `result` (tco.plan): the cheapest plan and one per typed option, each
    with its quantities as inputs and its money as quantities of a model of its own."""
    from .plan import MAX_SUPPLIES, plan_all
    from .plan.build import supplies

    infos = {c.id: c.info for c in result.candidates}
    if not result.structure.candidates or len(supplies(result.structure, infos)) > MAX_SUPPLIES:
        return []
    with paused_gc():
        return plan_all(result)


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
                reasons += infeasible_reasons(info, cand_inputs, values, {
                    wid: job for wid, job in jobs.items() if info.carries(wid)})
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
    )
    return Result(
        scenario_data=resolved.scenario_data, structure=st, inputs=resolved.inputs,
        candidates=rank(candidates), provenance=provenance, model=model,
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
    return sorted(out, key=lambda p: (p.tier, p.values["npv_tco"], p.id))


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
    return sorted(out, key=lambda c: (int(c.values["tier"]), c.values["npv_tco"], c.id))


def infeasible_reasons(info: CandidateInfo, inputs: Mapping[str, float],
                       values: Mapping[str, float], jobs: Mapping[str, Mapping[str, float]]
                       ) -> list[str]:
    """Why the model's `feasible` is false, in words: one reason per flag that failed. The
    model decides (tco.model); this only says which of its rules did."""
    reasons = []
    for wid, job in jobs.items():
        if "tokens_per_s_per_card" in job:  # a serving workload
            reasons += serving_reasons(wid, job, inputs)
        elif not job["fits_memory"]:
            reasons.append(
                f"{wid}: needs {job['memory_needed_gb']:.1f} GB per card, "
                f"{job['memory_usable_gb']:.1f} GB usable"
                f" ({int(inputs['cards']):,} cards x {inputs['memory_gb']:g} GB)")
    if values["goodput"] <= 0:
        reasons.append(f"the cluster is interrupted too often to make progress "
                       f"(goodput {values['goodput']:.2f})")
    largest = int(inputs["cards_per_node"] * MAX_SIZING_NODES)
    if not values.get("meets_deadline", 1.0):
        reasons.append(f"no cluster up to {largest:,} cards finishes a run within "
                       f"{inputs['deadline_days']:g} days")
    if not values.get("meets_plan", 1.0):
        reasons.append(f"no cluster up to {largest:,} cards delivers the whole plan within "
                       "the horizon")
    if not values.get("within_power_cap", 1.0):
        reasons.append(
            f"{'one server' if inputs['cards'] <= inputs['cards_per_node'] else 'the cluster'} "
            f"needs {values['facility_power_kw']:,.1f} kW, over the "
            f"{inputs['power_cap_kw']:g} kW power cap")
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


def rank(candidates: list[CandidateResult]) -> list[CandidateResult]:
    """By the model's tier (tco.model.tier_formula), then NPV of TCO within it, then id."""
    return sorted(candidates, key=lambda c: (tier(c), c.values["npv_tco"]
                                             if c.feasible else 0.0, c.id))


def tier(c: CandidateResult) -> int:
    """The candidate's ranking tier: the model's, 3 when it could not be priced."""
    return int(c.values["tier"]) if c.priced else 3
