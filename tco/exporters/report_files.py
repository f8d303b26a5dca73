"""`tco report`'s files: the workbook written in a second process while the analyses run.

The workbook and the HTML/PDF report each consume the one Result. Where this process can fork
(Linux), a child process, which shares the computed Result with it, writes the larger part of
the workbook (every sheet that needs only the Result: tco.exporters.xlsx.workbook.Draft)
while this process runs the analyses; the child takes each analysis as soon as it is done
and adds its sheet (the sensitivity's while the Monte Carlo runs), then zips the file while
this process renders the HTML and PDF. Elsewhere, or without a
workbook, the same steps run one after the other. Either way the files are the same.

Every file is made before any is written; then they are written whole and together
(tco.fsio.write_outputs: a file that cannot be written replaces none of the others). An error
anywhere, in either process, writes no file: a
TcoError from the child is raised here with its message (the CLI prints it on one line, exit
status 2); a child that stops without a word is reported as such; any other failure in the
child is raised with the child's traceback. The child's temporary files are in a directory
of this process's own, removed whatever happens.
"""

from __future__ import annotations

import datetime as dt
import multiprocessing
import queue
import shutil
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Self

from ..errors import TcoError
from ..fsio import write_outputs
from ..gcpause import paused_gc
from ..result import Result

# the analyses, all at once or one at a time as each is done ((name, analysis) pairs)
_STOP = object()  # the sender thread stops without sending more
Analyses = Callable[[], Mapping[str, object] | Iterable[tuple[str, object]]]


@dataclass(frozen=True)
class ReportFiles:
    """Which files `tco report` writes (None: not asked for), and how."""

    xlsx: str | None = None
    html: str | None = None
    pdf: str | None = None
    lang: str = "en"
    paper: str = "a4"
    day: dt.date | None = None  # the date every file shows (tco.dates.output_date)


class WorkbookProcessError(TcoError):
    """The process writing the workbook stopped before it gave the file back."""


def can_fork() -> bool:
    """True where the workbook may be written by a forked child: a platform that has fork
    and where forking a process that has loaded numpy is safe (not macOS, whose system
    libraries may not survive a fork)."""
    return "fork" in multiprocessing.get_all_start_methods() and sys.platform != "darwin"


def write_report_files(result: Result, files: ReportFiles, analyses: Analyses,
                       wrote: Callable[[str], None] = lambda path: None,
                       parallel: bool | None = None) -> None:
    """Run `analyses()` into `result.analyses` and write `files` (module docstring);
    `wrote(path)` is called after each file is written. `parallel` None forks a child for
    the workbook where can_fork() allows; False never does."""
    if parallel is None:
        parallel = can_fork()
    if files.xlsx and parallel:
        # the plans are solved here, before the fork: a forked child cannot run the solver
        # (HiGHS's worker threads do not survive a fork; the child would wait for them)
        result.plans  # noqa: B018 (computed once, lazily)
        with _WorkbookChild(result, files) as child:
            for name, analysis in _pairs(analyses()):
                result.analyses[name] = analysis
                child.send(name, analysis)
            child.sent_all()
            report = _render_report(result, files)
            book: bytes | None = child.receive()
    else:
        result.analyses.update(_pairs(analyses()))
        book = _workbook(result, files) if files.xlsx else None
        report = _render_report(result, files)
    html, pdf = report
    written = [(path, data) for path, data in ((files.xlsx, book), (files.html, html),
                                               (files.pdf, pdf)) if path and data is not None]
    write_outputs(written)  # all or none: a failed --html keeps the --xlsx that was there
    for path, _ in written:
        wrote(path)


def _pairs(analyses: Mapping[str, object] | Iterable[tuple[str, object]]
           ) -> Iterable[tuple[str, object]]:
    return analyses.items() if isinstance(analyses, Mapping) else analyses


def _workbook(result: Result, files: ReportFiles) -> bytes:
    from .xlsx import workbook_bytes

    return workbook_bytes(result, generated=files.day, lang=files.lang)


def _render_report(result: Result, files: ReportFiles) -> tuple[str | None, bytes | None]:
    """(the HTML page, the PDF), each None when not asked for; the page is rendered once."""
    if not (files.html or files.pdf):
        return None, None
    from .html import render_html

    html = render_html(result, files.lang, files.paper, files.day)
    if not files.pdf:
        return html, None
    from .pdf import html_to_pdf

    return html, html_to_pdf(html)


