"""Twins: candidates whose formulas are the same but for their ids, evaluated as one.

A scenario of a thousand candidates has a few dozen kinds of them: the same formulas (the
same tree shapes, constants and inputs shared by the scenario) read different candidates'
inputs (`candidates.<id>.card_price`, ...). `tco.model.build.Shape` is everything about a
candidate that shapes its formulas, so candidates of one Shape in one model are twins by
construction; `formula_signature` checks that from the formulas themselves (tests).

A group of twins is evaluated once, on its first member's formulas (the template), with each
candidate-specific input an array along a leading axis of members: the trees broadcast over
arrays as they do over Monte Carlo draws, and each element is computed from the same input
values by an operation that gives what the member's own formulas give (`evaluate`,
`values_of_members`). Sizing and the layout search, the engine's final evaluation,
sensitivity and Monte Carlo use it (docs/design.md, "Twins"); `GROUPED = False` forces the
one-by-one path, which tests compare against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .expr import BinOp, Const, Expr, Func, Ref
from .model import Model
from .model.build import Shape, shape

GROUPED = True  # False: every analysis evaluates candidate by candidate (tests compare both)


@dataclass(frozen=True)
class Twins:
    """Candidates of one Shape, in model order, and the template whose formulas they are
    evaluated on (by default the first member; its names are the ones `names` renames)."""

    shape: Shape
    members: tuple[str, ...]
    inputs_of: tuple[str, ...]  # whose inputs each member reads (itself or its source)
    by: tuple[str, str] = ("", "")  # the template: (id, whose inputs it reads)

    @property
    def template(self) -> str:
        return self.by[0] or self.members[0]

    @cached_property
    def _prefixes(self) -> tuple[str, str]:
        t, own = self.by if self.by[0] else (self.members[0], self.inputs_of[0])
        return f"{t}.", f"candidates.{own}."

    def _split(self, name: str) -> tuple[int, str]:
        """(1, the rest) for an input of the template's own, (0, the rest) for a quantity of
        its own, (-1, name) for a name every member shares."""
        qp, ip = self._prefixes
        if name.startswith(ip):
            return 1, name[len(ip):]
        if name.startswith(qp):
            return 0, name[len(qp):]
        return -1, name

    def names(self, name: str) -> list[str]:
        """The template's quantity or input `name` as each member reads it (the same name for
        an input every candidate shares)."""
        which, rest = self._split(name)
        if which == 1:
            return [f"candidates.{o}.{rest}" for o in self.inputs_of]
        if which == 0:
            return [f"{m}.{rest}" for m in self.members]
        return [name] * len(self.members)

    def own(self, name: str) -> bool:
        """Whether the template's `name` differs from member to member."""
        return name.startswith(self._prefixes)

    def rename(self, name: str) -> str:
        """The template's `name` as the last member reads it (see `pair`): `names(name)[-1]`,
        without the list (sizing renames every name it reads for each candidate)."""
        which, rest = self._split(name)
        if which == 1:
            return f"candidates.{self.inputs_of[-1]}.{rest}"
        if which == 0:
            return f"{self.members[-1]}.{rest}"
        return name

    def subset(self, members: Sequence[str]) -> Twins:
        """Some of the members, still named after this group's template."""
        at = {m: i for i, m in enumerate(self.members)}
        t, own = self.by if self.by[0] else (self.members[0], self.inputs_of[0])
        return Twins(self.shape, tuple(members), tuple(self.inputs_of[at[m]] for m in members),
                     (t, own))


def shapes(model: Model) -> dict[str, Shape]:
    """Each candidate's Shape (kept with the model)."""
    st = model.structure

    def build() -> dict[str, Shape]:
        return {cid: shape(st, cid, k) for k, cid in enumerate(st.candidates)}
    return model._cached("twins.shapes", build)  # type: ignore[no-any-return]


def inputs_of(model: Model) -> dict[str, str]:
    """Whose inputs each candidate reads (itself, or the option it was made from)."""
    st = model.structure
    return model._cached("twins.inputs_of",  # type: ignore[no-any-return]
                         lambda: dict(zip(st.candidates, st.inputs_of)))


def pair(model: Model, first: str, cid: str) -> Twins:
    """Twins `first` (the template) and `cid`, which must have the same Shape."""
    own = inputs_of(model)
    return Twins(shapes(model)[cid], (cid,), (own[cid],), (first, own[first]))


