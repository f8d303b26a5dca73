"""The report's plan section (templates/_plan.html.j2): the cheapest plan's NPV, its dated
actions, a chart of its capacity against the work per period, each workload's delivery and
cost, and the plans restricted to each typed option beside it with the value of flexibility.
Every word through the string tables (templates/strings.yaml); every figure the plan's
(`Result.plans`, as JSON's `plan`). Presentation only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import charts
from .fmt import no_whole_run, number, percent, runs_text
from .i18n import Segment
from .plan_text import (
    MONTHS_PER_YEAR,
    SOURCES,
    capacity,
    card_name,
    cards_per_server,
    flexibility,
    month_label,
    months_of,
    restricted_plans,
    workload_kinds,
)
from .plan_view import delivers
from .report_page import Cell, full

if TYPE_CHECKING:
    from .report_page import Page as View


def _when(view: View, years: float) -> str:
    return month_label(view.r, years, view.s("plan_month", n="{n}"))


def _span(view: View, start: float, end: float) -> str:
    first, last = _when(view, start), _when(view, end - 1 / MONTHS_PER_YEAR)
    return first if first == last else view.s("plan_span", start=first, end=last)


def action_row(view: View, a: Any) -> dict[str, str]:
    """One dated action in the reader's language."""
    s, r = view.s, view.r
    card = s.catalog(card_name(r, a.option)) if a.card else ""
    when = _when(view, a.start_years)
    if a.action in ("buy", "lease"):
        per = cards_per_server(r, a.option)
        one = round(a.quantity / per) == 1  # "1 server", not "1 servers"
        text = s(f"plan_act_{a.action}" + ("_one" if one else ""),
                 servers=number(a.quantity / per, 0),
                 cards=number(a.quantity, 0), card=card, until=_when(view, a.end_years))
    elif a.action == "sell":
        text = s("plan_act_sell", cards=number(a.quantity, 0), card=card)
    elif a.action == "rent" and a.unit == "cards":
        text = s("plan_act_reserve", cards=number(a.quantity, 0), card=card,
                 term=s(f"plan_term_{a.tier}"), until=_when(view, a.end_years))
    elif a.action == "rent":
        when = _span(view, a.start_years, a.end_years)
        text = s(f"plan_act_rent_{a.tier}", hours=number(a.quantity, 0), card=card)
    else:  # api
        when = _span(view, a.start_years, a.end_years)
        name = next((x.info.name for x in r.api_options if x.id == a.option), a.option)
        text = s("plan_act_api", name=name, tokens=view.count(a.quantity))
    return {"when": when, "text": text, "option": a.option, "action": a.action}


def chart(view: View, p: Any) -> Any:
    from markupsafe import Markup

    s = view.s
    by_source, busy = capacity(view.r, p)
    parts = [charts.Series(s(f"plan_src_{src}"), by_source[src]) for src in SOURCES
             if any(v > 1e-9 for v in by_source[src])]
    labels = [_when(view, k * p.shape.months / MONTHS_PER_YEAR) for k in range(p.shape.periods)]
    title = s("h_plan_chart")
    svg = charts.stacked_columns(labels, parts, charts.Series(s("plan_chart_busy"), busy),
                                 s("plan_chart_axis"), view.lang, title)
    return {"id": "chart-plan", "title": title, "caption": s("cap_plan"), "svg": Markup(svg)}


