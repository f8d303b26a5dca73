"""The HTML report without a browser: self-contained, deterministic, the engine's numbers, inert
user text, and every word translated in the Chinese edition."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from html import unescape
from html.parser import HTMLParser

import pytest
import yaml
from report_support import add_analyses, parse

from tco.decide import recommend as recommendation
from tco.decide.rules import single
from tco.engine import compute
from tco.errors import TcoError
from tco.exporters.decision_words import action_text
from tco.exporters.fmt import money
from tco.exporters.html import css_string, render_html, write_html
from tco.exporters.i18n import Strings
from tco.resources import example_scenario, templates_dir
from tco.scenario import load_scenario_text

EPOCH = "1767225600"  # 2026-01-01T00:00:00Z
URL_ATTRS = {"src", "href", "xlink:href", "srcset", "action", "formaction", "poster", "data",
             "background", "cite", "longdesc", "ping", "manifest", "codebase", "lowsrc"}


@pytest.fixture(scope="module")
def analysed(catalog):
    return add_analyses(compute(load_scenario_text(example_scenario().read_text()), catalog))


@pytest.fixture(scope="module")
def pages(analysed):
    import os

    os.environ["SOURCE_DATE_EPOCH"] = EPOCH
    try:
        return {lang: render_html(analysed, lang) for lang in ("en", "zh")}
    finally:
        del os.environ["SOURCE_DATE_EPOCH"]


def external_references(html: str) -> list[str]:
    """Every URL the page could fetch: URL attributes, url() and @import in styles."""
    doc = parse(html)
    found = []
    for tag, attrs in doc.tags:
        for name, value in attrs.items():
            if name in URL_ATTRS and value is not None and not value.startswith("#"):
                found.append(f"<{tag} {name}={value}>")
        if tag in ("link", "iframe", "object", "embed", "base", "img", "video",
                   "audio", "source", "track", "frame"):
            found.append(f"<{tag}>")
        if tag == "meta" and (attrs.get("http-equiv") or "").lower() == "refresh":
            found.append("<meta refresh>")
        style = attrs.get("style") or ""
        found += [m for m in re.findall(r"url\(\s*['\"]?([^)'\"]*)", style) if not m.startswith("#")]
    for css in doc.styles:
        found += [m for m in re.findall(r"url\(\s*['\"]?([^)'\"]*)", css) if not m.startswith("#")]
        found += re.findall(r"@import[^;]*", css)
    return found


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_external_references(pages, lang):
    html = pages[lang]
    assert external_references(html) == []
    # the checker itself finds each kind of reference
    probe = ('<img src="https://x.test/a.png"><a href="http://x.test">x</a>'
             '<style>@import "x.css"; p{background:url(https://x.test/b.png)}</style>'
             '<svg><use xlink:href="https://x.test/s.svg#m"/></svg><p style="b:url(//x.test/c)">')
    assert len(external_references(probe)) == 7  # img is also a fetching element


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_only_scripts_are_the_live_models_inline_ones(pages, lang):
    """Three inline scripts (the data, the generated model, the page's code; a script with a
    src is an external reference above) and a policy that runs exactly the two programs, by
    their SHA-256: an injected script, inline or not, would be blocked."""
    import base64
    import hashlib

    html = pages[lang]
    bodies = re.findall(r"<script([^>]*)>(.*?)</script>", html, re.DOTALL)
    assert [attrs for attrs, _ in bodies] == [' type="application/json" id="tco-live-data"', "", ""]
    policy = unescape(re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"',
                                html).group(1))
    hashes = sorted(re.findall(r"'sha256-([^']+)'", policy))
    want = sorted(base64.b64encode(hashlib.sha256(body.encode()).digest()).decode()
                  for _, body in bodies[1:])
    assert hashes == want and "default-src 'none'" in policy and "unsafe-eval" not in policy


def test_charts_are_inline_svg_with_selectable_text(pages):
    html = pages["en"]
    assert html.count("<svg ") >= 5  # cost, cash flow, time, tornado, Monte Carlo
    assert "<text" in html and "<path" in html  # text stays text (svg.fonttype none)
    ids = re.findall(r'\bid="([^"]+)"', html)
    assert len(ids) == len(set(ids)), "element ids must be unique across the inlined charts"


def test_same_inputs_give_identical_bytes(analysed, pages, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert render_html(analysed, "en") == pages["en"]
    assert render_html(analysed, "zh") == pages["zh"]
    assert "2026-01-01" in pages["en"] and "2026年1月1日" in pages["zh"]


def test_bad_source_date_epoch_is_one_clear_error(analysed, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "yesterday")
    with pytest.raises(TcoError, match="SOURCE_DATE_EPOCH"):
        render_html(analysed, "en")


class TableCells(HTMLParser):
    """(candidate id, data-key) -> (data-value, text) for the comparison table's cells."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: dict[tuple[str, str], tuple[str, str]] = {}
        self.ranks: list[str] = []
        self._table = False
        self._row: str | None = None
        self._cell: tuple[str, str] | None = None
        self._text = ""

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and "compare" in (a.get("class") or ""):
            self._table = True
        elif self._table and tag == "tr" and "data-candidate" in a:
            self._row = a["data-candidate"]
            self.ranks.append(self._row)
        elif self._table and self._row and tag == "td" and "data-key" in a:
            self._cell, self._text = (a["data-key"], a["data-value"]), ""

    def handle_data(self, data):
        if self._cell:
            self._text += data

    def handle_endtag(self, tag):
        if tag == "td" and self._cell and self._row:
            self.cells[(self._row, self._cell[0])] = (self._cell[1], self._text.strip())
            self._cell = None
        elif tag == "table":
            self._table = False


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_comparison_table_numbers_are_the_engines(analysed, pages, lang):
    table = TableCells()
    table.feed(pages[lang])
    assert table.ranks == [c.id for c in analysed.candidates]
    strings = Strings(lang)
    checked = 0
    for c in analysed.candidates:
        if not c.priced:
            continue
        expected = {
            "cost_per_job": c.job["cost_per_job"], "npv_tco": c.values["npv_tco"],
            "wall_days": c.job["wall_days"], "cost_per_gpu_hour": c.values["cost_per_gpu_hour"],
            "cards": c.inputs["cards"],
        }
        for key, value in expected.items():
            raw, _text = table.cells[(c.id, key)]
            assert float(raw) == value  # full precision, exactly
            checked += 1
        # the visible text is the engine value formatted the documented way
        if lang == "en":
            assert table.cells[(c.id, "npv_tco")][1] == money(c.values["npv_tco"], "USD", "en")
            assert table.cells[(c.id, "cost_per_job")][1] == money(c.job["cost_per_job"], "USD")
        else:  # USD in Chinese: whole dollars with thousands separators
            assert table.cells[(c.id, "npv_tco")][1] == f"${c.values['npv_tco']:,.0f}"
        assert table.cells[(c.id, "wall_days")][1] == strings("days",
                                                              n=f"{c.job['wall_days']:,.1f}")
    assert checked == 5 * sum(1 for c in analysed.candidates if c.priced)


