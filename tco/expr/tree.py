"""The expression trees: node types, the operators that build them and small constructors.

A node knows its children, its own parameters (an operator, a function's name, a constant)
and which inputs it reads. What it means is up to the backends:

* value backends compute it. `apply(vals)` runs the node's operation on its children's values
  with tco/expr/floats.py when every operand is a plain number, and with tco/expr/arrays.py
  (numpy, imported then and not before) when any is an array; `evaluate(env)` does that for the
  whole tree. The choice is made per operation, from the operands, because one tree mixes
  both: a Monte Carlo run varies a few inputs and keeps the rest as floats.
* text backends write it. tco/expr/formula.py writes spreadsheet formulas; each text backend is
  one module that dispatches on the node's type, so adding one touches no class here.

Nodes are dataclasses whose fields are their children (an `Expr` or a tuple of them)
and their parameters (anything else): `children()` and `params()` between them are the whole
node, which tco/analysis/fast.py relies on to merge identical operations. A node is never
changed once made, and one node may be part of many trees (twins share every subtree that
reads nothing of their own, tco/model/twincopy.py). The classes have slots and are not
`frozen`: a frozen dataclass's constructor sets each field through `object.__setattr__`,
which made building a model of a thousand candidates (1.6 million nodes) twice as slow.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, fields
from functools import cache
from typing import Any, Union

from . import floats

Number = int | float
Value = Union[float, "numpy.ndarray"]  # noqa: F821 (numpy is imported only for arrays)
Env = Mapping[str, Value]
RefFn = Callable[["Ref"], str]

# The spreadsheet functions a `Func` may call. Each is one both Excel 2010 and LibreOffice know
# (tco/expr/formula.py) and has a float and an array implementation (tests/test_expr.py).
FUNCTIONS = frozenset({"MIN", "MAX", "IF", "ROUNDUP", "ROUNDDOWN", "SUM", "PMT", "AND", "OR"})

_FLOAT_TYPES = floats.TYPES
_FLOAT_BINARY = floats.BINARY
_FLOAT_FUNCTIONS = floats.FUNCTIONS
_float_negate = floats.negate
_accepts_floats = floats.accepts
_arrays: Any = None  # tco.expr.arrays, imported the first time an operand is an array


def _array_backend() -> Any:
    global _arrays
    if _arrays is None:
        from . import arrays

        _arrays = arrays
    return _arrays


_formula: Any = None  # tco.expr.formula.formula: it registers itself (register_formula_writer)


def register_formula_writer(write: Callable[[Expr, RefFn], str]) -> None:
    """Called by tco.expr.formula when it is imported (tco/expr/__init__.py imports it): the
    trees write themselves as formulas through it, and this module imports no backend that
    imports it back."""
    global _formula
    _formula = write


class Expr:
    """A node of a formula. Combine with + - * / ** and comparison helpers."""

    __slots__ = ()

    def evaluate(self, env: Env) -> Value:
        """The node's value: its children evaluated, then `apply`-ed."""
        return self.apply([c.evaluate(env) for c in self.children()])

    def children(self) -> tuple[Expr, ...]:
        """The sub-expressions whose values `apply` combines (none for leaves)."""
        return ()

    def params(self) -> tuple[tuple[str, Any], ...]:
        """The node's fields that are not children, as (name, value) pairs, in field order."""
        return tuple([(name, getattr(self, name)) for name in _param_names(type(self))])

    def apply(self, vals: list[Value]) -> Value:
        """This node's operation on its children's values, in `children()` order.

        Separate from `evaluate` so that a compiled evaluator (tco.analysis.fast) can run the
        same operation on precomputed child values without re-deriving any formula.
        """
        raise NotImplementedError

    def excel(self, ref: RefFn) -> str:
        """This expression as a spreadsheet formula; `ref` addresses each input or quantity."""
        return _formula(self, ref)  # type: ignore[no-any-return]

    def refs(self) -> Iterable[Ref]:
        """Every input or quantity this expression reads."""
        for c in self.children():
            yield from c.refs()

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


