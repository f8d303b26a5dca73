"""Break-even: the value of one input at which two candidates cost the same.

1. Scan: the input takes 2,001 values from 1/100 to 100 times its baseline (geometric steps;
   linear steps over its plausible range when the baseline is 0), cut to its plausible range
   (tco/inputs.py). All values are evaluated at once. When A or B is sized for a deadline or
   power cap, its cluster is sized again for each value, so the scan runs on the scalar
   engine instead, over 121 of those values.
2. Refine: every sign change of (A - B) found by the scan is narrowed down on the scalar
   engine, the same path as `tco whatif` (the scenario edited and resolved again, so a
   deadline-sized cluster is sized again), with the Illinois variant of regula falsi until
   the two agree within REL_TOL relative. Putting the value back with `tco whatif --set`
   gives the same two numbers.

A whole-number input (a loan term, a card count) has no exact break-even in general; the
answer is then the two neighbouring whole numbers between which the order flips. A jump
(a re-sized cluster, or an input such as a quoted lease rate factor whose 0 means "none") is
reported as a jump, not as a break-even, and after every break-even found.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..catalog import Catalog
from ..engine import compute, resolve_scenario
from ..errors import ScenarioError, TcoError, UnknownId, did_you_mean
from ..model import Model, build_model
from ..resolved import Structure, input_values
from ..result import Result
from ..scenario import Loaded
from ..sizing import primary_of, size_clusters, sizing_inputs
from .common import (
    BREAKEVEN_METRICS,
    METRIC_LABELS,
    NPV_METRICS,
    baseline_values,
    check_metric,
    decision_metric,
    members,
    metric_name,
    metric_value,
    plausible_range,
    portfolio_of,
)
from .fast import Compiled
from .settings import apply_values, check_path

SCAN_POINTS = 2001
RESIZED_SCAN_POINTS = 121  # when a deadline- or power-sized cluster is re-sized per value
SCAN_FACTOR = 100.0
REL_TOL = 1e-9  # refinement stops when |A - B| <= REL_TOL * max(|A|, |B|)
MAX_STEPS = 200
INFEASIBLE_TIER = 3  # tco.model.decision.tier_formula: the option cannot run the work


@dataclass
class Crossing:
    value: float | None  # the break-even value (None when the order flips between integers)
    metric_a: float
    metric_b: float
    exact: bool  # False: a jump or a whole-number input, see `note`
    bracket: tuple[float, float]
    note: str = ""
    jump: bool = False  # the difference jumps across zero: no value in the bracket is equal
    runs_out: bool = False  # an option stops (or starts) being able to run the work here


@dataclass
class Breakeven:
    path: str
    label: str
    unit: str
    candidate: str
    versus: str
    metric: str
    currency: str
    base_value: float
    base_a: float
    base_b: float
    scan_low: float
    scan_high: float
    # the break-evens closest to the baseline first, then the jumps (none of them is one)
    crossings: list[Crossing] = field(default_factory=list)

    @property
    def value(self) -> float | None:
        return self.crossings[0].value if self.crossings else None

    @property
    def statement(self) -> str:
        m = METRIC_LABELS[self.metric]
        stops = [c.note for c in self.crossings if c.runs_out]
        if len(stops) == len(self.crossings):
            cheaper = self.candidate if self.base_a < self.base_b else self.versus
            other = self.versus if cheaper == self.candidate else self.candidate
            return (f"no break-even for {self.path} between {self.scan_low:.6g} and "
                    f"{self.scan_high:.6g}: {cheaper} keeps the lower {m} than {other} "
                    + ("where both can run the work; " + "; ".join(stops) if stops
                       else "across that range"))
        c = self.crossings[0]
        if c.value is None or not c.exact:
            return f"{self.path}: {c.note}"
        return (f"{self.candidate} and {self.versus} have the same {m} at {self.path} = "
                f"{c.value:.6g} (baseline {self.base_value:.6g})")


def breakeven(loaded: Loaded, catalog: Catalog, path: str, candidate: str, versus: str,
              metric: str | None = None, result: Result | None = None) -> Breakeven:
    """`metric` None: the NPV the options are ranked on (`decision_metric`)."""
    if metric is not None:
        metric = check_metric(metric, BREAKEVEN_METRICS)
    for flag, given in (("--vary", path), ("--candidate", candidate), ("--vs", versus)):
        if not isinstance(given, str):  # from the Python API
            raise TcoError(f"{flag} {given!r}: expected text (an input path or an option id)")
    result = result or compute(loaded, catalog)
    metric = metric or decision_metric(result)
    inp = check_path(path, result.inputs, "--vary")
    ids = ([c.id for c in result.candidates] + [p.id for p in result.portfolios]
           + [a.id for a in result.api_options])
    for flag, cid in (("--candidate", candidate), ("--vs", versus)):
        if cid not in ids:
            kinds = ["candidate", *(["portfolio"] if result.portfolios else []),
                     *(["API option"] if result.api_options else [])]
            what = " or ".join(kinds) if len(kinds) < 3 else "candidate, portfolio or API option"
            raise UnknownId(f"no {what} '{cid}'{did_you_mean(cid, ids)}", field=flag)
        port = portfolio_of(result, cid)
        if port is not None and not port.feasible:
            raise TcoError(f"portfolio {cid} is infeasible: an option cannot run its "
                           "workloads", field=flag)
        if port is None and not result.candidate(cid).priced:
            raise TcoError(f"{cid} cannot be priced: {'; '.join(result.candidate(cid).reasons)}",
                           field=flag)
        if port is None and not result.candidate(cid).feasible:
            raise TcoError(f"{cid} cannot run the work here ("
                           f"{'; '.join(result.candidate(cid).reasons)}): it has no cost to "
                           "compare", field=flag)
    if candidate == versus:
        raise TcoError("--candidate and --vs name the same candidate")
    if inp.spec.structural:
        raise TcoError(f"{path} changes the model's shape; compare values with `tco whatif`",
                       field="--vary")
    names = (metric_name(result, candidate, metric), metric_name(result, versus, metric))
    lo_ok, hi_ok = plausible_range(inp, result)
    v = inp.value
    if v > 0:
        lo, hi = max(lo_ok, v / SCAN_FACTOR), min(hi_ok, v * SCAN_FACTOR)
        grid = np.geomspace(max(lo, 1e-300), hi, SCAN_POINTS)
    else:
        lo, hi = lo_ok, hi_ok
        grid = np.linspace(lo, hi, SCAN_POINTS)
    if inp.spec.integer:
        grid = np.unique(np.round(grid))
    engine = _ScalarEngine(loaded, catalog, path, (candidate, versus), metric,
                           {oid: members(result, oid) for oid in (candidate, versus)
                            if portfolio_of(result, oid) is not None})
    resized = [c for oid in (candidate, versus) for c in members(result, oid)
               if result.candidate(c).info.sizing not in ("cards", "api")]
    if resized or _chooses_again(result, path, (candidate, versus)):
        # A sized cluster is sized again for every value, a layout chosen again, an input
        # resolve derives others from resolved again: scan on the scalar engine, coarser.
        grid = grid[np.linspace(0, len(grid) - 1, RESIZED_SCAN_POINTS).round().astype(int)]
        grid, metric_a, metric_b = _scalar_scan(engine, np.unique(np.append(grid, v)), path)
    else:
        grid = np.unique(np.append(grid, v))
        metric_a, metric_b = _compiled_scan(result, path, grid, (candidate, versus), names)
    diff = metric_a - metric_b
    out = Breakeven(
        path=path, label=inp.spec.label, unit=inp.spec.unit.replace("money", result.currency),
        candidate=candidate, versus=versus, metric=metric, currency=result.currency,
        base_value=v, base_a=_metric_of(result, candidate, metric),
        base_b=_metric_of(result, versus, metric),
        scan_low=float(grid[0]), scan_high=float(grid[-1]))

    out.crossings += _cannot_run(engine, grid, (candidate, versus), (metric_a, metric_b),
                                 inp.spec.integer)
    sign = np.sign(diff)  # nan where either cannot run the work: no crossing there
    for i in range(len(grid) - 1):
        if sign[i] == 0 and (i == 0 or sign[i - 1] != 0):
            out.crossings.append(_exact(engine, float(grid[i])))
        elif sign[i] * sign[i + 1] < 0:
            found = _refine(engine, float(grid[i]), float(grid[i + 1]), inp.spec.integer)
            if found is not None:
                out.crossings.append(found)
    out.crossings.sort(key=lambda c: (c.jump, _distance(c, v)))
    return out


def _chooses_again(result: Result, path: str, pair: tuple[str, str]) -> bool:
    """Whether a change of `path` makes the engine choose again for the pair (a layout: the
    memory a larger model needs), or is one resolve derives other inputs from (tco whatif
    resolves the scenario again for both)."""
    from ..resolved import _derives

    resolved = result.resolved
    if resolved is None:
        return True
    if _derives(resolved, path, resolved.inputs[path]):
        return True
    st = resolved.structure
    source = dict(zip(st.candidates, st.inputs_of))
    own = {source.get(c, c) for oid in pair for c in members(result, oid)}
    return any(path in sizing_inputs(result.model, resolved, c) for c in own
               if c in resolved.candidates and result.candidate(c).info.sizing != "api")


def _scalar_scan(engine: _ScalarEngine, grid: np.ndarray, path: str
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(values, metric of A, metric of B) over `grid` on the scalar engine, the values the
    scenario may not take (resolve refuses them) left out."""
    points = []
    for x in grid:
        try:
            points.append((x, *engine(float(x))))
        except ScenarioError:  # a value the scenario may not take
            continue
    if not points:
        raise TcoError(f"no value of {path} searched ({grid[0]:.6g} to {grid[-1]:.6g}) is "
                       "one the scenario may take", field="--vary")
    values, metric_a, metric_b = (np.array(column) for column in zip(*points))
    return values, metric_a, metric_b


