"""Percentiles of many draws, the numbers `numpy.percentile` gives, in less time.

`numpy.percentile(x, q)` (its default, linear interpolation) finds the order statistics it
interpolates between with one introselect over the whole array, the smallest and largest
values included. `percentiles` finds the same order statistics from a sample instead: the
sorted sample of every `step`-th value brackets each wanted rank between two of its values,
with a margin of four standard deviations of where the rank falls in the sample; counting the
values below the bracket and selecting among the few inside it gives the exact order
statistic (ties included). When a bracket misses (rarely), for short arrays, arrays holding a
nan and order statistics that are zeros (0.0 and -0.0 tie), numpy's own `percentile` runs.
The interpolation between the two order statistics is numpy's (`_lerp` in
numpy/lib/_function_base_impl.py, written out below): the result is the same float.
"""

from __future__ import annotations

import math

import numpy as np

SAMPLE = 4096  # values sampled to bracket each rank (every step-th one)
SHORT = 4096  # arrays shorter than this go to numpy.percentile
SIGMAS = 4.0  # margin of each bracket, in standard deviations of the sample rank


def percentiles(x: np.ndarray, q: tuple[float, ...]) -> list[float]:
    """numpy.percentile(x, q) for a 1-D float64 array, as floats (0 <= q < 100). May reorder
    `x`, as numpy's overwrite_input does."""
    n = x.size
    if n < SHORT or not all(0 <= v < 100 for v in q):
        return [float(v) for v in np.percentile(x, list(q), overwrite_input=True)]
    quantiles = np.true_divide(np.asarray(q), 100)  # as numpy.percentile divides them
    virtual = (n - 1) * quantiles  # numpy's virtual index for linear interpolation
    previous = np.floor(virtual)
    gamma = virtual - previous
    ranks = [int(r) for r in previous]
    stats = _order_statistics(x, ranks)
    if stats is None:
        return [float(v) for v in np.percentile(x, list(q), overwrite_input=True)]
    a = np.array([stats[r] for r in ranks])
    b = np.array([stats[r + 1] for r in ranks])
    diff = b - a  # numpy's _lerp(a, b, gamma)
    out = a + diff * gamma
    np.subtract(b, diff * (1 - gamma), out=out, where=gamma >= 0.5)
    return [float(v) for v in out]


def _order_statistics(x: np.ndarray, ranks: list[int]) -> dict[int, float] | None:
    """The values of rank r and r + 1 (0-based, ascending) for each r in `ranks` (r + 1 <
    x.size), or None when a bracket misses, `x` holds a nan or one of them is a zero."""
    n = x.size
    step = max(1, n // SAMPLE)
    sample = np.sort(x[::step])
    m = sample.size
    if np.isnan(x.max()):
        return None  # numpy's percentile of an array with a nan is nan
    half = SIGMAS * math.sqrt(m) / 2 + 2  # sqrt(m q (1 - q)) <= sqrt(m) / 2
    out: dict[int, float] = {}
    for r in ranks:
        at = r * m / n
        i, j = int(at - half), int(at + half) + 1
        low = sample[i] if i > 0 else -np.inf
        high = sample[j] if j < m - 1 else np.inf
        below = int(np.count_nonzero(x < low))
        band = x[(x >= low) & (x <= high)]
        if not below <= r < r + 1 < below + band.size:
            return None
        band.partition([r - below, r + 1 - below])
        out[r], out[r + 1] = float(band[r - below]), float(band[r + 1 - below])
        if out[r] == 0 or out[r + 1] == 0:
            return None  # 0.0 and -0.0 tie: which one numpy would pick is its own matter
    return out
