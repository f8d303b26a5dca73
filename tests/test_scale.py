"""Scenarios of many candidates: the shortcuts that make them quick give the same numbers and
the same files as the straightforward code they replace (kept here as the reference)."""

import gc
import io
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
import yaml
from xlsxwriter.worksheet import Worksheet

import tco.analysis.montecarlo as mc_module
from tco.analysis.common import (
    baseline_values,
    metric_name,
    plausible_range,
    priced_candidates,
    tied,
    ties,
    with_ties,
)
from tco.analysis.fast import Compiled
from tco.analysis.montecarlo import CHUNK, Leader, cheapest_counts, montecarlo
from tco.analysis.sensitivity import sensitivity
from tco.analysis.types import MonteCarlo, Sensitivity
from tco.decide.rules import single
from tco.engine import compute, inputs_by_candidate
from tco.exporters.fmt import CHART_CANDIDATES
from tco.exporters.html import render_html
from tco.exporters.xlsx import workbook as xlsx_module
from tco.exporters.xlsx import workbook_bytes
from tco.exporters.xlsx.workbook import _Worksheet
from tco.expr import Ref
from tco.gcpause import paused_gc
from tco.model import COMPLETE_FRACTION, JOB_COMPONENTS, tier_formula
from tco.resources import example_scenario
from tco.scenario import load_scenario, parse_scenario
from tco.yamlio import YamlDoc

ROOT = Path(__file__).resolve().parents[1]


def many(copies: int):
    """The example with its candidates `copies` times over; ids with dots, one the prefix of
    another (`x`, `x.1`, `x.1.2`)."""
    data = yaml.safe_load(example_scenario().read_text(encoding="utf-8"))
    base = data["candidates"]
    out = []
    for k in range(copies):
        for c in base:
            out.append({**c, "id": f"{c['id']}.{k}" if k else c["id"]})
    out += [{"id": "x", "card": "mi300x", "cards": 256},
            {"id": "x.1", "card": "mi300x", "cards": 512},
            {"id": "x.1.2", "card": "b200", "deadline_days": 90}]
    data["candidates"] = out
    return parse_scenario(YamlDoc(data, {}, "many.yaml"))


@pytest.fixture(scope="module")
def big(catalog):
    loaded = many(3)
    return loaded, compute(loaded, catalog)


# --- engine --------------------------------------------------------------------------------

def test_inputs_by_candidate_matches_prefix_matching(big):
    _loaded, result = big
    resolved = result.resolved
    got = inputs_by_candidate(resolved)
    for cid, info in resolved.candidates.items():
        prefix = f"candidates.{info.inputs_id}."  # a generated rent option reads its source's
        want = {p.removeprefix(prefix): i.value for p, i in resolved.inputs.items()
                if p.startswith(prefix)}
        assert list(got[cid].items()) == list(want.items())
    assert "1.card_price" in got["x"]  # as before: an id that is a prefix of another


def test_feeding_evaluates_like_the_whole_model(big):
    _loaded, result = big
    values = baseline_values(result)
    whole = result.model.evaluate(values)
    names = ["x.1.npv_tco", "x.1.2.llama-70b.wall_days", "a100-deadline.2.feasible"]
    sub = result.model.feeding(names)
    part = sub.evaluate({p: values[p] for p in sub.inputs_used()})
    assert {q.candidate for q in sub} == {"x.1", "x.1.2", "a100-deadline.2"}
    for q in sub:
        assert repr(part[q.name]) == repr(whole[q.name])


def test_paused_gc_restores_the_collector():
    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


# --- sensitivity ---------------------------------------------------------------------------

