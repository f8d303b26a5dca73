"""Where everything goes in the workbook, decided before anything is written.

Formulas refer to cells on other sheets, so every input cell (Assumptions), every quantity cell
(Model, CashFlows) and every defined name is placed first; the sheet writers then only fill in.
`plan(result)` is also what the tests use to find the cell of each model quantity.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from xlsxwriter.utility import xl_rowcol_to_cell, xl_rowcol_to_cell_fast

from ... import twins
from ...expr import Ref, RefFn
from ...model import COMPONENTS, YEAR_SHARES, YEAR_TAX, YEAR_TOTALS, Quantity
from ...result import Result
from ..i18n import Words, region_name
from .names import NameRegistry

SUMMARY, ASSUMPTIONS, MODEL, CASHFLOWS = "Summary", "Assumptions", "Model", "CashFlows"
CATALOG, SENSITIVITY, MONTECARLO, METHODOLOGY = "Catalog", "Sensitivity", "MonteCarlo", "Methodology"

# Assumptions columns
A_PATH, A_LABEL, A_VALUE, A_UNIT, A_SOURCE, A_ASOF, A_NAME, A_RANGE, A_ORIGIN, A_NOTE = range(10)
# Model columns: label, key, unit, then one column per priced candidate
M_LABEL, M_KEY, M_UNIT, M_FIRST = 0, 1, 2, 3
MODEL_HEADER_ROWS = 2
# CashFlows columns: label, unit, then years 0..H
C_LABEL, C_UNIT, C_FIRST = 0, 1, 2

HEADLINES = (("npv_tco", None), ("cost_per_job", "job"), ("undiscounted_tco", None))

_SECTION_ORDER = {"": 0, "finance": 1, "facility": 2, "team": 3, "workloads": 4,
                  "candidates": 5, "api_options": 6, "assumptions": 7}


class Cell(NamedTuple):
    """A cell of the workbook (a named tuple: a thousand candidates have 340,000 of them)."""

    sheet: str
    row: int
    col: int

    def ref(self, from_sheet: str | None = None, absolute: bool = False) -> str:
        """`B7`, or `'Sheet'!B7` from another sheet."""
        a1 = (xl_rowcol_to_cell(self.row, self.col, row_abs=True, col_abs=True) if absolute
              else xl_rowcol_to_cell_fast(self.row, self.col))
        return a1 if from_sheet == self.sheet else f"{quote_sheet(self.sheet)}!{a1}"


def quote_sheet(name: str) -> str:
    return name if name.isascii() and name.isalnum() else "'" + name.replace("'", "''") + "'"


@dataclass
class Section:
    title: str
    rows: list[str]  # input paths (Assumptions) or quantity keys (Model)


@dataclass
class Plan:
    inputs: dict[str, Cell] = field(default_factory=dict)  # input path -> value cell
    unused_inputs: list[str] = field(default_factory=list)  # not read by any formula
    input_sections: list[Section] = field(default_factory=list)
    quantities: dict[str, Cell] = field(default_factory=dict)  # quantity name -> cell
    keys: dict[str, str] = field(default_factory=dict)  # quantity name -> quantity_key
    model_sections: list[Section] = field(default_factory=list)
    priced: list[str] = field(default_factory=list)  # candidate ids with model columns
    # the Model sheet's columns: the priced candidates, the per-token API options, then the
    # portfolios
    columns: list[str] = field(default_factory=list)
    cash_rows: dict[str, int] = field(default_factory=dict)  # candidate -> first row of block
    names: NameRegistry = field(default_factory=NameRegistry)
    headline: dict[str, dict[str, str]] = field(default_factory=dict)  # cid -> metric -> name
    headline_quantity: dict[str, str] = field(default_factory=dict)  # defined name -> quantity
    words: Words = field(default_factory=lambda: Words("en"))  # the workbook's language
    plan_sheet: Any = None  # where the plans are (xlsx/plan.py, PlanSheet), None: no plan
    _refs: dict[str, dict[str, str]] = field(default_factory=dict, repr=False)  # see ref_fn

    def sheet(self, key: str) -> str:
        """A sheet's name in the workbook's language (`SUMMARY` -> "Summary" or "摘要")."""
        return self.words.sheet(key)

    def input_name(self, path: str) -> str:
        return self.names.names[path]

    def drop_quantities(self) -> None:
        """Let go of every quantity's cell, key and reference (a thousand candidates have
        300,000 of them) once the sheets that read them are written."""
        self.quantities.clear()
        self.keys.clear()
        self._refs.clear()

    def ref_fn(self, from_sheet: str) -> RefFn:
        """Inputs by defined name, quantities by cell (sheet-qualified when elsewhere). Each
        name's text is made once per sheet: a thousand candidates' formulas read each cell
        several times."""
        made = self._refs.setdefault(from_sheet, {})

        def ref(r: Ref) -> str:
            text = made.get(r.name)
            if text is None:
                text = made[r.name] = (self.input_name(r.name) if r.name in self.inputs
                                       else self.quantities[r.name].ref(from_sheet))
            return text
        return ref


def quantity_key(q: Quantity) -> str:
    """The part of a quantity's name after its candidate, workload and year
    (`<candidate>.[<workload>.][y<year>.]<key>`)."""
    skip = len(q.candidate) + 1
    if q.workload:
        skip += len(q.workload) + 1
    if q.year is not None:
        skip += len(str(q.year)) + 2
    return q.name[skip:]


def _model_section(q: Quantity) -> str:
    """The Model sheet section of a (non-yearly) quantity."""
    if q.workload:
        return f"job:{q.workload}"
    return "cluster" if q.group == "cluster" else "horizon"


def input_section(result: Result, path: str) -> tuple[int, str, str]:
    """(order, key, title) of the Assumptions section an input path belongs to."""
    return _InputSections(result)(path)


class _InputSections:
    """`input_section` for many paths: the candidate and workload look-ups made once (a path
    belongs to the longest candidate or workload id it starts with; ids may contain dots)."""

    def __init__(self, result: Result, words: Words | None = None) -> None:
        sc = result.scenario
        t = words or Words("en")
        info = {c.id: c.info for c in result.candidates}
        self.candidates = {c.id: t("Candidate {id}: {name}", id=c.id, name=info[c.id].name)
                           for c in sc.candidates}
        self.workloads = {w.id: t("Workload {id}: {name}", id=w.id, name=w.name or w.id)
                          for w in sc.workloads}
        self.titles = {"": t("Scenario"), "finance": t("Finance"), "team": t("Team"),
                       "facility": t("Facility ({region})",
                                     region=region_name(sc.facility.region, t.lang)),
                       "assumptions": t("Model assumptions"),
                       "api_options": t("Per-token API options")}

    def __call__(self, path: str) -> tuple[int, str, str]:
        head = path.split(".", 1)[0] if "." in path else ""
        for group, tag in (("candidates", "c"), ("workloads", "w")):
            if head == group:
                titles = self.candidates if group == "candidates" else self.workloads
                rest = path[len(group) + 1:]
                dot = rest.rfind(".")
                while dot != -1:  # the longest id first
                    if rest[:dot] in titles:
                        return (_SECTION_ORDER[head], f"{tag}:{rest[:dot]}", titles[rest[:dot]])
                    dot = rest.rfind(".", 0, dot)
        return (_SECTION_ORDER.get(head, 0), head, self.titles.get(head, head))


def model_columns(result: Result) -> list[str]:
    """The Model sheet's columns after the priced candidates: the per-token API options, then
    the portfolios."""
    st = result.structure
    return [api[0] for api in st.api] + [members[0] for members in st.portfolios]


def plans_read(result: Result) -> set[str]:
    """The scenario's inputs the planner's plans read (their money, tco/model/plan.py)."""
    out: set[str] = set()
    for p in result.plans:
        for q in p.model.quantities:
            out.update(r.name for r in q.expr.refs() if r.name in result.inputs)
    return out


def plan(result: Result, lang: str = "en") -> Plan:
    p = Plan(words=Words(lang))
    t = p.words
    used = set(twins.inputs_used(result.model))  # from the twins' templates: fast
    used |= plans_read(result)  # and those only the plans read (the Plan sheet, plan.py)
    order = {c.id: i for i, c in enumerate(result.scenario.candidates)}
    wl_order = {w.id: i for i, w in enumerate(result.scenario.workloads)}

    # Assumptions: one section per group of inputs, inputs in resolution order.
    sections: dict[str, tuple[tuple[int, int], Section]] = {}
    section_of = _InputSections(result, t)
    for path in result.inputs:
        if path not in used:
            p.unused_inputs.append(path)
            continue
        rank, key, title = section_of(path)
        sub = order.get(key[2:], 0) if key.startswith("c:") else (
            wl_order.get(key[2:], 0) if key.startswith("w:") else 0)
        sections.setdefault(key, ((rank, sub), Section(title, [])))[1].rows.append(path)
    p.input_sections = [s for _, s in sorted(sections.values(), key=lambda x: x[0])]
    row = 1
    for section in p.input_sections:
        row += 1  # section title
        for path in section.rows:
            p.inputs[path] = Cell(p.sheet(ASSUMPTIONS), row, A_VALUE)
            p.names.claim(path, path)
            row += 1

    # Model: sections of per-candidate quantities, one column per candidate.
    p.priced = list(result.structure.candidates)
    p.columns = p.priced + model_columns(result)
    col_of = {cid: M_FIRST + i for i, cid in enumerate(p.columns)}
    msections: dict[str, Section] = {"cluster": Section(t("Cluster"), [])}
    for wid, _precision, _kind in result.structure.workloads:
        w = next(x for x in result.scenario.workloads if x.id == wid)
        msections[f"job:{wid}"] = Section(t("Per run: {name} ({id})", name=w.name or wid,
                                            id=wid), [])
    msections["horizon"] = Section(t("Over the horizon"), [])
    _place_quantities(p, result, msections, col_of)

    # Headline outputs, named after the candidate.
    by_id = {c.id: c for c in result.candidates}
    for cid in p.priced:
        primary = by_id[cid].primary_workload
        for metric, kind in HEADLINES:
            qname = f"{cid}.{primary}.{metric}" if kind == "job" else f"{cid}.{metric}"
            name = p.names.claim(f"{metric}:{cid}", f"{metric}_{cid}")
            p.headline.setdefault(cid, {})[metric] = name
            p.headline_quantity[name] = qname
    return p


def _place_quantities(p: Plan, result: Result, msections: dict[str, Section],
                      col_of: dict[str, int]) -> None:
    """Every quantity's key and cell. The Model sheet has a row per (section, key), in the
    order they first appear; CashFlows a block per priced candidate (`_place_cash_flows`).
    Twins (tco/twins.py) have the same quantities, keys and rows in the same order: a member
    takes its template's, in its own column or block."""
    model = result.model
    template_of = {m: g.template for g in twins.groups(model, p.priced) if twins.GROUPED
                   for m in g.members[1:]}
    keys, known = p.keys, {}
    row_keys: dict[tuple[str, str], None] = {}
    for q in model:
        if q.candidate in template_of:
            continue
        key = quantity_key(q)
        key = keys[q.name] = known.setdefault(key, key)
        if q.year is None:
            row_keys.setdefault((_model_section(q), key), None)
    for sec, key in row_keys:
        msections[sec].rows.append(key)
    p.model_sections = [s for s in msections.values() if s.rows]
    row = MODEL_HEADER_ROWS
    key_row: dict[tuple[str, str], int] = {}
    for sec_id, section in msections.items():
        if not section.rows:
            continue
        row += 1
        for key in section.rows:
            key_row[(sec_id, key)] = row
            row += 1
    _place_cash_flows(p, result)
    model_sheet, cash_sheet = p.sheet(MODEL), p.sheet(CASHFLOWS)
    block_row = {key: i for i, key in enumerate((*COMPONENTS, *YEAR_TOTALS, *YEAR_SHARES,
                                                 *YEAR_TAX))}
    # (key, Model row or row in the block, year) of each quantity of a template or other column
    spots: dict[str, list[tuple[str, int, int | None]]] = {}
    cells, placed = p.quantities, 0
    for cid in p.columns:
        qs = model.of_candidate(cid)
        own = spots.get(template_of.get(cid, cid))
        if own is None:
            own = spots[cid] = [
                (keys[q.name], key_row[(_model_section(q), keys[q.name])] if q.year is None
                 else block_row[keys[q.name]], q.year) for q in qs]
        col, first = col_of[cid], p.cash_rows.get(cid, 0)
        for q, (key, row, year) in zip(qs, own, strict=True):
            keys[q.name] = key
            cells[q.name] = (Cell(model_sheet, row, col) if year is None
                             else Cell(cash_sheet, first + row, C_FIRST + year))
        placed += len(qs)
    if placed != len(model.quantities):
        raise RuntimeError("a quantity outside the Model sheet's columns")


