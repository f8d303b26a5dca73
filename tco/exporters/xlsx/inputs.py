"""The Assumptions sheet (every input the formulas read, one named, unlocked cell each) and the
Catalog sheet (the catalog figures used, with sources, dates and ranges)."""

from __future__ import annotations

from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.worksheet import Worksheet

from ...inputs import EQUAL_TO, Input, InputSpec
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
ORIGINS = {"catalog": "catalog", "scenario": "scenario", "default": "default",
           "derived": "derived", "quote": "quote", "measured": "measured by you"}
SIZING = {"cards": "cards", "deadline_days": "deadline_days", "power_cap_kw": "power_cap_kw",
          "plan": "cards: auto"}


def text(ws: Worksheet, row: int, col: int, value: object, fmt: object = None) -> None:
    """Write user or catalog text as text: never as a formula, number or link."""
    string = value if type(value) is str else str(value)
    ws.write_string(row, col, string if len(string) <= MAX_CELL_CHARS
                    else string[:MAX_CELL_CHARS], fmt)


def header(ws: Worksheet, row: int, titles: list[str], st: Styles) -> None:
    for col, title in enumerate(titles):
        text(ws, row, col, st.t(title), st("header"))


def unit_of(inp: Input, currency: str) -> str:
    """The unit that picks the number format (and is shown in the English workbook)."""
    return inp.unit or inp.spec.unit.replace("money", currency)


def shown_unit(inp: Input, st: Styles) -> str:
    """The unit as the workbook's reader reads it."""
    if st.lang == "en":
        return unit_of(inp, st.currency)
    return st.t.unit(inp.unit, st.currency) if inp.unit else st.t.strings.unit(
        inp.spec.unit, st.currency)


def _range_text(inp: Input, st: Styles) -> str:
    s, t = inp.spec, st.t
    if s.money:
        return t("not negative")
    whole = t(" (whole number)") if s.integer else ""
    return t("{lo} to {hi}", lo=f"{s.lo:g}", hi=f"{s.hi:g}") + whole


def _validation(inp: Input, unit: str, st: Styles) -> dict[str, object]:
    s, t = inp.spec, st.t
    if s.money:
        rule: dict[str, object] = {"validate": "decimal", "criteria": ">=", "value": 0}
        message = t("A price or cost in {unit}; it cannot be negative.", unit=unit)
    else:
        rule = {"validate": "integer" if s.integer else "decimal", "criteria": "between",
                "minimum": s.lo, "maximum": s.hi}
        what = "" if s.fraction or not unit else f" {unit}"
        message = t("Plausible range {lo} to {hi}{unit}.", lo=f"{s.lo:g}", hi=f"{s.hi:g}",
                    unit=what)
    if s.hint and st.lang == "en":
        message += f" Expected {s.hint}."
    return {**rule, "ignore_blank": False, "input_title": t("Input"),
            "input_message": message[:255], "error_title": t("Outside the plausible range"),
            "error_message": message[:255], "error_type": "stop"}


def cell_ranges(rows: list[int], col: int) -> str:
    """The cells of `col` in `rows` (ascending) as a space-separated list of ranges, each run
    of consecutive rows one range: "C3:C5 C9"."""
    name = xl_col_to_name(col)
    out = []
    start = prev = rows[0]
    for r in [*rows[1:], None]:
        if r is not None and r == prev + 1:
            prev = r
            continue
        out.append(f"{name}{start + 1}" if start == prev else f"{name}{start + 1}:{name}{prev + 1}")
        if r is not None:
            start = prev = r
    return " ".join(out)


def _unused_reason(result: Result, inp: Input, st: Styles) -> str:
    t = st.t
    if inp.spec.structural:
        return t("shapes the model (columns, years): change it in the scenario and regenerate")
    if inp.path.startswith("assumptions."):
        return t("default copied into each workload's own input above")
    if inp.path.startswith("candidates."):
        return t("candidate not priced (infeasible), so no formula reads it")
    return t("not read by this scenario's formulas")


