"""The workbook recalculated by a real spreadsheet engine (LibreOffice headless) agrees with the
Python engine, also after an input is edited.

LibreOffice keeps the cached values of an xlsx file on load by default, so converting our file
as is would read back our own numbers. The private profile used here sets "recalculate on load:
always" (Calc > Formula > OOXMLRecalcMode = 0), and `test_planted_wrong_values_are_corrected`
proves it: cached values replaced by 12345 come back as the engine's numbers.

All workbooks are converted in one LibreOffice run per session. Without LibreOffice these tests
skip, except in CI (CI=true), where a missing engine is a failure.
"""

from __future__ import annotations

import math
import os
import re
import shutil
import subprocess
import zipfile
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import numpy as np
import openpyxl
import pytest
import xlsxwriter
import yaml
from test_deliveries import PHASED
from test_held_stock import HELD as HELD_STOCK
from test_lease import LEASED
from workbook_support import cash_flow_block, hand_worked_figures, input_value

from tco.catalog import load_catalog
from tco.engine import compute
from tco.exporters.plan_view import plan_json
from tco.exporters.xlsx import write_workbook
from tco.exporters.xlsx.layout import plan
from tco.exporters.xlsx.names import base_name
from tco.exporters.xlsx.plan import place as place_plans
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text

TRICKY = Path(__file__).with_name("test_workbook_tricky.yaml")
ZH_PACKAGE = Path(__file__).with_name("data") / "zh_package"  # a Chinese procurement package
DAY = date(2026, 1, 15)
REL = 1e-6
PLANTED = 12345.0
NEW_ELECTRICITY_PRICE = 0.15  # USD/kWh, up from the catalog's 0.0826
ERRORS = ("#NAME?", "#DIV/0!", "#VALUE!", "#REF!", "#NUM!", "#N/A", "#NULL!", "Err:")
# Names the defined-name rule must make acceptable to LibreOffice (see xlsx/names.py).
AWKWARD_NAMES = ("a100", "xfd1", "r1c1", "R", "c12", "1abc", "true", "h100-sxm")

RECALC_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry"
           xmlns:xs="http://www.w3.org/2001/XMLSchema"
           xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
  <prop oor:name="OOXMLRecalcMode" oor:op="fuse"><value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load">
  <prop oor:name="ODFRecalcMode" oor:op="fuse"><value>0</value></prop></item>
</oor:items>
"""


def soffice() -> str:
    exe = shutil.which("soffice") or shutil.which("libreoffice")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("LibreOffice (soffice) is required in CI to check the workbook")
        pytest.skip("LibreOffice (soffice) is not installed")
    return exe


def recalculate(files: list[Path], out: Path, profile: Path) -> dict[str, Path]:
    """Open each file in LibreOffice (recalculating every formula) and save it as xlsx."""
    (profile / "user").mkdir(parents=True, exist_ok=True)
    (profile / "user" / "registrymodifications.xcu").write_text(RECALC_PROFILE)
    out.mkdir()
    cmd = [soffice(), f"-env:UserInstallation={profile.as_uri()}", "--headless", "--norestore",
           "--nolockcheck", "--convert-to", "xlsx", "--outdir", str(out), *map(str, files)]
    run = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=600)
    converted = {f.stem: out / f.name for f in files}
    missing = [str(p) for p in converted.values() if not p.exists()]
    assert not missing, f"LibreOffice did not convert {missing}: {run.stdout}{run.stderr}"
    return converted


def engine_env(result) -> dict[str, float]:
    env = result.model.evaluate({p: i.value for p, i in result.inputs.items()})
    return {k: float(np.asarray(v).reshape(-1)[0]) for k, v in env.items()}


def named_value(wb: openpyxl.Workbook, name: str):
    ((sheet, coord),) = list(wb.defined_names[name].destinations)
    return wb[sheet][coord.replace("$", "")].value


def close(actual, expected: float) -> bool:
    if isinstance(actual, bool) or not isinstance(actual, (int, float)):
        return False
    return math.isclose(actual, expected, rel_tol=REL, abs_tol=1e-9)


@dataclass
class Case:
    result: object
    original: Path
    recalculated: Path
    lang: str = "en"

    def book(self, values: bool = True) -> openpyxl.Workbook:
        return openpyxl.load_workbook(self.recalculated, data_only=values)


def plant_wrong_values(src: Path, dst: Path) -> None:
    """Copy an xlsx, replacing the cached value of every numeric formula cell by 12345."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename.startswith("xl/worksheets/sheet"):
                data = re.sub(rb'(<c r="[A-Z]+[0-9]+"(?: s="[0-9]+")?><f>[^<]*</f>)<v>[^<]*</v>',
                              rb"\g<1><v>12345</v>", data)
            zout.writestr(item, data)