def sensitivity_all_at_once(result, swing=0.2):
    """The former sensitivity: every case of every input for every candidate in one array."""
    cands = priced_candidates(result)
    targets = {cid: metric_name(result, cid, "npv_tco") for cid in cands}
    used = set(result.model.inputs_used())
    # an input tied to another (a dense model's active parameters) takes its cases
    links = ties(result.inputs)
    used |= {p for p, followers in links.items() if used & set(followers)}
    cases = []
    for path, inp in result.inputs.items():
        if (path not in used or inp.spec.structural or inp.spec.integer or inp.value == 0
                or path in tied(links)):
            continue
        lo_raw, hi_raw = sorted((inp.value * (1 - swing), inp.value * (1 + swing)))
        lo_ok, hi_ok = plausible_range(inp, result)
        lo, hi = max(lo_raw, lo_ok), min(hi_raw, hi_ok)
        cases.append((path, lo, hi))
    base = baseline_values(result)
    k = len(cases)
    arrays = {}
    for i, (path, lo, hi) in enumerate(cases):
        a = np.full(2 * k + 1, base[path])
        a[2 * i + 1], a[2 * i + 2] = lo, hi
        arrays[path] = a
    arrays = with_ties(arrays, links)
    env = Compiled(result.model, base, list(arrays), targets.values())(arrays)
    out = {}
    for cid, name in targets.items():
        values = np.broadcast_to(np.asarray(env[name], dtype=float), (2 * k + 1,))
        bars = [(path, lo, hi, float(values[2 * i + 1]), float(values[2 * i + 2]))
                for i, (path, lo, hi) in enumerate(cases)
                if not (values[2 * i + 1] == values[0] and values[2 * i + 2] == values[0])]
        bars.sort(key=lambda b: (-abs(b[4] - b[3]), b[0]))
        out[cid] = (float(values[0]), bars)
    return out


def test_sensitivity_per_candidate_equals_all_at_once(big, catalog):
    loaded, result = big
    s = sensitivity(loaded, catalog, swing=0.2, result=result)
    want = sensitivity_all_at_once(result)
    assert list(s.bars) == list(want)
    for cid, (baseline, bars) in want.items():
        assert repr(s.baseline[cid]) == repr(baseline)
        got = [(b.path, b.low_value, b.high_value, b.metric_low, b.metric_high)
               for b in s.bars[cid]]
        assert repr(got) == repr(bars)


# --- Monte Carlo ---------------------------------------------------------------------------

def cheapest_counts_reference(npv, done, feasible, blocked):
    """The former `cheapest_counts`: the best tier over every candidate first, then a running
    minimum of NPV among the candidates of that tier."""
    n = npv.shape[1]
    tier = np.stack([np.where((np.broadcast_to(f, (n,)) > 0) & (not b),
                              np.where(np.broadcast_to(d, (n,)) < COMPLETE_FRACTION, 1.0, 0.0),
                              np.inf)
                     for f, d, b in zip(feasible, done, blocked)])
    best_tier = tier.min(axis=0)
    best = np.full(n, np.inf)
    winner = np.full(n, -1)
    for row in range(npv.shape[0]):
        better = (tier[row] == best_tier) & np.isfinite(tier[row]) & (npv[row] < best)
        best = np.where(better, npv[row], best)
        winner[better] = row
    return np.bincount(winner[winner >= 0], minlength=npv.shape[0])


def test_leader_in_groups_equals_the_reference():
    rng = np.random.default_rng(3)
    for trial in range(30):
        cands, n = int(rng.integers(1, 9)), 400
        npv = rng.integers(0, 6, size=(cands, n)).astype(float)  # many ties
        npv[rng.random((cands, n)) < 0.05] = np.nan
        done = [np.where(rng.random(n) < 0.3, 0.5, 1.0) for _ in range(cands)]
        feasible = [np.where(rng.random(n) < 0.2, 0.0, 1.0) for _ in range(cands)]
        blocked = [bool(rng.random() < 0.2) for _ in range(cands)]
        want = cheapest_counts_reference(npv, done, feasible, blocked)
        tiers = [tier_formula(Ref("f"), b, Ref("d")).evaluate({"f": f, "d": d})
                 for f, d, b in zip(feasible, done, blocked)]
        assert cheapest_counts(npv, tiers).tolist() == want.tolist()
        # fed in groups of rows and in slices of draws, as montecarlo does
        size = int(rng.integers(1, cands + 1))
        lead = Leader(n)
        for first in range(0, cands, size):
            rows = slice(first, first + size)
            for start in (0, 150):
                stop = 150 if start == 0 else n
                lead.update(start, first, npv[rows, start:stop],
                            [t[start:stop] for t in tiers[rows]])
        assert lead.counts(cands).tolist() == want.tolist(), trial


