"""Every bad input gets one clear message (file, line, field, found, expected), exit status 2,
no traceback, and nothing written. The cases live in tests/bad_inputs/cases.yaml."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from openpyxl import Workbook

from tco.cli import cli
from tco.errors import ScenarioError
from tco.scenario import load_scenario_text
from tco.yamlio import MAX_FILE_BYTES

CORPUS = Path(__file__).parent / "bad_inputs"
CASES: list[dict[str, Any]] = yaml.safe_load((CORPUS / "cases.yaml").read_text("utf-8"))
BY_ID = {c["id"]: c for c in CASES}


class Prepared:
    """A corpus case made concrete: its command line and what its message must contain."""

    def __init__(self, case: dict[str, Any], tmp: Path) -> None:
        self.case = case
        if "xlsx" in case:
            wb = Workbook()
            for row in case["xlsx"]:
                wb.active.append(row)
            path = tmp / f"{case['id']}.xlsx"
            wb.save(path)
            self.file = str(path)
        else:
            self.file = case.get("file", "")
        subst = {"{file}": self.file, "{dir}": ".", "{tmp}": str(tmp)}

        def fill(text: str) -> str:
            for key, value in subst.items():
                text = text.replace(key, value)
            return text

        self.args = [fill(a) for a in case.get("args", ["compare", "{file}"])]
        self.outputs = [Path(fill(case["output"]))] if "output" in case else []
        if self.args[0] == "compare" and "-o" not in self.args:
            out = tmp / "out.json"
            self.args += ["-o", str(out)]
            self.outputs.append(out)
        self.name = case.get("names", self.file)
        self.line = case.get("line") or self._marked_line()

    def _marked_line(self) -> int | None:
        if not self.file.endswith(".yaml"):
            return None
        raw = (CORPUS / self.file).read_bytes()
        for n, text in enumerate(raw.decode("utf-8", "replace").splitlines(), start=1):
            if "# BAD" in text:
                return n
        return None

    def check_message(self, stderr: str) -> None:
        lines = stderr.splitlines()
        assert len(lines) == 1, f"expected one line, got:\n{stderr}"
        msg = lines[0]
        assert msg.startswith("tco: error: "), msg
        assert "Traceback" not in msg
        assert self.name in msg, f"file {self.name!r} not named in: {msg}"
        if self.line:
            assert f"{self.name}:{self.line}: " in msg, f"line {self.line} not given in: {msg}"
        if self.case.get("field"):
            assert f"{self.case['field']}: " in msg, f"field not named in: {msg}"
        for part in self.case["expect"]:
            assert part in msg, f"{part!r} not in: {msg}"


@pytest.fixture
def in_corpus(monkeypatch: pytest.MonkeyPatch) -> None:
    # Case files are passed relative to the corpus, as a user would type them.
    monkeypatch.chdir(CORPUS)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_corpus_case(case: dict[str, Any], tmp_path: Path, in_corpus: None) -> None:
    p = Prepared(case, tmp_path)
    result = CliRunner().invoke(cli, p.args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"crashed: {result.exception!r}")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    p.check_message(result.stderr)
    for out in p.outputs:
        assert not out.exists(), f"{out} was written"
    assert not list(tmp_path.glob(".*.tmp")), "a temporary file was left behind"


def test_every_case_file_is_in_the_manifest() -> None:
    listed = {c["file"] for c in CASES if "file" in c}
    on_disk = {str(p.relative_to(CORPUS)) for p in CORPUS.rglob("*") if p.is_file()}
    assert on_disk - {"cases.yaml"} == listed


@pytest.mark.parametrize("case_id", ["typo-workload", "csv-negative", "quote-tflops-in-flops",
                                     "horizon-100", "alias-bomb"])
def test_previous_output_is_left_unchanged(case_id: str, tmp_path: Path, in_corpus: None
                                           ) -> None:
    out = tmp_path / "report.csv"
    out.write_text("previous report\n")
    p = Prepared(BY_ID[case_id], tmp_path)
    args = [a for a in p.args]
    args[args.index("-o") + 1] = str(out)
    result = CliRunner().invoke(cli, args + ["--format", "csv"])
    assert result.exit_code == 2
    assert out.read_text() == "previous report\n"
    assert sorted(x.name for x in tmp_path.iterdir()) == ["report.csv"]


def test_init_does_not_overwrite_without_force(tmp_path: Path) -> None:
    target = tmp_path / "mine.yaml"
    target.write_text("my scenario\n")
    result = CliRunner().invoke(cli, ["init", str(target)])
    assert result.exit_code == 2
    assert result.stderr == f"tco: error: {target}: file exists; use --force to overwrite\n"
    assert target.read_text() == "my scenario\n"


def test_very_large_file_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_bytes(b"name: x\n" + b"#" * MAX_FILE_BYTES)
    result = CliRunner().invoke(cli, ["validate", str(big)])
    assert result.exit_code == 2
    assert result.stderr == (f"tco: error: {big}: file is {MAX_FILE_BYTES + 8:,} bytes; "
                             f"the limit is {MAX_FILE_BYTES:,}\n")


def test_read_only_directory_via_chattr(tmp_path: Path) -> None:
    """Root ignores permission bits; an immutable directory still refuses new files."""
    chattr = shutil.which("chattr")
    locked = tmp_path / "locked"
    locked.mkdir()
    if chattr is None or subprocess.run([chattr, "+i", str(locked)], check=False,
                                        capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available on this filesystem")
    try:
        result = CliRunner().invoke(cli, ["compare", "-o", str(locked / "out.json")])
        assert result.exit_code == 2
        assert "cannot write" in result.stderr or "permission denied" in result.stderr
        assert "Traceback" not in result.output
        assert list(locked.iterdir()) == []
    finally:
        subprocess.run([chattr, "-i", str(locked)], check=True)


def _tco_script() -> str:
    script = Path(sys.executable).with_name("tco")
    if not script.exists():
        pytest.fail(f"console script {script} is missing: run `make install`")
    return str(script)


@pytest.mark.parametrize("runner, case_id", [
    ("module", "unknown-card"),
    ("module", "alias-bomb"),
    ("script", "csv-price-in-cents"),
    ("script", "output-proc"),
])
def test_through_a_real_process(runner: str, case_id: str, tmp_path: Path) -> None:
    """The console script and `python -m tco` behave as CliRunner does: no traceback, exit 2."""
    p = Prepared(BY_ID[case_id], tmp_path)
    cmd = [sys.executable, "-m", "tco"] if runner == "module" else [_tco_script()]
    proc = subprocess.run(cmd + p.args, cwd=CORPUS, capture_output=True, text=True, check=False,
                          env={**os.environ, "PYTHONWARNINGS": "ignore"}, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert proc.stdout == ""
    assert "Traceback" not in proc.stderr
    p.check_message(proc.stderr)
    for out in p.outputs:
        assert not out.exists()


def test_set_path_that_does_not_exist() -> None:
    result = CliRunner().invoke(cli, ["whatif", "--set", "facility.electricity_price=0.1"])
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    assert "no input 'facility.electricity_price'" in result.stderr
    assert "did you mean: facility.electricity_price_per_kwh" in result.stderr


def test_scenario_error_carries_file_field_and_line() -> None:
    """The parts of a message are also attributes, for callers other than the CLI."""
    text = ("workloads:\n  - id: w\n    params: 7e9\n    tokens: 1e11\n"
            "candidates:\n  - id: a\n    card: h100-sxm\n    cards: 8\n    mfu: 0.4\n"
            "    tdp: 700\n")
    with pytest.raises(ScenarioError) as info:
        load_scenario_text(text, "s.yaml")
    err = info.value
    assert (err.file, err.field, err.line) == ("s.yaml", "candidates.a.tdp", 10)
    assert err.message == "unknown field 'tdp' (did you mean: tdp_w?)"
