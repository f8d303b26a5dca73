"""Methodology §4, the step of one training run on a parallel layout: model shape, FLOPs per
token, memory per card, and the time a step spends computing, in the pipeline bubble and
communicating over the scale-up domain and the scale-out network.

The layout (tensor, pipeline, virtual-stage, context and expert parallel degrees, and whether
activations are recomputed) is a discrete choice the engine makes once per scenario
(tco.layout); it enters these formulas as inputs `candidates.<id>.layout.<workload>.<degree>`.
The data-parallel degree and the micro-batch count follow from the card count and the batch,
so they stay formulas (and sizing can evaluate them over an array of card counts).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MAX, MIN, ROUNDDOWN, Expr, Ref
from .base import Builder, a, w
from .units import BYTES_PER_GB, BYTES_PER_VALUE, FLOPS_PER_TFLOPS

FFN_SHARE = 2.0 / 3.0  # of 12·h² parameters per layer, the feed-forward block's 8·h²

DEGREES = ("tp", "pp", "vp", "cp", "ep", "recompute", "zero3", "zero2", "hsdp")
DEGREE_LABELS = {
    "tp": "Tensor-parallel degree (within the scale-up domain)",
    "pp": "Pipeline-parallel stages",
    "vp": "Virtual pipeline stages per card (interleaved schedule)",
    "cp": "Context-parallel degree (sequence split)",
    "ep": "Expert-parallel degree (mixture of experts)",
    "recompute": "Activation recomputation (1 full, 0 none)",
    "zero3": "Parameters and gradients sharded over the data-parallel group (1 ZeRO-3/FSDP, "
             "0 ZeRO-1)",
    "zero2": "Gradients sharded over the data-parallel group (1 ZeRO-2, 0 ZeRO-1)",
    "hsdp": "ZeRO-3 sharding within a server, replicated across servers (1 HSDP, 0 over the "
            "whole data-parallel group)",
}
# ZeRO-3 moves 3 x the parameters' bytes per micro-batch (all-gather forward, all-gather
# backward, reduce-scatter) where ZeRO-1 moves 2 x per step: 1.5 x dp_bytes_per_param
# (Rajbhandari et al. 2020, arXiv 1910.02054, s.7.2.2).
ZERO3_TRAFFIC_RATIO = 1.5
ZERO3_GATHERED_LAYERS = 2  # the layer computing and the one prefetched (FSDP, arXiv 2304.11277)


@dataclass(frozen=True)
class Step:
    flops_per_token: Ref
    step_s: Ref
    compute_s: Ref
    fits: Ref
    mem_need: Ref
    mem_have: Ref
    busy: Ref  # cards in whole replicas


@dataclass(frozen=True)
class Shape:
    hidden: Ref
    layers: Ref
    seqs: Ref  # sequences per global batch
    dp: Ref
    busy: Ref  # cards in whole replicas: the ones that work (the rest idle)
    micro: Ref  # micro-batches per replica per step (one sequence each)
    tokens_card: Ref  # tokens each card passes through its layers per step


def layout_ref(b: Builder, wid: str, degree: str) -> Ref:
    """The chosen (or pinned) degree: an input the engine fills in."""
    return b.c(f"layout.{wid}.{degree}")


def shape(b: Builder, wid: str, cards: Ref) -> Shape:
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    tp, pp, cp = (layout_ref(b, wid, d) for d in ("tp", "pp", "cp"))
    for d in DEGREES:
        key = {"tp": "tensor_parallel", "pp": "pipeline_parallel", "vp": "virtual_stages",
               "cp": "context_parallel", "ep": "expert_parallel",
               "recompute": "activation_recompute", "zero3": "parameter_sharding",
               "zero2": "gradient_sharding", "hsdp": "hybrid_sharding"}[d]
        jq(key, layout_ref(b, wid, d),
           {"recompute": "0/1", "zero3": "0/1", "zero2": "0/1", "hsdp": "0/1", "pp": "stages",
            "vp": "stages"}.get(d, "cards"),
           DEGREE_LABELS[d])
    given_h, given_l = w(wid, "hidden_size"), w(wid, "layers")
    hidden = jq("hidden_size", IF(given_h.gt(0), given_h, IF(
        given_l.gt(0), (w(wid, "active_params") / (12 * given_l)) ** 0.5,
        (a("hidden_per_layer_ratio") * w(wid, "active_params") / 12) ** (1.0 / 3.0))),
        "units", "Hidden size (given, or inferred from the active parameters)")
    layers = jq("layers", IF(given_l.gt(0), given_l, hidden / a("hidden_per_layer_ratio")),
                "layers", "Layers (given, or the hidden size / the width-to-depth ratio)")
    seqs = jq("batch_sequences", w(wid, "global_batch_tokens") / w(wid, "seq_len_tokens"),
              "sequences", "Sequences per global batch")
    # A job runs whole replicas: the cards left over idle (paid for, doing no work).
    dp = jq("data_parallel", MAX(1, ROUNDDOWN(cards / (tp * pp * cp))), "replicas",
            "Data-parallel replicas (whole: cards / (tensor x pipeline x context), rounded "
            "down)")
    busy = jq("cards_in_use", MIN(cards, dp * tp * pp * cp), "cards",
              "Cards in the data-parallel replicas (the ones that work)")
    jq("idle_cards", cards - busy, "cards",
       "Cards left over by whole replicas: paid for, idle")
    micro = jq("micro_batches", MAX(1, seqs / dp), "micro-batches",
               "Micro-batches per replica per step (one sequence each)")
    tokens_card = jq("tokens_per_card_step", w(wid, "global_batch_tokens") / (dp * cp * tp),
                     "tokens", "Tokens each card carries through its layers per step")
    return Shape(hidden, layers, seqs, dp, busy, micro, tokens_card)


def memory(b: Builder, wid: str, cards: Ref, sh: Shape) -> tuple[Ref, Ref, Ref]:
    """Memory needed per card (weights and gradients over tensor x pipeline (x expert), and
    with ZeRO-3 over the data-parallel group too, with ZeRO-2 the gradients only, the
    optimizer state over every card, activations of the micro-batches in flight)."""
    c = b.c
    tp, pp, cp, ep, rc, z3, z2, hs = (layout_ref(b, wid, d) for d in ("tp", "pp", "cp", "ep",
                                      "recompute", "zero3", "zero2", "hsdp"))
    dense = w(wid, "active_params")
    experts = w(wid, "params") - w(wid, "active_params")
    shard = (dense + experts / ep) / (tp * pp)
    wg = a("weight_grad_bytes_per_param")
    # ZeRO-2: the weights' half of wg whole, the gradients' half over the data-parallel ranks;
    # HSDP: everything over the ranks inside a server only (the shard group)
    ranks = IF(hs.gt(0), shard_group(b, wid, sh), sh.dp * cp)
    state = (wg * shard * IF(z3.gt(0), 1 / ranks + ZERO3_GATHERED_LAYERS * pp / sh.layers,
                             IF(z2.gt(0), (1 + 1 / ranks) / 2, 1))
             + (a("state_bytes_per_param") - wg)
             * IF(hs.gt(0), shard / ranks, w(wid, "params") / sh.busy))
    per_layer = (rc * a("activation_checkpoint_bytes")
                 + (1 - rc) * a("activation_working_bytes"))
    act = (w(wid, "seq_len_tokens") / cp * sh.hidden / tp
           * (sh.layers / pp * MIN(pp, sh.micro) * per_layer
              + rc * a("activation_working_bytes")))
    need = b.jq(wid, "memory_needed_gb", (state + act) / BYTES_PER_GB, "GB",
                "Memory needed per card (state + activations on the layout)")
    have = b.jq(wid, "memory_usable_gb", c("memory_gb") * a("usable_memory_fraction"), "GB",
                "Usable memory per card")
    fits = b.jq(wid, "fits_memory", need.le(have), "flag", "Job fits in memory")
    return need, have, fits


def shard_group(b: Builder, wid: str, sh: Shape) -> Expr:
    """The data-parallel (and context-parallel) ranks inside one server: HSDP's shard group,
    and the first level of the hierarchical data-parallel collectives."""
    tp, cp = layout_ref(b, wid, "tp"), layout_ref(b, wid, "cp")
    return MIN(sh.dp * cp, MAX(1, b.c("cards_per_node") / (tp * cp)))


def bandwidths(b: Builder) -> tuple[Ref, Ref]:
    """Measured one-way bandwidths per card in bytes/s: scale-up and scale-out."""
    c, q = b.c, b.q
    up = q("scaleup_bytes_per_s", c("scaleup_bandwidth_bidir_gb_per_s") / 2 * BYTES_PER_GB
           * a("scaleup_bandwidth_efficiency"), "B/s",
           "Measured scale-up bandwidth per card, one way", "cluster")
    out = q("scaleout_bytes_per_s", c("scaleout_bandwidth_gb_per_s") * BYTES_PER_GB
            * a("scaleout_bandwidth_efficiency") / a("network_oversubscription"), "B/s",
            "Measured scale-out bandwidth per card, one way, after oversubscription",
            "cluster")
    return up, out


def server_cards(b: Builder) -> Expr:
    """The cards one scale-up link joins: the scale-up domain, at most a server."""
    return MIN(b.c("scaleup_domain_cards"), b.c("cards_per_node"))


def within_domain(b: Builder, span: Expr, up: Ref, out: Ref) -> Expr:
    """The bandwidth of a group of `span` consecutive cards: scale-up inside the domain."""
    return IF(span.le(server_cards(b)), up, out)


def attention_widths(b: Builder, wid: str, sh: Shape) -> tuple[Ref, Ref]:
    """The widths of attention's query-key and value products: heads x head width (as wide
    as the hidden size unless the workload gives its heads; multi-head latent attention's
    query-key heads are wider than its value heads, qk_head_dim)."""
    heads = w(wid, "attention_heads")
    head = IF(w(wid, "head_dim").gt(0), w(wid, "head_dim"), sh.hidden / MAX(heads, 1))
    v = b.jq(wid, "attention_v_width", IF(heads.gt(0), heads * head, sh.hidden), "units",
             "Attention value width (heads x head width; the hidden size by default)")
    qk = b.jq(wid, "attention_qk_width", IF(heads.gt(0), heads * IF(
        w(wid, "qk_head_dim").gt(0), w(wid, "qk_head_dim"), head), sh.hidden), "units",
        "Attention query-key width (heads x query-key head width)")
    return qk, v


def flops_per_token(b: Builder, wid: str, sh: Shape) -> Ref:
    qk, v = attention_widths(b, wid, sh)
    attn = b.jq(wid, "attention_flops_per_token",
                a("attention_flops_coefficient") / 2 * sh.layers * (qk + v)
                * w(wid, "seq_len_tokens"), "FLOP/token",
                "Attention FLOPs per token (12·L·h·s, PaLM App. B, at the attention's own "
                "widths: 6·L·s·(query-key + value width))")
    return b.jq(wid, "flops_per_token", a("flops_per_param_token") * w(wid, "active_params")
                + attn, "FLOP/token", "Model FLOPs per token (6·N + attention)")


def compute_time(b: Builder, wid: str, precision: str, cards: Ref, sh: Shape,
                 f_tok: Ref, team: Expr) -> tuple[Ref, Ref]:
    c = b.c
    rc = layout_ref(b, wid, "recompute")
    # FP4 (NVFP4) training runs the parameter GEMMs faster than FP8 by fp4_gemm_speedup and
    # the rest (attention, the FP8/BF16 parts of the recipe) as FP8: its sustained rate is
    # FP8's, and the GEMM share of the compute takes 1 / speedup of the time
    base = "fp8" if precision == "fp4" else precision
    mfu = c("mfu_fp8") if base == "fp8" else c("mfu")
    sustained = b.jq(wid, "sustained_flops_per_card",
                     c(f"peak_tflops_{base}") * FLOPS_PER_TFLOPS * mfu
                     * a("compute_to_published_mfu_ratio") * team, "FLOP/s",
                     f"Sustained {base.upper()} compute per card while computing")
    ideal = b.jq(wid, "ideal_step_seconds",
                 f_tok * w(wid, "global_batch_tokens") / (sh.busy * sustained), "s",
                 "Step time with no recomputation, bubble or communication")
    slow = expert_gemm(b, wid, base, sustained, f_tok, sh)
    if precision == "fp4":
        gemm = a("flops_per_param_token") * w(wid, "active_params") / f_tok
        # the card needs an FP4 peak (without one the resolver marks it infeasible)
        slow = slow * (1 - gemm + gemm / a("fp4_gemm_speedup"))
    comp = b.jq(wid, "compute_seconds",
                ideal * (1 + rc / 3) * MAX(1, sh.dp / sh.seqs) * slow, "s",
                "Compute time per step (recomputation adds a forward pass; replicas without "
                "a sequence idle; expert GEMMs run slower; FP4 GEMMs faster)")
    return ideal, comp


@dataclass(frozen=True)
class Experts:
    """A mixture of experts' routing, per layer with experts (MoE; zeros for a dense model)."""

    moe_layers: Ref  # layers with experts
    routed_share: Ref  # share of the active parameters in routed experts


