"""Per-token API options in the report (tco/model/api.py; methodology §18): their rows in the
serving section and, when one is recommended, the headline and its reasons (tco.recommend).
Presentation only; words from templates/strings.yaml."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..decide import Decision as Recommendation
from .fmt import number

if TYPE_CHECKING:
    from .report_page import Page as View


def serving_rows(view: View, wid: str) -> list[dict[str, Any]]:
    """The serving table's rows of the API options serving `wid`: their prices; the figures
    of cards (throughput, latency, cards, energy) are the provider's and not shown."""
    s, dash = view.s, "–"
    rows = []
    for a in view.r.api_options:
        if wid not in a.jobs:
            continue
        job = a.jobs[wid]
        q = f"{a.id}.{wid}"
        rows.append({"id": a.id, "name": s("serve_api_name", name=a.info.name),
                     "recommended": view.api == a.id, "api": True,
                     "cells": [dash, dash, s("serve_api_latency"), dash,
                               view.live("mtok", f"{q}.cost_per_million_input_tokens",
                                         job["cost_per_million_input_tokens"]),
                               view.live("mtok", f"{q}.cost_per_million_output_tokens",
                                         job["cost_per_million_output_tokens"]),
                               dash, dash]})
    return rows


def summary(view: View, said: Recommendation) -> dict[str, Any]:
    """The executive summary when a per-token API is recommended."""
    from .fmt import per_million

    s, r = view.s, view.r
    years = s("years", n=r.structure.horizon_years)
    api = r.candidate(said.option)
    headline = s.segments("sum_recommend_api", name=api.info.name)
    why = view.basis_note(said)  # on the decision basis: after tax, the amounts compared
    single, npv = said.runner_up, said.npv_decision
    if single is not None:
        diff = view.on_basis(single.values) - npv
        why.append(s.segments("sum_api_cheaper", years=years, npv=view.money(npv),
                              diff=view.money(diff), next=view.name(single)))
    else:
        why.append(s.segments("sum_api_only", years=years, npv=view.money(npv)))
    for wid, job in api.jobs.items():
        why.append(s.segments(
            "sum_api_prices", workload=wid,
            inp=per_million(job["cost_per_million_input_tokens"], view.cur),
            out=per_million(job["cost_per_million_output_tokens"], view.cur),
            year=view.money(job["cost_per_job"]), tokens=number(job["tokens_per_year"] / 1e9,
                                                               0)))
    return {"headline": headline, "why": why, "consider": []}
