"""compute(scenario, catalog) -> Result: the one entry point every command and exporter uses.

`compute` = `resolve` (tco.scenario: validation against the catalog) + `evaluate` (this module:
size the clusters, evaluate the model, assemble the Result). `evaluate` needs neither pydantic
nor, unless a cluster must be sized, numpy: a what-if of a kept `Resolved` starts quickly.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from . import __version__
from .expr import IF, Expr, ExprLike, lift
from .gcpause import paused_gc
from .model import COMPONENTS, JOB_COMPONENTS, Model, build_model
from .resolved import Resolved, with_values
from .result import COMPLETE_FRACTION, CandidateResult, Provenance, Result

if TYPE_CHECKING:
    from .catalog import Catalog
    from .scenario import Loaded

MAX_SIZING_NODES = 20000  # the largest cluster sizing will consider, in servers


def scenario_digest(scenario_data: Mapping[str, Any]) -> str:
    blob = json.dumps(scenario_data, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]


def input_values(resolved: Resolved) -> dict[str, float]:
    return {path: inp.value for path, inp in resolved.inputs.items()}


def sizing_inputs(model: Model, resolved: Resolved, cid: str) -> set[str]:
    """Every input the size `size_clusters` picks for `cid` depends on."""
    primary = resolved.structure.workloads[0][0]
    p = f"candidates.{cid}"
    return (model.inputs_feeding([f"{cid}.feasible", f"{cid}.{primary}.wall_days",
                                  f"{cid}.rated_power_w"])
            | {f"{p}.cards_per_node", f"{p}.pue"}) - {f"{p}.cards"}


def size_clusters(model: Model, resolved: Resolved, values: dict[str, float]) -> None:
    """Pick card counts for candidates sized by deadline or power cap and not sized yet; the
    size goes into `values` and `resolved.inputs`, and `resolved.sized` records why no size
    meets the target ("" when one does).

    All candidate sizes are evaluated at once as an array (1..MAX_SIZING_NODES servers).
    """
    primary = resolved.structure.workloads[0][0]
    for cid, (kind, target) in resolved.sizing.items():
        if cid not in resolved.structure.candidates or cid in resolved.sized:
            continue
        import numpy as np

        reason = ""
        per_node = values[f"candidates.{cid}.cards_per_node"]
        trial = per_node * np.arange(1, MAX_SIZING_NODES + 1, dtype=float)
        # Only the quantities the choice reads, from only the inputs they read: the other
        # formulas of the candidate (cash flows, ...) over every size, or a copy of every
        # input of a scenario of many candidates, would take longer than the sizing.
        needs = model.feeding([f"{cid}.feasible", f"{cid}.{primary}.wall_days",
                               f"{cid}.rated_power_w"])
        own = {p: values[p] for p in needs.inputs_used()}
        own[f"candidates.{cid}.cards"] = trial
        env = needs.evaluate(own)
        feasible = np.asarray(env[f"{cid}.feasible"], dtype=float) > 0
        if kind == "deadline_days":
            wall = np.asarray(env[f"{cid}.{primary}.wall_days"], dtype=float)
            ok = (wall <= target) & feasible
            if ok.any():
                cards = trial[int(np.argmax(ok))]
            else:
                # No size meets the deadline: keep the fastest size that can run at all.
                usable = feasible & np.isfinite(wall) & (wall > 0)
                best = np.argmin(np.where(usable, wall, np.inf)) if usable.any() else 0
                cards = trial[int(best)]
                reason = (f"no cluster up to {int(trial[-1]):,} cards finishes a run "
                          f"within {target:g} days")
        else:
            power_kw = (np.asarray(env[f"{cid}.rated_power_w"], dtype=float)
                        * values[f"candidates.{cid}.pue"] / 1000.0)
            within = power_kw <= target
            ok = within & feasible
            if ok.any():
                # The largest cluster within the cap, unless past some size more cards only
                # slow a run down (interruptions grow with the cluster): then the fastest.
                wall = np.asarray(env[f"{cid}.{primary}.wall_days"], dtype=float)
                cards = trial[int(np.argmin(np.where(ok, wall, np.inf)))]
            elif within.any():
                cards = trial[int(np.nonzero(within)[0][-1])]
                reason = f"no cluster within the {target:g} kW power cap can run the job"
            else:
                cards = trial[0]
                reason = f"one server already needs more than the {target:g} kW power cap"
        values[f"candidates.{cid}.cards"] = float(cards)
        inp = resolved.inputs[f"candidates.{cid}.cards"]
        inp.value = float(cards)
        inp.low = inp.high = float(cards)
        resolved.sized[cid] = reason


def compute(loaded: Loaded, catalog: Catalog) -> Result:
    """Evaluate every candidate of a scenario."""
    from .scenario import resolve

    with paused_gc():
        return evaluate(resolve(loaded, catalog))


def evaluate(resolved: Resolved, model: Model | None = None) -> Result:
    """Size the clusters not sized yet, evaluate the model (built for `resolved.structure`
    unless given) and assemble the Result. Sizes go into `resolved`."""
    with paused_gc():
        if model is None:
            model = build_model(resolved.structure)
        values = input_values(resolved)
        size_clusters(model, resolved, values)
        return assemble(resolved, model, model.evaluate(values))


def edited(resolved: Resolved, model: Model, values: Mapping[str, float], file: str
           ) -> Resolved | None:
    """`resolved` with input values changed as resolving the edited scenario would give it, the
    clusters whose size depends on a changed input to be sized again; None when an input
    resolve derives others from changed (see tco.resolved.with_values)."""
    out = with_values(resolved, dict(values), file)
    if out is None:
        return None
    for cid in list(out.sized):
        if sizing_inputs(model, out, cid) & set(values):
            del out.sized[cid]
    return out


def _first(v: object) -> float:
    """A quantity's value as a float (a one-element array from sizing included)."""
    if isinstance(v, (int, float)):
        return float(v)
    import numpy as np

    return float(np.asarray(v).reshape(-1)[0])