def experts(b: Builder, wid: str, sh: Shape) -> Experts:
    """Routed experts, the layers that have them, their share of the active parameters and
    their width (MoE; a dense model has none)."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    n, act, k = w(wid, "params"), w(wid, "active_params"), w(wid, "experts_per_token")
    moe = act.lt(n)
    given = w(wid, "experts")
    count = jq("routed_experts",
               IF(moe, IF(given.gt(0), given,
                          k * (n - (1 - FFN_SHARE) * act) / (FFN_SHARE * act)), 0),
               "experts", "Routed experts per layer: given, or inferred from the parameters "
               "(MoE)")
    layers = jq("moe_layers", IF(moe, IF(w(wid, "moe_layers").gt(0),
                                         MIN(w(wid, "moe_layers"), sh.layers), sh.layers), 0),
                "layers", "Layers with experts (given, or every layer; MoE)")
    # the inactive parameters are the routed experts a token skips: (E - k) of them per layer
    # with experts, so k of them hold k (N - N_a) / (E - k) of the active parameters (2/3 of
    # them when E is inferred, as it is from that share)
    share = jq("routed_share", IF(moe, MIN(1, k * (n - act) / (MAX(count - k, 1e-9) * act)), 0),
               "fraction", "Share of the active parameters in the routed experts a token "
               "uses (MoE)")
    jq("expert_width", IF(moe, (n - act) / (MAX(count - k, 1e-9) * MAX(layers, 1) * 3
                                           * sh.hidden), 0), "units",
       "Width of one routed expert's feed-forward block (gated: 3 matrices of hidden x width; "
       "MoE)")
    return Experts(layers, share)


def expert_gemm(b: Builder, wid: str, precision: str, sustained: Ref, f_tok: Ref,
                sh: Shape) -> Expr:
    """How much longer the step's compute takes because a mixture of experts' expert GEMMs
    have few rows (tokens per expert per micro-batch): padded to the kernel's tile, and bound
    by reading the expert's weights when the rows are too few to hide them (roofline)."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    cp, ep = layout_ref(b, wid, "cp"), layout_ref(b, wid, "ep")
    act, k = w(wid, "active_params"), w(wid, "experts_per_token")
    moe = act.lt(w(wid, "params"))
    ex = experts(b, wid, sh)
    count = Ref(f"{b.cid}.{wid}.routed_experts")
    rows = jq("tokens_per_expert", IF(moe, w(wid, "seq_len_tokens") / cp * ep * k
                                      / MAX(count, 1), 0), "tokens",
              "Tokens each expert's GEMMs take per micro-batch (MoE)")
    tile = a("expert_gemm_tile_rows")
    weights_bound = (BYTES_PER_VALUE[precision] * sustained
                     / (2 * MAX(rows, 1) * b.c("memory_bandwidth_gb_per_s") * BYTES_PER_GB))
    slowdown = jq("expert_gemm_slowdown",
                  IF(moe, MAX((rows + tile / 2) / MAX(rows, 1), weights_bound), 1), "ratio",
                  "Expert GEMM time over the same FLOPs at dense efficiency (MoE)")
    share = ex.routed_share * a("flops_per_param_token") * act / f_tok
    return 1 + IF(moe, share * (slowdown - 1), 0)


