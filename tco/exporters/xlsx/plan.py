"""The Plan sheet (methodology §19): each plan's quantities as inputs (blue, unlocked, with
defined names by the workbook's name rule: `plans.plan.buy.b200.0` -> `plans_plan_buy_b200_0`),
then its money as live formulas written from the plan model's expression trees (tco/model/
plan.py: each period's costs, their present value, the resale, what is owed after the horizon
and the NPV), each stored with the engine's value; and a block on the Summary sheet reading
each plan's NPV from here. Editing a plan quantity re-costs that plan (it is not re-solved:
`tco whatif` or `tco compare` solves again).

`place(result, layout)` claims the names and cells before any sheet is written (the Summary
block refers to them); `write_plan(ws, ...)` fills the sheet; `summary_block(...)` writes the
Summary's rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from xlsxwriter.worksheet import Worksheet

from ...expr import Ref, RefFn
from ...expr.formula import formula
from ...model.plan import PLAN_COMPONENT_LABELS
from ...result import Result
from ..fmt import zh_unit
from .inputs import text
from .layout import Cell, Plan, cached
from .styles import Styles, is_price

PLAN = "Plan"
P_KEY, P_LABEL, P_VALUE, P_UNIT, P_NAME = range(5)

# the labels of the plan quantities (tco.plan._KINDS says the same in its inputs' labels)
_INPUT_LABELS = {
    "buy": "Servers bought in period {k} ({s})",
    "lease": "Servers leased from period {k} ({s})",
    "reserve": "Cards reserved ({t}) from period {k} ({s})",
    "work": "Runs of {w} done in period {k} on {src} {s} cards",
    "serve": "Share of {w}'s traffic carried in period {k} on {src} {s} cards",
    "api": "Share of {w}'s traffic carried in period {k} by {s}",
    "short": "Runs of {w} left undone in window {k}",
    "unserved": "Share of {w}'s traffic left unserved in period {k}",
    "use": "1 when the plan uses (ports) the {s} stack",
}
_PERIOD = re.compile(r"^p(\d+)\.(.+)$")


@dataclass
class PlanSheet:
    """Where each plan's inputs and quantities are on the Plan sheet."""

    sheet: str = PLAN
    inputs: dict[str, Cell] = field(default_factory=dict)  # plan input path -> cell
    names: dict[str, str] = field(default_factory=dict)  # plan input path -> defined name
    quantities: dict[str, Cell] = field(default_factory=dict)  # plan quantity -> cell
    rows: list[tuple[str, Any]] = field(default_factory=list)  # what each row holds
    values: dict[str, float] = field(default_factory=dict)


def _input_label(key: tuple[str, ...], t: Any) -> str:
    kind = key[0]
    f = {"s": "", "k": key[-1], "w": "", "src": "", "t": ""}
    if kind in ("buy", "lease", "use"):
        f["s"] = key[1]
    elif kind == "reserve":
        f.update(s=key[1], t=t(key[2].replace("_", "-")))
    elif kind in ("work", "serve"):
        f.update(src=t(key[1].replace("_", "-")), s=key[2], w=key[3])
    elif kind == "api":
        f.update(s=key[1], w=key[2])
    elif kind in ("short", "unserved"):
        f["w"] = key[1]
    return t(_INPUT_LABELS[kind], **f)


