"""Methodology §18, one serving workload (`kind: serve`) on a candidate: the model's shape and
KV cache, prefill (compute-bound) and decode, the batch that fits and meets the latency
objective, tokens per second per card, the cards the peak needs, energy per token, and the
year of serving as a `Run` so that the plan (hours, timeline, cash flows) carries serving beside
training.

Two discrete choices are made by search (tco.layout), like the training layout: the
tensor-parallel degree (`candidates.<id>.layout.<workload>.tp`) and, when the workload allows
several precisions, the precision (`...layout.<workload>.precision`, a code of PRECISION_CODES).
Everything else is a formula.

Per replica (one tensor-parallel group of t cards), with B sequences decoded together, the
time of one decode step is a fixed part plus a part per sequence:

    step(B) = a_w + a_comm + a_step + (b_kv + b_cmp + b_comm + pf)·B

(the weights read once per step at the engine's achievable bandwidth; the tensor-parallel
all-reduces' latency; the engine's own time per step; per sequence its KV-cache read, its
compute, its all-reduce traffic and its share of the prompts prefilled in between). The
published MLPerf logs put every vendor's decode step on such a line (methodology §18): the
weight read does not hide under the compute. So the largest B within a time-per-token
objective is a closed form, and the batch is the smallest of that, the memory limit and the
engine's largest batch.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import AND, IF, MAX, MIN, ROUNDDOWN, ROUNDUP, Const, Expr, Ref
from .base import Builder, a, w
from .cluster import Cluster
from .step import layout_ref
from .training import Run
from .units import (
    BYTES_PER_GB,
    BYTES_PER_VALUE,
    FLOPS_PER_TFLOPS,
    HOURS_PER_DAY,
    HOURS_PER_YEAR,
    PRECISION_CODES,
    W_PER_KW,
)

SECONDS_PER_DAY = 86400.0
DAYS_PER_YEAR = HOURS_PER_YEAR / HOURS_PER_DAY
MS_PER_S = 1000.0
ACTIVATION_BYTES = 2.0  # a tensor-parallel all-reduce moves 16-bit activations
# Bytes per weight and per KV-cache element: units.BYTES_PER_VALUE (an FP8 model keeps an FP8
# KV cache, as the MLPerf submissions do).
KV_BYTES_MIN = 1.0  # an FP4 or INT8 model keeps an FP8 KV cache
LOW_PRECISION = ("fp8", "int8", "fp4")  # these read the card's FP8 MFU
TAIL_PERCENTILE = 90.0  # an objective at or above this percentile is a tail objective (p99)
NO_LIMIT = 1e12  # sequences: no latency objective limits the batch


def precision_name(code: float) -> str:
    return list(BYTES_PER_VALUE)[round(code)]


@dataclass(frozen=True)
class Prec:
    """The serving precision as expressions: fixed (one allowed) or chosen (several)."""

    bytes: Expr  # per weight
    kv_bytes: Expr  # per KV-cache value
    peak: Expr  # the card's peak at it, TFLOPS
    mfu: Expr  # the card's vendor-tuned MFU for it
    read: Expr  # the share of the achievable bandwidth its weights are read at
    label: str


def serve_precision(b: Builder, wid: str, allowed: tuple[str, ...]) -> Prec:
    """The precision `wid` serves at on this candidate: the one allowed, or the one the search
    chooses among several (nested IFs on the code input, highest code first)."""
    c = b.c

    def figures(p: str) -> tuple[Expr, Expr, Expr, Expr, Expr]:
        by = BYTES_PER_VALUE[p]
        mfu: Expr = c("mfu_fp8") if p in LOW_PRECISION else c("mfu")
        if p == "fp4":
            mfu = mfu * a("fp4_mfu_ratio")
        return (Const(by), Const(max(by, KV_BYTES_MIN)), c(f"peak_tflops_{p}"), mfu,
                a("fp4_weight_read_ratio") if p == "fp4" else Const(1.0))

    if len(allowed) == 1:
        return Prec(*figures(allowed[0]), label=allowed[0].upper())
    code = layout_ref(b, wid, "precision")
    ordered = sorted(allowed, key=lambda p: PRECISION_CODES[p])
    parts = [figures(p) for p in ordered]
    chosen = list(parts[0])
    for p, fig in zip(ordered[1:], parts[1:]):
        above = code.gt(PRECISION_CODES[p] - 0.5)
        chosen = [IF(above, f, prev) for f, prev in zip(fig, chosen)]
    return Prec(*chosen, label="the chosen precision")


@dataclass(frozen=True)
class Shape:
    layers: Ref
    hidden: Ref
    kv_bytes_token: Ref
    weight_bytes: Ref


def serve_shape(b: Builder, wid: str, pr: Prec) -> Shape:
    """Layers, width and KV-cache bytes per token: the workload's own when given, else
    inferred from the active parameters as for training (width / depth ratio)."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    inferred_h = (a("hidden_per_layer_ratio") * w(wid, "active_params") / 12) ** (1.0 / 3.0)
    given_l = w(wid, "layers")
    layers = jq("layers", IF(given_l.gt(0), given_l, inferred_h / a("hidden_per_layer_ratio")),
                "layers", "Layers (given, or inferred from the active parameters)")
    hidden = jq("hidden_size", IF(given_l.gt(0), (w(wid, "active_params") / (12 * layers))
                                  ** 0.5, inferred_h), "units",
                "Hidden size (inferred: 12·L·h² = active parameters)")
    kv_width = w(wid, "kv_heads") * w(wid, "head_dim")
    kv_w = jq("kv_width", IF(kv_width.gt(0), kv_width, a("kv_hidden_fraction") * hidden),
              "units", "Key/value width: kv heads × head dim (grouped-query attention)")
    kv = jq("kv_cache_bytes_per_token", 2 * layers * kv_w * pr.kv_bytes, "B/token",
            "KV cache per token: layers × kv heads × head dim × 2 (K and V) × bytes (FP8 at "
            "least)")
    weights = jq("weight_bytes", w(wid, "params") * pr.bytes, "B",
                 f"Weights at {pr.label} (bytes per parameter × parameters)")
    return Shape(layers, hidden, kv, weights)


