"""Policy in the scenario (issue 13): export-control and licence bars stay catalog defaults;
a scenario states what the buyer holds (`policy.holds_licence`) and that lifts the bar for
the cards named, with its note printed in every output."""

from __future__ import annotations

import io
import json

import openpyxl
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.exporters.html import render_html
from tco.exporters.xlsx.workbook import workbook_bytes
from tco.scenario import load_scenario_text

NOTE = "Export licence for 1,024 H20 granted 2026-02 (case-by-case review)"
BASE = (
    "name: policy\ncurrency: CNY\nrent_options: none\n"
    "workloads:\n  - {id: w, params: 34e9, tokens: 1e12, runs_per_year: 2}\n"
    "candidates:\n  - {id: ascend, card: ascend-910b, cards: 1024}\n"
    "  - {id: h20, card: h20, cards: 1024}\n"
    "facility: {region: cn}\nfinance: {horizon_years: 3}\n"
    "team: {engineer_cost_per_month: 150000, familiarity: {cuda: 1.0}}\n")
HELD = BASE + f"policy: {{holds_licence: [h20], note: '{NOTE}'}}\n"


def test_by_default_the_catalog_bars_h20_in_china(catalog):
    r = compute(load_scenario_text(BASE), catalog)
    h20 = r.candidate("h20")
    assert h20.info.blocking and h20.info.blocking[0].startswith("export control: ")
    assert h20.values["tier"] == 2  # feasible but barred


def test_a_held_licence_lifts_the_bar_and_keeps_a_flag_with_the_note(catalog):
    r = compute(load_scenario_text(HELD), catalog)
    h20 = r.candidate("h20")
    assert h20.info.blocking == []
    assert h20.values["tier"] == 0  # may be used here and delivers the plan
    flag = next(f for f in h20.info.flags if f.startswith("export control: "))
    assert flag.endswith("lifted by the scenario's policy (the buyer holds a licence): " + NOTE)
    # the other card is untouched
    assert r.candidate("ascend").info.blocking == []  # the 910B is not barred in cn anyway


def test_the_note_is_in_json_the_table_the_report_and_the_workbook(catalog, tmp_path):
    path = tmp_path / "held.yaml"
    path.write_text(HELD)
    out = CliRunner().invoke(cli, ["compare", str(path), "--format", "json"])
    assert json.loads(out.output)["policy"] == {"holds_licence": ["h20"], "holds_stock": {},
                                                "note": NOTE}
    table = CliRunner().invoke(cli, ["compare", str(path)]).output
    assert f"Policy: the buyer holds a licence for h20: {NOTE}" in table
    r = compute(load_scenario_text(HELD), catalog)
    assert NOTE in render_html(r, "en")
    zh = render_html(r, "zh")
    assert NOTE in zh and "本场景政策已解除此限制" in zh
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))["Summary"]
    assert ws["A4"].value == f"Policy: the buyer holds a licence for h20: {NOTE}"


@pytest.mark.parametrize("policy, message", [
    ("{holds_licence: [h21]}", "unknown card 'h21' (did you mean: h20, h20-141gb?)"),
    ("{holds_licence: [h20, h20]}", "card 'h20' is listed twice"),
])
def test_a_bad_policy_gets_one_clear_message(tmp_path, policy, message):
    path = tmp_path / "bad.yaml"
    path.write_text(BASE + f"policy: {policy}\n")
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2 and "policy.holds_licence" in out.output
    assert message in out.output, out.output
