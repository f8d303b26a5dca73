"""The 80% interval of a training run's time, beside its point value, in the text outputs
(`tco job`, `tco compare`), the workbook and the HTML report: the model's own out-of-sample
error for runs of the job's family (docs/methodology.md §17, "Intervals"). Kept apart so that
each exporter adds it with one call."""

from __future__ import annotations

from typing import Any

from ..errors import printable
from ..result import CandidateResult, Result
from .fmt import number

FAMILY_NAMES = {1: "dense, vendor-tuned step rate", 2: "dense, whole run",
                3: "small model on a large cluster", 4: "mixture of experts"}
NOTE = ("80% interval: the model's own out-of-sample error for runs of the job's family "
        "(model error only; Monte Carlo adds the inputs' uncertainty)")


def family_name(job: dict[str, Any]) -> str:
    return FAMILY_NAMES.get(int(job.get("error_family", 0)), "")


def span(low: float, high: float, digits: int) -> str:
    return f"{number(low, digits)} to {number(high, digits)}"


def job_rows(d: dict[str, Any]) -> list[list[str]]:
    """The `tco job` table's rows for the intervals and the effective training time."""
    gpu, days = d.get("gpu_hours_interval"), d.get("wall_days_interval")
    if not gpu or not days:
        return []
    return [
        ["accelerator-hours, 80% interval", span(gpu["p10"], gpu["p90"], 0)],
        ["wall-clock, 80% interval", f"{span(days['p10'], days['p90'], 1)} days"],
        ["effective training time", (f"{d['effective_training_time']:.1%} (checkpoint every "
                                    f"{number(d['checkpoint_interval_hours'] * 60, 1)} min)")],
    ]


def job_note(d: dict[str, Any]) -> str:
    fam = FAMILY_NAMES.get(int(d.get("error_family") or 0), "")
    return f"note: {NOTE}; family: {fam}" if fam and d.get("gpu_hours_interval") else ""


def compare_block(result: Result) -> str:
    """The intervals of the primary training workload's time, one line per feasible option."""
    lines = []
    for c in result.candidates:
        job = c.job
        if not c.feasible or "wall_days_p10" not in job:
            continue
        lines.append(f"  {printable(c.id)}: {number(job['wall_days'], 1)} days "
                     f"({span(job['wall_days_p10'], job['wall_days_p90'], 1)}), "
                     f"{number(job['gpu_hours'], 0)} accelerator-hours "
                     f"({span(job['gpu_hours_p10'], job['gpu_hours_p90'], 0)}); "
                     f"{family_name(job)}; effective training time "
                     f"{job['effective_training_time']:.1%}")
    if not lines:
        return ""
    return ("\nTime to train, primary workload, with its 80% interval (the model's own "
            "out-of-sample error for runs of its family; model error only):\n"
            + "\n".join(lines) + "\n")


def candidate_interval(c: CandidateResult) -> dict[str, float] | None:
    """The primary training workload's point values and interval ends, for the report and
    the workbook (None for a serving workload or an option that is not quantified)."""
    job = c.job
    if not c.quantified or "wall_days_p10" not in job:
        return None
    return {k: float(job[k]) for k in ("wall_days", "wall_days_p10", "wall_days_p90",
                                       "gpu_hours", "gpu_hours_p10", "gpu_hours_p90",
                                       "effective_training_time", "error_family")}


def report_rows(view: Any, c: CandidateResult) -> list[tuple[str, str]]:
    """The report's detail rows (label, value) for a training run's 80% interval and its
    effective training time; none for a serving workload."""
    iv = candidate_interval(c)
    if iv is None:
        return []
    s = view.s
    return [(s("d_interval"), s("value_interval", days10=view.days(iv["wall_days_p10"]),
                                days90=view.days(iv["wall_days_p90"]),
                                h10=number(iv["gpu_hours_p10"], 0),
                                h90=number(iv["gpu_hours_p90"], 0)))]