def _compiled_scan(result: Result, path: str, grid: np.ndarray, pair: tuple[str, str],
                   names: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """(metric of A, metric of B) over `grid`, evaluated at once, nan where one cannot run
    the work. (An input others are tied to, common.ties, is read by resolve: scanned on the
    scalar engine.)"""
    tiers = (f"{pair[0]}.tier", f"{pair[1]}.tier")
    env = Compiled(result.model, baseline_values(result), [path], [*names, *tiers])(
        {path: grid})
    a, b = (np.where(np.broadcast_to(np.asarray(env[t]), grid.shape) < INFEASIBLE_TIER,
                     np.broadcast_to(np.asarray(env[n], dtype=float), grid.shape), np.nan)
            for n, t in zip(names, tiers))
    return a, b


def _cannot_run(engine: Callable[[float], tuple[float, float]], grid: np.ndarray,
                pair: tuple[str, str], metrics: tuple[np.ndarray, np.ndarray],
                integer: bool) -> list[Crossing]:
    """Where in the scan an option stops (or starts) being able to run the work, narrowed on
    the scalar engine to a thousandth (or to neighbouring whole numbers): no break-even lies
    where one of the two has no cost. Listed as a jump, after the break-evens."""
    out = []
    for k, (oid, values) in enumerate(zip(pair, metrics)):
        runs = np.isfinite(values)
        for i in np.flatnonzero(runs[:-1] != runs[1:]):
            x0, x1 = float(grid[i]), float(grid[i + 1])
            ok0 = bool(runs[i])
            at = engine(x0 if ok0 else x1)  # the figures where it still runs
            for _ in range(MAX_STEPS):
                if x1 - x0 <= (1 if integer else 1e-3 * max(abs(x0), abs(x1))):
                    break
                mid = float(math.floor((x0 + x1) / 2)) if integer else (x0 + x1) / 2
                if mid in (x0, x1):
                    break
                got = engine(mid)
                if math.isfinite(got[k]) == ok0:
                    x0 = mid
                    at = got if ok0 else at
                else:
                    x1 = mid
                    at = at if ok0 else got
            side = "above" if ok0 else "below"
            out.append(Crossing(
                None, at[0], at[1], False, (x0, x1), jump=True, runs_out=True,
                note=f"{oid} cannot run the work {side} a value between {x0:.6g} and "
                     f"{x1:.6g} (infeasible there: no cost to compare)"))
    return out


def _metric_of(result: Result, oid: str, metric: str) -> float:
    port = portfolio_of(result, oid)
    if port is not None:
        return port.values[metric]  # an NPV, a portfolio's only metrics (metric_name)
    return metric_value(result, oid, metric)


def _distance(c: Crossing, v: float) -> float:
    x = c.value if c.value is not None else (c.bracket[0] + c.bracket[1]) / 2
    return abs(math.log(x / v)) if x > 0 and v > 0 else abs(x - v)


class _ScalarEngine:
    """(metric of A, metric of B) for one value of the input, exactly as `compute` would give
    them for the scenario edited by `tco whatif --set PATH=value` (only A and B evaluated)."""

    def __init__(self, loaded: Loaded, catalog: Catalog, path: str, pair: tuple[str, str],
                 metric: str, portfolios: dict[str, list[str]] | None = None) -> None:
        self.loaded, self.catalog, self.path, self.pair = loaded, catalog, path, pair
        self.metric = metric
        self.portfolios = portfolios or {}  # a portfolio of the pair: its options
        self._models: dict[Structure, Model] = {}
        self.calls = 0

    def __call__(self, x: float) -> tuple[float, float]:
        self.calls += 1
        edited = apply_values(self.loaded, {self.path: x}, f"--vary {self.path}={x!r}")
        resolved = resolve_scenario(edited, self.catalog)
        key = resolved.structure
        model = self._models.get(key)
        if model is None:
            model = self._models[key] = build_model(resolved.structure)
        # only the pair's clusters (a portfolio's options) are sized and laid out: the others
        # are not evaluated; a generated rent option reads its source's size and layout, so
        # its source is sized too
        st = resolved.structure
        source = dict(zip(st.candidates, st.inputs_of))
        own = {c for oid in self.pair for c in self.portfolios.get(oid, [oid])}
        own |= {source[c] for c in own if c in source}
        others = frozenset(st.candidates) - own
        resolved = size_clusters(model, replace(resolved, sized=others))
        values = input_values(resolved)
        out = []
        for cid in self.pair:
            env: dict[str, Any] = dict(values)
            for option in self.portfolios.get(cid, []):  # a portfolio reads its options'
                env = model.evaluate(env, candidate=option)
            env = model.evaluate(env, candidate=cid)
            name = (f"{cid}.{self.metric}" if self.metric in NPV_METRICS
                    else f"{cid}.{primary_of(resolved, cid)}.cost_per_job"
                    if self.metric == "cost_per_job"
                    else f"{cid}.{_first_serving(resolved.structure)}.{self.metric}")
            runs = float(np.asarray(env[f"{cid}.tier"]).reshape(-1)[0]) < INFEASIBLE_TIER
            # an option that cannot run the work there has no figure (as in `tco compare`)
            out.append(float(np.asarray(env[name]).reshape(-1)[0]) if runs else math.nan)
        return out[0], out[1]


def _first_serving(st: Structure) -> str:
    """The workload of the serving metric (tco.analysis.common.metric_name's)."""
    return next(wid for wid, _p, kind in st.workloads if kind == "serve")


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b))


