"""Twins: candidates whose formulas are the same but for their ids, evaluated as one.

A scenario of a thousand candidates has a few dozen kinds of them: the same formulas (the
same tree shapes, constants and inputs shared by the scenario) read different candidates'
inputs (`candidates.<id>.card_price`, ...). `tco.model.build.Shape` is everything about a
candidate that shapes its formulas, so candidates of one Shape in one model are twins by
construction; `formula_signature` checks that from the formulas themselves (tests).

A group of twins is evaluated once, on its first member's formulas (the template), with each
candidate-specific input an array along a leading axis of members (`stacked`): the trees
broadcast over arrays as they do over Monte Carlo draws, and each element is computed from the
same input values by the same operation as the member's own formulas would be. Layout search
(memo), sensitivity and Monte Carlo use it; `GROUPED` (False) forces the one-by-one path,
which tests compare against.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .expr import BinOp, Const, Expr, Func, Ref
from .model import Model
from .model.build import Shape, shape

GROUPED = True  # False: every analysis evaluates candidate by candidate (tests compare both)


@dataclass(frozen=True)
class Twins:
    """Candidates of one Shape, in model order; `members[0]` is the template."""

    shape: Shape
    members: tuple[str, ...]
    inputs_of: tuple[str, ...]  # whose inputs each member reads (itself or its source)

    @property
    def template(self) -> str:
        return self.members[0]

    def names(self, name: str) -> list[str]:
        """The template's quantity or input `name` as each member reads it (the same name for
        an input every candidate shares)."""
        t, own = self.members[0], self.inputs_of[0]
        if name.startswith(f"candidates.{own}."):
            rest = name[len(own) + 12:]
            return [f"candidates.{o}.{rest}" for o in self.inputs_of]
        if name.startswith(f"{t}."):
            rest = name[len(t) + 1:]
            return [f"{m}.{rest}" for m in self.members]
        return [name] * len(self.members)

    def own(self, name: str) -> bool:
        """Whether the template's `name` differs from member to member."""
        return name.startswith((f"candidates.{self.inputs_of[0]}.", f"{self.members[0]}."))

    def rename(self, name: str) -> str:
        """The template's `name` as the last member reads it (see `pair`)."""
        t, own = self.members[0], self.inputs_of[0]
        if name.startswith(f"candidates.{own}."):
            return f"candidates.{self.inputs_of[-1]}.{name[len(own) + 12:]}"
        if name.startswith(f"{t}."):
            return f"{self.members[-1]}.{name[len(t) + 1:]}"
        return name

    def subset(self, members: Sequence[str]) -> Twins:
        at = {m: i for i, m in enumerate(self.members)}
        return Twins(self.shape, tuple(members), tuple(self.inputs_of[at[m]] for m in members))


def shapes(model: Model) -> dict[str, Shape]:
    """Each candidate's Shape (kept with the model)."""
    st = model.structure

    def build() -> dict[str, Shape]:
        return {cid: shape(st, cid) for cid in st.candidates}
    return model._cached("twins.shapes", build)  # type: ignore[no-any-return]


def inputs_of(model: Model) -> dict[str, str]:
    """Whose inputs each candidate reads (itself, or the option it was made from)."""
    st = model.structure
    return model._cached("twins.inputs_of",  # type: ignore[no-any-return]
                         lambda: dict(zip(st.candidates, st.inputs_of)))


def pair(model: Model, first: str, cid: str) -> Twins:
    """Twins `first` (the template) and `cid`, which must have the same Shape."""
    own = inputs_of(model)
    return Twins(shapes(model)[cid], (first, cid), (own[first], own[cid]))


def groups(model: Model, cids: Iterable[str]) -> list[Twins]:
    """`cids` (candidates of the model; anything else is left out) as groups of twins, each in
    the order of `cids`, groups in the order of their first member."""
    by_shape, own = shapes(model), inputs_of(model)
    out: dict[Shape, list[str]] = {}
    for cid in cids:
        if cid in by_shape:
            out.setdefault(by_shape[cid], []).append(cid)
    return [Twins(sh, tuple(ms), tuple(own[m] for m in ms)) for sh, ms in out.items()]


def stacked(twins: Twins, names: Iterable[str], values: Mapping[str, Any],
            column: bool = True) -> dict[str, Any]:
    """The template's inputs `names` with the members' values: shared inputs as they are, each
    candidate-specific one as an array of the members' values (a column, shape (M, 1), when
    `column`, to broadcast against arrays of cases or draws)."""
    import numpy as np

    env: dict[str, Any] = {}
    for name in names:
        if twins.own(name):
            a = np.array([values[n] for n in twins.names(name)], dtype=float)
            env[name] = a[:, None] if column else a
        else:
            env[name] = values[name]
    return env


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
