"""Every workload of the plan, for every output: who they are, which are mixtures of experts
(whose results the methodology warns are optimistic), and one run of each on each option.

The CLI table, the report, the workbook and JSON read these, so a second workload never
appears in one output and not another, and the warning has one wording (English here, Chinese
in templates/strings.yaml as `moe_warning`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..result import CandidateResult, Result

# Methodology section 16, "Mixtures of experts are optimistic".
MOE_WARNING = (
    "mixture-of-experts results are optimistic: every layer is taken to be an expert layer "
    "whose GEMMs run at the dense MFU, with experts perfectly balanced (no router imbalance, "
    "token dropping or padding); see docs/methodology.md section 16")


@dataclass(frozen=True)
class Workload:
    id: str
    name: str
    kind: str
    precision: str
    runs_per_year: float
    params: float
    active_params: float
    moe: bool  # the model's `mixture_of_experts` flag: fewer active than total parameters

    @property
    def label(self) -> str:
        return f"{self.name} ({self.id})" if self.name != self.id else self.id


def plan_workloads(result: Result) -> list[Workload]:
    """The plan's workloads in scenario order (the first is the primary)."""
    out = []
    for wid, precision, kind in result.structure.workloads:
        sc = next(w for w in result.scenario.workloads if w.id == wid)

        def value(key: str, wid: str = wid) -> float:
            return float(result.inputs[f"workloads.{wid}.{key}"].value)

        # a year of serving is one run (methodology §18): a serve workload has no runs input
        runs = value("runs_per_year") if kind != "serve" else 1.0

        params, active = value("params"), value("active_params")
        out.append(Workload(wid, sc.name or wid, kind, precision, runs,
                            params, active, _moe(result, wid, params, active)))
    return out


def training_workloads(result: Result) -> list[Workload]:
    """The plan's training workloads (pretrain, finetune), in scenario order: the per-run
    tables and charts are theirs; a serving workload has its own (tco/exporters/serving_view.py,
    serving_report.py)."""
    return [w for w in plan_workloads(result) if w.kind != "serve"]


def shows_each(result: Result) -> bool:
    """Whether the outputs list each training workload on its own (per-workload tables, CSV
    columns, charts): more than one, a mixture of experts (whose warning sits with its
    figures), or a plan whose primary workload serves (the ranking's run columns are then not
    a training run's). One dense training workload is the ranking's own."""
    plan = training_workloads(result)
    return (len(plan) > 1 or any(w.moe for w in plan)
            or (bool(plan) and plan_workloads(result)[0].kind == "serve"))


def _moe(result: Result, wid: str, params: float, active: float) -> bool:
    """The model's flag, read from the first option that computed it; the same comparison
    of the inputs when no option was priced."""
    for c in result.candidates:
        job = c.jobs.get(wid)
        if job and "mixture_of_experts" in job:
            return bool(job["mixture_of_experts"])
    return active < params


def has_moe(result: Result) -> bool:
    return any(w.moe for w in plan_workloads(result))


def workloads_json(result: Result) -> list[dict[str, Any]]:
    """`workloads` in `tco compare` JSON: the plan, each with its MoE flag and warning."""
    return [{"id": w.id, "name": w.name, "kind": w.kind, "precision": w.precision,
             "runs_per_year": w.runs_per_year, "params": w.params,
             "active_params": w.active_params, "mixture_of_experts": w.moe,
             "warning": MOE_WARNING if w.moe else None}
            for w in plan_workloads(result)]


def runs(c: CandidateResult, wid: str) -> dict[str, float] | None:
    """One run of workload `wid` on option `c`: None when its numbers do not hold
    (not priced, or infeasible) or the option does not carry the workload."""
    if not c.quantified or not c.info.carries(wid):
        return None
    return c.jobs.get(wid)


# A training workload's columns in `tco compare --format csv` (named `<workload>.<key>`, as the
# serving columns are), when the plan has more than one: the main columns show each option's
# primary workload only.
# Each is the figure's path under `jobs.<workload>` in JSON, and the model quantity it is.
CSV_KEYS = {"cost.total": "cost_per_job", "wall_days": "wall_days", "gpu_hours": "gpu_hours",
            "cost_per_million_tokens": "cost_per_million_tokens",
            "mixture_of_experts": "mixture_of_experts"}


def csv_header(result: Result) -> list[str]:
    plan = training_workloads(result)
    return [f"{w.id}.{k}" for w in plan for k in CSV_KEYS] if shows_each(result) else []


def csv_values(result: Result, c: CandidateResult) -> list[Any]:
    """One option's per-workload columns: empty where its numbers do not hold or it does not
    carry the workload."""
    plan = training_workloads(result)
    if not shows_each(result):
        return []
    out: list[Any] = []
    for w in plan:
        job = runs(c, w.id) or {}
        out += [(bool(job[q]) if q == "mixture_of_experts" else job[q]) if q in job else None
                for q in CSV_KEYS.values()]
    return out


def layout_short(job: dict[str, float]) -> str:
    """TP x PP x CP x EP, as in the CLI table."""
    return "x".join(str(int(job[k])) for k in ("tensor_parallel", "pipeline_parallel",
                                                 "context_parallel", "expert_parallel"))


def workload_table(result: Result) -> str:
    """The CLI's per-workload block under the ranking: one run of every workload on every
    option, in ranking order, and the MoE footnote. Empty for a plan of one dense workload
    (the ranking's columns already show it)."""
    from .fmt import money, number, text_table

    plan = training_workloads(result)
    if not shows_each(result):
        return ""
    cur = result.currency
    header = ["workload", "candidate", "runs/yr", "layout", "days/run", "card-h/run",
              "cost/run*"]
    rows = []
    for w in plan:
        mark = " [MoE+]" if w.moe else ""
        for c in result.candidates:
            job = runs(c, w.id)
            cells = ([layout_short(job), number(job["wall_days"], 1),
                      number(job["gpu_hours"], 0), money(job["cost_per_job"], cur)]
                     if job is not None else ["-"] * 4)
            rows.append([w.label + mark, c.id, number(w.runs_per_year, 0), *cells])
    title = ("\nEvery workload, one run on each option (the ranking's days/run, cost/run and "
             f"layout are of the first, {plan[0].id}):\n")
    foot = ("[MoE+]: " + MOE_WARNING + ".\n") if any(w.moe for w in plan) else ""
    return title + text_table(header, rows, "llrlrrr") + foot