def _quantity_label(pid: str, q: Any, t: Any) -> str:
    """A plan quantity's label in the workbook's language, from its name."""
    rest = q.name[len(pid) + 1:]
    m = _PERIOD.match(rest)
    if m:
        k, comp = m.group(1), m.group(2)
        if comp == "present_value":
            return t("Present value of period {k}'s costs", k=k)
        if comp == "tax_deductions_present_value":
            return t("Present value of period {k}'s tax deductions", k=k)
        if comp == "shortfall_delay":
            return t("Cost of delay within the work left undone, period {k}", k=k)
        return t("{component}, period {k}", component=t(PLAN_COMPONENT_LABELS[comp]), k=k)
    parts = rest.split(".")
    if len(parts) == 3 and parts[1].startswith("p") and parts[2] == "servers":
        return t("{s}'s servers installed in period {k}", s=parts[0], k=parts[1][1:])
    if len(parts) == 3 and parts[1].startswith("b") and parts[2] == "tax_deduction_factor":
        return t("Present value of the tax deductions per unit spent on {s}'s servers in "
                 "period {j}", s=parts[0], j=parts[1][1:])
    if len(parts) == 3 and parts[1].startswith("b") and parts[2].startswith("tax_basis_left_y"):
        return t("Tax basis left of {s}'s servers bought in period {j} after {t} tax years",
                 s=parts[0], j=parts[1][1:], t=parts[2][len("tax_basis_left_y"):])
    if len(parts) == 2 and parts[1] == "lead_periods":
        return t("Periods from an order of {s}'s servers to their installation", s=parts[0])
    if len(parts) == 2 and parts[1] == "fallback":
        return t("What work of {w} left undone costs (a run, or a period of its traffic)",
                 w=parts[0])
    if len(parts) == 2 and parts[1] == "fallback_delay":
        return t("The cost of delay in what work of {w} left undone costs (income forgone)",
                 w=parts[0])
    return t(q.label)


def place(result: Result, p: Plan) -> PlanSheet | None:
    """Claim each plan input's defined name and every plan cell (None: no plan)."""
    if not result.plans:
        return None
    from ...plan import plan_inputs

    out = PlanSheet(sheet=p.sheet(PLAN))
    inputs = plan_inputs(result.plans)
    row = 1
    for plan in result.plans:
        out.rows.append(("title", plan))
        row += 1
        for key in plan.shape.keys:
            path = plan.shape.path(key)
            out.inputs[path] = Cell(out.sheet, row, P_VALUE)
            out.names[path] = p.names.claim(path, path)
            out.values[path] = inputs[path].value
            out.rows.append(("input", (plan, key, inputs[path])))
            row += 1
        for q in plan.model.quantities:
            if not q.name.startswith(plan.id + "."):
                continue
            out.quantities[q.name] = Cell(out.sheet, row, P_VALUE)
            out.values[q.name] = float(plan.env[q.name])
            out.rows.append(("quantity", (plan, q)))
            row += 1
        row += 1
        out.rows.append(("blank", None))
    return out


def define(wb: Any, ps: PlanSheet | None) -> None:
    """The plan inputs' defined names (workbook scope)."""
    if ps is None:
        return
    from .quicksheet import define_names

    names = [(ps.names[path], "=" + cell.ref(absolute=True)) for path, cell in ps.inputs.items()]
    define_names(wb, names)


def _refs(ps: PlanSheet, p: Plan) -> RefFn:
    scenario = p.ref_fn(ps.sheet)

    def ref(r: Ref) -> str:
        if r.name in ps.names:
            return ps.names[r.name]
        if r.name in ps.quantities:
            return ps.quantities[r.name].ref(ps.sheet)
        return scenario(r)
    return ref


