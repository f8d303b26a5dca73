"""Tornado data: each input moved down and up, ranked by what it does to each candidate (and,
for the NPV, to each portfolio of options costed together).

Which inputs move:
* numeric, non-structural inputs the model reads (not the horizon, which reshapes the model);
* not whole-number inputs (card counts, cards per server, scale-up domain, tensor-parallel
  limit, loan term): they are choices or hardware facts, not uncertain quantities, and a 20%
  change of "8 cards per server" is not a real option. Cluster sizes stay at their (sized) value;
* with a swing: inputs whose baseline is not 0 (a relative swing of 0 is 0);
* with `range`: inputs with a catalog (or scenario distribution-free) low < high.

Every moved value is clipped to the input's plausible range (tco/inputs.py): utilization 0.85
+20% is 1.0, not 1.02; the bar is marked `clipped`. All cases of a candidate are evaluated at
once: each input it reads becomes an array of 2K+1 values that differs from the baseline only at
its own two slots.
"""

from __future__ import annotations

import math

import numpy as np

from .. import twins
from ..catalog import Catalog
from ..engine import compute
from ..errors import TcoError
from ..expr import Value
from ..model import Model
from ..result import Result
from ..scenario import Loaded
from .common import (
    METRICS,
    baseline_values,
    check_metric,
    feasible_apis,
    feasible_portfolios,
    metric_applies,
    metric_name,
    parse_swing,
    plausible_range,
    priced_candidates,
    sources_read,
    tied,
    ties,
    with_ties,
)
from .types import Sensitivity, TornadoBar

# Twins evaluated together: their (twins x cases) arrays of every formula stay small
TWINS_AT_ONCE = 32


Links = dict[str, tuple[str, ...]]  # input -> the inputs tied to it (common.ties)


def _cases_of(result: Result, base: dict[str, float],
              cases: list[tuple[str, float, float, bool]], case_at: dict[str, int], target: str,
              model: Model | None = None, links: Links | None = None
              ) -> tuple[list[tuple[str, float, float, bool]], np.ndarray]:
    """The cases of the inputs `target` reads, and the target for each: element 0 at the
    baseline, then each input at its low and high value (2K+1 elements).

    One candidate at a time: its metric reads its own inputs and the shared ones only, so
    evaluating every case of every input for every candidate (as one array of 2K+1 cases for
    the whole scenario) would grow with the square of the number of candidates, in time and
    memory. Each element is computed from the same input values either way. `case_at` gives
    the index of each input's case in `cases`. `model`: one holding `target` beside the
    scenario's (a plan's money, `_plan_cases`). `links`: the inputs tied to each (common.ties),
    which take its value in its cases."""
    links = ties(result.inputs) if links is None else links
    sub = (model or result.model).feeding([target])
    read = sub.inputs_used()
    moved = set(read) | sources_read(links, read)
    own = [cases[i] for i in sorted(case_at[p] for p in moved if p in case_at)]
    k = len(own)
    arrays = {}
    for i, (path, lo, hi, _) in enumerate(own):
        a = np.full(2 * k + 1, base[path])
        a[2 * i + 1], a[2 * i + 2] = lo, hi
        arrays[path] = a
    # A few dozen cases: evaluating the candidate's formulas on them directly is quicker than
    # compiling them first (tco.analysis.fast pays off over thousands of draws).
    env: dict[str, Value] = {p: base[p] for p in read}
    env.update((p, a) for p, a in with_ties(arrays, links).items() if p in read)
    values = np.broadcast_to(np.asarray(sub.evaluate(env)[target], dtype=float), (2 * k + 1,))
    return own, values


