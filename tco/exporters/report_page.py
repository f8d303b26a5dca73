"""The pieces of the report's page (cells, figures, rows, charts) and what a section of it may
ask of the page being built (`Page`): the report's sections (report_api, report_portfolios,
report_workloads, serving_report, frontier_report) read these, and report_view's View is a
Page; so no section imports the View it is part of (tests/test_layers.py: no cycle)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ..result import CandidateResult, Result
    from .i18n import Strings


class Page(Protocol):
    """What a report section reads of the page it is part of (report_view.View)."""

    r: Result
    s: Strings
    lang: str
    cur: str
    rec: CandidateResult | None
    api: str
    portfolio: str
    at: Any

    def money(self, x: float, unit: float | None = None) -> str: ...

    def days(self, x: float) -> str: ...

    def count(self, x: float) -> str: ...

    def name(self, c: CandidateResult) -> str: ...

    def live(self, kind: str, name: str, x: float) -> Fig: ...

    def live_text(self, key: str, figures: dict[str, tuple[str, str, float]],
                  **fixed: str) -> Fig: ...


__all__ = ["PRICE_KEYS", "Cell", "Chart", "Fig", "Page", "Row", "fig", "full"]


@dataclass
class Cell:
    text: str
    value: str = ""  # repr of the engine float, for data-value; empty when not a number
    key: str = ""
    cls: str = "num"
    q: int = -1  # where the live page finds the figure (tco.exporters.live.Slots), -1: fixed
    f: str = ""  # how the live page writes it (View.fmt)
    metric: str = ""  # a key figure's metric (npv_tco, ...): the live page shows its option's
    u: float = 0  # the unit of its column's amounts (zh CNY: 1e4 万 or 1e8 亿), 0: its own
    # a difference the live page writes: the figure at qd[0] less the one at qd[1]
    qd: tuple[int, int] | None = None


class Fig(str):
    """A figure of the candidate details: its text, and where and how the live page gets it."""

    q: int = -1
    f: str = ""
    x: float = math.nan  # the engine's value
    key: str = ""  # the quantity's key (npv_tco, cost_per_gpu_hour, ...)
    u: float = 0  # as Cell.u
    # a text of several figures (View.live_text): the template, with {0}, {1}, ... where the
    # figures go, and where and how the live page gets each
    t: str = ""
    qs: tuple[int, ...] = ()
    fs: tuple[str, ...] = ()


def fig(text: str, q: int, f: str, x: float = math.nan, key: str = "", u: float = 0) -> Fig:
    out = Fig(text)
    out.q, out.f, out.x, out.key, out.u = q, f, x, key, u
    return out


# Money per unit of something (a card-hour, a million tokens): written in full in every
# column; only amounts share their column's unit (View.unify_units).
PRICE_KEYS = frozenset({"cost_per_gpu_hour", "cost_per_pflop_hour", "cost_per_million_tokens",
                        "cost_per_million_input_tokens", "cost_per_million_output_tokens",
                        "shortfall_rent_price", "rent_price_per_card_hour"})


@dataclass
class Row:
    rank: int
    id: str
    name: str
    recommended: bool
    status: str  # ok | incomplete | infeasible
    status_text: str
    cells: list[Cell]
    reasons: list[str] = field(default_factory=list)


@dataclass
class Chart:
    id: str
    title: str
    caption: str
    svg: Any  # markupsafe.Markup from the caller (matplotlib output, text escaped by matplotlib)
    table: dict[str, Any] | None = None
    warnings: list[str] = field(default_factory=list)  # shown with the chart, highlighted


def full(x: float) -> str:
    """The engine's float as written in data-value attributes (round-trips exactly)."""
    return repr(float(x)) if math.isfinite(x) else ""
