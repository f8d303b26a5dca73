"""The report's serving section (templates/serving.html.j2): for each serving workload, every
priced candidate's throughput at the objective, cards at the peak and cost per million tokens,
and a chart of the cost per million output tokens. Words come from templates/strings.yaml;
every number is a model quantity (tco/model/serving.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import charts, report_api
from .fmt import number, per_million
from .frontier_report import frontier_section

if TYPE_CHECKING:
    from .report_page import Page as View


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
            job, q = c.jobs[w.id], f"{c.id}.{w.id}"
            rows.append({"id": c.id, "name": view.name(c), "recommended": c is view.rec,
                         "cells": [view.live("num0", f"{q}.tensor_parallel",
                                             job["tensor_parallel"]),
                                   view.live("num0", f"{q}.tokens_per_s_per_card",
                                             job["tokens_per_s_per_card"]),
                                   view.live_text("serve_latency_value", {
                                       "ttft": ("num0", f"{q}.ttft_ms", job["ttft_ms"]),
                                       "tpot": ("num1", f"{q}.tpot_ms", job["tpot_ms"])}),
                                   view.live("num0", f"{q}.cards_needed", job["cards_needed"]),
                                   view.live("mtok", f"{q}.cost_per_million_input_tokens",
                                             job["cost_per_million_input_tokens"]),
                                   view.live("mtok", f"{q}.cost_per_million_output_tokens",
                                             job["cost_per_million_output_tokens"]),
                                   view.live("mtok",
                                             f"{q}.dedicated_cost_per_million_output_tokens",
                                             job["dedicated_cost_per_million_output_tokens"]),
                                   view.live("num2", f"{q}.energy_per_output_token_j",
                                             job["energy_per_output_token_j"])]})
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
    cid, q = c.id, f"{c.id}.{c.primary_workload}"
    return [
        (s("d_cards"), view.live_text("d_cards_value", {
            "spares": ("num0", f"{cid}.spare_cards", v["spare_cards"])},
            cards=number(c.inputs["cards"], 0))),
        (s("d_nodes"), view.live("num0", f"{cid}.nodes", v["nodes"])),
        (s("d_it_power"), view.live("kw", f"{cid}.it_capacity_kw", v["it_capacity_kw"])),
        (s("serve_col_tp"), view.live("num0", f"{q}.tensor_parallel", job["tensor_parallel"])),
        (s("serve_col_tps"), view.live("num0", f"{q}.tokens_per_s_per_card",
                                       job["tokens_per_s_per_card"])),
        (s("serve_col_latency"), view.live_text("serve_latency_value", {
            "ttft": ("num0", f"{q}.ttft_ms", job["ttft_ms"]),
            "tpot": ("num1", f"{q}.tpot_ms", job["tpot_ms"])})),
        (s("serve_col_cards"), view.live("num0", f"{q}.cards_needed", job["cards_needed"])),
        (s("d_memory"), view.live_text("value_gb", {
            "need": ("num1", f"{q}.memory_needed_gb", job["memory_needed_gb"]),
            "usable": ("num1", f"{q}.memory_usable_gb", job["memory_usable_gb"])})),
        (s("d_energy_serve"), view.live("mwh", f"{q}.energy_facility_kwh",
                                        job["energy_facility_kwh"])),
        (s("d_co2_serve"), view.live("tco2", f"{q}.co2e_kg", job["co2e_kg"])),
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
    from .report_page import Cell, full

    s, job, cur = view.s, c.jobs[wid], view.cur
    out_m, in_m = job["cost_per_million_output_tokens"], job["cost_per_million_input_tokens"]
    return [
        Cell(view.money(c.values["npv_tco"]), full(c.values["npv_tco"]), s("kpi_npv"),
             f="money", metric="npv_tco"),
        Cell(per_million(out_m, cur), full(out_m), s("kpi_serve_out", currency=cur),
             f="mtok", metric="cost_per_million_output_tokens"),
        Cell(per_million(in_m, cur), full(in_m), s("kpi_serve_in", currency=cur),
             f="mtok", metric="cost_per_million_input_tokens"),
        Cell(number(job["cards_needed"], 0), full(job["cards_needed"]), s("serve_col_cards"),
             f="num0", metric="cards_needed"),
    ]


def serve_comparison(view: View, c: Any, wid: str) -> tuple[list[str], list[Any]]:
    """The comparison table's serving columns when the plan's first workload serves: the cost
    per million output tokens and the cards at the peak, in place of a run's cost and time."""
    from .report_page import Cell, full

    s, cur = view.s, view.cur
    columns = [s("serve_col_out", currency=cur), s("serve_col_cards")]
    if not c.priced or wid not in c.jobs:
        return columns, [Cell(s("not_priced"), "", key, "num na")
                         for key in ("cost_per_million_output_tokens", "cards_needed")]
    job, q = c.jobs[wid], f"{c.id}.{wid}"
    return columns, [
        Cell(per_million(job["cost_per_million_output_tokens"], cur),
             full(job["cost_per_million_output_tokens"]), "cost_per_million_output_tokens",
             q=view.at[f"{q}.cost_per_million_output_tokens"], f="mtok"),
        Cell(number(job["cards_needed"], 0), full(job["cards_needed"]), "cards_needed",
             q=view.at[f"{q}.cards_needed"], f="num0")]
