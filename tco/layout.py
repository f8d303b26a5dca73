"""The layout search: for each candidate and workload, the parallel layout (tensor, pipeline,
virtual-stage, context and expert parallel degrees, and activation recomputation) that gives
the shortest step among those that fit in memory.

Like cluster sizing (tco.sizing.size_clusters) this is a discrete choice made once per scenario
by evaluating the model's own formulas (tco.model.step) over an array: every feasible
combination of degrees at once. The chosen degrees become the inputs
`candidates.<id>.layout.<workload>.<degree>` (origin "derived"); degrees the scenario pins
(`candidates[].layout`) are kept. Monte Carlo, sensitivity and the workbook keep the chosen
layout fixed; a what-if that changes an input the choice reads chooses again.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import replace
from typing import Any

from .errors import ScenarioError
from .inputs import Input
from .model import Model
from .model.step import DEGREES
from .model.units import PRECISION_CODES
from .resolved import Resolved

POWERS = (1, 2, 4, 8, 16, 32, 64, 128, 256)
MIN_CONTEXT_SHARD_TOKENS = 4096  # context parallelism never cuts a sequence finer than this
NEAR_BEST = 1.01  # layouts within 1% of the fastest step count as equal: the simplest wins


def layout_path(cid: str, wid: str, degree: str) -> str:
    return f"candidates.{cid}.layout.{wid}.{degree}"


def targets(cid: str, wid: str, serve: bool = False) -> list[str]:
    if serve:
        return [f"{cid}.{wid}.{t}" for t in SERVE_TARGETS]
    return [f"{cid}.{wid}.step_seconds", f"{cid}.{wid}.fits_memory",
            f"{cid}.{wid}.memory_needed_gb"]


SERVE_TARGETS = ("tokens_per_s_per_card", "fits_memory", "meets_objective", "step_seconds")


def serve_grid(values: Mapping[str, float], resolved: Resolved, cid: str, wid: str,
               cards_max: float) -> list[tuple[float, ...]]:
    """A serving workload chooses its tensor-parallel degree (one replica within the scale-up
    domain) and, when it allows several, its precision among those the card has (the last
    element: the code of PRECISION_CODES, -1 when fixed); its other degrees stay 1
    (docs/methodology.md §18). The more accurate precisions and the smaller groups first."""
    p = f"candidates.{cid}"
    tp_max = min(values[f"{p}.scaleup_domain_cards"], values[f"{p}.cards_per_node"],
                 values["assumptions.tensor_parallel_max"], max(cards_max, 1))
    pins = pinned(resolved, cid, wid)
    check_tensor_pin(values, resolved, cid, wid, pins)
    tps = [pins["tp"]] if "tp" in pins else [x for x in POWERS if x <= tp_max]
    return [(tp, 1, 1, 1, 1, 0, 0, 0, 0, code) for code in serve_codes(values, resolved, cid, wid)
            for tp in tps]


def serve_codes(values: Mapping[str, float], resolved: Resolved, cid: str, wid: str
                ) -> list[float]:
    """The precision codes the search tries for `wid` on `cid`: those of its allowed
    precisions the card has a peak for (-1: one precision, not chosen)."""
    allowed = resolved.structure.allowed(wid)
    if len(allowed) == 1:
        return [-1.0]
    p = f"candidates.{cid}"
    has = [x for x in allowed if values.get(f"{p}.peak_tflops_{x}", 0.0) > 0]
    return sorted(PRECISION_CODES[x] for x in (has or allowed))


def best_serving(got: Mapping[str, Any], combos: list[tuple[float, ...]], cards: Any) -> Any:
    """The combination with the most output tokens per second per card (the least cost per
    token: the cards cost the same at any precision) among those that fit, meet the objective
    and have the cards, the first of those within NEAR_BEST of it (more accurate, smaller
    groups first); when none does, the fastest step among those that fit and have the cards
    (the nearest to the objective, which its reason quotes), else the largest group (the most
    memory and bandwidth)."""
    import numpy as np

    tp = np.asarray([c[0] for c in combos], dtype=float)
    n = np.asarray(cards, dtype=float)
    n = n[..., None] if n.ndim else n
    room = tp <= n
    ok = (got["fits_memory"] > 0) & (got["meets_objective"] > 0) & room
    rate = np.where(ok, got["tokens_per_s_per_card"], -np.inf)
    top = np.max(rate, axis=-1, keepdims=True)
    near = ok & (rate * NEAR_BEST >= top)
    fits = (got["fits_memory"] > 0) & room
    fastest = np.argmin(np.where(fits, got["step_seconds"], np.inf), axis=-1)
    largest = np.argmax(np.where(room, tp, -1.0), axis=-1)
    fallback = np.where(fits.any(axis=-1), fastest, largest)
    return np.where(ok.any(axis=-1), np.argmax(near, axis=-1), fallback)


def grid(values: Mapping[str, float], resolved: Resolved, cid: str, wid: str,
         cards_max: float) -> list[tuple[int, ...]]:
    """Every combination of degrees worth trying (pinned degrees fixed), in DEGREES order."""
    p, wp = f"candidates.{cid}", f"workloads.{wid}"
    layers = model_layers(values, wp)
    tp_max = min(values[f"{p}.scaleup_domain_cards"], values[f"{p}.cards_per_node"],
                 values["assumptions.tensor_parallel_max"])
    cp_max = values[f"{wp}.seq_len_tokens"] / MIN_CONTEXT_SHARD_TOKENS
    # A mixture of experts shards its experts at least as far as it is sparse (params /
    # active params, to a power of two), so that each card holds about as many expert weights
    # as dense ones. The step charges small expert GEMMs (padding, weight reads), but not
    # router imbalance, which is what rules out small expert groups in practice: without this
    # rule the search puts DeepSeek-V3 on 4-card expert groups (docs/methodology.md §4).
    sparsity = values[f"{wp}.params"] / values[f"{wp}.active_params"]
    cpn = values[f"{p}.cards_per_node"]
    options = {
        "tp": [x for x in POWERS if x <= tp_max], "pp": [x for x in POWERS if x <= layers],
        "vp": [1, 2, 4, 8], "cp": [x for x in POWERS[:5] if x <= max(cp_max, 1)],
        "ep": expert_degrees(sparsity, cards_max, values.get(f"{wp}.experts", 0.0)),
        "recompute": [0, 1], "zero3": [0, 1], "zero2": [0, 1], "hsdp": [0, 1],
    }
    pins = pinned(resolved, cid, wid)
    check_tensor_pin(values, resolved, cid, wid, pins)
    check_expert_pin(values, resolved, cid, wid, pins, sparsity)
    options.update({d: [v] for d, v in pins.items()})
    out = []
    for combo in itertools.product(*(options[d] for d in DEGREES)):
        tp, pp, vp, cp, ep, _, zero3, zero2, hsdp = combo
        if (tp * pp * cp > cards_max or (pp == 1 and vp > 1) or pp * vp > layers
                or ep * tp * pp > cards_max or (zero3 and zero2)
                or (hsdp and (not zero3 or 2 * tp * cp > cpn))):  # HSDP: 2+ ranks a server
            continue
        out.append(combo)
    if not out:
        raise unplaceable(resolved, cid, wid, pins, cards_max, layers, cpn)
    return out


def model_layers(values: Mapping[str, float], wp: str) -> float:
    """The workload's layers, as the model's `layers` (tco.model.step.shape) gives them: given,
    or the hidden size (given, or inferred from the active parameters) over the width-to-depth
    ratio."""
    given = values.get(f"{wp}.layers", 0.0)
    if given > 0:
        return given
    ratio, act = values["assumptions.hidden_per_layer_ratio"], values[f"{wp}.active_params"]
    hidden = values.get(f"{wp}.hidden_size", 0.0) or (ratio * act / 12) ** (1 / 3)
    return hidden / ratio


def expert_degrees(sparsity: float, cards_max: float, experts: float = 0.0) -> list[int]:
    """Expert-parallel degrees to try: 1 for a dense model; for a mixture of experts those at
    least as large as it is sparse (and no larger than its routed experts, when given: every
    card of a group holds at least one expert), or, on a cluster too small for any, the
    largest group it has (the memory check then says whether the experts fit)."""
    if sparsity <= 1:
        return [1]
    wide = [x for x in POWERS if 2 * x > sparsity and (experts <= 0 or x <= experts)]
    if not wide:  # fewer experts than the sparsity asks for: one expert a card
        wide = [max([x for x in POWERS if x <= experts] or [1])]
    if any(x <= cards_max for x in wide):
        return wide
    return [max(x for x in POWERS if x <= max(cards_max, 1))]


def pinned(resolved: Resolved, cid: str, wid: str) -> dict[str, int]:
    """The degrees the scenario (or `tco job --layout`) pins, by degree."""
    out = {}
    for d in DEGREES:
        inp = resolved.inputs[layout_path(cid, wid, d)]
        if inp.origin == "scenario":
            out[d] = int(inp.value)
    return out


def check_tensor_pin(values: Mapping[str, float], resolved: Resolved, cid: str, wid: str,
                     pins: Mapping[str, int]) -> None:
    """A pinned tensor-parallel group must fit in the scale-up domain: the model charges its
    traffic at scale-up bandwidth (docs/methodology.md §4)."""
    p = f"candidates.{cid}"
    domain = int(min(values[f"{p}.scaleup_domain_cards"], values[f"{p}.cards_per_node"]))
    if pins.get("tp", 1) > domain:
        raise ScenarioError(
            f"tensor parallelism stays inside the scale-up domain: expected tp at most "
            f"{domain} on this card, found {pins['tp']}", file=resolved.file,
            field=layout_path(cid, wid, "tp"))
    if domain % pins.get("tp", 1):  # tp 3 of 8: a group would straddle two domains
        raise ScenarioError(
            f"tensor-parallel groups tile the scale-up domain of {domain} cards: expected tp "
            f"a divisor of {domain}, found {pins['tp']}", file=resolved.file,
            field=layout_path(cid, wid, "tp"))


def check_expert_pin(values: Mapping[str, float], resolved: Resolved, cid: str, wid: str,
                     pins: Mapping[str, int], sparsity: float) -> None:
    """Experts that can be spread: a dense model has none (ep 1), and a pinned expert group
    is no wider than the routed experts given (every card holds at least one, as the search
    keeps it). That there are enough routed experts for the parameters is checked when the
    scenario is resolved (tco.resolve.workloads.check_experts)."""
    experts, ep = values.get(f"workloads.{wid}.experts", 0.0), pins.get("ep", 1)
    if sparsity <= 1 and ep > 1:  # no experts to spread: a dense model
        msg = (f"expert parallelism spreads a mixture of experts' experts; this model is dense "
               f"(active_params = params): expected ep 1, found {ep}")
    elif sparsity > 1 and 0 < experts < ep:
        msg = (f"an expert group of {ep} cards for {experts:g} routed experts: expected ep at "
               f"most {experts:g} (every card holds at least one expert)")
    else:
        return
    raise ScenarioError(msg, file=resolved.file, field=layout_path(cid, wid, "ep"))


def unplaceable(resolved: Resolved, cid: str, wid: str, pins: Mapping[str, int],
                cards_max: float, layers: float, cards_per_node: float) -> ScenarioError:
    """Why no layout fits the pinned degrees: the first constraint they break."""
    g = {d: pins.get(d, 1) for d in DEGREES}
    if pins.get("hsdp") and 2 * g["tp"] * g["cp"] > cards_per_node:
        key, msg = "hsdp", (f"HSDP shards within a server, over its data-parallel ranks: "
                            f"expected tp × cp at most {cards_per_node // 2:g} (half the "
                            f"server's {cards_per_node:g} cards), found {g['tp'] * g['cp']}")
    elif pins.get("zero3") and pins.get("zero2"):
        key, msg = "zero2", ("ZeRO-3 shards the gradients already: expected zero2 0 with "
                             "zero3 1")
    elif pins.get("hsdp") and pins.get("zero3", 1) == 0:
        key, msg = "hsdp", ("HSDP is ZeRO-3 sharding inside a server: expected zero3 1 (or "
                            "not pinned) with hsdp 1")
    elif g["pp"] == 1 and g["vp"] > 1:
        key, msg = "vp", "virtual stages (vp > 1) need a pipeline: expected pp > 1 with vp"
    elif g["pp"] * g["vp"] > layers:
        key = "pp"
        msg = (f"pp × vp = {g['pp'] * g['vp']} stages for a model of about {layers:.0f} "
               "layers: expected at most one layer per virtual stage")
    else:
        key = next((d for d in ("tp", "pp", "cp", "ep") if d in pins), "ep")
        need = max(g["tp"] * g["pp"] * g["cp"], g["ep"] * g["tp"] * g["pp"])
        msg = (f"the pinned layout needs {need} cards per replica (tp × pp × cp, or ep × tp × "
               f"pp), more than the cluster's {cards_max:,.0f}")
    return ScenarioError(msg, file=resolved.file, field=layout_path(cid, wid, key))


def evaluate_grid(model: Model, values: Mapping[str, float], cid: str, wid: str,
                  combos: list[tuple[int, ...]], cards: Any) -> dict[str, Any]:
    """The search's targets for every combination (axis -1) and card count (leading axes)."""
    import numpy as np

    serve = f"{cid}.{wid}.tokens_per_s_per_card" in model.expressions()
    first, needs, rename = _formulas(model, cid, wid, serve)
    cid, names = first, targets(first, wid, serve)  # the first twin's formulas, cid's values
    env: dict[str, Any] = {path: values[rename(path)] for path in needs.inputs_used()}
    arr = np.asarray(combos, dtype=float)
    for i, d in enumerate(DEGREES):
        env[layout_path(cid, wid, d)] = arr[:, i]
    if arr.shape[1] > len(DEGREES) and layout_path(cid, wid, "precision") in env:
        env[layout_path(cid, wid, "precision")] = arr[:, len(DEGREES)]
    env[f"candidates.{cid}.cards"] = cards
    out = needs.evaluate(env)
    shape = np.broadcast(np.asarray(cards), arr[:, 0]).shape
    return {t.rsplit(".", 1)[1]: np.broadcast_to(np.asarray(out[t], dtype=float), shape)
            for t in names}


