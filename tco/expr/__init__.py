"""Expressions that evaluate themselves (floats or numpy arrays) and write themselves as
spreadsheet formulas.

Every quantity of the model is one `Expr` tree, defined once. The same tree

* evaluates on scalars (one scenario) or on numpy arrays (a million Monte Carlo draws at once,
  or every sensitivity case at once): `evaluate(env)`, where `env` maps input paths and
  quantity names to floats or arrays that broadcast together; and
* renders as an Excel/LibreOffice formula: `excel(ref)`, where `ref` turns an input path or a
  quantity name into a cell reference or defined name.

One module holds the trees and one each backend:

* tree.py: the node types (Const, Ref, BinOp, Neg, Func, Npv), the operators and constructors;
* floats.py: each operation on plain Python numbers (one scenario: no numpy import);
* arrays.py: each operation on numpy arrays, imported the first time an operand is an array;
* formula.py: spreadsheet formula text.

The float and array backends have one meaning: the float backend follows numpy's IEEE results
where Python would raise instead (x/0 is inf or nan, an overflowing power is inf), and
tests/test_expr.py checks them against each other, edge cases included.
"""

from . import formula as _formula  # noqa: F401  (registers the writer behind Expr.excel)
from .tree import (
    AND,
    FUNCTIONS,
    IF,
    MAX,
    MIN,
    NPV0,
    PMT,
    ROUNDDOWN,
    ROUNDUP,
    SUM,
    BinOp,
    Const,
    Env,
    Expr,
    ExprLike,
    Func,
    Neg,
    Npv,
    Number,
    Ref,
    RefFn,
    Value,
    lift,
)

__all__ = ["AND", "FUNCTIONS", "IF", "MAX", "MIN", "NPV0", "PMT", "ROUNDDOWN", "ROUNDUP", "SUM",
           "BinOp", "Const", "Env", "Expr", "ExprLike", "Func", "Neg", "Npv", "Number", "Ref",
           "RefFn", "Value", "lift"]
