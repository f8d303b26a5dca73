"""Methodology §18, one serving workload (`kind: serve`) on a candidate: the model's shape and
KV cache, prefill (compute-bound) and decode (memory-bandwidth-bound until the batch makes it
compute-bound), the batch that fits and meets the latency objective, tokens per second per
card, the cards the peak needs, energy per token, and the year of serving as a `Run` so that
the plan (hours, timeline, cash flows) carries serving beside training.

The tensor-parallel degree is a discrete choice (tco.layout, like the training layout): it
enters as the input `candidates.<id>.layout.<workload>.tp`. Everything else is a formula.

Per replica (one tensor-parallel group of t cards), with B sequences decoded together, the
time of one decode step is linear in B on each side of the memory/compute ridge:

    step(B) = MAX(a_mem + b_mem·B, b_cmp·B) + a_comm + b_comm·B + b_pre·B

(weights read once per step; KV cache and compute per sequence; the prompts of the B/output
new requests each step prefilled in between). So the largest B within a time-per-token
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
    W_PER_KW,
)

SECONDS_PER_DAY = 86400.0
DAYS_PER_YEAR = HOURS_PER_YEAR / HOURS_PER_DAY
MS_PER_S = 1000.0
ACTIVATION_BYTES = 2.0  # a tensor-parallel all-reduce moves 16-bit activations
# Bytes per weight and per KV-cache element: units.BYTES_PER_VALUE (an FP8 model keeps an FP8
# KV cache, as the MLPerf submissions do).
KV_BYTES_MIN = 1.0  # an FP4 model keeps an FP8 KV cache
LOW_PRECISION = ("fp8", "int8", "fp4")  # these read the card's FP8 MFU


@dataclass(frozen=True)
class Shape:
    layers: Ref
    hidden: Ref
    kv_bytes_token: Ref
    weight_bytes: Ref


def serve_shape(b: Builder, wid: str, precision: str) -> Shape:
    """Layers, width and KV-cache bytes per token: the workload's own when given, else
    inferred from the active parameters as for training (width / depth ratio)."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    by = BYTES_PER_VALUE[precision]
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
    kv = jq("kv_cache_bytes_per_token", 2 * layers * kv_w * max(by, KV_BYTES_MIN), "B/token",
            "KV cache per token: layers × kv heads × head dim × 2 (K and V) × bytes")
    weights = jq("weight_bytes", w(wid, "params") * by, "B",
                 f"Weights at {precision.upper()} ({by:g} bytes per parameter)")
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


def rates(b: Builder, wid: str, precision: str, sh: Shape, team: Expr, up: Ref) -> Rates:
    """The terms of a decode step and of one request's prefill, per replica of tp cards."""
    c = b.c

    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    tp = jq("tensor_parallel", layout_ref(b, wid, "tp"), "cards",
            "Tensor-parallel degree (cards per replica, within the scale-up domain)")
    peak = c(f"peak_tflops_{precision}") * FLOPS_PER_TFLOPS * tp * team
    prompt, out = w(wid, "prompt_tokens"), w(wid, "output_tokens")
    n2 = 2 * w(wid, "active_params")
    f_pre = jq("prefill_flops_per_token", n2 + 2 * sh.layers * sh.hidden * prompt,
               "FLOP/token", "Prefill FLOPs per prompt token (2·N + causal attention "
               "2·L·h·prompt)")
    mfu = c("mfu_fp8") if precision in LOW_PRECISION else c("mfu")
    pre = jq("prefill_seconds", prompt * f_pre / (peak * mfu * a("prefill_mfu_ratio")), "s",
             "Prefill time of one request on a replica (compute-bound)")
    ctx = prompt + out / 2
    bw = jq("hbm_bytes_per_s", c("memory_bandwidth_gb_per_s") * BYTES_PER_GB * tp
            * a("hbm_bandwidth_efficiency") * team, "B/s",
            "Sustained memory bandwidth of a replica")
    a_mem = jq("decode_weight_read_seconds", sh.weight_bytes / bw, "s",
               "Decode: reading the weights once per step")
    b_mem = jq("decode_kv_read_seconds_per_sequence", sh.kv_bytes_token * ctx / bw, "s",
               "Decode: reading one sequence's KV cache (average context) per step")
    f_dec = jq("decode_flops_per_token", n2 + 4 * sh.layers * sh.hidden * ctx, "FLOP/token",
               "Decode FLOPs per output token (2·N + attention 4·L·h·context)")
    b_cmp = jq("decode_compute_seconds_per_sequence",
               f_dec / (peak * mfu * a("decode_mfu_ratio")), "s",
               "Decode: compute per sequence per step")
    a_comm = jq("decode_allreduce_latency_seconds",
                IF(tp.gt(1), 2 * sh.layers * a("allreduce_latency_s"), 0), "s",
                "Decode: latency of the 2·L tensor-parallel all-reduces per step")
    b_comm = jq("decode_allreduce_seconds_per_sequence",
                2 * sh.layers * sh.hidden * ACTIVATION_BYTES * 2 * (tp - 1) / tp / up, "s",
                "Decode: all-reduce traffic per sequence per step (scale-up)")
    a_step = jq("decode_step_overhead_seconds", a("decode_step_overhead_s"), "s",
                "Decode: the engine's fixed time per step (scheduling, sampling, launch)")
    return Rates(tp, pre, a_mem, b_mem, b_cmp, a_comm, b_comm, a_step)


