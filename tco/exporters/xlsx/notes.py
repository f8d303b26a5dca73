"""Sheets of text and engine-computed numbers: Methodology (formulas in words, provenance),
Sensitivity and MonteCarlo (static results of the analyses, labelled as such)."""

from __future__ import annotations

from xlsxwriter.worksheet import Worksheet

from ...analysis.types import MonteCarlo, Sensitivity
from ...expr import Ref, RefFn
from ...model import Quantity
from ...result import Result
from ..fmt import zh_unit
from .inputs import header, text
from .layout import quantity_key as _quantity_key
from .styles import Styles

STATIC_NOTE = ("Computed by the tco engine when this workbook was generated. These are static "
               "values: they do not change when you edit Assumptions (run `tco report` again).")

CONVENTIONS = (
    "Costs are positive; inflows (residual value, loan proceeds) are negative.",
    ("Year 0 is the purchase date: capex, one-time porting and the cost of the delivery lead "
     "time fall there. Operating costs fall at the end of years 1 to H; the residual value at "
     "the end of year H."),
    ("NPV discounts year t by (1 + discount rate)^t, so year 0 is not discounted. The "
     "spreadsheet NPV() discounts its first argument by one period, so the workbook writes "
     "flow0 + NPV(rate, flow1, ..., flowH)."),
    "PMT() returns a negative payment for a positive loan; the loan payment row negates it.",
    "Flags (fits in memory, feasible) are TRUE/FALSE.",
    ("Candidates sized for a deadline or a power cap keep the card count the engine found; the "
     "workbook does not re-size them when other inputs change."),
    ("Change blue cells on Assumptions only; every other number is a formula (the sheets are "
     "protected without a password so formulas are not overwritten by accident)."),
)
METRICS = {"npv_tco": "NPV of TCO", "cost_per_job": "cost per run",
           "undiscounted_tco": "Undiscounted TCO", "cost_per_gpu_hour": "cost per accelerator-hour"}
_SECTIONS = {"cluster": "Cluster", "job": "Per run", "horizon": "Over the horizon",
             "year": "Cash flow by year"}


def _metric(metric: str, st: Styles) -> str:
    """A metric by its key in English (as the CLI's --metric names it), by name otherwise."""
    return metric if st.lang == "en" else st.t(METRICS.get(metric, metric))


def _readable(cid: str) -> RefFn:
    """Render references without the candidate id: `candidate.card_price`, `hardware_capex`."""
    def ref(r: Ref) -> str:
        if r.name.startswith(f"candidates.{cid}."):
            return "candidate." + r.name[len(f"candidates.{cid}."):]
        if r.name.startswith(f"{cid}."):
            return r.name[len(cid) + 1:]
        return r.name
    return ref


def write_methodology(ws: Worksheet, result: Result, st: Styles, generated: str) -> None:
    pv, t = result.provenance, st.t
    text(ws, 0, 0, t("Methodology"), st("title"))
    text(ws, 1, 0, t("How every number of this workbook is computed. The full text, with "
                     "sources, is docs/methodology.md of the tco project."), st("subtitle"))
    facts = [("Tool version", f"tco {pv.tool_version}"), ("Catalog digest", pv.catalog_digest),
             ("Scenario digest", pv.scenario_digest), ("Scenario file", pv.scenario_file),
             ("Scenario", result.scenario.name), ("Generated", generated),
             ("Currency", result.currency),
             ("Horizon", t("{n} years", n=result.structure.horizon_years))]
    if st.lang != "en":  # the file's path is not for the reader of a translated workbook
        facts = [f for f in facts if f[0] != "Scenario file"]
    row = 3
    for label, value in facts:
        text(ws, row, 0, t(label), st("label"))
        text(ws, row, 1, value)
        row += 1
    row += 1
    text(ws, row, 0, t("Conventions"), st("label"))
    row += 1
    for line in CONVENTIONS:
        text(ws, row, 1, t(line))
        row += 1
    row += 1
    text(ws, row, 0, t("Formulas (the same for every candidate; each reads its own inputs)"),
         st("label"))
    row += 1
    header(ws, row, ["Section", "Quantity", "Key", "Unit", "Formula", "Shown for"], st)
    row += 1
    seen: set[str] = set()
    for q in result.model:
        key = q.name[len(q.candidate) + 1:]
        if key in seen:
            continue
        seen.add(key)
        _formula_row(ws, row, q, key, st)
        row += 1
    ws.set_column(0, 0, 18)
    ws.set_column(1, 1, 58)
    ws.set_column(2, 2, 40)
    ws.set_column(3, 3, 14)
    ws.set_column(4, 4, 120)
    ws.set_column(5, 5, 16)


def _formula_row(ws: Worksheet, row: int, q: Quantity, key: str, st: Styles) -> None:
    t = st.t
    text(ws, row, 0, t(_SECTIONS.get(q.group, q.group)))
    text(ws, row, 1, t.quantity(_quantity_key(q), q.label, q.year))
    text(ws, row, 2, key)
    text(ws, row, 3, t.unit(q.unit, st.currency))
    text(ws, row, 4, q.expr.excel(_readable(q.candidate)))
    text(ws, row, 5, q.candidate)


