"""Static SVG charts for the report, drawn with matplotlib.

Each function takes labelled series (already translated and ordered by the caller) and returns
one `<svg>` element as a string: text stays text (`svg.fonttype: none`, so it is selectable and
searchable, and the reader's browser or the PDF renderer picks the font), ids are prefixed per
chart so several charts can share one HTML page, and the output is byte-for-byte deterministic
(fixed hash salt, no date, no creator metadata).
"""

from __future__ import annotations

import io
import re
import textwrap
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import matplotlib
import numpy as np
from matplotlib.backends.backend_svg import FigureCanvasSVG
from matplotlib.figure import Figure
from matplotlib.ticker import Formatter as TickFormatter
from matplotlib.ticker import FuncFormatter, MaxNLocator

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Formatter = Callable[[float], str]

INK = "#1f2933"
MUTED = "#616e7c"
GRID = "#e4e7eb"
ACCENT = "#0b6e69"  # the recommended candidate
# Cost components (navy to brick) and other candidates: a restrained, colour-blind-safe set.
COMPONENT_COLOURS = ("#23395b", "#4f7cac", "#a3c4dc", "#d9a441", "#c8553d", "#8c6d9e")
# One colour per drawn line (CHART_CANDIDATES less the recommended one's ACCENT): a reader
# matches each line to its label by colour. The first eight are the restrained set; the rest
# (Paul Tol's muted scheme) are needed once rent options double the lines.
OTHER_COLOURS = ("#4f7cac", "#d9a441", "#8c6d9e", "#c8553d", "#6b8f71", "#9a8c7a", "#5d6d7e",
                 "#b07aa1", "#332288", "#88ccee", "#117733", "#999933", "#cc6677", "#882255")
LOW_COLOUR, HIGH_COLOUR = "#4f7cac", "#d9a441"

# Fonts matplotlib measures text with, the same on every machine: the DejaVu Sans matplotlib
# ships (first in its font list, so it is the one found by that name) and, for Chinese, Japanese
# and Korean characters, a font of em-wide boxes the package ships (tco/exporters/metrics_font.py).
# Measured with whichever Chinese font a machine has, the charts (and the committed example
# reports) changed with the fonts installed.
MEASURE_FONTS = ["DejaVu Sans", "tco CJK metrics"]
# The fonts the SVG names: the reader's browser or the PDF renderer draws the text (Simplified
# Chinese glyphs for zh, never the JP face's variants), else any sans-serif font.
CSS_FONTS = {
    "en": "'DejaVu Sans', 'Noto Sans CJK SC', sans-serif",
    "zh": "'Noto Sans CJK SC', 'Source Han Sans SC', 'DejaVu Sans', sans-serif",
}
WIDTH_IN = 7.2
LABEL_WRAP = 26


@dataclass(frozen=True)
class Series:
    name: str
    values: Sequence[float]
    highlight: bool = False


def _measure_fonts() -> list[str]:
    """MEASURE_FONTS, the CJK metrics font registered with matplotlib once per process: as
    regular and as bold (the same em-wide boxes), so bold labels find it without a warning."""
    import dataclasses

    from matplotlib import font_manager

    from .metrics_font import FAMILY, FILE

    fonts = font_manager.fontManager
    if not any(f.name == FAMILY for f in fonts.ttflist):
        fonts.addfont(str(FILE))
        regular = next(f for f in fonts.ttflist if f.name == FAMILY)
        fonts.ttflist.append(dataclasses.replace(regular, weight=700))
    return MEASURE_FONTS


@contextmanager
def _style() -> Iterator[None]:
    rc = {
        "svg.fonttype": "none",
        "svg.hashsalt": "tco-report",
        "font.family": _measure_fonts(),
        "font.size": 8.5,
        "text.parse_math": False,  # a "$" in a candidate name is a dollar sign, not maths
        "text.color": INK,
        "axes.labelcolor": INK,
        "axes.edgecolor": MUTED,
        "axes.linewidth": 0.6,
        "axes.spines.top": False,
        "axes.spines.right": False,
        "xtick.color": MUTED,
        "ytick.color": INK,
        "xtick.major.size": 0,
        "ytick.major.size": 0,
        "legend.frameon": False,
        "figure.dpi": 72,
    }
    with matplotlib.rc_context(rc), warnings.catch_warnings():
        # A character in neither measuring font (an emoji in a name) is measured as DejaVu's
        # missing glyph and drawn by the reader's font: worth no warning per character.
        warnings.filterwarnings("ignore", message="Glyph .* missing from")
        yield


