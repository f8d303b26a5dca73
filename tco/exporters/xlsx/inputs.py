"""The Assumptions sheet (every input the formulas read, one named, unlocked cell each) and the
Catalog sheet (the catalog figures used, with sources, dates and ranges)."""

from __future__ import annotations

from xlsxwriter.worksheet import Worksheet

from ...inputs import Input
from ...result import Result
from .layout import (
    A_ASOF,
    A_LABEL,
    A_NAME,
    A_NOTE,
    A_ORIGIN,
    A_PATH,
    A_RANGE,
    A_SOURCE,
    A_UNIT,
    A_VALUE,
    Plan,
)
from .styles import Styles

MAX_CELL_CHARS = 32767


def text(ws: Worksheet, row: int, col: int, value: object, fmt: object = None) -> None:
    """Write user or catalog text as text: never as a formula, number or link."""
    ws.write_string(row, col, str(value)[:MAX_CELL_CHARS], fmt)


def header(ws: Worksheet, row: int, titles: list[str], st: Styles) -> None:
    for col, title in enumerate(titles):
        text(ws, row, col, title, st("header"))


def unit_of(inp: Input, currency: str) -> str:
    return inp.unit or inp.spec.unit.replace("money", currency)


def _range_text(inp: Input) -> str:
    s = inp.spec
    if s.money:
        return "not negative"
    whole = " (whole number)" if s.integer else ""
    return f"{s.lo:g} to {s.hi:g}{whole}"


def _validation(inp: Input, unit: str) -> dict[str, object]:
    s = inp.spec
    if s.money:
        rule: dict[str, object] = {"validate": "decimal", "criteria": ">=", "value": 0}
        message = f"A price or cost in {unit}; it cannot be negative."
    else:
        rule = {"validate": "integer" if s.integer else "decimal", "criteria": "between",
                "minimum": s.lo, "maximum": s.hi}
        what = "" if s.fraction else f" {unit}"
        message = f"Plausible range {s.lo:g} to {s.hi:g}{what}."
    if s.hint:
        message += f" Expected {s.hint}."
    return {**rule, "ignore_blank": False, "input_title": "Input", "input_message": message[:255],
            "error_title": "Outside the plausible range", "error_message": message[:255],
            "error_type": "stop"}


def _unused_reason(result: Result, inp: Input) -> str:
    if inp.spec.structural:
        return "shapes the model (columns, years): change it in the scenario and regenerate"
    if inp.path.startswith("assumptions."):
        return "default copied into each workload's own input above"
    if inp.path.startswith("candidates."):
        return "candidate not priced (infeasible), so no formula reads it"
    return "not read by this scenario's formulas"


def write_assumptions(ws: Worksheet, result: Result, p: Plan, st: Styles) -> None:
    cur = result.currency
    header(ws, 0, ["Path", "Input", "Value", "Unit", "Source", "As of", "Defined name",
                   "Allowed range", "Origin", "Note"], st)
    row = 1
    for section in p.input_sections:
        _section_row(ws, p.inputs[section.rows[0]].row - 1, section.title, st)
        for path in section.rows:
            inp, row = result.inputs[path], p.inputs[path].row
            unit = unit_of(inp, cur)
            _row(ws, row, inp, unit, st)
            fmt = st("input", "#,##0") if inp.spec.integer else st.value("input", unit, inp.value)
            ws.write_number(row, A_VALUE, inp.value, fmt)
            ws.data_validation(row, A_VALUE, row, A_VALUE, _validation(inp, unit))
            text(ws, row, A_NAME, p.input_name(path))
            text(ws, row, A_RANGE, _range_text(inp))
        row += 1
    if p.unused_inputs:
        row += 1
        _section_row(ws, row, "Not read by any formula (shown for completeness)", st)
        row += 1
        for path in p.unused_inputs:
            inp = result.inputs[path]
            unit = unit_of(inp, cur)
            _row(ws, row, inp, unit, st)
            ws.write_number(row, A_VALUE, inp.value, st.value("static", unit, inp.value))
            text(ws, row, A_NOTE, _unused_reason(result, inp))
            row += 1
    for col, width in ((A_PATH, 54), (A_LABEL, 48), (A_VALUE, 16), (A_UNIT, 14),
                       (A_SOURCE, 60), (A_ASOF, 10), (A_NAME, 44), (A_RANGE, 22),
                       (A_ORIGIN, 10), (A_NOTE, 60)):
        ws.set_column(col, col, width)
    ws.freeze_panes(1, 1)
    ws.protect("", {"format_columns": True, "format_rows": True})


def _row(ws: Worksheet, row: int, inp: Input, unit: str, st: Styles) -> None:
    text(ws, row, A_PATH, inp.path)
    text(ws, row, A_LABEL, inp.label)
    text(ws, row, A_UNIT, unit)
    text(ws, row, A_SOURCE, inp.source)
    text(ws, row, A_ASOF, inp.as_of)
    text(ws, row, A_ORIGIN, inp.origin)
    if inp.note:
        text(ws, row, A_NOTE, inp.note)


def _section_row(ws: Worksheet, row: int, title: str, st: Styles) -> None:
    text(ws, row, A_PATH, title, st("section"))
    for col in range(A_PATH + 1, A_NOTE + 1):
        ws.write_blank(row, col, None, st("section"))


def write_catalog(ws: Worksheet, result: Result, st: Styles) -> None:
    cur = result.currency
    header(ws, 0, ["Path", "Figure", "Value", "Unit", "Low", "High", "Source", "As of",
                   "Note"], st)
    row = 1
    for path, inp in result.inputs.items():
        if inp.origin != "catalog":
            continue
        unit = unit_of(inp, cur)
        text(ws, row, 0, path)
        text(ws, row, 1, inp.label)
        ws.write_number(row, 2, inp.value, st.value("static", unit, inp.value))
        text(ws, row, 3, unit)
        for col, bound in ((4, inp.low), (5, inp.high)):
            if bound is not None:
                ws.write_number(row, col, bound, st.value("static", unit, bound))
        text(ws, row, 6, inp.source)
        text(ws, row, 7, inp.as_of)
        if inp.note:
            text(ws, row, 8, inp.note)
        row += 1
    row += 1
    text(ws, row, 0, "Candidates: hardware, platform and software stack", st("section"))
    row += 1
    titles = ["Candidate", "Name", "Card", "Card name", "Vendor", "Platform", "Stack",
              "Cooling", "Sizing", "Risk flags"]
    for col, title in enumerate(titles):
        text(ws, row, col, title, st("header"))
    row += 1
    for c in result.candidates:
        i = c.info
        for col, value in enumerate([c.id, i.name, i.card, i.card_name, i.vendor,
                                     f"{i.platform_name} ({i.platform})",
                                     f"{i.stack_name} ({i.stack})", i.cooling, i.sizing,
                                     "; ".join(i.flags)]):
            text(ws, row, col, value)
        row += 1
    text(ws, row + 1, 0, "Catalog values as loaded (before any edit on Assumptions; the live "
         "values are there). Low/high is the range the sensitivity and Monte Carlo analyses "
         "use.", st("note"))
    for col, width in ((0, 46), (1, 44), (2, 14), (3, 14), (4, 12), (5, 12), (6, 70), (7, 10),
                       (8, 60), (9, 60)):
        ws.set_column(col, col, width)
    ws.freeze_panes(1, 1)
