"""Expressions that evaluate themselves (floats or numpy arrays) and write themselves as
spreadsheet formulas.

Every quantity of the model is one `Expr` tree, defined once. The same tree

* evaluates on scalars (one scenario) or on numpy arrays (a million Monte Carlo draws at once,
  or every sensitivity case at once): `evaluate(env)`, where `env` maps input paths and
  quantity names to floats or arrays that broadcast together; and
* renders as an Excel/LibreOffice formula: `excel(ref)`, where `ref` turns an input path or a
  quantity name into a cell reference or defined name.

Each node's operation has two backends with one meaning: plain Python floats when every operand
is a number (one scenario: no numpy import, which keeps a what-if command quick to start), and
numpy when any operand is an array. The float backend follows numpy's IEEE results where Python
would raise instead (x/0 is inf or nan, an overflowing power is inf), so the two agree;
tests/test_expr.py checks them against each other, edge cases included.

Only functions that Excel 2010 and LibreOffice both know are emitted (see `_EXCEL_SAFE`).
Conventions: booleans are 1.0/0.0 and TRUE/FALSE in a spreadsheet; both multiply as
numbers. Division by zero gives inf/nan here and #DIV/0! in a spreadsheet, so the model
guards every denominator that can reach zero.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Union

Number = int | float
Value = Union[float, "numpy.ndarray"]  # noqa: F821 (numpy is imported only for arrays)
Env = Mapping[str, Value]
RefFn = Callable[["Ref"], str]

_EXCEL_SAFE = {"MIN", "MAX", "IF", "ROUNDUP", "ROUNDDOWN", "SUM", "NPV", "PMT", "AND", "OR"}

# Precedence for minimal parentheses: higher binds tighter.
_PREC = {"cmp": 1, "+": 2, "-": 2, "*": 3, "/": 3, "neg": 4, "^": 5, "atom": 9}


class Expr:
    """A node of a formula. Combine with + - * / ** and comparison helpers."""

    prec = _PREC["atom"]

    def evaluate(self, env: Env) -> Value:
        """The node's value: its children evaluated, then `apply`-ed."""
        return self.apply([c.evaluate(env) for c in self.children()])

    def children(self) -> tuple[Expr, ...]:
        """The sub-expressions whose values `apply` combines (none for leaves)."""
        return ()

    def apply(self, vals: list[Value]) -> Value:
        """This node's operation on its children's values, in `children()` order.

        Separate from `evaluate` so that a compiled evaluator (tco.analysis.fast) can run the
        same operation on precomputed child values without re-deriving any formula.
        """
        raise NotImplementedError

    def excel(self, ref: RefFn) -> str:
        raise NotImplementedError

    def refs(self) -> Iterable[Ref]:
        """Every input or quantity this expression reads."""
        return ()

    # arithmetic -------------------------------------------------------------------------
    def __add__(self, other: ExprLike) -> Expr:
        return BinOp("+", self, lift(other))

    def __radd__(self, other: ExprLike) -> Expr:
        return BinOp("+", lift(other), self)

    def __sub__(self, other: ExprLike) -> Expr:
        return BinOp("-", self, lift(other))

    def __rsub__(self, other: ExprLike) -> Expr:
        return BinOp("-", lift(other), self)

    def __mul__(self, other: ExprLike) -> Expr:
        return BinOp("*", self, lift(other))

    def __rmul__(self, other: ExprLike) -> Expr:
        return BinOp("*", lift(other), self)

    def __truediv__(self, other: ExprLike) -> Expr:
        return BinOp("/", self, lift(other))

    def __rtruediv__(self, other: ExprLike) -> Expr:
        return BinOp("/", lift(other), self)

    def __pow__(self, other: ExprLike) -> Expr:
        return BinOp("^", self, lift(other))

    def __neg__(self) -> Expr:
        return Neg(self)

    # comparisons return 1/0 (numpy) or TRUE/FALSE (spreadsheet)
    def le(self, other: ExprLike) -> Expr:
        return BinOp("<=", self, lift(other))

    def lt(self, other: ExprLike) -> Expr:
        return BinOp("<", self, lift(other))

    def ge(self, other: ExprLike) -> Expr:
        return BinOp(">=", self, lift(other))

    def gt(self, other: ExprLike) -> Expr:
        return BinOp(">", self, lift(other))