def groups(model: Model, cids: Iterable[str]) -> list[Twins]:
    """`cids` (candidates of the model; anything else is left out) as groups of twins, each in
    the order of `cids`, groups in the order of their first member."""
    by_shape, own = shapes(model), inputs_of(model)
    out: dict[Shape, list[str]] = {}
    for cid in cids:
        if cid in by_shape:
            out.setdefault(by_shape[cid], []).append(cid)
    return [Twins(sh, tuple(ms), tuple(own[m] for m in ms)) for sh, ms in out.items()]


def inputs_used(model: Model) -> list[str]:
    """`model.inputs_used()` (the input paths the formulas read, in first-use order), made
    from each group of twins' template and kept as the model's own answer: the formulas of a
    thousand candidates need not all be walked."""
    def build() -> list[str]:
        if not GROUPED:
            return model._inputs_read(model.quantities)
        exprs = model.expressions()
        by_member: dict[str, tuple[Twins, list[str]]] = {}
        for group in groups(model, model.structure.candidates):
            first = group.template
            if len(group.members) > 1:
                seq = model._inputs_read(model.of_candidate(first))
                for cid in group.members:
                    by_member[cid] = (group, seq)
        seen: dict[str, None] = {}
        done: set[str] = set()
        for q in model.quantities:
            got = by_member.get(q.candidate)
            if got is None:
                for name in model.reads(q.name):
                    if name not in exprs:
                        seen.setdefault(name, None)
            elif q.candidate not in done:  # the member's inputs, in its own first-use order
                done.add(q.candidate)
                group, seq = got
                rename = pair(model, group.template, q.candidate).rename
                for name in seq:
                    seen.setdefault(rename(name), None)
        return list(seen)
    return list(model._cached("inputs_used", build))


def formula_signature(model: Model, cid: str) -> tuple[Any, ...]:
    """Candidate `cid`'s formulas with its own id and its inputs' id taken out: equal for two
    candidates exactly when their formulas are the same but for their ids (node types,
    operators, constants, and every name not their own)."""
    st = model.structure
    own = st.inputs_of[st.candidates.index(cid)]
    qp, ip = f"{cid}.", f"candidates.{own}."
    exprs = model.expressions()

    def code(node: Expr) -> Any:
        if isinstance(node, Ref):
            n = node.name
            if n.startswith(qp) and n in exprs:
                return ("q", n[len(qp):])
            if n.startswith(ip):
                return ("c", n[len(ip):])
            return ("r", n)
        if isinstance(node, Const):
            return ("k", repr(node.value))
        if isinstance(node, BinOp):
            return ("b", node.op, code(node.left), code(node.right))
        if isinstance(node, Func):
            return ("f", node.name, *(code(a) for a in node.args))
        return (type(node).__name__, node.params(), *(code(c) for c in node.children()))

    return tuple((q.name[len(qp):], q.unit, q.group, q.workload, q.year, code(q.expr))
                 for q in model.of_candidate(cid))


