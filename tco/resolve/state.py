"""What resolving one scenario has made so far, and the few helpers every section uses.

Resolve reads some inputs to make or check others (a workload's default batch is
`assumptions.global_batch_tokens`; a loan needs a financed share). It reads them through
`Inputs`, which records every such read: `Resolved.read_by_resolve` lists them, and a what-if
of one of them resolves the scenario again (tco.resolved.with_values) instead of changing the
value alone. A new derivation is recorded by being written, not by a list kept beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..errors import ScenarioError
from ..inputs import Input, InputSpec
from ..profiles import profile_figure
from ..resolved import scenario_source, value_problem
from .figures import Conversion, figure_input, from_usd

if TYPE_CHECKING:
    from ..catalog import Catalog, Figure
    from ..scenario import Loaded


@dataclass(frozen=True)
class SiteFacts:
    """What resolution knows of a site besides its inputs (tco.resolve.sites)."""

    id: str  # "" for the first site
    region: str
    given: tuple[str, ...]  # the SITE_INPUTS it gives ("pue", "power_budget_kw")

    def words(self) -> str:
        """How a sentence names it: "the facility", or "site 'west'"."""
        return f"site '{self.id}'" if self.id else "the facility"


class Inputs(dict[str, Input]):
    """The inputs made so far; reading one (`inputs[path]`) records that resolve used it."""

    def __init__(self) -> None:
        super().__init__()
        self.read: set[str] = set()

    def __getitem__(self, path: str) -> Input:
        self.read.add(path)
        return super().__getitem__(path)

    def put(self, inp: Input) -> None:
        self[inp.path] = inp


class Resolution:
    """One scenario being resolved against one catalog: the inputs made so far and what the
    sections leave for the model's shape (serving objectives)."""

    def __init__(self, loaded: Loaded, catalog: Catalog) -> None:
        self.loaded, self.catalog, self.sc = loaded, catalog, loaded.scenario
        self.usd = from_usd(catalog, self.sc.currency)  # catalog money into the scenario's
        self.inputs = Inputs()
        self.objectives: list[str] = []  # serving objectives given: workloads.<id>.<key>
        self.serve_assumed = False
        self.sites: dict[str, SiteFacts] = {}  # by id, the first site's "" (tco.resolve.sites)
        # precisions with a serving rate the user measured, by candidate (`benchmarks:`,
        # tco.resolve.benchmarks)
        self.measured: dict[str, tuple[str, ...]] = {}

    @property
    def serves(self) -> bool:
        """Whether a workload serves."""
        return any(w.kind == "serve" for w in self.sc.workloads)

    def allowed(self, wid: str) -> tuple[str, ...]:
        """The precisions workload `wid` may run at: its `precisions`, else its precision."""
        w = next(x for x in self.sc.workloads if x.id == wid)
        return tuple(w.precisions) if w.precisions else (w.precision,)

    def precisions(self, needed: bool = False) -> list[str]:
        """Every precision a workload may run at; `needed`: those a workload must (its only
        one: a card without it cannot run the workload)."""
        out = {p for w in self.sc.workloads for p in self.allowed(w.id)
               if not needed or len(self.allowed(w.id)) == 1}
        # FP4 training runs at FP8's sustained rate but for its GEMMs (methodology §4)
        out |= {"fp8" for w in self.sc.workloads
                if w.kind != "serve" and self.allowed(w.id) == ("fp4",)}
        return sorted(out)

    def error(self, message: str, where: list[str]) -> ScenarioError:
        return self.loaded.error(message, where)

    def given(self, where: list[str], value: float, spec: InputSpec) -> Input:
        """An input the scenario gives at `where`, checked against its plausible range."""
        problem = value_problem(value, spec, self.sc.currency, self.usd.scale)
        if problem:
            raise self.loaded.error(problem, where)
        return Input(path=".".join(where), value=float(value), spec=spec,
                     source=scenario_source(self.loaded.file), origin="scenario")

    def put(self, inp: Input) -> None:
        self.inputs.put(inp)

    def figure(self, path: str, fig: Figure, spec: InputSpec, convert: Conversion | None = None,
               why: str = "", factor: float = 1.0) -> None:
        """Put the input at `path` from a catalog figure (tco.resolve.figures.figure_input):
        money is in USD unless `convert` says it is in another currency."""
        self.put(figure_input(path, fig, spec, self.usd if convert is None else convert,
                              why, factor))

    def from_profile(self, path: str, spec: InputSpec, profile_path: str | None = None
                     ) -> bool:
        """Put the input at `path` from the scenario's buyer profile's figure for
        `profile_path` (default `path`; tco.profiles), if it has one, and say whether it did;
        the caller has checked that the scenario gives no value of its own. Its source starts
        with the profile ("profile large-neocloud: (USD x 7.1526 CNY/USD): <source>"); money
        is in USD."""
        found = profile_figure(self.loaded, self.catalog, profile_path or path)
        if found is None:
            return False
        fig, label = found
        inp = figure_input(path, fig, spec, self.usd)
        self.put(replace(inp, source=f"{label}: {inp.source.lstrip()}"))
        return True
