"""Why a point estimate lies outside its own Monte Carlo P10-P90 band.

The point estimate takes every input at one value (the catalog's typical value, or the
scenario's); the draws spread each over its distribution. When an input's typical value sits
near one end of its range (a rent of 1.99 in a range of 1.50 to 6.00), most of its draws lie
on the other side of it, and an option whose figure follows that input can have its point
estimate below its own 10th percentile. That is not a fault of the draws or of the point, but
a reader must be told: `points_outside` lists every figure whose point lies outside its band,
with the inputs that put it there.

An input's pull is measured one at a time: the figure recomputed (the model's one formula,
on arrays) with that input alone moved from the point's value to the median of its draws,
every other input at the point's. The inputs whose pull goes the way of the gap, largest
first, are the skewed inputs named; none when no single input explains the gap (the inputs
together move the figure, the model not being linear in them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import numpy as np

from .common import baseline_values
from .types import PointOutside, SkewedInput

if TYPE_CHECKING:
    from ..result import Result


class Draw(Protocol):
    """What is read of one drawn quantity (tco.analysis.montecarlo.Draw)."""

    paths: tuple[str, ...]
    dist: str
    low: float
    mode: float
    high: float
    clip_low: float
    clip_high: float

    def cdf(self, x: float) -> float: ...

SKEWED_SHOWN = 3  # inputs named per figure, largest pull first
OUTSIDE_TOLERANCE = 1e-9  # relative: a point on the band's edge is inside it
NEGLIGIBLE = 1e-6  # relative to the point: a pull smaller than this is no pull
NORMAL_REACH = 10.0  # a normal's median is searched within this many sigmas of its mode
BISECTIONS = 100


def points_outside(result: Result, plan: list[Draw],
                   percentiles: Mapping[str, Mapping[str, Mapping[str, float]]],
                   deterministic: Mapping[str, Mapping[str, float]],
                   names: Mapping[str, tuple[str, str]], metric: str) -> list[PointOutside]:
    """Every candidate figure (`npv_tco` and `metric`) whose point estimate lies outside its
    P10-P90 band. `names`: candidate -> (the quantity its NPV is, the quantity its metric is)."""
    row_of = {p: row for row, d in enumerate(plan) for p in d.paths}
    medians: dict[int, float] = {}
    out = []
    for cid, (npv_name, metric_name) in names.items():
        for key, name in (("npv_tco", npv_name), (metric, metric_name)):
            band, point = percentiles[cid].get(key), deterministic.get(cid, {}).get(key)
            if band is None or point is None or not math.isfinite(point):
                continue
            slack = OUTSIDE_TOLERANCE * max(abs(band["p10"]), abs(band["p90"]), 1.0)
            if band["p10"] - slack <= point <= band["p90"] + slack:
                continue
            side = "below" if point < band["p10"] else "above"
            skewed = skewed_inputs(result, plan, row_of, medians, name, point, side)
            out.append(PointOutside(cid, key, side, point, band["p10"], band["p90"],
                                    tuple(skewed)))
    return out


def skewed_inputs(result: Result, plan: list[Draw], row_of: Mapping[str, int],
                  medians: dict[int, float], name: str, point: float, side: str
                  ) -> list[SkewedInput]:
    """The drawn inputs of quantity `name` whose median alone moves it the way of the gap
    (up when the point lies below its P10), largest pull first."""
    model = result.model
    rows = sorted({row_of[p] for p in model.inputs_feeding([name]) if p in row_of})
    if not rows:
        return []
    env = dict(result.env) if result.env is not None else dict(baseline_values(result))
    for k, row in enumerate(rows):
        if row not in medians:
            medians[row] = median(plan[row])
        for path in plan[row].paths:
            column = np.full(len(rows) + 1, float(env[path]))
            column[k] = medians[row]
            env[path] = column
    got = np.broadcast_to(np.asarray(model.feeding([name]).evaluate(env)[name], dtype=float),
                          (len(rows) + 1,))
    pulls = got[:-1] - got[-1]  # the last column is the point itself
    toward = pulls if side == "below" else -pulls
    order = [k for k in np.argsort(-toward) if toward[k] > NEGLIGIBLE * max(abs(point), 1.0)]
    out = []
    for k in order[:SKEWED_SHOWN]:
        d = plan[rows[k]]
        path = d.paths[0]
        inp = result.inputs[path]
        unit = inp.spec.unit.replace("money", result.currency)
        out.append(SkewedInput(path, float(inp.value), medians[rows[k]], d.low, d.high,
                               "" if unit == "fraction" else unit, float(pulls[k])))
    return out


def median(d: Draw) -> float:
    """The median of a quantity's draws: of its distribution, then cut to its plausible
    range as the draws are (cutting keeps the order, so it keeps the median)."""
    lo, hi = d.low, d.high
    if d.dist == "normal":
        sigma = (d.high - d.low) / (2 * 1.2815515655446004)
        lo, hi = d.mode - NORMAL_REACH * sigma, d.mode + NORMAL_REACH * sigma
    if hi <= lo:
        x = lo
    else:
        for _ in range(BISECTIONS):  # the smallest x with P(draw <= x) >= 1/2
            mid = (lo + hi) / 2
            if d.cdf(mid) >= 0.5:
                hi = mid
            else:
                lo = mid
            if hi - lo <= 1e-15 * max(abs(hi), 1.0):
                break
        x = hi
    return min(max(x, d.clip_low), d.clip_high)