@dataclass(frozen=True)
class Rates:
    tp: Ref
    prefill_s: Ref  # replica-seconds to prefill one request
    a_mem: Ref
    b_mem: Ref
    b_cmp: Ref
    a_comm: Ref
    b_comm: Ref
    a_step: Ref  # the engine's fixed time per step


@dataclass(frozen=True)
class Spec:
    """Speculative decoding as the workload declares it (tokens accepted per step, draft
    tokens verified per step, the draft's cost per step); none: 1, 0, 0."""

    accepted: Expr
    drafted: Expr
    draft_cost: Expr


def speculation(wid: str, declared: bool) -> Spec:
    if not declared:  # fresh nodes: a candidate's formulas share none with another's
        return Spec(Const(1.0), Const(0.0), Const(0.0))
    return Spec(w(wid, "speculative_accepted_tokens"), w(wid, "speculative_draft_tokens"),
                w(wid, "speculative_draft_cost"))


def serving_team(b: Builder, stack: str) -> Ref:
    """The share of the vendor-tuned serving rate this team reaches on the card's stack: the
    team's familiarity closes the gap to a stock engine's (the stack's
    `serving_stock_efficiency`), as the training team factor does (§4)."""
    return b.q("serving_team_factor",
               1 - (1 - b.c("serving_stock_efficiency"))
               * (1 - Ref(f"team.familiarity.{stack}")),
               "fraction", "Share of the vendor-tuned serving rate the team reaches (a stock "
               "engine's when new to the stack)", "cluster")