def _place_cash_flows(p: Plan, result: Result) -> None:
    """CashFlows: a block per candidate, years as columns; rows are the components, then the
    net flow and its running total, then the year's timeline (shares of the year and of its
    planned runs), then its income tax (methodology §20). Each block starts after its title row and ends with a blank row."""
    row = 1
    rows = len(COMPONENTS) + len(YEAR_TOTALS) + len(YEAR_SHARES) + len(YEAR_TAX)
    for cid in p.priced:
        p.cash_rows[cid] = row + 1  # after the block's title row
        row += 1 + rows + 1  # title, rows, blank


def engine_values(result: Result) -> dict[str, float]:
    """Every input and quantity as the Python engine computes it (the cached cell values):
    the values the Result holds (tco.engine.assemble), which the model gives for its inputs.
    The engine's own mapping when the Result keeps it (a thousand candidates' values are
    not copied again)."""
    if result.env is not None and all(type(v) is float for v in result.env.values()):
        return result.env
    values = {path: scalar(inp.value) for path, inp in result.inputs.items()}
    by_id = {c.id: c for c in result.candidates}
    for cid in result.structure.candidates:
        c = by_id[cid]
        for q in result.model.of_candidate(cid):
            if q.year is not None:
                values[q.name] = c.yearly[q.year][q.name.rsplit(".", 1)[1]]
            elif q.workload is not None:
                values[q.name] = c.jobs[q.workload][q.name.rsplit(".", 1)[1]]
            else:
                values[q.name] = c.values[q.name[len(cid) + 1:]]
    for port in result.portfolios:
        for q in result.model.of_candidate(port.id):
            values[q.name] = port.values[q.name[len(port.id) + 1:]]
    for api in result.api_options:  # per-token API options (tco/model/api.py)
        for q in result.model.of_candidate(api.id):
            key = q.name.rsplit(".", 1)[1]
            values[q.name] = api.jobs[q.workload][key] if q.workload else api.values[key]
    return values


def scalar(v: object) -> float:
    return float(np.asarray(v, dtype=float).reshape(-1)[0])


def cached(value: float, unit: str = "") -> float | bool | str:
    """The value to store beside a formula: TRUE/FALSE for flags, an error code for inf/nan."""
    if unit == "flag":
        return bool(value)
    if math.isnan(value):
        return "#NUM!"
    if math.isinf(value):
        return "#DIV/0!"
    return value