def _options(view: View, best: Any) -> list[dict[str, Any]]:
    """The plans' table: the cheapest plan, then each held to one option, with their NPV and
    what they cost more as Cells (one unit a column in zh CNY, View.unify_units; where the
    live page finds them: each plan's NPV is re-costed with the options, live.plan_quantities)."""
    r, s = view.r, view.s
    at = view.at.index
    # on the NPV the plans were chosen on (after tax on that basis, PlanResult.npv_key)
    q_of = {p.option: at.get(f"{p.id}.{p.npv_key}", -1) for p in r.plans}
    q_best = q_of[best.option]

    def npv_cell(x: float, q: int) -> Cell:
        return Cell(view.money(x), full(x), "npv_tco", q=q, f="money")

    options = [{"id": best.id, "name": s("plan_row_optimal"),
                "npv": npv_cell(best.npv_decision, q_best), "more": Cell("–", key="plan_more"),
                "delivers": s("plan_delivers_all")
                if delivers(best) else percent(min(
                    (w.get("delivered_fraction") or 0.0) for w in best.workloads.values()), 0),
                "optimal": True}]
    for x in restricted_plans(r):
        more = x.npv_decision - best.npv_decision
        options.append({"id": f"plan-{x.option}", "name": s("plan_row_only", option=x.option),
                        "npv": npv_cell(x.npv_decision, q_of[x.option]),
                        "more": Cell(view.money(more), full(more), "plan_more", f="money",
                                     qd=(q_of[x.option], q_best)
                                     if q_of[x.option] >= 0 and q_best >= 0 else None),
                        "delivers": s("plan_delivers_all") if x.delivers
                        else percent(x.delivered_fraction, 0), "optimal": False})
    return options


def section(view: View) -> dict[str, Any] | None:
    """The plan section's context, or None when the scenario has no plan."""
    r, s = view.r, view.s
    if not r.plans:
        return None
    best = r.plans[0]
    start = getattr(r.scenario, "start", None)
    kinds = workload_kinds(r)
    names = {w.id: (w.name or w.id) for w in r.scenario.workloads}
    workloads, firsts = [], []
    for wid, w in best.workloads.items():
        kind = kinds.get(wid, "pretrain")
        first = w.get("first_delivery_years")
        if first is not None and kind != "serve":
            firsts.append(first)
        key = "cost_per_million_output_tokens" if kind == "serve" else "cost_per_run"
        cost = w.get(key)
        workloads.append({
            "id": wid, "name": names.get(wid, wid),
            "first": _never(s, w) if first is None else s(
                "plan_first", when=_when(view, first), months=number(months_of(first), 0))
            if start else _when(view, first),
            "delivered": percent(w.get("delivered_fraction") or 0.0, 0),
            "cost": "–" if cost is None else s(f"plan_cost_{kind}", cost=view.money(cost)),
        })
    first_model = None
    if firsts:
        first = min(firsts)
        first_model = s("plan_first_model", months=number(months_of(first), 0),
                        when=_when(view, first)) if start else s(
            "plan_first_model_months", months=number(months_of(first), 0))
    options = _options(view, best)
    flex = flexibility(r)  # on the basis the plans were chosen on
    taxed = best.basis == "after_tax"
    return {
        "npv": view.money(best.npv_tco), "npv_value": best.npv_tco,
        # its own NPV before tax, said so where the plans are compared after tax (below)
        "headline": s.segments("plan_npv_pre_tax" if taxed else "plan_npv",
                               npv=view.money(best.npv_tco),
                               state=s("plan_state_all" if delivers(best)
                                       else "plan_state_short")),
        "dates": s("plan_dates_from", start=start) if start else s("plan_dates_months"),
        "actions": [action_row(view, a) for a in best.actions],
        "chart": chart(view, best),
        "workloads": workloads,
        "first_model": first_model,
        "waits": [s("plan_waits", verb=s(f"plan_wait_{w.action}"), card=w.card,
                    on_sale=_when(view, w.on_sale_month / MONTHS_PER_YEAR),
                    when=_when(view, w.month / MONTHS_PER_YEAR), saving=view.money(w.saving),
                    rival=w.rival) for w in best.waits],
        "options": options,
        "flexibility": s("plan_flex", value=view.money(flex[0]), option=flex[1])
        if flex is not None else s("plan_flex_none"),
        "columns": {"actions": [s("col_plan_when"), s("col_plan_action"),
                                s("col_plan_option")],
                    "workloads": [s("col_plan_workload"), s("col_plan_first"),
                                  s("col_plan_delivered"), s("col_plan_cost")],
                    "options": [s("col_plan_plan"), s("col_plan_npv_after_tax" if taxed
                                                      else "col_plan_npv"),
                                s("col_plan_more"), s("col_plan_delivers")]},
        "basis": s("plan_basis_after_tax", npv=view.money(best.npv_tco_after_tax))
        if taxed else None,
    }


