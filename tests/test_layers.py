"""The import graph of tco/ follows its layers (docs/design.md, "Layers"): no module imports a
module of a higher layer, and no modules import each other round in a circle. Every import
counts, at the top of a module, inside a function (a lazy import is still a dependency) or
for type checking only.

The layers are written down here, once, bottom first; a module belongs to the layer of the
longest name that is it or its package (the package `tco` itself names only its face,
tco/__init__.py). A new module must be placed (the first test says where it is
missing). Known exceptions, each with the issue that removes it, are expected failures: when
one is fixed, its xfail passes, and strict xfail turns that into a failure that says to
delete it from the list.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "tco"

LAYERS: list[tuple[str, tuple[str, ...]]] = [
    # what needs nothing of the project: errors, unit constants, expression trees, utilities
    # (numtext: the one pattern of numbers written as text; text: the characters refused)
    ("foundation", ("tco.errors", "tco.version", "tco.expr", "tco.model.units", "tco.gcpause",
                    "tco.resources", "tco.dates", "tco.fsio", "tco.workload_rules",
                    "tco.numtext", "tco.text", "tco.modes", "tco.forked")),
    # what an input is, and the resolved inputs as plain data (no pydantic)
    ("inputs", ("tco.inputs", "tco.resolved")),
    # files -> validated data: YAML, the catalog, scenarios, their schemas, the pydantic
    # number fields they share, and the starter scenarios `tco init` writes with their schema
    ("loading", ("tco.yamlio", "tco.catalog", "tco.scenario", "tco.scenario_schema",
                 "tco.quote_schema", "tco.schema_shape", "tco.numfields", "tco.starters", "tco.benchmarks")),
    # validated data -> Resolved
    # (profiles: a buyer profile's figures, taken where the scenario gives none)
    ("resolve", ("tco.resolve", "tco.profiles")),
    # the formulas, one module per chapter, and twins of them
    ("model", ("tco.model", "tco.twins")),
    # discrete choices made by evaluating the model: layouts and cluster sizes
    # (measured: a benchmark's efficiency, by inverting the model at the measured point;
    # frontier: the serving search over an array of objectives)
    # (plan: the capacity planner, a solver over the model's unit costs)
    ("choices", ("tco.layout", "tco.sizing", "tco.measured", "tco.frontier", "tco.plan")),
    # Resolved + Model -> Result
    ("engine", ("tco.engine", "tco.result")),
    # the decision on a Result (tco/decide/: its rules and the recommendation as facts):
    # below the analyses, which ask it again (a what-if says whether the recommendation
    # changes; the planner's Monte Carlo of issue 27 re-solves plans per draw)
    ("decide", ("tco.decide",)),
    # what-if, sensitivity, break-even, Monte Carlo, and the what-if's kept baseline
    ("analysis", ("tco.analysis", "tco.snapshot")),
    # Result -> table, JSON, CSV, workbook, HTML, PDF
    ("exporters", ("tco.exporters",)),
    # the face: the Python API and the command line
    ("face", ("tco.api", "tco.cli", "tco.__main__", "tco")),
]

# Known exceptions, each with the issue that removes it (issue 26's are gone: the decision
# layer returns facts and words nothing; the report's sections read a Page protocol).
KNOWN_UPWARD: dict[tuple[str, str], int] = {}
KNOWN_CYCLES: dict[tuple[str, ...], int] = {}


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _imported(module: str, node: ast.ImportFrom) -> list[str]:
    """The project's modules an `from ... import ...` statement of `module` reads: a
    submodule named in it, else the package or module it imports from."""
    if node.level:
        here = module.split(".") if MODULES[module].name == "__init__.py" else \
            module.split(".")[:-1]
        base = here[:len(here) - node.level + 1]
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    out = []
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        out.append(sub if sub in MODULES else target)
    return [m for m in out if m in MODULES]


def import_graph() -> dict[str, set[str]]:
    """Each module of tco/ -> the modules of tco/ it imports, anywhere in it."""
    graph: dict[str, set[str]] = {}
    for module, path in MODULES.items():
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                deps.update(_imported(module, node))
            elif isinstance(node, ast.Import):
                deps.update(a.name for a in node.names if a.name in MODULES)
        graph[module] = deps - {module}
    return graph


GRAPH = import_graph()


def layer_of(module: str) -> int | None:
    best = None
    for rank, (_name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            inside = prefix != "tco" and module.startswith(prefix + ".")
            if (module == prefix or inside) and (best is None or len(prefix) > best[1]):
                best = (rank, len(prefix))
    return None if best is None else best[0]


def upward() -> set[tuple[str, str]]:
    return {(a, b) for a, deps in GRAPH.items() for b in deps
            if layer_of(b) > layer_of(a)}  # type: ignore[operator]


def cycles() -> set[tuple[str, ...]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[tuple[str, ...]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.add(tuple(sorted(comp)))

    for v in sorted(GRAPH):
        if v not in index:
            visit(v)
    return found


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_the_graph_reader_sees_lazy_relative_and_type_only_imports():
    """Checks of the reader itself on imports known to be there."""
    assert "tco.model.base" in GRAPH["tco.model.build"]  # from .base import Builder, Model
    assert "tco.resolve.resolver" in GRAPH["tco.resolve"]  # inside a function
    assert "tco.catalog" in GRAPH["tco.resolve.rent_tiers"]  # under TYPE_CHECKING
    assert "tco.resolve.rent_tiers" in GRAPH["tco.engine"]  # from .resolve.rent_tiers
    assert "tco.expr.formula" in GRAPH["tco.expr"]  # from . import formula
    assert layer_of("tco.model.units") == 0 and layer_of("tco.model.build") == 4
    assert layer_of("tco.a_new_module") is None  # must be placed
    assert layer_of("tco.exporters.data") > layer_of("tco.engine") > layer_of("tco.resolve")


def test_no_module_imports_a_higher_layer():
    wrong = sorted(upward() - set(KNOWN_UPWARD))
    assert wrong == [], ("imports from a lower layer into a higher one (docs/design.md, "
                         f"'Layers'): {wrong}")


def test_no_modules_import_each_other_round():
    found = sorted(cycles() - set(KNOWN_CYCLES))
    assert found == [], f"import cycles: {found}"


@pytest.mark.parametrize("edge", sorted(KNOWN_UPWARD))
@pytest.mark.xfail(strict=True, reason="known upward import, issue 26")
def test_known_upward_import_is_gone(edge):
    assert edge not in upward()


@pytest.mark.parametrize("cycle", sorted(KNOWN_CYCLES))
@pytest.mark.xfail(strict=True, reason="known import cycle, issue 26")
def test_known_cycle_is_gone(cycle):
    assert cycle not in cycles()
