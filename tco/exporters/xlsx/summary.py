"""The Summary sheet: rankings, recommendation, infeasible candidates and two native charts.

Every number here is a formula pointing at the Model (mostly through the headline defined names),
so it follows edits on Assumptions. The order of the rows and the recommendation are the engine's
at generation; the live tier and rank columns re-rank after edits, by the engine's tiers.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Mapping

from xlsxwriter.utility import xl_rowcol_to_cell
from xlsxwriter.workbook import Workbook
from xlsxwriter.worksheet import Worksheet

from ... import modes
from ...decide import Decision as Recommendation
from ...decide import recommend as recommendation
from ...decide import recommend_option as recommend
from ...decide.rules import barred_here, part_only, single, tier
from ...model import JOB_COMPONENT_LABELS, JOB_COMPONENTS
from ...resolve.policy import policy_dict, stock_words
from ...result import CandidateResult, Result
from ..decision_words import action_text, decision_line
from ..fields import SUMMARY_FIGURES, WORKBOOK_FORMS, Field, field
from ..fmt import CHART_CANDIDATES, SYMBOLS, zh_unit
from ..workloads import Workload, plan_workloads, training_workloads
from .inputs import text
from .layout import C_FIRST, CASHFLOWS, SUMMARY, Plan, cached
from .model import cumulative_range
from .styles import Styles, money_format

CHART_COL = 6  # the second chart's column


class _Writer:
    def __init__(self, ws: Worksheet, result: Result, p: Plan, values: Mapping[str, float],
                 st: Styles) -> None:
        self.ws, self.result, self.p, self.values, self.st = ws, result, p, values, st
        # One number format per column kind, so that a column reads evenly.
        self.formats = {"amount": money_format(st.currency, 1e6, st.lang),
                        "price": money_format(st.currency, 1.0, st.lang, price=True),
                        "count": "#,##0", "days": "#,##0.0", "share": "0.0%"}
        # live_tiered_rank's keys, and the same keys sorted (None when they cannot be)
        self._ordered: tuple[object, list[tuple[int, float]] | None] = (None, None)

    def formula(self, row: int, col: int, target: str, qname: str, kind: str) -> None:
        """`=target` (a defined name or a cell of another sheet) with its cached value."""
        value = self.values[qname]
        self.ws.write_formula(row, col, f"={target}", self.st("formula", self.formats[kind]),
                              cached(value))

    def quantity(self, row: int, col: int, qname: str, kind: str) -> None:
        self.formula(row, col, self.p.quantities[qname].ref(self.p.sheet(SUMMARY)), qname, kind)

    def figure(self, row: int, col: int, c: CandidateResult, f: Field) -> None:
        """A figure of the output fields' registry for option `c`: its defined name where it
        is a headline figure, else its quantity, in the number format its unit implies."""
        kind = WORKBOOK_FORMS[f.form]
        qname = f.quantity_of(c.id, c.primary_workload)
        name = self.p.headline.get(c.id, {}).get(f.quantity)
        if name is not None and self.p.headline_quantity[name] == qname:
            self.formula(row, col, name, qname, kind)
        else:
            self.quantity(row, col, qname, kind)

    def headline(self, row: int, col: int, c: CandidateResult, metric: str) -> None:
        name = self.p.headline[c.id][metric]
        self.formula(row, col, name, self.p.headline_quantity[name], "amount")

    def header(self, row: int, titles: list[str]) -> None:
        self.ws.set_row(row, 30)
        for col, title in enumerate(titles):
            text(self.ws, row, col, self.st.t(title) if title else "", self.st("header"))

    def live_rank(self, row: int, col: int, first: int, value_col: int,
                  column: list[float]) -> None:
        """RANK of this row's value among the table's rows (`column`), smallest first."""
        me = xl_rowcol_to_cell(row, value_col)
        span = _span(first, len(column), value_col)
        rank = sorted(column).index(column[row - first]) + 1  # ties share the best rank
        self.ws.write_formula(row, col, f"=RANK({me},{span},1)", self.st("formula", "0"), rank)

    def live_tier(self, row: int, col: int, c: CandidateResult) -> None:
        """The model's ranking tier (`<id>.tier`, tco.model.tier_formula), a live cell."""
        target = self.p.quantities[f"{c.id}.tier"].ref(self.p.sheet(SUMMARY))
        self.ws.write_formula(row, col, f"={target}", self.st("formula", "0"), tier(c))

    def live_tiered_rank(self, row: int, col: int, first: int, tier_col: int, value_col: int,
                         keys: list[tuple[int, float]]) -> None:
        """Place by (tier, value) as the engine ranks: 1 + the rows in a better tier, or in
        the same tier with a smaller value (ties share the best place)."""
        n = len(keys)
        tiers, values = _span(first, n, tier_col), _span(first, n, value_col)
        my_tier, my_value = xl_rowcol_to_cell(row, tier_col), xl_rowcol_to_cell(row, value_col)
        formula = (f"=SUMPRODUCT(({tiers}<{my_tier})+({tiers}={my_tier})*({values}<{my_value}))"
                   "+1")
        me = keys[row - first]
        if self._ordered[0] is not keys:  # the keys in order, once per table
            self._ordered = (keys, sorted(keys) if _comparable(keys) else None)
        ordered = self._ordered[1]
        place = 1 + (bisect_left(ordered, me) if ordered is not None else sum(
            1 for k in keys if k[0] < me[0] or (k[0] == me[0] and k[1] < me[1])))
        self.ws.write_formula(row, col, formula, self.st("formula", "0"), place)


