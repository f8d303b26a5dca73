"""The workloads: each training run's size and shape, each serving workload's traffic, request
shape and latency objective, with the defaults read from other inputs (recorded, see
tco.resolve.state)."""

from __future__ import annotations

import math

from ..inputs import (
    EQUAL_TO,
    SERVE_ASSUMPTIONS,
    SERVE_INPUTS,
    WORKLOAD_INPUTS,
    WORKLOAD_ZERO_DEFAULTS,
    Input,
)
from ..scenario import Workload
from .state import Resolution

# The workload inputs a serving workload shares with training ones.
SERVE_SHARED = ("params", "active_params")


def workloads(r: Resolution) -> list[tuple[str, str, str]]:
    """Each workload's inputs; (id, precision, kind) of each, in the plan's order."""
    out = []
    for w in r.sc.workloads:
        base = ["workloads", w.id]
        for key, spec in WORKLOAD_INPUTS.items():
            if w.kind == "serve" and key not in SERVE_SHARED:
                continue
            given = getattr(w, key)
            if given is not None:
                r.put(r.given(base + [key], given, spec))
                continue
            if key in WORKLOAD_ZERO_DEFAULTS:
                r.put(Input(path=".".join(base + [key]), value=0.0, spec=spec,
                            origin="default",
                            source=f"default: {WORKLOAD_ZERO_DEFAULTS[key]}"))
                continue
            # a default read from another input (recorded: see tco.resolve.state)
            source = "params" if key == "active_params" else f"assumptions.{key}"
            path = ".".join(base + [source]) if key == "active_params" else source
            inp = r.given(base + [key], r.inputs[path].value, spec)
            inp.source = ("equal to params (dense model)" if key == "active_params"
                          else source)
            inp.origin = "default"
            # it moves with the input it was taken from where an analysis varies that one
            # (tco.analysis.common.ties): a dense model's 8.4B parameters are all active
            inp.meta = {**inp.meta, EQUAL_TO: path}
            r.put(inp)
        p = ".".join(base)
        if r.inputs[f"{p}.active_params"].value > r.inputs[f"{p}.params"].value:
            raise r.error("active_params cannot exceed params", base + ["active_params"])
        if w.kind != "serve":
            check_experts(r, base)
        if w.kind == "serve":
            serve_inputs(r, w)
        out.append((w.id, w.precision, w.kind))
    if all(w.kind != "serve" and w.runs_per_year == 0 for w in r.sc.workloads):
        first = r.sc.workloads[0].id
        raise r.error(
            "every workload has runs_per_year 0: the plan has no work to cost (renting it "
            "would cost nothing); give at least one run a year",
            ["workloads", first, "runs_per_year"])
    unused = [k for k in SERVE_ASSUMPTIONS if k in r.sc.assumptions]
    if unused and not r.serve_assumed:
        raise r.error(f"'{unused[0]}' is a serving assumption and no workload serves "
                      "(kind: serve)", ["assumptions", unused[0]])
    return out


def check_experts(r: Resolution, base: list[str]) -> None:
    """Enough routed experts for a training workload's parameters: the experts a token skips
    hold the inactive parameters, E - k of them, so the k it uses hold k (N - N_a) / (E - k),
    which cannot exceed its active parameters N_a: E >= k N / N_a (fewer than k, or k, are
    fewer still). Checked here, so that `tco validate` refuses it; the inputs it reads are
    recorded (tco.resolve.state), so a what-if of one resolves again and is checked too."""
    p = ".".join(base)
    sparsity = r.inputs[f"{p}.params"].value / r.inputs[f"{p}.active_params"].value
    if sparsity <= 1:  # a dense model: no experts (tco.scenario refuses them given)
        return
    experts = r.inputs[f"{p}.experts"].value
    if experts <= 0:  # inferred from the parameters (docs/methodology.md §4), enough
        return
    k = r.inputs[f"{p}.experts_per_token"].value
    least = k * sparsity * (1 - 1e-9)  # k N / N_a, less a rounding error's worth
    if experts < least:
        raise r.error(f"{experts:g} routed experts per layer, each token routed to {k:g} of "
                      f"them (experts_per_token): the experts a token skips hold the inactive "
                      f"parameters, so the {k:g} it uses would hold more than its active "
                      f"parameters: expected at least {math.ceil(least)} experts "
                      f"(experts_per_token x params / active_params), or fewer experts per "
                      f"token", base + ["experts"])


# The shortest time per output token an objective may state, ms (10,000 tokens/s per user:
# above any published single-stream decode speed, which is in the low thousands).
FASTEST_TPOT_MS = 0.1


def serve_inputs(r: Resolution, w: Workload) -> None:
    """A serving workload's traffic, request shape and objective (given ones only: no
    objective is an offline workload; tokens_per_s_per_user is given as tpot_ms)."""
    base = ["workloads", w.id]
    for key, spec in SERVE_INPUTS.items():
        value = getattr(w, key)
        if key == "tpot_ms" and w.tokens_per_s_per_user is not None:
            # checked in the unit it is written in (tokens/s), not as the tpot_ms it
            # becomes: the message quotes what the user wrote
            # (tpot_ms's 0 is no objective; a speed given is an objective, whose time per
            # token is at least FASTEST_TPOT_MS)
            rate, lo, hi = w.tokens_per_s_per_user, 1000 / spec.hi, 1000 / FASTEST_TPOT_MS
            if not (math.isfinite(rate) and lo <= rate <= hi):
                raise r.error(
                    f"found {rate:g}, outside the plausible range {lo:g} to {hi:g} "
                    f"tokens/s per user for the output speed objective (a time per output "
                    f"token of {FASTEST_TPOT_MS:g} to {spec.hi:g} ms)",
                    base + ["tokens_per_s_per_user"])
            inp = r.given(base + ["tokens_per_s_per_user"], 1000 / rate, spec)
            inp.path = ".".join(base + [key])
            inp.source += f" (1000 / tokens_per_s_per_user {w.tokens_per_s_per_user:g})"
            r.put(inp)
            r.objectives.append(inp.path)
        elif value is not None:
            r.put(r.given(base + [key], value, spec))
            if key in ("ttft_ms", "tpot_ms"):
                r.objectives.append(".".join(base + [key]))
        elif key == "peak_to_average":
            r.put(Input(path=".".join(base + [key]), value=1.0, spec=spec,
                        origin="default", source="default: traffic flat over the day"))
        elif key == "tpot_ms":
            r.put(Input(path=".".join(base + [key]), value=0.0, spec=spec, origin="default",
                        source="default: no objective (offline, maximum throughput)"))
        elif key == "latency_percentile":
            r.put(Input(path=".".join(base + [key]), value=99.0, spec=spec, origin="default",
                        source="default: objectives are 99th percentiles, as MLPerf and most "
                        "service levels state them"))
        elif key.startswith("speculative_") and w.speculative_accepted_tokens is not None:
            r.figure(".".join(base + [key]), r.catalog.assumption(key), spec)
        elif key in ("layers", "kv_heads", "head_dim"):
            r.put(Input(path=".".join(base + [key]), value=0.0, spec=spec,
                        origin="default", source="default: inferred from the "
                        "parameters (docs/methodology.md §18)"))
    if not r.serve_assumed:
        r.serve_assumed = True
        for key, spec in SERVE_ASSUMPTIONS.items():
            if key in r.sc.assumptions:
                r.put(r.given(["assumptions", key], r.sc.assumptions[key], spec))
            else:
                r.figure(f"assumptions.{key}", r.catalog.assumption(key), spec)
