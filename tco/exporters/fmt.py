"""Presentation of numbers: the only place results are rounded (engine values stay floats)."""

from __future__ import annotations

import math

SYMBOLS = {"USD": "$", "EUR": "€", "CNY": "¥"}

# The most candidates a chart draws (report and workbook): the best-ranked ones. More are not
# legible, and a thousand took the report a minute to draw; tables list every candidate, and
# a chart that leaves some out says how many (docs/report.md, docs/workbook.md).
CHART_CANDIDATES = 15


def money(x: float | None, currency: str, lang: str = "en") -> str:
    """$1.23M / €456k / ¥1.2亿 style amounts, for tables and reports."""
    if x is None or not math.isfinite(x):
        return "n/a"
    sym = SYMBOLS.get(currency, currency + " ")
    sign = "-" if x < 0 else ""
    a = abs(x)
    if lang == "zh":
        if a >= 1e8:
            return f"{sign}{sym}{a / 1e8:,.2f}亿"
        if a >= 1e4:
            return f"{sign}{sym}{a / 1e4:,.1f}万"
        return f"{sign}{sym}{a:,.2f}"
    if a >= 1e9:
        return f"{sign}{sym}{a / 1e9:,.2f}B"
    if a >= 1e6:
        return f"{sign}{sym}{a / 1e6:,.2f}M"
    if a >= 1e4:
        return f"{sign}{sym}{a / 1e3:,.0f}k"
    return f"{sign}{sym}{a:,.2f}"


def money_full(x: float | None, currency: str) -> str:
    """Whole units with thousands separators ($1,234,567)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    sym = SYMBOLS.get(currency, currency + " ")
    return f"-{sym}{abs(x):,.0f}" if x < 0 else f"{sym}{x:,.0f}"


def number(x: float | None, digits: int = 0) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:,.{digits}f}"


def percent(x: float | None, digits: int = 0) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}%}"
