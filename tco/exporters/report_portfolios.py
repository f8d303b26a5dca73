"""The report's portfolios: the section listing them and, when one is recommended, the
headline and its reasons (tco.recommend). Presentation only."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .. import modes
from ..decide import Decision as Recommendation
from ..decide.rules import barred
from .fmt import number, percent

if TYPE_CHECKING:
    from .report_page import Page as View


def section(view: View) -> dict[str, Any]:
    """One row per portfolio: its options with the workloads each carries, NPV, share."""
    from .report_page import Cell, full

    s, r = view.s, view.r
    rows = []
    for p in r.portfolios:
        parts = s("list_sep").join(
            s("portfolio_part", option=oid, workloads=s("name_sep").join(
                r.candidate(oid).carries)) for oid in p.options)
        if p.feasible:
            npv = p.values["npv_tco"]
            cells = [Cell(view.money(npv), full(npv), "npv_tco", q=view.at[f"{p.id}.npv_tco"],
                          f="money"),
                     Cell(percent(p.values["plan_delivered_fraction"], 0),
                          full(p.values["plan_delivered_fraction"]), "plan_delivered_fraction",
                          q=view.at[f"{p.id}.plan_delivered_fraction"], f="pct0")]
            blocked = barred(r, p)
            status = s("status_barred") if blocked else (
                s("status_ok") if p.tier == 0 else s(
                    "status_incomplete", pct=percent(p.values["plan_delivered_fraction"], 0)))
        else:
            cells = [Cell("–", "", "npv_tco", "num na"),
                     Cell("–", "", "plan_delivered_fraction", "num na")]
            status = s("status_infeasible")
        rows.append({"id": p.id, "name": p.name, "parts": parts, "cells": cells,
                     "status": status, "recommended": view.portfolio == p.id})
    return {"rows": rows, "columns": [s("col_portfolio"), s("col_options"), s("col_npv"),
                                      s("col_plan_share"), s("col_status")]}


def summary(view: View, said: Recommendation) -> dict[str, Any]:
    """The executive summary when a portfolio is recommended."""
    s, r = view.s, view.r
    years = s("years", n=r.structure.horizon_years)
    headline = s.segments("sum_recommend_portfolio", name=said.name,
                          cards=number(said.cards, 0))
    why = view.basis_note(said)  # on the decision basis: after tax, the amounts compared
    single, npv = said.runner_up, said.npv_decision
    if single is not None:
        diff = view.on_basis(single.values) - npv
        why.append(s.segments("sum_portfolio_cheaper", years=years,
                              npv=view.money(npv), diff=view.money(diff),
                              next=view.name(single)))
    else:
        why.append(s.segments("sum_portfolio_only", years=years, npv=view.money(npv)))
    for oid in said.options:
        c = r.candidate(oid)
        if c.info.acquire == modes.API:  # a per-token API: no accelerators
            why.append(s.segments("sum_portfolio_api_member", name=c.info.name,
                                  workloads=s("name_sep").join(c.carries),
                                  npv=view.money(c.values["npv_tco"])))
            continue
        why.append(s.segments("sum_portfolio_member", name=view.name(c), cards=number(
            c.inputs["cards"], 0), workloads=s("name_sep").join(c.carries),
            npv=view.money(c.values["npv_tco"])))
    return {"headline": headline, "why": why, "consider": []}
