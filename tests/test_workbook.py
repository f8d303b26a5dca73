"""The procurement workbook without a spreadsheet engine: names, figures a reader can work out
by hand from the sheets, labels, protection, formats, user text, determinism.
tests/test_workbook_recalc.py recalculates with LibreOffice and compares with the engine."""

from __future__ import annotations

import copy
import io
import re
from datetime import date
from pathlib import Path

import openpyxl
import pandas as pd
import pytest
from workbook_support import (
    CUMULATIVE,
    NET,
    cash_flow_block,
    hand_worked_figures,
    model_column,
    model_rows,
    named_cell,
    validations,
    year_columns,
)

from tco.analysis.types import MonteCarlo, Sensitivity, TornadoBar
from tco.engine import compute
from tco.errors import OutputError
from tco.exporters.xlsx import workbook_bytes, write_workbook
from tco.exporters.xlsx.layout import plan
from tco.exporters.xlsx.model import SHARE_LABELS, TAX_LABELS
from tco.exporters.xlsx.names import NameRegistry, base_name
from tco.model import COMPONENT_LABELS
from tco.plan import plan_inputs
from tco.scenario import load_scenario, load_scenario_text

TRICKY = Path(__file__).with_name("test_workbook_tricky.yaml")
DAY = date(2026, 1, 15)


def open_book(data: bytes, values: bool = False) -> openpyxl.Workbook:
    return openpyxl.load_workbook(io.BytesIO(data), data_only=values)


def formulas(wb: openpyxl.Workbook):
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    yield cell


@pytest.fixture(scope="module")
def tricky(catalog):
    return compute(load_scenario(TRICKY), catalog)


@pytest.fixture(scope="module")
def example_xlsx(example) -> bytes:
    return workbook_bytes(example, generated=DAY)


@pytest.fixture(scope="module")
def tricky_xlsx(tricky) -> bytes:
    return workbook_bytes(tricky, generated=DAY)


# --- defined names ---------------------------------------------------------------------------


def test_defined_name_rule():
    # The two examples of issue 3.
    assert base_name("facility.electricity_price_per_kwh") == "facility_electricity_price_per_kwh"
    assert base_name("candidates.h100-sxm.card_price") == "candidates_h100_sxm_card_price"
    # Runs of non-alphanumerics become one underscore; upper case is lowered.
    assert base_name("workloads.Llama--70B..x") == "workloads_llama_70b_x"
    # Names a spreadsheet would read as a cell reference, a number or a boolean get a "_".
    for text, name in [("a100", "_a100"), ("XFD1048576", "_xfd1048576"), ("r1c1", "_r1c1"),
                       ("R", "_r"), ("c12", "_c12"), ("1abc", "_1abc"), ("TRUE", "_true"),
                       ("print_area", "_print_area")]:
        assert base_name(text) == name
    # ... but not names that merely contain such a part.
    assert base_name("npv_tco_a100") == "npv_tco_a100"
    assert base_name("abcd1") == "abcd1"  # four letters: no such column


def test_colliding_names_are_numbered_in_order():
    reg = NameRegistry()
    assert reg.claim("npv_tco:h100-sxm", "npv_tco_h100-sxm") == "npv_tco_h100_sxm"
    assert reg.claim("npv_tco:h100_sxm", "npv_tco_h100_sxm") == "npv_tco_h100_sxm_2"
    assert reg.claim("npv_tco:h100.sxm", "npv_tco_h100.sxm") == "npv_tco_h100_sxm_3"


