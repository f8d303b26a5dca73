"""Methodology §4, one training run of a workload: compute, the step on its parallel layout
(tco.model.step), throughput, the time a whole run loses (interruptions, checkpoints,
restarts and the run-level losses of a production run), wall time, energy, and the interval
of its time to train (the model's own out-of-sample error)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..expr import AND, IF, MAX, MIN, Const, Expr, Ref
from .base import Builder, a, w
from .cluster import Cluster
from .step import Step, step_time
from .units import BYTES_PER_GB, FLOPS_PER_TFLOPS, HOURS_PER_DAY, SECONDS_PER_HOUR, W_PER_KW

# The families of the model's error (methodology §17, "Intervals"): each has its own
# P10 and P90 error multipliers (pricing/assumptions.yaml, model_error_p10_<family>, ...),
# from the leave-one-source-out errors of the in-sample runs of that family.
ERROR_FAMILIES = ("dense_vendor", "dense_team", "small", "moe")
# A small model on a large cluster: at most this many active parameters ...
SMALL_MODEL_PARAMS = 20e9
# ... with at most this many tokens per card per step (global batch / cards)
SMALL_TOKENS_PER_CARD = 16384


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


def exp(x: Expr) -> Expr:
    """e^x, written as a power of e (every backend has powers)."""
    return Const(math.e) ** x


def effective_time(b: Builder, wid: str, cl: Cluster, st: Step) -> Ref:
    """The share of a run's wall time spent training (Daly 2006), with the checkpoint interval
    that maximises it: checkpoints of the training state written to storage, interruptions at
    the cluster's rate, each costing the restart and the work since the last checkpoint."""
    def jq(key: str, expr: Expr, unit: str, label: str) -> Ref:
        return b.jq(wid, key, expr, unit, label)

    size = jq("checkpoint_gb", w(wid, "params") * a("checkpoint_bytes_per_param") / BYTES_PER_GB,
              "GB", "Checkpoint size (weights and optimizer state)")
    c_s = jq("checkpoint_seconds", size / (st.busy * a("checkpoint_write_gb_per_s_per_card")),
             "s", "Training time each checkpoint takes (written at the storage's bandwidth)")
    lam = cl.failures
    c_h, r_h = c_s / SECONDS_PER_HOUR, cl.restart_h
    m_h = 1 / MAX(lam, 1e-12)
    x = c_h / (2 * m_h)
    # Daly's optimum (FGCS 22(3), 2006, eq. 37): sqrt(2CM)[1 + sqrt(C/2M)/3 + C/(18M)] - C
    # for C < 2M, else M; never more often than once a step; or the scenario's own interval
    daly = IF(x.lt(1), (2 * c_h * m_h) ** 0.5 * (1 + x ** 0.5 / 3 + x / 9) - c_h, m_h)
    pinned = a("checkpoint_interval_hours")
    tau = jq("checkpoint_interval_hours",
             IF(pinned.gt(0), pinned, MAX(daly, st.step_s / SECONDS_PER_HOUR)), "h",
             "Checkpoint interval (Young/Daly optimum, or the one given)")
    # Daly's expected wall time per unit of work, M e^(R/M) (e^((tau + C)/M) - 1) / tau
    ratio = IF(lam.gt(0), tau * lam / (exp(r_h * lam) * (exp((tau + c_h) * lam) - 1)),
               tau / (tau + c_h))
    return jq("effective_training_time", IF(w(wid, "steady_state").gt(0), 1, MIN(1, ratio)),
              "fraction", "Effective training time: share of wall time training, after "
              "checkpoints, interruptions and restarts (1 for a steady-state benchmark)")


def error_family(b: Builder, wid: str, st: Step) -> tuple[Ref, Ref, Ref, Ref]:
    """The family whose out-of-sample errors set this run's interval; its P10 and P90 error
    multipliers on time to train; and the multiplier itself, 1 at the point value, drawn
    between them (lognormal) by Monte Carlo."""
    moe = w(wid, "active_params").lt(w(wid, "params"))
    small = AND(w(wid, "active_params").le(SMALL_MODEL_PARAMS),
                (w(wid, "global_batch_tokens") / st.busy).le(SMALL_TOKENS_PER_CARD))
    steady = w(wid, "steady_state").gt(0)
    code = b.jq(wid, "error_family", IF(moe, 4, IF(small, 3, IF(steady, 1, 2))), "code",
                "Error family: 1 dense vendor-tuned (steady state), 2 dense whole run, "
                "3 small model on a large cluster, 4 mixture of experts")

    def pick(q: str) -> Expr:
        return IF(moe, a(f"model_error_{q}_moe"), IF(small, a(f"model_error_{q}_small"), IF(
            steady, a(f"model_error_{q}_dense_vendor"), a(f"model_error_{q}_dense_team"))))

    p10 = b.jq(wid, "time_factor_p10", pick("p10"), "ratio",
               "P10 of the model's error on this family's time to train (published / model)")
    p90 = b.jq(wid, "time_factor_p90", pick("p90"), "ratio",
               "P90 of the model's error on this family's time to train (published / model)")
    factor = b.jq(wid, "model_error_factor", IF(moe, a("model_error_moe"), IF(
        small, a("model_error_small"), IF(steady, a("model_error_dense_vendor"),
                                          a("model_error_dense_team")))), "ratio",
        "The model's error on this run's time to train: 1 at the point value; Monte Carlo "
        "draws it between the family's P10 and P90")
    return code, p10, p90, factor


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
    ett = effective_time(b, wid, cl, st)
    # a whole run's steps carry what a benchmark's do not: data loading, logging and metrics,
    # evaluations and stalls spread over the run (0 for a steady-state benchmark)
    run_step = jq("run_step_overhead_seconds", IF(w(wid, "steady_state").gt(0), 0,
                                                  a("run_step_overhead_s")), "s",
                  "Time a whole run's step takes beyond the steady-state step")
    run_share = jq("run_step_share", st.step_s / (st.step_s + run_step), "fraction",
                   "Share of a whole run's step time that the steady-state step takes")
    goodput = jq("goodput", ett * run_share, "fraction",
                 "Goodput: share of wall time doing useful training")
    _, p10, p90, factor = error_family(b, wid, st)
    wall_h = jq("wall_hours", flops / (st.busy * eff * SECONDS_PER_HOUR) / goodput * factor,
                "h", "Wall-clock time per run (the cards in whole replicas work)")
    wall_d = jq("wall_days", wall_h / HOURS_PER_DAY, "days", "Wall-clock days per run")
    gpu_h = jq("gpu_hours", cards * wall_h, "card-h", "Accelerator-hours per run")
    jq("gpu_hours_p10", gpu_h * p10, "card-h",
       "Accelerator-hours per run, P10 of the model's out-of-sample error")
    jq("gpu_hours_p90", gpu_h * p90, "card-h",
       "Accelerator-hours per run, P90 of the model's out-of-sample error")
    jq("wall_days_p10", wall_d * p10, "days",
       "Wall-clock days per run, P10 of the model's out-of-sample error")
    jq("wall_days_p90", wall_d * p90, "days",
       "Wall-clock days per run, P90 of the model's out-of-sample error")
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
    feasible = jq("feasible", AND(st.fits, goodput.gt(0)), "flag",
                  "Feasible: fits in memory and makes progress")
    return Run(flops, wall_h, wall_d, gpu_h, e_fac, feasible, w(wid, "tokens"),
               w(wid, "runs_per_year"))
