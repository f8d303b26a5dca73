"""xlsxwriter's worksheet, quicker where a workbook of a thousand candidates (1.3 million cells,
three hundred thousand of them formulas) spent most of its time. The file is the same, byte for
byte: tests/test_scale.py writes each workbook both ways and compares, and checks every kind of
cell against xlsxwriter's own code.

The cells are kept exactly as xlsxwriter keeps them (its named tuples in `table`, so charts read
their cached data as usual); what changes is the work around them:

* Writing a cell: the public `write_*` methods skip the decorator that would first try to read
  the row as "A1" notation, and a number, string, blank or tree formula inside the sheet's
  bounds is stored at once. The sheet's extent (`dim_*`, which xlsxwriter updates on every
  write) is taken from the stored cells when the sheet is assembled.
* Preparing a formula: xlsxwriter tries some thirty regular-expression substitutions on every
  formula (to prefix the names of newer functions with `_xlfn.`). A formula whose every call is
  one of `PLAIN_FUNCTIONS` comes out of them unchanged, so it is only stripped of its `=`;
  anything else goes through xlsxwriter's own code. `write_tree_formula` stores a formula that
  tco.expr.formula wrote, which calls only such functions, as xlsxwriter would store it.
* Writing the XML: each row's cells are formatted by one f-string each and written in one piece,
  with the row's `spans` found from the stored cells; the format indices are asked for in the
  order xlsxwriter asks for them, so they come out the same. A kind of cell not written here
  (a boolean, a rich string, ...) goes through xlsxwriter's own `_write_cell`.

Two parts of the file outside the sheets are written the same way: the shared strings
(`QuickSharedStrings`, one f-string per string that xlsxwriter would only escape) and the
defined names (`define_names`, stored at once when they pass xlsxwriter's checks).

It reads xlsxwriter's private internals as the 3.3 series has them (3.1 and 3.2 differ): any
other release gets xlsxwriter's own worksheet (workbook.py), which writes the same file,
only slower.
"""

from __future__ import annotations

import contextlib
import io
import math
import os
import re
import tempfile
from typing import Any

import xlsxwriter
from xlsxwriter import worksheet as _stock
from xlsxwriter.sharedstrings import SharedStrings
from xlsxwriter.utility import xl_col_to_name
from xlsxwriter.worksheet import Worksheet

QUICK_SERIES = (3, 3)
QUICK_SUPPORTED = tuple(int(x) for x in xlsxwriter.__version__.split(".")[:2]) == QUICK_SERIES

# Functions the model's formulas call (tco.expr) and the sheets add (NPV, RANK): all in Excel
# since before 2010, so xlsxwriter never rewrites them as future (`_xlfn.`) functions.
PLAIN_FUNCTIONS = frozenset({"MIN", "MAX", "SUM", "IF", "AND", "OR", "ROUNDUP", "ROUNDDOWN",
                             "PMT", "NPV", "RANK"})