@pytest.mark.parametrize("group_max", [1, 3])
def test_montecarlo_in_groups_equals_all_at_once(big, monkeypatch, group_max):
    _loaded, result = big
    draws = CHUNK + 500  # two random streams, two threads
    whole = montecarlo(result, draws=draws, seed=4)
    monkeypatch.setattr(mc_module, "GROUP_MAX", group_max)
    steps: list[int] = []
    grouped = montecarlo(result, draws=draws, seed=4, progress=steps.append)
    assert sum(steps) == draws
    assert repr(grouped.percentiles) == repr(whole.percentiles)
    assert grouped.prob_cheapest == whole.prob_cheapest
    assert grouped.varied == whole.varied and grouped.shared == whole.shared
    assert list(grouped.samples) == list(whole.samples)
    for cid, sample in whole.samples.items():
        assert grouped.samples[cid].tobytes() == sample.tobytes()


def test_group_size_keeps_the_draws_within_budget():
    assert mc_module.group_size(20_000) == mc_module.GROUP_MAX
    assert mc_module.group_size(1_000_000) == 16  # the example's 14 candidates in one group
    assert mc_module.group_size(10**9) == 1


# --- workbook ------------------------------------------------------------------------------

class _Plain(Worksheet):
    """xlsxwriter's own worksheet, for the reference file."""


quick_only = pytest.mark.skipif(
    not xlsx_module.QUICK_SUPPORTED,
    reason="the quick worksheet is used only with xlsxwriter 3.3 (this one writes the stock way)")