def _comparable(keys: list[tuple[int, float]]) -> bool:
    """Whether sorting orders `keys` as the rank does (no NaN, which compares with nothing):
    then the keys before one are counted by bisection, not by a pass over all of them."""
    return not any(k[1] != k[1] for k in keys)


def _span(first: int, n: int, col: int) -> str:
    return (xl_rowcol_to_cell(first, col, row_abs=True, col_abs=True) + ":"
            + xl_rowcol_to_cell(first + n - 1, col, row_abs=True, col_abs=True))


def plan_summary(ws: Worksheet, row: int, result: Result, ps: object, st: Styles) -> int:
    from .plan import summary_block

    return summary_block(ws, row, result, ps, st)  # type: ignore[arg-type]


def write_summary(wb: Workbook, ws: Worksheet, result: Result, p: Plan,
                  values: Mapping[str, float], st: Styles, generated: str) -> None:
    w = _Writer(ws, result, p, values, st)
    _heading(ws, result, st, generated)
    feasible = [c for c in result.candidates if c.feasible and c.priced]
    row = _npv_table(w, 7, feasible)
    row = _portfolio_table(w, row)
    row = plan_summary(ws, row, result, p.plan_sheet, st)  # the plan (xlsx/plan.py)
    for n, wl in enumerate(training_workloads(result)):
        row = _job_table(w, row, feasible, wl, n == 0)
    row = _interval_table(w, row, feasible)
    row = _infeasible_table(w, row)
    breakdown_first = _breakdown_table(w, row, feasible)
    ws.set_column(0, 0, 15)
    ws.set_column(1, 1, 16)
    ws.set_column(2, 2, 34)
    ws.set_column(3, 10, 17)
    ws.set_column(11, 11, 60)
    if feasible:
        _charts(wb, ws, result, p, feasible, breakdown_first)
    ws.protect("", {"format_columns": True, "format_rows": True})


def _heading(ws: Worksheet, result: Result, st: Styles, generated: str) -> None:
    sc, cur, t = result.scenario, result.currency, st.t
    text(ws, 0, 0, sc.name, st("title"))
    if sc.description:
        text(ws, 1, 0, sc.description, st("subtitle"))
    text(ws, 2, 0, t("Amounts in {cur}; horizon {years} years. Generated {day} by tco "
                     "{version}. Inputs are on Assumptions (blue cells); every number here "
                     "follows them after recalculation.", cur=cur,
                     years=result.structure.horizon_years, day=generated,
                     version=result.provenance.tool_version), st("subtitle"))
    policy = policy_dict(result.scenario_data)
    if policy is not None:
        held = ", ".join(policy["holds_licence"]) or t("nothing")  # type: ignore[arg-type]
        note = f": {policy['note']}" if policy["note"] else ""
        if not policy["holds_stock"]:
            line = t("Policy: the buyer holds a licence for {cards}{note}", cards=held,
                     note=note)
        elif not policy["holds_licence"]:
            line = t("Policy: the buyer holds cards in service: {stock} (sunk, priced at their "
                     "resale value now){note}", stock=stock_words(policy), note=note)
        else:
            line = t("Policy: the buyer holds a licence for {cards} and cards in service: "
                     "{stock} (sunk, priced at their resale value now){note}", cards=held,
                     stock=stock_words(policy), note=note)
        text(ws, 3, 0, line, st("subtitle"))
    text(ws, 4, 0, t("Recommendation"), st("label"))
    text(ws, 4, 1, _recommendation(result, st), st("label"))
    text(ws, 5, 1, t("Order and recommendation as computed by the engine at generation; the "
         "live columns re-rank after you change inputs. Tier: 0 may be used here and delivers "
         "the whole plan, 1 may be used but delivers less of it, 2 barred here (export "
         "control, licence), 3 infeasible; the rank orders by tier, then NPV."), st("subtitle"))