_CALL = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*)\(")
_ERROR_CODES = frozenset({"#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!"})

# The cells as xlsxwriter 3.3 stores them (absent from other releases, which never use them).
_NUMBER = getattr(_stock, "CellNumberTuple", None)
_STRING = getattr(_stock, "CellStringTuple", None)
_FORMULA = getattr(_stock, "CellFormulaTuple", None)
_BLANK = getattr(_stock, "CellBlankTuple", None)

_ROWS, _COLS = 1048576, 16384  # a sheet's bounds
_SHORT_STRING = 32767 // 2  # no string this long can pass Excel's limit of 32,767 UTF-16 units


def escape(data: str) -> str:
    """xlsxwriter's escaping of XML character data (quotes stay as they are)."""
    if "&" in data or "<" in data or ">" in data:
        return data.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return data


class QuickWorksheet(Worksheet):
    """xlsxwriter's worksheet with cheap cell writes and a quick XML writer (module docstring)."""

    write_formula = Worksheet._write_formula

    # --- writing cells --------------------------------------------------------------------

    def write_number(self, row: int, col: int, number: float, cell_format: Any = None) -> int:
        if (0 <= row < _ROWS and 0 <= col < _COLS and type(number) in (float, int)
                and math.isfinite(number) and not self.constant_memory):
            self.table[row][col] = _NUMBER(number, cell_format)
            return 0
        return self._write_number(row, col, number, cell_format)  # type: ignore[no-any-return]

    def write_string(self, row: int, col: int, string: str, cell_format: Any = None) -> int:
        if (0 <= row < _ROWS and 0 <= col < _COLS and len(string) <= _SHORT_STRING
                and not self.constant_memory):
            strings = self.str_table  # xlsxwriter's look-up, without its call for a known one
            index = strings.string_table.get(string)
            if index is None:
                index = strings._get_shared_string_index(string)
            else:
                strings.count += 1
            self.table[row][col] = _STRING(index, cell_format)
            return 0
        return self._write_string(row, col, string, cell_format)  # type: ignore[no-any-return]

    def write_blank(self, row: int, col: int, blank: Any, cell_format: Any = None) -> int:
        if cell_format is None:
            return 0  # as xlsxwriter: a blank cell is written only for its format
        if 0 <= row < _ROWS and 0 <= col < _COLS and not self.constant_memory:
            self.table[row][col] = _BLANK(cell_format)
            return 0
        return self._write_blank(row, col, blank, cell_format)  # type: ignore[no-any-return]

    def write_tree_formula(self, row: int, col: int, formula: str, cell_format: Any,
                           value: Any) -> int:
        """A formula that tco.expr.formula wrote from an expression tree (without a leading
        `=`): it calls only `tco.expr.FUNCTIONS` and NPV, none of them a future or dynamic-array
        function, so it is stored as `_write_formula` would store it after finding that out."""
        if 0 <= row < _ROWS and 0 <= col < _COLS and not self.constant_memory:
            self.table[row][col] = _FORMULA(formula, cell_format, value)
            return 0
        return self._write_formula(row, col, formula, cell_format, value)  # type: ignore[no-any-return]

    def _prepare_formula(self, formula: str, expand_future_functions: bool = False) -> str:
        if (self.use_future_functions or expand_future_functions or "_xlfn." in formula
                or not PLAIN_FUNCTIONS.issuperset(_CALL.findall(formula))):
            return super()._prepare_formula(formula, expand_future_functions)  # type: ignore[no-any-return]
        formula = formula.removeprefix("{")
        formula = formula.removeprefix("=")
        formula = formula.removesuffix("}")
        return formula

    # --- writing the XML ------------------------------------------------------------------

    def _assemble_xml_file(self) -> None:
        early = getattr(self, "_early_xml", None)
        if early is not None:  # written by assemble_early: the packager's file takes it
            self._early_xml = None
            self.fh.close()
            os.replace(early, self.fh.name)
            return
        self._take_extent()
        super()._assemble_xml_file()

    # --- writing the XML before the workbook is closed ------------------------------------

    def plain_parts(self) -> bool:
        """True when the sheet's XML needs nothing that xlsxwriter only lays out when the
        workbook is closed (drawings, links, comments, tables, images) and writing it changes
        nothing in the sheet: it may be written early, or written once and thrown away."""
        return not (self.charts or self.images or self.shapes or self.tables or self.comments
                    or self.buttons_list or self.hyperlinks or self.header_images
                    or self.footer_images or self.background_image or self.constant_memory)

    def dry_run_safe(self) -> bool:
        """True when writing the sheet's XML and throwing it away leaves the sheet as it was
        (ask_formats puts back what the writing changes: the panes' selections, the count of
        relationships); links and tables would be numbered anew."""
        return not (self.hyperlinks or self.tables or self.constant_memory)

    def ask_formats(self) -> None:
        """Write the sheet's XML into memory and throw it away (dry_run_safe must hold): its
        cells' formats get their indices now, in the order they will be asked for again at
        close."""
        selections, rel_count = [list(s) for s in self.selections], self.rel_count
        self._set_xml_writer(io.StringIO())
        self._assemble_xml_file()
        self.selections, self.rel_count = selections, rel_count

    def assemble_early(self, tmpdir: str | None) -> None:
        """Write the sheet's XML now, into a temporary file in `tmpdir` that the packager
        takes when the workbook is closed (so the sheet must not change after this). Every
        sheet before it must have been written, or have asked for its formats, first."""
        fd, path = tempfile.mkstemp(dir=tmpdir)
        os.close(fd)
        try:
            self._set_xml_writer(path)
            self._assemble_xml_file()
        except BaseException:
            os.remove(path)
            raise
        self._early_xml = path

    def drop_cells(self) -> None:
        """Let go of the cells of a sheet whose XML is written (assemble_early) and that no
        chart reads: nothing else reads them before close."""
        self.table.clear()

    def discard_early(self) -> None:
        """Remove the file of assemble_early when the workbook is not closed after all."""
        early = getattr(self, "_early_xml", None)
        self._early_xml = None
        if early is not None:
            with contextlib.suppress(FileNotFoundError):
                os.remove(early)

    def _take_extent(self) -> None:
        """Widen `dim_*` to every stored cell, as xlsxwriter's `_check_dimensions` would have
        on each write."""
        rows = [r for r, cells in self.table.items() if cells]
        if not rows:
            return
        lo_row, hi_row = min(rows), max(rows)
        lo_col = min(min(self.table[r]) for r in rows)
        hi_col = max(max(self.table[r]) for r in rows)
        self.dim_rowmin = lo_row if self.dim_rowmin is None else min(self.dim_rowmin, lo_row)
        self.dim_rowmax = hi_row if self.dim_rowmax is None else max(self.dim_rowmax, hi_row)
        self.dim_colmin = lo_col if self.dim_colmin is None else min(self.dim_colmin, lo_col)
        self.dim_colmax = hi_col if self.dim_colmax is None else max(self.dim_colmax, hi_col)

    def _write_rows(self) -> None:
        if self.comments or self.constant_memory:
            super()._write_rows()
            return
        filled = {r: cells for r, cells in self.table.items() if cells}
        spans = _spans(filled)
        lo, hi = self.dim_rowmin, self.dim_rowmax
        rows = sorted(filled.keys() | {r for r in self.row_info if lo <= r <= hi})
        styles: dict[Any, str] = {None: ""}
        names = [xl_col_to_name(col) for col in range(self.dim_colmax + 1)]
        column_formats = {col: info.column_format for col, info in self.col_info.items()
                          if info.column_format is not None}
        shown: dict[float, str] = {}  # the cached values' text (a few thousand distinct ones)
        for row in rows:
            info = self.row_info.get(row)
            span = spans.get(row // 16)
            cells = filled.get(row)
            if not cells:
                self._write_empty_row(row, span, info)
                continue
            self._write_row(row, span, info)
            default = info.row_format if info is not None and info.row_format else None
            self._write_row_cells(row, cells, default, column_formats, styles, names, shown)
            self.fh.write("</row>")

    def _write_row_cells(self, row: int, cells: dict[int, Any], row_format: Any,
                         column_formats: dict[int, Any], styles: dict[Any, str],
                         names: list[str], shown: dict[float, str]) -> None:
        """One row's cells as `_write_cell` writes them, in one piece. A cell without a format
        takes its row's, else its column's; `styles` keeps each format's `s` attribute and
        `shown` each formula's cached value as text (zero aside: 0.0 and -0.0 are equal keys
        but read differently)."""
        number, string, formula, blank = _NUMBER, _STRING, _FORMULA, _BLANK
        r = str(row + 1)
        out: list[str] = []
        for col in sorted(cells):
            cell = cells[col]
            kind = type(cell)
            if kind is not number and kind is not string and kind is not formula and (
                    kind is not blank):
                self.fh.write("".join(out))
                out.clear()
                self._write_cell(row, col, cell)
                continue
            fmt = cell.format or row_format or column_formats.get(col)
            try:
                style = styles[fmt]
            except KeyError:
                style = styles[fmt] = f' s="{fmt._get_xf_index()}"'
            if kind is number:
                out.append(f'<c r="{names[col]}{r}"{style}><v>{cell.number:.16G}</v></c>')
            elif kind is string:
                out.append(f'<c r="{names[col]}{r}"{style} t="s"><v>{cell.string}</v></c>')
            elif kind is formula:
                value = cell.value
                if type(value) is float:
                    text = cell.formula
                    if "<" in text or ">" in text or "&" in text:
                        text = escape(text)
                    number_text = shown.get(value) if value else str(value)
                    if number_text is None:
                        number_text = shown[value] = str(value)
                    out.append(f'<c r="{names[col]}{r}"{style}><f>{text}</f>'
                               f'<v>{number_text}</v></c>')
                else:
                    out.append(f'<c r="{names[col]}{r}"{style}{_formula_xml(cell)}</c>')
            else:
                out.append(f'<c r="{names[col]}{r}"{style}/>')
        self.fh.write("".join(out))


# A defined name that passes every check of xlsxwriter's `define_name` (its characters, its
# length, not like an A1 or R1C1 reference: none of those has an underscore).
_PLAIN_NAME = re.compile(r"[a-z0-9_]*_[a-z0-9_]*")


def define_names(wb: xlsxwriter.Workbook, names: list[tuple[str, str]]) -> None:
    """`wb.define_name(name, formula)` for each of workbook scope: a plain name (`_PLAIN_NAME`,
    at most 255 characters) stored at once as xlsxwriter 3.3 stores it after its checks; any
    other through `define_name` (a thousand candidates have 35,000 names)."""
    stored = wb.defined_names
    for name, formula in names:
        if len(name) <= 255 and _PLAIN_NAME.fullmatch(name):
            stored.append([name, -1, formula.lstrip("="), False])
        else:
            wb.define_name(name, formula)


# What xlsxwriter's `_write_si` changes in a shared string: a control character or a literal
# `_xHHHH_` (escaped), whitespace at either end (kept by an attribute).
_SPECIAL_STRING = re.compile(r"[\x00-\x08\x0b-\x1f]|_x[0-9a-fA-F]{4}_|^\s|\s$")


class QuickSharedStrings(SharedStrings):
    """xlsxwriter's sharedStrings part, each string that `_write_si` would only escape written
    by one f-string, in one piece with its neighbours; any other (see `_SPECIAL_STRING`, and
    rich strings) by xlsxwriter's own `_write_si`. A thousand candidates have 70,000."""

    def _write_sst_strings(self) -> None:
        out: list[str] = []
        for string in self.string_table.string_array:
            if _SPECIAL_STRING.search(string) or (string.startswith("<r>")
                                                   and string.endswith("</r>")):
                self.fh.write("".join(out))
                out.clear()
                self._write_si(string)
            else:
                out.append(f"<si><t>{escape(string)}</t></si>")
        self.fh.write("".join(out))


def _formula_xml(cell: Any) -> str:
    """A formula cell between its style and `</c>`: its type, formula and cached value."""
    value = cell.value
    kind = ""
    if isinstance(value, bool):
        kind, value = ' t="b"', 1 if value else 0
    elif isinstance(value, str):
        if value in _ERROR_CODES:
            kind = ' t="e"'
        elif value:
            kind = ' t="str"'
        value = escape(value)
    return f"{kind}><f>{escape(cell.formula)}</f><v>{value}</v>"


def _spans(filled: dict[int, dict[int, Any]]) -> dict[int, str]:
    """The `spans` of each block of 16 rows: its first and last used column, from 1."""
    bounds: dict[int, tuple[int, int]] = {}
    for row, cells in filled.items():
        block = row // 16
        lo, hi = min(cells), max(cells)
        if block in bounds:
            old_lo, old_hi = bounds[block]
            lo, hi = min(lo, old_lo), max(hi, old_hi)
        bounds[block] = (lo, hi)
    return {block: f"{lo + 1}:{hi + 1}" for block, (lo, hi) in bounds.items()}