def bench_scenario(tmp_path, n: int):
    """The scale benchmark's generated scenario of `n` candidates (bench/scale.py)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_scale", ROOT / "bench" / "scale.py")
    scale = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(scale)
    return load_scenario(scale.write_scenario(tmp_path / f"s{n}.yaml", n))


@quick_only
@pytest.mark.parametrize("scenario", ["example", "tests/test_workbook_tricky.yaml", "many",
                                      "bench", "bench-zh"])
def test_quick_worksheet_writes_the_same_file(catalog, example, monkeypatch, scenario, tmp_path):
    """The quick worksheet (every cell, format index, row span and formula, the sheets after
    Summary written early by the Draft) against xlsxwriter's own, byte for byte, on the
    example, the tricky scenario and generated ones (with analyses, so that every sheet is
    written)."""
    from datetime import date

    from tco.analysis import report_analyses

    lang = "zh" if scenario == "bench-zh" else "en"
    if scenario == "example":
        result = example
    elif scenario == "many":
        result = compute(many(2), catalog)
    elif scenario.startswith("bench"):
        loaded = bench_scenario(tmp_path, 24)
        result = compute(loaded, catalog)
        result.analyses.update(report_analyses(loaded, catalog, draws=200, seed=3,
                                               result=result))
    else:
        result = compute(load_scenario(scenario), catalog)
    early = []  # the sheets after Summary written to XML before close (Draft)
    assemble = _Worksheet.assemble_early
    monkeypatch.setattr(_Worksheet, "assemble_early",
                        lambda ws, tmpdir: (early.append(ws.name), assemble(ws, tmpdir)))
    quick = workbook_bytes(result, generated=date(2024, 1, 2), lang=lang)
    # Assumptions, Model, CashFlows, Catalog, the Plan where the scenario is planned, and the
    # analyses' sheets (Draft.finish)
    assert len(early) == 4 + bool(result.plans) + sum(
        isinstance(result.analyses.get(k), (Sensitivity, MonteCarlo))
        for k in ("sensitivity", "montecarlo"))
    monkeypatch.setattr(xlsx_module, "_Worksheet", _Plain)
    monkeypatch.setattr(xlsx_module, "_QUICK_PARTS", False)  # its shared strings and names
    plain = workbook_bytes(result, generated=date(2024, 1, 2), lang=lang)
    assert quick == plain


@quick_only
def test_quick_writes_outside_the_common_case_go_through_xlsxwriter():
    """Out of the sheet, a string past the quick length, a number that is not finite: each
    returns what xlsxwriter returns (and stores what it stores)."""
    import xlsxwriter

    def sheet(cls):
        wb = xlsxwriter.Workbook(io.BytesIO(), {"in_memory": True, "nan_inf_to_errors": True})
        return wb.add_worksheet("S", cls)

    quick, plain = sheet(_Worksheet), sheet(_Plain)
    long_text = "x" * 40000  # truncated to Excel's 32,767 characters
    for ws in (quick, plain):
        assert ws.write_number(1048576, 0, 1.0) == -1
        assert ws.write_string(0, 16384, "a") == -1
        assert ws.write_blank(-1, 0, None, None) == 0
        assert ws.write_string(2, 0, long_text) == -2
        assert ws.write_number(3, 0, float("nan")) == 0
        assert ws.write_number(3, 1, float("-inf")) == 0
        assert ws.write_number(3, 2, True) == 0
        ws.write_tree_formula(4, 0, "A1+1", None, 2.0) if ws is quick else ws.write_formula(
            4, 0, "A1+1", None, 2.0)
    assert {r: dict(c) for r, c in quick.table.items()} == {
        r: dict(c) for r, c in plain.table.items()}


@quick_only
def test_quick_cells_match_xlsxwriter_on_every_kind():
    import xlsxwriter

    def sheet_xml(cls):
        buf = io.BytesIO()
        wb = xlsxwriter.Workbook(buf, {"in_memory": True, "strings_to_formulas": False,
                                       "strings_to_numbers": False, "strings_to_urls": False})
        ws = wb.add_worksheet("S", cls)
        bold = wb.add_format({"bold": True})
        ws.set_column(3, 3, 12, wb.add_format({"italic": True}))
        ws.set_row(5, 20, wb.add_format({"font_color": "#FF0000"}))
        cells = [
            ("write_number", 1.0 / 3), ("write_number", -0.0), ("write_number", 1e300),
            ("write_number", 12), ("write_string", 'a & b < c > "d"\n'),
            ("write_string", "  spaced  "), ("write_formula", "=A1<=B1"),
            ("write_formula", "=IF(a&b>0,1,0)"), ("write_formula", "=SUM(A1:A3)"),
        ]
        for row in range(7):
            for col, (method, value) in enumerate(cells):
                fmt = bold if (row + col) % 3 == 0 else None
                getattr(ws, method)(row, col, value, fmt)
        for col, cached in enumerate([True, False, "#NUM!", "#DIV/0!", "", "text <&>", 2.5,
                                      7, 0, -0.0, 0.0, 2.5, -0.0, float("nan")]):
            ws.write_formula(8, col, "=X1", None, cached)
            ws.write_formula(9, col, "=X1", bold, cached)
        for row in (10, 5):
            for col in (0, 3, 4):
                ws.write_blank(row, col, None, bold if col == 4 else None)
        ws.write_boolean(11, 0, True)  # not one of ours: xlsxwriter's own code
        wb.close()
        with zipfile.ZipFile(buf) as z:
            return z.read("xl/worksheets/sheet1.xml")

    assert sheet_xml(_Worksheet) == sheet_xml(_Plain)


@quick_only
def test_quick_shared_strings_match_xlsxwriter():
    """Every kind of string xlsxwriter writes apart (control characters, a literal _xHHHH_,
    whitespace at either end, a trailing newline, a rich string, characters to escape)
    among plain ones: the sharedStrings part is the same as xlsxwriter's, byte for byte."""
    from xlsxwriter.sharedstrings import SharedStrings, SharedStringTable

    from tco.exporters.xlsx.quicksheet import QuickSharedStrings

    table = SharedStringTable()
    for string in ["plain", 'a & b < c > "d"', "bell\x07 and tab\t", "_x0041_ literal",
                   "_x00 short", " leading", "trailing ", "line\n", "\nline", "<r>rich</r>",
                   "<r>not rich", "中文 ¥", "", "plain again"]:
        table._get_shared_string_index(string)
    table._sort_string_data()  # as Workbook.close() does

    def part(cls):
        sst = cls()
        sst.string_table = table
        buf = io.StringIO()
        sst._set_xml_writer(buf)
        sst._assemble_xml_file()
        return buf.getvalue()

    assert part(QuickSharedStrings) == part(SharedStrings)
    assert "_x005F_x0041_" in part(QuickSharedStrings)


