"""The float backend: every operation of the trees on plain Python numbers (one scenario).

No numpy here, which keeps a what-if command quick to start. Results follow numpy's IEEE rules
where Python would raise instead (x/0 is inf or nan, an overflowing power is inf, the minimum
of nan is nan), so that this backend and tco/expr/arrays.py agree; tests/test_expr.py checks
them against each other, edge cases included.

The interface, shared with the array backend: `BINARY` (operator -> function of two values),
`negate`, `FUNCTIONS` (spreadsheet function name -> function of the argument values) and `npv`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

TYPES = frozenset({float, int})  # the values this backend takes (bool is not one)

_INF, _NAN = math.inf, math.nan


def accepts(vals: list[object]) -> bool:
    """Whether every operand is a plain number (then this backend applies)."""
    for v in vals:
        if type(v) not in TYPES:
            return False
    return True


def _div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _pow(a: float, b: float) -> float:
    # x^2, x^0.5 and x^-1 are a product, a square root and a reciprocal when the exponent is
    # one number (as every exponent of the model is), in both backends (see arrays.power).
    if b == 2.0:
        return a * a
    if b == 0.5:
        return math.sqrt(a) if a >= 0 else _NAN  # sqrt(-0.0) is -0.0; sqrt(nan) is nan
    if b == -1.0:
        return _div(1.0, a)
    try:
        return math.pow(a, b)
    except (OverflowError, ValueError):
        # |result| too large, 0 to a negative power, or a negative base to a fractional power
        if a < 0 and math.isfinite(b) and b != int(b):
            return _NAN
        odd = math.isfinite(b) and b == int(b) and int(b) % 2 == 1
        return -_INF if math.copysign(1.0, a) < 0 and odd else _INF


BINARY: dict[str, Callable[[float, float], float]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": _div,
    "^": _pow,
    "<=": lambda a, b: float(a <= b),
    "<": lambda a, b: float(a < b),
    ">=": lambda a, b: float(a >= b),
    ">": lambda a, b: float(a > b),
}


def negate(x: float) -> float:
    return -float(x)


def _min2(a: float, b: float) -> float:
    """numpy.minimum: nan if either is nan; of two equal values (0.0, -0.0), the second."""
    return a if a < b or math.isnan(a) else b


def _max2(a: float, b: float) -> float:
    return a if a > b or math.isnan(a) else b


def _sign(x: float) -> float:
    return x if math.isnan(x) else float((x > 0) - (x < 0))


def _ceil(x: float) -> float:
    """numpy.ceil: inf and nan pass through; -0.5 rounds to -0.0."""
    if not math.isfinite(x):
        return x
    c = float(math.ceil(x))
    return -0.0 if c == 0 and x < 0 else c


def _trunc(x: float) -> float:
    if not math.isfinite(x):
        return x
    t = float(math.trunc(x))
    return -0.0 if t == 0 and math.copysign(1.0, x) < 0 else t


def _log1p(x: float) -> float:
    if x == -1:
        return -_INF
    return math.log1p(x) if x > -1 else _NAN


def _expm1(x: float) -> float:
    try:
        return math.expm1(x)
    except OverflowError:
        return _INF


def _reduce(fn: Callable[[float, float], float], vals: list[float]) -> float:
    out = vals[0]
    for v in vals[1:]:
        out = fn(out, v)
    return out


def _if(vals: list[float]) -> float:
    cond, yes, no = vals
    return yes if cond != 0 else no


def _roundup(vals: list[float]) -> float:
    """ROUNDUP(x, 0): away from zero."""
    x = vals[0]
    return _sign(x) * _ceil(abs(x) - 1e-9)


def _rounddown(vals: list[float]) -> float:
    """ROUNDDOWN(x, 0): toward zero."""
    x = vals[0]
    return _trunc(x + _sign(x) * 1e-9)


def _pmt(vals: list[float]) -> float:
    """PMT(rate, nper, pv): negative for a positive loan, as in Excel (see arrays._pmt)."""
    rate, nper, pv = vals
    growth = _expm1(nper * _log1p(rate))  # (1+r)^n - 1
    per_rate = nper if rate == 0 else _div(growth, rate)
    return _div(-pv * (growth + 1.0), per_rate)


FUNCTIONS: dict[str, Callable[[list[float]], float]] = {
    "MIN": lambda vals: _reduce(_min2, vals),
    "MAX": lambda vals: _reduce(_max2, vals),
    "SUM": lambda vals: _reduce(BINARY["+"], vals),
    "AND": lambda vals: float(all(v != 0 for v in vals)),
    "OR": lambda vals: float(any(v != 0 for v in vals)),
    "IF": _if,
    "ROUNDUP": _roundup,
    "ROUNDDOWN": _rounddown,
    "PMT": _pmt,
}


def npv(vals: list[float]) -> float:
    """sum_t flow_t / (1 + r)^t for vals = [r, flow_0, ..., flow_N], summed in year order."""
    base = 1.0 + float(vals[0])
    total = 0.0
    for t, f in enumerate(vals[1:]):
        total = total + _div(float(f), _pow(base, float(t)))
    return total
