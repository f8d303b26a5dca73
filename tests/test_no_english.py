"""No English left in the Chinese report and workbook (issues 15 and 25): the zh report (HTML)
and the zh workbook show a reader no English word outside citations. Checked on the built-in
example, on tco/scenarios/train-and-serve.yaml (serving, a per-token API, a portfolio), on a
Chinese procurement package (tests/data/zh_package: a scenario written in Chinese, in CNY, for a
facility in China, priced with CNY quotes) and on tests/data/serve_and_assign.yaml.

Every piece of visible text is listed: every text node of the HTML and its title/alt attributes
(charts are inline SVG, so their text is text), and every text cell of the workbook (every
sheet), its sheet names, data-validation prompts, chart titles and document properties. From
each piece are first removed what is quoted, not written, by the tool:

* catalog citations (every figure's `source` in pricing/ and the quote file), quoted as
  published, in their original language (the report's caveat says so);
* ids and paths (candidate, card, platform and stack ids, input paths, quantity keys, defined
  names, digests), and formulas (the workbook's formula column);
* the scenario's own text (its name, description, workload and candidate names) and the names
  of per-token API products (a provider and its model: "Llama 3.3 70B Instruct Turbo").

Catalog names and notes are not quoted: the Chinese outputs show them in Chinese
(templates/catalog_zh.yaml, tested below to cover the whole shipped catalog). What is left may
contain Latin words only from ALLOWED and PROPER: units (GB, TFLOPS, CNY, ...), the abbreviations a Chinese reader of a
TCO study reads as they are (TCO, MFU, PUE, TDP, IT, MoE, BF16, P10/P50/P90), and the names of
products, brands and software that Chinese data-centre documents keep in their makers' spelling
(CUDA, ROCm, GeForce RTX, HGX, OAM, EPYC, NCCL, PyTorch, ...). A token with a digit is a model
number (H100, MI300X, 910B, HL-325L) and is not a word. NPV is not allowed in prose (净现值); it
stays only as the spreadsheet function NPV() in the workbook's conventions, as PMT() does.
Single letters (x, t, r, H, N, D) are symbols of formulas and are not words. docs/report.md
("No English left") lists the same rule.
"""

from __future__ import annotations

import re
import zipfile
from datetime import date
from html.parser import HTMLParser
from pathlib import Path

import openpyxl
import pytest
from pydantic import BaseModel

from tco.analysis import report_analyses
from tco.catalog import Figure, iter_figures, load_catalog
from tco.engine import compute
from tco.exporters.html import write_html
from tco.exporters.i18n import catalog_zh
from tco.exporters.xlsx import write_workbook
from tco.exporters.xlsx.layout import plan
from tco.scenario import load_scenario

PACKAGE = Path(__file__).with_name("data") / "zh_package"
DAY = date(2026, 1, 15)