def test_headline_names_the_recommended_plan(analysed, pages):
    """The example is planned: its report recommends the plan, as JSON does (issue 27), and
    names the best single option as the comparison, with what the plan saves against it."""
    said = recommendation(analysed)
    assert said is not None and said.mode == "plan"
    rec = single(analysed)
    assert rec is not None and said.best_option is not None
    assert said.best_option.option == rec.id == analysed.candidates[0].id
    doc = parse(pages["en"])
    # text nodes joined as they sit: the headline's bold parts are nodes of one sentence
    text = re.sub(r"\s+", " ", "".join(doc.text))
    assert f"Recommendation: {action_text(said, 'USD')}; {money(said.npv_tco, 'USD')}" in text
    # the example's best single option rents (issue 13): named beside the plan with its NPV
    assert rec.info.acquire == "rent"
    assert f"Best single option ({rec.id})" in text
    assert money(rec.values["npv_tco"], "USD") in text
    assert money(rec.values["npv_tco"] - said.npv_tco, "USD") in text  # what the plan saves
    # the old option-level headline is gone: one recommendation everywhere
    assert f"Recommendation: rent {rec.info.card_name}" not in text


# --- the cumulative cash-flow chart, read back from its SVG -----------------------------------

SVG_NS = {"svg": "http://www.w3.org/2000/svg"}
MONEY_TEXT = re.compile(r"^(-?)\$([\d,]+(?:\.(\d+))?)([kMB]?)$")
SCALE = {"": 1.0, "k": 1e3, "M": 1e6, "B": 1e9}
# The SVG backend writes coordinates with 6 decimals (1e-6 px). A point is accepted within
# 0.001 px of where the engine's value belongs: a thousand times that rounding, and well under
# the 3 px (about $1.5M) that the smallest yearly flow of the example moves a line.
PX_TOLERANCE = 1e-3


