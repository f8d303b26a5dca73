"""Charts are measured with fonts the package brings (matplotlib's DejaVu Sans, and em-wide boxes
for CJK characters), so a chart, and so the committed example reports, come out byte for byte
the same whether or not a Chinese font is installed; and they print no font warnings."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tco.exporters import charts, metrics_font

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter: matplotlib sees no Chinese font at all (its font list and the
# system font search both filtered), as on a machine without fonts-noto-cjk.
WITHOUT_CJK = """
import sys
from matplotlib import font_manager as fm
cjk = ("CJK", "Source Han", "WenQuanYi", "Droid Sans Fallback", "AR PL")
fm.fontManager.ttflist = [f for f in fm.fontManager.ttflist
                          if not any(k in f.name for k in cjk)]
_find = fm.findSystemFonts
fm.findSystemFonts = lambda *a, **k: [p for p in _find(*a, **k)
                                      if not any(k.replace(" ", "") in p for k in cjk)]
from tco.cli import main
sys.argv = ["tco", *sys.argv[1:]]
main()
"""


def _draw_zh_chart() -> str:
    return charts.bars(["训练集群甲 H100", "训练集群乙"], [10.0, 20.0], ["10 天", "20 天"],
                       "训练时间（天）", highlight=0, lang="zh", title="训练时间")


def test_the_shipped_metrics_font_is_the_builders_output():
    assert metrics_font.FILE.read_bytes() == metrics_font.build()


def test_cjk_characters_measure_one_em_each():
    """Each CJK character advances one em (1,000 units), its box 920 units wide: n of them
    measure n em, less the side bearings where matplotlib measures ink rather than advance
    (at most 80 units): at 100 px per em, 100 px a character within 8. A half-width katakana
    is not in the font (0 px: measured by DejaVu's missing glyph in a chart)."""
    from matplotlib import ft2font

    font = ft2font.FT2Font(str(metrics_font.FILE))
    font.set_size(100, 72)  # 100 px per em
    for text, n in (("训", 1), ("训练", 2), ("（天）", 3)):
        font.set_text(text, 0.0)
        assert font.get_width_height()[0] / 64 == pytest.approx(100 * n, abs=8), text
    assert ord("ｸ") not in font.get_charmap() and ord("训") in font.get_charmap()


def test_a_chinese_chart_prints_no_font_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        svg = _draw_zh_chart()
    assert not caught, [str(w.message) for w in caught[:3]]
    assert "训练集群甲" in svg  # the text stays text in the SVG
    # whatever measured it, the SVG asks for the Simplified Chinese fonts first
    assert "'Noto Sans CJK SC', 'Source Han Sans SC'" in svg and "CJK JP" not in svg


def test_the_zh_report_is_the_same_without_a_chinese_font(tmp_path):
    """The zh report (with its charts) written on this machine and on one with no Chinese font
    is the same file, and neither run prints a font warning."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "TCO_NO_CACHE": "1",
           "MPLCONFIGDIR": str(tmp_path / "mpl")}
    outs = []
    for name, code in (("with", "from tco.cli import main; main()"), ("without", WITHOUT_CJK)):
        html = tmp_path / f"{name}.html"
        res = subprocess.run([sys.executable, "-c", code, "report", "--html", str(html),
                              "--lang", "zh", "--draws", "200"],
                             env=env, cwd=tmp_path, check=False, capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        assert "findfont" not in res.stderr and "Glyph" not in res.stderr, res.stderr
        outs.append(html.read_bytes())
    assert b"<svg" in outs[0]
    assert outs[0] == outs[1]


def test_the_english_pdf_is_the_same_file_whatever_fonts_the_machine_has(tmp_path):
    """weasyprint sets an English PDF in the DejaVu files matplotlib ships: the example PDF
    made with this machine's fonts and with none at all (fontconfig given an empty folder)
    is the same file, and names only those faces."""
    from report_support import require_weasyprint

    require_weasyprint()
    empty = tmp_path / "no-fonts"
    empty.mkdir()
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?><!DOCTYPE fontconfig SYSTEM "fonts.dtd">'
                    f"<fontconfig><dir>{empty}</dir><cachedir>{tmp_path / 'fc'}</cachedir>"
                    "</fontconfig>")
    pdfs = []
    for name, extra in (("here", {}), ("bare", {"FONTCONFIG_FILE": str(conf)})):
        out = tmp_path / f"{name}.pdf"
        env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000", "TCO_NO_CACHE": "1", **extra}
        res = subprocess.run([sys.executable, "-m", "tco", "report", "--pdf", str(out),
                              "--draws", "0"], env=env, cwd=tmp_path, check=False, capture_output=True,
                             text=True)
        assert res.returncode == 0, res.stderr
        pdfs.append(out.read_bytes())
    assert pdfs[0] == pdfs[1]
    import io

    from pypdf import PdfReader

    faces = set()  # the fonts of the pages' text (subset prefix "ABCDEF+" dropped)
    for page in PdfReader(io.BytesIO(pdfs[0])).pages:
        fonts = page["/Resources"].get_object().get("/Font")
        fonts = fonts.get_object() if fonts is not None else {}  # pypdf 4.0: indirect
        faces |= {str(f.get_object()["/BaseFont"]).split("+", 1)[-1] for f in fonts.values()}
    assert faces and faces <= {"tco-sans", "tco-sans-Bold", "tco-sans-Oblique",
                               "tco-sans-BoldOblique", "tco-mono", "tco-mono-Bold"}, faces
