"""Plain-data views of a Result: the JSON contract, CSV rows and text tables.

Numbers stay floats (full precision) in JSON and CSV; rounding happens only in text tables.

Provenance (tool version, catalog digest, scenario digest) is in every output: a
`provenance` object in JSON; in CSV, three columns repeated on every row (`tool_version`,
`catalog_digest`, `scenario_digest`), so the file stays one rectangular table that any
spreadsheet or `pandas.read_csv` reads without options, and a row copied elsewhere still says
where it came from; a last line in text tables.

User text (names, notes) is made safe per format: in CSV, every line of a text cell that a
spreadsheet would run as a formula gets a leading apostrophe (numbers stay numbers), and a cell
holding a line break (CR or LF) is always quoted, so that it cannot start a row of its own; text
tables show control characters (terminal escapes, line breaks, bidirectional overrides) as
visible escapes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import printable
from ..model import JOB_COMPONENTS
from ..result import CandidateResult, Result
from .fmt import money, number

# Cells a spreadsheet would read as a formula (CWE-1236). Prefixed with an apostrophe.
_FORMULA_LEAD = ("=", "+", "-", "@", "\t", "\r")
# The start of the text and of every line in it (after CR LF, a lone CR or a lone LF) that
# begins with one of _FORMULA_LEAD.
_LINE_LEAD = re.compile(r"(\A|\r\n|\r|\n)(?=[" + re.escape("".join(_FORMULA_LEAD)) + "])")


def safe_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet will run as a formula: each of its lines that starts with
    a formula character gets an apostrophe in front (a reader that splits the cell at a line
    break then still sees text)."""
    if isinstance(value, str):
        return _LINE_LEAD.sub(lambda m: m.group(1) + "'", value)
    return value


def csv_text(rows: Iterable[Sequence[Any]]) -> str:
    """CSV with rows ending in LF, each cell made safe (`safe_cell`; None is empty).

    The csv module quotes a cell that contains a character of its line terminator; with LF
    alone, a cell with a bare CR went out unquoted and a spreadsheet broke the row there. So
    each row is written with CR LF as terminator, which quotes every cell holding either
    character, and then ends with LF.
    """
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\r\n")
    out = []
    for row in rows:
        buf.seek(0)
        buf.truncate()
        w.writerow([safe_cell("" if x is None else x) for x in row])
        out.append(buf.getvalue()[:-2] + "\n")
    return "".join(out)


def _clean(x: float) -> float | None:
    return x if math.isfinite(x) else None


def provenance(result: Result) -> dict[str, str]:
    p = result.provenance
    return {"tool_version": p.tool_version, "catalog_digest": p.catalog_digest,
            "scenario_digest": p.scenario_digest}


def job_cost(c: CandidateResult, workload: str | None = None) -> dict[str, float | None]:
    job = c.jobs[workload or c.primary_workload]
    cost: dict[str, float | None] = {"total": _clean(job["cost_per_job"])}
    for comp in JOB_COMPONENTS:
        cost[comp] = _clean(job[f"cost_{comp}"])
    return cost


def job_dict(result: Result, c: CandidateResult) -> dict[str, Any]:
    """The `tco job` JSON contract for one candidate and its primary workload."""
    out: dict[str, Any] = {
        "card": c.info.card,
        "cards": int(c.inputs["cards"]),
        "currency": result.currency,
        "feasible": c.feasible,
        "reasons": c.reasons,
        "notes": c.reasons + c.notes + c.info.flags,
    }
    if c.priced:
        job = c.job
        # The reason's own figures (compute, memory) hold whatever the verdict.
        out.update({
            "train_flops": job["train_flops"],
            "memory_needed_gb": _clean(job["memory_needed_gb"]),
            "memory_usable_gb": _clean(job["memory_usable_gb"]),
        })
    out.update(dict.fromkeys(("gpu_hours", "wall_days", "energy_kwh", "energy_it_kwh", "co2e_kg",
                              "cost", "effective_mfu")))  # no numbers that would not hold
    if c.quantified:
        job = c.job
        out.update({
            "gpu_hours": _clean(job["gpu_hours"]),
            "wall_days": _clean(job["wall_days"]),
            "energy_kwh": _clean(job["energy_facility_kwh"]),
            "energy_it_kwh": _clean(job["energy_it_kwh"]),
            "co2e_kg": _clean(job["co2e_kg"]),
            "cost": job_cost(c),
            "effective_mfu": _clean(job["mfu_effective"]),
        })
    out["provenance"] = provenance(result)
    return out


def yearly_rows(c: CandidateResult) -> list[dict[str, float]]:
    return [{k: (int(v) if k == "year" else _clean(v)) for k, v in row.items()}  # type: ignore[misc]
            for row in c.yearly]