def _action(said: Recommendation, st: Styles) -> str:
    if st.lang == "en":
        return action_text(said, st.currency)
    pricing = st.t.strings(f"pricing_{said.pricing.replace('-', '_')}") if said.pricing else ""
    return st.t({"rent": "rent {card} at {pricing} prices",
                 "hybrid": "buy {card} and rent what it cannot do (hybrid)",
                 "lease": "lease {card}"}.get(
                     said.mode, "buy {card}"), card=st.t.name(said.card_name), pricing=pricing)


def _recommendation(result: Result, st: Styles) -> str:
    decided = recommendation(result)
    if decided is not None and decided.mode == modes.PLAN:  # the plan, as JSON and the report
        return decision_line(decided, result.currency, st.lang, st.t.name)
    rec, said, t = single(result), recommend(result), st.t
    barred = [c.id for c in result.candidates if barred_here(c)]
    if said is not None and said.mode == modes.PORTFOLIO:
        if t.lang == "en":
            return (f"{action_text(said, result.currency)} (portfolio {said.option}): the lowest NPV of delivering "
                    "the plan among the options and portfolios that may be used here and "
                    "deliver it")
        port = next(p for p in result.portfolios if p.id == said.option)
        return t("Combine the options of {name} ({id}): the lowest NPV of delivering the plan "
                 "among the options and portfolios that may be used here and deliver it",
                 name=port.name, id=said.option)
    if said is not None and said.mode == modes.API:
        return t("Pay per token, {name} ({id}): the lowest NPV of serving the plan among the "
                 "options that may be used here and serve it", name=st.t.name(said.card_name),
                 id=said.option)
    if rec is not None and said is not None:
        if not said.delivers_plan:
            return t("{action} ({id}): the lowest NPV among the options that may be used here "
                     "(none delivers the whole plan)", action=_action(said, st), id=rec.id)
        return t("{action} ({id}): the lowest NPV of delivering the plan among the options "
                 "that may be used here and deliver it", action=_action(said, st), id=rec.id)
    parts = [c.id for c in result.candidates if part_only(c)]
    if parts:  # usable options, each carrying a part of the plan, and no portfolio
        return t("No candidate can be recommended: none that may be used here carries the "
                 "whole plan (parts of it only: {ids}); combine options that together "
                 "carry every workload in a portfolio (portfolios: in the scenario).",
                 ids=", ".join(parts))
    if barred:
        return t("No candidate can be recommended: the feasible ones ({ids}) are "
                 "export-controlled or licence-barred here.", ids=", ".join(barred))
    return t("No candidate is feasible for every workload.")


def _ranked_rows(result: Result, feasible: list[CandidateResult], values: Mapping[str, float]
                 ) -> list[tuple[int, float, int, str, object]]:
    """The options with cards, the per-token API options and the portfolios, by (tier, NPV)
    as the recommendation weighs them (stable: the engine's order among the options)."""
    rows: list[tuple[int, float, int, str, object]] = []
    for c in feasible:
        rows.append((tier(c), values[f"{c.id}.npv_tco"], len(rows), "option", c))
    for a in result.api_options:
        if a.quantified:
            rows.append((tier(a), values[f"{a.id}.npv_tco"], len(rows), "api", a))
    for port in result.portfolios:  # as the options: an infeasible one has no cost to rank
        if port.feasible:
            rows.append((port.tier, values[f"{port.id}.npv_tco"], len(rows), "portfolio", port))
    return sorted(rows, key=lambda r: r[:3])


def _title(st: Styles, f: Field) -> str:
    """A registry field's heading (its label, the report's), with its unit where the cell's
    number does not show it (days)."""
    return st.t.strings(f.label) + (st.t(" (days)") if f.form == "days" else "")