def write_assumptions(ws: Worksheet, result: Result, p: Plan, st: Styles) -> None:
    header(ws, 0, ["Path", "Input", "Value", "Unit", "Source", "As of", "Defined name",
                   "Allowed range", "Origin", "Note"], st)
    row = 1
    # the same for many candidates: the validation, its rule as compared, the allowed range
    rules: dict[tuple[InputSpec, str], tuple[dict[str, object], tuple[object, ...], str]] = {}
    validated: dict[tuple[object, ...], tuple[dict[str, object], list[int]]] = {}  # rows by rule
    for section in p.input_sections:
        _section_row(ws, p.inputs[section.rows[0]].row - 1, section.title, st)
        for path in section.rows:
            inp, row = result.inputs[path], p.inputs[path].row
            unit = unit_of(inp, st.currency)
            _row(ws, row, inp, st)
            fmt = st("input", "#,##0") if inp.spec.integer else st.value("input", unit, inp.value)
            source = inp.meta.get(EQUAL_TO, "")
            if source in p.inputs:
                # a default equal to another input (a dense model's active parameters are its
                # parameters): it follows that one's cell, as resolving the edited scenario would
                ws.write_formula(row, A_VALUE, f"={p.input_name(source)}", fmt, inp.value)
            else:
                ws.write_number(row, A_VALUE, inp.value, fmt)
            key = (inp.spec, shown_unit(inp, st))
            known = rules.get(key)
            if known is None:
                rule = _validation(inp, key[1], st)
                known = rules[key] = (rule, tuple((k, repr(v)) for k, v in rule.items()),
                                      _range_text(inp, st))  # 0 and 0.0 are written apart
            rule, same, allowed = known
            validated.setdefault(same, (rule, []))[1].append(row)
            text(ws, row, A_NAME, p.input_name(path))
            text(ws, row, A_RANGE, allowed)
        row += 1
    # One validation per rule over all its cells: Excel drops a sheet's validations past about
    # 60,000 of them, and one per cell made 31,000 for a thousand candidates.
    for rule, rows in validated.values():
        ws.data_validation(rows[0], A_VALUE, rows[0], A_VALUE,
                           {**rule, "multi_range": cell_ranges(rows, A_VALUE)})
    if p.unused_inputs:
        row += 1
        _section_row(ws, row, st.t("Not read by any formula (shown for completeness)"), st)
        row += 1
        for path in p.unused_inputs:
            inp = result.inputs[path]
            unit = unit_of(inp, st.currency)
            _row(ws, row, inp, st)
            ws.write_number(row, A_VALUE, inp.value, st.value("static", unit, inp.value))
            text(ws, row, A_NOTE, _unused_reason(result, inp, st))
            row += 1
    for col, width in ((A_PATH, 54), (A_LABEL, 48), (A_VALUE, 16), (A_UNIT, 14),
                       (A_SOURCE, 60), (A_ASOF, 10), (A_NAME, 44), (A_RANGE, 22),
                       (A_ORIGIN, 10), (A_NOTE, 60)):
        ws.set_column(col, col, width)
    ws.freeze_panes(1, 1)
    ws.protect("", {"format_columns": True, "format_rows": True})


def _row(ws: Worksheet, row: int, inp: Input, st: Styles) -> None:
    t = st.t
    text(ws, row, A_PATH, inp.path)
    text(ws, row, A_LABEL, t.input_label(inp.path, inp.label))
    text(ws, row, A_UNIT, shown_unit(inp, st))
    text(ws, row, A_SOURCE, t.source(inp.source))
    text(ws, row, A_ASOF, inp.as_of)
    text(ws, row, A_ORIGIN, t(ORIGINS.get(inp.origin, inp.origin)))
    if inp.note:
        text(ws, row, A_NOTE, t.note(inp.note))


def _section_row(ws: Worksheet, row: int, title: str, st: Styles) -> None:
    text(ws, row, A_PATH, title, st("section"))
    for col in range(A_PATH + 1, A_NOTE + 1):
        ws.write_blank(row, col, None, st("section"))


def write_catalog(ws: Worksheet, result: Result, st: Styles) -> None:
    cur, t = result.currency, st.t
    header(ws, 0, ["Path", "Figure", "Value", "Unit", "Low", "High", "Source", "As of",
                   "Note"], st)
    row = 1
    for path, inp in result.inputs.items():
        if inp.origin != "catalog":
            continue
        unit = unit_of(inp, cur)
        text(ws, row, 0, path)
        text(ws, row, 1, t.input_label(path, inp.label))
        ws.write_number(row, 2, inp.value, st.value("static", unit, inp.value))
        text(ws, row, 3, shown_unit(inp, st))
        for col, bound in ((4, inp.low), (5, inp.high)):
            if bound is not None:
                ws.write_number(row, col, bound, st.value("static", unit, bound))
        text(ws, row, 6, t.source(inp.source))
        text(ws, row, 7, inp.as_of)
        if inp.note:
            text(ws, row, 8, t.note(inp.note))
        row += 1
    row += 1
    text(ws, row, 0, t("Candidates: hardware, platform and software stack"), st("section"))
    row += 1
    titles = ["Candidate", "Name", "Card", "Card name", "Vendor", "Platform", "Stack",
              "Cooling", "Sizing", "Risk flags"]
    for col, title in enumerate(titles):
        text(ws, row, col, t(title), st("header"))
    row += 1
    for c in result.candidates:
        i = c.info
        for col, value in enumerate([c.id, t.name(i.name), i.card, t.name(i.card_name),
                                     t.name(i.vendor), f"{t.name(i.platform_name)} ({i.platform})",
                                     f"{t.name(i.stack_name)} ({i.stack})",
                                     t.strings.cooling(i.cooling) if t.lang != "en" else i.cooling,
                                     t(SIZING.get(i.sizing, i.sizing)),
                                     t.strings("list_sep").join(t.message(f) for f in i.flags)]):
            text(ws, row, col, value)
        row += 1
    text(ws, row + 1, 0, t("Catalog values as loaded (before any edit on Assumptions; the live "
         "values are there). Low/high is the range the sensitivity and Monte Carlo analyses "
         "use."), st("note"))
    for col, width in ((0, 46), (1, 44), (2, 14), (3, 14), (4, 12), (5, 12), (6, 70), (7, 10),
                       (8, 60), (9, 60)):
        ws.set_column(col, col, width)
    ws.freeze_panes(1, 1)