def serving_speed(b: Builder, wid: str, allowed: tuple[str, ...], team: Ref,
                  measured: tuple[str, ...]) -> Expr:
    """The team's share of the vendor-tuned rate, or, at a precision whose rate the user
    measured (`benchmarks:`), the measured share (`measured_serving_efficiency_<precision>`),
    which replaces both the catalog's vendor-tuned figures and the team factor."""
    mine = [p for p in allowed if p in measured]
    if not mine:
        return team
    if len(allowed) == 1:
        expr: Expr = b.c(f"measured_serving_efficiency_{mine[0]}")
    else:
        code = layout_ref(b, wid, "precision")
        expr = team
        for p in mine:
            here = AND(code.gt(PRECISION_CODES[p] - 0.5), code.lt(PRECISION_CODES[p] + 0.5))
            expr = IF(here, b.c(f"measured_serving_efficiency_{p}"), expr)
    return b.jq(wid, "serving_speed_factor", expr, "fraction",
                "Share of the vendor-tuned serving rate reached: the rate you measured at this "
                "precision, else the team's")


def rates(b: Builder, wid: str, pr: Prec, sh: Shape, speed: Expr, up: Ref) -> Rates:
    """The terms of a decode step and of one request's prefill, per replica of tp cards."""
    c = b.c

    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    tp = jq("tensor_parallel", layout_ref(b, wid, "tp"), "cards",
            "Tensor-parallel degree (cards per replica, within the scale-up domain)")
    peak = pr.peak * FLOPS_PER_TFLOPS * tp * speed
    prompt, out = w(wid, "prompt_tokens"), w(wid, "output_tokens")
    n2 = 2 * w(wid, "active_params")
    f_pre = jq("prefill_flops_per_token", n2 + 2 * sh.layers * sh.hidden * prompt,
               "FLOP/token", "Prefill FLOPs per prompt token (2·N + causal attention "
               "2·L·h·prompt)")
    pre = jq("prefill_seconds", prompt * f_pre / (peak * pr.mfu * a("prefill_mfu_ratio")), "s",
             "Prefill time of one request on a replica (compute-bound)")
    ctx = prompt + out / 2
    bw = jq("hbm_bytes_per_s", c("memory_bandwidth_gb_per_s") * BYTES_PER_GB * tp
            * c("serving_bandwidth_efficiency") * speed, "B/s",
            "Sustained memory bandwidth of a replica in decode")
    a_mem = jq("decode_weight_read_seconds", sh.weight_bytes / (bw * pr.read), "s",
               "Decode: reading the weights once per step (FP4 at fp4_weight_read_ratio of "
               "the bandwidth)")
    b_mem = jq("decode_kv_read_seconds_per_sequence", sh.kv_bytes_token * ctx / bw, "s",
               "Decode: reading one sequence's KV cache (average context) per step")
    f_dec = jq("decode_flops_per_token", n2 + 4 * sh.layers * sh.hidden * ctx, "FLOP/token",
               "Decode FLOPs per output token (2·N + attention 4·L·h·context)")
    b_cmp = jq("decode_compute_seconds_per_sequence",
               f_dec / (peak * pr.mfu * a("decode_mfu_ratio")), "s",
               "Decode: compute per sequence per step")
    a_comm = jq("decode_allreduce_latency_seconds",
                IF(tp.gt(1), 2 * sh.layers * (c("serving_allreduce_latency_s")
                                              + 2 * (tp - 1) * a("allreduce_hop_latency_s")),
                   0), "s",
                "Decode: latency of the 2·L tensor-parallel all-reduces per step (start-up "
                "plus 2(t−1) hops)")
    b_comm = jq("decode_allreduce_seconds_per_sequence",
                2 * sh.layers * sh.hidden * ACTIVATION_BYTES * 2 * (tp - 1) / tp / up, "s",
                "Decode: all-reduce traffic per sequence per step (scale-up)")
    a_step = jq("decode_step_overhead_seconds", c("serving_step_overhead_s"), "s",
                "Decode: the engine's fixed time per step (scheduling, sampling, launch)")
    return Rates(tp, pre, a_mem, b_mem, b_cmp, a_comm, b_comm, a_step)


@dataclass(frozen=True)
class Line:
    """The step as a line in the batch: fixed seconds plus seconds per sequence."""

    fixed: Ref
    per_seq: Ref
    pf: Ref  # prefill per sequence per step


