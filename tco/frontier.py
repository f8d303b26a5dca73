"""The throughput-interactivity frontier of each serving workload on each option
(docs/methodology.md §18): the output tokens per second per card the option reaches at each
interactivity (output tokens per second per user), with the tensor-parallel degree and
precision that reach it and the cost per million output tokens there, and the operating point
the workload's own objective picks.

Nothing here is a formula of its own: the model's serving quantities are evaluated over an
array of objectives (the time per output token the interactivity allows, as the objective's
percentile states it) and every layout the search would try (tco.layout.serve_grid), and each
interactivity keeps the combination the search would keep (tco.layout.best_serving).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .model import Model
    from .resolved import Resolved, Structure


class Result(Protocol):
    """What the frontier reads of an engine result (tco.result.Result): read through this
    shape, so that the result may compute its frontiers lazily without the two modules
    importing each other."""

    structure: Structure
    resolved: Resolved | None
    env: Any  # the evaluated inputs and quantities (None on a quick result)
    model: Model
    candidates: Any  # the ranked CandidateResults

# Interactivities tried, output tokens per second per user (mean): 2 to 500, geometric, and
# the round levels the tables show.
GRID_POINTS = 48
GRID_LOW, GRID_HIGH = 2.0, 500.0
LEVELS = (5.0, 10.0, 20.0, 30.0, 50.0, 75.0, 100.0, 150.0, 200.0)
TARGETS = ("tokens_per_s_per_card", "fits_memory", "meets_objective", "step_seconds",
           "tpot_ms", "tpot_p99_ms", "ttft_ms", "batch_sequences",
           "cost_per_million_output_tokens", "tpot_objective_ratio")


@dataclass(frozen=True)
class FrontierPoint:
    tokens_per_s_per_user: float  # 1000 / the mean time per output token
    tokens_per_s_per_card: float  # output tokens
    tpot_ms: float  # mean
    tpot_p99_ms: float
    ttft_ms: float  # mean
    tensor_parallel: int
    precision: str
    batch_sequences: float
    cost_per_million_output_tokens: float

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Frontier:
    candidate: str
    workload: str
    points: tuple[FrontierPoint, ...]  # by interactivity, rising
    operating: FrontierPoint | None  # at the workload's own objective (None: not served)
    percentile: float  # the percentile the workload's objectives state

    def as_dict(self) -> dict[str, Any]:
        return {"candidate": self.candidate, "workload": self.workload,
                "latency_percentile": self.percentile,
                "operating_point": None if self.operating is None else self.operating.as_dict(),
                "points": [p.as_dict() for p in self.points]}


def serving_workloads(result: Result) -> list[str]:
    return [wid for wid, _p, kind in result.structure.workloads if kind == "serve"]


def frontiers(result: Result) -> dict[str, dict[str, Frontier]]:
    """workload -> candidate -> its frontier, for every option that serves the workload and is
    priced (an infeasible one too: its frontier says what it could do)."""
    out: dict[str, dict[str, Frontier]] = {}
    if result.resolved is None or result.env is None:
        return out
    for wid in serving_workloads(result):
        row: dict[str, Frontier] = {}
        for c in result.candidates:
            if c.priced and c.info.carries(wid) and wid in c.jobs:
                row[c.id] = frontier(result, c.id, wid)
        out[wid] = row
    return out


def frontier(result: Result, cid: str, wid: str) -> Frontier:
    import numpy as np

    from . import layout
    from .model.serving import precision_name

    assert result.resolved is not None and result.env is not None
    env_all = result.env
    names = [f"{cid}.{wid}.{t}" for t in TARGETS]
    sub = result.model.feeding(names)
    env = {p: env_all[p] for p in sub.inputs_used() if p in env_all}
    values = {p: inp.value for p, inp in result.resolved.inputs.items()}
    inputs_of = result.resolved.candidates[cid].inputs_id
    cards = values[f"candidates.{inputs_of}.cards"]
    combos = layout.serve_grid(values, result.resolved, inputs_of, wid, cards)
    ratio = float(np.asarray(env_all[f"{cid}.{wid}.tpot_objective_ratio"]).reshape(-1)[0])
    users = np.unique(np.concatenate([np.geomspace(GRID_LOW, GRID_HIGH, GRID_POINTS),
                                      np.asarray(LEVELS)]))
    arr = np.asarray(combos, dtype=float)
    env[f"workloads.{wid}.tpot_ms"] = (1000.0 / users * ratio)[:, None]
    for i, d in enumerate(layout.DEGREES):
        env[layout.layout_path(inputs_of, wid, d)] = arr[:, i]
    code_path = layout.layout_path(inputs_of, wid, "precision")
    if code_path in env:
        env[code_path] = arr[:, len(layout.DEGREES)]
    got_all = sub.evaluate(env)
    shape = (len(users), len(combos))
    got = {t: np.broadcast_to(np.asarray(got_all[f"{cid}.{wid}.{t}"], dtype=float), shape)
           for t in TARGETS}
    pick = layout.best_serving(got, combos, cards)
    ok = (got["fits_memory"] > 0) & (got["meets_objective"] > 0) & (arr[:, 0] <= cards)
    points = []
    for g in range(len(users)):
        k = int(pick[g])
        if not ok[g, k]:
            continue
        code = combos[k][-1]
        prec = precision_name(code) if code >= 0 else result.structure.allowed(wid)[0]
        points.append(_point({t: float(got[t][g, k]) for t in TARGETS}, int(combos[k][0]),
                             prec))
    job = next(c for c in result.candidates if c.id == cid).jobs[wid]
    operating = None
    if job.get("meets_objective") and job.get("fits_memory"):
        code = values.get(code_path)
        prec = precision_name(code) if code is not None and len(
            result.structure.allowed(wid)) > 1 else result.structure.allowed(wid)[0]
        operating = _point(job, int(job["tensor_parallel"]), prec)
    return Frontier(cid, wid, tuple(_pareto(points)), operating,
                    values[f"workloads.{wid}.latency_percentile"])


def at_level(fr: Frontier, level: float) -> FrontierPoint | None:
    """The most output tokens per second per card at `level` tokens per second per user or
    more (the frontier's first point at or above it), None when out of reach."""
    return next((p for p in fr.points if p.tokens_per_s_per_user >= level * (1 - 1e-9)), None)


def _point(q: dict[str, float], tp: int, prec: str) -> FrontierPoint:
    return FrontierPoint(
        tokens_per_s_per_user=1000.0 / q["tpot_ms"], tokens_per_s_per_card=q["tokens_per_s_per_card"],
        tpot_ms=q["tpot_ms"], tpot_p99_ms=q["tpot_p99_ms"], ttft_ms=q["ttft_ms"],
        tensor_parallel=tp, precision=prec, batch_sequences=q["batch_sequences"],
        cost_per_million_output_tokens=q["cost_per_million_output_tokens"])


def _pareto(points: list[FrontierPoint]) -> list[FrontierPoint]:
    """The points no other beats on both interactivity and throughput, by interactivity (two
    objectives can give the same batch: the duplicate is dropped)."""
    out: list[FrontierPoint] = []
    for p in sorted(points, key=lambda p: (-p.tokens_per_s_per_user, -p.tokens_per_s_per_card)):
        if not out or p.tokens_per_s_per_card > out[-1].tokens_per_s_per_card * (1 + 1e-9):
            out.append(p)
    return out[::-1]