ALLOWED = frozenset({
    # units
    "GB", "TB", "GiB", "TFLOPS", "PFLOP", "FLOP", "FLOPs", "CNY", "USD", "EUR", "GbE", "kW", "ms",
    "CO2e", "CO₂e", "Gb", "GHz", "TOPS", "TF", "TFLOP",
    # proper names of vendors, products and software the Chinese text keeps
    "NVIDIA", "AMD", "Intel", "Huawei", "CUDA", "ROCm", "CANN", "GeForce", "Ascend", "Gaudi",
    "PaLM", "Llama", "tco", "Transformer",
    # abbreviations read as they are
    "TCO", "MFU", "PUE", "TDP", "IT", "MoE", "BF16", "FP4", "FP8", "FP16", "FP32", "FP64",
    "TF32",
    "P10", "P50", "P90", "TRUE", "FALSE", "AI", "KV", "p99", "GPU", "NPU", "LLM", "API", "TTFT",
    "TPOT", "ECC", "OEM", "DRAM", "HBM", "GDDR", "NVMe", "PCIe", "GEMM", "DGEMM",
    # serving formats and the benchmark suite named as they are (issue 29)
    "INT8", "MLPerf", "p50",
})
# Names of products, brands, software, benchmarks, papers' systems and data sources that Chinese
# technical documents keep in their makers' spelling (a phrase is removed whole, before words).
PROPER = (
    # (a longer name before the shorter one inside it: "Blackwell Ultra" before "Blackwell")
    "Blackwell Ultra", "RTX PRO", "Falcon Shores", "Epoch AI", "BANG C", "SemiAnalysis",
    "CloudMatrix", "SuperPoD", "Grace", "SOFR", "msModelSlim",
    # serving engines, as their projects write them
    "vLLM", "SGLang", "CDNA", "Meta",
    # China's accelerators and their software (Hygon, Moore Threads, Biren, Cambricon)
    "DCU", "DTK", "MTT", "MCCX", "KUAE", "MUSA", "MUSIFY", "BIRENSUPA", "NeuWare", "CNNL", "CNCL",
    "Transformer Engine", "Optimum-Habana", "MT-NLG", "FLAP-D", "Vast.ai",
    "Instinct", "RTX", "HGX", "DGX", "SXM", "OAM", "EPYC", "RoCE", "NVLink", "NVSwitch", "HDR",
    "cuDNN", "NCCL", "cuBLAS", "HIP", "rocBLAS", "hipBLASLt", "RCCL", "MindSpore", "HCCL",
    "SynapseAI", "PyTorch", "Atlas", "HPL", "NVAIE", "NIM", "Blackwell", "TPC", "MME", "UBB",
    "CDU", "CBRE", "Eurostat", "Ember", "EEA", "Nebius", "AWS", "DeepSeek", "Megatron",
    "DeepSpeed", "MegaScale", "BLOOM", "OPT", "arXiv", "MLPerf", "LoRA", "ZeRO", "HF", "Delta",
    "viperatech", "deploybase", "digiterialabs", "Together AI", "TensorWave", "Groq", "DeepInfra",
    "EXCHUS", "Cube", "NVL", "DualPipe",
)
# Columns of ids, paths and formulas (their headers in the zh workbook).
ID_COLUMNS = frozenset({"路径", "键", "定义名称", "公式"})
_TOKEN = re.compile(r"[A-Za-z0-9₀-₉]+(?:-[A-Za-z0-9₀-₉]+)*")
_ID = re.compile(r"[A-Za-z0-9]+(?:[._/-][A-Za-z0-9]+)+|[A-Za-z0-9]*_[A-Za-z0-9_]*")
_URL = re.compile(r"https?://[^\s）)，；]+")
_FUNCTION = re.compile(r"\b(?:NPV|PMT)\(")
_OPTION = re.compile(r"--[a-z][a-z-]*")
_QUOTED = re.compile(r" \(quoted [^)]*\)$")
# A scenario setting the reader types as it is (`acquire: rent`, `rent_options: auto`): a
# lowercase key, an ASCII colon and a space (Chinese prose uses "："), a lowercase value.
_SETTING = re.compile(r"\b[a-z_]+: [a-z0-9_-]+\b")