def step_line(b: Builder, wid: str, r: Rates, sp: Spec) -> Line:
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    pf = jq("prefill_seconds_per_sequence_step",
            r.prefill_s * sp.accepted / w(wid, "output_tokens"), "s",
            "Prefill interleaved per sequence per decode step (prompt / output, × tokens "
            "per step)")
    fixed = jq("step_fixed_seconds", (r.a_mem + r.a_comm + r.a_step) * (1 + sp.draft_cost),
               "s", "Decode step, fixed part: weights, all-reduce latency, the engine's own "
               "time (× 1 + the draft's cost when speculating)")
    per = jq("step_seconds_per_sequence",
             r.b_mem + (r.b_cmp + r.b_comm) * (1 + sp.drafted) + pf, "s",
             "Decode step, per sequence: KV read, compute and all-reduce traffic (× 1 + draft "
             "tokens verified), prefill")
    return Line(fixed, per, pf)


@dataclass(frozen=True)
class Serving:
    run: Run
    cards_needed: Ref
    fits: Ref
    meets: Ref
    card_s_in: Ref
    card_s_out: Ref


def batch_and_latency(b: Builder, wid: str, sh: Shape, r: Rates, ln: Line, sp: Spec,
                      objectives: tuple[str, ...]) -> tuple[Ref, Ref, Ref, Ref, Ref]:
    """The batch (memory, engine and objective limits), the step, TTFT and the flags. The
    objectives are read at the workload's `latency_percentile`: at a tail (p99) the model's
    mean times must be the candidate's tail ratio (TPOT) or `ttft_tail_latency_ratio` (TTFT)
    faster than the objective; at the median they are the objective."""
    c = b.c

    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    seq_bytes = sh.kv_bytes_token * (w(wid, "prompt_tokens") + w(wid, "output_tokens"))
    usable = jq("memory_usable_gb", c("memory_gb") * a("usable_memory_fraction"), "GB",
                "Usable memory per card")
    jq("memory_needed_gb", (sh.weight_bytes + seq_bytes) / r.tp / BYTES_PER_GB, "GB",
       "Memory per card for the weights and one sequence's KV cache")
    by_memory = jq("batch_memory_limit",
                   (usable * BYTES_PER_GB * r.tp - sh.weight_bytes) / seq_bytes,
                   "sequences", "Sequences whose KV cache fits beside the weights")
    fits = jq("fits_memory", by_memory.ge(1), "flag",
              "The weights and one sequence fit in the replica's memory")
    tail = w(wid, "latency_percentile").ge(TAIL_PERCENTILE)
    ratio = jq("tpot_objective_ratio", IF(tail, c("serving_tail_latency_ratio"), 1), "ratio",
               "The objective's time per token over the mean the engine runs at (its tail "
               "ratio for a p99 objective, 1 for a median)")
    tpot_obj = w(wid, "tpot_ms")
    mean_target = jq("tpot_mean_target_ms", tpot_obj / ratio, "ms",
                     "Mean time per output token the objective allows (0: no objective)")
    by_latency = jq("batch_latency_limit", IF(
        tpot_obj.gt(0), (mean_target / MS_PER_S * sp.accepted - ln.fixed) / ln.per_seq,
        NO_LIMIT), "sequences",
        "Largest batch whose mean time per output token meets the objective (none: no limit)")
    batch = jq("batch_sequences", ROUNDDOWN(MAX(0, MIN(by_memory, a("max_batch_sequences"),
                                                       by_latency))), "sequences",
               "Sequences decoded together per replica")
    step = jq("step_seconds", ln.fixed + ln.per_seq * MAX(batch, 1), "s",
              "Time of a decode step (the prompts interleaved)")
    tpot = jq("tpot_ms", step / sp.accepted * MS_PER_S, "ms",
              "Time per output token, mean (a step over the tokens it gives each sequence)")
    ttft = jq("ttft_ms", (r.prefill_s + step) * MS_PER_S, "ms",
              "Time to first token, mean (prefill plus the step under way)")
    jq("tpot_p99_ms", tpot * c("serving_tail_latency_ratio"), "ms",
       "Time per output token at the 99th percentile (mean × the engine's tail ratio)")
    jq("tokens_per_s_per_user", MS_PER_S / tpot, "tokens/s",
       "Output tokens per second per user (1000 / mean time per token)")
    checks: list[Expr] = [batch.ge(1)]
    if f"workloads.{wid}.ttft_ms" in objectives:
        ttft_ratio = IF(tail, a("ttft_tail_latency_ratio"), 1)
        checks.append((ttft * ttft_ratio).le(Ref(f"workloads.{wid}.ttft_ms")))
    meets = jq("meets_objective", AND(*checks), "flag",
               "At least one sequence per replica within the latency objective")
    return batch, step, ttft, fits, meets