def comm_times(b: Builder, wid: str, sh: Shape, up: Ref, out: Ref) -> dict[str, Ref]:
    """Seconds per step each card spends moving data, by kind."""
    tp, pp, vp, cp, ep, rc, z3, z2, hs = (layout_ref(b, wid, d) for d in DEGREES)
    h, lay = sh.hidden, sh.layers / pp
    k = w(wid, "experts_per_token")
    tok_rank = sh.tokens_card  # tokens per card through its layers

    def jq(key: str, expr: Expr, label: str) -> Ref:
        return b.jq(wid, key, expr, "s", label)

    lat = latencies(b, wid, sh)
    t_tp = jq("tp_comm_seconds", tok_rank * tp * lay * 16 * h * (tp - 1) / tp
              * (1 + rc / 2) / up + lat["tp"],
              "Tensor-parallel all-gather/reduce-scatter time per step (scale-up)")
    t_cp = jq("cp_comm_seconds", tok_rank * cp * lay * 12 * a("kv_hidden_fraction") * h
              * (cp - 1) / cp / within_domain(b, tp * cp, up, out) + lat["cp"],
              "Context-parallel key/value ring time per step")
    moe_lay = Ref(f"{b.cid}.{wid}.moe_layers") / pp
    inside, across = expert_copies(b, k, ep, tp * cp * ep, w(wid, "expert_nodes_per_token"))
    t_ep = jq("ep_comm_seconds", tok_rank * moe_lay * h * 2 * 4 * (inside / up + across / out)
              + lat["ep"],
              "Expert-parallel all-to-all time per step (dispatch and combine, both passes, "
              "in the layers with experts; across servers once per server a token is routed "
              "to, at most the servers node-limited routing allows)")
    t_pp = jq("pp_comm_seconds", IF(pp.gt(1), 2 * 2 * h * tok_rank * vp, 0) / out + lat["pp"],
              "Pipeline point-to-point time per step (activations and their gradients)")
    shard = (w(wid, "active_params") + (w(wid, "params") - w(wid, "active_params")) / ep) / (
        tp * pp)
    group = sh.dp * cp
    inside = shard_group(b, wid, sh)
    # ZeRO-2 reduce-scatters every micro-batch's gradients (it keeps no whole gradient to
    # accumulate into) and all-gathers the parameters once: (m + 1) / 2 of ZeRO-1's bytes
    moves = IF(z3.gt(0), ZERO3_TRAFFIC_RATIO * sh.micro, IF(z2.gt(0), (sh.micro + 1) / 2, 1))
    # HSDP: ZeRO-3's gathers and reduce-scatters stay inside the server; across servers each
    # micro-batch's gradient shard is all-reduced (ZeRO-1's bytes and buckets per micro-batch)
    t_dp = jq("dp_comm_seconds", IF(
        hs.gt(0),
        a("dp_bytes_per_param") * shard * sh.micro
        * (ZERO3_TRAFFIC_RATIO * (inside - 1) / inside / up + MAX(0, 1 / inside - 1 / group)
           / out)
        + 3 * lay * sh.micro * dp_ring(inside, inside)
        + sh.micro * dp_latency(b, wid, shard / inside, group / inside, 1),
        a("dp_bytes_per_param") * shard * moves
        * ((inside - 1) / inside / up + MAX(0, 1 / inside - 1 / group) / out)
        + IF(z3.gt(0), 3 * lay * sh.micro * dp_ring(group, inside),
             dp_latency(b, wid, shard, group, inside) * IF(z2.gt(0), (sh.micro + 1) / 2, 1))),
              "Data-parallel reduce-scatter + all-gather time per step (scale-up inside a "
              "server, then the network; with ZeRO-3 every micro-batch, with ZeRO-2 the "
              "gradients every micro-batch; with HSDP ZeRO-3 inside the server and an "
              "all-reduce across servers every micro-batch)")
    return {"tp": t_tp, "cp": t_cp, "ep": t_ep, "pp": t_pp, "dp": t_dp}


