"""The Model sheet (every quantity as a live formula, one column per candidate) and the CashFlows
sheet (yearly cash flows, years as columns), each formula stored with the engine's value."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from math import isfinite
from typing import Any

from xlsxwriter.utility import xl_rowcol_to_cell_fast
from xlsxwriter.worksheet import Worksheet

from ... import twins
from ...expr import RefFn
from ...expr.formula import formula
from ...model import COMPONENTS, YEAR_SHARES, YEAR_TAX, YEAR_TOTALS, Model, Quantity
from ...result import Result
from ..fmt import zh_unit
from .inputs import text
from .layout import (
    C_FIRST,
    C_LABEL,
    C_UNIT,
    CASHFLOWS,
    M_FIRST,
    M_KEY,
    M_LABEL,
    M_UNIT,
    MODEL,
    MODEL_HEADER_ROWS,
    Cell,
    Plan,
    cached,
    quote_sheet,
)
from .styles import Styles

WHOLE_AMOUNTS = 1e6  # cash flows show whole currency units
# The timeline rows under each block (a year's own label names the year, these do not).
TAX_LABELS = {  # methodology §20
    "tax_deductions": "Tax deductions (less the taxable resale at the horizon)",
    "income_tax": "Income tax saved (negative) or paid",
    "net_after_tax": "Net cash flow after tax",
}
SHARE_LABELS = {
    "installed_share": "Share of the year with the owned hardware installed",
    "ready_share": "Share of the year with the owned capacity ready (installed and ported)",
    "ported_share": "Share of the year with the port done",
    "own_work_share": "Work on owned capacity, in years of planned runs",
    "rented_work_share": "Work on rented capacity, in years of planned runs",
    "work_share": "Work delivered, in years of planned runs",
    "backlog": "Planned runs waiting at the year's end, in years of planned runs",
}


def write_quantities(ws: Worksheet, result: Result, p: Plan, values: Mapping[str, float],
                     fmt_of: Callable[[Quantity, Cell, float], Any], yearly: bool,
                     by_value: Callable[[Quantity], bool] = lambda q: True) -> None:
    """Each quantity's formula in its cell (all on `ws`: the yearly quantities or the others),
    stored with the engine's value; `fmt_of(quantity, cell, value)` gives its cell format,
    which depends on the value only where `by_value(quantity)` (else twins share it).

    A thousand candidates have 300,000 formulas. Twins (tco/twins.py: candidates whose
    formulas are the same but for their names) have each formula written once, from the
    template's tree, and filled in for each member (`_Twins`); the other columns' formulas
    are written from their own trees, with references made once per sheet (`Plan.ref_fn`).
    The quick worksheet (quicksheet.py) stores each formula at once."""
    write = getattr(ws, "write_tree_formula", ws.write_formula)
    model, cells = result.model, p.quantities
    sheet = p.sheet(CASHFLOWS if yearly else MODEL)
    refs = p.ref_fn(sheet)
    done: set[str] = set()
    for group in twins.groups(model, p.priced) if twins.GROUPED else ():
        if len(group.members) > 1:
            done.update(group.members)
            _Twins(group, model, p, sheet, refs).write(write, values, fmt_of, yearly, by_value)
    for q in model:
        if (q.year is not None) == yearly and q.candidate not in done:
            cell, value = cells[q.name], values[q.name]
            write(cell.row, cell.col, formula(q.expr, refs), fmt_of(q, cell, value),
                  cached(value, q.unit))


_SLOT = "\x00"  # never in a formula's text


class _Twins:
    """One group of twins' formulas on one sheet. Each of the template's formulas is written
    once (tco.expr.formula, from its tree) as a %-pattern with a `%s` slot for each name that
    differs from member to member; each member's formula is the pattern filled with its own
    names' references. So the text is the tree's, as for any other formula."""

    def __init__(self, group: twins.Twins, model: Model, p: Plan, sheet: str,
                 refs: RefFn) -> None:
        self.group, self.model, self.p, self.sheet, self.refs = group, model, p, sheet, refs
        self.exprs = model.expressions()
        self.mine = f"{group.template}."
        self.filled: dict[str, list[str]] = {}  # a slot's name -> each member's reference

    def own(self, name: str) -> bool:
        """Whether the template's `name` is the member's own (a quantity of its own or an
        input of its own); anything else reads the same for every member."""
        return self.group.own(name) and (name in self.exprs or not name.startswith(self.mine))

    def pattern(self, q: Quantity) -> tuple[str, list[str]]:
        """`q`'s formula with a `%s` for each of its own names (a literal % doubled), and
        those names in the text's order."""
        parts = formula(q.expr, lambda r: f"{_SLOT}{r.name}{_SLOT}" if self.own(r.name)
                        else self.refs(r)).split(_SLOT)
        return "%s".join(part.replace("%", "%%") for part in parts[0::2]), parts[1::2]

    def fill(self, name: str) -> list[str]:
        """Each member's reference for the template's own `name` (all on the same sheet as
        the template's own, or all inputs)."""
        got = self.filled.get(name)
        if got is None:
            p, names = self.p, self.group.names(name)
            if name in p.inputs:
                got = [p.input_name(n) for n in names]
            else:
                cells, there = p.quantities, p.quantities[name].sheet
                qualified = "" if there == self.sheet else quote_sheet(there) + "!"
                got = [qualified + xl_rowcol_to_cell_fast(c.row, c.col)
                       for c in map(cells.__getitem__, names)]
            self.filled[name] = got
        return got

    def write(self, write: Callable[..., Any], values: Mapping[str, float],
              fmt_of: Callable[[Quantity, Cell, float], Any], yearly: bool,
              by_value: Callable[[Quantity], bool]) -> None:
        group, cells, skip = self.group, self.p.quantities, len(self.group.template)
        columns = [self.model.of_candidate(m) for m in group.members]
        for i, tq in enumerate(columns[0]):
            if (tq.year is not None) != yearly:
                continue
            pattern, slots = self.pattern(tq)
            texts = zip(*map(self.fill, slots)) if slots else (() for _ in group.members)
            rest = tq.name[skip:]  # after the candidate's id
            plain = tq.unit != "flag"  # (a finite value of any other unit is stored as it is)
            same = None if by_value(tq) else fmt_of(tq, cells[tq.name], values[tq.name])
            for column, member, args in zip(columns, group.members, texts, strict=True):
                q = column[i]
                name = q.name
                if q.candidate != member or not name.endswith(rest):  # (tco/twins.py)
                    raise RuntimeError(f"{name} is not its twin's {tq.name}")
                cell, value = cells[name], values[name]
                write(cell.row, cell.col, pattern % args,
                      fmt_of(q, cell, value) if same is None else same,
                      value if plain and isfinite(value) else cached(value, q.unit))


