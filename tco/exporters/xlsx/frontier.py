"""The workbook's Frontier sheet (a scenario that serves): for each serving workload and each
option, the throughput-interactivity frontier the engine computed (tco.frontier: static values,
like the Sensitivity sheet's) and, above it, the operating point the objective picks as live
formulas reading the Model sheet, so that an edit to Assumptions moves it."""

from __future__ import annotations

from xlsxwriter.worksheet import Worksheet

from ...result import Result
from .inputs import header, text
from .layout import Plan
from .styles import Styles

FRONTIER = "Frontier"
NOTE = ("The frontier is computed by the tco engine when this workbook was generated: static "
        "values (the model's formulas over a range of objectives; run `tco report` again after "
        "editing Assumptions). The row at the objective reads the Model sheet: it is live.")
# (title, the frontier point's field, the model quantity of the operating point, unit)
COLUMNS = (
    ("Tokens/s per user (mean)", "tokens_per_s_per_user", "tokens_per_s_per_user", "tokens/s"),
    ("Output tokens/s per card", "tokens_per_s_per_card", "tokens_per_s_per_card", "tokens/s"),
    ("Tensor parallel", "tensor_parallel", "tensor_parallel", "cards"),
    ("Precision", "precision", "serving_precision", "code"),
    ("Time to first token, mean (ms)", "ttft_ms", "ttft_ms", "ms"),
    ("Time per output token, p99 (ms)", "tpot_p99_ms", "tpot_p99_ms", "ms"),
    ("Cost per million output tokens", "cost_per_million_output_tokens",
     "cost_per_million_output_tokens", "money"),
)


def has_frontier(result: Result) -> bool:
    return any(kind == "serve" for _w, _p, kind in result.structure.workloads)


def write_frontier(ws: Worksheet, result: Result, p: Plan, st: Styles) -> None:
    t = st.t
    text(ws, 0, 0, t("Throughput against interactivity (the serving frontier)"), st("title"))
    text(ws, 1, 0, t(NOTE), st("subtitle"))
    here = p.sheet(FRONTIER)
    row = 3
    for wid, frontiers in result.frontiers.items():
        text(ws, row, 0, t("Serving workload {workload}", workload=wid), st("section"))
        row += 1
        for cid, fr in frontiers.items():
            header(ws, row, ["Option", *(c[0] for c in COLUMNS)], st)
            row += 1
            text(ws, row, 0, t("{option}: at the objective (live)", option=cid), st("label"))
            for col, (_title, field, qkey, unit) in enumerate(COLUMNS, start=1):
                cell = p.quantities.get(f"{cid}.{wid}.{qkey}")
                value = None if fr.operating is None else getattr(fr.operating, field)
                if cell is None:
                    continue
                shown = value if isinstance(value, (int, float)) else 0.0
                fmt = st.money("formula", shown) if unit == "money" else st.value(
                    "formula", unit, shown)
                ws.write_formula(row, col, "=" + cell.ref(here), fmt,
                                 _engine(result, cid, wid, qkey))
            row += 1
            for pt in fr.points:
                text(ws, row, 0, cid, st("static"))
                for col, (_title, field, _q, unit) in enumerate(COLUMNS, start=1):
                    v = getattr(pt, field)
                    if isinstance(v, str):
                        text(ws, row, col, v.upper(), st("static"))
                    elif unit == "money":
                        ws.write_number(row, col, v, st.money("static", v))
                    else:
                        ws.write_number(row, col, v, st.value("static", unit, v))
                row += 1
            if not fr.points:
                text(ws, row, 0, t("{option} serves no interactivity within memory", option=cid))
                row += 1
            row += 1
    ws.set_column(0, 0, 34)
    ws.set_column(1, len(COLUMNS), 18)
    ws.freeze_panes(3, 1)


def _engine(result: Result, cid: str, wid: str, key: str) -> float:
    """The engine's value of a job quantity (what a viewer that does not recalculate shows)."""
    job = next(c for c in result.candidates if c.id == cid).jobs.get(wid, {})
    v = job.get(key, 0.0)
    return float(v) if isinstance(v, (int, float)) else 0.0