def expert_copies(b: Builder, k: Expr, ep: Expr, span: Expr, limit: Expr
                  ) -> tuple[Expr, Expr]:
    """The copies of a token (of the k it is routed to) each card sends per layer with experts
    over the scale-up link and over the network, its expert group of `ep` ranks spanning `span`
    consecutive cards (t x c x e) and so S = MIN(e, MAX(1, span / server)) servers (a server:
    the scale-up domain, at most the node), r = e / S of its ranks in each. A token goes once
    to each other server that holds one of its experts, to the rank of its own index there,
    which forwards it over the scale-up link to the experts on the server's other ranks (the
    dispatch of DeepEP and Megatron-Core's flex dispatcher, and DeepSeek-V3's, arXiv
    2412.19437 s.3.2.2): with its k experts drawn independently and evenly over the e ranks,
    S (1 - (1 - 1/S)^k) servers reached, each other than its own (a share (S - 1) / S of
    them) a send over the network: (S - 1)(1 - (1 - 1/S)^k) on average, and k (r - 1) / r
    over the scale-up link, its own server's and the forwarding. Node-limited routing
    (DeepSeek-V3, arXiv 2412.19437 s.2.1.2: a token's experts on at most M servers) caps the
    servers reached at M (`limit`; 0: no limit) (docs/methodology.md s.4)."""
    servers = MIN(ep, MAX(1, span / server_cards(b)))
    ranks = ep / servers  # the expert group's ranks in one server
    inside = k * (ranks - 1) / ranks
    reached = servers * (1 - (1 - 1 / servers) ** k)
    across = (servers - 1) / servers * IF(limit.gt(0), MIN(limit, reached), reached)
    return inside, across