ExprLike = Expr | Number


def lift(x: ExprLike) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"cannot use {x!r} in a formula")
    return Const(float(x))


def _fmt_number(v: float) -> str:
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


@dataclass(frozen=True, eq=False)
class Const(Expr):
    """A true constant (unit conversions such as 3600 s/h), never a user assumption."""

    value: float

    def evaluate(self, env: Env) -> Value:
        return self.value

    def excel(self, ref: RefFn) -> str:
        return _fmt_number(self.value)

    @property
    def prec(self) -> int:  # type: ignore[override]
        return _PREC["neg"] if self.value < 0 else _PREC["atom"]


@dataclass(frozen=True, eq=False)
class Ref(Expr):
    """A named value: an input (by its dotted path) or another quantity of the model."""

    name: str

    def evaluate(self, env: Env) -> Value:
        return env[self.name]

    def excel(self, ref: RefFn) -> str:
        return ref(self)

    def refs(self) -> Iterable[Ref]:
        return (self,)


np: Any = None  # numpy, imported the first time an operand is an array
_ARRAY_BIN: dict[str, Callable[[Any, Any], Any]] = {}  # operator -> numpy function


def _numpy() -> Any:
    global np
    if np is None:
        import numpy

        def divide(a: Any, b: Any) -> Any:
            with numpy.errstate(divide="ignore", invalid="ignore"):
                return numpy.divide(a, b)

        def compare(fn: Any) -> Callable[[Any, Any], Any]:
            return lambda a, b: fn(a, b).astype(float)

        def power(a: Any, b: Any) -> Any:
            # The shortcuts for a constant exponent are taken here, not left to numpy: whether
            # numpy.power takes them itself depends on its release (2.x does, 1.26 does not).
            if type(b) in _SCALAR_TYPES:
                if b == 2.0:
                    return numpy.multiply(a, a)
                if b == 0.5:
                    return numpy.sqrt(a)
                if b == -1.0:
                    return divide(1.0, a)
            return numpy.power(a, b)

        _ARRAY_BIN.update({
            "+": numpy.add, "-": numpy.subtract, "*": numpy.multiply, "/": divide,
            "^": power, "<=": compare(numpy.less_equal), "<": compare(numpy.less),
            ">=": compare(numpy.greater_equal), ">": compare(numpy.greater),
        })
        np = numpy
    return np


_SCALAR_TYPES = frozenset({float, int})


def _scalars(vals: list[Value]) -> bool:
    """Whether every operand is a plain number (then the float backend applies)."""
    for v in vals:
        if type(v) not in _SCALAR_TYPES:
            return False
    return True


# --- the float backend: numpy's IEEE results where Python would raise ----------------------
_INF, _NAN = math.inf, math.nan


def _div(a: float, b: float) -> float:
    try:
        return a / b
    except ZeroDivisionError:
        if a == 0 or math.isnan(a):
            return _NAN
        return math.copysign(_INF, a) * math.copysign(1.0, b)


def _pow(a: float, b: float) -> float:
    # x^2, x^0.5 and x^-1 are a product, a square root and a reciprocal when the exponent is
    # one number (as every exponent of the model is), in both backends (see `_numpy`).
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


