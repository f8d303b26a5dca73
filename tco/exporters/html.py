"""The proposal report as one self-contained HTML file (inline CSS and SVG, no script), or PDF.

`render_html(result, lang)` returns the page; `write_html` and `write_pdf` write it (atomically,
or into a device or pipe: tco.fsio.write_output).
The report date is today's date (UTC), or the UTC date of the SOURCE_DATE_EPOCH environment
variable when it is set, so that the same inputs give byte-identical files (tco.dates).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from ..dates import output_date
from ..errors import TcoError
from ..fsio import check_writable, write_output
from ..gcpause import paused_gc
from ..resources import templates_dir
from ..result import Result
from .i18n import LANGS, Strings
from .report_view import build_view

PAPERS = {"a4": "A4", "letter": "letter"}
BODY_FONTS = {
    "en": '"Noto Sans", "DejaVu Sans", "Helvetica Neue", Arial, "Noto Sans CJK SC", sans-serif',
    "zh": '"Noto Sans CJK SC", "Source Han Sans SC", "PingFang SC", "Microsoft YaHei", '
          '"DejaVu Sans", sans-serif',
}


def report_date() -> dt.date:
    """Today (UTC), or the UTC date of SOURCE_DATE_EPOCH when set (see tco.dates)."""
    return output_date()


def css_string(text: str) -> str:
    """A quoted CSS string that cannot end the string, the rule or the <style> element."""
    out = []
    for ch in text:
        if ch.isascii() and (ch.isalnum() or ch in " .,:;-_/()"):
            out.append(ch)
        else:
            out.append(f"\\{ord(ch):06x} ")  # the space ends the escape and is consumed
    return '"' + "".join(out) + '"'


def css_page_label(pattern: str) -> str:
    """'Page {page} of {pages}' -> "Page " counter(page) " of " counter(pages)."""
    parts = []
    for piece in re.split(r"(\{page\}|\{pages\})", pattern):
        if piece == "{page}":
            parts.append("counter(page)")
        elif piece == "{pages}":
            parts.append("counter(pages)")
        elif piece:
            parts.append(css_string(piece))
    return " ".join(parts)


def _environment() -> Environment:
    return Environment(
        loader=FileSystemLoader(str(templates_dir())),
        autoescape=select_autoescape(enabled_extensions=("html", "j2"),
                                     disabled_extensions=("css",), default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def _check(lang: str, paper: str) -> None:
    if lang not in LANGS:
        raise TcoError(f"unknown report language '{lang}'; expected one of {', '.join(LANGS)}")
    if paper not in PAPERS:
        raise TcoError(f"unknown paper size '{paper}'; expected one of {', '.join(PAPERS)}")


def render_html(result: Result, lang: str = "en", paper: str = "a4",
                day: dt.date | None = None) -> str:
    """The whole report as one HTML document (a string), dated `day` (default: report_date())."""
    _check(lang, paper)
    env = _environment()
    strings = Strings(lang)
    p = result.provenance
    css = env.get_template("report.css").render(
        page_size=PAPERS[paper],
        page_label=css_page_label(strings("page_label", page="{page}", pages="{pages}")),
        footer_left=css_string(f"tco {p.tool_version} · {p.scenario_digest}"),
        body_font=BODY_FONTS[lang],
    )
    with paused_gc():
        view = build_view(result, lang, day or report_date())
        return env.get_template("report.html.j2").render(css=Markup(css), **view)


def write_html(result: Result, path: Path | str, lang: str = "en", paper: str = "a4",
               day: dt.date | None = None) -> Path:
    check_writable(path)
    return write_output(path, render_html(result, lang, paper, day))


def write_pdf(result: Result, path: Path | str, lang: str = "en", paper: str = "a4",
              engine: str = "auto", day: dt.date | None = None) -> Path:
    """The report as PDF: weasyprint when installed, else headless Chromium's print-to-PDF."""
    from .pdf import html_to_pdf

    check_writable(path)
    html = render_html(result, lang, paper, day)
    return write_output(path, html_to_pdf(html, engine))