def hop_latency(b: Builder, span: Expr) -> Expr:
    """One step of a collective between neighbours of a group of `span` consecutive cards:
    over the scale-up link inside the domain, else over the network."""
    inside = span.le(server_cards(b))
    return IF(inside, a("scaleup_hop_latency_s"), a("scaleout_hop_latency_s"))


def latencies(b: Builder, wid: str, sh: Shape) -> dict[str, Expr]:
    """The latency part (α) of the tensor, context, expert and pipeline collectives per step:
    how many each card runs per step times the time each takes before any byte has arrived
    (a ring of n ranks takes n − 1 steps; NCCL's cost model, methodology §4)."""
    tp, pp, vp, cp, ep, rc, _, _, _ = (layout_ref(b, wid, d) for d in DEGREES)
    base = a("collective_base_latency_s")
    per_mb = sh.layers / pp * sh.micro  # layer passes per card per step
    ring_tp = base + (tp - 1) * a("scaleup_hop_latency_s")
    return {
        # 4 all-gathers + 4 reduce-scatters per layer and micro-batch (more with recompute)
        "tp": IF(tp.gt(1), 8 * per_mb * (1 + rc / 2) * ring_tp, 0),
        # c − 1 ring steps forward and again backward, per layer and micro-batch
        "cp": 2 * (cp - 1) * per_mb * (base + hop_latency(b, tp * cp)),
        # 4 all-to-alls per layer with experts and micro-batch
        "ep": IF(ep.gt(1), 4 * Ref(f"{b.cid}.{wid}.moe_layers") / pp * sh.micro
                 * (base + hop_latency(b, tp * cp * ep)), 0),
        # a send forward and one backward per micro-batch and virtual stage
        "pp": IF(pp.gt(1), 2 * vp * sh.micro * (base + a("scaleout_hop_latency_s")), 0),
    }


