"""The array backend: every operation of the trees on numpy arrays (Monte Carlo, sweeps).

The tree imports this module, and so numpy, the first time an operand is not a plain number
(tco/expr/tree.py), so that one scenario never imports numpy. Arrays broadcast together; a
division by zero or an overflow gives IEEE infinities and nan without warnings, as the float
backend (tco/expr/floats.py) does. Same interface as the float backend: `BINARY`, `negate`,
`FUNCTIONS` and `npv`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .floats import TYPES as _SCALAR_TYPES


def _divide(a: Any, b: Any) -> Any:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(a, b)


def _compare(fn: Any) -> Callable[[Any, Any], Any]:
    return lambda a, b: fn(a, b).astype(float)


def _power(a: Any, b: Any) -> Any:
    # The shortcuts for a constant exponent are taken here, not left to numpy: whether
    # numpy.power takes them itself depends on its release (2.x does, 1.26 does not).
    if type(b) in _SCALAR_TYPES:
        if b == 2.0:
            return np.multiply(a, a)
        if b == 0.5:
            return np.sqrt(a)
        if b == -1.0:
            return _divide(1.0, a)
    return np.power(a, b)


BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": np.add, "-": np.subtract, "*": np.multiply, "/": _divide, "^": _power,
    "<=": _compare(np.less_equal), "<": _compare(np.less),
    ">=": _compare(np.greater_equal), ">": _compare(np.greater),
}

negate = np.negative

# The ufunc behind each arithmetic operator: `BINARY` is each of these, the division with IEEE
# results and no warnings. For a caller that silences floating-point warnings once around many
# operations and may write a result into an operand it no longer needs (tco/analysis/fast.py).
UFUNCS: dict[str, Any] = {"+": np.add, "-": np.subtract, "*": np.multiply, "/": np.divide}


def _reduce(fn: Any, vals: list[Any]) -> Any:
    """fn(...fn(fn(vals[0], vals[1]), vals[2])...), in that order. From the second step on,
    the running result is this function's own array: the next step writes into it (the same
    numbers, one array instead of one per term)."""
    out = fn(vals[0], vals[1]) if len(vals) > 1 else vals[0]
    for v in vals[2:]:
        if (type(out) is np.ndarray and out.dtype == np.float64
                and (type(v) is float or np.shape(v) == out.shape)):
            fn(out, v, out=out)
        else:
            out = fn(out, v)
    return out


def _if(vals: list[Any]) -> Any:
    cond, yes, no = vals
    return np.where(np.asarray(cond) != 0, yes, no)


def _roundup(vals: list[Any]) -> Any:
    x = vals[0]
    return np.sign(x) * np.ceil(np.abs(x) - 1e-9)


def _rounddown(vals: list[Any]) -> Any:
    x = np.asarray(vals[0])
    return np.trunc(x + np.sign(x) * 1e-9)


def _pmt(vals: list[Any]) -> Any:
    rate, nper, pv = (np.asarray(v, dtype=float) for v in vals)
    # -pv * r (1+r)^n / ((1+r)^n - 1), with (1+r)^n - 1 = expm1(n log1p r): exact for
    # tiny rates, where numpy-financial's pmt loses every digit (1e-17 gives -inf/nan)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        growth = np.expm1(nper * np.log1p(rate))
        per_rate = np.where(rate == 0, nper, growth / np.where(rate == 0, 1.0, rate))
        return -pv * (growth + 1.0) / per_rate


FUNCTIONS: dict[str, Callable[[list[Any]], Any]] = {
    "MIN": lambda vals: _reduce(np.minimum, vals),
    "MAX": lambda vals: _reduce(np.maximum, vals),
    "SUM": lambda vals: _reduce(np.add, vals),
    "AND": lambda vals: _reduce(np.logical_and, vals).astype(float),
    "OR": lambda vals: _reduce(np.logical_or, vals).astype(float),
    "IF": _if,
    "ROUNDUP": _roundup,
    "ROUNDDOWN": _rounddown,
    "PMT": _pmt,
}


def npv(vals: list[Any]) -> Any:
    """numpy-financial's npv formula, sum_t flow_t / (1 + r)^t, summed in year order (its npv
    cannot broadcast over draws)."""
    r, flows = vals[0], vals[1:]
    out: Any = 0.0
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for t, f in enumerate(flows):
            term = f / np.power(1.0 + r, t)
            if type(out) is np.ndarray and np.shape(term) == out.shape:
                np.add(out, term, out=out)  # `out` is this function's own array
            else:
                out = out + term
    return out
