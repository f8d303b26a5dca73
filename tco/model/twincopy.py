"""A twin's quantities copied from its template's, the names changed (issue 10).

Candidates of one `Shape` (tco/model/build.py) are twins: `build.candidate` gives them the
same formulas but for their ids, since it reads a candidate's part of the Structure only
through its Shape. So `build_model` builds the first candidate of each Shape chapter by
chapter (the template) and gives each later twin a copy of the template's quantities in which
every name of the template's own (`<template>.<key>`, `candidates.<its inputs' id>.<key>`)
becomes the twin's. The chapters stay the one definition of every formula; the copy only
repeats what they made, without running them again (a thousand candidates: 1.6 million
nodes, each made through the operators, `lift` and `Builder.q`).

A copy makes a new node only where the template's node reads something of the template's own;
every other subtree (constants, the scenario's shared inputs and what is made of them only) is
the template's node itself, shared by every twin: nodes are never changed once made.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from ..expr import BinOp, Expr, Func, Ref
from .base import Model, Quantity


class Recipe:
    """The template's quantities as the steps that make a twin's.

    Every distinct node of the template's trees has a place in a list (`made`, one per copy):
    a node that reads nothing of the template's own is put there as it is (`base`); a Ref to
    one of its own names becomes the twin's Ref (`renamed`, one Ref per name); any other node
    is made again from its parameters and the places of its children (`steps`, children
    first)."""

    def __init__(self, quantities: list[Quantity], cid: str, inputs_of: str) -> None:
        own_quantities = {q.name for q in quantities}
        self.prefixes = (f"{cid}.", f"candidates.{inputs_of}.")
        self.base: list[Expr | None] = []
        self.renamed: list[tuple[int, int, str]] = []  # (place, prefix 0/1, rest of the name)
        self.steps: list[tuple[int, Any, Any, Any, Any]] = []
        place: dict[int, int] = {}  # id(node) -> its place
        name_place: dict[str, int] = {}

        def own(name: str) -> int:  # 0: a quantity, 1: an input of the template's own; -1
            if name in own_quantities:
                return 0
            return 1 if name.startswith(self.prefixes[1]) else -1

        def visit(node: Expr) -> tuple[int, bool]:  # (its place, whether a copy remakes it)
            at = place.get(id(node))
            if at is not None:
                return at, self.base[at] is None
            if type(node) is Ref and (which := own(node.name)) >= 0:
                at = name_place.get(node.name)
                if at is None:
                    at = name_place[node.name] = self._place(None)
                    self.renamed.append((at, which, node.name[len(self.prefixes[which]):]))
                place[id(node)] = at
                return at, True
            kids = [visit(c) for c in node.children()]
            if not any(remade for _at, remade in kids):
                at = place[id(node)] = self._place(node)
                return at, False
            at = place[id(node)] = self._place(None)
            self.steps.append(self._step(node, at, [k for k, _remade in kids]))
            return at, True

        self.quantities = [(visit(q.expr)[0], q.name[len(cid):], q.unit, q.label, q.group,
                            q.workload, q.year) for q in quantities]

    def _place(self, node: Expr | None) -> int:
        self.base.append(node)
        return len(self.base) - 1

    @staticmethod
    def _step(node: Expr, at: int, kids: list[int]) -> tuple[int, Any, Any, Any, Any]:
        """How to make `node` again with its children at places `kids`: a BinOp and a Func
        directly (nearly every node), any other type from its fields: a parameter as it is,
        a child (or a tuple of them) by its place."""
        if type(node) is BinOp:
            return at, BinOp, node.op, kids[0], kids[1]
        if type(node) is Func:
            return at, Func, node.name, tuple(kids), None
        params, children, k = [], [], 0
        for f in fields(node):  # type: ignore[arg-type]
            value = getattr(node, f.name)
            if isinstance(value, Expr):
                children.append((f.name, kids[k]))
                k += 1
            elif type(value) is tuple and any(isinstance(v, Expr) for v in value):
                children.append((f.name, tuple(kids[k:k + len(value)])))
                k += len(value)
            else:
                params.append((f.name, value))
        return at, type(node), tuple(params), tuple(children), None

    def copy(self, model: Model, cid: str, inputs_of: str) -> None:
        """Add twin `cid`'s quantities (reading the inputs of `inputs_of`) to `model`."""
        made = list(self.base)
        prefixes = (f"{cid}.", f"candidates.{inputs_of}.")
        for at, which, rest in self.renamed:
            made[at] = Ref(prefixes[which] + rest)
        for at, kind, p, a, b in self.steps:
            if kind is BinOp:
                made[at] = BinOp(p, made[a], made[b])  # type: ignore[arg-type]
            elif kind is Func:
                made[at] = Func(p, tuple([made[i] for i in a]))  # type: ignore[misc]
            else:
                made[at] = kind(**dict(p), **{name: made[v] if type(v) is int
                                              else tuple([made[i] for i in v])
                                              for name, v in a})
        model.extend([Quantity(cid + rest, made[at], unit, label, cid, group,  # type: ignore[arg-type]
                               workload, year)
                      for at, rest, unit, label, group, workload, year in self.quantities])