_PY_BIN: dict[str, Callable[[float, float], float]] = {
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
_CMP = ("<=", "<", ">=", ">")


@dataclass(frozen=True, eq=False)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr

    @property
    def prec(self) -> int:  # type: ignore[override]
        return _PREC["cmp"] if self.op in _CMP else _PREC[self.op]

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.left.evaluate(env), self.right.evaluate(env)])

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def apply(self, vals: list[Value]) -> Value:
        a, b = vals
        if type(a) in _SCALAR_TYPES and type(b) in _SCALAR_TYPES:
            return _PY_BIN[self.op](float(a), float(b))
        if not _ARRAY_BIN:
            _numpy()
        return _ARRAY_BIN[self.op](a, b)

    def excel(self, ref: RefFn) -> str:
        me = self.prec
        left = self.left.excel(ref)
        right = self.right.excel(ref)
        # Left-associative operators: the left side needs parentheses only when it binds
        # looser; the right side also when it binds the same (a-(b-c), a/(b*c)).
        if self.left.prec < me or (self.op == "^" and self.left.prec <= me):
            left = f"({left})"
        if self.right.prec < me or (self.right.prec == me and self.op in "-/^") or (self.right.prec == me and self.op in "+*" and isinstance(self.right, BinOp)
              and self.right.op in "-/"):
            right = f"({right})"
        return f"{left}{self.op}{right}"

    def refs(self) -> Iterable[Ref]:
        yield from self.left.refs()
        yield from self.right.refs()


@dataclass(frozen=True, eq=False)
class Neg(Expr):
    arg: Expr
    prec = _PREC["neg"]

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.arg.evaluate(env)])

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)

    def apply(self, vals: list[Value]) -> Value:
        if _scalars(vals):
            return -float(vals[0])
        return _numpy().negative(vals[0])

    def excel(self, ref: RefFn) -> str:
        inner = self.arg.excel(ref)
        # Excel binds unary minus tighter than ^, so -(x) keeps the meaning explicit.
        return f"-({inner})" if self.arg.prec < _PREC["atom"] else f"-{inner}"

    def refs(self) -> Iterable[Ref]:
        return self.arg.refs()


@dataclass(frozen=True, eq=False)
class Func(Expr):
    """A spreadsheet function with a numpy twin."""

    name: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        if self.name not in _EXCEL_SAFE:
            raise ValueError(f"{self.name} is not a function both Excel 2010 and LibreOffice know")

    def evaluate(self, env: Env) -> Value:
        return self.apply([a.evaluate(env) for a in self.args])

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def apply(self, vals: list[Value]) -> Value:
        if _scalars(vals):
            return _scalar_func(self.name, [float(v) for v in vals])
        return _array_func(self.name, vals)

    def excel(self, ref: RefFn) -> str:
        args = [a.excel(ref) for a in self.args]
        if self.name in ("ROUNDUP", "ROUNDDOWN"):
            args = [args[0], "0"]
        return f"{self.name}({','.join(args)})"

    def refs(self) -> Iterable[Ref]:
        for a in self.args:
            yield from a.refs()


def _scalar_func(n: str, vals: list[float]) -> float:
    if n == "MIN":
        return _reduce(_min2, vals)
    if n == "MAX":
        return _reduce(_max2, vals)
    if n == "SUM":
        return _reduce(_PY_BIN["+"], vals)
    if n == "AND":
        return float(all(v != 0 for v in vals))
    if n == "OR":
        return float(any(v != 0 for v in vals))
    if n == "IF":
        cond, yes, no = vals
        return yes if cond != 0 else no
    if n == "ROUNDUP":  # ROUNDUP(x, 0): away from zero
        x = vals[0]
        return _sign(x) * _ceil(abs(x) - 1e-9)
    if n == "ROUNDDOWN":  # ROUNDDOWN(x, 0): toward zero
        x = vals[0]
        return _trunc(x + _sign(x) * 1e-9)
    if n == "PMT":  # PMT(rate, nper, pv): negative for a positive loan, as in Excel
        rate, nper, pv = vals
        growth = _expm1(nper * _log1p(rate))  # (1+r)^n - 1, see _array_func
        per_rate = nper if rate == 0 else _div(growth, rate)
        return _div(-pv * (growth + 1.0), per_rate)
    raise AssertionError(n)  # unreachable: names are checked in Func.__post_init__