SUMMARY_STEPS = 6  # dated actions on the summary; the plan section lists them all


def summary(view: View, d: Any) -> dict[str, Any]:
    """The executive summary when the plan is recommended (tco.decide: mode "plan"): the
    headline and the reasons worded from the Decision's codes (decision_words, one table in
    English and Chinese), the first dated actions, and what to weigh beside it."""
    from .decision_words import headline_segments, reason_segments

    s, r = view.s, view.r
    words = {"currency": view.cur, "lang": view.lang, "money_fn": view.money}
    headline = headline_segments(d, r.structure.horizon_years, name=s.catalog, **words)
    why = [_sentence(reason_segments(x, **words), view.lang) for x in d.reasons]
    rows = [action_row(view, a) for a in d.plan.actions]
    steps = [[Segment(s("sum_step_when", when=row["when"]), value=True), Segment(row["text"])]
             for row in rows[:SUMMARY_STEPS]]
    if len(rows) > SUMMARY_STEPS:
        steps.append(s.segments("sum_plan_more", n=number(len(rows) - SUMMARY_STEPS, 0)))
    consider: list[list[Segment]] = []
    used = [r.candidate(oid) for oid in d.options
            if any(c.id == oid for c in r.candidates)]
    flagged = [(c, c.info.flags) for c in used if c.info.flags]
    for c, flags in flagged:
        consider.append(s.segments("sum_plan_flags", name=view.name(c), flags=s("list_sep").join(
            s.message(f) for f in flags)))
    if not flagged:
        consider.append(s.segments("sum_plan_no_flags"))
    consider.append(s.segments("sum_plan_solved"))
    return {"planned": True, "headline": headline, "steps": steps, "why": why,
            "consider": consider}


def _sentence(parts: list[Segment], lang: str) -> list[Segment]:
    """A reason (a clause in the text table's list) as the report's sentence: capitalised in
    English, with its full stop."""
    if lang == "en" and parts and parts[0].text:
        parts[0] = Segment(parts[0].text[0].upper() + parts[0].text[1:], parts[0].value)
    return [*parts, Segment("." if lang == "en" else "。")]


def kpis(view: View, d: Any) -> list[Any]:
    """The plan's key figures: its NPV, the best single option's (the comparison), what the
    plan saves against it, and the value of flexibility (against the cheapest plan held to one
    option that delivers). Fixed figures: the page's panel re-costs options, not the plan."""
    s, at = view.s, view.at.index
    # on the NPV the plan was chosen on: after tax on that basis (d.basis), each figure so
    taxed = d.basis == "after_tax"
    key = d.plan.npv_key
    plan_npv = d.plan.npv_decision
    plan_q = at.get(f"{d.plan.id}.{key}", -1)
    cells = [Cell(view.money(plan_npv), full(plan_npv),
                  s("kpi_plan_npv_after_tax" if taxed else "kpi_plan_npv"), f="money", q=plan_q)]
    best = d.best_option
    npv_best = None if best is None else best.npv_decision
    if best is not None and npv_best is not None:
        best_q = at.get(f"{best.option}.{key}", -1)
        cells.append(Cell(view.money(npv_best), full(npv_best),
                          s("kpi_best_option", option=best.option), f="money", q=best_q))
        cells.append(Cell(view.money(npv_best - plan_npv), full(npv_best - plan_npv),
                          s("kpi_plan_saves"), f="money", qd=(best_q, plan_q)))
    if d.value_of_flexibility is not None:
        runner_q = at.get(f"{d.runner_up_plan.id}.{key}", -1)
        cells.append(Cell(view.money(d.value_of_flexibility), full(d.value_of_flexibility),
                          s("kpi_flexibility", option=d.runner_up_plan.option), f="money",
                          qd=(runner_q, plan_q)))
    return cells


def _never(s: Any, w: dict[str, Any]) -> str:
    """A workload with no first delivery: never, or, for a training workload of fewer runs
    over the horizon than one (0.01 a year), the share of a run it does do."""
    runs = w.get("runs_delivered")
    if no_whole_run(runs):
        return s("plan_no_whole_run", runs=runs_text(runs))
    return str(s("plan_never"))