def _exact(engine: Callable[[float], tuple[float, float]], x: float) -> Crossing:
    a, b = engine(x)
    return Crossing(x, a, b, exact=True, bracket=(x, x))


def _refine(engine: Callable[[float], tuple[float, float]], x0: float, x1: float,
            integer: bool) -> Crossing | None:
    a0, b0 = engine(x0)
    a1, b1 = engine(x1)
    f0, f1 = a0 - b0, a1 - b1
    if _close(a0, b0):
        return Crossing(x0, a0, b0, True, (x0, x0))
    if _close(a1, b1):
        return Crossing(x1, a1, b1, True, (x1, x1))
    if f0 * f1 > 0:
        # The scan held cluster sizes fixed; re-sizing on the real engine removes this change.
        return None
    if integer:
        while x1 - x0 > 1:
            mid = float(math.floor((x0 + x1) / 2))
            am, bm = engine(mid)
            fm = am - bm
            if fm == 0:
                return Crossing(mid, am, bm, True, (mid, mid))
            if (fm > 0) == (f0 > 0):
                x0, f0 = mid, fm
            else:
                x1, f1 = mid, fm
        return Crossing(None, math.nan, math.nan, False, (x0, x1),
                        note=f"a whole number; the order flips between {x0:g} and {x1:g}")
    side = 0
    a = b = math.nan
    for _ in range(MAX_STEPS):
        x = (x0 * f1 - x1 * f0) / (f1 - f0)
        if not (min(x0, x1) < x < max(x0, x1)):
            x = (x0 + x1) / 2
        a, b = engine(x)
        fx = a - b
        if _close(a, b):
            return Crossing(x, a, b, True, (x0, x1))
        if (fx > 0) == (f1 > 0):
            x1, f1 = x, fx
            if side == 1:
                f0 /= 2
            side = 1
        else:
            x0, f0 = x, fx
            if side == -1:
                f1 /= 2
            side = -1
        if abs(x1 - x0) <= 1e-10 * max(abs(x0), abs(x1)):
            break  # a jump, not a crossing
    a0, b0 = engine(x0)
    a1, b1 = engine(x1)
    return Crossing(None, a, b, False, (x0, x1), jump=True,
                    note=f"at {x0:.8g} the difference jumps from {a0 - b0:+,.0f} to "
                         f"{a1 - b1:+,.0f} (a cluster is re-sized there, or the input switches "
                         "how a figure is computed); no value there makes the two equal")
