"""The procurement workbook: the model as live spreadsheet formulas, each with its computed value.

`write_workbook(result, path)` writes an xlsx file with the sheets

    Summary      rankings, recommendation, infeasible candidates, charts
    Assumptions  every input the formulas read: one named, unlocked, validated cell each
    Model        every quantity of `result.model` as a formula, one column per candidate
    CashFlows    yearly cash flows, years as columns, one block per candidate
    Catalog      the catalog figures used, with sources, dates and ranges
    Sensitivity, MonteCarlo   static engine results, when `result.analyses` has them
    Methodology  formulas in words, conventions, tool version, digests, generation date

Every formula is `quantity.expr.excel(...)`, the same expression the Python engine evaluates,
and is stored with the engine's value so that viewers that do not recalculate show the numbers.
Text from users is always written as text, never as a formula. The sheets' XML passes through
temporary files (the owner's, removed at once) and the file is written atomically; the same
result and date give the same bytes. docs/workbook.md has the
user's guide, and names.py the defined-name rule.
"""

from __future__ import annotations

import io
from datetime import date, datetime
from pathlib import Path

import xlsxwriter
from xlsxwriter.worksheet import Worksheet

from ...analysis.types import MonteCarlo, Sensitivity
from ...dates import output_date
from ...fsio import write_output
from ...gcpause import paused_gc
from ...result import Result
from .inputs import write_assumptions, write_catalog
from .layout import (
    ASSUMPTIONS,
    CASHFLOWS,
    CATALOG,
    METHODOLOGY,
    MODEL,
    MONTECARLO,
    SENSITIVITY,
    SUMMARY,
    Plan,
    engine_values,
    plan,
)
from .model import write_cashflows, write_model
from .notes import write_methodology, write_montecarlo, write_sensitivity
from .quicksheet import PLAIN_FUNCTIONS, QUICK_SUPPORTED, QuickWorksheet
from .styles import Styles
from .summary import write_summary

_OPTIONS = {
    # Each sheet's XML goes to a temporary file of the owner's (tempfile.mkstemp, removed at
    # once) and is zipped from there: a thousand candidates' 85 MB of XML, held as text,
    # encoded and zipped in memory, raised the report's peak by 200 MB. The zip entries are
    # dated 1980-01-31 either way the same, whatever the time zone.
    "in_memory": False,
    "constant_memory": False,
    # User text stays text: never a formula, a number or a hyperlink.
    "strings_to_formulas": False,
    "strings_to_numbers": False,
    "strings_to_urls": False,
}


_HEADER_ROWS = {ASSUMPTIONS: 1, MODEL: 2, CASHFLOWS: 1, CATALOG: 1}

# The quick worksheet (quicksheet.py) where the installed xlsxwriter allows it.
_Worksheet = QuickWorksheet
_PLAIN_FUNCTIONS = PLAIN_FUNCTIONS


def _worksheet_class() -> type[Worksheet]:
    return _Worksheet if QUICK_SUPPORTED else Worksheet


def generation_date() -> date:
    """Today (UTC), or the UTC date of SOURCE_DATE_EPOCH when set (see tco.dates)."""
    return output_date()


def write_workbook(result: Result, path: Path | str, *, generated: date | None = None,
                   lang: str = "en") -> Path:
    """Write the workbook to `path` (tco.fsio.write_output: atomically, nothing half-written on
    failure; streamed into a device or pipe), in English or Chinese (`lang`: sheet names,
    labels, notes and number formats; the formulas and values are the same)."""
    return write_output(path, workbook_bytes(result, generated=generated, lang=lang))


def workbook_bytes(result: Result, *, generated: date | None = None, lang: str = "en") -> bytes:
    with paused_gc():  # a million cells for a thousand candidates, none of them garbage
        return _workbook_bytes(result, generated, lang)


def _workbook_bytes(result: Result, generated: date | None, lang: str) -> bytes:
    day = generated or generation_date()
    buf = io.BytesIO()
    wb = xlsxwriter.Workbook(buf, _OPTIONS)
    p = plan(result, lang)
    t = p.words
    wb.set_properties({
        "title": t("TCO workbook: {name}", name=result.scenario.name)[:255],
        "subject": t("Total cost of ownership of AI training accelerators"),
        "author": "tco",
        "company": "",
        "comments": f"tco {result.provenance.tool_version}; catalog "
                    f"{result.provenance.catalog_digest}; scenario "
                    f"{result.provenance.scenario_digest}",
        "created": datetime(day.year, day.month, day.day),
    })
    wb.set_calc_mode("auto")
    wb.set_size(1600, 1000)
    st = Styles(wb, result.currency, t)
    values = engine_values(result)
    sheet_class = _worksheet_class()
    sheets = {name: wb.add_worksheet(p.sheet(name), sheet_class)
              for name in (SUMMARY, ASSUMPTIONS, MODEL, CASHFLOWS, CATALOG)}
    sens = result.analyses.get("sensitivity")
    mc = result.analyses.get("montecarlo")
    if isinstance(sens, Sensitivity):
        sheets[SENSITIVITY] = wb.add_worksheet(p.sheet(SENSITIVITY), sheet_class)
    if isinstance(mc, MonteCarlo):
        sheets[MONTECARLO] = wb.add_worksheet(p.sheet(MONTECARLO), sheet_class)
    sheets[METHODOLOGY] = wb.add_worksheet(p.sheet(METHODOLOGY), sheet_class)

    _define_names(wb, p)
    write_summary(wb, sheets[SUMMARY], result, p, values, st, day.isoformat())
    write_assumptions(sheets[ASSUMPTIONS], result, p, st)
    write_model(sheets[MODEL], result, p, values, st)
    write_cashflows(sheets[CASHFLOWS], result, p, values, st)
    write_catalog(sheets[CATALOG], result, st)
    if isinstance(sens, Sensitivity):
        write_sensitivity(sheets[SENSITIVITY], sens, st)
    if isinstance(mc, MonteCarlo):
        write_montecarlo(sheets[MONTECARLO], result, mc, st)
    write_methodology(sheets[METHODOLOGY], result, st, day.isoformat())
    for name, ws in sheets.items():  # printing: landscape, one page wide, headers repeated
        ws.set_landscape()
        ws.fit_to_pages(1, 0)
        if name in _HEADER_ROWS:
            ws.repeat_rows(0, _HEADER_ROWS[name] - 1)
    sheets[SUMMARY].activate()
    wb.close()
    return buf.getvalue()


def _define_names(wb: xlsxwriter.Workbook, p: Plan) -> None:
    for path, cell in p.inputs.items():
        wb.define_name(p.input_name(path), "=" + cell.ref(absolute=True))
    for name, qname in p.headline_quantity.items():
        wb.define_name(name, "=" + p.quantities[qname].ref(absolute=True))
