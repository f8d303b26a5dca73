"""Methodology §4, one training run of a workload: compute, the step on its parallel layout
(tco.model.step), throughput, wall time and energy."""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import AND, Expr, Ref
from .base import Builder, w
from .cluster import Cluster
from .step import step_time
from .units import FLOPS_PER_TFLOPS, HOURS_PER_DAY, SECONDS_PER_HOUR, W_PER_KW


@dataclass(frozen=True)
class Run:
    flops: Ref
    wall_h: Ref
    wall_d: Ref
    gpu_h: Ref
    e_fac: Ref
    feasible: Ref
    tokens: Expr  # tokens per run (trained, or served in a year of serving)
    per_year: Expr  # runs per year (a year of serving is one)
    serving: bool = False


def software_factor(b: Builder, stack: str) -> Ref:
    """The share of the catalog's (vendor-tuned) MFU this team reaches on the stack: the
    stack's first-months factor, closed by the team's familiarity."""
    return b.q("team_software_factor",
               1 - (1 - b.c("stack_efficiency")) * (1 - Ref(f"team.familiarity.{stack}")),
               "fraction", "Share of the vendor-tuned MFU the team reaches on this stack",
               "cluster")


def training_run(b: Builder, wid: str, precision: str, cl: Cluster, links: tuple[Ref, Ref],
                 team: Ref) -> Run:
    c, cards = b.c, cl.cards

    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    st = step_time(b, wid, precision, cards, links, team)
    flops = jq("train_flops", st.flops_per_token * w(wid, "tokens"), "FLOP",
               "Training compute ((6·N + attention) · D)")
    scaling = jq("scaling_efficiency", st.compute_s / st.step_s, "fraction",
                 "Scaling efficiency (ideal compute time / step time)")
    eff = jq("effective_flops_per_card", Ref(f"{b.cid}.{wid}.sustained_flops_per_card")
             * scaling, "FLOP/s", "Effective compute per card")
    jq("tokens_per_second", w(wid, "global_batch_tokens") / st.step_s, "tokens/s",
       "Training throughput of the cluster")
    wall_h = jq("wall_hours", flops / (st.busy * eff * SECONDS_PER_HOUR) / cl.goodput, "h",
                "Wall-clock time per run (the cards in whole replicas work)")
    wall_d = jq("wall_days", wall_h / HOURS_PER_DAY, "days", "Wall-clock days per run")
    gpu_h = jq("gpu_hours", cards * wall_h, "card-h", "Accelerator-hours per run")
    jq("mfu_effective", flops / (gpu_h * SECONDS_PER_HOUR * c(f"peak_tflops_{precision}")
                                 * FLOPS_PER_TFLOPS), "fraction",
       "Effective utilization of peak over the run (incl. lost time)")
    e_it = jq("energy_it_kwh", cl.train_w * wall_h / W_PER_KW, "kWh", "IT energy per run")
    site = b.site()
    e_fac = jq("energy_facility_kwh", e_it * site.pue, "kWh",
               "Facility energy per run (IT x PUE)")
    jq("co2e_kg", e_fac * site.carbon, "kg CO2e", "Emissions per run")
    jq("mixture_of_experts", w(wid, "active_params").lt(w(wid, "params")), "flag",
       "Mixture of experts (fewer active than total parameters): results optimistic, "
       "methodology §16")
    feasible = jq("feasible", AND(st.fits, cl.goodput.gt(0)), "flag",
                  "Feasible: fits in memory and makes progress")
    return Run(flops, wall_h, wall_d, gpu_h, e_fac, feasible, w(wid, "tokens"),
               w(wid, "runs_per_year"))
