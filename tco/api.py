"""The Python API: what the CLI does, for notebooks and scripts.

    >>> import tco
    >>> run = tco.compare()                       # the built-in example scenario
    >>> run.recommended                           # the planner's cheapest plan
    'plan'
    >>> run.best_option in run.to_frame().index   # the best option as typed
    True

Every function takes a scenario `source` (a path, YAML text, a dict, or None for the built-in
example) and `catalogs` (quote files layered over the shipped catalog, as `--catalog`), and
raises the same `tco.errors.TcoError` (with the same message) that the CLI prints. Results
carry the engine's `Result` and give their tables as pandas DataFrames; pandas is imported only
when a frame is asked for (install `tco[pandas]`), so `import tco` stays quick.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import CatalogError, ScenarioError, TcoError

if TYPE_CHECKING:
    import pandas as pd

    from .analysis.breakeven import Breakeven
    from .analysis.montecarlo import MonteCarlo
    from .analysis.sensitivity import Sensitivity
    from .analysis.types import Comparison
    from .catalog import Catalog
    from .result import Result
    from .scenario import Loaded

def load(source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
         catalogs: Sequence[str | os.PathLike[str]] | str | os.PathLike[str] = ()
         ) -> tuple[Loaded, Catalog]:
    """The validated scenario and the catalog (shipped, with `catalogs` layered over it)."""
    from .catalog import load_catalog

    return load_source(source), load_catalog(catalog_paths(catalogs))


def catalog_paths(catalogs: object) -> tuple[str, ...]:
    """Quote files as `--catalog` takes them: a list of paths, or one path (a string is one
    file, not a sequence of one-letter names)."""
    if isinstance(catalogs, (str, os.PathLike)):
        catalogs = [catalogs]
    if isinstance(catalogs, (bytes, Mapping)) or not isinstance(catalogs, Iterable):
        raise CatalogError(f"catalogs: expected a list of quote files, found "
                           f"{type(catalogs).__name__}")
    out = []
    for c in catalogs:
        if not isinstance(c, (str, os.PathLike)):
            raise CatalogError(f"catalogs: expected paths of quote files, found {c!r}")
        out.append(os.fspath(c))
    return tuple(str(c) for c in out)


_SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")


def is_scenario_text(source: str) -> bool:
    """Whether a string is a scenario's YAML or JSON text rather than a file's path: text has
    a line break, or is a mapping written on one line (`{...}`, `key: value`) and names no
    file that exists. A path that does not exist (`s.yaml`) stays a path, to be reported as
    not found; so does a name too long or too odd for the file system to look up."""
    if "\n" in source or "\r" in source:
        return True
    flow = source.strip().startswith(("{", "["))
    try:
        if Path(source).exists():
            return False
    except (OSError, ValueError):  # too long for a file name, or a NUL character in it
        return flow or ":" in source
    return flow or ": " in source or (":" in source
                                      and not source.lower().endswith(_SCENARIO_SUFFIXES))


def load_source(source: str | os.PathLike[str] | Mapping[str, Any] | None) -> Loaded:
    """A scenario from a path, YAML text, a dict (as a scenario file would hold it) or None
    (the built-in example)."""
    from .scenario import load_scenario, load_scenario_text, parse_scenario
    from .yamlio import YamlDoc

    if source is None:
        return load_scenario()
    if isinstance(source, Mapping):
        return parse_scenario(YamlDoc(dict(source), {}, "<dict>"))
    if isinstance(source, os.PathLike):
        return load_scenario(Path(source))
    if isinstance(source, str):
        if is_scenario_text(source):
            return load_scenario_text(source, "<text>")
        return load_scenario(Path(source))
    raise ScenarioError(f"expected a path, YAML text or a mapping, found {type(source).__name__}",
                        file="<source>")


class Run:
    """`tco compare` as an object: the engine's `Result` and its tables."""

    def __init__(self, result: Result) -> None:
        self.result = result

    def to_dict(self) -> dict[str, Any]:
        """Exactly what `tco compare --format json` prints, as Python data."""
        from .exporters.data import compare_dict

        return compare_dict(self.result)

    @property
    def recommended(self) -> str | None:
        """The id of the recommendation, as `recommendation.option` of `tco compare` JSON:
        "plan" when the scenario is planned (tco.plan), else a candidate, a portfolio or a
        per-token API option (None when nothing may be recommended)."""
        from .decide import recommend

        rec = recommend(self.result)
        return rec.option if rec is not None else None

    @property
    def best_option(self) -> str | None:
        """The best option as typed (a candidate, a portfolio or a per-token API option), as
        `recommendation.best_option.option` when the plan is recommended: the recommendation
        among the options alone (None when none may be recommended)."""
        from .decide import recommend_option

        rec = recommend_option(self.result)
        return rec.option if rec is not None else None

    def to_frame(self) -> pd.DataFrame:
        """One row per option, indexed by id: the candidates in ranking order (`rank` 1, 2,
        ...), then the per-token API options, the portfolios and the plans (the plan, then the
        plan restricted to each option: `rank` missing, they are compared by the
        recommendation, not ranked); `kind` says which: candidate, api, portfolio or plan. The columns are the option-level fields of the JSON (`npv_tco`,
        `cost_per_job`, ...; what an API option or a portfolio lacks is missing), lists joined
        with "; "."""
        pd = _pandas()
        data = self.to_dict()
        rows = [{"kind": "candidate", **_flat(c)} for c in data["candidates"]]
        rows += [{"kind": "api", **_flat(a), "acquire": "api",
                  "feasible": self.result.candidate(a["id"]).feasible}
                 for a in data["api_options"]]
        rows += [{"kind": "portfolio", **_flat(p), "acquire": "portfolio"}
                 for p in data["portfolios"]]
        # the plan and each plan restricted to one option: the CSV's rows of kind plan
        from .exporters.plan_text import plan_csv_rows

        rows += [{"kind": "plan", **{k: ("; ".join(v) if isinstance(v, list) else v)
                                     for k, v in row.items()}}
                 for row in plan_csv_rows(self.result)]
        frame = pd.DataFrame(rows).set_index("id")
        ranked = len(data["candidates"])
        frame.insert(0, "rank", pd.array([*range(1, ranked + 1),
                                          *[None] * (len(frame) - ranked)], dtype="Int64"))
        frame.insert(1, "kind", frame.pop("kind"))
        return frame

    @property
    def plan(self) -> Any:
        """The planner's cheapest plan (tco.plan.PlanResult: `npv_tco`, `actions`, `periods`,
        `workloads`, ...; methodology §19), None when the scenario has no plan. `plan_json`
        gives it as `tco compare` JSON's `plan`."""
        plans = self.result.plans
        return plans[0] if plans else None

    def plan_frame(self) -> pd.DataFrame:
        """The cheapest plan's dated actions, one row each (JSON `plan.actions`): `start_years`,
        `end_years`, `action` (buy, lease, rent, api, sell), `option`, `card`, `quantity`,
        `unit`, `tier`, and `start_month`, `end_month` (months after the decision)."""
        from dataclasses import asdict

        pd = _pandas()
        p = self.plan
        rows = [asdict(a) for a in p.actions] if p is not None else []
        frame = pd.DataFrame(rows, columns=["start_years", "end_years", "action", "option",
                                            "card", "quantity", "unit", "tier"])
        frame["start_month"] = (frame["start_years"] * 12).round().astype("Int64")
        frame["end_month"] = (frame["end_years"] * 12).round().astype("Int64")
        return frame

    def plan_periods_frame(self) -> pd.DataFrame:
        """The cheapest plan's costs per period (JSON `plan.periods`), indexed by period:
        `start_years`, each cost component and the period's `present_value` (their sum over
        the periods, less the discounted resale, plus what is owed after the horizon, is
        `plan.npv_tco`)."""
        from .model.plan import PLAN_COMPONENTS

        pd = _pandas()
        p = self.plan
        rows = [{"period": k, "start_years": r["start_years"],
                 **{c: r[c] for c in PLAN_COMPONENTS}, "present_value": r["present_value"]}
                for k, r in enumerate(p.periods if p is not None else [])]
        return pd.DataFrame(rows).set_index("period") if rows else pd.DataFrame()

    def jobs_frame(self) -> pd.DataFrame:
        """One row per option and workload (a MultiIndex), the per-run figures of each."""
        pd = _pandas()
        rows = []
        for c in self.to_dict()["candidates"]:
            for wid, job in (c.get("jobs") or {}).items():
                flat = {k: v for k, v in job.items() if not isinstance(v, dict)}
                cost = job.get("cost") or {}
                flat.update({f"cost_{k}": v for k, v in cost.items()})
                rows.append({"id": c["id"], "workload": wid, **flat})
        return pd.DataFrame(rows).set_index(["id", "workload"])

    def yearly_frame(self) -> pd.DataFrame:
        """One row per option and year (a MultiIndex): each cash-flow component, the net flow
        and the running total (costs positive, inflows negative)."""
        pd = _pandas()
        rows = [{"id": c["id"], **row} for c in self.to_dict()["candidates"]
                for row in c.get("yearly") or []]
        return pd.DataFrame(rows).set_index(["id", "year"])

    def _repr_html_(self) -> str:
        from html import escape

        from .exporters.data import compare_table

        return f"<pre>{escape(compare_table(self.result))}</pre>"

    def __repr__(self) -> str:
        return f"<tco.Run {self.result.scenario.name!r}: {len(self.result.candidates)} options>"