def evaluate(twins: Twins, sub: Model, values: Mapping[str, Any], arrays: Mapping[str, Any],
             env: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The quantities of `sub` (the template's formulas) for every member at once.

    `arrays`: the template's inputs that vary (cases, draws), each an array whose leading axis
    is the members (or of length 1: the same for all); every other input is the member's value
    in `values` (by its own name), and every quantity that reads no varying input is the
    member's value in `env` when given (the engine's own values). Each operation runs with the
    backend the member's own formulas would use in `Model.evaluate` on the same values: a
    node that reads no varying input is computed member by member with the float backend, the
    others once, as arrays, with numpy (whose results do not depend on an array's shape). So
    every element equals what evaluating each member's own formulas gives.

    Returns template name -> value: an array (leading axis: members) or, for a quantity that
    reads nothing varying, a list of the members' values."""
    import numpy as np

    m = len(twins.members)
    dyn: dict[str, Any] = dict(arrays)
    static: dict[str, Any] = {}
    columns: dict[int, Any] = {}

    def column(v: Any) -> Any:  # a list of member values as an (M, 1) array operand
        c = columns.get(id(v))
        if c is None:
            c = columns[id(v)] = (v, np.array(v, dtype=float).reshape(m, 1))
        return c[1]

    def fixed(name: str) -> Any:
        v = static.get(name, static)
        if v is static:
            src = values if env is None or name in values else env
            v = ([src[n] for n in twins.names(name)] if twins.own(name) else src[name])
            static[name] = v
        return v

    def ev(node: Expr) -> tuple[bool, Any]:
        """(varies, value): an array when it varies, else a value or a list per member."""
        if isinstance(node, Ref):
            if node.name in dyn:
                return True, dyn[node.name]
            return False, fixed(node.name)
        if isinstance(node, Const):
            return False, node.value
        got = [ev(c) for c in node.children()]
        if any(v for v, _ in got):
            return True, node.apply([column(x) if not v and type(x) is list else x
                                     for v, x in got])
        if any(type(x) is list for _, x in got):
            return False, [node.apply([x[i] if type(x) is list else x for _, x in got])
                           for i in range(m)]
        return False, node.apply([x for _, x in got])

    out: dict[str, Any] = {}
    for q in sub:
        if env is not None and not _reads_any(sub, q.name, dyn):
            out[q.name] = fixed(q.name)
            continue
        varies, v = ev(q.expr)
        if varies:
            dyn[q.name] = v
        else:
            static[q.name] = v
        out[q.name] = v
    ev = None  # type: ignore[assignment]  # it refers to itself: free it without the collector
    return out


def _reads_any(sub: Model, name: str, dyn: Mapping[str, Any]) -> bool:
    return any(r in dyn for r in sub.reads(name))


# Operations whose numpy result is the float backend's, bit for bit (IEEE arithmetic,
# comparisons, choices, rounding to whole numbers); a power other than x^2, x^0.5 and x^-1,
# PMT and NPV (pow, expm1, log1p) are computed member by member with the float backend.
_EXACT_BINARY = frozenset({"+", "-", "*", "/", "<=", "<", ">=", ">"})
_EXACT_FUNCTIONS = frozenset({"MIN", "MAX", "IF", "SUM", "AND", "OR", "ROUNDUP", "ROUNDDOWN"})
_EXACT_POWERS = (2.0, 0.5, -1.0)


def values_of_members(twins: Twins, model: Model, values: Mapping[str, Any]
                      ) -> dict[str, list[Any]] | None:
    """Every quantity of every member, in the order of the member's `model.of_candidate`, as
    `Model.evaluate(values)` gives it (bit for bit): the template's formulas once over arrays
    of the members' inputs, each operation with a backend that gives the float backend's
    result. None when the template's formulas read another candidate's quantities (they are
    then evaluated in model order, one by one)."""
    import numpy as np

    t, m = twins.template, len(twins.members)
    exprs = model.expressions()
    quantities = model.of_candidate(t)
    own_prefix = f"{t}."
    for q in quantities:
        for r in model.reads(q.name):
            if r in exprs and not r.startswith(own_prefix):
                return None
    env: dict[str, Any] = {}

    def ref(name: str) -> Any:
        v = env.get(name, env)
        if v is env:
            if twins.own(name):
                v = np.array([values[n] for n in twins.names(name)], dtype=float)
            else:
                v = values[name]
            env[name] = v
        return v

    def ev(node: Expr) -> Any:
        if isinstance(node, Ref):
            return ref(node.name)
        if isinstance(node, Const):
            return node.value
        vals = [ev(c) for c in node.children()]
        if not any(type(v) is np.ndarray for v in vals):
            return node.apply(vals)
        if ((isinstance(node, BinOp) and (node.op in _EXACT_BINARY or (
                node.op == "^" and type(vals[1]) is not np.ndarray
                and vals[1] in _EXACT_POWERS)))
                or (isinstance(node, Func) and node.name in _EXACT_FUNCTIONS)
                or type(node).__name__ == "Neg"):
            return np.asarray(node.apply(vals), dtype=float)
        return np.array([node.apply([float(v[i]) if type(v) is np.ndarray else v
                                     for v in vals]) for i in range(m)], dtype=float)

    table = np.empty((len(quantities), m))
    other: list[tuple[int, Any]] = []  # values that are not floats (kept as they are)
    with np.errstate(all="ignore"):
        for k, q in enumerate(quantities):
            v = env[q.name] = ev(q.expr)
            if type(v) is not np.ndarray and type(v) is not float:
                other.append((k, v))
            table[k] = v
    ev = None  # type: ignore[assignment]  # it refers to itself: free it without the collector
    rows = table.T.tolist()
    for k, v in other:
        for row in rows:
            row[k] = v
    return dict(zip(twins.members, rows))
