"""The procurement workbook: the model as live spreadsheet formulas, each with its computed value.

`write_workbook(result, path)` writes an xlsx file with the sheets

    Summary      rankings, recommendation, infeasible candidates, charts
    Assumptions  every input the formulas read: one named, unlocked, validated cell each
    Model        every quantity of `result.model` as a formula, one column per candidate
    CashFlows    yearly cash flows, years as columns, one block per candidate
    Catalog      the catalog figures used, with sources, dates and ranges
    Frontier     a serving workload's throughput-interactivity frontier (frontier.py)
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

import functools
import io
import threading
import warnings
import zipfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from datetime import date, datetime
from pathlib import Path

import xlsxwriter
import xlsxwriter.packager
import xlsxwriter.workbook
from xlsxwriter.sharedstrings import SharedStrings
from xlsxwriter.worksheet import Worksheet

from ...analysis.types import MonteCarlo, Sensitivity
from ...dates import output_date
from ...fsio import write_output
from ...gcpause import paused_gc
from ...result import Result
from . import plan as plan_sheet
from .frontier import FRONTIER, has_frontier, write_frontier
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
from .quicksheet import (
    PLAIN_FUNCTIONS,
    QUICK_SUPPORTED,
    QuickSharedStrings,
    QuickWorksheet,
    define_names,
)
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
# The quick shared strings and defined names (quicksheet.py); False: xlsxwriter's own.
_QUICK_PARTS = QUICK_SUPPORTED
_PLAIN_FUNCTIONS = PLAIN_FUNCTIONS


def _worksheet_class() -> type[Worksheet]:
    return _Worksheet if QUICK_SUPPORTED else Worksheet


# The zip's deflate level. xlsxwriter zips at zlib's default (6); level 1 zips a thousand
# candidates' 80 MB of XML in a quarter of the time, into a file a quarter larger (12 MB, not
# 9.5). The level is not an option of xlsxwriter's: `quick_deflate` gives it to the ZipFile
# that xlsxwriter makes, where xlsxwriter makes one as the releases we know do.
DEFLATE_LEVEL = 1
_ZIP_LOCK = threading.Lock()


@contextmanager
def quick_deflate() -> Iterator[None]:
    """While the block runs, the ZipFile that xlsxwriter's Workbook.close() makes zips at
    DEFLATE_LEVEL (and its shared strings are written quickly: `_quick_shared_strings`). xlsxwriter.workbook names zipfile.ZipFile as `ZipFile` (3.1 to 3.3); a
    release that does not is left as it is (its own level)."""
    module = xlsxwriter.workbook
    with _ZIP_LOCK:  # one workbook closed at a time, so that the name is always put back
        if getattr(module, "ZipFile", None) is not zipfile.ZipFile:
            yield
            return
        module.ZipFile = functools.partial(zipfile.ZipFile,  # type: ignore[attr-defined]
                                           compresslevel=DEFLATE_LEVEL)
        try:
            with _quick_shared_strings():
                yield
        finally:
            module.ZipFile = zipfile.ZipFile  # type: ignore[attr-defined]


@contextmanager
def _quick_shared_strings() -> Iterator[None]:
    """While the block runs (within quick_deflate's lock), xlsxwriter's packager writes the
    shared strings with QuickSharedStrings (quicksheet.py), where the quick worksheet is
    supported and the packager names xlsxwriter's SharedStrings as `SharedStrings`."""
    packager = xlsxwriter.packager
    stock = getattr(packager, "SharedStrings", None)
    if not _QUICK_PARTS or stock is not SharedStrings:
        yield
        return
    packager.SharedStrings = QuickSharedStrings  # type: ignore[attr-defined]
    try:
        yield
    finally:
        packager.SharedStrings = stock  # type: ignore[attr-defined]


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
        return Draft(result, generated=generated, lang=lang).finish(result.analyses)


WORKBOOK_ANALYSES = ("sensitivity", "montecarlo")  # the analyses Draft.finish shows


class Draft:
    """A workbook written in two steps, so that most of it can be written before the analyses
    are done (tco/exporters/outputs.py does so in a second process while they run).

    `Draft(result, ...)` writes every sheet that needs only the computed result (Summary,
    Assumptions, Model, CashFlows, Catalog) and, with the quick worksheet, already writes the
    XML of the sheets after Summary into temporary files in `tmpdir` (None: the system's);
    `add(name, analysis)` adds an analysis's sheet as soon as the analysis is done (in the
    order of WORKBOOK_ANALYSES: one that comes early waits for those before it) and
    `finish(analyses)` adds the sheets not added yet and Methodology, and returns the file. The bytes are those of writing it all at once: the sheets are written, and
    their formats first asked for, in the same order. `discard()` removes the temporary files
    of a draft that will not be finished.
    """

    def __init__(self, result: Result, *, generated: date | None = None, lang: str = "en",
                 tmpdir: str | None = None) -> None:
        self.result = result
        self.day = generated or generation_date()
        self.buf = io.BytesIO()
        self.wb = wb = xlsxwriter.Workbook(self.buf, {**_OPTIONS, "tmpdir": tmpdir})
        self.plan = p = plan(result, lang)
        self.tmpdir = tmpdir
        t = p.words
        wb.set_properties({
            "title": t("TCO workbook: {name}", name=result.scenario.name)[:255],
            "subject": t("Total cost of ownership of AI training accelerators"),
            "author": "tco",
            "company": "",
            "comments": f"tco {result.provenance.tool_version}; catalog "
                        f"{result.provenance.catalog_digest}; scenario "
                        f"{result.provenance.scenario_digest}",
            "created": datetime(self.day.year, self.day.month, self.day.day),
        })
        wb.set_calc_mode("auto")
        wb.set_size(1600, 1000)
        self.st = st = Styles(wb, result.currency, t)
        values = engine_values(result)
        self.sheets = sheets = {name: self._add(name)
                                for name in (SUMMARY, ASSUMPTIONS, MODEL, CASHFLOWS, CATALOG)}
        sheets[SUMMARY].activate()
        _define_names(wb, p)
        p.plan_sheet = plan_sheet.place(result, p)  # the plans' names and cells (plan.py)
        plan_sheet.define(wb, p.plan_sheet)
        self.early = early = _Early(wb, tmpdir)
        self.analyses: dict[str, object] = {}  # those added so far
        self.added = 0  # WORKBOOK_ANALYSES[:added] have their sheets (or will have none)
        try:
            write_summary(wb, sheets[SUMMARY], result, p, values, st, self.day.isoformat())
            early.first(sheets[SUMMARY])
            write_assumptions(sheets[ASSUMPTIONS], result, p, st)
            early.next(sheets[ASSUMPTIONS])
            write_model(sheets[MODEL], result, p, values, st)
            early.next(sheets[MODEL])
            write_cashflows(sheets[CASHFLOWS], result, p, values, st)
            early.next(sheets[CASHFLOWS])
            write_catalog(sheets[CATALOG], result, st)
            early.next(sheets[CATALOG])
            if has_frontier(result):  # a scenario that serves: its frontier (frontier.py)
                write_frontier(self._more(FRONTIER), result, p, st)
                early.next(sheets[FRONTIER])
            if p.plan_sheet is not None:  # the plans: their quantities and live money
                plan_sheet.write_plan(self._more(plan_sheet.PLAN), result, p, p.plan_sheet, st)
                early.next(sheets[plan_sheet.PLAN])
            p.drop_quantities()  # the sheets `finish` adds read none
        except BaseException:
            self.discard()
            raise

    def _add(self, name: str) -> Worksheet:
        """A new sheet, set up for printing: landscape, one page wide, headers repeated."""
        ws = self.wb.add_worksheet(self.plan.sheet(name), _worksheet_class())
        ws.set_landscape()
        ws.fit_to_pages(1, 0)
        if name in _HEADER_ROWS:
            ws.repeat_rows(0, _HEADER_ROWS[name] - 1)
        return ws

    def _more(self, name: str) -> Worksheet:
        """A sheet added after the draft, written early like the draft's (a thousand
        candidates' Sensitivity has 400,000 cells) and removed by `discard` as they are."""
        ws = self.sheets[name] = self._add(name)
        return ws

    def add(self, name: str, analysis: object) -> None:
        """One analysis (a key of `Result.analyses`) as soon as it is done: its sheet is
        written now if the sheets before it are (else when they are, or at `finish`)."""
        self.analyses[name] = analysis
        try:
            while (self.added < len(WORKBOOK_ANALYSES)
                   and WORKBOOK_ANALYSES[self.added] in self.analyses):
                self._analysis_sheet(WORKBOOK_ANALYSES[self.added])
                self.added += 1
        except BaseException:
            self.discard()
            raise

    def _analysis_sheet(self, name: str) -> None:
        """The sheet of analysis `name`, when it is one the workbook shows."""
        got = self.analyses.get(name)
        if name == "sensitivity" and isinstance(got, Sensitivity):
            write_sensitivity(self._more(SENSITIVITY), got, self.st)
            self.early.next(self.sheets[SENSITIVITY])
        elif name == "montecarlo" and isinstance(got, MonteCarlo):
            write_montecarlo(self._more(MONTECARLO), self.result, got, self.st)
            self.early.next(self.sheets[MONTECARLO])

    def finish(self, analyses: Mapping[str, object]) -> bytes:
        """Add the sheets of the analyses (`analyses` as `Result.analyses` holds them) not
        added yet and Methodology, and return the file."""
        try:
            for name in WORKBOOK_ANALYSES[self.added:]:
                self.analyses.setdefault(name, analyses.get(name))
                self._analysis_sheet(name)
            self.added = len(WORKBOOK_ANALYSES)
            write_methodology(self._more(METHODOLOGY), self.result, self.st,
                              self.day.isoformat())
            with quick_deflate():
                self.wb.close()
        finally:
            self.discard()
        data = self.buf.getvalue()
        self.buf.close()  # (the file once, not twice)
        return data

    def discard(self) -> None:
        for ws in self.sheets.values():
            if isinstance(ws, QuickWorksheet):
                ws.discard_early()


class _Early:
    """Writes the XML of each sheet after the first as soon as the sheet is written
    (QuickWorksheet.assemble_early), and lets go of its cells unless a chart reads them: a
    thousand candidates' Model, CashFlows and Assumptions are a few hundred megabytes of
    cells. The first sheet (the Summary, with its charts, laid out only at close) has its XML
    written into memory and thrown away, so that its formats get their indices before the
    others', as at close. It stops, for that sheet and the ones after it, at a sheet that is
    not a quick worksheet or has parts laid out at close (charts, links, comments)."""

    def __init__(self, wb: xlsxwriter.Workbook, tmpdir: str | None) -> None:
        self.wb, self.tmpdir = wb, tmpdir
        self.on = False
        self.charted: set[str] | None = set()  # the sheets charts read (None: not known)

    def first(self, ws: Worksheet) -> None:
        self.on = isinstance(ws, QuickWorksheet) and ws.dry_run_safe()
        if self.on:
            ws.ask_formats()
            self.charted = _charted_sheets(self.wb)

    def next(self, ws: Worksheet) -> None:
        self.on = self.on and isinstance(ws, QuickWorksheet) and ws.plain_parts()
        if not self.on:
            return
        ws.assemble_early(self.tmpdir)
        if self.charted is not None and ws.name not in self.charted:
            ws.drop_cells()


def _charted_sheets(wb: xlsxwriter.Workbook) -> set[str] | None:
    """The names of the sheets whose cells the workbook's charts read (xlsxwriter caches
    their values at close), or None when a chart's range cannot be read."""
    names = set()
    for chart in getattr(wb, "charts", None) or ():
        for rng in getattr(chart, "formula_ids", None) or ():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sheet, _cells = wb._get_chart_range(rng)
            if sheet is None or sheet.startswith("("):
                return None
            names.add(sheet)
    return names


def _define_names(wb: xlsxwriter.Workbook, p: Plan) -> None:
    names = [(p.input_name(path), "=" + cell.ref(absolute=True))
             for path, cell in p.inputs.items()]
    names += [(name, "=" + p.quantities[qname].ref(absolute=True))
              for name, qname in p.headline_quantity.items()]
    if _QUICK_PARTS:
        define_names(wb, names)
    else:
        for name, formula in names:
            wb.define_name(name, formula)