def compare(source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
            catalogs: Sequence[str | os.PathLike[str]] = ()) -> Run:
    """Every option of a scenario, ranked (`tco compare`)."""
    from .engine import compute

    return Run(compute(*load(source, catalogs)))


def whatif(settings: Mapping[str, float] | Sequence[str],
           source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
           catalogs: Sequence[str | os.PathLike[str]] = ()) -> Comparison:
    """The scenario against itself with inputs changed (`tco whatif --set PATH=VALUE`):
    `settings` maps dotted input paths to values, or lists "PATH=VALUE" texts."""
    from .analysis.whatif import whatif as run_whatif

    return run_whatif(*load(source, catalogs), setting_texts(settings))


def setting_texts(settings: object) -> list[str]:
    """`whatif`'s settings as the "PATH=VALUE" texts `--set` takes: a mapping's value is a
    number (written exactly) or a VALUE text ("-15%", "x0.9"); one text is one setting."""
    if isinstance(settings, str):
        return [settings]
    if isinstance(settings, Mapping):
        texts = []
        for path, value in settings.items():
            if isinstance(value, str):
                texts.append(f"{path}={value}")
            elif isinstance(value, numbers.Real) and not isinstance(value, bool):
                try:
                    texts.append(f"{path}={float(value)!r}")
                except OverflowError:  # an int beyond any float
                    raise TcoError(f"--set {path}={str(value)[:20]}... ({len(str(value))} "
                                   "digits): VALUE is beyond the largest number (about "
                                   "1.8e308)") from None
            else:
                raise TcoError(f"--set {path}={value!r}: VALUE must be a number (0.12), a "
                               "change in percent (-15%, +10%) or a multiplier (x0.9)")
        return texts
    if not isinstance(settings, Iterable):
        raise TcoError(f"settings: expected a mapping of paths to values or PATH=VALUE texts, "
                       f"found {type(settings).__name__}")
    return [s if isinstance(s, str) else _not_a_setting(s) for s in settings]


