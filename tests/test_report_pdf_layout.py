"""Page 1 of the PDF as rendered, for a plan of three workloads (pre-train, fine-tune, serve),
in English and Chinese, printed by both engines the project supports (WeasyPrint, Chromium).

Issue 25: the cover of a plan with several workloads broke. WeasyPrint sized the cover's grid
columns by their content, so the plan's column grew until the horizon and the digests ran down
the page a character a line (Chinese) and text ran off the page (English). Checked here as the
reader sees it, not in the HTML:

- every word on page 1 lies inside the printed area (poppler's pdftotext gives each word's box);
- no line of text on page 1 is a single character (list markers aside);
- each short cover fact (date, horizon, currency, digests) is whole on one line, and every
  workload's line of the plan is there;
- nothing at all is drawn in the left or right page margin (page 1 rasterised by pdftoppm):
  a box or rule running off would show there even without text.
"""

from __future__ import annotations

import re
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from report_support import add_analyses, require_chromium, require_program, require_weasyprint

from tco.engine import compute
from tco.exporters.html import report_date, write_pdf
from tco.exporters.i18n import Strings
from tco.exporters.report_view import build_view
from tco.scenario import load_scenario

SCENARIO = Path(__file__).parent / "data" / "three_workloads.yaml"
A4_W_PT, A4_H_PT = 595.28, 841.89
MARGIN_X_PT = 15 / 25.4 * 72  # report.css @page: 15 mm left and right
SLACK_PT = 1.0  # anti-aliasing and the font's side bearings
LIST_MARKERS = re.compile(r"^(?:[•·◦‧・]|\d+\.)$")


@pytest.fixture(scope="module")
def result(catalog):
    return add_analyses(compute(load_scenario(SCENARIO), catalog))


def _require_engine(engine: str) -> None:
    require_weasyprint() if engine == "weasyprint" else require_chromium()


@pytest.fixture(scope="module", params=[(e, lang) for e in ("weasyprint", "chromium")
                                        for lang in ("en", "zh")],
                ids=lambda p: f"{p[0]}-{p[1]}")
def printed(request, result, tmp_path_factory):
    engine, lang = request.param
    _require_engine(engine)
    path = tmp_path_factory.mktemp("layout") / f"report.{lang}.{engine}.pdf"
    write_pdf(result, path, lang=lang, engine=engine)
    return engine, lang, path


def page1_lines(path: Path) -> list[tuple[str, list[tuple[float, float, float, float]]]]:
    """Page 1's lines of text: (the text, each word's box x0, y0, x1, y1 in points)."""
    pdftotext = require_program("pdftotext")
    xml = subprocess.run([pdftotext, "-f", "1", "-l", "1", "-bbox-layout", str(path), "-"],
                         capture_output=True, text=True, check=True).stdout
    root = ET.fromstring(re.sub(r"<!DOCTYPE[^>]*>", "", xml))
    ns = {"h": "http://www.w3.org/1999/xhtml"}
    out = []
    for line in root.iterfind(".//h:line", ns):
        words = line.findall("h:word", ns)
        text = " ".join((w.text or "") for w in words)
        boxes = [tuple(float(w.get(k, "nan")) for k in ("xMin", "yMin", "xMax", "yMax"))
                 for w in words]
        out.append((text, boxes))
    return out


def page1_grey(path: Path, dpi: int = 72) -> np.ndarray:
    """Page 1 as grey levels 0..255 (pdftoppm's PGM: header, then one byte a pixel)."""
    pdftoppm = require_program("pdftoppm")
    data = subprocess.run([pdftoppm, "-f", "1", "-l", "1", "-r", str(dpi), "-gray", str(path)],
                          capture_output=True, check=True).stdout
    fields = data.split(maxsplit=4)  # b"P5", width, height, maxval, pixels
    assert fields[0] == b"P5"
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(fields[4][:w * h], dtype=np.uint8).reshape(h, w)


def test_every_word_of_page_1_is_on_the_page(printed):
    engine, lang, path = printed
    lines = page1_lines(path)
    assert lines, "page 1 has no text"
    outside = [(text, box) for text, boxes in lines for box in boxes
               if box[0] < MARGIN_X_PT - SLACK_PT or box[2] > A4_W_PT - MARGIN_X_PT + SLACK_PT
               or box[1] < 0 or box[3] > A4_H_PT]
    assert not outside, f"{engine} {lang}: text outside the printed area: {outside[:5]}"


def test_no_line_of_page_1_is_one_character(printed):
    engine, lang, path = printed
    single = [text for text, _ in page1_lines(path)
              if len(text.replace(" ", "")) == 1 and not LIST_MARKERS.match(text.strip())]
    assert not single, f"{engine} {lang}: lines of one character on page 1: {single}"


def test_the_cover_facts_are_whole_on_one_line(printed, result):
    """The short facts each whole on one line, and each workload of the plan on page 1 (the
    plan is long: a line per workload, each free to wrap)."""
    engine, lang, path = printed
    view = build_view(result, lang, report_date())
    texts = [text for text, _ in page1_lines(path)]
    joined = re.sub(r"\s+", "", "".join(texts))
    for m in view["meta"]:
        for line in m["lines"]:
            if m["wide"]:
                assert re.sub(r"\s+", "", line) in joined, (engine, lang, line)
            else:
                assert any(line in t for t in texts), (engine, lang, m["label"], line, texts[:12])
    s = Strings(lang)
    assert s("meta_workloads").upper() in " ".join(texts).upper()  # dt: text-transform


def test_nothing_is_drawn_in_the_side_margins(printed):
    """Page 1 at 72 dpi (a pixel a point): the columns of the left and right margins, less the
    slack beside the printed area, are blank paper from top to bottom."""
    engine, lang, path = printed
    grey = page1_grey(path)
    h, w = grey.shape
    assert abs(w - A4_W_PT) <= 1 and abs(h - A4_H_PT) <= 1
    edge = int(MARGIN_X_PT - 2 * SLACK_PT)
    left, right = grey[:, :edge], grey[:, w - edge:]
    assert left.min() >= 250, f"{engine} {lang}: ink in the left margin"
    assert right.min() >= 250, (f"{engine} {lang}: ink in the right margin at rows "
                                f"{np.nonzero(right.min(axis=1) < 250)[0][:10].tolist()}")