@quick_only
def test_quick_defined_names_match_xlsxwriter():
    """Plain names stored at once, the others (like a cell or R1C1 reference, too long, with
    other characters) through xlsxwriter's checks: the same names as define_name keeps."""
    import warnings

    import xlsxwriter

    from tco.exporters.xlsx.quicksheet import define_names

    names = [("facility_price", "=Assumptions!$C$3"), ("c1r1", "=Assumptions!$C$4"),
             ("ab12", "=Assumptions!$C$5"), ("_x" * 200, "=Assumptions!$C$6"),
             ("Upper_Case", "=Assumptions!$C$7"), ("npv_tco_c1", "=Model!$D$9"),
             ("r", "=Assumptions!$C$8"), ("_", "=Assumptions!$C$9")]
    books = [xlsxwriter.Workbook(io.BytesIO()) for _ in range(2)]
    for wb in books:
        wb.add_worksheet("Assumptions")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        define_names(books[0], names)
        for name, formula in names:
            books[1].define_name(name, formula)
    assert books[0].defined_names == books[1].defined_names
    assert len(books[0].defined_names) == 4  # c1r1, ab12, the long one and r are refused


@quick_only
def test_quick_formula_preparation_matches_xlsxwriter():
    quick, plain = _Worksheet(), _Plain()
    formulas = ["=A1+B1", "=MIN(x,MAX(y,1))", "=ROUNDUP(a/b,0)", "=c_x+NPV(r,a,b)",
                "=RANK(D3,$D$3:$D$9,1)", "=FILTER(A1:A3,B1:B3)", "=SORT(A1:A3)",
                "=x.SORT(A1)", "=_xlfn.CONCAT(a)", "=XLOOKUP(1,A:A,B:B)", "{=SUM(A1)}",
                "=IF(A1,SWITCH(1,1,2),0)", "=ASINGLE(1)", "=sum(a)"]
    for f in formulas:
        assert quick._prepare_formula(f) == plain._prepare_formula(f), f
    plain.use_future_functions = quick.use_future_functions = True
    for f in formulas + ["=CONCAT(a,b)", "=STDEV.S(A1:A3)"]:
        assert quick._prepare_formula(f) == plain._prepare_formula(f), f


def test_tree_formulas_need_no_preparation():
    """write_tree_formula skips xlsxwriter's preparation: every function the model's formulas
    call (tco.expr.FUNCTIONS, and NPV for Npv) must be one it would leave as it is."""
    from tco.expr import FUNCTIONS

    assert FUNCTIONS | {"NPV"} <= xlsx_module._PLAIN_FUNCTIONS
    quick = _Worksheet()
    for f in ["=" + f + "(a,b)" for f in sorted(FUNCTIONS | {"NPV"})]:
        assert quick._prepare_formula(f) == _Plain()._prepare_formula(f) == f[1:]


# --- charts --------------------------------------------------------------------------------