def _not_a_setting(value: object) -> str:
    raise TcoError(f"--set {value!r}: expected PATH=VALUE, e.g. "
                   "facility.electricity_price_per_kwh=0.12")


def sensitivity(source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
                catalogs: Sequence[str | os.PathLike[str]] = (), swing: float = 0.2,
                mode: str = "swing", metric: str = "npv_tco") -> Sensitivity:
    """Each ranged input moved alone (`tco sensitivity`)."""
    from .analysis.sensitivity import sensitivity as run

    return run(*load(source, catalogs), swing=swing, mode=mode, metric=metric)


def breakeven(path: str, candidate: str, versus: str,
              source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
              catalogs: Sequence[str | os.PathLike[str]] = (),
              metric: str | None = None) -> Breakeven:
    """The value of input `path` at which `candidate` costs what `versus` costs (`metric`
    None: on the NPV the options are ranked on, after income tax where the scenario ranks
    after tax)."""
    from .analysis.breakeven import breakeven as run

    return run(*load(source, catalogs), path, candidate, versus, metric=metric)


def montecarlo(source: str | os.PathLike[str] | Mapping[str, Any] | None = None,
               catalogs: Sequence[str | os.PathLike[str]] = (), draws: int = 20000,
               seed: int = 1, metric: str = "cost_per_job") -> MonteCarlo:
    """Draws of every uncertain input, the whole model evaluated as arrays (`tco montecarlo`)."""
    from .analysis.common import check_metric, check_whole, priced_candidates
    from .analysis.montecarlo import MC_METRICS, check_draws, check_seed
    from .analysis.montecarlo import montecarlo as run

    check_whole(draws, "--draws", 1)  # the CLI's checks, before the scenario is computed
    check_seed(seed)
    check_metric(metric, MC_METRICS)
    result = compare(source, catalogs).result
    check_draws(draws, len(priced_candidates(result)))
    return run(result, draws=draws, seed=seed, metric=metric)


def _flat(option: dict[str, Any]) -> dict[str, Any]:
    """An option of the JSON as one table row: its scalar fields, lists of text joined with
    "; " (a portfolio's `options`, the `reasons`), mappings (jobs, prices, yearly) left out."""
    return {k: ("; ".join(v) if isinstance(v, list) and all(isinstance(x, str) for x in v)
                else v)
            for k, v in option.items() if not isinstance(v, dict) and k != "yearly"}


def _pandas() -> Any:
    try:
        import pandas
    except ImportError:
        from .errors import TcoError

        raise TcoError("tables as DataFrames need pandas: pip install 'tco[pandas]'") from None
    return pandas


__all__ = ["Run", "breakeven", "compare", "load", "load_source", "montecarlo", "sensitivity",
           "whatif"]
