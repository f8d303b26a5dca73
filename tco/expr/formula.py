"""The formula backend: an expression tree as Excel/LibreOffice formula text.

`formula(node, ref)` writes `node` with as few parentheses as the spreadsheet's precedence
allows; `ref` turns each `Ref` (an input path or a quantity name) into a cell reference or a
defined name. Only functions that Excel 2010 and LibreOffice both know are written
(`EXCEL_SAFE`). Booleans are TRUE/FALSE, which multiply as 1/0 as the value backends' 1.0/0.0
do; a division by zero is #DIV/0! where they give inf or nan, so the model guards every
denominator that can reach zero.

The backend dispatches on the node's type: one writer per node class (`@writes(Const)`), which
returns the text and its precedence; a node class without one raises NotImplementedError.
Another text backend (JavaScript for the live report) is another module of the same shape.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .tree import BinOp, Const, Expr, Func, Neg, Npv, Ref, RefFn, register_formula_writer

EXCEL_SAFE = frozenset({"MIN", "MAX", "IF", "ROUNDUP", "ROUNDDOWN", "SUM", "NPV", "PMT", "AND",
                        "OR"})

# Precedence for minimal parentheses: higher binds tighter.
_CMP, _ADD, _MUL, _NEG, _POW, _ATOM = 1, 2, 3, 4, 5, 9
_BINARY_PREC = {"<=": _CMP, "<": _CMP, ">=": _CMP, ">": _CMP, "+": _ADD, "-": _ADD, "*": _MUL,
                "/": _MUL, "^": _POW}

Writer = Callable[[Any, RefFn], tuple[str, int]]
_WRITERS: dict[type, Writer] = {}


def writes(cls: type) -> Callable[[Writer], Writer]:
    """Register the decorated function as the writer of `cls` nodes: (text, precedence)."""
    def register(fn: Writer) -> Writer:
        _WRITERS[cls] = fn
        return fn
    return register


def formula(node: Expr, ref: RefFn) -> str:
    """`node` as formula text (without the leading '=')."""
    return _write(node, ref)[0]


def _write(node: Expr, ref: RefFn) -> tuple[str, int]:
    if type(node) is Ref:  # the most frequent node, written without a look-up
        return ref(node), _ATOM
    try:
        writer = _WRITERS[type(node)]
    except KeyError:
        raise NotImplementedError(
            f"no spreadsheet formula for a {type(node).__name__} node") from None
    return writer(node, ref)


def fmt_number(v: float) -> str:
    """A number as formula text: whole numbers without a decimal point, others as repr."""
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return repr(v)


@writes(Const)
def _const(node: Const, ref: RefFn) -> tuple[str, int]:
    return fmt_number(node.value), _NEG if node.value < 0 else _ATOM


@writes(Ref)
def _ref(node: Ref, ref: RefFn) -> tuple[str, int]:
    return ref(node), _ATOM


@writes(BinOp)
def _binop(node: BinOp, ref: RefFn) -> tuple[str, int]:
    op, a, b = node.op, node.left, node.right
    me = _BINARY_PREC[op]
    # (a reference, the most frequent operand, is written here without a call)
    left, lp = (ref(a), _ATOM) if type(a) is Ref else _write(a, ref)
    right, rp = (ref(b), _ATOM) if type(b) is Ref else _write(b, ref)
    # Left-associative operators: the left side needs parentheses only when it binds
    # looser; the right side also when it binds the same (a-(b-c), a/(b*c)).
    if lp < me or (op == "^" and lp <= me):
        left = f"({left})"
    if rp < me or (rp == me and op in "-/^") or (
            rp == me and op in "+*" and isinstance(b, BinOp) and b.op in "-/"):
        right = f"({right})"
    return f"{left}{op}{right}", me


@writes(Neg)
def _neg(node: Neg, ref: RefFn) -> tuple[str, int]:
    inner, prec = _write(node.arg, ref)
    # Excel binds unary minus tighter than ^, so -(x) keeps the meaning explicit.
    return (f"-({inner})" if prec < _ATOM else f"-{inner}"), _NEG


@writes(Func)
def _func(node: Func, ref: RefFn) -> tuple[str, int]:
    args = [ref(a) if type(a) is Ref else _write(a, ref)[0] for a in node.args]
    if node.name in ("ROUNDUP", "ROUNDDOWN"):
        args = [args[0], "0"]
    return f"{node.name}({','.join(args)})", _ATOM


@writes(Npv)
def _npv(node: Npv, ref: RefFn) -> tuple[str, int]:
    # The spreadsheet NPV discounts its first argument by one period: flow 0 stays outside.
    first, prec = _write(node.flows[0], ref)
    rest = ",".join(_write(f, ref)[0] for f in node.flows[1:])
    if not rest:
        return first, prec
    return f"{first}+NPV({_write(node.rate, ref)[0]},{rest})", _ADD


register_formula_writer(formula)  # Expr.excel writes through it