def parse_money(text: str) -> tuple[float, float]:
    """'$49.67M' -> (49.67e6, 5e3): the amount an English money text shows, and half a unit
    of its last digit (how far the true value can be from it)."""
    m = MONEY_TEXT.match(text)
    assert m, text
    sign, digits, decimals, suffix = m.groups()
    value = float(digits.replace(",", "")) * SCALE[suffix] * (-1 if sign else 1)
    return value, 0.5 * 10.0 ** -len(decimals or "") * SCALE[suffix]


def svg_style(el: ET.Element, prop: str) -> str | None:
    m = re.search(rf"(?:^|;)\s*{prop}:\s*([^;]+)", el.get("style") or "")
    return m.group(1).strip() if m else None


def path_points(d: str) -> list[tuple[float, float]]:
    nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", d)]
    return list(zip(nums[0::2], nums[1::2]))


def chart_svg(html: str, chart_id: str) -> ET.Element:
    start = html.index(f'<figure id="{chart_id}"')
    svg = html[html.index("<svg", start):html.index("</svg>", start) + len("</svg>")]
    return ET.fromstring(svg)


def cash_flow_chart(html: str) -> tuple[dict[str, list[tuple[float, float]]], float]:
    """The cumulative cash-flow chart as a reader sees it: for each line, named by the label
    at its end (same colour), its points as (year, amount) read off the axes; and the amount
    one pixel stands for."""
    svg = chart_svg(html, "chart-cashflow")
    groups = {g.get("id"): g for g in svg.iter(f"{{{SVG_NS['svg']}}}g") if g.get("id")}

    def text_of(g: ET.Element) -> ET.Element:
        return g.find(".//svg:text", SVG_NS)

    def anchor_x(t: ET.Element) -> float:
        # the x the text is anchored at (centred labels): its x attribute or its translation
        if t.get("x") is not None:
            return float(t.get("x"))
        return float(re.search(r"translate\(\s*([-\d.e]+)", t.get("transform")).group(1))

    # y axis: each tick's gridline height and its label; x axis: each year label's centre.
    yticks = []
    for gid, g in groups.items():
        if re.fullmatch(r"cash-ytick_\d+", gid):
            (grid,) = list(g.iter(f"{{{SVG_NS['svg']}}}path"))
            ((_, py), _) = path_points(grid.get("d"))
            yticks.append((py, parse_money(text_of(g).text)[0]))
    xticks = [(anchor_x(text_of(g)), float(text_of(g).text))
              for gid, g in groups.items() if re.fullmatch(r"cash-xtick_\d+", gid)]
    assert len(yticks) >= 3 and len(xticks) >= 2
    # The axes are linear: a straight line through the first and last tick must pass through
    # every other tick (so the tick labels are read, and written, correctly).
    (p0, v0), (p1, v1) = yticks[0], yticks[-1]
    per_px = (v1 - v0) / (p1 - p0)
    for p, v in yticks:
        assert v0 + (p - p0) * per_px == pytest.approx(v, abs=abs(per_px) * PX_TOLERANCE)
    (x0, t0), (x1, t1) = xticks[0], xticks[-1]
    years_per_px = (t1 - t0) / (x1 - x0)

    colour_of = {}
    for gid, g in groups.items():
        if re.fullmatch(r"cash-text_\d+", gid):
            t = text_of(g)
            colour_of[t.text] = svg_style(t, "fill")
    lines = {}
    for gid, g in groups.items():
        if re.fullmatch(r"cash-line2d_\d+", gid):
            path = g.find("svg:path", SVG_NS)
            if path is None or path.get("clip-path") is None:
                continue  # tick marks
            lines[svg_style(path, "stroke")] = [
                (t0 + (x - x0) * years_per_px, v0 + (y - p0) * per_px)
                for x, y in path_points(path.get("d"))]
    named = {name: lines[colour] for name, colour in colour_of.items() if colour in lines}
    return named, abs(per_px)