def _npv_table(w: _Writer, row: int, feasible: list[CandidateResult]) -> int:
    """The ranking by NPV with live tier and rank columns, over the options, the per-token API
    options and the portfolios; the row after it."""
    ws, st, values = w.ws, w.st, w.values
    text(ws, row, 0, st.t("Ranked by NPV of total cost of ownership"), st("label"))
    row += 1
    w.header(row, ["Rank", "Candidate", "Name", "Cards",
                   *(_title(st, field(k)) for k in SUMMARY_FIGURES), "Tier (live)",
                   "Rank (live)", "Notes"])
    first = row + 1
    ranked = _ranked_rows(w.result, feasible, values)
    keys = [(rank_tier, npv) for rank_tier, npv, *_rest in ranked]
    for i, (_tier, _npv, _k, kind, x) in enumerate(ranked):
        r = first + i
        ws.write_number(r, 0, i + 1, st("rank"))
        text(ws, r, 1, x.id)  # type: ignore[attr-defined]
        if kind == "option":
            _option_row(w, r, x)  # type: ignore[arg-type]
        else:
            _column_row(w, r, kind, x)
        target = w.p.quantities[f"{x.id}.tier"].ref(w.p.sheet(SUMMARY))  # type: ignore[attr-defined]
        ws.write_formula(r, 9, f"={target}", st("formula", "0"), keys[i][0])
        w.live_tiered_rank(r, 10, first, 9, 4, keys)
    return first + max(len(ranked), 1) + 1


def _option_row(w: _Writer, r: int, c: CandidateResult) -> None:
    """An option with cards: its headline figures (defined names) and primary run."""
    ws, st = w.ws, w.st
    text(ws, r, 2, st.t.name(c.info.name))
    cards = f"candidates.{c.info.inputs_id}.cards"  # a generated option: its source's
    w.formula(r, 3, w.p.input_name(cards), cards, "count")
    for col, key in enumerate(SUMMARY_FIGURES, start=4):  # the registry's (tco.exporters.fields)
        w.figure(r, col, c, field(key))
    text(ws, r, 11, st.t.strings("list_sep").join(st.t.message(x)
                                                    for x in c.notes + c.info.flags),
         st("wrap"))


def _column_row(w: _Writer, r: int, kind: str, x: object) -> None:
    """A per-token API option (no cards, no run) or a portfolio (its options' cards summed
    live): NPV and undiscounted TCO as live formulas; a run's figures do not apply."""
    ws, st, result = w.ws, w.st, w.result
    xid, name = x.id, (x.info.name if kind == "api" else x.name)  # type: ignore[attr-defined]
    text(ws, r, 2, st.t("Per-token API: {name}", name=name) if kind == "api" else name)
    if kind == "api":
        ws.write_number(r, 3, 0, st("static", w.formats["count"]))
        note = st.t("Paid per token: no accelerators, no runs of its own")
    else:
        members = [result.candidate(oid) for oid in x.options]  # type: ignore[attr-defined]
        paths = [f"candidates.{m.info.inputs_id}.cards" for m in members
                 if m.info.acquire != modes.API]
        formula = "=" + "+".join(w.p.input_name(path) for path in paths) if paths else "=0"
        ws.write_formula(r, 3, formula, st("formula", w.formats["count"]),
                         sum(result.inputs[path].value for path in paths))
        note = st.t("Portfolio: {options}", options=" + ".join(x.options))  # type: ignore[attr-defined]
    w.quantity(r, 4, f"{xid}.npv_tco", "amount")
    w.quantity(r, 5, f"{xid}.undiscounted_tco", "amount")
    for col in (6, 7, 8):
        ws.write_blank(r, col, None, st("static"))
    text(ws, r, 11, note, st("wrap"))


def _portfolio_table(w: _Writer, row: int) -> int:
    """Portfolios: options costed together, their NPV and tier as live formulas."""
    ws, st, result = w.ws, w.st, w.result
    if not result.portfolios:
        return row
    text(ws, row, 0, st.t("Portfolios: options costed together, each carrying its workloads"),
         st("label"))
    row += 1
    w.header(row, ["Portfolio", "Name", "Options (workloads)", "NPV of TCO", "Tier (live)"])
    for port in result.portfolios:
        row += 1
        text(ws, row, 0, port.id)
        text(ws, row, 1, port.name)
        text(ws, row, 2, "; ".join(f"{oid} ({', '.join(result.candidate(oid).carries)})"
                                   for oid in port.options), st("wrap"))
        w.quantity(row, 3, f"{port.id}.npv_tco", "amount")
        target = w.p.quantities[f"{port.id}.tier"].ref(SUMMARY)
        ws.write_formula(row, 4, f"={target}", st("formula", "0"), port.tier)
    return row + 2