def serving(b: Builder, wid: str, allowed: tuple[str, ...], cl: Cluster, up: Ref, team: Ref,
            objectives: tuple[str, ...], peak_must_fit: bool, speculative: bool = False,
            measured: tuple[str, ...] = ()) -> Serving:
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    pr = serve_precision(b, wid, allowed)
    jq("serving_precision", layout_ref(b, wid, "precision") if len(allowed) > 1
       else Const(PRECISION_CODES[allowed[0]]), "code",
       "Serving precision (3 BF16, 4 FP16, 5 FP8, 6 INT8, 7 FP4; chosen by search when the "
       "workload allows several)")
    speed = serving_speed(b, wid, allowed, team, measured)
    sh = serve_shape(b, wid, pr)
    r = rates(b, wid, pr, sh, speed, up)
    sp = speculation(wid, speculative)
    ln = step_line(b, wid, r, sp)
    batch, step, _ttft, fits, meets = batch_and_latency(b, wid, sh, r, ln, sp, objectives)
    tokens = batch * sp.accepted  # output tokens per step of the replica
    tps = jq("tokens_per_s_per_card", tokens / step / r.tp, "tokens/s",
             "Output tokens per second per card at the objective (prefill included)")
    jq("input_tokens_per_s_per_card", tps * w(wid, "prompt_tokens") / w(wid, "output_tokens"),
       "tokens/s", "Prompt tokens per second per card at the same time")
    s_in = jq("card_seconds_per_input_token", r.tp * r.prefill_s / w(wid, "prompt_tokens"),
              "card-s", "Card-seconds per prompt token (prefill)")
    pf = r.prefill_s / w(wid, "output_tokens")
    s_out = jq("card_seconds_per_output_token",
               r.tp * (step / MAX(tokens, 1) - pf), "card-s",
               "Card-seconds per output token (decode)")
    in_day, out_day = w(wid, "input_tokens_per_day"), w(wid, "output_tokens_per_day")
    avg = jq("average_cards_busy", (in_day * s_in + out_day * s_out) / SECONDS_PER_DAY,
             "cards", "Cards busy serving, on average over the day")
    need = jq("cards_needed", ROUNDUP(avg * w(wid, "peak_to_average") / r.tp) * r.tp, "cards",
              "Cards the peak needs (whole replicas)")
    per_card_w = jq("serving_power_per_card_w", cl.train_w / cl.cards, "W",
                    "IT power per card while serving (servers included)")
    j_card_s = per_card_w * b.site().pue
    jq("energy_per_input_token_j", j_card_s * s_in, "J", "Facility energy per prompt token")
    jq("energy_per_output_token_j", j_card_s * s_out, "J", "Facility energy per output token")
    checks: list[Expr] = [fits, meets]
    if peak_must_fit:
        checks.append(need.le(cl.cards))
        jq("serves_peak", need.le(cl.cards), "flag", "The cluster has the cards the peak needs")
    feasible = jq("feasible", AND(*checks), "flag",
                  "Feasible: fits in memory, meets the objective" + (
                      " and the cluster serves the peak" if peak_must_fit else ""))
    return Serving(_year_run(b, wid, cl, avg, s_in, s_out, sh, feasible), need, fits, meets,
                   s_in, s_out)