def test_every_input_the_formulas_read_is_a_named_unlocked_validated_cell(example,
                                                                         example_xlsx):
    wb = open_book(example_xlsx)
    ws = wb["Assumptions"]
    assert ws.protection.sheet  # formulas protected (no password) ...
    validated = validations(ws)
    defined = set(wb.defined_names)
    used = set(example.model.inputs_used())
    # the Plan sheet's formulas also read scenario inputs the options do not (the price
    # paths); a plan's own quantities are named inputs of the Plan sheet and the options'
    # quantities are the Model sheet's (tests/test_plan_outputs.py checks those)
    used |= {path for p in example.plans for path in p.model.inputs_used()
             if base_name(path) in defined
             and named_cell(wb, base_name(path)).parent.title == "Assumptions"}
    # The names the formulas read, over every sheet, are exactly the inputs the model reads
    # (and the headline figures the Summary quotes).
    read = {name for cell in formulas(wb)
            for name in re.findall(r"[A-Za-z_][A-Za-z0-9_.]*", cell.value) if name in defined}
    # ... and, the example being planned, each plan's quantities: the Plan sheet's own inputs
    # (tco/exporters/xlsx/plan.py), named, unlocked, holding the planner's values
    planned = plan_inputs(example.plans)
    assert planned
    # (a run on reserved cards costs nothing beyond the reservation: no formula reads it)
    names = {base_name(path) for path in planned}
    assert read - set(plan(example).headline_quantity) - names == {base_name(p) for p in used}
    assert read & names
    for path, value in planned.items():
        cell = named_cell(wb, base_name(path))
        assert cell.parent.title == "Plan" and cell.protection.locked is False
        assert cell.value == pytest.approx(value.value, rel=1e-15, abs=0)
    for path in used:
        cell = named_cell(wb, base_name(path))
        assert cell.parent.title == "Assumptions"
        source = example.inputs[path].meta.get("equal_to")
        if source in used:  # a dense model's active parameters: its parameters' cell
            assert cell.value == f"={base_name(source)}"
            assert example.inputs[path].value == example.inputs[source].value
        else:
            # xlsxwriter writes a number with 16 significant digits (f"{x:.16g}"): one that
            # needs 17 (0.52 x 660.6 / 165, the Ascend's shortfall rent) comes back within an
            # ULP
            assert cell.value == pytest.approx(example.inputs[path].value, rel=1e-15, abs=0)
        assert cell.protection.locked is False  # ... inputs editable
        assert cell.coordinate in validated
        assert ws.cell(cell.row, 1).value == path
    assert wb["Model"]["D5"].protection.locked is True


def test_input_validation_rejects_negative_prices_and_out_of_range_rates(example_xlsx):
    wb = open_book(example_xlsx)
    rules = validations(wb["Assumptions"])
    price = rules[named_cell(wb, "candidates_h100_sxm_card_price").coordinate]
    assert (price.type, price.operator, price.formula1) == ("decimal", "greaterThanOrEqual", "0")
    rate = rules[named_cell(wb, "finance_discount_rate").coordinate]
    assert (rate.type, float(rate.formula1), float(rate.formula2)) == ("decimal", 0.0, 0.99)
    cards = rules[named_cell(wb, "candidates_h100_sxm_cards").coordinate]
    assert cards.type == "whole"
    assert price.allow_blank is False


def test_one_validation_per_rule_over_all_its_cells(example, example_xlsx):
    """Cells with the same rule share one validation (Excel drops a sheet's validations past
    about 60,000 of them; 1,000 candidates have 31,000 validated inputs), and each covers
    exactly the cells whose inputs have its rule."""
    from tco.exporters.xlsx.inputs import cell_ranges

    assert cell_ranges([2, 3, 4, 8, 10, 11], 2) == "C3:C5 C9 C11:C12"
    assert cell_ranges([0], 0) == "A1"
    ws = open_book(example_xlsx)["Assumptions"]
    elements = ws.data_validations.dataValidation
    rules = [(dv.type, dv.operator, dv.formula1, dv.formula2, dv.prompt) for dv in elements]
    assert len(set(rules)) == len(rules)
    by_cell = validations(ws)
    assert len(by_cell) > len(elements)  # some validation covers more than one cell
    price = {named_cell(open_book(example_xlsx), f"candidates_{c}_card_price").coordinate
             for c in ("h100_sxm", "mi300x")}
    assert len({id(by_cell[coord]) for coord in price}) == 1  # one rule for card prices


def test_headline_figures_follow_by_hand_from_the_sheets(example, example_xlsx):
    """What a reader sees before any recalculation: each candidate's net flows add up its cash
    flow components, its undiscounted TCO and NPV follow from the net flows and the discount
    rate on the Assumptions sheet, its year-0 accelerators and servers from the card count and
    prices there, and its cost per run is the sum of the five cost lines."""
    wb = open_book(example_xlsx, values=True)
    priced = [c for c in example.candidates if c.priced]
    assert priced
    for c in priced:
        figures = hand_worked_figures(wb, c.id, c.primary_workload, c.info.inputs_of,
                                      c.info.acquire != "rent")
        for what, (shown, by_hand) in figures.items():
            assert shown == pytest.approx(by_hand, rel=1e-12), (c.id, what)
        # ... and they are the figures the engine reports
        assert figures["npv_tco"][0] == pytest.approx(c.values["npv_tco"], rel=1e-12)
        assert figures["cost_per_job"][0] == pytest.approx(c.job["cost_per_job"], rel=1e-12)