def write_model(ws: Worksheet, result: Result, p: Plan, values: Mapping[str, float],
                st: Styles) -> None:
    t = st.t
    for col, title in ((M_LABEL, "Quantity"), (M_KEY, "Key"), (M_UNIT, "Unit")):
        text(ws, 0, col, t(title), st("header"))
    text(ws, 1, M_LABEL, t("Candidate name"), st("label"))
    name = {c.id: t.name(c.info.name) for c in result.candidates}
    name.update({port.id: t("Portfolio: {name}", name=port.name) for port in result.portfolios})
    name.update({api.id: t("Per-token API: {name}", name=api.info.name)
                 for api in result.api_options})
    for i, cid in enumerate(p.columns):
        text(ws, 0, M_FIRST + i, cid, st("header"))
        text(ws, 1, M_FIRST + i, name[cid], st("wrap"))
    quantities = [q for q in result.model if q.year is None]
    described: dict[tuple[int, str], Quantity] = {}
    typical: dict[int, float] = {}  # the largest finite magnitude of each row
    for q in quantities:
        row = p.quantities[q.name].row
        described.setdefault((row, p.keys[q.name]), q)
        v = abs(values[q.name])
        if v > typical.get(row, 0.0) and math.isfinite(v):
            typical[row] = v
    formats: dict[tuple[int, str], Any] = {}  # one format per row (and unit): its typical value
    # the sheet's amounts in one unit (zh CNY: 万 or 亿, fmt.zh_unit), so no column mixes them
    size = zh_unit(v for q in quantities if q.unit == st.currency
                   for v in (values[q.name],) if math.isfinite(v))

    def fmt_of(q: Quantity, cell: Cell, value: float) -> Any:
        fmt = formats.get((cell.row, q.unit))
        if fmt is None:
            fmt = formats[(cell.row, q.unit)] = st.value("formula", q.unit,
                                                         typical.get(cell.row, 0.0), size)
        return fmt

    write_quantities(ws, result, p, values, fmt_of, yearly=False, by_value=lambda q: False)
    row = MODEL_HEADER_ROWS
    for section in p.model_sections:
        text(ws, row, M_LABEL, section.title, st("section"))
        for col in range(M_KEY, M_FIRST + len(p.columns)):
            ws.write_blank(row, col, None, st("section"))
        row += 1 + len(section.rows)
    for (row, key), q in described.items():
        text(ws, row, M_LABEL, t.quantity(key, q.label))
        text(ws, row, M_KEY, key)
        text(ws, row, M_UNIT, t.unit(q.unit, st.currency))
    ws.set_column(M_LABEL, M_LABEL, 58)
    ws.set_column(M_KEY, M_KEY, 34)
    ws.set_column(M_UNIT, M_UNIT, 14)
    ws.set_column(M_FIRST, M_FIRST + max(len(p.columns) - 1, 0), 17)
    ws.freeze_panes(MODEL_HEADER_ROWS, M_FIRST)
    ws.protect("", {"format_columns": True, "format_rows": True})


