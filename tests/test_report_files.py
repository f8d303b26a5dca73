"""`tco report` writing the workbook in a forked child while the analyses run
(tco/exporters/report_files.py): the same files as one after the other, and a failure on
either side is one clear error with nothing written and nothing left behind."""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
from datetime import date
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco.analysis import report_analyses
from tco.catalog import load_catalog
from tco.cli import cli
from tco.engine import compute
from tco.errors import TcoError
from tco.exporters import report_files
from tco.exporters.report_files import (
    ReportFiles,
    WorkbookProcessError,
    can_fork,
    write_report_files,
)
from tco.exporters.xlsx import workbook as xlsx_workbook
from tco.scenario import load_scenario

DAY = date(2026, 2, 3)
forking = pytest.mark.skipif(not can_fork(), reason="this platform does not fork")


@pytest.fixture
def private_tmp(tmp_path, monkeypatch):
    """The system's temporary directory for this test: whatever the report leaves in it shows."""
    tmp = tmp_path / "system-tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    return tmp


def fresh():
    """A newly computed example (each report adds its analyses to the Result)."""
    catalog = load_catalog()
    loaded = load_scenario()
    return loaded, catalog, compute(loaded, catalog)


def report(out: Path, parallel: bool, **kw: object) -> dict[str, bytes]:
    loaded, catalog, result = fresh()
    files = ReportFiles(xlsx=str(out / "x.xlsx"), html=str(out / "x.html"), lang="en",
                        day=DAY)
    wrote: list[str] = []
    write_report_files(result, files,
                       lambda: report_analyses(loaded, catalog, draws=300, seed=4,
                                               result=result),
                       wrote.append, parallel=parallel, **kw)
    assert wrote == [files.xlsx, files.html]
    return {name: (out / name).read_bytes() for name in ("x.xlsx", "x.html")}


def test_sequential_report_writes_the_same_files_as_the_separate_exporters(tmp_path):
    """The sequential path is the reference: it writes what workbook_bytes and render_html
    give for the Result with its analyses."""
    from tco.exporters.html import render_html
    from tco.exporters.xlsx import workbook_bytes

    got = report(tmp_path, parallel=False)
    loaded, catalog, result = fresh()
    result.analyses.update(report_analyses(loaded, catalog, draws=300, seed=4, result=result))
    assert got["x.xlsx"] == workbook_bytes(result, generated=DAY)
    assert got["x.html"] == render_html(result, "en", "a4", DAY).encode("utf-8")


@forking
def test_the_child_writes_the_same_files_as_one_after_the_other(tmp_path, monkeypatch,
                                                                 private_tmp):
    seq, par = tmp_path / "seq", tmp_path / "par"
    seq.mkdir()
    par.mkdir()
    drafted_in = tmp_path / "pid"
    init = xlsx_workbook.Draft.__init__

    def noting_pid(self, *args, **kwargs):
        drafted_in.write_text(str(os.getpid()))
        init(self, *args, **kwargs)

    monkeypatch.setattr(xlsx_workbook.Draft, "__init__", noting_pid)
    expected = report(seq, parallel=False)
    assert int(drafted_in.read_text()) == os.getpid()
    assert report(par, parallel=True) == expected
    assert int(drafted_in.read_text()) != os.getpid()  # the workbook was written by a child
    assert sorted(p.name for p in par.iterdir()) == ["x.html", "x.xlsx"]
    assert list(private_tmp.iterdir()) == []  # the child's temporary files are gone
    assert multiprocessing.active_children() == []


def run_cli(tmp_path: Path, *extra: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["report", "--xlsx", str(tmp_path / "x.xlsx"),
                                      "--html", str(tmp_path / "x.html"), *extra])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


@forking
def test_an_error_in_the_child_is_one_message_and_nothing_is_written(tmp_path, monkeypatch,
                                                                      private_tmp):
    def fail(self, analyses):
        raise TcoError("cannot write the workbook: planted failure", file="x.xlsx")

    monkeypatch.setattr(xlsx_workbook.Draft, "finish", fail)
    (tmp_path / "out").mkdir()
    code, err = run_cli(tmp_path / "out", "--draws", "100")
    assert code == 2
    assert err == "tco: error: x.xlsx: cannot write the workbook: planted failure\n"
    assert list((tmp_path / "out").iterdir()) == []  # no workbook, and no report either
    assert list(private_tmp.iterdir()) == []
    assert multiprocessing.active_children() == []


@forking
def test_a_child_that_dies_is_reported_as_such(tmp_path, monkeypatch, private_tmp):
    def die(self, analyses):
        os.kill(os.getpid(), signal.SIGKILL)

    monkeypatch.setattr(xlsx_workbook.Draft, "finish", die)
    (tmp_path / "out").mkdir()
    code, err = run_cli(tmp_path / "out", "--draws", "100")
    assert code == 2
    assert err == ("tco: error: the process writing the workbook stopped (signal SIGKILL); "
                   "nothing was written\n")
    assert list((tmp_path / "out").iterdir()) == []
    assert list(private_tmp.iterdir()) == []


@forking
def test_a_bug_in_the_child_comes_back_with_its_traceback(tmp_path, monkeypatch, private_tmp):
    def bug(self, analyses):
        raise ZeroDivisionError("planted bug")

    monkeypatch.setattr(xlsx_workbook.Draft, "finish", bug)
    with pytest.raises(RuntimeError) as info:
        report(tmp_path, parallel=True)
    assert "writing the workbook failed in its process" in str(info.value)
    assert "ZeroDivisionError: planted bug" in str(info.value)
    assert list(tmp_path.iterdir()) == [private_tmp]
    assert list(private_tmp.iterdir()) == []