def test_every_model_quantity_is_a_formula_under_its_own_labels(example, example_xlsx):
    """Each quantity of the model has its own formula cell, under the column headed by its
    candidate and on the row labelled with its key (Model), or on its component's row of its
    candidate's block under its year (CashFlows). The values are LibreOffice's business:
    tests/test_workbook_recalc.py recalculates every formula."""
    wb = open_book(example_xlsx)
    p = plan(example)
    assert set(p.quantities) == {q.name for q in example.model}
    assert len(set(p.quantities.values())) == len(p.quantities)  # no two share a cell
    model_keys = {r: (section, key) for section, key, r in model_rows(wb)}
    years = {col: t for t, col in year_columns(wb["CashFlows"]).items()}
    blocks = {}
    for q in example.model:
        cell = p.quantities[q.name]
        ref = wb[cell.sheet].cell(cell.row + 1, cell.col + 1)
        assert ref.data_type == "f", q.name
        key = q.name.rsplit(".", 1)[1]
        if cell.sheet == "Model":
            assert ref.column == model_column(wb, q.candidate), q.name
            section, row_key = model_keys[ref.row]
            assert row_key == key, q.name
            if q.workload:
                assert section.endswith(f"({q.workload})"), q.name
        else:
            assert cell.sheet == "CashFlows"
            if q.candidate not in blocks:
                blocks[q.candidate] = cash_flow_block(wb, q.candidate)
            label = ({"net": NET, "cumulative": CUMULATIVE}.get(key) or COMPONENT_LABELS.get(key)
                     or SHARE_LABELS.get(key) or TAX_LABELS[key])
            assert blocks[q.candidate][label][q.year].coordinate == ref.coordinate, q.name
            assert years[ref.column] == q.year


def test_user_text_is_never_a_formula(tricky, tricky_xlsx):
    wb = open_book(tricky_xlsx)
    assert wb["Summary"]["A1"].value == tricky.scenario.name
    assert wb["Summary"]["A1"].data_type == "s"
    texts = {"=SUM(1,2)", "=2*3", "=1+1", "+1+1 -2 @SUM(A1)", tricky.scenario.name}
    found: set[str] = set()
    for ws in wb.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f":
                    assert "HYPERLINK" not in cell.value and "SUM(1,2)" not in cell.value
                elif isinstance(cell.value, str):
                    assert cell.data_type == "s"
                    found.update(t for t in texts if t in cell.value)
    assert found == texts


def test_colliding_candidate_ids_get_distinct_names(tricky, tricky_xlsx):
    wb = open_book(tricky_xlsx, values=True)
    first, second = tricky.candidate("h100-sxm"), tricky.candidate("h100_sxm")
    assert named_cell(wb, "npv_tco_h100_sxm").value == first.values["npv_tco"]
    assert named_cell(wb, "npv_tco_h100_sxm_2").value == second.values["npv_tco"]
    catalog_price = tricky.inputs["candidates.h100-sxm.card_price"].value  # in EUR
    assert named_cell(wb, "candidates_h100_sxm_card_price").value == catalog_price
    assert named_cell(wb, "candidates_h100_sxm_card_price_2").value == 28000  # the scenario's


def test_summary_lists_infeasible_candidates_with_their_reason(tricky_xlsx):
    ws = open_book(tricky_xlsx)["Summary"]
    rows = {r[1]: r[3] for r in ws.iter_rows(values_only=True) if r[1] in ("A100", "tiny")}
    assert "has no FP8 support" in rows["A100"]
    # 8B on 4 RTX 4090, the least memory any layout needs (TP 4, recomputation): weights and
    # gradients 4 x 8e9 / 4 = 8.0 GB, optimizer 12 x 8e9 / 4 = 24.0 GB, activations
    # 4,096 x 4,403 / 4 x (2 x 34.4 + 34) = 0.46 GB: 32.5 GB
    assert "needs 32.5 GB per card" in rows["tiny"]