def _figure(width_in: float, height_in: float) -> tuple[Figure, Axes]:
    """A figure with one axes, drawn by the SVG backend (no pyplot: nothing global to close,
    and a quicker import)."""
    fig = Figure(figsize=(width_in, height_in))
    FigureCanvasSVG(fig)
    return fig, fig.subplots()


def _finish(fig: Figure, prefix: str, title: str, lang: str) -> str:
    from matplotlib.text import Text

    for text in fig.findobj(Text):  # a tab (which a name may hold) has no glyph in any font
        if "\t" in text.get_text():
            text.set_text(text.get_text().replace("\t", " "))
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", pad_inches=0.05,
                metadata={"Date": None, "Creator": None, "Format": None, "Type": None})
    svg = buf.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>\s*", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}-\1"', svg)
    svg = svg.replace('xlink:href="#', f'xlink:href="#{prefix}-').replace("url(#", f"url(#{prefix}-")
    # The browser or PDF renderer draws with the language's fonts, else any sans-serif font.
    css = CSS_FONTS.get(lang, CSS_FONTS["en"])
    svg = re.sub(r"font-family: [^;\"]+", lambda _: f"font-family: {css}", svg)
    # matplotlib before 3.9 writes the shorthand "font: [weight] <size>px <families>": written
    # out as the longhands newer releases write (weasyprint's SVG renderer took the shorthand's
    # family from the machine's fonts, not the PDF's pinned DejaVu files)
    svg = re.sub(r"font: (?:([\w-]+) )?([\d.]+px) [^;\"]+",
                 lambda m: (f"font-weight: {m.group(1)}; " if m.group(1) else "")
                 + f"font-size: {m.group(2)}; font-family: {css}", svg)
    # Scale with the page: keep the viewBox, drop the fixed size.
    svg = re.sub(r'^<svg ([^>]*?)width="[\d.]+pt" height="[\d.]+pt" ', r"<svg \1", svg, count=1)
    title_el = f"<title>{_xml_text(title)}</title>"
    svg = svg.replace(">", f' role="img" class="chart">{title_el}', 1)
    return svg.strip() + "\n"