def _array_func(n: str, vals: list[Value]) -> Value:
    np = _numpy()
    if n == "MIN":
        return _reduce(np.minimum, vals)
    if n == "MAX":
        return _reduce(np.maximum, vals)
    if n == "SUM":
        return _reduce(np.add, vals)
    if n == "AND":
        return _reduce(np.logical_and, vals).astype(float)
    if n == "OR":
        return _reduce(np.logical_or, vals).astype(float)
    if n == "IF":
        cond, yes, no = vals
        return np.where(np.asarray(cond) != 0, yes, no)
    if n == "ROUNDUP":
        x = vals[0]
        return np.sign(x) * np.ceil(np.abs(x) - 1e-9)
    if n == "ROUNDDOWN":
        x = np.asarray(vals[0])
        return np.trunc(x + np.sign(x) * 1e-9)
    if n == "PMT":
        rate, nper, pv = (np.asarray(v, dtype=float) for v in vals)
        # -pv * r (1+r)^n / ((1+r)^n - 1), with (1+r)^n - 1 = expm1(n log1p r): exact for
        # tiny rates, where numpy-financial's pmt loses every digit (1e-17 gives -inf/nan)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            growth = np.expm1(nper * np.log1p(rate))
            per_rate = np.where(rate == 0, nper, growth / np.where(rate == 0, 1.0, rate))
            return -pv * (growth + 1.0) / per_rate
    raise AssertionError(n)


def _reduce(fn: Callable[[Any, Any], Any], vals: list[Any]) -> Any:
    out = vals[0]
    for v in vals[1:]:
        out = fn(out, v)
    return out


@dataclass(frozen=True, eq=False)
class Npv(Expr):
    """Net present value with the first flow at t=0 (numpy-financial's convention).

    The spreadsheet NPV discounts its first argument by one period, so this writes
    `flow0 + NPV(rate, flow1, ..., flowN)`.
    """

    rate: Expr
    flows: tuple[Expr, ...]

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.rate.evaluate(env)] + [f.evaluate(env) for f in self.flows])

    def children(self) -> tuple[Expr, ...]:
        return (self.rate, *self.flows)

    def apply(self, vals: list[Value]) -> Value:
        # numpy-financial's npv formula, sum_t flow_t / (1 + r)^t, summed in year order (its
        # npv cannot broadcast over draws, and a float needs no numpy).
        r, flows = vals[0], vals[1:]
        if _scalars(vals):
            base = 1.0 + float(r)
            total = 0.0
            for t, f in enumerate(flows):
                total = total + _div(float(f), _pow(base, float(t)))
            return total
        np = _numpy()
        out: Value = 0.0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            for t, f in enumerate(flows):
                out = out + f / np.power(1.0 + r, t)
        return out

    def excel(self, ref: RefFn) -> str:
        first = self.flows[0].excel(ref)
        rest = ",".join(f.excel(ref) for f in self.flows[1:])
        if not rest:
            return first
        return f"{first}+NPV({self.rate.excel(ref)},{rest})"

    def refs(self) -> Iterable[Ref]:
        yield from self.rate.refs()
        for f in self.flows:
            yield from f.refs()


# Small constructors so model code reads like the methodology.
def MIN(*args: ExprLike) -> Expr:
    return Func("MIN", tuple(lift(a) for a in args))


def MAX(*args: ExprLike) -> Expr:
    return Func("MAX", tuple(lift(a) for a in args))


def SUM(*args: ExprLike) -> Expr:
    if not args:
        return Const(0.0)
    return Func("SUM", tuple(lift(a) for a in args))


def IF(cond: Expr, yes: ExprLike, no: ExprLike) -> Expr:
    return Func("IF", (cond, lift(yes), lift(no)))


def AND(*args: Expr) -> Expr:
    return Func("AND", tuple(args))


def ROUNDUP(x: ExprLike) -> Expr:
    """Round up to a whole number (x >= 0 in this model)."""
    return Func("ROUNDUP", (lift(x),))


def ROUNDDOWN(x: ExprLike) -> Expr:
    """Round down to a whole number (x >= 0 in this model)."""
    return Func("ROUNDDOWN", (lift(x),))


def PMT(rate: ExprLike, nper: ExprLike, pv: ExprLike) -> Expr:
    return Func("PMT", (lift(rate), lift(nper), lift(pv)))


def NPV0(rate: ExprLike, flows: Iterable[ExprLike]) -> Expr:
    """NPV with the first flow at t=0."""
    return Npv(lift(rate), tuple(lift(f) for f in flows))
