"""The report in a real browser (headless Chromium): it loads without a console message, draws
something, and draws Chinese characters as glyphs, not as missing-glyph boxes.

The page's Content-Security-Policy (default-src 'none') turns any attempt to run a script or to
fetch a file into a console message, so "no console messages" also means "nothing fetched".
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from report_support import add_analyses, browse, pixels

from tco.engine import compute
from tco.exporters.html import render_html, write_html
from tco.scenario import load_scenario


@pytest.fixture(scope="module")
def result(catalog):
    return add_analyses(compute(load_scenario(), catalog))


def test_console_check_sees_errors_and_blocked_loads(tmp_path):
    """The control: the method below does see a script error and a blocked fetch."""
    page = tmp_path / "control.html"
    page.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv='
        '"Content-Security-Policy" content="default-src \'none\'"></head><body><p>x</p>'
        '<img src="https://example.invalid/a.png"></body></html>', encoding="utf-8")
    _png, console = browse(page, tmp_path, 400, 300)
    assert any("example.invalid" in line for line in console), console


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_report_loads_cleanly_and_is_not_blank(result, tmp_path, lang):
    page = write_html(result, tmp_path / f"report-{lang}.html", lang=lang)
    png, console = browse(page, tmp_path)
    assert console == []
    grey = pixels(png)
    assert grey.shape == (2000, 1280)
    assert grey.std() > 0.08  # text, tables and charts, not a blank page
    ink = (grey < 0.5).mean()
    assert 0.01 < ink < 0.5


def _glyph_page(tmp_path, name: str, text: str, style: str) -> np.ndarray:
    page = tmp_path / f"{name}.html"
    page.write_text(f'<!DOCTYPE html><html lang="zh-Hans"><head><meta charset="utf-8"><style>'
                    f'{style} body{{margin:0;background:#fff}} h2{{margin:8px;border:0;padding:0;'
                    f'font-size:40px}}</style></head><body class="lang-zh"><h2>{text}</h2>'
                    f'</body></html>', encoding="utf-8")
    png, console = browse(page, tmp_path, 400, 80)
    assert console == []
    return pixels(png)


def test_chinese_headings_render_as_glyphs(result, tmp_path):
    """Two different four-character headings, in the report's own CSS, must look different
    (missing glyphs would all be the same box); the control shows that four characters no font
    has do come out identical."""
    html = render_html(result, "zh")
    style = re.search(r"<style>(.*?)</style>", html, re.DOTALL).group(1)
    assert "执行摘要" in html and "方案对比" in html
    a = _glyph_page(tmp_path, "summary", "执行摘要", style)
    b = _glyph_page(tmp_path, "compare", "方案对比", style)
    assert (a < 0.5).mean() > 0.01 and (b < 0.5).mean() > 0.01  # ink on the page
    assert np.abs(a - b).mean() > 0.01
    tofu1 = _glyph_page(tmp_path, "tofu1", "\U000f0001\U000f0002\U000f0003\U000f0004", style)
    tofu2 = _glyph_page(tmp_path, "tofu2", "\U000f0005\U000f0006\U000f0007\U000f0008", style)
    assert np.abs(tofu1 - tofu2).mean() < 1e-6