def _xml_text(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _one_line(name: str) -> str:
    """A name as a chart label: tabs and line breaks (which a name may hold) as spaces; no font
    has a glyph for a tab, and matplotlib warned of it on the terminal."""
    return " ".join(name.split())


def _wrap(name: str) -> str:
    return "\n".join(textwrap.wrap(name, LABEL_WRAP)) or name


def _colours(series: Sequence[Series]) -> list[str]:
    out, k = [], 0
    for s in series:
        if s.highlight:
            out.append(ACCENT)
        else:
            out.append(OTHER_COLOURS[k % len(OTHER_COLOURS)])
            k += 1
    return out


class _Ticks(TickFormatter):  # type: ignore[misc]
    """A money axis's tick labels, written together (fmt.MoneyAxis.ticks: one unit, the
    fewest decimals every tick needs, a bare zero); a plain formatter labels each tick alone."""

    def __init__(self, fmt: Formatter) -> None:
        self.fmt = fmt
        self.labels: dict[float, str] = {}

    def set_locs(self, locs: Sequence[float]) -> None:
        super().set_locs(locs)
        ticks = getattr(self.fmt, "ticks", None)
        self.labels = dict(zip(map(float, locs), ticks(locs))) if ticks else {}

    def __call__(self, x: float, pos: int | None = None) -> str:
        return self.labels.get(float(x)) or self.fmt(x)


def _money_axis(ax: Axes, fmt: Formatter, axis: str = "x") -> None:
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_formatter(_Ticks(fmt))
    target.set_major_locator(MaxNLocator(6))
    ax.grid(axis=axis, color=GRID, linewidth=0.6)
    ax.set_axisbelow(True)


def stacked_bars(names: Sequence[str], parts: Sequence[Series], totals: Sequence[float],
                 axis_label: str, fmt: Formatter, highlight: int | None, lang: str,
                 title: str) -> str:
    """Horizontal bars, one per candidate (first on top), split into components."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 0.9 + 0.42 * len(names))
        y = np.arange(len(names))
        left = np.zeros(len(names))
        for k, part in enumerate(parts):
            vals = np.asarray(part.values, dtype=float)
            ax.barh(y, vals, left=left, height=0.62, label=part.name,
                    color=COMPONENT_COLOURS[k % len(COMPONENT_COLOURS)], linewidth=0)
            left = left + vals
        for i, total in enumerate(totals):
            ax.text(left[i], i, "  " + fmt(total), va="center", ha="left", fontsize=8,
                    color=INK, fontweight="bold" if i == highlight else "normal")
        ax.set_yticks(y, [_wrap(n) for n in names])
        if highlight is not None:
            ax.get_yticklabels()[highlight].set_fontweight("bold")
        ax.invert_yaxis()
        ax.set_xlabel(axis_label)
        _money_axis(ax, fmt)
        ax.set_xlim(0, max(left.max(), 1e-9) * 1.18)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(parts), fontsize=8,
                  handlelength=1.2, columnspacing=1.2)
        return _finish(fig, "cost", title, lang)


def cumulative_lines(years: Sequence[int], series: Sequence[Series], axis_label: str,
                     year_label: str, fmt: Formatter, lang: str, title: str) -> str:
    """One line per candidate: its cumulative net cash flow by year (the model's running
    total, `cumulative`)."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 3.6)
        colours = _colours(series)
        ends = []
        for s, colour in zip(series, colours):
            run = np.asarray(s.values, dtype=float)
            ax.plot(years, run, color=colour, linewidth=2.4 if s.highlight else 1.3,
                    marker="o", markersize=3 if s.highlight else 2, zorder=3 if s.highlight else 2)
            ends.append([float(run[-1]), s.name, colour, s.highlight])
        _label_line_ends(ax, ends, years[-1])
        ax.set_xticks(list(years))
        ax.set_xlabel(year_label)
        ax.set_ylabel(axis_label)
        _money_axis(ax, fmt, axis="y")
        ax.set_xlim(years[0] - 0.2, years[-1] + 0.2)
        return _finish(fig, "cash", title, lang)


def _label_line_ends(ax: Axes, ends: list[list], x: float) -> None:
    """Name each line at its right end, nudged apart so the labels do not overlap."""
    ends.sort(key=lambda e: e[0])
    lo, hi = ax.get_ylim()
    lo = min(lo, min(e[0] for e in ends))
    hi = max(hi, max(e[0] for e in ends))
    gap = (hi - lo) * 0.055
    placed: list[float] = []
    for value, _name, _colour, _hl in ends:
        y = value if not placed else max(value, placed[-1] + gap)
        placed.append(y)
    shift = max(0.0, placed[-1] - hi) if placed else 0.0
    for (value, name, colour, hl), y in zip(ends, placed):
        ax.annotate(_one_line(name), xy=(x, value), xytext=(x + 0.15, y - shift), fontsize=7.5,
                    color=colour, va="center", ha="left", annotation_clip=False,
                    fontweight="bold" if hl else "normal")


def bars(names: Sequence[str], values: Sequence[float], labels: Sequence[str], axis_label: str,
         highlight: int | None, lang: str, title: str, prefix: str = "time") -> str:
    """Horizontal bars (first on top), each with its value written at the end."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 0.6 + 0.36 * len(names))
        y = np.arange(len(names))
        colours = [ACCENT if i == highlight else "#a3b3c2" for i in range(len(names))]
        vals = np.asarray(values, dtype=float)
        ax.barh(y, vals, height=0.6, color=colours, linewidth=0)
        for i, text in enumerate(labels):
            ax.text(vals[i], i, "  " + text, va="center", ha="left", fontsize=8,
                    fontweight="bold" if i == highlight else "normal")
        ax.set_yticks(y, [_wrap(n) for n in names])
        if highlight is not None:
            ax.get_yticklabels()[highlight].set_fontweight("bold")
        ax.invert_yaxis()
        ax.set_xlabel(axis_label)
        ax.grid(axis="x", color=GRID, linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlim(0, max(vals.max(), 1e-9) * 1.3)
        return _finish(fig, prefix, title, lang)


def tornado(labels: Sequence[str], metric_low: Sequence[float], metric_high: Sequence[float],
            base: float, axis_label: str, legend: tuple[str, str], fmt: Formatter, lang: str,
            title: str) -> str:
    """Each input's effect on the metric: a bar from the baseline to the metric at the input's
    low value and one to its value at the high value; largest effect on top."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 0.9 + 0.34 * len(labels))
        y = np.arange(len(labels))
        lo = np.asarray(metric_low, dtype=float) - base
        hi = np.asarray(metric_high, dtype=float) - base
        ax.barh(y, lo, left=base, height=0.62, color=LOW_COLOUR, label=legend[0], linewidth=0)
        ax.barh(y, hi, left=base, height=0.62, color=HIGH_COLOUR, label=legend[1], linewidth=0)
        ax.axvline(base, color=INK, linewidth=0.8)
        ax.set_yticks(y, [_wrap(n) for n in labels])
        ax.invert_yaxis()
        ax.set_xlabel(axis_label)
        _money_axis(ax, fmt)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, fontsize=8)
        return _finish(fig, "tornado", title, lang)