def dp_latency(b: Builder, wid: str, shard: Expr, group: Expr, inside: Expr) -> Expr:
    """The latency part of the data-parallel reduce-scatter and all-gather per step: the shard
    goes in buckets of MAX(40M, 1M × D) parameters (Megatron-LM's default), each bucket a
    reduce-scatter and an all-gather over a ring of D ranks, D − D/k steps over the scale-up
    link and D/k − 1 over the network (k ranks per server)."""
    buckets = MAX(1, shard / MAX(a("dp_bucket_min_params"),
                                 a("dp_bucket_params_per_replica") * group))
    return 2 * buckets * dp_ring(group, inside)


def dp_ring(group: Expr, inside: Expr) -> Expr:
    """The latency of one collective over the data-parallel ring of `group` ranks, `inside`
    of them per server (none for a single replica)."""
    ring = (a("collective_base_latency_s") + (group - group / inside)
            * a("scaleup_hop_latency_s") + (group / inside - 1) * a("scaleout_hop_latency_s"))
    return IF(group.gt(1), ring, 0)


def step_time(b: Builder, wid: str, precision: str, cards: Ref, links: tuple[Ref, Ref],
              team: Expr) -> Step:
    sh = shape(b, wid, cards)
    f_tok = flops_per_token(b, wid, sh)
    need, have, fits = memory(b, wid, cards, sh)
    up, out = links
    ideal, comp = compute_time(b, wid, precision, cards, sh, f_tok, team)
    t = comm_times(b, wid, sh, up, out)
    pp, vp = layout_ref(b, wid, "pp"), layout_ref(b, wid, "vp")
    bubble = b.jq(wid, "bubble_seconds", comp * (pp - 1) / (vp * sh.micro), "s",
                  "Pipeline bubble per step ((p − 1) / (v·m) of compute)")
    exposed = b.jq(
        wid, "exposed_comm_seconds",
        (1 - a("comm_overlap_fraction")) * (t["tp"] + t["cp"]
                                            + IF(w(wid, "expert_comm_hidden").gt(0), 0, t["ep"]))
        + MAX(0, t["pp"] - a("dp_overlap_fraction") * comp)
        + MAX(0, t["dp"] - a("dp_overlap_fraction") * comp
              / IF((layout_ref(b, wid, "zero3") + layout_ref(b, wid, "zero2")).gt(0), 1,
                   sh.micro) - bubble), "s",
        "Communication not hidden behind compute, per step")
    tp, ep = layout_ref(b, wid, "tp"), layout_ref(b, wid, "ep")
    # the card's tensor x pipeline (x expert) shard of the parameters: the casts, norms and
    # buffer passes run over it whether the data-parallel ranks shard its storage or not
    held = b.jq(wid, "params_held_per_card",
                (w(wid, "active_params") + (w(wid, "params") - w(wid, "active_params")) / ep)
                / (tp * pp), "parameters",
                "Parameters of the card's tensor x pipeline (x expert) shard")
    # a mixture of experts moves each routed copy of a token through memory-bound kernels,
    # forward and backward: over its hidden values (permutation, dispatch and combine
    # buffers, casts) and over the expert's intermediate values (the gated activation and
    # its casts), so per value of either
    routed = sh.hidden + Ref(f"{b.cid}.{wid}.expert_width")
    moe_s = b.jq(wid, "moe_memory_seconds",
                 sh.tokens_card * Ref(f"{b.cid}.{wid}.moe_layers") / pp
                 * w(wid, "experts_per_token") * routed * a("moe_bytes_per_routed_value")
                 / (b.c("memory_bandwidth_gb_per_s") * BYTES_PER_GB), "s",
                 "Memory-bound work on the routed copies of the tokens per step, over their "
                 "hidden and the experts' intermediate values (MoE)")
    fixed = b.jq(wid, "step_overhead_seconds",
                 held * a("step_hbm_bytes_per_param")
                 / (b.c("memory_bandwidth_gb_per_s") * BYTES_PER_GB), "s",
                 "Per-step passes over the weights and gradients a card holds (gradient "
                 "buffers, casts, the gradient norm, the optimizer), at its memory bandwidth")
    step = b.jq(wid, "step_seconds", comp + bubble + exposed + moe_s + fixed, "s",
                "Time per training step")
    return Step(f_tok, step, ideal, fits, need, have, sh.busy)