def _sources(obj: object, out: set[str]) -> None:
    """Every catalog figure's source (a citation, quoted as published). Why a figure has no
    public value (a Missing's text) is prose, translated as a note is."""
    if isinstance(obj, Figure):
        # a quote's own words; the tool's "(quoted 105,000 CNY; at 7.1526 CNY/USD)" is not
        out.add(_QUOTED.sub("", obj.source))
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            _sources(getattr(obj, name), out)
    elif isinstance(obj, dict):
        for v in obj.values():
            _sources(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _sources(v, out)


def quoted_text(result, catalog) -> list[str]:
    """What the tool quotes rather than writes, longest first (removed before checking)."""
    out: set[str] = set()
    _sources(catalog, out)
    for group in (catalog.accelerators, catalog.platforms, catalog.stacks):
        out.update(group)  # ids
    for api in catalog.api_prices.values():
        # an external product's own name, also as a chart wraps it over lines
        # (words of one letter are not quoted: "a flat 24x7 load" would quote every "a")
        out.update({api.id, api.provider, api.model,
                    *(w for w in api.model.split() if len(w) > 1)})
    sc = result.scenario
    out.update({sc.name, sc.description or ""})
    out.update(w.name or w.id for w in sc.workloads)
    out.update(w.id for w in sc.workloads)
    for c in result.candidates:
        out.update({c.id, c.info.card, c.info.platform, c.info.stack})
        if c.info.name not in catalog_zh() and not c.info.name.endswith(", rented"):
            out.add(c.info.name)  # a name the scenario gave
    for a in result.api_options:
        out.update({a.id, a.info.name})
    for p in result.portfolios:
        out.update({p.id, p.name})
    out.update(s.id for s in sc.facility.sites)  # ids the user gave, and the catalog's regions
    out.update(catalog.regions)
    for v in sc.vouchers:  # a voucher's id, name and source (the policy, quoted)
        out.update({v.id, v.name or "", v.source})
    out.update(result.inputs)
    p = plan(result, "zh")
    out.update(p.names.names.values())
    pv = result.provenance
    out.update({pv.catalog_digest, pv.scenario_digest, pv.tool_version})
    out.update(PROPER)
    return sorted((s for s in out if s), key=len, reverse=True)


def _is_id(token: str) -> bool:
    """`team.familiarity.cann`, `rent_options`, `dense-34b`, `docs/methodology.md`: a path, a
    key or an id (a dot, slash or underscore, or a digit among lowercase); `tensor-parallel`
    is two words."""
    return bool(re.search(r"[._/]", token)) or (
        token.lower() == token and bool(re.search(r"[0-9]", token)))


def english_words(text: str, quoted: list[str]) -> list[str]:
    for q in quoted:
        if q in text:
            text = text.replace(q, "q")  # a letter: `candidates.<id>.cards` stays one path
    text = _URL.sub(" ", text).replace("[]", "")  # a URL cites; `workloads[].x` is a path
    text = _FUNCTION.sub(" ", _OPTION.sub(" ", _SETTING.sub(" ", text)))
    text = _ID.sub(lambda m: " " if _is_id(m.group(0)) else m.group(0), text)
    out = []
    for token in _TOKEN.findall(text):
        if re.search(r"[0-9]", token):
            continue  # a model number (H100, MI300X, 910B, HL-325L, 6ND), not a word
        out += [w for w in token.split("-") if len(w) > 1 and w not in ALLOWED]
    return out


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        self.texts.extend(v for k, v in attrs if k in ("title", "alt", "aria-label") and v)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.texts.append(data.strip())


def html_texts(path: Path) -> list[tuple[str, str]]:
    parser = _Visible()
    parser.feed(path.read_text(encoding="utf-8"))
    return [("html", t) for t in parser.texts]


def workbook_texts(path: Path) -> list[tuple[str, str]]:
    """Sheet names, cell strings (not the formula column of Methodology), validation prompts,
    chart titles and the document's title and subject."""
    wb = openpyxl.load_workbook(path)
    out: list[tuple[str, str]] = []
    for ws in wb.worksheets:
        out.append(("sheet name", ws.title))
        formula_cols = set()
        for row in ws.iter_rows():
            for cell in row:
                if cell.value in ID_COLUMNS:
                    formula_cols.add(cell.column)
                if cell.data_type == "s" and isinstance(cell.value, str) and (
                        cell.column not in formula_cols):
                    out.append((f"{ws.title}!{cell.coordinate}", cell.value))
                if cell.comment is not None:
                    out.append((f"{ws.title}!{cell.coordinate} note", cell.comment.text))
        for dv in ws.data_validations.dataValidation:
            for text in (dv.promptTitle, dv.prompt, dv.errorTitle, dv.error):
                if text:
                    out.append((f"{ws.title} validation", text))
    with zipfile.ZipFile(path) as z:
        for name in z.namelist():
            if name.startswith("xl/charts/"):
                xml = z.read(name).decode("utf-8")
                out += [(name, t) for t in re.findall(r"<a:t>([^<]*)</a:t>", xml)]
    out += [("title", wb.properties.title or ""), ("subject", wb.properties.subject or "")]
    return out


def _zh_outputs(tmp_path_factory, scenario: Path, quotes: list[Path], name: str):
    """The zh report and workbook of `scenario`: (result, catalog, their folder)."""
    catalog = load_catalog(quotes)
    loaded = load_scenario(scenario)
    result = compute(loaded, catalog)
    result.analyses.update(report_analyses(loaded, catalog, draws=500, seed=1, result=result))
    out = tmp_path_factory.mktemp(name)
    write_html(result, out / "report.zh.html", lang="zh", day=DAY)
    write_workbook(result, out / "workbook.zh.xlsx", generated=DAY, lang="zh")
    return result, catalog, out


ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {
    "example": (ROOT / "tco" / "scenarios" / "example.yaml", []),
    "train-and-serve": (ROOT / "tco" / "scenarios" / "train-and-serve.yaml", []),
    "zh_package": (PACKAGE / "scenario.yaml", [PACKAGE / "quotes.csv"]),
    # the features of issues 13 and 14 in Chinese: serving and training, workloads assigned to
    # options, a portfolio, cards: auto and a held licence
    "serve_and_assign": (Path(__file__).parent / "data" / "serve_and_assign.yaml", []),
    # the China starter (issue 31): a hub site with its energy quota, a compute voucher, a
    # vendor quota, INT8 serving, a Chinese API and cloud lease, running-cost VAT
    "cn": (ROOT / "tco" / "scenarios" / "cn.yaml", [ROOT / "tco" / "scenarios" / "cn.quotes.csv"]),
}


@pytest.fixture(scope="module", params=list(PACKAGES))
def outputs(request, tmp_path_factory):
    scenario, quotes = PACKAGES[request.param]
    return _zh_outputs(tmp_path_factory, scenario, quotes, request.param)


@pytest.fixture(scope="module")
def package(tmp_path_factory):
    return _zh_outputs(tmp_path_factory, *PACKAGES["zh_package"], "zh")


def _leftovers(texts, quoted) -> dict[str, list[str]]:
    left: dict[str, list[str]] = {}
    for where, text in texts:
        words = english_words(text, quoted)
        if words:
            left.setdefault(text[:160], [where, *words])
    return left


def test_the_zh_report_has_no_english_left(outputs):
    result, catalog, out = outputs
    texts = html_texts(out / "report.zh.html")
    assert len(texts) > 200  # the whole report, not an empty page
    left = _leftovers(texts, quoted_text(result, catalog))
    assert not left, "\n".join(f"{v[0]}: {k!r} -> {v[1:]}" for k, v in left.items())


def test_the_zh_workbook_has_no_english_left(outputs):
    result, catalog, out = outputs
    texts = workbook_texts(out / "workbook.zh.xlsx")
    assert len(texts) > 500
    assert {w for w, t in texts if w == "sheet name"} and not any(
        re.search("[A-Za-z]", t) for w, t in texts if w == "sheet name")
    left = _leftovers(texts, quoted_text(result, catalog))
    assert not left, "\n".join(f"{v[0]}: {k!r} -> {v[1:]}" for k, v in left.items())


def test_every_catalog_name_and_note_has_its_chinese():
    """templates/catalog_zh.yaml covers the shipped catalog's names (cards, servers, software
    stacks, cooling, regions, vendors) and notes, and holds nothing the catalog no longer says (an
    English text changed without its translation shows up here, not as a stale Chinese text)."""
    catalog, table = load_catalog(), catalog_zh()
    wanted = {fig.note for _s, _i, _f, fig in iter_figures(catalog) if fig.note}
    # why a figure has no public value ({missing: why}), shown where a rented option pays none
    wanted.update(m.missing for group in (catalog.card_prices, catalog.platforms)
                  for rec in group.values() for m in rec.missing.values())
    for group in (catalog.accelerators, catalog.platforms, catalog.stacks, catalog.cooling,
                  catalog.regions):
        wanted.update(rec.name for rec in group.values())
    wanted.update(a.vendor for a in catalog.accelerators.values())
    # a stack as the resolver's notes name it ("MFU: ... the team factor for AMD ROCm ...")
    wanted.update(st.name.split(" (")[0] for st in catalog.stacks.values())
    assert sorted(wanted - set(table)) == []
    assert sorted(set(table) - wanted) == []
    assert not _leftovers([("zh.yaml", v) for v in table.values()], list(PROPER))


def test_the_check_finds_english():
    """The check is not vacuous: an English sentence, a region code and a CLI command in a
    risk flag are found; ids, units and quoted names are not."""
    quoted = ["Huawei Ascend 910B (Atlas 800T A2 module)", "ascend-910b"]
    assert english_words("Parameters per tensor-parallel rank", quoted) == [
        "Parameters", "per", "tensor", "parallel", "rank"]
    assert english_words("出口管制：在地区“cn”受限（详见 `tco catalog show cann`）", quoted) == [
        "cn", "catalog", "show", "cann"]
    assert english_words("Huawei Ascend 910B (Atlas 800T A2 module)：每卡 64 GB，"
                         "路径 candidates.ascend-910b.cards，BF16 峰值 TFLOPS", quoted) == []
    assert english_words("TCO 净现值 NPV", quoted) == ["NPV"]


def test_the_zh_report_says_numbers_the_chinese_way(package):
    """34e9 parameters read 340亿 (34e9 / 1e8 = 340), 1e12 tokens 1万亿 (1e12 / 1e12 = 1), in the
    workload line and the assumptions table; no "× 10ⁿ" for them; the workload's name, which
    already says 预训练, is not followed by another 训练."""
    _result, _catalog, out = package
    texts = [t for _w, t in html_texts(out / "report.zh.html")]
    assert "340亿参数稠密预训练：340亿个参数，1万亿个词元，每年 4 次训练" in texts
    assert texts.count("340亿") >= 1 and texts.count("1万亿") >= 1  # assumptions table
    assert not [t for t in texts if "× 10" in t and ("亿" in t or "参数" in t)]
    assert not [t for t in texts if re.search(r"训练\s*训练", t)]


def _money_ticks(svg: str) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg) if "¥" in t]


