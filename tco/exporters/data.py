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

from ..decide import recommend
from ..decide.rules import part_only
from ..errors import printable
from ..model import JOB_COMPONENTS
from ..resolve.policy import policy_dict, stock_words
from ..result import CandidateResult, Result
from . import intervals, shortfall
from .api_view import api_block, api_options_json
from .decision_words import recommendation_dict, recommendation_line
from .fields import (
    CANDIDATE_FIELDS,
    CSV_COLUMNS,
    CSV_TEXT_COLUMNS,
    YEARLY_COLUMNS,
    Field,
    workload_fields,
)
from .fmt import money, number, text_table
from .frontier_view import frontiers_json
from .ingest_view import measured_json
from .portfolios import portfolio_block, portfolios_json
from .serving_view import (
    SERVE_FIRST_HEADER,
    SERVE_FIRST_LEGEND,
    per_million,
    serve_first,
    serve_first_cells,
    serve_job_rows,
    serving_block,
)
from .serving_view import csv_header as serve_csv_header
from .serving_view import csv_values as serve_csv_values
from .workloads import MOE_WARNING, workload_table, workloads_json
from .workloads import csv_header as workload_csv_header
from .workloads import csv_values as workload_csv_values

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
    """The `cost` object of one run: `total`, then one line per model.JOB_COMPONENTS."""
    job = c.jobs[workload or c.primary_workload]
    cost: dict[str, float | None] = {"total": _clean(job["cost_per_job"])}
    for comp in JOB_COMPONENTS:
        cost[comp] = _clean(job[f"cost_{comp}"])
    return cost


def yearly_rows(c: CandidateResult) -> list[dict[str, float]]:
    """The yearly rows, their keys in the published order (fields.YEARLY_COLUMNS)."""
    return [{k: (int(row[k]) if k == "year" else _clean(row[k]))  # type: ignore[misc]
             for k in YEARLY_COLUMNS} for row in c.yearly]


# --- the JSON objects, built from the one table of keys (tco/exporters/fields.py) ------------


def _holds(f: Field, c: CandidateResult, workload: str) -> bool:
    """Whether field `f` has a value for this candidate (else null, or [] for a list)."""
    if f.when == "always":
        return True
    if f.when == "priced":  # a priced candidate has every workload's figures
        return c.priced
    if f.when == "quantified":
        return c.quantified
    # "cloud": the card has a cloud price; "lease": the option leases its hardware; "one_run":
    # it carries one training workload (the model has the plan-level figure only then)
    return c.quantified and f.quantity in c.values


def _attribute(c: CandidateResult, path: str) -> Any:
    obj: Any = c
    for part in path.split("."):
        obj = obj[part] if isinstance(obj, dict) else getattr(obj, part)
    return obj


def _value(f: Field, c: CandidateResult, workload: str,
           workloads: list[tuple[str, str]]) -> Any:
    if not _holds(f, c, workload):
        return [] if f.kind == "yearly" else None
    if f.scope == "candidate":
        v = _attribute(c, f.quantity)
        return int(v) if f.kind == "integer" else list(v) if f.kind == "strings" else v
    if f.scope == "horizon":
        return _clean(c.values[f.quantity])
    if f.scope == "workloads":
        return {wid: workload_dict(c, wid, kind) for wid, kind in workloads
                if c.info.carries(wid)}
    if f.scope == "yearly":
        return yearly_rows(c)
    job = c.jobs[workload]  # primary or workload
    if f.kind == "cost":
        return job_cost(c, workload)
    if f.kind == "interval":
        return {"p10": _clean(job[f"{f.quantity}_p10"]), "p90": _clean(job[f"{f.quantity}_p90"])}
    if f.kind == "boolean":
        return bool(job[f.quantity])
    if f.kind == "integer":
        return int(job[f.quantity])
    return _clean(job[f.quantity])


def _workload_ids(result: Result) -> list[tuple[str, str]]:
    return [(wid, kind) for wid, _precision, kind in result.structure.workloads]


def workload_dict(c: CandidateResult, wid: str, kind: str = "pretrain") -> dict[str, Any]:
    """One workload's per-run figures: `jobs.<wid>` in compare JSON, the same keys as `tco job`
    (a serving workload's keys are its own: fields.SERVE_WORKLOAD_FIELDS)."""
    return {f.key: _value(f, c, wid, []) for f in workload_fields(kind)}


def candidate_dict(result: Result, c: CandidateResult) -> dict[str, Any]:
    """One entry of compare JSON's `candidates`. An unquantified candidate (never priced, or
    infeasible) has the same keys, with null for every number that would not hold."""
    workloads = _workload_ids(result)
    return {f.key: _value(f, c, c.primary_workload, workloads) for f in CANDIDATE_FIELDS}