def _twins_cases(result: Result, base: dict[str, float],
                 cases: list[tuple[str, float, float, bool]], case_at: dict[str, int],
                 targets: dict[str, str], links: Links
                 ) -> dict[str, tuple[list[tuple[str, float, float, bool]], np.ndarray]]:
    """`_cases_of` for every candidate of a group of twins (tco/twins.py) at once: the
    template's formulas over an array of (members, cases). Twins whose inputs have cases
    differently (an input at 0 has no swing) are evaluated apart, so each member's formulas
    see arrays exactly where its own would (each element is then the same number)."""
    out = {}
    model = result.model
    for group in twins.groups(model, targets):
        target = targets[group.template]
        if len(group.members) < 2 or [targets[m] for m in group.members] != group.names(target):
            continue
        sub = model.feeding([target])
        # a source whose tied input the target reads has cases too (common.ties)
        used = sub.inputs_used()
        read = [*used, *sorted(sources_read(links, used) - set(used))]
        names = {n: group.names(n) for n in read}
        patterns: dict[tuple[str, ...], list[int]] = {}
        for i in range(len(group.members)):
            patterns.setdefault(tuple(n for n in read if names[n][i] in case_at), []).append(i)
        for varied, all_rows in patterns.items():
            for first in range(0, len(all_rows), TWINS_AT_ONCE):
                rows = all_rows[first:first + TWINS_AT_ONCE]
                out.update(_twin_cases(result, base, cases, case_at, group, sub, target,
                                       names, varied, rows, links))
    return out


def _twin_cases(result: Result, base: dict[str, float],
                cases: list[tuple[str, float, float, bool]], case_at: dict[str, int],
                group: twins.Twins, sub: Model, target: str, names: dict[str, list[str]],
                varied: tuple[str, ...], rows: list[int], links: Links
                ) -> dict[str, tuple[list[tuple[str, float, float, bool]], np.ndarray]]:
    """`_twins_cases` for the members `rows` of `group`, whose inputs `varied` have cases (an
    input tied to one of them, shared by every member, takes its cases)."""
    out = {}
    sub_group = group.subset([group.members[i] for i in rows])
    k = len(varied)
    arrays = {}
    for j, n in enumerate(varied):
        paths = [names[n][i] for i in rows]
        a = np.empty((len(rows) if sub_group.own(n) else 1, 2 * k + 1))
        for r in range(a.shape[0]):
            _path, lo, hi, _clipped = cases[case_at[paths[r]]]
            a[r] = base[paths[r]]
            a[r, 2 * j + 1], a[r, 2 * j + 2] = lo, hi
        arrays[n] = a
    arrays = {n: a for n, a in with_ties(arrays, links).items() if n in names}
    got = twins.evaluate(sub_group, sub, base, arrays, env=result.env)[target]
    if type(got) is list:  # reads no case: one value per member
        got = np.array(got, dtype=float)[:, None]
    got = np.broadcast_to(np.asarray(got, dtype=float), (len(rows), 2 * k + 1))
    for r, i in enumerate(rows):
        col = {names[n][i]: j for j, n in enumerate(varied)}
        own_paths = sorted(col, key=case_at.__getitem__)
        values = np.empty(2 * len(own_paths) + 1)
        values[0] = got[r, 0]
        for pos, path in enumerate(own_paths):
            values[2 * pos + 1] = got[r, 2 * col[path] + 1]
            values[2 * pos + 2] = got[r, 2 * col[path] + 2]
        out[group.members[i]] = ([cases[case_at[p]] for p in own_paths], values)
    return out


