"""The report's frontier of each serving workload (tco.frontier): a chart of output tokens
per second per card against tokens per second per user, one line per option with its
operating point marked, and the table of the same at round interactivities with the
tensor-parallel degree and precision the search picks, the objective's point and the cost per
million output tokens there. Words come from templates/strings.yaml; numbers are the engine's
(Result.frontiers)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..frontier import Frontier, at_level
from . import charts
from .fmt import number
from .frontier_view import levels

if TYPE_CHECKING:
    from .report_page import Page as View


@dataclass(frozen=True)
class Curve:
    name: str
    users: Sequence[float]  # tokens/s per user
    cards: Sequence[float]  # output tokens/s per card
    operating: tuple[float, float] | None
    highlight: bool = False


def frontier_chart(curves: Sequence[Curve], x_label: str, y_label: str, point_label: str,
                   lang: str, title: str, prefix: str) -> str:
    """One line per option, its operating point a filled dot labelled `point_label`."""
    import numpy as np

    with charts._style():
        fig, ax = charts._figure(charts.WIDTH_IN, 3.8)
        colours = charts._colours([charts.Series(c.name, [], c.highlight) for c in curves])
        for c, colour in zip(curves, colours):
            ax.plot(np.asarray(c.users), np.asarray(c.cards), color=colour,
                    linewidth=2.4 if c.highlight else 1.3, label=c.name,
                    zorder=3 if c.highlight else 2)
            if c.operating is not None:
                ax.plot([c.operating[0]], [c.operating[1]], marker="o", markersize=6,
                        color=colour, zorder=4, linestyle="none")
        if any(c.operating is not None for c in curves):
            ax.plot([], [], marker="o", markersize=6, color=charts.MUTED, linestyle="none",
                    label=point_label)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.set_xlim(left=0)
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(charts.FuncFormatter(lambda v, _p: f"{v:,.0f}"))
        ax.grid(axis="both", color=charts.GRID, linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="upper right", fontsize=7.5, handlelength=1.4)
        return charts._finish(fig, prefix, title, lang)


def frontier_section(view: View, wid: str, label: str, k: int) -> dict[str, Any] | None:
    """The frontier block of serving workload `wid` (None when no option serves it)."""
    from markupsafe import Markup

    s, r, cur = view.s, view.r, view.cur
    row: dict[str, Frontier] = r.frontiers.get(wid, {})
    # in the scenario's order of options, not the ranking's: the table is fixed in the live
    # page, whose panel may reorder the ranking
    order = {cid: k for k, cid in enumerate(r.structure.candidates)}
    shown = {cid: fr for cid, fr in sorted(row.items(), key=lambda kv: order.get(kv[0], 0))
             if fr.points}
    if not shown:
        return None
    names = {c.id: view.name(c) for c in r.candidates}
    rec = view.rec.id if view.rec is not None else None
    curves = [Curve(names[cid], [p.tokens_per_s_per_user for p in fr.points],
                    [p.tokens_per_s_per_card for p in fr.points],
                    None if fr.operating is None else (fr.operating.tokens_per_s_per_user,
                                                       fr.operating.tokens_per_s_per_card),
                    cid == rec) for cid, fr in shown.items()]
    title = s("h_serve_frontier", workload=label)
    svg = Markup(frontier_chart(curves, s("frontier_axis_user"), s("frontier_axis_card"),
                                s("frontier_point"), view.lang, title,
                                prefix=f"frontier-{k}"))

    def cell(p: Any) -> str:
        if p is None:
            return "–"
        return s("frontier_cell", tps=number(p.tokens_per_s_per_card, 0),
                 tp=str(p.tensor_parallel), precision=p.precision.upper())

    rows = [{"label": s("frontier_level", users=f"{u:g}"),
             "cells": [cell(at_level(fr, u)) for fr in shown.values()]}
            for u in levels(shown)]
    rows.append({"label": s("frontier_objective_row"), "cells": [
        "–" if fr.operating is None else s(
            "frontier_objective_cell", users=number(fr.operating.tokens_per_s_per_user, 1),
            tps=number(fr.operating.tokens_per_s_per_card, 0)) for fr in shown.values()]})
    # the operating point's cost is the workload's cost per million output tokens (the same
    # layout and objective): live in the page, which re-costs it; the throughputs above are
    # physical (they move with no price the panel sets)
    rows.append({"label": s("frontier_cost_row", currency=cur), "cells": [
        "–" if fr.operating is None else view.live(
            "money", f"{cid}.{wid}.cost_per_million_output_tokens",
            fr.operating.cost_per_million_output_tokens) for cid, fr in shown.items()]})
    pct = next(iter(shown.values())).percentile
    return {"title": title, "svg": svg,
            "columns": [s("frontier_col_level"), *(names[cid] for cid in shown)],
            "rows": rows, "caption": s("frontier_caption", percentile=f"{pct:g}")}