def distributions(series: Sequence[Series], axis_label: str, count_label: str, fmt: Formatter,
                  lang: str, title: str) -> str:
    """Histograms (as outlines, share of draws) of each candidate's sampled metric."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 3.2)
        colours = _colours(series)
        pooled = np.concatenate([np.asarray(s.values, dtype=float) for s in series])
        edges = np.histogram_bin_edges(pooled[np.isfinite(pooled)], bins=60)
        for s, colour in zip(series, colours):
            vals = np.asarray(s.values, dtype=float)
            vals = vals[np.isfinite(vals)]
            weights = np.full(vals.shape, 1.0 / max(len(vals), 1))
            ax.hist(vals, bins=edges, weights=weights, histtype="stepfilled", alpha=0.18,
                    color=colour, linewidth=0)
            ax.hist(vals, bins=edges, weights=weights, histtype="step", color=colour,
                    linewidth=2.0 if s.highlight else 1.1, label=_one_line(s.name))
        ax.set_xlabel(axis_label)
        ax.set_ylabel(count_label)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:.0%}"))
        _money_axis(ax, fmt)
        ax.legend(loc="upper right", fontsize=7.5)
        return _finish(fig, "mc", title, lang)


def intervals(names: Sequence[str], p10: Sequence[float], p50: Sequence[float],
              p90: Sequence[float], axis_label: str, fmt: Formatter, highlight: int | None,
              lang: str, title: str) -> str:
    """P10-P90 ranges with the median marked, when no samples are available."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 0.8 + 0.36 * len(names))
        for i in range(len(names)):
            colour = ACCENT if i == highlight else "#7b8794"
            ax.plot([p10[i], p90[i]], [i, i], color=colour, linewidth=5, solid_capstyle="butt")
            ax.plot([p50[i]], [i], marker="|", markersize=14, color=INK)
        ax.set_yticks(np.arange(len(names)), [_wrap(n) for n in names])
        ax.invert_yaxis()
        ax.set_xlabel(axis_label)
        _money_axis(ax, fmt)
        return _finish(fig, "mc", title, lang)


def stacked_columns(labels: Sequence[str], parts: Sequence[Series], line: Series,
                    axis_label: str, lang: str, title: str, prefix: str = "plan") -> str:
    """Columns over time (one per period, `labels` under some of them), each split into
    parts, with a line over them (the plan's capacity by source and the work it does)."""
    with _style():
        fig, ax = _figure(WIDTH_IN, 3.4)
        x = np.arange(len(labels))
        bottom = np.zeros(len(labels))
        for k, part in enumerate(parts):
            vals = np.asarray(part.values, dtype=float)
            ax.bar(x, vals, bottom=bottom, width=0.86, label=part.name,
                   color=COMPONENT_COLOURS[k % len(COMPONENT_COLOURS)], linewidth=0)
            bottom = bottom + vals
        ax.step(x, np.asarray(line.values, dtype=float), where="mid", color=HIGH_COLOUR, linewidth=1.6,
                label=line.name)
        step = max(1, len(labels) // 10)
        ax.set_xticks(x[::step], [labels[i] for i in range(0, len(labels), step)], fontsize=7,
                      rotation=0)
        ax.set_ylabel(axis_label)
        ax.grid(axis="y", color=GRID, linewidth=0.6)
        ax.set_axisbelow(True)
        ax.set_xlim(-0.6, len(labels) - 0.4)
        top = max(float(bottom.max()) if len(bottom) else 0.0, max(line.values, default=0.0))
        ax.set_ylim(0, max(top, 1e-9) * 1.12)
        ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=min(4, len(parts) + 1),
                  fontsize=8, handlelength=1.2, columnspacing=1.2)
        return _finish(fig, prefix, title, lang)