def test_charts_draw_the_best_ranked_and_say_how_many_are_left_out(big):
    _loaded, result = big
    priced = [c for c in result.candidates if c.priced]
    assert len(priced) > CHART_CANDIDATES
    page = render_html(result)
    sentence = (f"The {CHART_CANDIDATES} best-ranked of {len(priced)} priced candidates are "
                "drawn; the comparison table lists every one.")
    for chart in ("chart-cost", "chart-cashflow", "chart-time"):
        figure = re.search(rf'<figure id="{chart}".*?</figure>', page, flags=re.DOTALL).group(0)
        assert sentence in figure
    for prefix in ("cost", "time"):  # one bar (and label) per drawn candidate
        assert len(set(re.findall(rf'id="{prefix}-ytick_(\d+)"', page))) == CHART_CANDIDATES
    # the tables have every candidate: the comparison (with its header row), the details
    comparison = re.search(r'<section id="comparison".*?</section>', page, flags=re.DOTALL).group(0)
    assert comparison.count("<tr") == len(result.candidates) + 1
    assert page.count('data-key="npv_tco"') == len(priced)
    zh = render_html(result, lang="zh")
    assert f"图中仅绘出排名前 {CHART_CANDIDATES} 的方案（共 {len(priced)} 个已定价方案）" in zh


def test_a_long_static_report_details_the_best_ranked_and_says_where_the_rest_are(catalog):
    """Past live.MAX_QUANTITIES the page is static; with more than DETAIL_LIMIT priced options
    it details the first DETAIL_LIMIT in rank order (the recommendation among them) and lists
    their inputs only; the comparison table keeps every option."""
    from tco.exporters import live
    from tco.exporters.report_view import DETAIL_LIMIT

    result = compute(many(8), catalog)
    assert not live.carried_live(result)
    priced = [c for c in result.candidates if c.priced]
    assert len(priced) > DETAIL_LIMIT
    page = render_html(result)
    details = re.search(r'<section id="details".*?</section>', page, flags=re.DOTALL).group(0)
    shown = re.findall(r'<article class="candidate-detail[^"]*" id="candidate-([^"]+)"', details)
    assert shown == [c.id for c in priced[:DETAIL_LIMIT]]
    assert single(result) is not None and single(result).id in shown
    sentence = (f"The {DETAIL_LIMIT} highest-ranked options are detailed here, with their "
                f"inputs; the other {len(priced) - DETAIL_LIMIT} are in the comparison table")
    assert details.count(sentence) == 1
    inputs = re.search(r'<section id="assumptions".*?</section>', page, flags=re.DOTALL).group(0)
    assert sentence in inputs
    listed = set(re.findall(r'data-input="candidates\.(.+?)\.[a-z_]+"', inputs))
    own = {c.info.inputs_of or c.id for c in priced[:DETAIL_LIMIT]}
    assert listed == own  # the detailed options' inputs (a rent option's under its source)
    comparison = re.search(r'<section id="comparison".*?</section>', page, flags=re.DOTALL).group(0)
    assert comparison.count("<tr") == len(result.candidates) + 1


def test_the_example_draws_every_candidate(example):
    assert len([c for c in example.candidates if c.priced]) <= CHART_CANDIDATES
    assert "best-ranked of" not in render_html(example)


def test_workbook_charts_draw_the_best_ranked(big):
    _loaded, result = big
    feasible = [c for c in result.candidates if c.feasible and c.priced]
    assert len(feasible) > CHART_CANDIDATES
    with zipfile.ZipFile(io.BytesIO(workbook_bytes(result))) as z:
        charts = [z.read(n).decode() for n in sorted(z.namelist()) if "charts/chart" in n]
    assert len(charts) == 2
    for xml in charts:
        assert xml.count("<c:ser>") == (len(JOB_COMPONENTS) if "barChart" in xml
                                        else CHART_CANDIDATES)
        assert f"(the {CHART_CANDIDATES} best-ranked of {len(feasible)})" in xml
