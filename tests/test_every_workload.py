"""Every workload in every output (issue 13): a plan of a 34B dense pre-training and a 100B
mixture of experts (20B active) shows both in the CLI table, JSON, the report (en, zh) and the
workbook, and the MoE's figures carry the methodology's optimism warning wherever they appear.

The per-run figures each output shows are the engine's own (`CandidateResult.jobs`), so the
checks compare each output with them; the MoE flag and the second workload's compute are
worked out by hand: active 20e9 < params 100e9 is a mixture of experts, 34e9 = 34e9 is not;
training compute is at least 6 x active parameters x tokens (the attention term adds to it):
6 x 20e9 x 1e12 = 1.2e23 FLOP for the MoE, 6 x 34e9 x 1e12 = 2.04e23 for the dense model.
"""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.exporters.fmt import money, number
from tco.exporters.html import render_html
from tco.exporters.workloads import MOE_WARNING
from tco.exporters.xlsx.workbook import workbook_bytes
from tco.scenario import load_scenario

SCENARIO = Path(__file__).parent / "data" / "two_workloads.yaml"
DENSE, MOE = "dense-34b", "moe-100b"


@pytest.fixture(scope="module")
def two(catalog):
    return compute(load_scenario(SCENARIO), catalog)


def test_the_model_flags_the_mixture_of_experts_and_computes_both(two):
    for c in two.candidates:
        assert c.jobs[DENSE]["mixture_of_experts"] == 0
        assert c.jobs[MOE]["mixture_of_experts"] == 1
        assert c.jobs[MOE]["train_flops"] >= 1.2e23  # 6 x 20e9 x 1e12, plus attention
        assert c.jobs[DENSE]["train_flops"] >= 2.04e23  # 6 x 34e9 x 1e12, plus attention
        assert c.jobs[MOE]["expert_parallel"] > 1  # sparsity 5: an expert group of 4 or more


def test_the_cli_table_shows_a_run_of_each_workload_on_each_option(two):
    out = CliRunner().invoke(cli, ["compare", str(SCENARIO)])
    assert out.exit_code == 0, out.output
    text = out.output
    block = text[text.index("Every workload"):text.index("Recommendation:")]
    for c in two.candidates:
        for wid in (DENSE, MOE):
            job = c.jobs[wid]
            line = next(ln for ln in block.splitlines()
                        if f"({wid})" in ln and f" {c.id} " in ln)
            assert number(job["wall_days"], 1) in line
            assert number(job["gpu_hours"], 0) in line
            assert money(job["cost_per_job"], "USD") in line
            assert ("[MoE+]" in line) == (wid == MOE)
    assert "[MoE+]: " + MOE_WARNING in block  # the footnote


def test_the_csv_has_each_workloads_columns_equal_to_the_engine(two):
    import csv

    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "csv"])
    assert out.exit_code == 0, out.output
    # the options' rows (the plans' rows, acquire "plan", are tests/test_plan_outputs.py's)
    rows = [r for r in csv.DictReader(io.StringIO(out.output)) if r["acquire"] != "plan"]
    assert [r["id"] for r in rows] == [c.id for c in two.candidates]
    for row, c in zip(rows, two.candidates):
        for wid in (DENSE, MOE):
            if c.quantified:
                assert float(row[f"{wid}.cost.total"]) == c.jobs[wid]["cost_per_job"]
                assert float(row[f"{wid}.wall_days"]) == c.jobs[wid]["wall_days"]
                assert row[f"{wid}.mixture_of_experts"] == str(wid == MOE)
            else:  # no numbers for an option whose numbers do not hold
                assert row[f"{wid}.cost.total"] == ""


def test_json_lists_the_plan_with_the_moe_flag_and_both_workloads_per_option(two):
    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.output)
    plan = {w["id"]: w for w in d["workloads"]}
    assert list(plan) == [DENSE, MOE]
    assert plan[DENSE]["mixture_of_experts"] is False and plan[DENSE]["warning"] is None
    assert plan[MOE]["mixture_of_experts"] is True and plan[MOE]["warning"] == MOE_WARNING
    assert plan[MOE]["active_params"] == 20e9 and plan[MOE]["params"] == 100e9
    for cand in d["candidates"]:
        engine = two.candidate(cand["id"])
        assert cand["jobs"][MOE]["mixture_of_experts"] is True
        assert cand["jobs"][DENSE]["mixture_of_experts"] is False
        assert cand["jobs"][MOE]["wall_days"] == engine.jobs[MOE]["wall_days"]