def _year_run(b: Builder, wid: str, cl: Cluster, avg: Ref, s_in: Ref, s_out: Ref, sh: Shape,
              feasible: Ref) -> Run:
    """A year of serving as the plan counts work: one 'run' a year whose accelerator-hours
    are the cards busy on average, and whose cluster-hours are those over the cluster's
    cards (serving takes that share of the cluster; training gets the rest)."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    in_day, out_day = w(wid, "input_tokens_per_day"), w(wid, "output_tokens_per_day")
    gpu_h = jq("gpu_hours", avg * HOURS_PER_YEAR, "card-h", "Accelerator-hours per year of "
               "serving")
    wall_h = jq("wall_hours", gpu_h / cl.cards, "h",
                "Cluster-hours per year of serving (its share of the cluster)")
    wall_d = jq("wall_days", wall_h / HOURS_PER_DAY, "days", "Cluster-days per year of serving")
    n2 = 2 * w(wid, "active_params")
    flops = jq("serve_flops", (in_day + out_day) * n2 * DAYS_PER_YEAR, "FLOP",
               "Model FLOPs per year of serving (2·N per token)")
    e_it = jq("energy_it_kwh", cl.train_w / cl.cards * gpu_h / W_PER_KW, "kWh",
              "IT energy per year of serving")
    site = b.site()
    e_fac = jq("energy_facility_kwh", e_it * site.pue, "kWh",
               "Facility energy per year of serving")
    jq("co2e_kg", e_fac * site.carbon, "kg CO2e",
       "Emissions per year of serving")
    tokens = jq("tokens_per_year", (in_day + out_day) * DAYS_PER_YEAR, "tokens",
                "Tokens served per year (prompt and output)")
    del s_in, s_out, sh
    return Run(flops, wall_h, wall_d, gpu_h, e_fac, feasible, tokens, Const(1.0), serving=True)


def token_costs(b: Builder, wid: str, sv: Serving, cost_per_year: Ref, money: str) -> None:
    """The year's cost split between prompt and output tokens by the card-seconds each takes."""
    in_day, out_day = w(wid, "input_tokens_per_day"), w(wid, "output_tokens_per_day")
    work_in = in_day * sv.card_s_in
    share = b.jq(wid, "input_cost_share", IF((work_in + out_day * sv.card_s_out).gt(0),
                                             work_in / (work_in + out_day * sv.card_s_out), 0),
                 "fraction", "Share of the serving cost spent on prompts (prefill)")
    per_m = 1e6 / DAYS_PER_YEAR
    b.jq(wid, "cost_per_million_input_tokens",
         IF(in_day.gt(0), cost_per_year * share / in_day * per_m, 0), money,
         "Cost per million prompt (input) tokens")
    b.jq(wid, "cost_per_million_output_tokens", cost_per_year * (1 - share) / out_day * per_m,
         money, "Cost per million output tokens")
    dedicated_fleet(b, wid, sv, share, money)


def dedicated_fleet(b: Builder, wid: str, sv: Serving, share: Ref, money: str) -> None:
    """The same serving on a fleet of its own sized for the peak (`cards_needed` cards all
    year, idle off-peak): the lines that follow the cards (hardware, facility, operations,
    rent) scale from the cards busy on average to the cards the peak needs; the electricity
    follows the tokens served (an idle card's draw is not counted) and porting stays one
    effort."""
    def line(key: str) -> Ref:
        return Ref(f"{b.cid}.{wid}.cost_{key}")

    avg = Ref(f"{b.cid}.{wid}.average_cards_busy")
    idle = b.jq(wid, "peak_fleet_factor", IF(avg.gt(0), sv.cards_needed / avg, 1), "ratio",
                "Cards the peak needs over the cards busy on average (a dedicated fleet)")
    year = b.jq(wid, "dedicated_fleet_cost_per_year",
                (line("hardware") + line("facility") + line("operations") + line("rental"))
                * idle + line("electricity") + line("porting"), money,
                "Cost of a year of serving on its own fleet sized for the peak")
    b.jq(wid, "dedicated_cost_per_million_output_tokens",
         year * (1 - share) / w(wid, "output_tokens_per_day") * (1e6 / DAYS_PER_YEAR), money,
         "Cost per million output tokens on a dedicated fleet sized for the peak")