def _job_table(w: _Writer, row: int, feasible: list[CandidateResult], wl: Workload,
               primary: bool) -> int:
    """The ranking by cost per run of one workload (a mixture of experts with the
    methodology's warning under its title); the row after it."""
    ws, st, values = w.ws, w.st, w.values
    by_job = sorted((c for c in feasible if c.info.carries(wl.id)),
                    key=lambda c: (c.jobs[wl.id]["cost_per_job"], c.id))
    title = ("Ranked by cost per run of the primary workload, {label}, {runs} runs a year"
             if primary else "Ranked by cost per run of workload {label}, {runs} runs a year")
    text(ws, row, 0, st.t(title, label=wl.label, runs=f"{wl.runs_per_year:g}"), st("label"))
    row += 1
    if wl.moe:
        text(ws, row, 0, st.t.strings("moe_warning", name=wl.label), st("subtitle"))
        row += 1
    w.header(row, ["Rank", "Candidate", "Name", "Cost per run", "Cost per million tokens",
                   "Days per run", "GPU-hours per run", "Energy per run (kWh)",
                   "Cost rank (live)"])
    first = row + 1
    job_costs = [values[f"{c.id}.{wl.id}.cost_per_job"] for c in by_job]
    for i, c in enumerate(by_job):
        r = first + i
        job = f"{c.id}.{wl.id}"
        ws.write_number(r, 0, i + 1, st("rank"))
        text(ws, r, 1, c.id)
        text(ws, r, 2, st.t.name(c.info.name))
        if c.primary_workload == wl.id:  # the headline's defined name
            w.headline(r, 3, c, "cost_per_job")
        else:
            w.quantity(r, 3, f"{job}.cost_per_job", "amount")
        w.quantity(r, 4, f"{job}.cost_per_million_tokens", "price")
        w.quantity(r, 5, f"{job}.wall_days", "days")
        w.quantity(r, 6, f"{job}.gpu_hours", "count")
        w.quantity(r, 7, f"{job}.energy_facility_kwh", "count")
        w.live_rank(r, 8, first, 3, job_costs)
    return first + max(len(by_job), 1) + 1


def _interval_table(w: _Writer, row: int, feasible: list[CandidateResult]) -> int:
    """Each option's time to train (its first training workload) beside its 80% interval, the
    model's own out-of-sample error (methodology section 17), live; the row after it."""
    shown = [c for c in feasible if f"{c.id}.{c.primary_workload}.wall_days_p10" in w.values]
    if not shown:
        return row
    ws, st = w.ws, w.st
    text(ws, row, 0, st.t("Time to train with its 80% interval (the model's own out-of-sample "
                          "error for runs of the job's family; model error only)"), st("label"))
    row += 1
    w.header(row, ["", "Candidate", "Name", "Days per run", "Days, P10", "Days, P90",
                   "GPU-hours per run", "GPU-hours, P10", "GPU-hours, P90",
                   "Effective training time"])
    for i, c in enumerate(shown):
        r, job = row + 1 + i, f"{c.id}.{c.primary_workload}"
        text(ws, r, 1, c.id)
        text(ws, r, 2, st.t.name(c.info.name))
        for col, key, kind in ((3, "wall_days", "days"), (4, "wall_days_p10", "days"),
                               (5, "wall_days_p90", "days"), (6, "gpu_hours", "count"),
                               (7, "gpu_hours_p10", "count"), (8, "gpu_hours_p90", "count"),
                               (9, "effective_training_time", "share")):
            w.quantity(r, col, f"{job}.{key}", kind)
    return row + 1 + len(shown) + 1


