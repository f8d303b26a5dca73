"""What-if and diff: two results side by side, the change attributed line by line.

The NPV of TCO is split into the present value of each cash-flow component (accelerators,
electricity, ...): each component's yearly amounts discounted exactly as the model discounts the
net flows, so the components add up to the NPV on each side and their deltas add up to the
change in NPV. The per-run cost lines of the primary workload are compared the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..decide.rules import eligible
from ..engine import compute, edited, evaluate
from ..errors import TcoError
from ..expr import NPV0, Ref
from ..model import COMPONENT_LABELS, COMPONENTS, JOB_COMPONENT_LABELS, JOB_COMPONENTS
from ..result import CandidateResult, PortfolioResult, Result
from .settings import Setting, apply_values, edited_file, parse_setting, resolve_settings

if TYPE_CHECKING:
    from ..catalog import Catalog
    from ..scenario import Loaded

# Computes the scenario with input values changed, the long way: edit, validate, resolve.
Recompute = Callable[[Mapping[str, float], str], Result]



@dataclass
class Line:
    """One line of the attribution: a value before and after."""

    key: str
    label: str
    before: float | None
    after: float | None

    @property
    def delta(self) -> float | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


@dataclass
class CandidateChange:
    id: str
    name: str
    rank_before: int | None  # 1-based place in each ranking (None: absent or not priced)
    rank_after: int | None
    feasible_before: bool | None
    feasible_after: bool | None
    npv: Line
    cost_per_job: Line
    components: list[Line]  # present value of each cash-flow component
    job_lines: list[Line]  # per-run cost lines of the primary workload
    notes: list[str] = field(default_factory=list)


@dataclass
class PortfolioChange:
    """A portfolio's (options costed together, tco/model/portfolio.py) NPV before and after."""

    id: str
    name: str
    options: list[str]
    npv: Line
    delivered: Line  # share of the plan delivered over the horizon
    notes: list[str] = field(default_factory=list)


@dataclass
class InputChange:
    path: str
    label: str
    unit: str
    before: float | None
    after: float | None


@dataclass
class Comparison:
    before_label: str
    after_label: str
    currency: str
    inputs: list[InputChange]  # every input whose value differs
    candidates: list[CandidateChange]  # in the "before" ranking, new ones last
    ranking_before: list[str]  # feasible candidates that may be bought, best first
    ranking_after: list[str]
    notes: list[str]
    before: Result
    after: Result
    portfolios: list[PortfolioChange] = field(default_factory=list)  # first's order, new last

    @property
    def ranking_flips(self) -> bool:
        common = [c for c in self.ranking_before if c in self.ranking_after]
        return common != [c for c in self.ranking_after if c in self.ranking_before]


def present_values(c: CandidateResult, rate: float) -> dict[str, float]:
    """Present value of each cash-flow component over the horizon (they sum to NPV of TCO).

    Uses the model's own NPV expression, so the discounting convention is the model's."""
    out: dict[str, float] = {}
    years = range(len(c.yearly))
    for comp in COMPONENTS:
        env = {"rate": rate, **{f"y{t}": c.yearly[t][comp] for t in years}}
        out[comp] = float(NPV0(Ref("rate"), [Ref(f"y{t}") for t in years]).evaluate(env))
    return out


def ranking(result: Result) -> list[str]:
    """Candidates that could be recommended, best first (feasible and not barred)."""
    return [c.id for c in result.candidates if eligible(c)]


def compare_results(before: Result, after: Result, before_label: str, after_label: str
                    ) -> Comparison:
    if before.currency != after.currency:
        raise TcoError(f"the scenarios are in different currencies ({before.currency}, "
                       f"{after.currency}); compare scenarios in the same currency")
    rank_b, rank_a = ranking(before), ranking(after)
    # the candidates, then the per-token API options (the recommendation weighs them too)
    ids = [c.id for c in (*before.candidates, *before.api_options)]
    ids += [c.id for c in (*after.candidates, *after.api_options) if c.id not in ids]
    cands = [_candidate_change(cid, before, after, rank_b, rank_a, (before_label, after_label))
             for cid in ids]
    inputs = _input_changes(before, after)
    notes = []
    if rank_b and rank_a and rank_b[0] != rank_a[0]:
        notes.append(f"the ranking flips: {rank_a[0]} now ranks first among the options that "
                     f"may be bought (was {rank_b[0]})")
    elif rank_b != rank_a:
        common_b = [c for c in rank_b if c in rank_a]
        common_a = [c for c in rank_a if c in rank_b]
        if common_b != common_a:
            notes.append("the ranking changes below the top: " + " < ".join(rank_a))
    for c in cands:
        notes.extend(f"{c.id}: {n}" for n in c.notes)
    ports = _portfolio_changes(before, after, (before_label, after_label))
    for p in ports:
        notes.extend(f"{p.id}: {n}" for n in p.notes)
    notes.extend(_recommendation_change(before, after))
    notes.extend(_plan_change(before, after))
    return Comparison(before_label, after_label, before.currency, inputs, cands, rank_b, rank_a,
                      notes, before, after, ports)