def detail_table(html: str, cid: str) -> dict[str, list[str]]:
    """A candidate's detail section: each row label with the texts of its cells."""
    start = html.index(f'id="candidate-{cid}"')
    section = html[start:html.index("</article>", start)]
    rows = {}
    cell = r'<td class="num"(?: data-q="\d+" data-f="\w+")?>([^<]*)</td>'
    any_cell = cell.replace("([^<]*)", "[^<]*")
    for label, cells in re.findall(rf'<th scope="row">([^<]*)</th>((?:{any_cell})+)', section):
        rows[unescape(label)] = [unescape(c) for c in re.findall(cell, cells)]
    return rows


def test_cash_flow_chart_draws_each_candidates_running_total(analysed, pages):
    """Each line of the cumulative cash-flow chart, read back through the axis labels, climbs
    by the year's net cash flow shown in the candidate's table and ends at its undiscounted
    total cost."""
    html = pages["en"]
    lines, per_px = cash_flow_chart(html)
    tol = per_px * PX_TOLERANCE
    priced = [c for c in analysed.candidates if c.priced]
    assert sorted(lines) == sorted(c.info.name for c in priced)  # one labelled line each
    for c in priced:
        points = lines[c.info.name]
        years = [y["year"] for y in c.yearly]
        assert [t for t, _ in points] == pytest.approx(years, abs=1e-6)
        running = 0.0
        table = detail_table(html, c.id)
        net_texts = table["Net cash flow"]
        assert len(net_texts) == len(points)
        for (_, drawn), y, text, before in zip(points, c.yearly, net_texts,
                                                [0.0] + [v for _, v in points[:-1]]):
            running += y["net"]
            assert drawn == pytest.approx(running, abs=tol), (c.id, y["year"])
            # the step the reader sees is the net flow the table prints, to its rounding
            # (a dash is a zero flow: a rented option's year 0 without porting)
            shown, half_unit = (0.0, 0.0) if text == "–" else parse_money(text)
            assert abs((drawn - before) - shown) <= half_unit + 2 * tol, (c.id, y["year"], text)
        end = points[-1][1]
        assert end == pytest.approx(c.values["undiscounted_tco"], abs=tol)
        total_text = table["Undiscounted total cost"][0]
        assert total_text == money(c.values["undiscounted_tco"], "USD")
        shown, half_unit = parse_money(total_text)
        assert abs(end - shown) <= half_unit + tol


HOSTILE = "<script>alert(1)</script>"
FORMULA = "=cmd|' /C calc'!A0 $5M$"  # and a "$...$" that matplotlib must not read as maths


def test_user_text_stays_inert(catalog, monkeypatch):
    text = example_scenario().read_text()
    text = text.replace('name: "70B dense pre-training, 2T tokens, 4 runs a year"',
                        f"name: {json.dumps(HOSTILE)}")
    text = text.replace("  - id: b200\n    card: b200\n",
                        f"  - id: b200\n    card: b200\n    name: {json.dumps(FORMULA)}"
                        f"\n    notes: {json.dumps(HOSTILE + ' $x$ & <b>')}\n")
    result = compute(load_scenario_text(text), catalog)
    assert result.scenario.name == HOSTILE and result.candidate("b200").info.name == FORMULA
    for lang in ("en", "zh"):
        html = render_html(result, lang)
        doc = parse(html)
        # the only scripts are the live report's three (tco/exporters/live.py): a name is in
        # the data (JSON, with every '<' escaped), never in a program
        scripts = re.findall(r"<script[^>]*>(.*?)</script>", html, re.DOTALL)
        assert len(scripts) == 3 and [t for t, _ in doc.tags if t == "script"] == ["script"] * 3
        assert "<" not in scripts[0] and json.dumps(FORMULA)[1:-1] in scripts[0]
        assert "alert" not in scripts[1] and "alert" not in scripts[2]
        assert not any(name.startswith("on") for _, a in doc.tags for name in a)
        visible = "".join(doc.text)
        assert HOSTILE in visible  # shown as text...
        assert FORMULA in visible
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html  # ...because it is escaped
        assert "<b>" not in html
        assert "$x$" in visible
        svg = html[html.index('id="chart-cost"'):html.index('id="chart-cashflow"')]
        assert "$5M$" in svg  # the chart labels show the name as written, not as maths


def test_css_strings_cannot_escape_their_context():
    s = css_string('"; } body { display:none } </style><script>')
    assert '"' not in s[1:-1] and "<" not in s and "}" not in s


