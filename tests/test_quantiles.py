"""Percentiles from bracketed order statistics (tco/analysis/quantiles.py) are numpy's, float
for float: numpy.percentile is the oracle."""

import numpy as np
import pytest

from tco.analysis.quantiles import _order_statistics, percentiles

Q = (10, 50, 90)


def arrays():
    rng = np.random.default_rng(1)
    for n in (1, 2, 5, 4095, 4096, 5000, 20_000, 20_001, 65_537):
        yield f"normal-{n}", rng.normal(size=n) * 1e7 + 3e7
        yield f"ties-and-zeros-{n}", np.round(rng.normal(size=n) * 3)
        yield f"sorted-{n}", np.sort(rng.random(n))
        yield f"reversed-{n}", np.sort(rng.random(n))[::-1].copy()
        x = rng.lognormal(size=n)
        x[: n // 50] = np.inf
        yield f"infinite-{n}", x
        x = rng.random(n)
        x[n // 3] = np.nan
        yield f"nan-{n}", x
        yield f"constant-{n}", np.full(n, 2.5)
        x = rng.exponential(size=n) + 1.0
        x[::7] = 1.0
        yield f"many-equal-{n}", x
        x = rng.normal(size=n)
        x[::3] = -0.0
        x[1::3] = 0.0
        yield f"signed-zeros-{n}", x


@pytest.mark.parametrize("name,x", list(arrays()), ids=lambda v: v if isinstance(v, str) else "")
def test_percentiles_are_numpys_float_for_float(name, x):
    expected = [float(v) for v in np.percentile(x.copy(), list(Q))]
    got = percentiles(x.copy(), Q)
    assert [repr(v) for v in got] == [repr(v) for v in expected]


def test_order_statistics_come_from_the_brackets():
    # 20,000 draws: ranks 1999, 9999 and 17999 (numpy's floor((n - 1) q)) and the next ones
    x = np.random.default_rng(3).normal(size=20_000)
    ranks = [1999, 9999, 17999]
    stats = _order_statistics(x.copy(), ranks)
    assert stats is not None  # found without numpy.percentile
    ordered = np.sort(x)
    assert stats == {r: float(ordered[r]) for k in ranks for r in (k, k + 1)}
