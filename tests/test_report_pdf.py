"""The report as PDF: paper size, page layout and numbering, the headline figures in its text,
and Chinese text set in a CJK font."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from report_support import (
    add_analyses,
    require,
    require_chromium,
    require_program,
    require_weasyprint,
)

from tco.decide import recommend as recommendation
from tco.decide.rules import single
from tco.engine import compute
from tco.exporters.decision_words import action_text, headline_segments
from tco.exporters.fmt import money, money_full, number
from tco.exporters.html import write_pdf
from tco.exporters.i18n import Strings
from tco.scenario import load_scenario

A4_PT = (595.28, 841.89)
LETTER_PT = (612.0, 792.0)


@pytest.fixture(scope="module")
def result(catalog):
    return add_analyses(compute(load_scenario(), catalog))


@pytest.fixture(scope="module")
def en_pdf(result, tmp_path_factory):
    require_weasyprint()
    return write_pdf(result, tmp_path_factory.mktemp("pdf") / "report.pdf", lang="en")


def page_texts(path) -> list[str]:
    """Each page's text, whitespace collapsed, as poppler's pdftotext reads it.

    pypdf is not used for text: it returns NUL-interleaved strings for some of the CID fonts that
    WeasyPrint embeds (DejaVu alone, say), so what it reads depends on the fonts installed.
    """
    pdftotext = require_program("pdftotext")
    out = subprocess.run([pdftotext, "-enc", "UTF-8", str(path), "-"], capture_output=True,
                         text=True, check=True).stdout
    pages = out.split("\f")
    if pages and not pages[-1].strip():
        pages.pop()  # pdftotext ends the last page with a form feed too
    return [re.sub(r"\s+", " ", p) for p in pages]


def page_size(path) -> tuple[float, float]:
    from pypdf import PdfReader

    box = PdfReader(str(path)).pages[0].mediabox
    return float(box.width), float(box.height)


def test_pages_follow_the_layout(result, en_pdf):
    """The order of the example's pages, by construction of the print CSS: the cover and
    executive summary; the plan (methodology §19); the comparison; the charts; one page per priced candidate (each starts a
    page and none is split); infeasible candidates and risk flags; the inputs with their sources;
    methodology and caveats. The page count is not pinned: it depends on the fonts' metrics."""
    pages = page_texts(en_pdf)
    n = len(pages)
    for k, text in enumerate(pages, start=1):
        assert f"Page {k} of {n}" in text  # page numbers in the margin
    assert "Executive summary" in pages[0] and result.scenario.name in pages[0]
    assert pages[1].lstrip().startswith("The plan: what to buy, rent or call, and when")
    comparison = next(i for i, t in enumerate(pages) if t.lstrip().startswith("Comparison"))
    assert 2 <= comparison <= 3  # the plan takes one page or two
    priced = [c for c in result.candidates if c.priced]
    first = next(i for i, t in enumerate(pages) if t.lstrip().startswith("Candidate details"))
    for i, c in enumerate(priced):
        text = pages[first + i].lstrip().removeprefix("Candidate details").lstrip()
        assert text.startswith(c.info.name), (first + i + 1, c.id)
        assert "Net cash flow" in pages[first + i]  # the whole detail is on its page
    assert "Risk flags" in pages[first + len(priced)]
    assumptions = next(i for i, t in enumerate(pages) if t.lstrip().startswith("Assumptions"))
    assert assumptions == first + len(priced) + 1
    assert "Caveats" in pages[-2] + pages[-1]  # the caveats close the report


def test_headline_figures_are_in_the_pdf_text(result, en_pdf):
    """The example is planned (issue 27): page 1 gives the plan's headline and its key figures
    (tco.decide's Decision, as JSON gives them), not the best single option's."""
    first = page_texts(en_pdf)[0]
    said = recommendation(result)
    assert said is not None and said.mode == "plan" and said.best_option is not None
    best = said.best_option
    assert best.option == single(result).id  # the example's best single option rents B200
    assert said.value_of_flexibility is not None
    for figure in (said.npv_tco, best.npv_tco, best.npv_tco - said.npv_tco,
                   said.value_of_flexibility):
        assert money(figure, "USD") in first, figure
    years = number(result.structure.horizon_years, 0)
    headline = (f"Recommendation: {action_text(said, 'USD')}; {money(said.npv_tco, 'USD')} over "
                f"{years} years.")
    assert squeeze(headline) in squeeze(first)  # a line break may fall anywhere in it
    assert f"Recommendation: rent {single(result).info.card_name}" not in first
    assert page_size(en_pdf) == pytest.approx(A4_PT, abs=0.5)


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def test_letter_paper(result, tmp_path):
    require_weasyprint()
    path = write_pdf(result, tmp_path / "letter.pdf", lang="en", paper="letter")
    assert page_size(path) == pytest.approx(LETTER_PT, abs=0.5)
    pages = page_texts(path)
    assert all(f"Page {k} of {len(pages)}" in t for k, t in enumerate(pages, start=1))


def _fontconfig_has_chinese_font() -> bool:
    """WeasyPrint finds fonts through fontconfig: ask it for a Simplified Chinese font."""
    fc_list = shutil.which("fc-list")
    if fc_list is None:
        return False
    out = subprocess.run([fc_list, ":lang=zh-cn", "family"], capture_output=True, text=True,
                         check=False).stdout
    return "Noto Sans CJK SC" in out


def test_chinese_pdf_uses_a_cjk_font(result, tmp_path):
    require_weasyprint()
    require(_fontconfig_has_chinese_font(), "Noto Sans CJK SC (fonts-noto-cjk)")
    pdffonts = require_program("pdffonts")
    pdftotext = require_program("pdftotext")
    path = write_pdf(result, tmp_path / "report.zh.pdf", lang="zh")
    fonts = subprocess.run([pdffonts, str(path)], capture_output=True, text=True, check=True)
    assert re.search(r"Noto-?Sans-?CJK-?SC", fonts.stdout), fonts.stdout
    text = subprocess.run([pdftotext, str(path), "-"], capture_output=True, text=True,
                          check=True).stdout
    zh = Strings("zh")
    for key in ("h_summary", "h_comparison", "h_cost_per_job", "h_candidates", "h_assumptions",
                "h_methodology", "h_caveats"):
        assert zh(key) in text, key
    assert re.search(r"第 1 页，共 \d+ 页", text)
    # page 1 gives the plan's headline in Chinese (the catalog's names as the report writes
    # them; USD in Chinese written out in full, as every amount of the zh report in USD)
    said = recommendation(result)
    assert said is not None and said.mode == "plan"
    headline = "".join(p.text for p in headline_segments(
        said, result.structure.horizon_years, "USD", "zh",
        lambda x: money_full(x, "USD"), zh.catalog))
    assert headline.startswith("建议：采用最低成本计划")
    assert money_full(said.npv_tco, "USD") in headline
    assert squeeze(headline) in squeeze(text.split("\f")[0])


def test_chromium_prints_the_same_report(result, tmp_path):
    require_chromium()
    path = write_pdf(result, tmp_path / "chromium.pdf", lang="en", engine="chromium")
    pages = page_texts(path)
    assert all(f"Page {k} of {len(pages)}" in t for k, t in enumerate(pages, start=1))
    rec = single(result)
    assert rec is not None
    assert money(rec.values["npv_tco"], "USD") in " ".join(pages)
    assert page_size(path) == pytest.approx(A4_PT, abs=0.5)