def best(got: Mapping[str, Any], combos: list[tuple[int, ...]], dp_ok: Any,
         idle: Any = 0.0) -> Any:
    """Index of the best combination along the last axis: the shortest step among those that
    fit (and whose expert group fits in the replicas); else the least memory. `idle`: the
    cards each combination leaves out of its whole replicas (idle_cards)."""
    import numpy as np

    ok = (got["fits_memory"] > 0) & dp_ok
    step = np.where(ok, got["step_seconds"], np.inf)
    fastest = np.min(step, axis=-1, keepdims=True)
    # the simplest of the near-fastest: fewest idle cards, then fewest pipeline, context,
    # expert and virtual stages, then the smallest tensor group, then no recomputation, then
    # ZeRO-1, ZeRO-2, ZeRO-3, HSDP (the simplicity score stays below 1e9: an idle card
    # outweighs it)
    simple = np.asarray([(c[1] * c[2] * c[3] * c[4]) * 16 + c[0] + 0.5 * c[5] + 0.75 * c[6]
                         + 0.6 * c[7] + 0.1 * c[8] for c in combos], dtype=float) \
        + 1e9 * np.asarray(idle, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(step <= fastest * NEAR_BEST, simple + step / fastest * 1e-6, np.inf)
    fallback = np.argmin(got["memory_needed_gb"], axis=-1)
    return np.where(ok.any(axis=-1), np.argmin(score, axis=-1), fallback)


def fits_cards(combos: list[tuple[int, ...]], cards: Any) -> Any:
    """A replica (tp·pp·cp) and an expert group (ep over tp·pp) need at least that many cards,
    and the expert groups tile the whole replicas' data- and context-parallel ranks."""
    import numpy as np

    arr = np.asarray(combos, dtype=float)
    n = np.asarray(cards, dtype=float)
    n = n[..., None] if n.ndim else n
    ranks = np.floor(n / (arr[:, 0] * arr[:, 1] * arr[:, 3])) * arr[:, 3]  # dp × cp
    return ((arr[:, 0] * arr[:, 1] * arr[:, 3] <= n)
            & (arr[:, 4] * arr[:, 0] * arr[:, 1] <= n) & (np.mod(ranks, arr[:, 4]) == 0))


def idle_cards(combos: list[tuple[int, ...]], cards: Any) -> Any:
    """The cards whole replicas of each combination leave idle (the model's idle_cards)."""
    import numpy as np

    arr = np.asarray(combos, dtype=float)
    n = np.asarray(cards, dtype=float)
    n = n[..., None] if n.ndim else n
    replica = arr[:, 0] * arr[:, 1] * arr[:, 3]
    return np.maximum(0.0, n - np.maximum(1.0, np.floor(n / replica)) * replica)


def choose(model: Model, resolved: Resolved, cids: list[str]) -> Resolved:
    """`resolved` with every layout degree of candidates `cids` chosen at their card count."""
    values = {path: inp.value for path, inp in resolved.inputs.items()}
    inputs = dict(resolved.inputs)
    with memo():
        for cid in cids:
            cards = values[f"candidates.{cid}.cards"]
            for wid, _prec, kind in resolved.structure.workloads:
                pick, step = _remembered(
                    model, resolved, values, cid, wid, kind, ("choose", cards),
                    lambda cid=cid, wid=wid, kind=kind, cards=cards: _choice(
                        model, values, resolved, cid, wid, kind, cards))
                for d, v in zip(DEGREES, pick):
                    path = layout_path(cid, wid, d)
                    if inputs[path].origin != "scenario":
                        inputs[path] = chosen(inputs[path], float(v), step)
                path = layout_path(cid, wid, "precision")
                if len(pick) > len(DEGREES) and pick[-1] >= 0 and path in inputs:
                    inputs[path] = chosen_precision(inputs[path], float(pick[-1]), step)
    return replace(resolved, inputs=inputs)


def _choice(model: Model, values: Mapping[str, float], resolved: Resolved, cid: str, wid: str,
            kind: str, cards: float) -> tuple[tuple[int, ...], float]:
    """The layout `choose` picks for one candidate and workload, and its step (s)."""
    if kind == "serve":
        combos = serve_grid(values, resolved, cid, wid, cards)
        got = evaluate_grid(model, values, cid, wid, combos, cards)
        pick = combos[int(best_serving(got, combos, cards))]
    else:
        combos = grid(values, resolved, cid, wid, cards)
        got = evaluate_grid(model, values, cid, wid, combos, cards)
        pick = combos[int(best(got, combos, fits_cards(combos, cards),
                               idle_cards(combos, cards)))]
    return pick, float(got["step_seconds"][combos.index(pick)])


def at_size(model: Model, resolved: Resolved, cid: str, cards: float,
            values: Mapping[str, float]) -> dict[str, Any]:
    """The layout `choose` picks for `cid` at exactly `cards` cards, each degree as a
    one-element array (sizing checks a size with it, tco.sizing._confirmed). Remembered as
    `choose`'s own choice: the size sizing keeps is not searched again."""
    import numpy as np

    out: dict[str, Any] = {}
    for wid, _prec, kind in resolved.structure.workloads:
        pick, _step = _remembered(
            model, resolved, values, cid, wid, kind, ("choose", cards),
            lambda wid=wid, kind=kind: _choice(model, values, resolved, cid, wid, kind, cards))
        for d, v in zip(DEGREES, pick):
            out[layout_path(cid, wid, d)] = np.array([float(v)])
        if len(pick) > len(DEGREES) and pick[-1] >= 0:
            out[layout_path(cid, wid, "precision")] = np.array([float(pick[-1])])
    return out


def chosen(inp: Input, value: float, step_s: float) -> Input:
    return replace(inp, value=value, low=None, high=None,
                   source=f"chosen by the layout search (step {step_s:.4g} s)")


def chosen_precision(inp: Input, code: float, step_s: float) -> Input:
    name = list(PRECISION_CODES)[int(code)]
    return replace(inp, value=code, low=None, high=None,
                   source=f"chosen by the search: {name.upper()}, the allowed precision with "
                          f"the most tokens per second per card (step {step_s:.4g} s)")


def per_size(model: Model, resolved: Resolved, cid: str, cards: Any,
             values: Mapping[str, float]) -> dict[str, Any]:
    """For an array of card counts (sizing), the best layout at each: degree -> array.
    `values` are `resolved`'s input values (made once by the caller: a scenario of many
    candidates has many inputs)."""
    import numpy as np

    out: dict[str, Any] = {}
    for wid, _prec, kind in resolved.structure.workloads:
        arr = _remembered(model, resolved, values, cid, wid, kind,
                          ("per_size", np.asarray(cards).shape, np.asarray(cards).tobytes()),
                          lambda wid=wid, kind=kind: _per_size(model, resolved, cid, wid, kind,
                                                               cards, values))
        for i, d in enumerate(DEGREES):
            out[layout_path(cid, wid, d)] = arr[:, i]
        if arr.shape[1] > len(DEGREES) and np.all(arr[:, -1] >= 0):
            out[layout_path(cid, wid, "precision")] = arr[:, -1]
    return out


def _per_size(model: Model, resolved: Resolved, cid: str, wid: str, kind: str, cards: Any,
              values: Mapping[str, float]) -> Any:
    """The best layout of one workload at each card count of `cards`: (sizes, degrees)."""
    import numpy as np

    if kind == "serve":
        combos = serve_grid(values, resolved, cid, wid, float(np.max(cards)))
        got = evaluate_grid(model, values, cid, wid, combos, np.asarray(cards)[:, None])
        pick = best_serving(got, combos, cards)
    else:
        combos = grid(values, resolved, cid, wid, float(np.max(cards)))
        got = evaluate_grid(model, values, cid, wid, combos, np.asarray(cards)[:, None])
        pick = best(got, combos, fits_cards(combos, cards), idle_cards(combos, cards))
    return np.asarray(combos, dtype=float)[pick]


# --- remembering choices ----------------------------------------------------------------------
# Many candidates of a scenario are twins (tco/twins.py: the same formulas but for their ids)
# with the same card, count and workload: their layout choice is the same computation on the
# same numbers. Within `memo()` (one sizing of a scenario: the model and the shared inputs do
# not change) a choice is made once per Shape, workload and value of every input it reads.
_memo: ContextVar[dict[Any, Any] | None] = ContextVar("tco_layout_memo", default=None)


@contextmanager
def memo() -> Iterator[None]:
    """Remember layout choices within the block (nesting keeps the outer memory)."""
    if _memo.get() is not None:
        yield
        return
    token = _memo.set({})
    try:
        yield
    finally:
        _memo.reset(token)


def _formulas(model: Model, cid: str, wid: str, serve: bool) -> tuple[str, Model, Any]:
    """(first twin, the model of its step's targets, its input names -> `cid`'s): within
    `memo()` the model is made once per Shape and workload (tco/twins.py), else it is cid's."""
    remembered = _memo.get()
    from . import twins

    sh = twins.shapes(model).get(cid)
    if remembered is None or sh is None or not twins.GROUPED:
        return cid, model.feeding(targets(cid, wid, serve)), lambda name: name
    made = remembered.get(("formulas", sh, wid))
    if made is None:
        made = remembered[("formulas", sh, wid)] = (cid, model.feeding(targets(cid, wid, serve)))
    first, needs = made
    return first, needs, twins.pair(model, first, cid).rename


def _grid_reads(cid: str, wid: str) -> list[str]:
    """The inputs grid() and serve_grid() read besides the step's formulas."""
    p, wp = f"candidates.{cid}", f"workloads.{wid}"
    return ["assumptions.hidden_per_layer_ratio", "assumptions.tensor_parallel_max",
            f"{wp}.active_params", f"{wp}.params", f"{wp}.seq_len_tokens", f"{wp}.experts",
            f"{wp}.layers", f"{wp}.hidden_size",
            f"{wp}.experts_per_token", f"{wp}.expert_nodes_per_token",
            f"{wp}.expert_comm_hidden", f"{p}.scaleup_domain_cards", f"{p}.cards_per_node",
            *(f"{p}.peak_tflops_{x}" for x in PRECISION_CODES)]


def _remembered(model: Model, resolved: Resolved, values: Mapping[str, float], cid: str,
                wid: str, kind: str, what: tuple[Any, ...], make: Any) -> Any:
    """`make()`, or what it gave for a twin of `cid` whose inputs read by the choice (the
    step's formulas', the grid's, the pinned degrees) have the same values."""
    remembered = _memo.get()
    from . import twins

    shapes = twins.shapes(model)
    if remembered is None or cid not in shapes or not twins.GROUPED:
        return make()
    sh = shapes[cid]
    reads = remembered.get((sh, wid))
    if reads is None:  # the inputs the choice reads, as the first twin names them
        serve = f"{cid}.{wid}.tokens_per_s_per_card" in model.expressions()
        chosen_here = {layout_path(cid, wid, d) for d in (*DEGREES, "precision")} | {
            f"candidates.{cid}.cards"}
        used = [n for n in model.feeding(targets(cid, wid, serve)).inputs_used()
                if n not in chosen_here]
        reads = remembered[(sh, wid)] = (cid, used + _grid_reads(cid, wid))
    first, names = reads
    rename = twins.pair(model, first, cid).rename
    pins = tuple(sorted(pinned(resolved, cid, wid).items()))
    key = (sh, wid, kind, what, pins, tuple(values.get(rename(n)) for n in names))
    if key not in remembered:
        remembered[key] = make()
    return remembered[key]