def step_at(r: Rates, pf: Expr, batch: Expr) -> Expr:
    return (MAX(r.a_mem + r.b_mem * batch, r.b_cmp * batch) + r.a_comm + r.a_step
            + (r.b_comm + pf) * batch)


@dataclass(frozen=True)
class Serving:
    run: Run
    cards_needed: Ref
    fits: Ref
    meets: Ref
    card_s_in: Ref
    card_s_out: Ref


def batch_and_latency(b: Builder, wid: str, sh: Shape, r: Rates, objectives: tuple[str, ...]
                      ) -> tuple[Ref, Ref, Ref, Ref, Ref]:
    """The batch (memory, engine and objective limits), the step, TTFT and the flags."""
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
    pf = jq("prefill_seconds_per_sequence_step", r.prefill_s / w(wid, "output_tokens"), "s",
            "Prefill interleaved per sequence per decode step (prompt / output)")
    limit: Expr = MIN(by_memory, a("max_batch_sequences"))
    tpot_path = f"workloads.{wid}.tpot_ms"
    if tpot_path in objectives:
        tpot = Ref(tpot_path) / MS_PER_S / a("tail_latency_ratio")
        by_latency = jq("batch_latency_limit", MIN(
            (tpot - r.a_mem - r.a_comm - r.a_step) / (r.b_mem + r.b_comm + pf),
            (tpot - r.a_comm - r.a_step) / (r.b_cmp + r.b_comm + pf)), "sequences",
            "Largest batch whose time per output token meets the objective")
        limit = MIN(limit, by_latency)
    batch = jq("batch_sequences", ROUNDDOWN(MAX(0, limit)), "sequences",
               "Sequences decoded together per replica")
    step = jq("step_seconds", step_at(r, pf, MAX(batch, 1)), "s",
              "Time per output token per user (a decode step with the prompts interleaved)")
    ttft = jq("ttft_ms", (r.prefill_s + step) * MS_PER_S, "ms",
              "Time to first token (prefill plus the step under way)")
    jq("tpot_ms", step * MS_PER_S, "ms", "Time per output token")
    checks: list[Expr] = [batch.ge(1)]
    if f"workloads.{wid}.ttft_ms" in objectives:
        checks.append((ttft * a("tail_latency_ratio")).le(Ref(f"workloads.{wid}.ttft_ms")))
    meets = jq("meets_objective", AND(*checks), "flag",
               "At least one sequence per replica within the latency objective")
    return batch, step, ttft, fits, meets


def serving(b: Builder, wid: str, precision: str, cl: Cluster, up: Ref, team: Expr,
            objectives: tuple[str, ...], peak_must_fit: bool) -> Serving:
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    sh = serve_shape(b, wid, precision)
    r = rates(b, wid, precision, sh, team, up)
    batch, step, _ttft, fits, meets = batch_and_latency(b, wid, sh, r, objectives)
    tps = jq("tokens_per_s_per_card", batch / step / r.tp, "tokens/s",
             "Output tokens per second per card at the objective (prefill included)")
    jq("input_tokens_per_s_per_card", tps * w(wid, "prompt_tokens") / w(wid, "output_tokens"),
       "tokens/s", "Prompt tokens per second per card at the same time")
    s_in = jq("card_seconds_per_input_token", r.tp * r.prefill_s / w(wid, "prompt_tokens"),
              "card-s", "Card-seconds per prompt token (prefill)")
    pf = r.prefill_s / w(wid, "output_tokens")
    s_out = jq("card_seconds_per_output_token", r.tp * (step / MAX(batch, 1) - pf), "card-s",
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
