"""The JavaScript backend: an expression tree as JavaScript, for the live report (issue 16).

`javascript(node)` writes one expression; `program(assignments)` writes a function
`evaluate(v)` that computes named quantities in order into the object `v` of input values,
exactly as `Model.evaluate` does. Nothing is written per formula by hand: like the formula
backend (tco/expr/formula.py) this dispatches on the node's type, one writer per node class.
The functions the trees use (MIN, PMT, NPV, ...) are a small runtime, `RUNTIME`, written to
follow the float backend (tco/expr/floats.py) operation for operation: the same shortcuts for
x^2, x^0.5 and x^-1, the same nan and signed-zero rules, NPV summed in year order. JavaScript
numbers are IEEE doubles, so the results equal the engine's to within the last bits of
`Math.pow` (tests/test_javascript.py runs the program in Node and compares every quantity).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from typing import Any

from .tree import BinOp, Const, Expr, Func, Neg, Npv, Ref

Writer = Callable[[Any, "RefWriter"], str]
RefWriter = Callable[[str], str]
_WRITERS: dict[type, Writer] = {}

# One function per spreadsheet function the trees use, mirroring tco/expr/floats.py.
RUNTIME = """const R = {
  pow(a, b) {
    if (b === 2) return a * a;
    if (b === 0.5) return a >= 0 ? Math.sqrt(a) : NaN;
    if (b === -1) return 1 / a;
    return Math.pow(a, b);
  },
  min2(a, b) { return (a < b || Number.isNaN(a)) ? a : b; },
  max2(a, b) { return (a > b || Number.isNaN(a)) ? a : b; },
  MIN(...x) { return x.reduce((a, b) => R.min2(a, b)); },
  MAX(...x) { return x.reduce((a, b) => R.max2(a, b)); },
  SUM(...x) { return x.reduce((a, b) => a + b); },
  AND(...x) { return x.every((v) => v !== 0) ? 1 : 0; },
  OR(...x) { return x.some((v) => v !== 0) ? 1 : 0; },
  IF(c, y, n) { return c !== 0 ? y : n; },
  sign(x) { return Number.isNaN(x) ? x : (x > 0) - (x < 0); },
  ceil(x) { if (!Number.isFinite(x)) return x; const c = Math.ceil(x); return (c === 0 && x < 0) ? -0 : c; },
  trunc(x) { if (!Number.isFinite(x)) return x; const t = Math.trunc(x); return (t === 0 && (x < 0 || Object.is(x, -0))) ? -0 : t; },
  ROUNDUP(x) { return R.sign(x) * R.ceil(Math.abs(x) - 1e-9); },
  ROUNDDOWN(x) { return R.trunc(x + R.sign(x) * 1e-9); },
  log1p(x) { return x === -1 ? -Infinity : (x > -1 ? Math.log1p(x) : NaN); },
  PMT(rate, nper, pv) {
    const growth = Math.expm1(nper * R.log1p(rate));
    const perRate = rate === 0 ? nper : growth / rate;
    return (-pv * (growth + 1)) / perRate;
  },
  NPV(rate, flows) {
    const base = 1 + rate;
    let total = 0;
    for (let t = 0; t < flows.length; t++) total = total + flows[t] / R.pow(base, t);
    return total;
  },
};
"""


def writes(cls: type) -> Callable[[Writer], Writer]:
    def register(fn: Writer) -> Writer:
        _WRITERS[cls] = fn
        return fn
    return register


def by_name(name: str) -> str:
    """A named value as `v["name"]` (the name as a JSON string literal)."""
    return f"v[{json.dumps(name)}]"


def javascript(node: Expr, ref: RefWriter = by_name) -> str:
    """`node` as a JavaScript expression; `ref` writes each input or quantity it reads (by
    default `v["name"]`; the report passes one that writes `v[12]`, an index, so that no name
    is ever part of the code)."""
    writer = _WRITERS.get(type(node))
    if writer is None:
        raise NotImplementedError(f"no JavaScript for a {type(node).__name__} node")
    return writer(node, ref)


def number(x: float) -> str:
    """A float as a JavaScript literal (inf, nan and -0 included)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "(-Infinity)"
    if x == 0 and math.copysign(1.0, x) < 0:
        return "(-0)"
    return f"({x!r})" if x < 0 else repr(float(x))


@writes(Const)
def _const(node: Const, ref: RefWriter) -> str:
    return number(node.value)


@writes(Ref)
def _ref(node: Ref, ref: RefWriter) -> str:
    return ref(node.name)


_COMPARE = {"<=", "<", ">=", ">"}


@writes(BinOp)
def _binop(node: BinOp, ref: RefWriter) -> str:
    left, right = javascript(node.left, ref), javascript(node.right, ref)
    if node.op == "^":
        return f"R.pow({left}, {right})"
    if node.op == "/":
        return f"({left} / {right})"
    if node.op in _COMPARE:
        return f"(({left} {node.op} {right}) ? 1 : 0)"
    return f"({left} {node.op} {right})"


@writes(Neg)
def _neg(node: Neg, ref: RefWriter) -> str:
    return f"(-{javascript(node.arg, ref)})"


@writes(Func)
def _func(node: Func, ref: RefWriter) -> str:
    return f"R.{node.name}({', '.join(javascript(a, ref) for a in node.args)})"


@writes(Npv)
def _npv(node: Npv, ref: RefWriter) -> str:
    flows = ", ".join(javascript(f, ref) for f in node.flows)
    return f"R.NPV({javascript(node.rate, ref)}, [{flows}])"


def program(assignments: Iterable[tuple[str, Expr]], name: str = "evaluate",
            ref: RefWriter = by_name) -> str:
    """The runtime and `function <name>(v)`: each (quantity name, formula) computed in order
    into `v`, which holds the inputs by path (or as `ref` addresses them); it returns `v`."""
    lines = [RUNTIME, f"function {name}(v) {{"]
    for qname, expr in assignments:
        lines.append(f"  {ref(qname)} = {javascript(expr, ref)};")
    lines.append("  return v;\n}")
    return "\n".join(lines) + "\n"