def job_dict(result: Result, c: CandidateResult) -> dict[str, Any]:
    """The `tco job` JSON: the candidate (its keys as in compare), the currency, one run of its
    one workload (the keys of compare's `jobs.<workload>`; `feasible` is the candidate's), and
    the provenance."""
    wid = c.primary_workload
    fields = workload_fields(dict(_workload_ids(result))[wid], job=True)
    return {**{f.key: _value(f, c, wid, []) for f in fields if f.scope == "candidate"},
            "currency": result.currency,
            **{f.key: _value(f, c, wid, []) for f in fields if f.scope == "workload"},
            "provenance": provenance(result)}


def compare_dict(result: Result) -> dict[str, Any]:
    from .plan_view import plan_json

    return {
        "scenario": result.scenario.name,
        "currency": result.currency,
        "horizon_years": result.structure.horizon_years,
        "recommendation": recommendation_dict(result),
        "plan": plan_json(result),
        "workloads": workloads_json(result),
        "portfolios": portfolios_json(result),
        "api_options": api_options_json(result),
        "policy": policy_dict(result.scenario_data),
        "candidates": [candidate_dict(result, c) for c in result.candidates],
        "serving_frontiers": frontiers_json(result),
        "measured_benchmarks": measured_json(result),
        "provenance": provenance(result),
    }


def to_json(data: Any) -> str:
    return json.dumps(data, indent=2, sort_keys=False, ensure_ascii=False) + "\n"


def compare_csv(result: Result) -> str:
    """One row per candidate: the table's CSV columns (tco/exporters/fields.py), the text lists
    joined by "; ", then the currency and the provenance."""
    cols, texts = list(CSV_COLUMNS), list(CSV_TEXT_COLUMNS)  # the table's CSV keys
    prov = provenance(result)
    rows: list[list[Any]] = [cols + texts + ["currency", *prov] + serve_csv_header(result)
                             + workload_csv_header(result)]
    for c in result.candidates:
        d = candidate_dict(result, c)
        rows.append([d[k] for k in cols] + ["; ".join(d[k]) for k in texts]
                    + [result.currency, *prov.values()] + serve_csv_values(result, c)
                    + workload_csv_values(result, c))
    for d, serving in combined_rows(result):  # ranked with the options, so listed with them
        rows.append([d.get(k) for k in cols] + ["; ".join(d.get(k, [])) for k in texts]
                    + [result.currency, *prov.values()] + serving
                    + [None] * len(workload_csv_header(result)))
    from .plan_text import plan_csv_rows

    for d in plan_csv_rows(result):  # the plans: their NPV (the actions are in JSON)
        rows.append([d.get(k) for k in cols] + ["; ".join(d.get(k, [])) for k in texts]
                    + [result.currency, *prov.values()]
                    + [None] * (len(serve_csv_header(result)) + len(workload_csv_header(result))))
    return csv_text(rows)


def combined_rows(result: Result) -> list[tuple[dict[str, Any], list[Any]]]:
    """The CSV rows of the per-token API options (acquire `api`) and of the portfolios
    (acquire `portfolio`, options joined by " + " as the card): what they have of the table's
    columns (an NPV, no cluster of their own), and an API's serving columns."""
    out = []
    for a in result.api_options:
        d = {"id": a.id, "name": a.info.name, "card": "", "acquire": "api", "cards": 0,
             "feasible": a.feasible, "notes": a.notes, "reasons": a.reasons,
             **{k: a.values[k] for k in ("npv_tco", "undiscounted_tco")}}
        out.append((d, serve_csv_values(result, a)))
    for p in result.portfolios:
        d = {"id": p.id, "name": p.name, "card": " + ".join(p.options),
             "acquire": "portfolio", "feasible": p.feasible,
             "cards": sum(int(result.candidate(o).inputs["cards"]) for o in p.options),
             **({k: p.values[k] for k in ("npv_tco", "undiscounted_tco")} if p.feasible
                else {})}
        out.append((d, [None] * len(serve_csv_header(result))))
    return out


def rows_csv(header: list[str], rows: list[list[Any]]) -> str:
    return csv_text([header, *rows])


