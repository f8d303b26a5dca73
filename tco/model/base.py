"""The model's building blocks: `Quantity` (one named formula), `Model` (the ordered list of a
scenario's quantities, with look-ups) and `Builder` (adds one candidate's quantities).

The model holds no numbers; `Model.evaluate(values)` computes every quantity from a mapping of
input paths to floats or numpy arrays (all broadcasting together), and the workbook exporter
writes the same formulas into cells.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..expr import Expr, Ref, Value
from ..inputs import site_path
from ..resolved import Structure


@dataclass(slots=True)
class Quantity:
    """One named formula of the model. Never changed once made (not `frozen`, whose
    constructor is five times slower: a model of a thousand candidates has 300,000)."""

    name: str  # "<candidate>.<key>", "<candidate>.<workload>.<key>" or "<candidate>.y<t>.<component>"
    expr: Expr
    unit: str
    label: str
    candidate: str
    group: str  # cluster | job | year | horizon
    workload: str | None = None
    year: int | None = None


@dataclass
class Model:
    structure: Structure
    quantities: list[Quantity] = field(default_factory=list)
    # Look-ups built from `quantities` when first asked for, again after an `add`: a scenario
    # of many candidates must not scan every candidate's formulas for each one of them.
    _index: dict[str, Any] = field(default_factory=dict, init=False, repr=False,
                                   compare=False)

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_index": {}}  # a kept baseline (tco/snapshot.py) stays small

    def add(self, q: Quantity) -> Ref:
        self.quantities.append(q)
        self._index.clear()
        return Ref(q.name)

    def extend(self, quantities: list[Quantity]) -> None:
        """Add quantities made elsewhere (tco/model/twincopy.py), in order."""
        self.quantities.extend(quantities)
        self._index.clear()

    def __iter__(self) -> Iterator[Quantity]:
        return iter(self.quantities)

    def _cached(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._index:
            self._index[key] = build()
        return self._index[key]

    def expressions(self) -> Mapping[str, Expr]:
        """Quantity name -> formula."""
        return self._cached("exprs", lambda: _Formulas(self.quantities, self._positions()))  # type: ignore[no-any-return]

    def _positions(self) -> dict[str, int]:
        """Quantity name -> its place in the model (the one dictionary of every name)."""
        return self._cached(  # type: ignore[no-any-return]
            "position", lambda: {q.name: i for i, q in enumerate(self.quantities)})

    def of_candidate(self, cid: str) -> list[Quantity]:
        """The quantities of one candidate, in model order."""
        def build() -> dict[str, list[Quantity]]:
            out: dict[str, list[Quantity]] = {}
            cid, own = None, []
            for q in self.quantities:  # a candidate's quantities mostly follow each other
                if q.candidate != cid:
                    cid = q.candidate
                    own = out.setdefault(cid, [])
                own.append(q)
            return out
        return self._cached("by_candidate", build).get(cid, [])  # type: ignore[no-any-return]

    def reads(self, name: str) -> list[str]:
        """The names (inputs and quantities) quantity `name`'s formula reads, in order."""
        cache: dict[str, list[str]] = self._index.setdefault("reads", {})
        out = cache.get(name)
        if out is None:
            out = cache[name] = [r.name for r in self.expressions()[name].refs()]
        return out

    def inputs_used(self) -> list[str]:
        """Input paths the formulas read, in first-use order."""
        return list(self._cached("inputs_used", lambda: self._inputs_read(self.quantities)))

    def _inputs_read(self, quantities: Iterable[Quantity]) -> list[str]:
        exprs = self.expressions()
        seen: dict[str, None] = {}
        for q in quantities:
            for name in self.reads(q.name):
                if name not in exprs:
                    seen.setdefault(name, None)
        return list(seen)

    def inputs_feeding(self, names: Iterable[str]) -> set[str]:
        """The input paths that quantities `names` depend on, directly or through others."""
        exprs = self.expressions()
        todo, seen, inputs = list(names), set(), set()
        while todo:
            name = todo.pop()
            if name in seen:
                continue
            seen.add(name)
            if name not in exprs:
                inputs.add(name)
                continue
            todo.extend(self.reads(name))
        return inputs

    def feeding(self, names: Iterable[str]) -> Model:
        """A model of only the quantities `names` depend on (themselves included), in this
        model's order: evaluating it gives those quantities exactly as `evaluate` does."""
        exprs = self.expressions()
        todo, seen = list(names), set()
        while todo:
            name = todo.pop()
            if name in seen or name not in exprs:
                continue
            seen.add(name)
            todo.extend(self.reads(name))
        position = self._positions()
        sub = Model(self.structure, [self.quantities[i] for i in sorted(position[n]
                                                                        for n in seen)])
        sub._index["reads"] = self._index.setdefault("reads", {})  # the same formulas
        return sub

    def evaluate(self, values: Mapping[str, Value], candidate: str | None = None
                 ) -> dict[str, Value]:
        """Every quantity (or one candidate's), from input values (floats or broadcasting arrays)."""
        env: dict[str, Value] = dict(values)
        for q in self.quantities if candidate is None else self.of_candidate(candidate):
            env[q.name] = q.expr.evaluate(env)
        return env