def edit_input(src: Path, dst: Path, price: float,
                           name: str = "facility_electricity_price_per_kwh") -> None:
    """Change one input cell (`name`) the way a user would, keeping every formula
    (openpyxl)."""
    wb = openpyxl.load_workbook(src)
    ((sheet, coord),) = list(wb.defined_names[name].destinations)
    wb[sheet][coord.replace("$", "")].value = price
    wb.save(dst)


def awkward_names_workbook(path: Path) -> None:
    """A1:A8 hold 1..8, each named by the rule from an awkward text; B = name * 10."""
    wb = xlsxwriter.Workbook(str(path))
    ws = wb.add_worksheet("Names")
    for i, text in enumerate(AWKWARD_NAMES):
        name = base_name(text)
        ws.write_number(i, 0, i + 1)
        wb.define_name(name, f"=Names!$A${i + 1}")
        ws.write_formula(i, 1, f"={name}*10", None, 0)
    wb.close()


@pytest.fixture(scope="session")
def cases(tmp_path_factory, catalog) -> dict[str, Case]:
    soffice()
    base = tmp_path_factory.mktemp("workbooks")
    example = compute(load_scenario(), catalog)
    tricky = compute(load_scenario(TRICKY), catalog)
    serve = compute(load_scenario(example_scenario().parent / "train-and-serve.yaml"), catalog)
    doc = yaml.safe_load(example_scenario().read_text(encoding="utf-8"))
    doc["facility"]["electricity_price_per_kwh"] = NEW_ELECTRICITY_PRICE
    edited = compute(load_scenario_text(yaml.safe_dump(doc)), catalog)

    zh = compute(load_scenario(ZH_PACKAGE / "scenario.yaml"),
                 load_catalog([ZH_PACKAGE / "quotes.csv"]))

    files = {"example": base / "example.xlsx", "tricky": base / "tricky.xlsx",
             "planted": base / "planted.xlsx", "edited": base / "edited.xlsx",
             "names": base / "names.xlsx", "zh": base / "zh.xlsx", "serve": base / "serve.xlsx",
             "held": base / "held.xlsx", "phased": base / "phased.xlsx",
             "leased": base / "leased.xlsx", "params": base / "params.xlsx"}
    write_workbook(example, files["example"], generated=DAY)
    write_workbook(tricky, files["tricky"], generated=DAY)
    write_workbook(zh, files["zh"], generated=DAY, lang="zh")
    write_workbook(serve, files["serve"], generated=DAY)  # serving formulas (issue 14)
    held = compute(load_scenario_text(HELD_STOCK), catalog)  # existing stock (issue 13)
    write_workbook(held, files["held"], generated=DAY)
    phased = compute(load_scenario_text(PHASED), catalog)  # phased deliveries (issue 13)
    write_workbook(phased, files["phased"], generated=DAY)
    leased = compute(load_scenario_text(LEASED), catalog)  # a lease beside a purchase
    write_workbook(leased, files["leased"], generated=DAY)
    plant_wrong_values(files["example"], files["planted"])
    edit_input(files["example"], files["edited"], NEW_ELECTRICITY_PRICE)
    # the dense model's parameters: its active parameters' cell follows (issue of ties)
    edit_input(files["example"], files["params"], 84e9,
                           "workloads_llama_70b_params")
    awkward_names_workbook(files["names"])
    out = recalculate(list(files.values()), base / "recalculated",
                      tmp_path_factory.mktemp("libreoffice-profile"))
    results = {"example": example, "tricky": tricky, "planted": example, "edited": edited,
               "names": None, "zh": zh, "serve": serve, "held": held, "phased": phased,
               "leased": leased, "params": None}
    return {k: Case(results[k], files[k], out[k], "zh" if k == "zh" else "en") for k in files}


def expected_named_values(result, lang: str = "en") -> dict[str, float]:
    """Every defined name of the workbook and the engine's value for it."""
    p = plan(result, lang)
    env = engine_env(result)
    out = {p.input_name(path): result.inputs[path].value for path in p.inputs}
    out.update({name: env[q] for name, q in p.headline_quantity.items()})
    ps = place_plans(result, p)  # the plans' quantities (the Plan sheet's inputs)
    if ps is not None:
        out.update({ps.names[path]: ps.values[path] for path in ps.inputs})
    return out


