"""Methodology §4, one training run of a workload: compute, parallel layout, memory, step
throughput, wall time and energy."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import AND, MAX, MIN, ROUNDUP, Expr, Ref
from .base import Builder, a, w
from .cluster import Cluster
from .units import BYTES_PER_GB, FLOPS_PER_TFLOPS, HOURS_PER_DAY, SECONDS_PER_HOUR, W_PER_KW


@dataclass(frozen=True)
class Run:
    flops: Ref
    wall_h: Ref
    wall_d: Ref
    gpu_h: Ref
    e_fac: Ref
    feasible: Ref


def training_run(b: Builder, wid: str, precision: str, cl: Cluster) -> Run:
    c, cards = b.c, cl.cards

    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    flops = jq("train_flops", a("flops_per_param_token") * w(wid, "active_params")
               * w(wid, "tokens"), "FLOP", "Training compute (6·N·D)")
    tp = jq("tensor_parallel",
            MIN(c("scaleup_domain_cards"), a("tensor_parallel_max"), cards,
                MAX(1, ROUNDUP(w(wid, "params") / a("params_per_tensor_rank")))),
            "cards", "Tensor-parallel group (within the scale-up domain, sized to the model)")
    hidden = jq("hidden_size", (a("hidden_per_layer_ratio") * w(wid, "active_params") / 12)
                ** (1.0 / 3.0), "units", "Inferred hidden size")
    layers = jq("layers", hidden / a("hidden_per_layer_ratio"), "layers",
                "Inferred number of layers")
    mem_need = jq(
        "memory_needed_gb",
        (a("state_bytes_per_param") * w(wid, "params") / cards
         + (a("activation_checkpoint_bytes") * layers + a("activation_working_bytes"))
         * w(wid, "seq_len_tokens") * hidden / tp) / BYTES_PER_GB,
        "GB", "Memory needed per card (sharded state + activations)")
    mem_have = jq("memory_usable_gb", c("memory_gb") * a("usable_memory_fraction"), "GB",
                  "Usable memory per card")
    fits = jq("fits_memory", mem_need.le(mem_have), "flag", "Job fits in memory")
    sustained = jq(
        "sustained_flops_per_card",
        c(f"peak_tflops_{precision}") * FLOPS_PER_TFLOPS * c("mfu") * c("stack_efficiency"),
        "FLOP/s", f"Sustained {precision.upper()} compute per card before communication")
    replica = jq(
        "replica_cards",
        MIN(cards, tp * ROUNDUP(a("state_bytes_per_param") * w(wid, "params")
                                / (tp * c("memory_gb") * BYTES_PER_GB
                                   * a("usable_memory_fraction")
                                   * a("replica_state_memory_share")))),
        "cards", "Cards holding one model replica (tensor x pipeline)")
    up_ratio = jq(
        "scaleup_comm_ratio",
        2 * (tp - 1) * sustained
        / (9 * hidden * c("scaleup_bandwidth_bidir_gb_per_s") / 2 * BYTES_PER_GB),
        "ratio", "Tensor-parallel traffic time / compute time")
    out_ratio = jq(
        "scaleout_comm_ratio",
        2 * (cards / replica - 1) * sustained
        / (3 * c("scaleout_bandwidth_gb_per_s") * BYTES_PER_GB * w(wid, "global_batch_tokens")),
        "ratio", "Data-parallel gradient traffic time / compute time")
    scaling = jq("scaling_efficiency",
                 1 / (1 + (1 - a("comm_overlap_fraction")) * (up_ratio + out_ratio)),
                 "fraction", "Scaling efficiency (exposed communication)")
    eff = jq("effective_flops_per_card", sustained * scaling, "FLOP/s",
             "Effective compute per card")
    wall_h = jq("wall_hours", flops / (cards * eff * SECONDS_PER_HOUR) / cl.goodput, "h",
                "Wall-clock time per run")
    wall_d = jq("wall_days", wall_h / HOURS_PER_DAY, "days", "Wall-clock days per run")
    gpu_h = jq("gpu_hours", cards * wall_h, "card-h", "Accelerator-hours per run")
    jq("mfu_effective", flops / (gpu_h * SECONDS_PER_HOUR * c(f"peak_tflops_{precision}")
                                 * FLOPS_PER_TFLOPS), "fraction",
       "Effective utilization of peak over the run (incl. lost time)")
    e_it = jq("energy_it_kwh", cl.train_w * wall_h / W_PER_KW, "kWh", "IT energy per run")
    e_fac = jq("energy_facility_kwh", e_it * c("pue"), "kWh",
               "Facility energy per run (IT x PUE)")
    jq("co2e_kg", e_fac * Ref("facility.carbon_kg_per_kwh"), "kg CO2e", "Emissions per run")
    feasible = jq("feasible", AND(fits, cl.goodput.gt(0)), "flag",
                  "Feasible: fits in memory and makes progress")
    return Run(flops, wall_h, wall_d, gpu_h, e_fac, feasible)