def write_cashflows(ws: Worksheet, result: Result, p: Plan, values: Mapping[str, float],
                    st: Styles) -> None:
    horizon = result.structure.horizon_years
    cur, tr = result.currency, st.t
    text(ws, 0, C_LABEL, tr("Cash flow (costs positive, inflows negative)"), st("header"))
    text(ws, 0, C_UNIT, tr("Unit"), st("header"))
    for t in range(horizon + 1):
        text(ws, 0, C_FIRST + t, tr("Year {n}", n=t), st("header_right"))
    yearly = [q for q in result.model if q.year is not None]
    labels = {p.keys[q.name]: tr.component(p.keys[q.name], q.label)
              for q in yearly if q.year == 1}
    share_labels = {key: tr(SHARE_LABELS[key]) for key in YEAR_SHARES}
    name = {c.id: tr.name(c.info.name) for c in result.candidates}
    for cid in p.priced:
        first = p.cash_rows[cid]
        text(ws, first - 1, C_LABEL, f"{cid}: {name[cid]}",
             st("section"))
        for col in range(C_UNIT, C_FIRST + horizon + 1):
            ws.write_blank(first - 1, col, None, st("section"))
        for i, comp in enumerate(COMPONENTS):
            text(ws, first + i, C_LABEL, labels.get(comp, comp))
            text(ws, first + i, C_UNIT, cur)
        net_row = first + len(COMPONENTS)
        text(ws, net_row, C_LABEL, tr("Net cash flow"), st("label"))
        text(ws, net_row, C_UNIT, cur)
        text(ws, net_row + 1, C_LABEL, tr("Cumulative net cash flow (undiscounted)"),
             st("static"))
        text(ws, net_row + 1, C_UNIT, cur)
        share_row = net_row + len(YEAR_TOTALS)
        for i, key in enumerate(YEAR_SHARES):
            text(ws, share_row + i, C_LABEL, share_labels[key])
            text(ws, share_row + i, C_UNIT, tr.unit("fraction"))
        tax_row = share_row + len(YEAR_SHARES)
        for i, key in enumerate(YEAR_TAX):
            text(ws, tax_row + i, C_LABEL, tr(TAX_LABELS[key]))
            text(ws, tax_row + i, C_UNIT, cur)
    roles = {"net": "total", "cumulative": "static"}
    formats: dict[tuple[str, str], Any] = {}  # amounts: one format per role and unit

    def fmt_of(q: Quantity, cell: Cell, value: float) -> Any:
        key = p.keys[q.name]
        role = roles.get(key, "formula")
        if key in YEAR_SHARES:  # each share in the format its own value calls for
            return st.value(role, q.unit, value)
        fmt = formats.get((role, q.unit))
        if fmt is None:
            fmt = formats[(role, q.unit)] = st.value(role, q.unit, WHOLE_AMOUNTS)
        return fmt

    write_quantities(ws, result, p, values, fmt_of, yearly=True,
                     by_value=lambda q: p.keys[q.name] in YEAR_SHARES)
    ws.set_column(C_LABEL, C_LABEL, 44)
    ws.set_column(C_UNIT, C_UNIT, 8)
    ws.set_column(C_FIRST, C_FIRST + horizon, 15)
    ws.freeze_panes(1, C_FIRST)
    ws.protect("", {"format_columns": True, "format_rows": True})


def cumulative_range(p: Plan, cid: str, horizon: int) -> tuple[int, int, int, int]:
    """(first row, first col, last row, last col) of a candidate's cumulative cash-flow row."""
    first, last = p.quantities[f"{cid}.y0.cumulative"], p.quantities[f"{cid}.y{horizon}.cumulative"]
    return (first.row, first.col, last.row, last.col)


__all__ = ["CASHFLOWS", "MODEL", "cumulative_range", "write_cashflows", "write_model"]