def test_one_unit_on_every_money_axis(package):
    """Every money label of a chart (its ticks and bar-end labels) is in one unit, chosen from
    the axis's largest value: the cumulative cash flows reach over ¥2亿, so the whole axis is in
    亿; the cost per run (about ¥500万) is all in 万. Zero is a bare ¥0 (issue 25: a tick read
    "¥0.0万"), and an axis's ticks share the fewest decimals that write them all."""
    _result, _catalog, out = package
    html = (out / "report.zh.html").read_text(encoding="utf-8")
    svgs = re.findall(r"<svg.*?</svg>", html, re.DOTALL)
    units = []
    for svg in svgs:
        ticks = _money_ticks(svg)
        if not ticks:
            continue
        assert not [t for t in ticks if re.fullmatch(r"-?¥0(\.0+)?[万亿]", t)], ticks
        nonzero = [t for t in ticks if t != "¥0"]
        kinds = {"亿" if t.endswith("亿") else "万" if t.endswith("万") else "元" for t in nonzero}
        assert len(kinds) == 1, ticks
        units.append(kinds.pop())
    assert len(units) >= 3 and "亿" in units and "万" in units


def _html_columns(html: str) -> list[list[str]]:
    """Each column of each table of the page, as the texts of its cells."""
    out = []
    for table in re.findall(r"<table.*?</table>", html, re.DOTALL):
        rows = [[re.sub(r"<[^>]+>", "", c).strip() for c in
                 re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", row, re.DOTALL)]
                for row in re.findall(r"<tr.*?</tr>", table, re.DOTALL)]
        width = max((len(r) for r in rows), default=0)
        out += [[r[k] for r in rows if k < len(r)] for k in range(width)]
    return out


def _units(column: list[str]) -> set[str]:
    """The units (万, 亿) of a column's amounts (cells that are one CNY amount)."""
    return {t[-1] for t in column if re.fullmatch(r"-?¥[0-9,.]+[万亿]", t)}


def test_the_column_check_finds_a_mix():
    html = ("<table><tr><th>项目</th><th>第 0 年</th></tr><tr><th>加速卡</th><td>¥1.11亿</td></tr>"
            "<tr><th>服务器</th><td>¥2,835.7万</td></tr><tr><th>单价</th><td>¥21.39</td></tr></table>")
    assert [_units(c) for c in _html_columns(html)] == [set(), {"万", "亿"}]


def test_no_column_mixes_wan_and_yi(outputs):
    """One unit per column (issue 25: ¥1.11亿 above ¥2,835.7万 in a cash-flow column): every
    column of every table of the zh report, and every column of every sheet of the zh workbook,
    writes its CNY amounts in 万 or in 亿, never both."""
    result, _catalog, out = outputs
    html = (out / "report.zh.html").read_text(encoding="utf-8")
    for col in _html_columns(html):
        assert len(_units(col)) <= 1, col
    wb = openpyxl.load_workbook(out / "workbook.zh.xlsx")
    for ws in wb.worksheets:
        units: dict[int, set[str]] = {}
        for row in ws.iter_rows():
            for cell in row:
                f = cell.number_format or ""
                if "万" in f or "亿" in f:
                    units.setdefault(cell.column, set()).add("亿" if "亿" in f else "万")
        mixed = {k: v for k, v in units.items() if len(v) > 1}
        assert not mixed, (ws.title, mixed)
    if result.currency == "CNY":  # the check sees amounts in 万 or 亿 at all
        assert "万" in html or "亿" in html


def test_cny_amounts_in_the_zh_workbook_read_in_wan_and_yi(package):
    """Amounts of the Chinese workbook in CNY show in 万 (50,000,000 -> ¥5000.0万: `,` divides by
    1,000 and the escaped point stands before the last digit) or 亿 (/1e6, point before the last
    two digits); prices per unit stay plain; other currencies are written in full."""
    from tco.exporters.xlsx.styles import money_format

    assert money_format("CNY", 5e7, "zh") == '"¥"0\\.0,"万";-"¥"0\\.0,"万";"-"'
    assert money_format("CNY", 2.4e8, "zh") == '"¥"0\\.00,,"亿";-"¥"0\\.00,,"亿";"-"'
    assert money_format("CNY", 20.78, "zh") == money_format("CNY", 20.78, "en")
    assert "万" not in money_format("USD", 5e7, "zh")
    _result, _catalog, out = package
    ws = openpyxl.load_workbook(out / "workbook.zh.xlsx")["摘要"]
    header = next(r for r in ws.iter_rows() if any(c.value == "TCO 净现值" for c in r))
    cols = {c.value: c.column for c in header}
    row = header[0].row + 1
    assert "万" in ws.cell(row, cols["TCO 净现值"]).number_format
    assert "万" not in ws.cell(row, cols["每加速卡小时成本"]).number_format