def write_sensitivity(ws: Worksheet, s: Sensitivity, st: Styles) -> None:
    t = st.t
    text(ws, 0, 0, t("Sensitivity (tornado)"), st("title"))
    text(ws, 1, 0, t(STATIC_NOTE), st("subtitle"))
    mode = t("every input moved by +/-{swing}", swing=f"{s.swing:.0%}") if (
        s.mode == "swing" and s.swing) else t("each input at its catalog low and high")
    metric = _metric(s.metric, st)
    text(ws, 2, 0, t("Metric: {metric}; {mode}.", metric=metric, mode=mode), st("subtitle"))
    row = 4
    header(ws, row, ["Candidate", "Input", "Path", "Unit", "Base value", "Low value",
                     "High value", t("{metric} at low", metric=metric),
                     t("{metric} at high", metric=metric), "Effect",
                     t("Baseline {metric}", metric=metric)], st)
    row += 1
    first = row
    # each column of the metric's amounts in one unit (zh CNY: fmt.zh_unit)
    tornados = [(cid, s.baseline.get(cid), bars) for cid, bars in s.bars.items()]
    if s.plan_id:  # the cheapest plan, held fixed and re-costed (no option id: the plan)
        tornados.append((t("the cheapest plan, held fixed"), s.plan_baseline, s.plan_bars))
    sizes = {col: zh_unit(v for _c, _b, bars in tornados for bar in bars for v in (
        (bar.metric_low, bar.metric_high, bar.effect)[col - 7],)) for col in (7, 8, 9)}
    sizes[10] = zh_unit(b for _c, b, _bars in tornados if b is not None)
    for cid, base, bars in tornados:
        for bar in bars:
            text(ws, row, 0, cid)
            text(ws, row, 1, t.input_label(bar.path, bar.label))
            text(ws, row, 2, bar.path)
            text(ws, row, 3, t.unit(bar.unit, st.currency))
            for col, v in ((4, bar.base_value), (5, bar.low_value), (6, bar.high_value)):
                ws.write_number(row, col, v, st.value("static", bar.unit, v))
            for col, v in ((7, bar.metric_low), (8, bar.metric_high), (9, bar.effect)):
                ws.write_number(row, col, v, st.money("static", v, sizes[col]))
            if base is not None:
                ws.write_number(row, 10, base, st.money("static", base, sizes[10]))
            row += 1
    if row == first:
        text(ws, row, 0, t("No input moves the metric."))
    ws.set_column(0, 0, 16)
    ws.set_column(1, 1, 48)
    ws.set_column(2, 2, 46)
    ws.set_column(3, 3, 14)
    ws.set_column(4, 10, 16)
    ws.freeze_panes(5, 1)


def write_montecarlo(ws: Worksheet, result: Result, mc: MonteCarlo, st: Styles) -> None:
    t = st.t
    text(ws, 0, 0, t("Monte Carlo"), st("title"))
    text(ws, 1, 0, t(STATIC_NOTE), st("subtitle"))
    text(ws, 2, 0, t("{draws} draws, seed {seed}; {n} inputs drawn from their catalog ranges "
                     "(listed below the table).", draws=f"{mc.draws:,}", seed=mc.seed,
                     n=len(mc.varied)), st("subtitle"))
    if mc.warnings:
        text(ws, 3, 0, t("Warning: ") + t.strings("list_sep").join(
            t.message(w.text) for w in mc.warnings), st("warning"))
    after_tax = mc.basis == "after_tax"  # each draw ranked after tax (the decision basis)
    row = 4
    header(ws, row, ["Candidate", "Name", "Metric", "P10", "P50", "P90", "Mean",
                     "P(lowest NPV after income tax)" if after_tax
                     else "P(lowest NPV of TCO)"], st)
    row += 1
    names = {c.id: t.name(c.info.name) for c in result.candidates}
    tables = [stats for metrics in mc.percentiles.values() for stats in metrics.values()]
    if mc.plan is not None:
        tables.append(mc.plan.npv_tco)
    sizes = {key: zh_unit(stats[key] for stats in tables if key in stats)
             for key in ("p10", "p50", "p90", "mean")}  # one unit a column (fmt.zh_unit)
    for cid, metrics in mc.percentiles.items():
        for metric, stats in metrics.items():
            text(ws, row, 0, cid)
            text(ws, row, 1, names.get(cid, cid))
            text(ws, row, 2, _metric(metric, st))
            for col, key in ((3, "p10"), (4, "p50"), (5, "p90"), (6, "mean")):
                if key in stats:
                    ws.write_number(row, col, stats[key],
                                    st.money("static", stats[key], sizes[key]))
            if cid in mc.prob_cheapest:
                ws.write_number(row, 7, mc.prob_cheapest[cid], st("static", "0.0%"))
            row += 1
    if mc.plan is not None:  # held fixed, re-costed in every draw
        text(ws, row, 1, t("the cheapest plan, held fixed"))  # no option id: the plan
        text(ws, row, 2, _metric("npv_tco", st))
        for col, key in ((3, "p10"), (4, "p50"), (5, "p90"), (6, "mean")):
            ws.write_number(row, col, mc.plan.npv_tco[key],
                            st.money("static", mc.plan.npv_tco[key], sizes[key]))
        ws.write_number(row, 7, mc.plan.cheaper_share, st("static", "0.0%"))
        row += 1
        text(ws, row, 0, t("The plan's last column: the share of draws in which it costs no "
                           "more than the candidate ranked first there."), st("subtitle"))
        row += 1
    if after_tax:
        text(ws, row, 0, t("The last column ranks each draw on the NPV after income tax, as "
                           "the options are ranked; the percentiles are before tax."),
             st("subtitle"))
        row += 1
    row += 1
    text(ws, row, 0, t("Inputs drawn"), st("label"))
    row += 1
    for path in mc.varied:
        text(ws, row, 0, path)
        row += 1
    ws.set_column(0, 0, 44)
    ws.set_column(1, 1, 34)
    ws.set_column(2, 2, 16)
    ws.set_column(3, 7, 16)
    ws.freeze_panes(5, 1)
