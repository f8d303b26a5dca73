"""Cluster sizing (methodology §11): the card count of each option sized for a deadline, a
power cap or the plan (`cards: auto`), chosen once per scenario beside the layout search
(tco/layout.py), and like it by the model's own formulas: `feasible` (its deadline, cap and
site power budget), `runnable` and the primary workload's wall time, evaluated over an array of
every size at once. The chosen size becomes the option's `cards` input, as a buyer would type
it; the engine (tco/engine.py) then evaluates the model with it.

`size_clusters` is the entry point: it sizes every option not sized yet and has the layout
search choose every option's layouts (tco.layout.choose). Within one sizing, twins
(tco/twins.py) of one Shape share their formulas and, with the same values of what the choice
reads, their size.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from . import modes
from .inputs import Input
from .model import Model
from .model.units import HOURS_PER_DAY, HOURS_PER_YEAR
from .resolved import Resolved, input_values

MAX_SIZING_NODES = 20000  # the largest cluster sizing will consider, in servers
COARSE_SIZES = 48  # sizes of the geometric grid the layout is searched on while sizing
FIRST_SIZES = 1024  # a deadline's smallest size is looked for among so many servers first
# A scenario with this many candidates to size or lay out spreads them over forked processes,
# at most SIZING_PROCESSES (one per core): fewer take less time than forking.
SPLIT_AT = 64
SIZING_PROCESSES = 4

# Sizing tries whole servers: the grid of sizes reads this input besides the model's formulas.
SIZE_STEP_INPUT = "cards_per_node"
# a run's window when a rented cluster is sized to the plan: each year's runs within that year
RUN_WINDOW_DAYS = HOURS_PER_YEAR / HOURS_PER_DAY  # the model's year (the planner's windows)


def _sizing_targets(resolved: Resolved, cid: str) -> list[str]:
    """The quantities the size of `cid` is chosen by (the first three), and its layouts."""
    primary = primary_of(resolved, cid)
    return [f"{cid}.feasible", f"{cid}.runnable", f"{cid}.{primary}.wall_days"] + [
        f"{cid}.{wid}.step_seconds" for wid, _p, _k in resolved.structure.workloads]


def primary_of(resolved: Resolved, cid: str) -> str:
    """The first workload option `cid` carries (every option carries the plan's first unless
    it is assigned others): its run is the deadline's and the headline's."""
    info = resolved.candidates[cid]
    return next(wid for wid, _p, _k in resolved.structure.workloads if info.carries(wid))


def sizing_inputs(model: Model, resolved: Resolved, cid: str) -> set[str]:
    """Every input the size and the layouts the engine picks for `cid` depend on."""
    p = f"candidates.{cid}"
    chosen = {path for path in model.inputs_feeding(_sizing_targets(resolved, cid))
              if path.startswith(f"{p}.layout.")}
    own = {f"{p}.cards"} if resolved.candidates[cid].sizing != "cards" else set()
    return ((model.inputs_feeding(_sizing_targets(resolved, cid)) | {f"{p}.{SIZE_STEP_INPUT}"})
            - own - chosen)


def size_clusters(model: Model, resolved: Resolved) -> Resolved:
    """`resolved` with a card count for each candidate sized for a deadline or power cap and
    not sized yet: the smallest feasible size for a deadline, the fastest feasible size within
    a power cap. When no size is feasible the model's flags say why: the size kept is the
    fastest that runs (deadline) or the largest within the cap (power).

    All sizes of a candidate are evaluated at once as an array (1..MAX_SIZING_NODES servers).
    A scenario of many candidates is sized and laid out in forked processes, each taking a
    share of them (`_shares`): every candidate's choice is its own computation on its own
    numbers, so a share gives what the whole would."""
    st = resolved.structure
    # a generated rent option reads its source's size and layout: only own inputs are chosen
    todo = [cid for cid, own in zip(st.candidates, st.inputs_of)
            if cid == own and cid not in resolved.sized]
    if not todo:
        return resolved
    kinds = dict(zip(st.candidates, st.sizing))  # each candidate's size rule
    shares = _shares(model, resolved, todo, kinds)
    changed: dict[str, Input] = {}
    if len(shares) > 1:
        from . import forked

        try:
            for got in forked.fork_map(
                    lambda share: _sized_and_laid_out(model, resolved, share, kinds),
                    shares, len(shares)):
                changed.update(got)
        except Exception:  # noqa: BLE001 (sized again here: the error raised as itself)
            changed.clear()
    if not changed:
        changed = _sized_and_laid_out(model, resolved, todo, kinds)
    return replace(resolved, inputs={**resolved.inputs, **changed},
                   sized=resolved.sized | set(todo))


def _sized_and_laid_out(model: Model, resolved: Resolved, cids: list[str],
                        kinds: dict[str, str]) -> dict[str, Input]:
    """The inputs sizing and the layout search give candidates `cids` (their card count when
    sized by their rule in `kinds`, their layouts' degrees), those that change. Within one call, twins (tco/twins.py)
    of one Shape share their formulas and, with the same values of what the choice reads,
    their size and layouts."""
    from . import layout

    values = input_values(resolved)
    inputs = dict(resolved.inputs)
    formulas: dict[Any, Any] = {}  # the sizing formulas of the first twin of each Shape
    with layout.memo():  # twins of one card and size choose their layouts once
        for cid in cids:
            if kinds[cid] != "cards":
                inputs[f"candidates.{cid}.cards"] = _size(model, resolved, cid, values,
                                                          formulas)
        out = layout.choose(model, replace(resolved, inputs=inputs), cids)
    return {p: inp for p, inp in out.inputs.items() if resolved.inputs[p] is not inp}


def _shares(model: Model, resolved: Resolved, todo: list[str], kinds: dict[str, str]
            ) -> list[list[str]]:
    """`todo` in shares for forked processes (one share: not spread): with SPLIT_AT
    candidates or more, where this machine has several cores and may fork. Candidates that
    are likely one computation (twins of one Shape with the same count or target) go to
    one share, so that each computation is made once; the groups are dealt out in turn."""
    from . import forked, twins

    processes = min(os.cpu_count() or 1, SIZING_PROCESSES)
    if processes < 2 or len(todo) < SPLIT_AT or not forked.can_fork():
        return [todo]
    shapes = twins.shapes(model)
    groups: dict[Any, list[str]] = {}
    for cid in todo:
        target = resolved.inputs.get(f"candidates.{cid}.{kinds[cid]}")
        key = (shapes.get(cid, cid), kinds[cid], target.value if target else None)
        groups.setdefault(key, []).append(cid)
    shares: list[list[str]] = [[] for _ in range(processes)]
    for k, members in enumerate(groups.values()):
        shares[k % processes].extend(members)
    return [s for s in shares if s]


def _sizing_formulas(model: Model, resolved: Resolved, cid: str,
                     formulas: dict[Any, Any] | None) -> tuple[str, Model, Model, Any]:
    """(first twin, the model of the sizing targets, of feasibility alone, its names ->
    cid's): made once per Shape (tco/twins.py) when `formulas` keeps them, else cid's own."""
    from . import twins

    sh = twins.shapes(model).get(cid)
    if formulas is None or sh is None or not twins.GROUPED:
        targets = _sizing_targets(resolved, cid)
        return cid, model.feeding(targets[:3]), model.feeding(targets[:1]), lambda n: n
    if sh not in formulas:
        targets = _sizing_targets(resolved, cid)
        formulas[sh] = (cid, model.feeding(targets[:3]), model.feeding(targets[:1]))
    first, needs, feasible = formulas[sh]
    return first, needs, feasible, twins.pair(model, first, cid).rename


def _size(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
          formulas: dict[Any, Any] | None = None) -> Input:
    """The `cards` input of `cid` sized for its deadline or power cap (see size_clusters).
    Within one sizing (`formulas` kept), a twin whose inputs the choice reads (its formulas',
    the layout search's, the pinned degrees) have the same values as an earlier one's gets
    the same size without the search."""
    p = f"candidates.{cid}"
    kind = resolved.candidates[cid].sizing
    key = _sizing_key(model, resolved, cid, values, formulas)
    if key is None or formulas is None:
        cards = _sized_cards(model, resolved, cid, values, formulas)
    else:
        if key not in formulas:
            formulas[key] = _sized_cards(model, resolved, cid, values, formulas)
        cards = formulas[key]
    return replace(resolved.inputs[f"{p}.cards"], value=cards, low=cards, high=cards,
                   source="sized to deliver the plan (cards: auto)" if kind == "plan"
                   else f"sized for {kind} = {values[f'{p}.{kind}']:g}")


def _sizing_key(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
                formulas: dict[Any, Any] | None) -> tuple[Any, ...] | None:
    """What the size of `cid` depends on besides the scenario's shared inputs: its Shape and
    the value of every input of its own the sizing reads (None: not remembered)."""
    from . import layout, twins

    sh = twins.shapes(model).get(cid)
    if formulas is None or sh is None or not twins.GROUPED:
        return None
    first, needs, _feasible, rename = _sizing_formulas(model, resolved, cid, formulas)
    reads = formulas.get(("reads", sh))
    if reads is None:
        names = set(needs.inputs_used())
        for wid, _p, kind in resolved.structure.workloads:
            names.update(model.feeding(layout.targets(first, wid, kind == "serve"))
                         .inputs_used())
            names.update(layout._grid_reads(first, wid))
        p = f"candidates.{first}"
        names.update({f"{p}.{SIZE_STEP_INPUT}", f"{p}.{resolved.candidates[first].sizing}"})
        reads = formulas[("reads", sh)] = sorted(names)
    pins = tuple(tuple(sorted(layout.pinned(resolved, cid, wid).items()))
                 for wid, _p, _k in resolved.structure.workloads)
    return ("size", sh, pins, tuple(values.get(rename(n)) for n in reads))


def _sized_cards(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
                 formulas: dict[Any, Any] | None = None) -> float:
    """The card count `_size` gives `cid`.

    Each size is evaluated with the best layout at the nearest smaller size of a coarse
    geometric grid (tco.layout.per_size); the layout at the chosen size is chosen after.
    The formulas evaluated are those of the first twin of cid's Shape in `formulas` (the
    same as cid's but for the names), on cid's values. A deadline's (or the plan's) smallest
    size is looked for among the FIRST_SIZES smallest first: when one of them is feasible
    the sizes after it cannot change the choice, and each size's numbers are the same
    whatever the length of the array they are computed in (numpy, element by element)."""
    import numpy as np

    from . import layout

    first, needs, feasible_model, rename = _sizing_formulas(model, resolved, cid, formulas)
    p = f"candidates.{cid}"
    trial = values[f"{p}.{SIZE_STEP_INPUT}"] * np.arange(1, MAX_SIZING_NODES + 1,
                                                           dtype=float)
    coarse = np.unique(np.round(np.geomspace(1, MAX_SIZING_NODES, COARSE_SIZES)))
    coarse_cards = values[f"{p}.{SIZE_STEP_INPUT}"] * coarse
    at = np.searchsorted(coarse_cards, trial, side="right") - 1
    # Only the quantities the choice reads, from only the inputs they read: the other
    # formulas of the candidate (cash flows, ...) over every size, or a copy of every
    # input of a scenario of many candidates, would take longer than the sizing.
    own: dict[str, Any] = {path: values[rename(path)] for path in needs.inputs_used()}
    chosen = layout.per_size(model, resolved, cid, coarse_cards, values)
    kind = resolved.candidates[cid].sizing
    # a rented option to the plan: the cheapest size to rent, over every size (_cheapest)
    rented = kind == "plan" and resolved.candidates[cid].acquire == modes.RENT
    smallest = kind in ("deadline_days", "plan") and not rented
    for n in ((FIRST_SIZES, MAX_SIZING_NODES) if smallest else (MAX_SIZING_NODES,)):
        env = {**own, **{path: chosen[rename(path)][at[:n]]
                         for path in _layout_paths(resolved, first)},
               f"candidates.{first}.cards": trial[:n]}
        env = needs.evaluate(env)
        feasible, runnable, wall = (np.broadcast_to(np.asarray(env[name], dtype=float), (n,))
                                    for name in _sizing_targets(resolved, first)[:3])
        feasible, runnable = feasible > 0, runnable > 0
        if smallest and feasible.any():
            # deadline, plan: the first (smallest) size meeting it
            pick = _confirmed(model, resolved, cid, values, own, np.nonzero(feasible)[0],
                              trial, (first, feasible_model, rename))
            if pick is not None or n == MAX_SIZING_NODES:
                return float(trial[np.nonzero(feasible)[0][0] if pick is None else pick])
        elif n == MAX_SIZING_NODES:
            if rented and (feasible & (wall <= RUN_WINDOW_DAYS)).any():
                return float(trial[_cheapest(feasible, wall, trial)])
            return float(trial[_unmet_or_capped(kind, feasible, runnable, wall, env, first)])
    raise AssertionError("the last pass evaluates every size")


def _cheapest(feasible: Any, wall: Any, cards: Any) -> int:
    """A rented cluster sized to the plan (`cards: auto`): the size whose run takes the
    fewest card-hours (cards x wall time: what renting it costs, by the hour) among those that
    run it within its window (RUN_WINDOW_DAYS, each year's runs due within that year); the
    smaller on a tie. Renting, a buyer takes as many such clusters as the runs need at once;
    the smallest size that runs (the owned rule) would take years per run and more
    card-hours, and a typed size would then cost the plan less than leaving it to sizing."""
    import numpy as np

    ok = feasible & (wall <= RUN_WINDOW_DAYS)
    hours = np.where(ok, cards * wall, np.inf)
    return int(np.argmin(hours))  # the first (smallest) of equal minima


def _unmet_or_capped(kind: str, feasible: Any, runnable: Any, wall: Any,
                     env: Mapping[str, Any], first: str) -> int:
    """Over every size: a power cap's fastest feasible size (past some size more cards only
    slow a run: interruptions grow with size); when none is feasible, the fastest that runs
    (deadline, plan) or the largest within the cap (power), within the site's power budget
    where it has one (tco.model.decision.within_power_budget)."""
    import numpy as np

    if feasible.any():
        return int(np.argmin(np.where(feasible, wall, np.inf)))
    budget = np.broadcast_to(
        np.asarray(env.get(f"{first}.within_power_budget", 1.0)) > 0, feasible.shape)
    if kind in ("deadline_days", "plan"):
        usable = runnable & np.isfinite(wall) & (wall > 0) & budget
        return int(np.argmin(np.where(usable, wall, np.inf))) if usable.any() else 0
    within = np.asarray(env.get(f"{first}.within_power_cap", 1.0)) > 0
    within = np.broadcast_to(within, feasible.shape) & budget
    return int(np.nonzero(within)[0][-1]) if within.any() else 0


def _confirmed(model: Model, resolved: Resolved, cid: str, values: dict[str, float],
               own: dict[str, Any], sizes: Any, trial: Any,
               formulas: tuple[str, Model, Any], tries: int = 8) -> int | None:
    """The first of the trial sizes `sizes` (indices, smallest first, each feasible with the
    coarse grid's layout) that is still feasible with the layout the search picks at exactly
    that size: that choice prefers the simplest of the layouts within 1 % of the fastest, so
    it may miss a deadline the grid's layout met by less than that; when none of the first
    `tries` is, the first. None when there are fewer than `tries` sizes and none of them is:
    a size past those evaluated might be (with every size evaluated, the caller keeps the
    first). `formulas`: (first twin, its feasibility's model, its names -> cid's), `own` in
    the first twin's names."""
    import numpy as np

    from . import layout

    first, needs, rename = formulas
    paths = _layout_paths(resolved, first)
    for i in sizes[:tries]:
        cards = trial[i:i + 1]
        chosen = layout.at_size(model, resolved, cid, float(cards[0]), values)
        env = {**own, **{path: chosen[rename(path)] for path in paths},
               f"candidates.{first}.cards": cards}
        if np.asarray(needs.evaluate(env)[f"{first}.feasible"]).ravel()[0] > 0:
            return int(i)
    return int(sizes[0]) if len(sizes) >= tries else None


def _layout_paths(resolved: Resolved, cid: str) -> list[str]:
    """The layout inputs of `cid` (every degree of every workload)."""
    from .layout import layout_path
    from .model.step import DEGREES

    return [layout_path(cid, wid, d) for wid, _p, _k in resolved.structure.workloads
            for d in DEGREES]