def test_sheets_formats_and_frozen_panes(example_xlsx):
    wb = open_book(example_xlsx)
    assert wb.sheetnames == ["Summary", "Assumptions", "Model", "CashFlows", "Catalog", "Plan",
                             "Methodology"]  # the example is planned: its Plan sheet
    assert wb["Assumptions"].freeze_panes == "B2"
    assert wb["Model"].freeze_panes == "D3"
    assert wb["CashFlows"].freeze_panes == "C2"
    assert wb["Catalog"].freeze_panes == "B2"
    assert wb["Plan"].freeze_panes == "C2"
    assert named_cell(wb, "npv_tco_b200").number_format == '"$"#,##0;-"$"#,##0;"-"'
    assert named_cell(wb, "finance_discount_rate").number_format == "0.00%"
    assert named_cell(wb, "facility_electricity_price_per_kwh").number_format == (
        '"$"#,##0.0000;-"$"#,##0.0000;"-"')
    assert named_cell(wb, "candidates_h100_sxm_cards").number_format == "#,##0"
    assert named_cell(wb, "workloads_llama_70b_tokens").number_format == "0.000E+00"
    assert wb["Model"].column_dimensions["A"].width > 40


def test_cached_values_readable_by_pandas(example, example_xlsx):
    frame = pd.read_excel(io.BytesIO(example_xlsx), sheet_name="Model", header=0)
    npv = frame[frame["Key"] == "npv_tco"]
    assert npv["b200"].iloc[0] == pytest.approx(example.candidate("b200").values["npv_tco"])


def test_methodology_states_provenance_and_formulas(example, example_xlsx):
    ws = open_book(example_xlsx)["Methodology"]
    cells = {r[0]: r[1] for r in ws.iter_rows(values_only=True) if r[0]}
    pv = example.provenance
    assert cells["Catalog digest"] == pv.catalog_digest
    assert cells["Scenario digest"] == pv.scenario_digest
    assert cells["Tool version"] == f"tco {pv.tool_version}"
    assert cells["Generated"] == "2026-01-15"
    formulas = {r[2]: r[4] for r in ws.iter_rows(values_only=True) if r[0] == "Over the horizon"}
    assert formulas["npv_tco"] == "y0.net+NPV(finance.discount_rate,y1.net,y2.net,y3.net,y4.net,y5.net)"
    assert formulas["capex_cards"] == (
        "(candidate.cards+spare_cards)*candidate.card_price*vat_net_factor")


def test_same_result_and_date_give_identical_bytes(example, example_xlsx, tmp_path):
    assert workbook_bytes(example, generated=DAY) == example_xlsx
    write_workbook(example, tmp_path / "a.xlsx", generated=DAY)
    assert (tmp_path / "a.xlsx").read_bytes() == example_xlsx
    props = open_book(example_xlsx).properties
    assert props.created.isoformat().startswith("2026-01-15T00:00:00")