def _cells(html: str, table_id: str) -> dict[str, dict[str, str]]:
    """candidate id -> data-key -> data-value of one table of the report."""
    start = html.index(f'id="{table_id}"')
    table = html[start:html.index("</table>", start)]
    out: dict[str, dict[str, str]] = {}
    for row in re.findall(r'<tr[^>]*data-candidate="([^"]+)"[^>]*>(.*?)</tr>', table, re.DOTALL):
        out[row[0]] = dict(re.findall(r'data-key="([^"]+)" data-value="([^"]+)"', row[1]))
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_has_a_table_and_charts_for_each_workload(two, lang):
    html = render_html(two, lang)
    for wid in (DENSE, MOE):
        cells = _cells(html, f"workload-{wid}")
        assert set(cells) == {c.id for c in two.candidates}
        for c in two.candidates:
            assert float(cells[c.id]["cost_per_job"]) == c.jobs[wid]["cost_per_job"]
            assert float(cells[c.id]["wall_days"]) == c.jobs[wid]["wall_days"]
    charts = re.findall(r'<figure id="(chart-[a-z0-9-]+)"', html)
    assert {"chart-cost", "chart-cost-2", "chart-time", "chart-time-2"} <= set(charts)
    warning = "混合专家" if lang == "zh" else "is a mixture of experts; its times and costs are"
    # the MoE's table and its two charts each carry the warning; the caveats too
    moe_table = html[html.index('id="workload-moe-100b"'):]
    assert warning in moe_table[:moe_table.index("</table>") + 400]
    for chart in ("chart-cost-2", "chart-time-2"):
        fig = html[html.index(f'<figure id="{chart}"'):]
        assert warning in fig[:fig.index("</figure>")]
    for chart in ("chart-cost", "chart-time"):  # the dense workload's charts do not
        fig = html[html.index(f'<figure id="{chart}"'):]
        assert warning not in fig[:fig.index("</figure>")]
    caveats = html[html.index('id="caveats"'):]
    assert ("混合专家模型" if lang == "zh" else "Mixture-of-experts results") in caveats
    # each option's details list both workloads' runs
    detail = html[html.index('id="candidate-h100"'):]
    detail = detail[:detail.index("</article>")]
    assert "34B dense pre-training" in detail and "100B MoE pre-training" in detail


def test_the_example_report_has_no_workload_section(example):
    """One dense workload: the comparison table is its table; nothing is repeated."""
    html = render_html(example, "en")
    assert 'id="workloads"' not in html and "chart-cost-2" not in html


def test_the_workbook_ranks_each_workload_and_notes_the_moe(two):
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(two)))
    ws = wb["Summary"]
    rows = [[cell.value for cell in row] for row in ws.iter_rows(max_col=4)]
    titles = [i for i, r in enumerate(rows) if isinstance(r[0], str)
              and r[0].startswith("Ranked by cost per run of")]
    assert len(titles) == 2
    assert "(dense-34b)" in rows[titles[0]][0] and "(moe-100b)" in rows[titles[1]][0]
    # the report's warning (templates/strings.yaml moe_warning), in the workbook's language
    assert rows[titles[1] + 1][0].startswith("100B MoE pre-training (moe-100b) is a mixture of "
                                             "experts; its times and costs are optimistic")
    # the MoE's table: each option's cost per run is a live formula whose cached value is
    # the engine's
    wbv = openpyxl.load_workbook(io.BytesIO(workbook_bytes(two)), data_only=True)
    vs = wbv["Summary"]
    first = titles[1] + 3  # title, note, header
    for r in range(first, first + len(two.candidates)):
        cid = vs.cell(r + 1, 2).value
        assert str(ws.cell(r + 1, 4).value).startswith("=Model!")
        assert vs.cell(r + 1, 4).value == pytest.approx(two.candidate(cid).jobs[MOE]
                                                        ["cost_per_job"], rel=1e-12)


def test_tco_job_notes_the_warning_for_a_mixture_of_experts_only():
    base = ["job", "--tokens", "1e12", "--card", "h100-sxm", "--cards", "512"]
    moe = CliRunner().invoke(cli, [*base, "--model-params", "100e9", "--active-params", "20e9"])
    dense = CliRunner().invoke(cli, [*base, "--model-params", "34e9"])
    assert moe.exit_code == 0 and dense.exit_code == 0, moe.output + dense.output
    assert f"note: {MOE_WARNING}" in moe.output
    assert MOE_WARNING not in dense.output