def compare_table(result: Result) -> str:
    cur = result.currency
    serve = serve_first(result)  # the plan's first workload serves: serving's figures
    header = ["#", "candidate", "mode", "cards", "layout*", "days/run", "cost/run*", "NPV TCO",
              "NPV/run", f"{cur}/GPU-h", "cloud NPV", "status"]
    if serve:
        header[4:9] = SERVE_FIRST_HEADER[:2] + [f"{cur}/M out*", "NPV TCO", "NPV/M out"]
    rows = []
    for n, c in enumerate(result.candidates, start=1):
        if not c.feasible:  # numbers of an infeasible option are not shown as if they held
            rows.append([str(n), c.id, c.info.acquire, f"{int(c.inputs['cards']):,}",
                         *["-"] * 7,
                         "infeasible: " + "; ".join(c.reasons)])
            continue
        v, job = c.values, c.job
        cloud = v.get("cloud_npv")
        barred = ["barred: " + b.split(":")[0] for b in c.info.blocking]
        status = "; ".join(barred + c.notes) if barred or c.notes else "ok"
        if status == "ok" and not c.completes_all_runs:  # capacity enough, the timeline not
            status = (f"delivers {v['plan_delivered_fraction']:.0%} of the plan by the "
                      f"horizon (first useful work {v.get('ready_years', 0) * 12:.1f} months "
                      "after the order)")
        worked = v["runs_over_horizon"] > 0  # no run delivered: no cost per run or per hour
        # the figures of the plan's first workload, which heads the table; an option carrying
        # another part of the plan has none of them
        first = result.structure.workloads[0][0]
        job = c.jobs.get(first, {}) if c.info.carries(first) else {}
        rows.append([
            str(n), c.id, c.info.acquire, f"{int(c.inputs['cards']):,}",
            *(serve_first_cells(c, serve, cur) if serve else (
                ("x".join(str(int(job.get(k, 1))) for k in (
                    "tensor_parallel", "pipeline_parallel", "context_parallel",
                    "expert_parallel"))
                 + ("+HSDP" if job.get("hybrid_sharding") else
                    "+Z3" if job.get("parameter_sharding") else "")
                 + ("+Z2" if job.get("gradient_sharding") else "")
                 + (f" ({int(job['idle_cards'])} idle)" if job.get("idle_cards") else ""),
                 number(job["wall_days"], 1), money(job["cost_per_job"], cur)) if job
                else ("-", "-", "-"))),
            money(v["npv_tco"], cur),
            ((per_million(job["cost_per_million_output_tokens_horizon"], cur) if serve
              else money(job["cost_per_run_horizon"], cur)) if worked and job else "n/a"),
            number(v["cost_per_gpu_hour"], 2) if worked else "n/a",
            money(cloud, cur) if cloud is not None else "n/a", status,
        ])
    title = (f"{printable(result.scenario.name)} ({cur}, "
             f"{result.structure.horizon_years}-year horizon)\n")
    flags = []
    for c in result.candidates:
        for f in c.info.flags:
            flags.append(f"  {c.id}: {printable(f)}")
    foot = ("\nRisk flags:\n" + "\n".join(flags) + "\n") if flags else ""
    rec = recommend(result)
    parts = [c.id for c in result.candidates if part_only(c)]
    said = recommendation_line(result, rec, parts)
    legend = SERVE_FIRST_LEGEND if serve else (
        "\nlayout*: tensor x pipeline x context x expert parallel degrees of the primary "
        "workload, chosen by search (+Z3: parameters and gradients sharded over the data-"
        "parallel group, ZeRO-3 / FSDP; +HSDP: the same within a server; +Z2: gradients "
        "sharded, ZeRO-2; `tco job` and JSON give them all);"
        + ("\n(N idle): cards left over by the whole data-parallel replicas: paid for, idle;"
           if any(c.feasible and c.job.get("idle_cards") for c in result.candidates) else "")
        + "\ncost/run*: one run with fixed costs spread over every available hour (a fully "
        "used cluster);\nNPV/run: the primary workload's share of the horizon's NPV (by "
        "card-hours) over its discounted runs (the cluster as actually used; JSON gives "
        "every workload's);")
    legend += ("\nbarred: priced, but export-controlled for the region or licence-barred, so "
               "never recommended.\n")
    from .plan_text import plan_block

    return (title + text_table(header, rows, "lllllrrrrrrl") + plan_block(result)
            + intervals.compare_block(result) + serving_block(result)
            + api_block(result) + workload_table(result)
            + shortfall.table_block(result) + portfolio_block(result) + policy_line(result)
            + said + legend + foot + provenance_line(result))


