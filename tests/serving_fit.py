"""The serving figures fitted on the in-sample cases of tests/data/serving_benchmarks.yaml
(docs/methodology.md §18): `python tests/serving_fit.py` fits them again and prints them.

Each in-sample case is built once (tests/serving_support.scenario) and its model's serving
targets are evaluated over every tensor-parallel degree and a grid of one figure's values at a
time (numpy arrays through the model's own formulas, as the layout search does); the loss is
the root mean square of log(published / modelled) over the in-sample cases (a case the model
cannot serve counts as a log error of CANNOT_SERVE). The search is a coordinate descent: each
figure in turn takes the best of a grid around its value, the grid narrowing as it goes.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).parent))

from serving_support import benchmarks, published, scenario

from tco import layout
from tco.engine import size_clusters
from tco.model import build_model
from tco.resolve import resolve
from tco.scenario import load_scenario_text

CANNOT_SERVE = 3.0  # log error of a case no batch of any layout serves
TARGETS = ("tokens_per_s_per_card", "fits_memory", "meets_objective", "step_seconds")
# The fitted figures: where each lives (a stack's serving figure is a candidate input from
# pricing/stacks.yaml; the others are serving assumptions) and its bounds.
FIGURES: dict[str, tuple[str, str | None, float, float]] = {
    # name: (input key, stack it belongs to or None for an assumption, low, high)
    "cuda.serving_bandwidth_efficiency": ("serving_bandwidth_efficiency", "cuda", 0.3, 1.0),
    "rocm.serving_bandwidth_efficiency": ("serving_bandwidth_efficiency", "rocm", 0.3, 1.0),
    "cuda.serving_step_overhead_s": ("serving_step_overhead_s", "cuda", 0.0, 0.02),
    "rocm.serving_step_overhead_s": ("serving_step_overhead_s", "rocm", 0.0, 0.02),
    "cuda.serving_allreduce_latency_s": ("serving_allreduce_latency_s", "cuda", 0.0, 1e-4),
    "rocm.serving_allreduce_latency_s": ("serving_allreduce_latency_s", "rocm", 0.0, 1e-4),
    "allreduce_hop_latency_s": ("allreduce_hop_latency_s", None, 0.0, 2e-5),
    "fp4_weight_read_ratio": ("fp4_weight_read_ratio", None, 0.1, 1.0),
    "fp4_mfu_ratio": ("fp4_mfu_ratio", None, 0.2, 1.5),
    "decode_mfu_ratio": ("decode_mfu_ratio", None, 0.3, 3.0),
    "prefill_mfu_ratio": ("prefill_mfu_ratio", None, 0.3, 3.0),
}


@dataclass
class Case:
    """One case's serving formulas, ready to evaluate over arrays."""

    case: dict[str, Any]
    stack: str
    model: Any
    env: dict[str, Any]
    combos: list[tuple[float, ...]]
    target: float

    def path(self, figure: str) -> str | None:
        key, stack, _lo, _hi = FIGURES[figure]
        if stack is None:
            return f"assumptions.{key}"
        return f"candidates.cand.{key}" if stack == self.stack else None

    def modelled(self, values: Mapping[str, Any]) -> Any:
        """Output tokens per second per card at the best layout, for figure values (floats
        or arrays of one shape)."""
        env = dict(self.env)
        for name, v in values.items():
            path = self.path(name)
            if path is not None:
                env[path] = np.asarray(v, dtype=float)[..., None]
        arr = np.asarray(self.combos, dtype=float)
        for i, d in enumerate(layout.DEGREES):
            env[layout.layout_path("cand", "serve", d)] = arr[:, i]
        out = self.model.evaluate(env)
        got = {t: np.asarray(out[f"cand.serve.{t}"], dtype=float) for t in TARGETS}
        shape = np.broadcast(*got.values()).shape
        got = {t: np.broadcast_to(v, shape) for t, v in got.items()}
        ok = (got["fits_memory"] > 0) & (got["meets_objective"] > 0)
        return np.max(np.where(ok, got["tokens_per_s_per_card"], 0.0), axis=-1)


def build(catalog: Any, case: dict[str, Any], data: dict[str, Any]) -> Case:
    sc = scenario(catalog, case, data)
    resolved = resolve(load_scenario_text(yaml.safe_dump(sc), "fit"), catalog)
    model = build_model(resolved.structure)
    resolved = size_clusters(model, resolved)
    values = {p: inp.value for p, inp in resolved.inputs.items()}
    feed = model.feeding([f"cand.serve.{t}" for t in TARGETS])
    env = {p: values[p] for p in feed.inputs_used() if p in values}
    combos = layout.serve_grid(values, resolved, "cand", "serve", values["candidates.cand.cards"])
    return Case(case, catalog.card(case["card"]).stack, feed, env, combos,
                published(case, data))


def current(catalog: Any) -> dict[str, float]:
    """The catalog's values of the fitted figures."""
    out = {}
    for name, (key, stack, _lo, _hi) in FIGURES.items():
        fig = getattr(catalog.stack(stack), key) if stack else catalog.assumption(key)
        out[name] = fig.best
    return out


def loss(cases: Sequence[Case], values: Mapping[str, Any]) -> Any:
    """Root mean square log error over `cases` (arrays in `values` give arrays)."""
    total: Any = 0.0
    for c in cases:
        m = c.modelled(values)
        err = np.where(m > 0, np.abs(np.log(c.target / np.where(m > 0, m, 1.0))), CANNOT_SERVE)
        total = total + err ** 2
    return np.sqrt(total / len(cases))


def fit(cases: Sequence[Case], start: Mapping[str, float], rounds: int = 10,
        points: int = 41) -> tuple[dict[str, float], float]:
    """Coordinate descent from `start`: each figure in turn the best of `points` values
    spanning ±spread of its range around it (the whole range at first), the spread halving
    every other round; stops when a round changes no figure at the finest spread."""
    best = dict(start)
    spread = 1.0
    for k in range(rounds):
        for name, (_key, _stack, lo, hi) in FIGURES.items():
            span = (hi - lo) * spread
            grid = np.unique(np.clip(np.linspace(best[name] - span, best[name] + span, points),
                                     lo, hi))
            got = loss(cases, {**best, name: grid})
            best[name] = float(grid[int(np.argmin(got))])
        if k % 2:
            spread /= 2
    return best, float(loss(cases, best))


def in_sample(catalog: Any, data: dict[str, Any] | None = None) -> list[Case]:
    data = data or benchmarks()
    return [build(catalog, c, data) for c in data["cases"] if c["sample"] == "in"]


def main() -> None:
    from tco.catalog import load_catalog

    catalog = load_catalog(())
    cases = in_sample(catalog)
    start = current(catalog)
    print(f"{len(cases)} in-sample cases; loss at the catalog's values "
          f"{float(loss(cases, start)):.4f}")
    best, value = fit(cases, start)
    print(f"fitted loss {value:.4f}")
    for name, v in best.items():
        print(f"  {name}: {v:.6g}")
    for c in cases:
        m = float(c.modelled(best))
        print(f"  {c.case.get('scenario', 'frontier'):12} {c.case['card']:9} "
              f"{c.target / m - 1 if m > 0 else math.inf:+.3f}")


if __name__ == "__main__":
    main()
