"""Evaluate a few quantities of the model for many scenarios at once, fast.

`Model.evaluate` walks every formula of every candidate for each call. Sensitivity, break-even
scans and Monte Carlo ask for a handful of results (NPV of TCO, cost per job) while only some
inputs change, so `Compiled` prepares the work once:

* it keeps only the formulas the requested quantities depend on;
* every quantity that depends on no varied input is taken from the engine's own values
  (`Result.env`, or one scalar run of `Model.evaluate`), and every other sub-expression whose
  operands are all constant is computed once, here, by the node's own `apply`;
* the rest becomes a flat list of operations, each calling the expression node's own
  `apply` (tco/expr/tree.py), so no formula is restated here; identical operations on identical
  operands are computed once (the yearly cash flows of years 1..H are mostly the same): the
  same node type with the same parameters (`Expr.params()`) and the same child slots;
* two shortcuts that change nothing numerically: an IF whose condition is constant picks its
  branch once, and a SUM skips terms that are the constant 0.

Arrays are processed in cache-sized blocks (`BLOCK`), which is several times faster than
whole-array numpy operations on a million draws.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np

from ..expr import BinOp, Const, Expr, Func, Ref, Value
from ..expr.arrays import UFUNCS
from ..expr.floats import TYPES as FLOAT_TYPES
from ..model import Model
from ..twins import Twins

BLOCK = 8192  # draws per block: a block of float64 is 64 KiB and stays in the CPU cache


def _parameters(node: Expr) -> tuple[Any, ...]:
    """Every parameter of `node` (its fields that are not children), as it is: text as itself
    (an operator, a function's name), anything else by type and repr, so that values that
    compare equal but compute differently (0.0 and -0.0, 1 and 1.0) stay apart."""
    return tuple(value if type(value) is str else (name, type(value), repr(value))
                 for name, value in node.params())


def dynamic_quantities(model: Model, varying: set[str]) -> set[str]:
    """The quantities of `model` that depend on a `varying` input, directly or through others
    (the model lists every quantity after those it reads)."""
    out: set[str] = set()
    for q in model:
        for name in model.reads(q.name):
            if name in varying or name in out:
                out.add(q.name)
                break
    return out


class Compiled:
    """`targets` of `model` as functions of the `varying` inputs; other inputs stay at `base`."""

    def __init__(self, model: Model, base: Mapping[str, float], varying: Iterable[str],
                 targets: Iterable[str], env: Mapping[str, Value] | None = None,
                 twins: Twins | None = None) -> None:
        """`env`, when given, is `model.evaluate(base)` already made (the engine's own values,
        `Result.env`): every quantity of `model` and every input in `base`, at those inputs.

        `twins`: `model` is the template's formulas of this group of twins (tco/twins.py),
        evaluated for every member at once. A constant that differs between members is the
        list of their values, computed member by member with the float backend, and an
        operand of shape (members, 1) for the operations; a candidate-specific varying input
        is given as an array (members, n). The members must vary the same inputs: then each
        member's numbers are those its own formulas give (up to the sign of a zero sum)."""
        self.twins = twins
        self.varying = list(dict.fromkeys(varying))
        self.targets = list(dict.fromkeys(targets))
        self._exprs = {q.name: q.expr for q in model}
        unknown = [t for t in self.targets if t not in self._exprs]
        if unknown:
            raise KeyError(f"not quantities of the model: {', '.join(unknown)}")
        self._base_env = model.evaluate(base) if env is None else env
        if twins is not None and env is None:
            raise ValueError("twins are compiled from the engine's values (env)")
        self._vary = set(self.varying)
        self._dynamic = dynamic_quantities(model, self._vary)
        self._q_slot: dict[str, int] = {}
        self._node_slot: dict[int, int] = {}
        self._cse: dict[tuple[Any, ...], int] = {}
        self._const_slot: dict[tuple[str, str], int] = {}
        self.values: list[Any] = []  # slot -> constant value (or None for computed slots)
        self.ops: list[tuple[Expr, tuple[int, ...], int]] = []  # node, operand slots, result
        self.input_slot = {path: self._new_slot(None) for path in self.varying}
        self.target_slot = {t: self._quantity(t) for t in self.targets}
        self.dynamic_targets = [t for t in self.targets if self._is_dyn_slot(t)]
        self._plan = self._with_releases()
        # a constant that differs between twins: its members' values, as a column
        self._columns = [(slot, np.array(v, dtype=float).reshape(-1, 1))
                         for slot, v in enumerate(self.values) if type(v) is list]
        # Only the constants and the operations are kept: the look-ups of compilation would
        # otherwise hold several entries per formula node for as long as the evaluator lives.
        del self._base_env, self._exprs, self._dynamic, self._q_slot, self._node_slot
        del self._cse, self._const_slot

    # --- compilation ---------------------------------------------------------------------------
    def _new_slot(self, value: Any) -> int:
        self.values.append(value)
        return len(self.values) - 1

    def _const(self, value: Value) -> int:
        v = float(np.asarray(value).reshape(-1)[0]) if isinstance(value, np.ndarray) else value
        if type(v) is list:  # twins' values: one constant when they are all the same
            keys = [(type(x).__name__, repr(x)) for x in v]
            if len(set(keys)) == 1:
                v = v[0]
            else:
                key: tuple[Any, ...] = ("twins", tuple(keys))
                if key not in self._const_slot:
                    self._const_slot[key] = self._new_slot(list(v))
                return self._const_slot[key]
        key = (type(v).__name__, repr(v))
        if key not in self._const_slot:
            self._const_slot[key] = self._new_slot(v)
        return self._const_slot[key]

    def _is_dyn_slot(self, target: str) -> bool:
        return self.values[self.target_slot[target]] is None

    def _quantity(self, name: str) -> int:
        if name not in self._q_slot:
            if name in self._dynamic:
                self._q_slot[name] = self._emit(self._exprs[name])
            else:
                self._q_slot[name] = self._const(self._fixed(name))
        return self._q_slot[name]

    def _fixed(self, name: str) -> Any:
        """The engine's value of input or quantity `name` (the twins' values, as a list)."""
        if self.twins is not None and self.twins.own(name):
            return [self._base_env[n] for n in self.twins.names(name)]
        return self._base_env[name]

    def _emit(self, node: Expr) -> int:
        """The slot of `node`'s value: a constant when none of its operands varies (computed
        here by the node's own `apply`, on the same values `Model.evaluate` would give it), else
        an operation."""
        key = id(node)
        slot = self._node_slot.get(key)
        if slot is not None:
            return slot
        values = self.values
        if isinstance(node, Ref):
            if node.name in self._exprs:
                slot = self._quantity(node.name)
            elif node.name in self._vary:
                slot = self.input_slot[node.name]
            else:
                slot = self._const(self._fixed(node.name))
        elif isinstance(node, Const):
            slot = self._const(node.value)
        elif isinstance(node, Func) and node.name == "IF":
            cond = self._emit(node.args[0])
            if values[cond] is not None and type(values[cond]) is not list:
                # only the chosen branch is compiled
                slot = self._emit(node.args[1] if values[cond] != 0 else node.args[2])
            else:
                slot = self._combine(node, [cond] + [self._emit(c) for c in node.args[1:]])
        else:
            slot = self._combine(node, [self._emit(c) for c in node.children()])
        self._node_slot[key] = slot
        return slot

    def _combine(self, node: Expr, slots: list[int]) -> int:
        """The slot of `node` on operands in `slots`, with the two shortcuts: an IF whose
        condition is constant is the chosen branch, and a SUM skips constant zero terms (x +
        0.0 is x) and is its one term when one is left."""
        values = self.values
        if (isinstance(node, Func) and node.name == "IF" and values[slots[0]] is not None
                and type(values[slots[0]]) is not list):
            return slots[1] if values[slots[0]] != 0 else slots[2]
        if (isinstance(node, Func) and node.name == "SUM"
                and any(values[s] is None for s in slots)):
            slots = [s for s in slots if values[s] is None or type(values[s]) is list
                     or values[s] != 0]
            if len(slots) == 1:
                return slots[0]
        return self._operation(node, slots)

    def _operation(self, node: Expr, slots: list[int]) -> int:
        """`node` applied to the values in `slots`: computed now when they are all constant,
        else an operation (one per distinct node type, parameters and operands)."""
        values = self.values
        if all(values[s] is not None for s in slots):
            args = [values[s] for s in slots]
            lists = [a for a in args if type(a) is list]
            if lists:  # member by member, as each member's own formulas compute it
                return self._const([node.apply([a[i] if type(a) is list else a for a in args])
                                    for i in range(len(lists[0]))])
            return self._const(node.apply(args))
        tag = (type(node), _parameters(node), tuple(slots))
        slot = self._cse.get(tag)
        if slot is None:
            slot = self._cse[tag] = self._new_slot(None)
            self.ops.append((node, tuple(slots), slot))
        return slot

    def _with_releases(self) -> list[tuple[Any, ...]]:
        """Each op with the intermediate slots it reads for the last time: dropping them at
        once lets numpy reuse the same (cached) memory for the next results.

        An arithmetic operator (+ - * /) also gets its numpy ufunc (tco.expr.arrays.UFUNCS)
        and which of its operands (0, 1; -1: neither) is an intermediate read for the last
        time: on arrays, `evaluate_block` calls the ufunc itself, which is what
        `BinOp.operate` would call, without its dispatch, and writes the result into that
        operand when it is the evaluator's own array. That is decided here, from the ops
        alone: an operand made by such an operator (a new array, or one written in place) and
        read only by such operators (each makes a new array, never a view or the operand
        itself) is held by its slot alone; inputs, constants and targets never are."""
        keep = set(self.target_slot.values()) | set(self.input_slot.values())
        last: dict[int, int] = {}
        arithmetic = [type(node) is BinOp and node.op in UFUNCS for node, _a, _o in self.ops]
        owned = {out for (_n, _a, out), ufunc in zip(self.ops, arithmetic) if ufunc}
        for k, (_fn, args, _out) in enumerate(self.ops):
            for a in args:
                last[a] = k
                if not arithmetic[k]:
                    owned.discard(a)  # a function may return it, or a view of it, as its value
        plan = []
        for k, (node, args, out) in enumerate(self.ops):
            free = tuple(a for a in set(args) if last[a] == k and a not in keep
                         and self.values[a] is None)
            if arithmetic[k]:
                mine = [a in free and a in owned for a in args]
                into = (0 if mine[0] else 1 if mine[1] else -1) if args[0] != args[1] else -1
                plan.append((node.operate, args, out, free, UFUNCS[node.op], into))
            else:
                plan.append((node.apply, args, out, free, None, -1))
        return plan

    def member_key(self, row: int) -> bytes:
        """Twins: member `row`'s constants that differ between members, as bytes. Members with
        the same key and the same varying inputs get the same numbers from `evaluate_block`."""
        return b"".join(column[row].tobytes() for _slot, column in self._columns)

    @functools.cached_property
    def inputs_read(self) -> frozenset[str]:
        """The varying inputs that reach at least one target (made once: its callers ask
        for it per input)."""
        read = {a for _fn, args, _out in self.ops for a in args} | set(self.target_slot.values())
        return frozenset(p for p, slot in self.input_slot.items() if slot in read)

    # --- evaluation ----------------------------------------------------------------------------
    def __call__(self, inputs: Mapping[str, np.ndarray | float],
                 progress: Callable[[int], None] | None = None) -> dict[str, Value]:
        """Every target, for input arrays of one common length (or scalars)."""
        arrays = {p: np.asarray(inputs[p], dtype=float) for p in self.varying}
        n = max((a.size for a in arrays.values() if a.ndim), default=0)
        if n == 0:
            return self.evaluate_block({p: float(a) for p, a in arrays.items()})
        out = {t: np.empty(n) for t in self.dynamic_targets}
        for start in range(0, n, BLOCK):
            stop = min(start + BLOCK, n)
            vals = self.evaluate_block({p: a[start:stop] if a.ndim else float(a)
                                        for p, a in arrays.items()})
            for t in self.dynamic_targets:
                out[t][start:stop] = vals[t]
            if progress is not None:
                progress(stop - start)
        return {t: out[t] if t in out else self.values[self.target_slot[t]]
                for t in self.targets}

    def evaluate_block(self, inputs: Mapping[str, Value], rows: Any = None
                       ) -> dict[str, Value]:
        """Every target for one block of inputs (arrays of one length, ideally <= BLOCK).
        Twins: the members `rows` (an index or slice of the members; all when None) only,
        their varying inputs of their own as arrays (those rows, n)."""
        vals = list(self.values)
        for slot, column in self._columns:
            vals[slot] = column if rows is None else column[rows]
        for path, slot in self.input_slot.items():
            vals[slot] = inputs[path]
        floats = FLOAT_TYPES
        # the array backend gives IEEE infinities and nan without warnings (tco/expr/arrays.py)
        with np.errstate(all="ignore"):
            for fn, args, out, free, ufunc, into in self._plan:
                if ufunc is None:
                    vals[out] = fn([vals[i] for i in args])
                else:
                    a, b = vals[args[0]], vals[args[1]]
                    if type(a) in floats and type(b) in floats:
                        vals[out] = fn(a, b)  # the float backend, as BinOp.operate picks
                    else:
                        dead = _writable(a, b) if into == 0 else (
                            _writable(b, a) if into == 1 else None)
                        vals[out] = ufunc(a, b) if dead is None else ufunc(a, b, out=dead)
                    del a, b
                for i in free:
                    vals[i] = None
        return {t: vals[slot] for t, slot in self.target_slot.items()}


_FLOAT64 = np.dtype(np.float64)


def _writable(x: Any, other: Any) -> Any:
    """`x`, an operand the evaluator owns (Compiled._with_releases), when the result of an
    operation on `x` and `other` may be written into it: an array of float64 with the shape of
    the result. Else None."""
    if type(x) is not np.ndarray or x.dtype is not _FLOAT64:
        return None
    if type(other) in FLOAT_TYPES:
        return x
    shape = np.shape(other)
    return x if shape == x.shape or shape == x.shape[len(x.shape) - len(shape):] else None