@pytest.mark.parametrize("case", ["example", "tricky", "zh", "serve", "held", "phased", "leased"])
def test_every_named_cell_matches_the_engine_after_recalculation(cases, case):
    c = cases[case]
    wb = c.book()
    expected = expected_named_values(c.result, c.lang)
    assert len(expected) == len(wb.defined_names) > 10
    wrong = {name: (named_value(wb, name), value) for name, value in expected.items()
             if not close(named_value(wb, name), value)}
    assert not wrong


@pytest.mark.parametrize("case", ["example", "tricky", "zh", "serve", "held", "phased", "leased"])
def test_every_model_cell_matches_the_engine_after_recalculation(cases, case):
    c = cases[case]
    wb = c.book()
    env = engine_env(c.result)
    wrong = {}
    p = plan(c.result, c.lang)
    for q in c.result.model:
        cell = p.quantities[q.name]
        got = wb[cell.sheet].cell(cell.row + 1, cell.col + 1).value
        ok = (got is bool(env[q.name])) if q.unit == "flag" else close(got, env[q.name])
        if not ok:
            wrong[q.name] = (got, env[q.name])
    assert not wrong


@pytest.mark.parametrize("case", ["example", "zh", "serve", "leased"])
def test_every_plan_cell_matches_the_engine_after_recalculation(cases, case):
    """The Plan sheet (methodology §19): each plan's money, written as formulas from the plan
    model's trees, equals the engine's after LibreOffice recalculates it, the NPV of every
    plan included (and the Summary's plan block reads them)."""
    c = cases[case]
    wb = c.book()
    p = plan(c.result, c.lang)
    ps = place_plans(c.result, p)
    assert ps is not None and c.result.plans
    wrong, checked = {}, 0
    for plan_ in c.result.plans:
        for q in plan_.model.quantities:
            if q.name not in ps.quantities:
                continue
            cell = ps.quantities[q.name]
            got = wb[cell.sheet].cell(cell.row + 1, cell.col + 1).value
            checked += 1
            if not close(got, float(plan_.env[q.name])):
                wrong[q.name] = (got, plan_.env[q.name])
        npv = ps.quantities[f"{plan_.id}.npv_tco"]
        assert close(wb[npv.sheet].cell(npv.row + 1, npv.col + 1).value, plan_.npv_tco)
    shown = plan_json(c.result)  # the same NPVs as JSON's `plan`
    npv = ps.quantities["plan.npv_tco"]
    assert close(wb[npv.sheet].cell(npv.row + 1, npv.col + 1).value, shown["npv_tco"])
    for o in shown["options"]:
        npv = ps.quantities[f"plan-{o['option']}.npv_tco"]
        assert close(wb[npv.sheet].cell(npv.row + 1, npv.col + 1).value, o["npv_tco"])
    assert checked > 100 and not wrong


@pytest.mark.parametrize("case", ["example", "zh"])
def test_every_formula_keeps_its_cached_value_after_recalculation(cases, case):
    """Summary, cumulative cash flows, ranks: every formula cell, not only the model's (in the
    Chinese workbook too: its sheets are named in Chinese, its formulas refer to them)."""
    c = cases[case]
    formulas = openpyxl.load_workbook(c.original)
    cached = openpyxl.load_workbook(c.original, data_only=True)
    recalculated = c.book()
    count, wrong = 0, {}
    for ws in formulas.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type != "f":
                    continue
                count += 1
                before = cached[ws.title][cell.coordinate].value
                after = recalculated[ws.title][cell.coordinate].value
                same = before is after if isinstance(before, bool) else close(after, before)
                if not same:
                    wrong[f"{ws.title}!{cell.coordinate}"] = (cell.value, before, after)
    assert count >= len(c.result.model.quantities)  # every quantity, and the Summary's cells
    assert not wrong


def test_planted_wrong_values_are_corrected(cases):
    c = cases["planted"]
    p = plan(c.result)
    npv = p.quantities["b200.npv_tco"]
    # Without recalculation the planted file shows the wrong numbers ...
    planted = openpyxl.load_workbook(c.original, data_only=True)
    assert planted[npv.sheet].cell(npv.row + 1, npv.col + 1).value == PLANTED
    assert named_value(planted, "npv_tco_h100_sxm") == PLANTED
    # ... and LibreOffice replaces every one of them with the engine's value.
    wb = c.book()
    expected = expected_named_values(c.result)
    assert all(close(named_value(wb, name), v) for name, v in expected.items())
    env = engine_env(c.result)
    assert close(wb[npv.sheet].cell(npv.row + 1, npv.col + 1).value, env["b200.npv_tco"])


