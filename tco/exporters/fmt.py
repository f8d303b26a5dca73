"""Presentation of numbers: the only place results are rounded (engine values stay floats)."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..errors import printable

if TYPE_CHECKING:
    import numpy as np

SYMBOLS = {"USD": "$", "EUR": "€", "CNY": "¥"}

# The most candidates a chart draws (report and workbook): the best-ranked ones. More are not
# legible, and a thousand took the report a minute to draw; tables list every candidate, and
# a chart that leaves some out says how many (docs/report.md, docs/workbook.md).
CHART_CANDIDATES = 15


WAN, YI = 1e4, 1e8  # 万 and 亿


def zh_unit(amounts: Iterable[float]) -> float:
    """The one unit of a column of CNY amounts in Chinese, chosen from its magnitude: 亿 when
    every amount in it (zeros aside) reaches 1亿, 万 when one reaches 1万, else 1 (yuan). So
    one column never mixes 万 and 亿, and no amount in it reads ¥0.00亿."""
    a = [abs(x) for x in amounts if x is not None and math.isfinite(x) and x != 0]
    if a and min(a) >= YI:
        return YI
    return WAN if a and max(a) >= WAN else 1.0


def money(x: float | None, currency: str, lang: str = "en", unit: float | None = None) -> str:
    """$1.23M / €456k / ¥1.2亿 style amounts, for tables and reports. In Chinese, a CNY amount
    is in the unit `unit` (zh_unit of its column) when given, else in its own."""
    if x is None or not math.isfinite(x):
        return "n/a"
    sym = SYMBOLS.get(currency, currency + " ")
    sign = "-" if x < 0 else ""
    a = abs(x)
    if lang == "zh":
        if a == 0:
            return f"{sym}0"  # nothing, in any unit (never ¥0.0万)
        size = unit if unit is not None else zh_unit([a])
        if size == YI:
            return f"{sign}{sym}{a / YI:,.2f}亿"
        if size == WAN:
            return f"{sign}{sym}{a / WAN:,.{1 if a >= 1e3 else 2}f}万"
        return f"{sign}{sym}{a:,.2f}"
    # an amount that would round up to a thousand of one scale is one of the next ($1.00M,
    # not $1,000k)
    if a >= 1e9 or f"{a / 1e6:,.2f}" == "1,000.00":
        return f"{sign}{sym}{a / 1e9:,.2f}B"
    if a >= 1e6 or f"{a / 1e3:,.0f}" == "1,000":
        return f"{sign}{sym}{a / 1e6:,.2f}M"
    if a >= 1e4:
        return f"{sign}{sym}{a / 1e3:,.0f}k"
    return f"{sign}{sym}{a:,.2f}"


def per_million(x: float | None, currency: str) -> str:
    """A price per million tokens, to the thousandth ($0.152)."""
    if x is None:
        return "n/a"
    return f"{SYMBOLS.get(currency, currency + ' ')}{x:,.3f}"


def money_full(x: float | None, currency: str) -> str:
    """Whole units with thousands separators ($1,234,567)."""
    if x is None or not math.isfinite(x):
        return "n/a"
    sym = SYMBOLS.get(currency, currency + " ")
    return f"-{sym}{abs(x):,.0f}" if x < 0 else f"{sym}{x:,.0f}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def plain(x: float) -> str:
    """An input value as written in the assumptions table: 30,000 / 0.0826 / 2 × 10¹²."""
    if x == 0 or not math.isfinite(x):
        return number(x, 0) if math.isfinite(x) else "n/a"
    a = abs(x)
    if a >= 1e7 or a < 1e-3:
        mantissa, exp = f"{x:.3e}".split("e")
        mantissa = mantissa.rstrip("0").rstrip(".")
        return f"{mantissa} × 10{str(int(exp)).translate(_SUPERSCRIPT)}"
    if a >= 1000:
        return f"{x:,.0f}" if x == round(x) else f"{x:,.2f}"
    return f"{x:.4g}"


def number(x: float | None, digits: int = 0) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:,.{digits}f}"


def runs_text(x: float) -> str:
    """A count of runs: whole as a whole number (8), else to two decimals (7.5, 0.03), or
    more where two would round it to a whole number (0.9996, 0.003): 2.5 runs a year over 3
    years are 7.5 runs, not '8', and fewer than one run is never written '1' or '0'."""
    if abs(x - round(x)) < 1e-9 * max(1.0, abs(x)):
        return number(round(x), 0)
    for digits in range(2, 10):
        text = f"{x:,.{digits}f}".rstrip("0").rstrip(".")
        if float(text.replace(",", "")) != round(x):
            return text
    return f"{x:.10g}"


def no_whole_run(runs: float | None) -> bool:
    """Fewer runs over the horizon than one, but some (0.01 a year): no first run is done."""
    return runs is not None and 0 < runs < 1


def percent(x: float | None, digits: int = 0) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:.{digits}%}"


def axis_money(values: Iterable[float] | np.ndarray, currency: str,
               lang: str = "en") -> MoneyAxis:
    """The tick labels of one money axis, all in one unit chosen from the largest value on it
    (never ¥5,000.0万 and ¥1.00亿 on one axis, nor $500k and $1.00M): 亿 or 万 in Chinese for CNY,
    whole amounts with separators in Chinese for other currencies (as tables write them), and
    B, M or k in English."""
    import numpy as np  # here: the quick commands format money without numpy

    a = np.abs(np.asarray(list(values) if not isinstance(values, np.ndarray) else values,
                          dtype=float))
    a = a[np.isfinite(a)]
    top = float(a.max()) if a.size else 0.0
    sym = SYMBOLS.get(currency, currency + " ")
    # (from, unit, suffix): thousands from 10,000 on, as `money` writes them ($10k, not $10.0k
    # for 9,999), but counted in thousands
    steps = (((1e8, 1e8, "亿"), (1e4, 1e4, "万")) if lang == "zh" else
             ((1e9, 1e9, "B"), (1e6, 1e6, "M"), (1e4, 1e3, "k")))
    size, suffix = next(((n, u) for start, n, u in steps if top >= start), (1.0, ""))
    scaled = top / size
    digits = 0 if scaled >= 100 else (1 if scaled >= 10 else 2)

    def label(x: float) -> str:
        if not math.isfinite(x):
            return "n/a"
        sign = "-" if x < 0 else ""
        return f"{sign}{sym}{abs(x) / size:,.{digits}f}{suffix}"

    def ticks(locs: Iterable[float]) -> list[str]:
        """Tick labels in the axis's unit with the fewest decimals that write every tick
        exactly (¥0.5亿 ¥1.0亿 ¥1.5亿, not ¥0.50亿; $200k, not $200.0k), and zero as a bare
        zero (¥0, never ¥0.0万)."""
        locs = [float(v) for v in locs]
        places = next((d for d in range(4) if all(
            abs(round(v / size, d) - v / size) <= 1e-9 * max(1.0, abs(v / size))
            for v in locs if math.isfinite(v))), 3)
        out = []
        for v in locs:
            if not math.isfinite(v):
                out.append("n/a")
            elif v == 0:
                out.append(f"{sym}0")
            else:
                out.append(f"{'-' if v < 0 else ''}{sym}{abs(v) / size:,.{places}f}{suffix}")
        return out

    if lang == "zh" and currency != "CNY":
        def full_ticks(locs: Iterable[float]) -> list[str]:
            return [f"{sym}0" if v == 0 else money_full(v, currency) for v in locs]
        return MoneyAxis(lambda x: money_full(x, currency), full_ticks)
    return MoneyAxis(label, ticks)


class MoneyAxis:
    """A money axis's labels: called with a value (a bar's or point's label), or `ticks(locs)`
    for the axis's tick labels, all in the axis's one unit."""

    def __init__(self, label: Callable[[float], str],
                 ticks: Callable[[Iterable[float]], list[str]]) -> None:
        self._label, self.ticks = label, ticks

    def __call__(self, x: float) -> str:
        return self._label(x)


def text_table(header: list[str], rows: list[list[str]], align: str = "") -> str:
    """A plain monospace table; `align` gives 'l' or 'r' per column (default: first l, rest r)."""
    align = align or "l" + "r" * (len(header) - 1)
    header = [printable(h) for h in header]
    rows = [[printable(x) for x in r] for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]

    def line(cells: list[str]) -> str:
        out = []
        for cell, wdt, a in zip(cells, widths, align):
            out.append(str(cell).ljust(wdt) if a == "l" else str(cell).rjust(wdt))
        return "  ".join(out).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([line(header), sep] + [line(r) for r in rows]) + "\n"