def test_unwritable_path_is_one_clear_error(example, tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        write_workbook(example, tmp_path / "missing" / "x.xlsx")
    assert not (tmp_path / "missing").exists()


def test_analysis_sheets_hold_static_engine_results(example):
    result = copy.copy(example)
    bar = TornadoBar(path="candidates.b200.card_price", label="Purchase price per accelerator",
                     unit="USD/card", base_value=40000.0, low_value=32000.0,
                     high_value=48000.0, metric_low=45e6, metric_high=52e6)
    result.analyses = {
        "sensitivity": Sensitivity(metric="npv_tco", mode="swing", swing=0.2,
                                   baseline={"b200": 48.5e6}, bars={"b200": [bar]}),
        "montecarlo": MonteCarlo(draws=1000, seed=7, varied=["candidates.b200.card_price"],
                                 percentiles={"b200": {"npv_tco": {"p10": 1.0, "p50": 2.0,
                                                                   "p90": 3.0, "mean": 2.1}}},
                                 prob_cheapest={"b200": 0.75}),
    }
    wb = open_book(workbook_bytes(result, generated=DAY))
    assert wb.sheetnames[-3:] == ["Sensitivity", "MonteCarlo", "Methodology"]
    sens = wb["Sensitivity"]
    assert "static values" in sens["A2"].value
    assert [c.value for c in sens[6]][:10] == ["b200", "Purchase price per accelerator",
                                               "candidates.b200.card_price", "USD/card", 40000,
                                               32000, 48000, 45e6, 52e6, 7e6]
    mc = wb["MonteCarlo"]
    assert "static values" in mc["A2"].value
    assert [c.value for c in mc[6]] == ["b200", example.candidate("b200").info.name, "npv_tco",
                                        1, 2, 3, 2.1, 0.75]


def test_workbook_without_any_feasible_candidate(catalog):
    # An FP8 job on A100s: the card has no FP8, so nothing is priced and nothing is named.
    result = compute(load_scenario_text(
        "name: none fits\n"
        "workloads: [{id: w, params: 8e9, tokens: 1e11, precision: fp8}]\n"
        "candidates: [{id: old, card: a100-80gb-sxm, cards: 8}]\n"), catalog)
    wb = open_book(workbook_bytes(result, generated=DAY))
    assert len(wb.defined_names) == 0
    rows = list(wb["Summary"].iter_rows(values_only=True))
    assert ("Recommendation", "No candidate is feasible for every workload.") in [
        r[:2] for r in rows]
    assert (None, "old", "NVIDIA A100 SXM4 80GB", "NVIDIA A100 SXM4 80GB has no FP8 support") in [
        r[:4] for r in rows]


def test_the_zip_is_deflated_at_the_quick_level(example_xlsx):
    """Every entry's stored bytes are zlib's raw deflate of it at DEFLATE_LEVEL (1), not at
    xlsxwriter's default level (6), with the installed xlsxwriter (CI runs the oldest and the
    newest)."""
    import struct
    import zipfile
    import zlib

    from tco.exporters.xlsx.workbook import DEFLATE_LEVEL

    def deflated(data: bytes, level: int) -> bytes:
        c = zlib.compressobj(level, zlib.DEFLATED, -15)
        return c.compress(data) + c.flush()

    def stored(info: zipfile.ZipInfo) -> bytes:
        header = example_xlsx[info.header_offset:info.header_offset + 30]
        name_len, extra_len = struct.unpack("<HH", header[26:30])
        start = info.header_offset + 30 + name_len + extra_len
        return example_xlsx[start:start + info.compress_size]

    book = zipfile.ZipFile(io.BytesIO(example_xlsx))
    entries = book.infolist()
    assert DEFLATE_LEVEL == 1 and all(i.compress_type == zipfile.ZIP_DEFLATED for i in entries)
    assert all(stored(i) == deflated(book.read(i), 1) for i in entries)
    sheet = next(i for i in entries if i.filename == "xl/worksheets/sheet3.xml")
    assert stored(sheet) != deflated(book.read(sheet), 6)  # the level is not the default


def test_quick_deflate_puts_xlsxwriter_back_and_leaves_an_unknown_release_alone(monkeypatch):
    import zipfile

    import xlsxwriter.workbook as xw

    from tco.exporters.xlsx.workbook import quick_deflate

    with quick_deflate():
        assert xw.ZipFile is not zipfile.ZipFile
        assert xw.ZipFile(io.BytesIO(), "w").compresslevel == 1
    assert xw.ZipFile is zipfile.ZipFile
    with pytest.raises(KeyError), quick_deflate():
        raise KeyError("a failure while closing")
    assert xw.ZipFile is zipfile.ZipFile

    class OtherZip(zipfile.ZipFile):
        """A release that makes its zip with a class of its own."""

    monkeypatch.setattr(xw, "ZipFile", OtherZip)
    with quick_deflate():
        assert xw.ZipFile is OtherZip
    assert xw.ZipFile is OtherZip


@pytest.mark.parametrize("name", ["example.yaml", "train-and-serve.yaml", "cn.yaml"])
def test_every_formula_fits_a_spreadsheet_cell(catalog, name):
    """Excel refuses (and LibreOffice reads as #N/A) a formula longer than 8,192 characters:
    the plan's after-tax deductions once summed every period's costs and every purchase's tax
    schedule in one cell (45,000 characters on the train-and-serve example). Each period's
    deductions and each purchase's deduction factor are cells of their own now."""
    from tco.resources import example_scenario

    result = compute(load_scenario(example_scenario().parent / name), catalog)
    assert result.plans  # the plan's sheet is written
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(result, generated=DAY)))
    longest = max(((len(c.value), f"{ws.title}!{c.coordinate}") for ws in wb.worksheets
                   for row in ws.iter_rows() for c in row
                   if isinstance(c.value, str) and c.value.startswith("=")), default=(0, ""))
    assert longest[0] <= 8192, longest