def _portfolio_changes(before: Result, after: Result, labels: tuple[str, str]
                       ) -> list[PortfolioChange]:
    """Each portfolio's NPV and share of the plan delivered, before and after."""
    ids = [p.id for p in before.portfolios]
    ids += [p.id for p in after.portfolios if p.id not in ids]
    out = []
    for pid in ids:
        pb = next((p for p in before.portfolios if p.id == pid), None)
        pa = next((p for p in after.portfolios if p.id == pid), None)
        notes = []
        if pb is None or pa is None:
            notes.append(f"only in {labels[1] if pb is None else labels[0]}")
        elif pb.feasible and not pa.feasible:
            notes.append("becomes infeasible")
        elif pa.feasible and not pb.feasible:
            notes.append("becomes feasible")
        which = pa or pb
        assert which is not None
        out.append(PortfolioChange(
            pid, which.name, which.options,
            Line("npv_tco", "NPV of TCO", _costed(pb, "npv_tco"), _costed(pa, "npv_tco")),
            Line("plan_delivered_fraction", "Share of the plan delivered",
                 _costed(pb, "plan_delivered_fraction"),
                 _costed(pa, "plan_delivered_fraction")), notes))
    return out


def _costed(p: PortfolioResult | None, key: str) -> float | None:
    """A portfolio's figure, None when it is infeasible (an option cannot run its workloads:
    no figure, as in `tco compare`)."""
    return p.values.get(key) if p is not None and p.feasible else None


def _recommendation_change(before: Result, after: Result) -> list[str]:
    """A note when the option recommended (tco.recommend: cards, a portfolio or a per-token
    API) is another one after the change."""
    from ..decide import recommend_option

    rec_b, rec_a = recommend_option(before), recommend_option(after)
    was, now = (rec_b.option if rec_b else None), (rec_a.option if rec_a else None)
    if was == now:
        return []
    return [f"the recommendation changes: {now or 'none'} (was {was or 'none'})"]


PLAN_NOTE_ACTIONS = 6  # the re-solved plan's first actions a note lists


def _plan_change(before: Result, after: Result) -> list[str]:
    """The plan re-solved at the changed values (tco.plan), when the scenario is planned: the
    report's live page re-costs the options only and gives this command to re-solve it."""
    b = before.cheapest_plan
    if b is None:
        return []
    a = after.cheapest_plan
    if a is None or a.status == "infeasible":
        return ["the plan, re-solved at these values: no plan is found"]

    def steps(p: object) -> list[tuple[str, str, float, float]]:
        return [(x.action, x.option, round(x.quantity), round(x.start_years * 12))
                for x in p.actions]  # type: ignore[attr-defined]

    head = (f"the plan, re-solved at these values: NPV of TCO {b.npv_tco:,.0f} -> "
            f"{a.npv_tco:,.0f} {after.currency}")
    if a.basis == "after_tax":  # planned on it (finance.decision_basis)
        head += (f", after income tax {b.npv_tco_after_tax:,.0f} -> "
                 f"{a.npv_tco_after_tax:,.0f}")
    if steps(b) == steps(a):
        return [head + "; its actions are unchanged"]
    listed = "; ".join(f"month {m:.0f} {act} {q:,.0f} {x.unit} ({opt})" for (act, opt, q, m), x
                       in zip(steps(a)[:PLAN_NOTE_ACTIONS], a.actions))
    more = len(a.actions) - PLAN_NOTE_ACTIONS
    return [head + f"; its actions change: {listed}" + (f"; and {more} more" if more > 0
                                                          else "")]


def _find(result: Result, cid: str) -> CandidateResult | None:
    return next((c for c in (*result.candidates, *result.api_options) if c.id == cid), None)