def assemble(resolved: Resolved, model: Model, env: Mapping[str, object]) -> Result:
    st = resolved.structure
    primary = st.workloads[0][0]
    candidates = []
    own_inputs = inputs_by_candidate(resolved)
    for cid, info in resolved.candidates.items():
        reasons = list(info.infeasible)
        values: dict[str, float] = {}
        yearly: list[dict[str, float]] = []
        jobs: dict[str, dict[str, float]] = {}
        notes = list(info.notes)
        cand_inputs = own_inputs[cid]
        if cid in st.candidates:
            for q in model.of_candidate(cid):
                v = _first(env[q.name])
                if q.year is not None:
                    while len(yearly) <= q.year:
                        yearly.append({"year": float(len(yearly))})
                    yearly[q.year][q.name.rsplit(".", 1)[1]] = v
                elif q.workload is not None:
                    jobs.setdefault(q.workload, {})[q.name.rsplit(".", 1)[1]] = v
                else:
                    values[q.name[len(cid) + 1:]] = v  # ids may contain dots
            if resolved.sized.get(cid):
                reasons.append(resolved.sized[cid])
            for wid, job in jobs.items():
                if job["memory_needed_gb"] > job["memory_usable_gb"]:
                    reasons.append(
                        f"{wid}: needs {job['memory_needed_gb']:.1f} GB per card, "
                        f"{job['memory_usable_gb']:.1f} GB usable"
                        f" ({int(cand_inputs['cards']):,} cards x "
                        f"{cand_inputs['memory_gb']:g} GB)")
            if values.get("goodput", 1.0) <= 0:
                reasons.append(
                    f"the cluster is interrupted too often to make progress "
                    f"(goodput {values['goodput']:.2f})")
            if not reasons and values["runs_completed_fraction"] < COMPLETE_FRACTION:
                notes.append(
                    f"the cluster completes only {values['runs_completed_fraction']:.0%} "
                    "of the planned runs per year")
            if info.sizing != "cards":
                target = resolved.sizing[cid][1]
                unit = "days" if info.sizing == "deadline_days" else "kW"
                notes.append(f"sized to {int(cand_inputs['cards']):,} cards for "
                             f"{info.sizing.replace('_days', '').replace('_kw', '')} "
                             f"{target:g} {unit}")
        candidates.append(CandidateResult(
            id=cid, info=info, feasible=not reasons, reasons=reasons, notes=notes,
            inputs=cand_inputs, values=values, jobs=jobs, yearly=yearly, primary_workload=primary,
        ))
    provenance = Provenance(
        tool_version=__version__, catalog_digest=resolved.catalog_digest,
        scenario_digest=scenario_digest(resolved.scenario_data), scenario_file=resolved.file,
    )
    return Result(
        scenario_data=resolved.scenario_data, structure=st, inputs=resolved.inputs,
        candidates=rank(candidates), provenance=provenance, model=model,
        components=COMPONENTS, job_components=JOB_COMPONENTS, validated=resolved.scenario,
        resolved=resolved,
    )


def inputs_by_candidate(resolved: Resolved) -> dict[str, dict[str, float]]:
    """For each candidate, the value of every input under `candidates.<id>.`, by the rest of
    its path, in input order (in one pass over the inputs: ids may contain dots, so every dot
    of a path is tried as the end of an id)."""
    out: dict[str, dict[str, float]] = {cid: {} for cid in resolved.candidates}
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
    return out


def rank(candidates: list[CandidateResult]) -> list[CandidateResult]:
    """Four tiers, each by NPV of TCO: (0) feasible, may be bought here (no export control or
    licence bar) and completes every planned run; (1) may be bought but completes fewer runs;
    (2) feasible but barred; (3) infeasible, by id."""
    return sorted(candidates, key=lambda c: (tier(c), c.values.get("npv_tco", 0.0)
                                             if c.feasible else 0.0, c.id))


def tier_formula(feasible: ExprLike, barred: bool, completed_fraction: ExprLike) -> Expr:
    """The ranking tier as a formula: 0 feasible, may be bought and completes every planned run;
    1 may be bought but completes fewer; 2 feasible but barred (export control, licence);
    3 infeasible. The engine evaluates it on floats, the workbook writes it as a live formula
    over the model's cells, and Monte Carlo evaluates it on arrays of draws."""
    allowed = IF(lift(completed_fraction).ge(COMPLETE_FRACTION), 0.0, 1.0)
    return IF(lift(feasible), 2.0 if barred else allowed, 3.0)


def tier(c: CandidateResult) -> int:
    if not c.priced:
        return 3
    return int(tier_formula(float(c.feasible), bool(c.info.blocking),
                            c.values["runs_completed_fraction"]).evaluate({}))
