"""Shared by the workbook tests: cells found the way a reader finds them (defined names, the
row and column labels), and figures worked out by hand from what the sheets show.

Nothing here asks the writer where it put a cell, so a new row or column moves the cells
without breaking the tests, and a cell under the wrong label fails them.
"""

from __future__ import annotations

import math
import re

import openpyxl

from tco.model import COMPONENT_LABELS, COMPONENTS

NET = "Net cash flow"
CUMULATIVE = "Cumulative net cash flow (undiscounted)"
YEAR_HEADER = re.compile(r"Year (\d+)")


def named_cell(wb: openpyxl.Workbook, name: str):
    ((sheet, coord),) = list(wb.defined_names[name].destinations)
    return wb[sheet][coord.replace("$", "")]


def validations(ws) -> dict[str, object]:
    """Each validated cell's coordinate ("C3") and its data validation (one validation may
    cover many cells and ranges)."""
    from openpyxl.utils import get_column_letter

    out = {}
    for dv in ws.data_validations.dataValidation:
        for rng in dv.sqref.ranges:
            for row, col in rng.cells:
                coord = f"{get_column_letter(col)}{row}"
                assert coord not in out, f"{coord} validated twice"
                out[coord] = dv
    return out


def named_value(wb: openpyxl.Workbook, name: str):
    return named_cell(wb, name).value


def year_columns(ws) -> dict[int, int]:
    """Year -> column number, from the header row of the CashFlows sheet."""
    out = {}
    for cell in ws[1]:
        m = YEAR_HEADER.fullmatch(str(cell.value or ""))
        if m:
            out[int(m.group(1))] = cell.column
    return out


def cash_flow_block(wb: openpyxl.Workbook, cid: str) -> dict[str, list]:
    """A candidate's block on the CashFlows sheet, found by its title "<id>: <name>": row label
    -> the cells under Year 0, 1, ..."""
    ws = wb["CashFlows"]
    years = year_columns(ws)
    titles = [r for r in range(1, ws.max_row + 1)
              if str(ws.cell(r, 1).value or "").startswith(f"{cid}: ")]
    assert len(titles) == 1, (cid, titles)
    block, row = {}, titles[0] + 1
    while ws.cell(row, 1).value:
        block[ws.cell(row, 1).value] = [ws.cell(row, years[t]) for t in sorted(years)]
        row += 1
    return block


def model_rows(wb: openpyxl.Workbook) -> list[tuple[str | None, str, int]]:
    """The Model sheet's rows as (section title, key, row number), sections being the rows
    whose Key column is empty."""
    ws = wb["Model"]
    header = [c.value for c in ws[1]]
    key_col = header.index("Key") + 1
    out, section = [], None
    for r in range(3, ws.max_row + 1):
        key = ws.cell(r, key_col).value
        if key is None:
            section = ws.cell(r, 1).value
        else:
            out.append((section, key, r))
    return out


def model_column(wb: openpyxl.Workbook, cid: str) -> int:
    """The Model sheet column headed by a candidate id."""
    header = [c.value for c in wb["Model"][1]]
    assert header.count(cid) == 1, (cid, header)
    return header.index(cid) + 1


def model_cell(wb: openpyxl.Workbook, cid: str, key: str, section_has: str = ""):
    """A candidate's quantity on the Model sheet, by the column headed with its id and the row
    with its key (in the first section whose title contains `section_has`)."""
    col = model_column(wb, cid)
    rows = [r for sec, k, r in model_rows(wb) if k == key and section_has in (sec or "")]
    assert rows, (cid, key, section_has)
    return wb["Model"].cell(rows[0], col)


def input_value(wb: openpyxl.Workbook, path: str) -> float:
    """An input as the Assumptions sheet shows it, found by its path in the Path column."""
    ws = wb["Assumptions"]
    header = [c.value for c in ws[1]]
    path_col, value_col = header.index("Path") + 1, header.index("Value") + 1
    rows = [r for r in range(2, ws.max_row + 1) if ws.cell(r, path_col).value == path]
    assert len(rows) == 1, path
    return ws.cell(rows[0], value_col).value


def hand_worked_figures(wb: openpyxl.Workbook, cid: str, primary_workload: str,
                        inputs_of: str = "", bought: bool = True) -> dict:
    """For a workbook opened with values: each figure a reader can recompute from the sheets,
    as (shown, worked out by hand). A generated rent option reads the inputs of `inputs_of`
    and buys nothing (`bought` false)."""
    block = cash_flow_block(wb, cid)
    own = inputs_of or cid

    def value(cells):
        return [c.value for c in cells]

    labels = [COMPONENT_LABELS[k] for k in COMPONENTS]
    assert list(block)[:len(labels) + 1] == labels + [NET]
    net = value(block[NET])
    rate = input_value(wb, "finance.discount_rate")
    cards = input_value(wb, f"candidates.{own}.cards")
    spares = math.ceil(cards * input_value(wb, "assumptions.hot_spare_fraction"))
    nodes = math.ceil(cards / input_value(wb, f"candidates.{own}.cards_per_node"))
    cost_lines = ("cost_hardware", "cost_electricity", "cost_facility", "cost_operations",
                  "cost_rental", "cost_porting")
    per_run = f"({primary_workload})"
    out = {
        # each year's net flow is the sum of the components above it
        "net": (net, [sum(col) for col in zip(*(value(block[k]) for k in labels))]),
        # undiscounted TCO: the sum of the net flows; NPV: year t discounted by (1 + r)^t
        "undiscounted_tco": (named_value(wb, f"undiscounted_tco_{key(cid)}"), sum(net)),
        "npv_tco": (named_value(wb, f"npv_tco_{key(cid)}"),
                    sum(x / (1 + rate) ** t for t, x in enumerate(net))),
        # year-0 capex from the Assumptions sheet (none when rented)
        "accelerators": (block[COMPONENT_LABELS["cards"]][0].value,
                         (cards + spares) * input_value(wb, f"candidates.{own}.card_price")
                         * bought),
        "servers": (block[COMPONENT_LABELS["servers"]][0].value,
                    nodes * input_value(wb, f"candidates.{own}.node_price") * bought),
        # the cost of one run is the sum of its six cost lines
        "cost_per_job": (named_value(wb, f"cost_per_job_{key(cid)}"),
                         sum(model_cell(wb, cid, k, per_run).value for k in cost_lines)),
    }
    return out


def key(cid: str) -> str:
    """The defined-name form of a candidate id without collisions (the example's ids)."""
    return re.sub(r"[^a-z0-9]+", "_", cid.lower())
