"""The analysis commands on the built-in scenario and on a `tco init` scenario, every format."""

import csv
import io
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco.cli import cli

COMMANDS = [
    ["whatif", "--set", "facility.electricity_price_per_kwh=0.12"],
    ["sensitivity", "--swing", "10%"],
    ["sensitivity", "--range", "--metric", "cost_per_job"],
    ["breakeven", "--vary", "candidates.mi300x.card_price", "--candidate", "mi300x",
     "--vs", "b200"],
    ["montecarlo", "--draws", "2000", "--seed", "3"],
]


@pytest.fixture(scope="module")
def init_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("init") / "mine.yaml"
    result = CliRunner().invoke(cli, ["init", str(path)])
    assert result.exit_code == 0, result.output
    return str(path)


def run(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
@pytest.mark.parametrize("fmt", ["table", "json", "csv"])
@pytest.mark.parametrize("on_init_file", [False, True])
def test_commands_run_in_every_format(args, fmt, on_init_file, init_file):
    argv = [args[0]] + ([init_file] if on_init_file else []) + args[1:] + ["--format", fmt]
    result = run(argv)
    assert result.exit_code == 0, result.output
    out = result.output
    if fmt == "json":
        json.loads(out)
    elif fmt == "csv":
        rows = list(csv.reader(io.StringIO(out)))
        assert len(rows) > 1 and all(len(r) == len(rows[0]) for r in rows)
    else:
        assert out.strip()
    assert "Monte Carlo  [" not in out  # no progress bar outside a terminal


def test_diff_between_two_files(init_file, tmp_path):
    other = tmp_path / "other.yaml"
    text = Path(init_file).read_text(encoding="utf-8").replace("utilization: 0.85",
                                                            "utilization: 0.6")
    other.write_text(text, encoding="utf-8")
    result = run(["diff", init_file, str(other), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [(i["path"], i["before"], i["after"]) for i in data["inputs"]] == [
        ("utilization", 0.85, 0.6)]


def test_whatif_json_matches_compare_of_the_edited_file(init_file, tmp_path):
    edited = tmp_path / "edited.yaml"
    text = Path(init_file).read_text(encoding="utf-8").replace(
        "  region: us", "  region: us\n  electricity_price_per_kwh: 0.12")
    edited.write_text(text, encoding="utf-8")
    w = json.loads(run(["whatif", init_file, "--set", "facility.electricity_price_per_kwh=0.12",
                        "--format", "json"]).output)
    c = json.loads(run(["compare", str(edited), "--format", "json"]).output)
    after = {x["id"]: x["npv_tco"]["after"] for x in w["candidates"]}
    assert after == {x["id"]: x["npv_tco"] for x in c["candidates"]}


@pytest.mark.parametrize("args,message", [
    (["whatif", "--set", "nope=1"], "no input 'nope'"),
    (["whatif", "--set", "utilization=lots"], "--set 'utilization=lots'"),
    (["sensitivity", "--swing", "300%"], "--swing"),
    (["breakeven", "--vary", "utilization", "--candidate", "x", "--vs", "b200"],
     "--candidate: no candidate 'x'"),
])
def test_errors_are_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_output_file_is_written(tmp_path):
    out = tmp_path / "mc.json"
    result = run(["montecarlo", "--draws", "500", "--format", "json", "--output", str(out)])
    assert result.exit_code == 0 and result.output == ""
    assert json.loads(out.read_text())["draws"] == 500