# How a node type declares its children: a field of one of these types (the annotations, as
# written in this module); every other field is a parameter.
_CHILD_ANNOTATIONS = frozenset({"Expr", "tuple[Expr, ...]"})


@cache
def _param_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(cls)  # type: ignore[arg-type]
                 if f.type not in _CHILD_ANNOTATIONS)


def lift(x: ExprLike) -> Expr:
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"cannot use {x!r} in a formula")
    return Const(float(x))


@dataclass(eq=False, slots=True)
class Const(Expr):
    """A true constant (unit conversions such as 3600 s/h), never a user assumption."""

    value: float

    def evaluate(self, env: Env) -> Value:
        return self.value

    def refs(self) -> Iterable[Ref]:
        return ()


@dataclass(eq=False, slots=True)
class Ref(Expr):
    """A named value: an input (by its dotted path) or another quantity of the model."""

    name: str

    def evaluate(self, env: Env) -> Value:
        return env[self.name]

    def refs(self) -> Iterable[Ref]:
        return (self,)


@dataclass(eq=False, slots=True)
class BinOp(Expr):
    """+ - * / ^ (power) and the comparisons <= < >= > (1.0 or 0.0)."""

    op: str
    left: Expr
    right: Expr

    def evaluate(self, env: Env) -> Value:
        return self.operate(self.left.evaluate(env), self.right.evaluate(env))

    def children(self) -> tuple[Expr, ...]:
        return (self.left, self.right)

    def apply(self, vals: list[Value]) -> Value:
        return self.operate(*vals)

    def operate(self, a: Value, b: Value) -> Value:
        """`apply` on the two operands, without a list (the most frequent node of a model)."""
        if type(a) in _FLOAT_TYPES and type(b) in _FLOAT_TYPES:
            return _FLOAT_BINARY[self.op](float(a), float(b))
        return (_arrays or _array_backend()).BINARY[self.op](a, b)


@dataclass(eq=False, slots=True)
class Neg(Expr):
    arg: Expr

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.arg.evaluate(env)])

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)

    def apply(self, vals: list[Value]) -> Value:
        if _accepts_floats(vals):
            return _float_negate(vals[0])
        return (_arrays or _array_backend()).negate(vals[0])


@dataclass(eq=False, slots=True)
class Func(Expr):
    """A spreadsheet function (one of `FUNCTIONS`)."""

    name: str
    args: tuple[Expr, ...]

    def __post_init__(self) -> None:
        if self.name not in FUNCTIONS:
            raise ValueError(f"{self.name} is not a function both Excel 2010 and LibreOffice know"
                             " (tco.expr.FUNCTIONS)")

    def evaluate(self, env: Env) -> Value:
        return self.apply([a.evaluate(env) for a in self.args])

    def children(self) -> tuple[Expr, ...]:
        return self.args

    def apply(self, vals: list[Value]) -> Value:
        if _accepts_floats(vals):
            return _FLOAT_FUNCTIONS[self.name]([float(v) for v in vals])
        return (_arrays or _array_backend()).FUNCTIONS[self.name](vals)


@dataclass(eq=False, slots=True)
class Npv(Expr):
    """Net present value with the first flow at t=0 (numpy-financial's convention).

    The spreadsheet NPV discounts its first argument by one period, so the formula backend
    writes `flow0 + NPV(rate, flow1, ..., flowN)`.
    """

    rate: Expr
    flows: tuple[Expr, ...]

    def evaluate(self, env: Env) -> Value:
        return self.apply([self.rate.evaluate(env)] + [f.evaluate(env) for f in self.flows])

    def children(self) -> tuple[Expr, ...]:
        return (self.rate, *self.flows)

    def apply(self, vals: list[Value]) -> Value:
        if _accepts_floats(vals):
            return floats.npv(vals)
        return (_arrays or _array_backend()).npv(vals)


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