@forking
def test_an_error_in_the_analyses_stops_the_child(tmp_path, private_tmp):
    """A bad option found by the analyses (after the child started): the usual message, the
    child stopped at once, nothing written or left."""
    code, err = run_cli(tmp_path, "--draws", "-5")
    assert code == 2 and err.startswith("tco: error: --draws -5:")
    assert err.count("\n") == 1
    assert list(tmp_path.iterdir()) == [private_tmp]
    assert list(private_tmp.iterdir()) == []
    assert multiprocessing.active_children() == []


@forking
def test_an_error_in_the_report_stops_the_child(tmp_path, monkeypatch, private_tmp):
    def fail(*args, **kwargs):
        raise TcoError("planted report failure")

    monkeypatch.setattr(report_files, "_render_report", fail)
    with pytest.raises(TcoError, match="planted report failure"):
        report(tmp_path, parallel=True)
    assert list(tmp_path.iterdir()) == [private_tmp]
    assert list(private_tmp.iterdir()) == []
    assert multiprocessing.active_children() == []


def test_without_fork_the_files_are_written_in_turn(tmp_path, monkeypatch, private_tmp):
    """Where the platform cannot fork, no child is started and the files are the same."""
    monkeypatch.setattr(report_files, "can_fork", lambda: False)

    def no_child(*args, **kwargs):
        raise AssertionError("no child may be started")

    monkeypatch.setattr(report_files, "_WorkbookChild", no_child)
    (tmp_path / "a").mkdir()
    code, err = run_cli(tmp_path / "a", "--draws", "100")
    assert code == 0 and err == (f"wrote {tmp_path / 'a' / 'x.xlsx'}\n"
                                 f"wrote {tmp_path / 'a' / 'x.html'}\n")


def test_the_child_status_is_named():
    assert report_files._status(-signal.SIGTERM) == "signal SIGTERM"
    assert report_files._status(3) == "exit status 3"
    assert issubclass(WorkbookProcessError, TcoError)


class Unpicklable:
    def __reduce__(self):
        raise TypeError("planted: cannot be sent")


@forking
def test_analyses_that_cannot_be_sent_stop_the_child_without_a_hang(tmp_path, private_tmp):
    """Only the analyses the workbook shows are sent (another, whatever it holds, stays
    here); one that cannot be sent is raised here, and the waiting child is stopped."""
    loaded, catalog, result = fresh()
    files = ReportFiles(xlsx=str(tmp_path / "x.xlsx"), day=DAY)

    def analyses(extra):
        return lambda: {**report_analyses(loaded, catalog, draws=0, result=result), **extra}

    write_report_files(result, files, analyses({"other": lambda: None}), parallel=True)
    assert (tmp_path / "x.xlsx").exists()
    (tmp_path / "x.xlsx").unlink()
    loaded, catalog, result = fresh()
    with pytest.raises(TypeError, match="planted: cannot be sent"):
        write_report_files(result, files, analyses({"montecarlo": Unpicklable()}),
                           parallel=True)
    assert list(tmp_path.iterdir()) == [private_tmp]
    assert list(private_tmp.iterdir()) == []
    assert multiprocessing.active_children() == []


@pytest.mark.skipif(not can_fork(), reason="the workbook is forked only where fork is safe")
def test_a_process_that_has_planned_before_can_still_fork_the_workbook(tmp_path):
    """A process that ran the planner (HiGHS) once, then writes a second scenario's report
    with its workbook in a forked child: the child must not solve (HiGHS's worker threads do
    not survive a fork; it waited for them for ever inside the test suite). Run in its own
    interpreter with a time limit, so that a hang is a failure and not a stuck suite."""
    import subprocess
    import sys

    code = (
        "from pathlib import Path\n"
        "from tco.analysis import report_analyses\n"
        "from tco.catalog import load_catalog\n"
        "from tco.engine import compute\n"
        "from tco.exporters.report_files import ReportFiles, write_report_files\n"
        "from tco.scenario import load_scenario\n"
        "catalog = load_catalog()\n"
        "compute(load_scenario(), catalog).plans\n"
        "loaded = load_scenario()\n"
        "result = compute(loaded, catalog)\n"
        f"files = ReportFiles(xlsx=str(Path({str(tmp_path)!r}) / 'r.xlsx'))\n"
        "write_report_files(result, files, lambda: report_analyses(loaded, catalog, draws=0,\n"
        "                  result=result), parallel=True)\n"
        "print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, check=False)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
    assert (tmp_path / "r.xlsx").stat().st_size > 10_000


def test_a_draft_adds_each_analysis_sheet_as_it_comes_in_the_workbook_order():
    """Draft.add writes an analysis's sheet at once when the sheets before it are written
    (the report's child writes the sensitivity's while the Monte Carlo runs), keeps one
    that comes early until then, and finish gives the bytes of writing it all at once."""
    from tco.exporters.xlsx.layout import MONTECARLO, SENSITIVITY

    loaded, catalog, result = fresh()
    analyses = report_analyses(loaded, catalog, draws=300, seed=4, result=result)
    result.analyses.update(analyses)
    expected = xlsx_workbook.workbook_bytes(result, generated=DAY)
    draft = xlsx_workbook.Draft(result, generated=DAY)
    draft.add("montecarlo", analyses["montecarlo"])
    assert MONTECARLO not in draft.sheets  # waits for the sensitivity's sheet
    draft.add("sensitivity", analyses["sensitivity"])
    assert SENSITIVITY in draft.sheets and MONTECARLO in draft.sheets
    assert draft.finish({}) == expected