def _infeasible_table(w: _Writer, row: int) -> int:
    ws, st = w.ws, w.st
    infeasible = [c for c in w.result.candidates if not c.feasible]
    text(ws, row, 0, st.t("Infeasible candidates"), st("label"))
    row += 1
    w.header(row, ["", "Candidate", "Name", "Reason"])
    row += 1
    if not infeasible:
        text(ws, row, 1, st.t("None: every candidate can run every workload."))
        row += 1
    for c in infeasible:
        text(ws, row, 1, c.id)
        text(ws, row, 2, st.t.name(c.info.name))
        text(ws, row, 3, st.t.strings("list_sep").join(st.t.message(x) for x in c.reasons))
        row += 1
    return row + 1


def _breakdown_table(w: _Writer, row: int, feasible: list[CandidateResult]) -> int:
    """Cost per run by component; the first row of its data (the bar chart reads it)."""
    ws, st = w.ws, w.st
    first_workload = (training_workloads(w.result) or plan_workloads(w.result))[0]
    text(ws, row, 0, st.t("Cost per run by component (each option's first workload; {label} "
                          "unless it carries others)", label=first_workload.label), st("label"))
    row += 1
    w.header(row, ["", "Candidate", "Name"] + [st.t.component(k, JOB_COMPONENT_LABELS[k])
                                               for k in JOB_COMPONENTS] + ["Total"])
    first = row + 1
    for i, c in enumerate(feasible):
        r = first + i
        text(ws, r, 1, c.id)
        text(ws, r, 2, st.t.name(c.info.name))
        job = f"{c.id}.{c.primary_workload}"
        for j, comp in enumerate(JOB_COMPONENTS):
            w.quantity(r, 3 + j, f"{job}.cost_{comp}", "amount")
        w.headline(r, 3 + len(JOB_COMPONENTS), c, "cost_per_job")
    return first


def _charts(wb: Workbook, ws: Worksheet, result: Result, p: Plan,
            feasible: list[CandidateResult], breakdown_first: int) -> None:
    """Two charts side by side below the tables, from the breakdown table and CashFlows; of
    the first CHART_CANDIDATES candidates (the tables above have them all)."""
    top = breakdown_first + len(feasible) + 1
    drawn = feasible[:CHART_CANDIDATES]
    last = breakdown_first + len(drawn) - 1
    t, summary, cashflows = p.words, p.sheet(SUMMARY), p.sheet(CASHFLOWS)
    more = "" if len(drawn) == len(feasible) else t(
        " (the {shown} best-ranked of {total})", shown=len(drawn), total=f"{len(feasible):,}")
    cur = result.currency
    bars = wb.add_chart({"type": "column", "subtype": "stacked"})
    for j, _comp in enumerate(JOB_COMPONENTS):
        col = 3 + j
        bars.add_series({
            "name": [summary, breakdown_first - 1, col],
            "categories": [summary, breakdown_first, 1, last, 1],
            "values": [summary, breakdown_first, col, last, col],
        })
    bars.set_title({"name": t("Cost per run by component") + more})
    bars.set_y_axis({"name": cur, "num_format": _axis_format(
        [c.job["cost_per_job"] for c in drawn], cur, t.lang)})
    bars.set_size({"width": 760, "height": 380})
    ws.insert_chart(top, 0, bars)

    horizon = result.structure.horizon_years
    lines = wb.add_chart({"type": "line"})
    for c in drawn:
        r0, c0, r1, c1 = cumulative_range(p, c.id, horizon)
        lines.add_series({
            "name": [cashflows, p.cash_rows[c.id] - 1, 0],
            "categories": [cashflows, 0, C_FIRST, 0, C_FIRST + horizon],
            "values": [cashflows, r0, c0, r1, c1],
            "marker": {"type": "circle", "size": 4},
        })
    lines.set_title({"name": t("Cumulative net cash flow") + more})
    lines.set_y_axis({"name": cur, "num_format": _axis_format(
        [y["cumulative"] for c in drawn for y in c.yearly], cur, t.lang)})
    lines.set_size({"width": 760, "height": 380})
    ws.insert_chart(top, CHART_COL, lines)


def _axis_format(values: list[float], currency: str, lang: str) -> str:
    """One unit on a chart axis: in Chinese, 万 or 亿 as the axis's largest value needs (so
    ¥5,000.0万 and ¥1.00亿 never share an axis); in English, whole units as before."""
    if lang == "en":
        return "#,##0"
    top = max((abs(v) for v in values if math.isfinite(v)), default=0.0)
    return money_format(currency, top, lang, size=zh_unit([top]),
                        zero=f'"{SYMBOLS.get(currency, currency + " ")}"0')