def candidate_dict(result: Result, c: CandidateResult) -> dict[str, Any]:
    v, job = c.values, c.job
    out: dict[str, Any] = {
        "id": c.id,
        "name": c.info.name,
        "card": c.info.card,
        "platform": c.info.platform,
        "stack": c.info.stack,
        "cards": int(c.inputs["cards"]),
        "feasible": c.feasible,
        "reasons": c.reasons,
        "flags": c.info.flags,
        "blocking": c.info.blocking,
        "notes": c.notes,
    }
    if not c.quantified:
        # Never priced (no support for the workload's precision) or infeasible (does not fit,
        # makes no progress): same keys, no numbers, since none of them would hold.
        out.update(dict.fromkeys(_PRICED_KEYS))
        out["yearly"] = []
        return out
    out.update({
        "gpu_hours_per_job": _clean(job["gpu_hours"]),
        "wall_days_per_job": _clean(job["wall_days"]),
        "cost_per_job": _clean(job["cost_per_job"]),
        "cost_per_job_breakdown": job_cost(c),
        "cost_per_million_tokens": _clean(job["cost_per_million_tokens"]),
        "cost_per_run_horizon": _clean(v["cost_per_run_horizon"]),
        "energy_kwh_per_job": _clean(job["energy_facility_kwh"]),
        "co2e_kg_per_job": _clean(job["co2e_kg"]),
        "npv_tco": _clean(v["npv_tco"]),
        "undiscounted_tco": _clean(v["undiscounted_tco"]),
        "equivalent_annual_cost": _clean(v["equivalent_annual_cost"]),
        "cost_per_gpu_hour": _clean(v["cost_per_gpu_hour"]),
        "cost_per_pflop_hour": _clean(v["cost_per_pflop_hour"]),
        "runs_per_year": _clean(v["runs_per_year"]),
        "runs_over_horizon": _clean(v["runs_over_horizon"]),
        "capex_total": _clean(v["capex_total"]),
        "cloud_npv": _clean(v["cloud_npv"]) if "cloud_npv" in v else None,
        "breakeven_utilization": _clean(v["breakeven_utilization"])
        if "breakeven_utilization" in v else None,
        "jobs": {wid: workload_dict(c, wid) for wid in c.jobs},
        "yearly": yearly_rows(c),
    })
    return out


def workload_dict(c: CandidateResult, wid: str) -> dict[str, Any]:
    """One workload's per-run figures (the headline keys describe the first workload)."""
    job = c.jobs[wid]
    return {
        "gpu_hours": _clean(job["gpu_hours"]),
        "wall_days": _clean(job["wall_days"]),
        "cost": job_cost(c, wid),
        "cost_per_million_tokens": _clean(job["cost_per_million_tokens"]),
        "energy_kwh": _clean(job["energy_facility_kwh"]),
        "co2e_kg": _clean(job["co2e_kg"]),
        "train_flops": _clean(job["train_flops"]),
        "feasible": bool(job["feasible"]),
        "memory_needed_gb": _clean(job["memory_needed_gb"]),
        "memory_usable_gb": _clean(job["memory_usable_gb"]),
    }


_PRICED_KEYS = (
    "gpu_hours_per_job", "wall_days_per_job", "cost_per_job", "cost_per_job_breakdown",
    "cost_per_million_tokens", "cost_per_run_horizon", "jobs", "energy_kwh_per_job", "co2e_kg_per_job", "npv_tco", "undiscounted_tco",
    "equivalent_annual_cost", "cost_per_gpu_hour", "cost_per_pflop_hour", "runs_per_year",
    "runs_over_horizon", "capex_total", "cloud_npv", "breakeven_utilization",
)


def compare_dict(result: Result) -> dict[str, Any]:
    return {
        "scenario": result.scenario.name,
        "currency": result.currency,
        "horizon_years": result.structure.horizon_years,
        "candidates": [candidate_dict(result, c) for c in result.candidates],
        "provenance": provenance(result),
    }


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def compare_csv(result: Result) -> str:
    """One row per candidate; the last columns are the currency and the provenance."""
    cols = ["id", "name", "card", "cards", "feasible", "gpu_hours_per_job", "wall_days_per_job",
            "cost_per_job", "cost_per_run_horizon", "npv_tco", "undiscounted_tco",
            "cost_per_gpu_hour", "cost_per_pflop_hour", "cloud_npv", "breakeven_utilization"]
    prov = provenance(result)
    rows: list[list[Any]] = [cols + ["reasons", "notes", "flags", "blocking", "currency", *prov]]
    for c in result.candidates:
        d = candidate_dict(result, c)
        rows.append([d.get(k) for k in cols] + ["; ".join(c.reasons), "; ".join(c.notes),
                                                "; ".join(c.info.flags),
                                                "; ".join(c.info.blocking), result.currency,
                                                *prov.values()])
    return csv_text(rows)