def sensitivity(loaded: Loaded, catalog: Catalog, swing: float = 0.2, mode: str = "swing",
                metric: str = "npv_tco", result: Result | None = None) -> Sensitivity:
    if mode not in ("swing", "range"):
        raise TcoError(f"unknown sensitivity mode {mode!r}; expected swing or range")
    swing = parse_swing(swing)  # the CLI's check, for the Python API as well
    metric = check_metric(metric, METRICS)
    result = result or compute(loaded, catalog)
    # the serving metric: only the options that serve (one that only trains has no token)
    cands = [cid for cid in priced_candidates(result) if metric_applies(result, cid, metric)]
    if metric == "npv_tco":  # portfolios have the NPV only (tco.analysis.common.metric_name)
        cands += feasible_portfolios(result)
    cands += [aid for aid in feasible_apis(result) if metric_applies(result, aid, metric)]
    targets = {cid: metric_name(result, cid, metric) for cid in cands}
    used = set(twins.inputs_used(result.model))
    links = ties(result.inputs)
    following = tied(links)
    used |= sources_read(links, used)
    cases: list[tuple[str, float, float, bool]] = []  # path, low, high, clipped
    for path, inp in result.inputs.items():
        spec = inp.spec
        # a tied input moves with its source, not on its own (common.ties)
        if path not in used or spec.structural or spec.integer or path in following:
            continue
        if mode == "swing":
            if inp.value == 0:
                continue
            lo_raw, hi_raw = sorted((inp.value * (1 - swing), inp.value * (1 + swing)))
        else:
            if inp.low is None or inp.high is None or not inp.low < inp.high:
                continue
            lo_raw, hi_raw = inp.low, inp.high
        lo_ok, hi_ok = plausible_range(inp, result)
        lo, hi = max(lo_raw, lo_ok), min(hi_raw, hi_ok)
        cases.append((path, lo, hi, (lo, hi) != (lo_raw, hi_raw)))

    base = baseline_values(result)
    case_at = {c[0]: i for i, c in enumerate(cases)}
    baseline: dict[str, float] = {}
    bars: dict[str, list[TornadoBar]] = {}
    grouped = (_twins_cases(result, base, cases, case_at, targets, links) if twins.GROUPED
               else {})
    # the cheapest plan held fixed (what it buys, rents and calls, and when), re-costed at each
    # case: its money's trees over the model (not re-solved), for the NPV
    plan = result.cheapest_plan if metric == "npv_tco" else None
    if plan is not None and plan.model is not None:
        grouped[plan.id] = _plan_cases(result, plan, base, cases, case_at, links)
        targets = {**targets, plan.id: f"{plan.id}.npv_tco"}
    for cid, name in targets.items():
        own, values = grouped.get(cid) or _cases_of(result, base, cases, case_at, name,
                                                    links=links)
        baseline[cid] = float(values[0])
        if math.isnan(baseline[cid]):
            # Every case then differs from the baseline, also those of inputs this candidate
            # does not read (each is the baseline, nan): list them all, in case order.
            at = {c[0]: i for i, c in enumerate(own)}
            rows = [(c, (values[2 * at[c[0]] + 1], values[2 * at[c[0]] + 2])
                     if c[0] in at else (values[0], values[0])) for c in cases]
        else:
            rows = [(c, (values[2 * i + 1], values[2 * i + 2])) for i, c in enumerate(own)]
        out = []
        for (path, lo, hi, clipped), (v_lo, v_hi) in rows:
            m_lo, m_hi = float(v_lo), float(v_hi)
            if m_lo == baseline[cid] and m_hi == baseline[cid]:
                continue  # the input does not reach this candidate
            inp = result.inputs[path]
            out.append(TornadoBar(
                path=path, label=inp.spec.label, unit=inp.spec.unit.replace(
                    "money", result.currency), base_value=inp.value, low_value=lo,
                high_value=hi, metric_low=m_lo, metric_high=m_hi, clipped=clipped))
        out.sort(key=lambda b: (-b.effect, b.path))
        bars[cid] = out
    plan_id = plan.id if plan is not None and plan.id in bars else ""
    return Sensitivity(metric=metric, mode=mode, swing=swing if mode == "swing" else None,
                       baseline={k: v for k, v in baseline.items() if k != plan_id},
                       bars={k: v for k, v in bars.items() if k != plan_id},
                       currency=result.currency, plan_id=plan_id,
                       plan_baseline=baseline.get(plan_id) if plan_id else None,
                       plan_bars=bars.get(plan_id, []))


def _plan_cases(result: Result, plan: object, base: dict[str, float],
                cases: list[tuple[str, float, float, bool]], case_at: dict[str, int],
                links: Links) -> tuple[list[tuple[str, float, float, bool]], np.ndarray]:
    """`_cases_of` for the plan's NPV: its money (`plan.model`) on top of the scenario's
    model, its own decisions fixed at the solver's values."""
    from ..plan import costed, decisions

    target = f"{plan.id}.npv_tco"  # type: ignore[attr-defined]
    return _cases_of(result, {**base, **decisions(plan, result)}, cases, case_at,  # type: ignore[arg-type]
                     target, costed(plan, result), links)  # type: ignore[arg-type]