def _candidate_change(cid: str, before: Result, after: Result, rank_b: list[str],
                      rank_a: list[str], labels: tuple[str, str]) -> CandidateChange:
    cb, ca = _find(before, cid), _find(after, cid)
    # (an API option has no yearly components: its NPV line alone)
    pv_b = present_values(cb, before.inputs["finance.discount_rate"].value) if (
        cb and cb.quantified and cb.yearly) else {}
    pv_a = present_values(ca, after.inputs["finance.discount_rate"].value) if (
        ca and ca.quantified and ca.yearly) else {}
    comps = [Line(k, COMPONENT_LABELS[k], pv_b.get(k), pv_a.get(k)) for k in COMPONENTS]
    job_b = cb.job if cb and cb.quantified else {}
    job_a = ca.job if ca and ca.quantified else {}
    jobs = [Line(k, JOB_COMPONENT_LABELS[k], job_b.get(f"cost_{k}"), job_a.get(f"cost_{k}"))
            for k in JOB_COMPONENTS]
    notes = []
    if cb is None:
        notes.append(f"only in {labels[1]}")
    elif ca is None:
        notes.append(f"only in {labels[0]}")
    elif cb.feasible and not ca.feasible:
        notes.append("becomes infeasible: " + "; ".join(ca.reasons))
    elif ca.feasible and not cb.feasible:
        notes.append("becomes feasible")
    if cb and ca and cb.inputs.get("cards") != ca.inputs.get("cards"):
        notes.append(f"cluster re-sized: {cb.inputs['cards']:,.0f} -> {ca.inputs['cards']:,.0f} "
                     "cards")
    info = (ca or cb).info  # type: ignore[union-attr]
    return CandidateChange(
        id=cid, name=info.name,
        rank_before=rank_b.index(cid) + 1 if cid in rank_b else None,
        rank_after=rank_a.index(cid) + 1 if cid in rank_a else None,
        feasible_before=cb.feasible if cb else None, feasible_after=ca.feasible if ca else None,
        npv=Line("npv_tco", "NPV of TCO", _value(cb, "npv_tco"), _value(ca, "npv_tco")),
        cost_per_job=Line("cost_per_job", "Cost per run", job_b.get("cost_per_job"),
                          job_a.get("cost_per_job")),
        components=comps, job_lines=jobs, notes=notes,
    )


def _value(c: CandidateResult | None, key: str) -> float | None:
    return c.values.get(key) if c is not None and c.quantified else None


def _input_changes(before: Result, after: Result) -> list[InputChange]:
    out = []
    paths = list(before.inputs) + [p for p in after.inputs if p not in before.inputs]
    for p in paths:
        ib, ia = before.inputs.get(p), after.inputs.get(p)
        vb = ib.value if ib else None
        va = ia.value if ia else None
        if vb != va:
            spec = (ia or ib).spec  # type: ignore[union-attr]
            unit = spec.unit.replace("money", after.currency)
            out.append(InputChange(p, spec.label, unit, vb, va))
    return out


def whatif(loaded: Loaded, catalog: Catalog, settings: Sequence[str | Setting],
           flag: str = "--set") -> Comparison:
    """Baseline vs the scenario with each PATH=VALUE applied."""
    def recompute(values: Mapping[str, float], label: str) -> Result:
        return compute(apply_values(loaded, values, label), catalog)

    return whatif_from(compute(loaded, catalog), settings, recompute, flag)


def whatif_from(before: Result, settings: Sequence[str | Setting], recompute: Recompute,
                flag: str = "--set") -> Comparison:
    """`before` vs the same scenario with each PATH=VALUE applied.

    The changed inputs are set in `before`'s resolved inputs directly when that is what
    resolving the edited scenario gives (tco.resolved.with_values); otherwise `recompute`
    validates and resolves the edited scenario. Either way the result is the engine's for the
    edited scenario (tests/test_analysis_whatif.py checks the two against each other)."""
    parsed = [s if isinstance(s, Setting) else parse_setting(s, flag) for s in settings]
    if not parsed:
        raise TcoError(f"give at least one {flag} PATH=VALUE")
    values = resolve_settings(parsed, before.inputs, flag)
    label = f"{flag} " + " ".join(s.text for s in parsed)
    changed = None
    if before.resolved is not None:
        changed = edited(before.resolved, before.model, values,
                         edited_file(before.provenance.scenario_file, label))
    after = evaluate(changed, before.model) if changed is not None else recompute(values, label)
    _start_from(after, before)
    return compare_results(before, after, "baseline", label)


def _start_from(after: Result, before: Result) -> None:
    """The changed side's plan is searched from the baseline's (when the baseline is planned;
    a what-if does not change the problem's shape, and a start that is not of its shape or
    no longer feasible is only a poorer start)."""
    if before.planner is not None and after.structure == before.structure:
        plan = before.cheapest_plan
        after.plan_start = plan.solution if plan is not None else None


def diff(loaded_a: Loaded, loaded_b: Loaded, catalog: Catalog) -> Comparison:
    """Scenario A vs scenario B, candidates matched by id."""
    return compare_results(compute(loaded_a, catalog), compute(loaded_b, catalog),
                           loaded_a.file, loaded_b.file)