class _WorkbookChild:
    """The forked process writing the workbook: started on entering, stopped (if it has not
    finished) and its temporary directory removed on leaving."""

    def __init__(self, result: Result, files: ReportFiles) -> None:
        self.result, self.files = result, files

    def __enter__(self) -> Self:
        ctx = multiprocessing.get_context("fork")
        self.tmpdir = tempfile.mkdtemp(prefix="tco-workbook-")
        self.conn, child_conn = ctx.Pipe()
        self.sender: threading.Thread | None = None
        self.outbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self.send_error: BaseException | None = None
        self.proc = ctx.Process(target=_child_main, name="tco-workbook", daemon=True,
                                args=(child_conn, self.result, self.files, self.tmpdir))
        try:
            self.proc.start()
        except BaseException:
            self.conn.close()
            shutil.rmtree(self.tmpdir, ignore_errors=True)
            raise
        finally:
            child_conn.close()
        return self

    def send(self, name: str, analysis: object) -> None:
        """Hand over an analysis the workbook shows (others stay here) without waiting for
        the child to take it (it may still be writing its first sheets): a thread sends
        them in order while this process goes on; receive() raises what stopped it."""
        from .xlsx.workbook import WORKBOOK_ANALYSES

        if name in WORKBOOK_ANALYSES:
            self._outbox().put((name, analysis))

    def sent_all(self) -> None:
        """No more analyses: the child adds the last sheets and zips the file."""
        self._outbox().put(None)

    def _outbox(self) -> queue.SimpleQueue[Any]:
        if self.sender is None:
            self.sender = threading.Thread(target=self._send_each, name="tco-send-analyses",
                                           daemon=True)
            self.sender.start()
        return self.outbox

    def _send_each(self) -> None:
        """The sender thread: each item of the outbox to the child, up to the end (None)
        or to _STOP (this process gives up), or until a send fails."""
        while (item := self.outbox.get()) is not _STOP:
            try:
                self.conn.send(item)
            except OSError:  # the child is gone; receive() says why
                return
            except BaseException as exc:  # noqa: BLE001 - raised by receive()
                self.send_error = exc
                return
            if item is None:
                return

    def receive(self) -> bytes:
        """The workbook's bytes, or the child's error raised here."""
        if self.sender is not None:
            self.sender.join()
            if self.send_error is not None:
                raise self.send_error
        try:
            kind, payload = self.conn.recv()
        except (EOFError, OSError):
            self.proc.join()
            raise WorkbookProcessError(
                f"the process writing the workbook stopped ({_status(self.proc.exitcode)}); "
                "nothing was written") from None
        if kind == "ok":  # the file follows as it is (not pickled: a copy less on each side)
            try:
                book = self.conn.recv_bytes()
            except (EOFError, OSError):
                book = None
            self.proc.join()
            if book is None:
                raise WorkbookProcessError(
                    f"the process writing the workbook stopped ({_status(self.proc.exitcode)}) "
                    "while giving the file back; nothing was written")
            return book
        self.proc.join()
        if kind == "error":
            raise TcoError(payload)
        raise RuntimeError(f"writing the workbook failed in its process:\n{payload}")

    def __exit__(self, *exc: object) -> None:
        try:
            if self.proc.is_alive():
                self.proc.terminate()
            self.proc.join()
            if self.sender is not None:
                self.outbox.put(_STOP)  # (after the end, or after a failed send: not read)
                self.sender.join()
            self.conn.close()
        finally:
            shutil.rmtree(self.tmpdir, ignore_errors=True)


def _status(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"signal {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"signal {-exitcode}"
    return f"exit status {exitcode}"


def _child_main(conn: Any, result: Result, files: ReportFiles, tmpdir: str) -> None:
    """In the child: the draft, then the analyses from the parent, then the file back. The
    parent stops the child when it gives up (Ctrl-C reaches the parent, which stops it)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from .xlsx.workbook import Draft

        with paused_gc():
            draft = Draft(result, generated=files.day, lang=files.lang, tmpdir=tmpdir)
            analyses: dict[str, object] = {}
            try:
                while (item := conn.recv()) is not None:  # each sheet as its analysis comes
                    analyses[item[0]] = item[1]
                    draft.add(*item)
            except EOFError:  # the parent gave up
                draft.discard()
                return
            book = draft.finish(analyses)
            del draft  # its sheets and plan, let go before the file is sent
            message: tuple[str, object] = ("ok", len(book))
    except TcoError as exc:
        message = ("error", exc.render())
    except BaseException:  # noqa: BLE001 - given back to the parent, which raises it
        message = ("crash", traceback.format_exc())
    try:
        conn.send(message)
        if message[0] == "ok":
            conn.send_bytes(book)
    except OSError:  # the parent is gone
        pass