def write_plan(ws: Worksheet, result: Result, p: Plan, ps: PlanSheet, st: Styles) -> None:
    t = st.t
    for col, title in enumerate(["Key", "Quantity", "Value", "Unit", "Defined name"]):
        text(ws, 0, col, t(title), st("header"))
    refs = _refs(ps, p)
    write = getattr(ws, "write_tree_formula", ws.write_formula)
    # one unit for the amounts of the Value column (zh, CNY: 万 or 亿, never both)
    size = zh_unit(ps.values[item[1].name] for kind, item in ps.rows
                   if kind == "quantity" and not is_price(item[1].unit)
                   and item[1].unit.startswith((st.currency, "money")))
    for row, (kind, item) in enumerate(ps.rows, start=1):
        if kind == "title":
            plan = item
            title = (t("The plan: the cheapest over every supply ({id})", id=plan.id)
                     if not plan.option else
                     t("The plan restricted to option {option} ({id})", option=plan.option,
                       id=plan.id))
            text(ws, row, P_KEY, title, st("section"))
            for col in range(P_KEY + 1, P_NAME + 1):
                ws.write_blank(row, col, None, st("section"))
        elif kind == "input":
            plan, key, inp = item
            path = plan.shape.path(key)
            text(ws, row, P_KEY, path)
            text(ws, row, P_LABEL, _input_label(key, t))
            fmt = st("input", "#,##0") if inp.spec.integer else st("input", "0.0000")
            ws.write_number(row, P_VALUE, float(inp.value), fmt)
            text(ws, row, P_UNIT, t.unit(inp.unit))
            text(ws, row, P_NAME, ps.names[path])
        elif kind == "quantity":
            plan, q = item
            value = ps.values[q.name]
            text(ws, row, P_KEY, q.name)
            text(ws, row, P_LABEL, _quantity_label(plan.id, q, t))
            role = "total" if q.name == f"{plan.id}.npv_tco" else "formula"
            unit = q.unit
            write(row, P_VALUE, formula(q.expr, refs), st.value(role, unit, value, size),
                  cached(value, unit))
            text(ws, row, P_UNIT, t.unit(unit, st.currency))
    ws.set_column(P_KEY, P_KEY, 44)
    ws.set_column(P_LABEL, P_LABEL, 60)
    ws.set_column(P_VALUE, P_VALUE, 18)
    ws.set_column(P_UNIT, P_UNIT, 12)
    ws.set_column(P_NAME, P_NAME, 40)
    ws.freeze_panes(1, 2)
    ws.protect("", {"format_columns": True, "format_rows": True})


def summary_block(ws: Worksheet, row: int, result: Result, ps: PlanSheet | None,
                  st: Styles) -> int:
    """The Summary's plan block: each plan's NPV read from the Plan sheet (live), whether it
    delivers all the work, and the value of flexibility as a formula; the row after it."""
    if ps is None:
        return row
    from ..plan_text import flexibility
    from ..plan_view import delivers

    t = st.t
    text(ws, row, 0, t("The plan: what to buy, lease, rent or call, and when (Plan sheet)"),
         st("label"))
    row += 1
    # the plans on the NPV they were chosen on: after tax on that basis (PlanResult.npv_key)
    taxed = result.plans[0].basis == "after_tax"
    heading = "NPV of TCO after income tax" if taxed else "NPV of TCO"
    for col, title in enumerate(["Plan", heading, "Delivers all the work"]):
        text(ws, row, col, t(title), st("header"))
    npv_cell: dict[str, str] = {}
    flex = flexibility(result)
    # one unit for the column (zh, CNY: 万 or 亿, never both; fmt.zh_unit)
    size = zh_unit([p.npv_decision for p in result.plans] + ([flex[0]] if flex else []))
    for plan in result.plans:
        row += 1
        cell = ps.quantities[f"{plan.id}.{plan.npv_key}"].ref(st_sheet(ws))
        npv_cell[plan.option or plan.id] = cell
        text(ws, row, 0, t("Only {option}", option=plan.option) if plan.option
             else t("The plan (every supply)"))
        ws.write_formula(row, 1, f"={cell}", st.money("formula", plan.npv_decision, size),
                         plan.npv_decision)
        text(ws, row, 2, t("yes") if delivers(plan) else t("no"))
    if flex is not None:
        row += 1
        text(ws, row, 0, t("Value of flexibility ({option} less the plan)", option=flex[1]),
             st("label"))
        best = npv_cell[result.plans[0].id]
        ws.write_formula(row, 1, f"={npv_cell[flex[1]]}-{best}",
                         st.money("total", flex[0], size), flex[0])
    return row + 2



def st_sheet(ws: Worksheet) -> str:
    return str(ws.name)
