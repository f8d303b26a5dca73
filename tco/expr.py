"""Expressions that evaluate themselves with numpy and write themselves as spreadsheet formulas.

Every quantity of the model is one `Expr` tree, defined once. The same tree

* evaluates on scalars (one scenario) or on numpy arrays (a million Monte Carlo draws at once,
  or every sensitivity case at once): `evaluate(env)`, where `env` maps input paths and
  quantity names to floats or arrays that broadcast together; and
* renders as an Excel/LibreOffice formula: `excel(ref)`, where `ref` turns an input path or a
  quantity name into a cell reference or defined name.

Only functions that Excel 2010 and LibreOffice both know are emitted (see `_EXCEL_SAFE`).
Conventions: booleans are 1.0/0.0 in numpy and TRUE/FALSE in a spreadsheet; both multiply as
numbers. Division by zero gives inf/nan in numpy and #DIV/0! in a spreadsheet, so the model
guards every denominator that can reach zero.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy_financial as npf

Number = int | float
Value = float | np.ndarray
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


_NP_BIN = {
    "+": np.add,
    "-": np.subtract,
    "*": np.multiply,
    "/": np.divide,
    "^": np.power,
}
_NP_CMP = {"<=": np.less_equal, "<": np.less, ">=": np.greater_equal, ">": np.greater}


def _as_float(v: Value) -> Value:
    if isinstance(v, np.ndarray):
        return v.astype(float)
    return float(v)


@dataclass(frozen=True, eq=False)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr

    @property
    def prec(self) -> int:  # type: ignore[override]
        return _PREC["cmp"] if self.op in _NP_CMP else _PREC[self.op]

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.left.evaluate(env), self.right.evaluate(env)])

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def apply(self, vals: list[Value]) -> Value:
        a, b = vals
        if self.op in _NP_CMP:
            return _as_float(_NP_CMP[self.op](a, b))
        if self.op == "/":
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.divide(a, b)
        return _NP_BIN[self.op](a, b)

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
        return np.negative(vals[0])

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
        n = self.name
        if n == "MIN":
            return _reduce(np.minimum, vals)
        if n == "MAX":
            return _reduce(np.maximum, vals)
        if n == "SUM":
            return _reduce(np.add, vals)
        if n == "AND":
            return _as_float(_reduce(np.logical_and, vals))
        if n == "OR":
            return _as_float(_reduce(np.logical_or, vals))
        if n == "IF":
            cond, yes, no = vals
            return np.where(np.asarray(cond) != 0, yes, no) if _is_array(vals) else (
                yes if cond else no
            )
        if n == "ROUNDUP":  # ROUNDUP(x, 0): away from zero
            x = vals[0]
            return np.sign(x) * np.ceil(np.abs(x) - 1e-9)
        if n == "ROUNDDOWN":  # ROUNDDOWN(x, 0): toward zero
            x = vals[0]
            return np.trunc(np.asarray(x) + np.sign(x) * 1e-9) if _is_array(vals) else float(
                np.trunc(x + np.sign(x) * 1e-9)
            )
        if n == "PMT":  # PMT(rate, nper, pv): negative for a positive loan, as in Excel
            rate, nper, pv = (np.asarray(v, dtype=float) for v in vals)
            # -pv * r (1+r)^n / ((1+r)^n - 1), with (1+r)^n - 1 = expm1(n log1p r): exact for
            # tiny rates, where numpy-financial's pmt loses every digit (1e-17 gives -inf/nan)
            growth = np.expm1(nper * np.log1p(rate))
            with np.errstate(divide="ignore", invalid="ignore"):
                per_rate = np.where(rate == 0, nper, growth / np.where(rate == 0, 1.0, rate))
                out = -pv * (growth + 1.0) / per_rate
            return out if _is_array(vals) else float(out)
        raise AssertionError(n)  # unreachable: names are checked in __post_init__

    def excel(self, ref: RefFn) -> str:
        args = [a.excel(ref) for a in self.args]
        if self.name in ("ROUNDUP", "ROUNDDOWN"):
            args = [args[0], "0"]
        return f"{self.name}({','.join(args)})"

    def refs(self) -> Iterable[Ref]:
        for a in self.args:
            yield from a.refs()


def _is_array(vals: list[Value]) -> bool:
    return any(isinstance(v, np.ndarray) and v.ndim > 0 for v in vals)


def _reduce(fn: Callable[[Value, Value], Value], vals: list[Value]) -> Value:
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
        r, flows = vals[0], vals[1:]
        if not _is_array(vals):
            return float(npf.npv(r, flows))
        # numpy-financial's npv sums over its first axis and cannot broadcast over draws;
        # this is its formula, sum_t flow_t / (1 + r)^t, on arrays.
        total: Value = 0.0
        for t, f in enumerate(flows):
            total = total + f / np.power(1.0 + r, t)
        return total

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