def test_every_word_has_both_languages():
    table = yaml.safe_load((templates_dir() / "strings.yaml").read_text(encoding="utf-8"))
    for section in ("text", "components", "cooling", "units"):
        for key, value in table[section].items():
            assert set(value) == {"en", "zh"}, f"{section}.{key}"
    for key in table["text"]:
        fields_en = re.findall(r"\{(\w+)\}", table["text"][key]["en"])
        fields_zh = re.findall(r"\{(\w+)\}", table["text"][key]["zh"])
        assert sorted(fields_en) == sorted(fields_zh), key
    assert Strings("en")("h_summary") != Strings("zh")("h_summary")


def test_chinese_report_has_no_english_words_of_its_own(analysed, pages):
    """Every English sentence of the report is absent from the Chinese edition (names, ids,
    units and sources quoted as published are not the report's own words)."""
    quoted = re.sub(r'<td class="source">.*?</td>', "", pages["zh"], flags=re.DOTALL)
    zh_html = " ".join(parse(quoted).text)
    zh_html = re.sub(r"\b\w+(?:\.[\w-]+)+", " ", zh_html)  # input paths are ids, not words
    # the scenario's own name, description and workload names are the user's words, quoted as
    # typed ("70B dense pre-training, 2T tokens, 4 runs a year" holds the en "a year")
    scenario = analysed.scenario
    for typed in (scenario.name, scenario.description or "", *(w.name for w in scenario.workloads)):
        zh_html = zh_html.replace(typed.strip(), " ") if typed.strip() else zh_html
    en = Strings("en").all_text()
    zh = Strings("zh").all_text()
    for key, text in en.items():
        literal = max(re.split(r"\{\w+\}", text), key=len).strip(" .:;,()")
        if len(literal) >= 6 and literal != zh[key] and re.search(r"[a-z]{3}", literal):
            assert literal not in zh_html, (key, literal)
    strings = Strings("zh")
    for c in analysed.candidates:
        for message in c.notes + c.reasons + c.info.flags:
            assert strings.message(message) != message, f"untranslated engine text: {message}"


def test_engine_sentences_are_translated():
    zh = Strings("zh")
    cases = {
        "the cluster completes only 66% of the planned runs per year": "集群每年只能完成计划训练的 66%",
        "sized to 1,264 cards for deadline 60 days": "按 60 天的期限配置为 1,264 张卡",
        "llama-70b: needs 96.2 GB per card, 21.6 GB usable (8 cards x 24 GB)":
            "llama-70b：每卡需要 96.2 GB 内存，可用 21.6 GB（8 张卡 × 24 GB）",
        "NVIDIA Tesla V100 has no FP8 support": "NVIDIA Tesla V100 不支持 FP8",
        "supply: single vendor (Huawei), constrained supply": "供货：单一供应商（华为），供货受限",
    }
    for en, expected in cases.items():
        assert zh.message(en) == expected
    assert zh.message("something new") == "something new"


def test_cny_amounts_read_in_wan_and_yi(catalog):
    text = example_scenario().read_text().replace("currency: USD", "currency: CNY")
    result = compute(load_scenario_text(text), catalog)
    html = render_html(result, "zh")
    npv = result.candidates[0].values["npv_tco"]
    assert npv > 1e8
    assert money(npv, "CNY", "zh") in html and "亿" in money(npv, "CNY", "zh")
    assert "万" in html and "¥" in html


def test_infeasible_candidates_are_listed_with_the_reason(catalog):
    text = example_scenario().read_text().replace("precision: bf16", "precision: fp64")
    result = compute(load_scenario_text(text), catalog)
    out = [c for c in result.candidates if not c.feasible]
    assert out, "fp64 training rules out the cards without FP64"
    html = render_html(result, "en")
    section = html[html.index('id="infeasible"'):html.index('id="risks"')]
    for c in out:
        assert c.info.name.replace("&", "&amp;") in section
        for reason in c.reasons:
            assert reason.replace("'", "&#39;") in section


def test_write_html_is_atomic_and_checks_the_path(analysed, tmp_path):
    out = write_html(analysed, tmp_path / "r.html", lang="zh")
    assert out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in tmp_path.iterdir()] == ["r.html"]
    with pytest.raises(TcoError, match="does not exist"):
        write_html(analysed, tmp_path / "missing" / "r.html")
    with pytest.raises(TcoError, match="language"):
        render_html(analysed, "fr")