def test_edited_input_recalculates_like_the_engine(cases):
    c, base = cases["edited"], cases["example"]
    assert c.result.inputs["facility.electricity_price_per_kwh"].value == NEW_ELECTRICITY_PRICE
    wb = c.book()
    assert named_value(wb, "facility_electricity_price_per_kwh") == NEW_ELECTRICITY_PRICE
    for cand in c.result.candidates:
        if not cand.priced:
            continue
        key = cand.id.replace("-", "_")
        before = base.result.candidate(cand.id).values["npv_tco"]
        after = named_value(wb, f"npv_tco_{key}")
        assert close(after, cand.values["npv_tco"])
        if cand.info.acquire == "rent":  # the cloud price includes the power
            assert close(after, before)
        else:
            assert after > before * 1.01  # dearer electricity: every owned TCO rises
        assert close(named_value(wb, f"cost_per_job_{key}"), cand.job["cost_per_job"])
        assert close(named_value(wb, f"undiscounted_tco_{key}"), cand.values["undiscounted_tco"])


def test_a_dense_models_active_parameters_follow_its_parameters(cases):
    """The active parameters of a dense model are its parameters (resolve's default): in the
    workbook their cell is a formula of the parameters' cell, so a buyer who edits the
    model's size edits a dense model, not a mixture of experts."""
    wb = cases["params"].book()
    assert named_value(wb, "workloads_llama_70b_params") == 84e9
    assert named_value(wb, "workloads_llama_70b_active_params") == 84e9


@pytest.mark.parametrize("case", ["example", "edited"])
def test_libreoffice_figures_follow_by_hand_from_the_sheets(cases, case):
    """After LibreOffice recalculates (and after the user's edit), each candidate's net flows
    still add up its components, its NPV and undiscounted TCO follow by hand from them and the
    discount rate, its year-0 accelerators and servers from the Assumptions sheet, and its cost
    per run from its five cost lines."""
    c = cases[case]
    wb = c.book()
    priced = [cand for cand in c.result.candidates if cand.priced]
    assert priced
    for cand in priced:
        for what, (shown, by_hand) in hand_worked_figures(
                wb, cand.id, cand.primary_workload, cand.info.inputs_of,
                cand.info.acquire != "rent").items():
            if isinstance(shown, list):
                assert all(close(a, b) for a, b in zip(shown, by_hand, strict=True)), (
                    cand.id, what, shown, by_hand)
            else:
                assert close(shown, by_hand), (cand.id, what, shown, by_hand)


def test_edited_tariff_scales_every_electricity_bill(cases):
    """The bill is energy x tariff and the energy does not depend on the tariff: after the
    user's edit, LibreOffice's electricity row of every candidate is the original row times
    new tariff / old tariff, year by year."""
    base, edited = cases["example"].book(), cases["edited"].book()
    old = input_value(base, "facility.electricity_price_per_kwh")
    assert input_value(edited, "facility.electricity_price_per_kwh") == NEW_ELECTRICITY_PRICE
    for cand in cases["example"].result.candidates:
        if not cand.priced:
            continue
        before = [x.value for x in cash_flow_block(base, cand.id)["Electricity"]]
        after = [x.value for x in cash_flow_block(edited, cand.id)["Electricity"]]
        if cand.info.acquire == "rent":  # the cloud price includes the power
            assert before == after == [0] * len(before)
            continue
        assert before[0] == after[0] == 0 and before[1] > 0  # operating years only
        assert all(close(a, b * NEW_ELECTRICITY_PRICE / old) for a, b in zip(after, before,
                                                                            strict=True))


@pytest.mark.parametrize("case", ["example", "tricky", "edited", "zh"])
def test_no_error_values_anywhere_after_recalculation(cases, case):
    wb = cases[case].book()
    errors = [f"{ws.title}!{cell.coordinate}={cell.value}" for ws in wb.worksheets
              for row in ws.iter_rows() for cell in row
              if isinstance(cell.value, str) and cell.value.startswith(ERRORS)]
    assert not errors


