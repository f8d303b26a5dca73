"""The result object: everything an exporter needs, and nothing it must compute."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .inputs import Input
from .model import COMPLETE_FRACTION, Model
from .resolved import CandidateInfo, Resolved, Structure

if TYPE_CHECKING:
    from .scenario import Scenario


@dataclass
class Provenance:
    tool_version: str
    catalog_digest: str
    scenario_digest: str
    scenario_file: str
    catalog_files: tuple[str, ...] = ()  # the quote files given with --catalog, in order




@dataclass
class CandidateResult:
    id: str
    info: CandidateInfo
    feasible: bool
    reasons: list[str]  # why it is infeasible (empty when feasible)
    notes: list[str]
    inputs: dict[str, float]  # its own inputs (cards, card_price, ...) by key
    values: dict[str, float]  # cluster and horizon quantities by key
    jobs: dict[str, dict[str, float]]  # workload id -> per-run quantities by key
    yearly: list[dict[str, float]]  # year 0..H -> component -> amount
    primary_workload: str

    @property
    def priced(self) -> bool:
        """Whether the model computed numbers for it (false when structurally impossible)."""
        return bool(self.values)

    @property
    def quantified(self) -> bool:
        """Whether its times and costs mean something: priced and feasible. Past the model's
        valid range (no progress for interruptions, out of memory) a candidate is infeasible
        and every output shows its reason instead of numbers (null, empty, "-")."""
        return self.priced and self.feasible

    @property
    def completes_all_runs(self) -> bool:
        """Delivers the whole plan over the horizon (the ranking's first tier: every workload
        carried, none short; an option carrying part of the plan delivers all of its own part
        and is still not the whole)."""
        return (self.priced and self.values["plan_delivered_fraction"] >= COMPLETE_FRACTION
                and all(self.info.carries(wid) for wid in self.jobs))

    @property
    def carries(self) -> list[str]:
        """The workloads it carries (every one of the plan unless assigned)."""
        return list(self.info.workloads) or list(self.jobs)

    @property
    def job(self) -> dict[str, float]:
        return self.jobs.get(self.primary_workload, {})


@dataclass
class PortfolioResult:
    """Options costed together (tco/model/portfolio.py): its quantities by key."""

    id: str
    name: str
    options: list[str]
    values: dict[str, float]

    @property
    def feasible(self) -> bool:
        return bool(self.values["feasible"])

    @property
    def tier(self) -> int:
        return int(self.values["tier"])


@dataclass
class Result:
    scenario_data: dict[str, Any]  # the validated scenario as JSON-ready data
    structure: Structure
    inputs: dict[str, Input]
    candidates: list[CandidateResult]  # ranked: best first, infeasible last
    provenance: Provenance
    model: Model
    components: tuple[str, ...]
    job_components: tuple[str, ...]
    analyses: dict[str, object] = field(default_factory=dict)  # filled by tco.analysis
    portfolios: list[PortfolioResult] = field(default_factory=list)  # ranked as candidates
    validated: Scenario | None = field(default=None, repr=False, compare=False)
    resolved: Resolved | None = field(default=None, repr=False, compare=False)
    # what it was evaluated from (a what-if edits it rather than resolve the scenario again)
    env: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    # per-token API options (tco/model/api.py), ranked as candidates; kept apart from the
    # candidates (no cards, no cluster), each shaped as one so that portfolios take it
    api_options: list[CandidateResult] = field(default_factory=list)
    # what makes the planner's plans (tco.engine.plans_of), run the first time they are asked
    # for: many uses of a Result (a what-if, a sensitivity case) never read them
    planner: Callable[..., list[Any]] | None = field(default=None, repr=False,
                                                           compare=False)
    # the planner's optimal plan (tco.plan.solve.Solution) already solved for this very
    # result (kept with its baseline, tco.snapshot), or one of a problem of the same shape
    # that its search starts from (the baseline's, for a what-if's changed side)
    plan_solved: Any = field(default=None, repr=False, compare=False)
    plan_start: Any = field(default=None, repr=False, compare=False)
    _plans: list[Any] | None = field(default=None, init=False, repr=False, compare=False)
    _cheapest: list[Any] | None = field(default=None, init=False, repr=False, compare=False)
    # every input and quantity as the engine evaluated it: the analyses start from these
    # numbers instead of evaluating the model again
    # where each option is in (*candidates, *api_options), by id: `candidate` is asked for
    # every option of a scenario of a thousand (checked at each look-up, rebuilt when stale)
    _at: dict[str, int] = field(default_factory=dict, init=False, repr=False, compare=False)
    _frontiers: Any = field(default=None, init=False, repr=False, compare=False)

    @property
    def frontiers(self) -> Any:
        """Each serving workload's throughput-interactivity frontier on each option that
        serves it (tco.frontier: workload -> option -> Frontier), computed once when first
        asked for: the same model's formulas over an array of objectives."""
        if self._frontiers is None:
            from .frontier import frontiers

            self._frontiers = frontiers(self)
        return self._frontiers

    @property
    def scenario(self) -> Scenario:
        """The scenario as a validated object (built from `scenario_data` when a quick command
        made this result without one)."""
        if self.validated is None:
            from .scenario import Scenario

            self.validated = Scenario.model_validate(self.scenario_data)
        return self.validated

    @property
    def plans(self) -> list[Any]:
        """The planner's plans (tco.plan.PlanResult): the cheapest first, then one per typed
        option and portfolio; none when the scenario is not planned."""
        if self._plans is None:
            self._plans = self.planner(self) if self.planner is not None else []
        return self._plans

    @property
    def cheapest_plan(self) -> Any:
        """The planner's cheapest plan alone (None when the scenario is not planned): solved
        without the plans held to one option unless `plans` has them already (a what-if
        compares the cheapest plans, not the comparisons beside them)."""
        if self._plans is not None:
            return self._plans[0] if self._plans else None
        if self._cheapest is None:
            self._cheapest = (self.planner(self, restricted=False) if self.planner is not None
                              else [])
        return self._cheapest[0] if self._cheapest else None

    @property
    def currency(self) -> str:
        return self.structure.currency

    def candidate(self, cid: str) -> CandidateResult:
        """A candidate, or a per-token API option (a portfolio's member), by id."""
        k = self._at.get(cid, -1)
        n = len(self.candidates)
        c = (self.candidates[k] if 0 <= k < n else
             self.api_options[k - n] if n <= k < n + len(self.api_options) else None)
        if c is None or c.id != cid:
            self._at.clear()
            for i, o in enumerate((*self.candidates, *self.api_options)):
                self._at.setdefault(o.id, i)
            return next(c for c in (*self.candidates, *self.api_options) if c.id == cid)
        return c
