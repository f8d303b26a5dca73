"""Chinese charts are measured with a Chinese font, even when matplotlib's cached font list
was built before the CJK fonts were installed, and they print no missing-glyph warnings."""

from __future__ import annotations

import warnings

import pytest
from report_support import require

from tco.exporters import charts


def _cjk_font_installed() -> bool:
    from matplotlib import font_manager

    files = font_manager.findSystemFonts(fontext="ttf") + font_manager.findSystemFonts(
        fontext="otf")
    return any(p.rsplit("/", 1)[-1].startswith(charts.CJK_FONT_FILES) for p in files)


def _draw_zh_chart() -> str:
    return charts.bars(["训练集群甲", "训练集群乙"], [10.0, 20.0], ["10 天", "20 天"],
                       "训练时间（天）", highlight=0, lang="zh", title="训练时间")


@pytest.fixture
def stale_font_cache(monkeypatch):
    """matplotlib's font list as it is when its cache was built before fonts-noto-cjk was
    installed: no Chinese faces. The list is restored after the test."""
    from matplotlib import font_manager

    fm = font_manager.fontManager
    stale = [f for f in fm.ttflist if "CJK" not in f.name and "Source Han" not in f.name]
    monkeypatch.setattr(fm, "ttflist", stale)
    return fm


def test_a_stale_font_cache_still_finds_the_chinese_font(stale_font_cache):
    require(_cjk_font_installed(), "a Chinese font (Noto Sans CJK or Source Han Sans)")
    assert "Noto Sans CJK SC" not in {f.name for f in stale_font_cache.ttflist}
    families = charts._families("zh")
    assert families[0] in ("Noto Sans CJK SC", "Source Han Sans SC", "Noto Sans CJK JP"), families


def test_a_chinese_chart_with_a_stale_cache_prints_no_glyph_warnings(stale_font_cache):
    """Measured with the Chinese font found on disk or, on a machine with none, with DejaVu's
    widths (the reader's own font draws it): never a screenful of 'Glyph ... missing'."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = _draw_zh_chart()
    glyphs = [w for w in caught if "Glyph" in str(w.message)]
    assert not glyphs, [str(w.message) for w in glyphs[:3]]
    assert "训练集群甲" in svg  # the text stays text in the SVG
    # Whatever face measured it, the SVG asks for the Simplified Chinese fonts first.
    assert "'Noto Sans CJK SC', 'Source Han Sans SC'" in svg and "CJK JP" not in svg