class _Formulas(Mapping[str, Expr]):
    """Quantity name -> formula, looked up through the model's positions: a model of a
    thousand candidates has 317,000 names, and one dictionary of them is enough."""

    def __init__(self, quantities: list[Quantity], position: dict[str, int]) -> None:
        self._quantities, self._position = quantities, position

    def __getitem__(self, name: str) -> Expr:
        return self._quantities[self._position[name]].expr

    def __contains__(self, name: object) -> bool:
        return name in self._position

    def __iter__(self) -> Iterator[str]:
        return iter(self._position)

    def __len__(self) -> int:
        return len(self._position)


@dataclass(frozen=True)
class Site:
    """The facility inputs an option reads: its site's (methodology §3, "Sites")."""

    electricity_price: Ref  # per kWh
    colocation_price: Ref  # per kW of IT capacity per month
    carbon: Ref  # kg CO2e per kWh
    pue: Ref  # the site's when it gives one, else the option's own (its cooling's)
    power_budget_kw: Ref | None  # facility power the site can supply; None: no budget


def site_inputs(site: tuple[str, ...], inputs_of: str) -> Site:
    """The facility inputs of site `site` (id, what it gives; as Structure.sites lists it)
    for an option reading the inputs of `inputs_of`."""
    sid, given = site[0], site[1:]
    return Site(Ref(site_path(sid, "electricity_price_per_kwh")),
                Ref(site_path(sid, "colocation_price_per_kw_month")),
                Ref(site_path(sid, "carbon_kg_per_kwh")),
                Ref(site_path(sid, "pue")) if "pue" in given
                else Ref(f"candidates.{inputs_of}.pue"),
                Ref(site_path(sid, "power_budget_kw")) if "power_budget_kw" in given
                else None)


class Builder:
    """Adds the quantities of one candidate; `q()` names a formula and returns its reference."""

    def __init__(self, model: Model, cid: str, inputs_of: str | None = None,
                 site: tuple[str, ...] = ("",)) -> None:
        self.model = model
        self.cid = cid
        self.inputs_of = inputs_of or cid  # a generated option reads its source's inputs
        self._site = site  # (id, what it gives), as Structure.sites lists it

    def c(self, key: str) -> Ref:
        """The candidate's own input `candidates.<id>.<key>`."""
        return Ref(f"candidates.{self.inputs_of}.{key}")

    def site(self) -> Site:
        """The facility inputs of the option's site: the one way the model reaches them."""
        return site_inputs(self._site, self.inputs_of)

    def q(self, key: str, expr: Expr, unit: str, label: str, group: str,
          workload: str | None = None, year: int | None = None) -> Ref:
        parts = [self.cid] + ([workload] if workload else []) + (
            [f"y{year}"] if year is not None else []) + [key]
        return self.model.add(Quantity(".".join(parts), expr, unit, label, self.cid, group,
                                       workload, year))

    def jq(self, workload: str, key: str, expr: Expr, unit: str, label: str) -> Ref:
        """A per-run quantity of one workload."""
        return self.q(key, expr, unit, label, "job", workload=workload)


def a(key: str) -> Ref:
    """A scenario-wide assumption `assumptions.<key>`."""
    return Ref(f"assumptions.{key}")


def fin(key: str) -> Ref:
    """A finance input `finance.<key>`."""
    return Ref(f"finance.{key}")


def w(workload: str, key: str) -> Ref:
    """A workload's input `workloads.<id>.<key>`."""
    return Ref(f"workloads.{workload}.{key}")
