"""The report's serving section (templates/serving.html.j2): for each serving workload, every
priced candidate's throughput at the objective, cards at the peak and cost per million tokens,
and a chart of the cost per million output tokens. Words come from templates/strings.yaml;
every number is a model quantity (tco/model/serving.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import charts, report_api
from .fmt import SYMBOLS, number
from .frontier_report import frontier_section

if TYPE_CHECKING:
    from .report_view import View


def per_million(x: float, currency: str) -> str:
    return f"{SYMBOLS.get(currency, currency + ' ')}{x:,.3f}"


def serving_section(view: View) -> list[dict[str, Any]]:
    """One entry per serving workload (none when the scenario does not serve)."""
    from markupsafe import Markup

    s, r, cur = view.s, view.r, view.cur
    out = []
    for w in r.scenario.workloads:
        if w.kind != "serve":
            continue
        shown = [c for c in r.candidates if c.feasible and w.id in c.jobs
                 and c.info.carries(w.id)]
        rows = []
        for c in shown:
            job = c.jobs[w.id]
            rows.append({"id": c.id, "name": view.name(c), "recommended": c is view.rec,
                         "cells": [str(int(job["tensor_parallel"])),
                                   number(job["tokens_per_s_per_card"], 0),
                                   s("serve_latency_value", ttft=number(job["ttft_ms"], 0),
                                     tpot=number(job["tpot_ms"], 1)),
                                   number(job["cards_needed"], 0),
                                   per_million(job["cost_per_million_input_tokens"], cur),
                                   per_million(job["cost_per_million_output_tokens"], cur),
                                   per_million(job["dedicated_cost_per_million_output_tokens"],
                                               cur),
                                   number(job["energy_per_output_token_j"], 2)]})
        rows += report_api.serving_rows(view, w.id)
        apis = [a for a in r.api_options if w.id in a.jobs]
        svg = None
        if shown or apis:
            costs = [c.jobs[w.id]["cost_per_million_output_tokens"] for c in (*shown, *apis)]
            hl = next((i for i, c in enumerate((*shown, *apis))
                       if c is view.rec or c.id == view.api), None)
            title = s("h_serve_chart", workload=w.name or w.id)
            names = [view.name(c) for c in shown] + [
                s("serve_api_name", name=a.info.name) for a in apis]
            svg = Markup(charts.bars(names, costs,
                                     [per_million(x, cur) for x in costs],
                                     s("serve_chart_axis", currency=cur), hl, view.lang, title,
                                     prefix=f"serve-{len(out)}"))
        objective = (s("serve_objective", ttft=number(w.ttft_ms or 0, 0),
                       tpot=number(_tpot(w), 0))
                     if w.ttft_ms or _tpot(w) else s("serve_offline"))
        out.append({
            "id": w.id, "title": s("h_serve_workload", workload=w.name or w.id),
            "intro": s("serve_intro", params=view.count(w.params),
                       inp=view.count(w.input_tokens_per_day),
                       out=view.count(w.output_tokens_per_day),
                       peak=number(w.peak_to_average or 1, 1), objective=objective),
            "columns": [s("col_candidate"), s("serve_col_tp"), s("serve_col_tps"),
                        s("serve_col_latency"), s("serve_col_cards"),
                        s("serve_col_in", currency=cur), s("serve_col_out", currency=cur),
                        s("serve_col_dedicated", currency=cur), s("serve_col_energy")],
            "rows": rows, "svg": svg,
            "caption": s("serve_caption") + (" " + s("serve_api_caption") if apis else ""),
            "frontier": frontier_section(view, w.id, w.name or w.id, len(out)),
        })
    return out


def serve_detail_rows(view: View, c: Any) -> list[tuple[str, str]]:
    """A candidate's performance rows when its primary workload serves (instead of a
    training run's)."""
    s, job, v = view.s, c.job, c.values
    return [
        (s("d_cards"), s("d_cards_value", cards=number(c.inputs["cards"], 0),
                         spares=number(v["spare_cards"], 0))),
        (s("d_nodes"), number(v["nodes"], 0)),
        (s("d_it_power"), s("value_kw", n=number(v["it_capacity_kw"], 0))),
        (s("serve_col_tp"), number(job["tensor_parallel"], 0)),
        (s("serve_col_tps"), number(job["tokens_per_s_per_card"], 0)),
        (s("serve_col_latency"), s("serve_latency_value", ttft=number(job["ttft_ms"], 0),
                                   tpot=number(job["tpot_ms"], 1))),
        (s("serve_col_cards"), number(job["cards_needed"], 0)),
        (s("d_memory"), s("value_gb", need=number(job["memory_needed_gb"], 1),
                          usable=number(job["memory_usable_gb"], 1))),
        (s("d_energy_serve"), s("value_mwh", n=number(job["energy_facility_kwh"] / 1000, 0))),
        (s("d_co2_serve"), s("value_t_co2", n=number(job["co2e_kg"] / 1000, 0))),
    ]


def _tpot(w: Any) -> float:
    if w.tpot_ms:
        return float(w.tpot_ms)
    return 1000 / w.tokens_per_s_per_user if w.tokens_per_s_per_user else 0.0


def serve_first(view: View) -> str:
    """The plan's first workload when it serves (its figures head the options), else ""."""
    wid, _precision, kind = view.r.structure.workloads[0]
    return wid if kind == "serve" else ""


def serve_kpis(view: View, c: Any, wid: str) -> list[Any]:
    """The key figures of the recommended option when the plan's first workload serves: NPV,
    the cost per million output and prompt tokens, and the cards the peak needs (not a
    training run's cost and time)."""
    from .report_view import Cell, full

    s, job, cur = view.s, c.jobs[wid], view.cur
    out_m, in_m = job["cost_per_million_output_tokens"], job["cost_per_million_input_tokens"]
    return [
        Cell(view.money(c.values["npv_tco"]), full(c.values["npv_tco"]), s("kpi_npv"),
             f="money", metric="npv_tco"),
        Cell(per_million(out_m, cur), full(out_m), s("kpi_serve_out", currency=cur)),
        Cell(per_million(in_m, cur), full(in_m), s("kpi_serve_in", currency=cur)),
        Cell(number(job["cards_needed"], 0), full(job["cards_needed"]), s("serve_col_cards")),
    ]


def serve_comparison(view: View, c: Any, wid: str) -> tuple[list[str], list[Any]]:
    """The comparison table's serving columns when the plan's first workload serves: the cost
    per million output tokens and the cards at the peak, in place of a run's cost and time."""
    from .report_view import Cell, full

    s, cur = view.s, view.cur
    columns = [s("serve_col_out", currency=cur), s("serve_col_cards")]
    if not c.priced or wid not in c.jobs:
        return columns, [Cell(s("not_priced"), "", key, "num na")
                         for key in ("cost_per_million_output_tokens", "cards_needed")]
    job = c.jobs[wid]
    return columns, [
        Cell(per_million(job["cost_per_million_output_tokens"], cur),
             full(job["cost_per_million_output_tokens"]), "cost_per_million_output_tokens"),
        Cell(number(job["cards_needed"], 0), full(job["cards_needed"]), "cards_needed")]