def policy_line(result: Result) -> str:
    """What the buyer holds (tco.resolve.policy), above the recommendation it may change."""
    policy = policy_dict(result.scenario_data)
    if policy is None:
        return ""
    licences = ", ".join(policy["holds_licence"])  # type: ignore[arg-type]
    stock = stock_words(policy)
    held = "; ".join(([f"a licence for {licences}"] if licences else [])
                     + ([(f"cards in service: {stock} (sunk, priced at their resale value "
                         "now)")] if stock else [])) or "nothing stated"
    note = f": {printable(str(policy['note']))}" if policy["note"] else ""
    return f"\nPolicy: the buyer holds {held}{note}\n"


def provenance_line(result: Result) -> str:
    p = provenance(result)
    return (f"\ntco {p['tool_version']}, catalog {p['catalog_digest']}, "
            f"scenario {p['scenario_digest']}\n")


def layout_text(d: dict[str, Any]) -> str:
    """The chosen layout in one line: TP x PP (virtual) x CP x EP, data-parallel replicas."""
    return (f"TP {d['tensor_parallel']} x PP {d['pipeline_parallel']} (v {d['virtual_stages']})"
            f" x CP {d['context_parallel']} x EP {d['expert_parallel']}, "
            f"DP {number(d['data_parallel'], 0)}"
            + (f" ({number(d['idle_cards'], 0)} cards idle)" if d.get("idle_cards") else "")
            + (", recompute" if d["activation_recompute"] else "")
            + (", HSDP" if d.get("hybrid_sharding") else
               ", ZeRO-3" if d.get("parameter_sharding") else "")
            + (", ZeRO-2" if d.get("gradient_sharding") else ""))


def pinned_text(result: Result, c: CandidateResult) -> str:
    """Which degrees of the primary workload's layout the user pinned (`--layout`, or the
    scenario's `layout:`); the search chose the others."""
    base = f"candidates.{c.id}.layout.{c.primary_workload}"
    pins = [k for k in ("tp", "pp", "vp", "cp", "ep", "recompute", "zero3", "zero2", "hsdp")
            if (inp := result.inputs.get(f"{base}.{k}")) is not None
            and inp.origin == "scenario"]
    return f" (pinned: {', '.join(pins)})" if pins else ""


def job_table(result: Result, c: CandidateResult) -> str:
    cur = result.currency
    d = job_dict(result, c)
    lines = [printable(f"{c.info.card_name} x {d['cards']:,} ({c.info.platform_name})")]
    if not c.priced:
        lines.append(printable("infeasible: " + "; ".join(c.reasons)))
        return "\n".join(lines) + "\n"
    if not c.feasible:  # say why; do not print times and costs as if the job could run
        rows = [
            *([["training compute", f"{d['train_flops']:.3e} FLOP"]] if "train_flops" in d
              else []),
            ["memory needed per card", f"{number(d['memory_needed_gb'], 1)} GB"],
            ["memory usable per card", f"{number(d['memory_usable_gb'], 1)} GB"],
        ]
        lines.append(text_table(["quantity", "value"], rows, "lr").rstrip())
        lines.append(printable("INFEASIBLE: " + "; ".join(c.reasons)))
        return "\n".join(lines) + "\n" + provenance_line(result)
    if "tokens_per_s_per_card" in d:  # a serving workload (`tco job --serve`)
        rows = serve_job_rows(d, cur)
        lines.append(text_table(["quantity", "value"], rows, "lr").rstrip())
        return "\n".join(lines + [f"note: {printable(n)}" for n in c.notes + c.info.flags]
                         ) + "\n" + provenance_line(result)
    rows = [
        ["training compute", f"{d['train_flops']:.3e} FLOP"],
        ["layout", layout_text(d) + pinned_text(result, c)],
        ["step time", f"{number(d['step_seconds'], 2)} s"],
        ["accelerator-hours", number(d["gpu_hours"], 0)],
        ["wall-clock", f"{number(d['wall_days'], 1)} days"],
        ["effective MFU", f"{d['effective_mfu']:.1%}"],
        ["energy (facility)", f"{number(d['energy_kwh'], 0)} kWh"],
        ["emissions", f"{number(d['co2e_kg'] / 1000, 1)} t CO2e"],
    ]
    rows += intervals.job_rows(d)
    for comp in JOB_COMPONENTS:
        rows.append([f"cost: {comp}", money(d["cost"][comp], cur)])
    rows.append(["cost: total", money(d["cost"]["total"], cur)])
    lines.append(text_table(["quantity", "value"], rows, "lr").rstrip())
    lines += [n for n in [intervals.job_note(d)] if n]
    for n in c.notes + c.info.flags:
        lines.append(f"note: {printable(n)}")
    if d.get("mixture_of_experts"):
        lines.append(f"note: {MOE_WARNING}")
    return "\n".join(lines) + "\n" + provenance_line(result)
