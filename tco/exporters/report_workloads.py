"""The report's pieces for every workload of the plan: the plan line of the cover, the
"Every workload" section (one table per workload: a run of it on each option) and each
option's per-workload table. Presentation only; every figure is an engine value.

A mixture of experts carries the methodology's optimism warning (tco.exporters.workloads)
wherever its figures appear: its table, its charts and the caveats.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..result import CandidateResult
from .fmt import number
from .workloads import (
    Workload,
    layout_short,
    plan_workloads,
    runs,
    shows_each,
    training_workloads,
)

if TYPE_CHECKING:
    from .report_page import Page as View


def plan_lines(view: View) -> list[str]:
    """The cover's plan: every workload, with its size and runs a year, one line each."""
    s = view.s
    parts = []
    for w in plan_workloads(view.r):
        sc = next(x for x in view.r.scenario.workloads if x.id == w.id)
        text = (s("workload_value", name=w.name, params=view.count(w.params),
                  tokens=view.count(sc.tokens), runs=number(w.runs_per_year, 0))
                if w.kind != "serve" else
                s("workload_serve_value", name=w.name, params=view.count(w.params),
                  inp=view.count(sc.input_tokens_per_day),
                  out=view.count(sc.output_tokens_per_day)))
        parts.append(text + (s("workload_moe_mark") if w.moe else ""))
    return parts


def moe_warning(view: View, w: Workload) -> list[str]:
    """The warning to show with a workload's figures (empty for a dense model)."""
    return [view.s("moe_warning", name=w.name)] if w.moe else []


def shown(view: View) -> bool:
    """Whether the per-workload pieces add anything (tco.exporters.workloads.shows_each)."""
    return shows_each(view.r)


def section(view: View) -> list[dict[str, Any]]:
    """One table per workload: a run of it on each option, in ranking order."""
    from .report_page import Cell, full

    s, out = view.s, []
    for w in training_workloads(view.r) if shown(view) else []:
        rows = []
        for c in view.r.candidates:
            job = runs(c, w.id)
            if job is None:
                why = ("not_carried" if not c.info.carries(w.id) else
                       "not_priced" if not c.priced else "status_infeasible")
                cells = [Cell(s(why), "", key, "num na")
                         for key in ("layout", "wall_days", "gpu_hours", "cost_per_job")]
            else:
                at, q = view.at, f"{c.id}.{w.id}"
                cells = [Cell(layout_short(job), "", "layout", "num"),
                         Cell(view.days(job["wall_days"]), full(job["wall_days"]),
                              "wall_days", q=at[f"{q}.wall_days"], f="days"),
                         Cell(number(job["gpu_hours"], 0), full(job["gpu_hours"]),
                              "gpu_hours", q=at[f"{q}.gpu_hours"], f="num0"),
                         Cell(view.money(job["cost_per_job"]), full(job["cost_per_job"]),
                              "cost_per_job", q=at[f"{q}.cost_per_job"], f="money")]
            rows.append({"id": c.id, "name": view.name(c), "recommended": c is view.rec,
                         "cells": cells})
        out.append({"id": w.id, "title": s("workload_title", name=w.label,
                                           runs=number(w.runs_per_year, 0)),
                    "moe": w.moe, "warnings": moe_warning(view, w), "rows": rows})
    return out


def columns(view: View) -> list[str]:
    s = view.s
    return [s("col_candidate"), s("col_layout"), s("col_time"), s("col_gpu_hours_run"),
            s("col_cost_per_job")]


def detail_rows(view: View, c: CandidateResult) -> list[tuple[str, str]]:
    """An option's per-workload lines: each workload's days, card-hours and cost per run."""
    s, out = view.s, []
    for w in training_workloads(view.r) if shown(view) else []:
        job = runs(c, w.id)
        if job is None:
            continue
        q = f"{c.id}.{w.id}"
        out.append((w.name + (s("workload_moe_mark") if w.moe else ""),
                    view.live_text("value_workload_run", {
                        "days": ("days", f"{q}.wall_days", job["wall_days"]),
                        "hours": ("num0", f"{q}.gpu_hours", job["gpu_hours"]),
                        "cost": ("money", f"{q}.cost_per_job", job["cost_per_job"])},
                        layout=layout_short(job))))
    return out


def caveats(view: View) -> list[str]:
    moe = [w for w in plan_workloads(view.r) if w.moe]
    return [view.s("cav_moe", names=view.s("name_sep").join(w.name for w in moe))] if moe \
        else []