def test_user_text_stays_text_after_recalculation(cases):
    c = cases["tricky"]
    wb = c.book(values=False)
    assert wb["Summary"]["A1"].value == c.result.scenario.name
    assert wb["Summary"]["A1"].data_type == "s"
    notes = [cell for row in wb["Summary"].iter_rows() for cell in row if cell.value == "=2*3"]
    assert notes and all(cell.data_type == "s" for cell in notes)


def test_libreoffice_accepts_names_made_by_the_rule(cases):
    wb = cases["names"].book()
    ws = wb["Names"]
    assert [ws.cell(i + 1, 2).value for i in range(len(AWKWARD_NAMES))] == [
        10 * (i + 1) for i in range(len(AWKWARD_NAMES))]


def _summary_columns(ws) -> tuple[int, dict[str, int]]:
    """The header row of the NPV ranking and its columns by title (found by text, not address)."""
    for row in ws.iter_rows():
        titles = {cell.value: cell.column for cell in row if isinstance(cell.value, str)}
        if "Rank (live)" in titles and "Tier (live)" in titles:
            return row[0].row, titles
    raise AssertionError("no ranking table with live tier and rank on Summary")


def test_live_rank_follows_the_engines_tiers(cases):
    """The example's cheapest option by NPV is the RTX 4090 cluster, which is licence-barred:
    LibreOffice's live rank puts it after every option that may be bought, where the engine
    puts it, never first (a plain RANK of the NPV column would)."""
    from tco.engine import tier

    c = cases["example"]
    ws = c.book()["Summary"]
    header, cols = _summary_columns(ws)
    listed = [x for x in c.result.candidates if x.feasible and x.priced]
    live = {}
    for r in range(header + 1, header + 1 + len(listed)):
        cid = ws.cell(r, cols["Candidate"]).value
        live[cid] = (ws.cell(r, cols["Tier (live)"]).value, ws.cell(r, cols["Rank (live)"]).value)
    assert set(live) == {x.id for x in listed}
    for place, x in enumerate(listed, start=1):  # the engine's order is by tier, then NPV
        assert live[x.id] == (tier(x), place), (x.id, live[x.id])
    # the cheapest option that buys (renting is cheaper still in the example)
    cheapest = min((x for x in listed if x.info.acquire == "buy"),
                   key=lambda x: x.values["npv_tco"])
    assert cheapest.id == "rtx-4090" and live["rtx-4090"][0] == 2
    assert live["rtx-4090"][1] > max(rank for t, rank in live.values() if t < 2)


def test_ranked_summary_lists_api_options_and_portfolios_live(cases):
    """Issue 14's gap: the ranked summary lists the per-token API options and the portfolios
    beside the options with cards, by (tier, NPV) as the recommendation weighs them; after
    LibreOffice recalculates, their NPV, undiscounted TCO, tier and live rank are the
    engine's, and a portfolio's cards are its options' cards summed."""
    c = cases["serve"]  # tco/scenarios/train-and-serve.yaml: an API option and a portfolio
    r = c.result
    ws = c.book()["Summary"]
    header, cols = _summary_columns(ws)
    rows = {}
    for row in range(header + 1, ws.max_row + 1):
        xid = ws.cell(row, cols["Candidate"]).value
        if xid is None:
            break
        rows[xid] = {k: ws.cell(row, cols[k]).value for k in (
            "Rank", "Cards", "NPV of TCO", "Undiscounted TCO", "Tier (live)", "Rank (live)")}
    (api,), (port,) = r.api_options, r.portfolios
    assert {api.id, port.id} <= set(rows)
    for xid, values in ((api.id, api.values), (port.id, port.values)):
        assert close(rows[xid]["NPV of TCO"], values["npv_tco"])
        assert close(rows[xid]["Undiscounted TCO"], values["undiscounted_tco"])
        assert rows[xid]["Tier (live)"] == values["tier"]
    assert rows[api.id]["Cards"] == 0
    assert rows[port.id]["Cards"] == sum(r.candidate(o).inputs["cards"] for o in port.options
                                         if o != api.id)
    # the static order is by (tier, NPV) and the live rank agrees with it after recalculation
    order = sorted(rows, key=lambda x: rows[x]["Rank"])
    assert [(rows[x]["Tier (live)"], rows[x]["NPV of TCO"]) for x in order] == sorted(
        (rows[x]["Tier (live)"], rows[x]["NPV of TCO"]) for x in order)
    assert all(rows[x]["Rank (live)"] == rows[x]["Rank"] for x in rows)