def rows_csv(header: list[str], rows: list[list[Any]]) -> str:
    return csv_text([header, *rows])


def text_table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """A plain monospace table; `align` gives 'l' or 'r' per column (default: first l, rest r)."""
    align = align or "l" + "r" * (len(header) - 1)
    header = [printable(h) for h in header]
    rows = [[printable(x) for x in r] for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        out = []
        for cell, wdt, a in zip(cells, widths, align):
            out.append(str(cell).ljust(wdt) if a == "l" else str(cell).rjust(wdt))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows]) + "\n"


def compare_table(result: Result) -> str:
    cur = result.currency
    header = ["#", "candidate", "cards", "days/run", "cost/run*", "NPV TCO", "NPV/run",
              f"{cur}/GPU-h", "cloud NPV", "status"]
    rows = []
    for n, c in enumerate(result.candidates, start=1):
        if not c.feasible:  # numbers of an infeasible option are not shown as if they held
            rows.append([str(n), c.id, f"{int(c.inputs['cards']):,}", *["-"] * 6,
                         "infeasible: " + "; ".join(c.reasons)])
            continue
        v, job = c.values, c.job
        cloud = v.get("cloud_npv")
        barred = ["barred: " + b.split(":")[0] for b in c.info.blocking]
        status = "; ".join(barred + c.notes) if barred or c.notes else "ok"
        rows.append([
            str(n), c.id, f"{int(c.inputs['cards']):,}", number(job["wall_days"], 1),
            money(job["cost_per_job"], cur), money(v["npv_tco"], cur),
            money(v["cost_per_run_horizon"], cur), number(v["cost_per_gpu_hour"], 2),
            money(cloud, cur) if cloud is not None else "n/a", status,
        ])
    title = (f"{printable(result.scenario.name)} ({cur}, "
             f"{result.structure.horizon_years}-year horizon)\n")
    flags = []
    for c in result.candidates:
        for f in c.info.flags:
            flags.append(f"  {c.id}: {printable(f)}")
    foot = ("\nRisk flags:\n" + "\n".join(flags) + "\n") if flags else ""
    legend = ("\ncost/run*: one run with fixed costs spread over every available hour (a fully "
              "used cluster);\nNPV/run: the horizon's NPV over the discounted runs of every "
              "workload (the cluster as actually used);\nbarred: priced, but export-controlled "
              "for the region or licence-barred, so never recommended.\n")
    return (title + text_table(header, rows, "lllrrrrrrl") + legend + foot
            + provenance_line(result))


def provenance_line(result: Result) -> str:
    p = provenance(result)
    return (f"\ntco {p['tool_version']}, catalog {p['catalog_digest']}, "
            f"scenario {p['scenario_digest']}\n")


def job_table(result: Result, c: CandidateResult) -> str:
    cur = result.currency
    d = job_dict(result, c)
    lines = [printable(f"{c.info.card_name} x {d['cards']:,} ({c.info.platform_name})")]
    if not c.priced:
        lines.append(printable("infeasible: " + "; ".join(c.reasons)))
        return "\n".join(lines) + "\n"
    if not c.feasible:  # say why; do not print times and costs as if the job could run
        rows = [
            ["training compute", f"{d['train_flops']:.3e} FLOP"],
            ["memory needed per card", f"{number(d['memory_needed_gb'], 1)} GB"],
            ["memory usable per card", f"{number(d['memory_usable_gb'], 1)} GB"],
        ]
        lines.append(text_table(["quantity", "value"], rows, "lr").rstrip())
        lines.append(printable("INFEASIBLE: " + "; ".join(c.reasons)))
        return "\n".join(lines) + "\n" + provenance_line(result)
    rows = [
        ["training compute", f"{d['train_flops']:.3e} FLOP"],
        ["accelerator-hours", number(d["gpu_hours"], 0)],
        ["wall-clock", f"{number(d['wall_days'], 1)} days"],
        ["effective MFU", f"{d['effective_mfu']:.1%}"],
        ["energy (facility)", f"{number(d['energy_kwh'], 0)} kWh"],
        ["emissions", f"{number(d['co2e_kg'] / 1000, 1)} t CO2e"],
    ]
    for comp in JOB_COMPONENTS:
        rows.append([f"cost: {comp}", money(d["cost"][comp], cur)])
    rows.append(["cost: total", money(d["cost"]["total"], cur)])
    lines.append(text_table(["quantity", "value"], rows, "lr").rstrip())
    for n in c.notes + c.info.flags:
        lines.append(f"note: {printable(n)}")
    return "\n".join(lines) + "\n" + provenance_line(result)
