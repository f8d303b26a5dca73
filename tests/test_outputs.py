"""Output files (tco.fsio): devices and pipes are written into, never replaced; other special
files are refused; an output may not be one of the command's inputs or another output; modes
follow the umask, and an existing file keeps its own.

/dev/null itself is only written after the same command has left a private copy of it (a
device node made in the test's folder) or a FIFO in place, and is checked afterwards.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco import fsio
from tco.cli import cli
from tco.errors import OutputError

NULL = os.makedev(1, 3)  # Linux: mem major 1; null 3, full 7
FULL = os.makedev(1, 7)


def run(args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, args)
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


def is_char_device(path: Path | str, rdev: int) -> bool:
    st = os.stat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == rdev


def device(path: Path, rdev: int) -> Path:
    """A private device node (needs CAP_MKNOD, which root in a container usually has)."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, rdev)
    except (PermissionError, AttributeError):
        pytest.skip("cannot create device nodes here")
    if not os.path.exists("/dev/null") or not is_char_device("/dev/null", NULL):
        pytest.skip("no Linux /dev/null")
    return path


class FifoReader:
    """A FIFO and a thread that reads everything written into it until `close`."""

    def __init__(self, path: Path) -> None:
        os.mkfifo(path)
        self.path = path
        self.data = bytearray()
        self._rfd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        # A writer of our own, so that the reader sees no end of file before tco writes.
        self._wfd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.set_blocking(self._rfd, True)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        while chunk := os.read(self._rfd, 65536):
            self.data += chunk

    def close(self) -> bytes:
        if self._wfd >= 0:
            os.close(self._wfd)
            self._wfd = -1
            self._thread.join(timeout=30)
            assert not self._thread.is_alive()
            os.close(self._rfd)
        return bytes(self.data)


@contextlib.contextmanager
def fifo(path: Path) -> Iterator[FifoReader]:
    reader = FifoReader(path)
    try:
        yield reader
    finally:
        reader.close()


@pytest.fixture(autouse=True)
def dev_untouched() -> Iterator[None]:
    null = os.path.exists("/dev/null") and is_char_device("/dev/null", NULL)
    stdout = os.path.islink("/dev/stdout")
    yield
    if null:
        assert is_char_device("/dev/null", NULL), "/dev/null is no longer the null device"
    if stdout:
        assert os.path.islink("/dev/stdout"), "/dev/stdout is no longer a link"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# --- devices and pipes ---------------------------------------------------------------------


def test_write_output_streams_into_a_fifo(tmp_path: Path) -> None:
    with fifo(tmp_path / "pipe") as reader:
        fsio.write_output(reader.path, "hello\n" * 20000)  # more than a pipe buffer holds
        got = reader.close()
    assert got == b"hello\n" * 20000
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert leftovers(tmp_path) == ["pipe"]


def test_compare_output_into_a_fifo(tmp_path: Path) -> None:
    expected = CliRunner().invoke(cli, ["compare", "--format", "csv"]).stdout
    with fifo(tmp_path / "pipe") as reader:
        code, err = run(["compare", "--format", "csv", "-o", str(reader.path)])
        got = reader.close()
    assert (code, err) == (0, "")
    assert got.decode() == expected
    assert stat.S_ISFIFO(os.lstat(tmp_path / "pipe").st_mode)
    assert leftovers(tmp_path) == ["pipe"]


def test_workbook_and_report_into_fifos(tmp_path: Path) -> None:
    with fifo(tmp_path / "x") as xlsx, fifo(tmp_path / "h") as html:
        code, err = run(["report", "--draws", "0", "--xlsx", str(xlsx.path),
                         "--html", str(html.path)])
        book, page = xlsx.close(), html.close()
    assert (code, err) == (0, f"wrote {xlsx.path}\nwrote {html.path}\n")
    assert book.startswith(b"PK\x03\x04") and page.lstrip().startswith(b"<!DOCTYPE html>")
    assert leftovers(tmp_path) == ["h", "x"]


def test_a_failed_output_replaces_none_of_the_others(tmp_path: Path) -> None:
    """`tco report --xlsx book.xlsx --html <full device>` replaced the existing workbook, then
    failed on the page (exit status 2): the files are now written together, so the workbook
    that was there survives, and no temporary file is left beside it."""
    full = device(tmp_path / "full", FULL)
    book = tmp_path / "book.xlsx"
    book.write_bytes(b"the workbook of last week")
    code, err = run(["report", "--draws", "0", "--xlsx", str(book), "--html", str(full)])
    assert (code, err) == (2, f"tco: error: {full}: cannot write: No space left on device\n")
    assert book.read_bytes() == b"the workbook of last week"
    assert leftovers(tmp_path) == ["book.xlsx", "full"]


@pytest.mark.parametrize("args", [["compare", "-o", "{dir}/out.json/"],
                                  ["report", "--draws", "0", "--html", "{dir}/r.html/"],
                                  ["init", "{dir}/new/"]])
def test_an_output_name_ending_in_a_slash_is_a_directory(tmp_path: Path, args: list[str]
                                                         ) -> None:
    """`-o out.json/` wrote a file out.json (Path() drops the slash), as did `tco init new/`;
    a name ending in / names a directory, which is refused as an existing one is."""
    argv = [a.replace("{dir}", str(tmp_path)) for a in args]
    code, err = run(argv)
    assert (code, err) == (2, f"tco: error: {argv[-1]}: is a directory; give a file name\n")
    assert leftovers(tmp_path) == []


def test_write_outputs_stages_every_file_before_replacing_any(tmp_path: Path) -> None:
    full = device(tmp_path / "full", FULL)
    kept, new = tmp_path / "kept.txt", tmp_path / "new.txt"
    kept.write_text("before")
    with pytest.raises(OutputError, match="No space left on device"):
        fsio.write_outputs([(kept, "after"), (new, "new"), (full, "x")])
    assert kept.read_text() == "before" and leftovers(tmp_path) == ["full", "kept.txt"]
    fsio.write_outputs([(kept, "after"), (new, "new")])
    assert (kept.read_text(), new.read_text()) == ("after", "new")
    assert leftovers(tmp_path) == ["full", "kept.txt", "new.txt"]


def test_a_device_is_written_into_not_replaced(tmp_path: Path) -> None:
    null = device(tmp_path / "null", NULL)
    fsio.write_output(null, "x" * 100000)
    assert is_char_device(null, NULL)
    code, err = run(["compare", "--format", "json", "-o", str(null)])
    assert (code, err) == (0, "")
    assert is_char_device(null, NULL)
    assert leftovers(tmp_path) == ["null"]


def test_dev_null_stays_a_device() -> None:
    # First a private copy of /dev/null: if that were replaced, /dev/null would be too.
    probe = Path(os.environ.get("TMPDIR", "/tmp"))
    null = None
    with contextlib.suppress(PermissionError, OSError):
        null = probe / f"tco-test-null-{os.getpid()}"
        os.mknod(null, stat.S_IFCHR | 0o666, NULL)
    if null is None or not null.exists():
        pytest.skip("cannot create device nodes here")
    try:
        code, _ = run(["compare", "-o", str(null)])
        if code != 0 or not is_char_device(null, NULL):
            pytest.fail("a device given as output was replaced; not trying /dev/null")
    finally:
        null.unlink()
    code, err = run(["compare", "--format", "csv", "-o", "/dev/null"])
    assert (code, err) == (0, "")
    assert is_char_device("/dev/null", NULL)
    code, err = run(["init", "--force", "/dev/null"])
    # into a device, the scenario alone: no schema written beside it, in /dev
    assert code == 0 and err.endswith("wrote /dev/null\n") and "the scenario only" in err
    assert not Path("/dev/scenario.schema.json").exists()
    assert is_char_device("/dev/null", NULL)


def tco(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tco", *args], check=False,  # type: ignore[call-overload]
                          capture_output="stdout" not in kwargs, **kwargs)


def test_dev_stdout_into_a_pipe() -> None:
    plain = tco(["compare", "--format", "csv"])
    into = tco(["compare", "--format", "csv", "-o", "/dev/stdout"])
    assert into.returncode == 0 and into.stderr == b""
    assert into.stdout == plain.stdout


def test_dev_stdout_appended_to_a_file(tmp_path: Path) -> None:
    """`-o /dev/stdout >> log` appends: the bytes go into the descriptor the shell opened, not
    over the file (which a rename would replace, losing what it held)."""
    log = tmp_path / "log.csv"
    log.write_text("previous line\n")
    inode = log.stat().st_ino
    with open(log, "ab") as fh:
        done = tco(["compare", "--format", "csv", "-o", "/dev/stdout"], stdout=fh,
                   stderr=subprocess.PIPE)
    assert done.returncode == 0, done.stderr
    text = log.read_text()
    assert text.startswith("previous line\nid,name,")
    assert log.stat().st_ino == inode
    assert os.path.islink("/dev/stdout") or not os.path.exists("/dev/stdout")


def test_status_lines_stay_out_of_a_stdout_output() -> None:
    from tco.resources import example_scenario
    from tco.starters import MODELINE

    done = tco(["init", "--force", "/dev/stdout"])
    assert done.returncode == 0
    assert done.stdout == MODELINE.encode() + example_scenario().read_bytes()
    assert done.stderr.endswith(b"wrote /dev/stdout\n")  # the status on stderr only


def test_descriptor_not_open_for_writing() -> None:
    done = tco(["compare", "-o", "/dev/fd/0"], input=b"")  # a pipe's read end
    assert done.returncode == 2
    assert done.stderr == b"tco: error: /dev/fd/0: descriptor 0 is not open for writing\n"


def test_a_descriptor_is_named_in_ascii_digits_only() -> None:
    """/dev/fd/٣ (an Arabic-Indic three, which Python's \\d matches) was taken as descriptor 3;
    it is a file name in /dev/fd like any other."""
    assert fsio._descriptor(Path("/dev/fd/3")) == 3
    assert fsio._descriptor(Path("/proc/self/fd/12")) == 12
    assert fsio._descriptor(Path("/dev/fd/\u0663")) is None
    assert fsio._descriptor(Path("/proc/self/fd/\uff13")) is None  # a full-width three
    code, err = run(["compare", "-o", "/dev/fd/\u0663"])
    assert code == 2
    assert err == "tco: error: /dev/fd/\u0663: cannot write in '/dev/fd': No such file or directory\n"


def test_a_full_device_is_one_error(tmp_path: Path) -> None:
    full = device(tmp_path / "full", FULL)
    code, err = run(["compare", "-o", str(full)])
    assert code == 2
    assert err == f"tco: error: {full}: cannot write: No space left on device\n"
    assert is_char_device(full, FULL)


@pytest.mark.parametrize("args", [["schema"], ["validate", "{example}"], ["compare"],
                                  ["catalog", "show", "h100-sxm"], ["--help"], ["--version"]])
def test_a_full_standard_output_is_one_error(tmp_path: Path, args: list[str]) -> None:
    """`tco compare > /dev/full` was a traceback (OSError from click.echo); every command that
    prints names standard output, once, with exit status 2."""
    from tco.resources import example_scenario

    full = device(tmp_path / "full", FULL)
    with open(full, "wb") as fh:
        done = tco([a.replace("{example}", str(example_scenario())) for a in args], stdout=fh,
                   stderr=subprocess.PIPE)
    assert done.returncode == 2
    assert done.stderr == b"tco: error: standard output: cannot write: No space left on device\n"


def test_a_closed_standard_output_is_one_error() -> None:
    """`tco compare >&-` exited 0 having written nothing (the help and version text, written
    while click reads the command line, were a traceback on a full one: above)."""
    done = tco(["compare"], stdout=None, stderr=subprocess.PIPE,
               preexec_fn=lambda: os.close(1))
    assert done.returncode == 2
    assert done.stderr == b"tco: error: standard output: cannot write: it is closed\n"


def test_a_closed_standard_output_with_an_output_file_is_no_matter(tmp_path: Path) -> None:
    """`tco montecarlo -o FILE >&-` writes the file: standard output is not needed (its
    progress bar asked whether a closed standard output was a terminal: a traceback)."""
    out = tmp_path / "mc.txt"
    done = tco(["montecarlo", "--draws", "200", "-o", str(out)], stdout=None,
               stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    assert done.returncode == 0, done.stderr
    assert done.stderr == b"" and out.read_text().startswith("Monte Carlo: 200 draws")


def test_write_atomic_refuses_a_device(tmp_path: Path) -> None:
    """The atomic writer (used for the baseline cache) never renames over a special file."""
    null = device(tmp_path / "null", NULL)
    with pytest.raises(OutputError, match="is a character device, not a regular file"):
        fsio.write_atomic(null, "x")
    assert is_char_device(null, NULL)


def test_block_device_is_refused(tmp_path: Path) -> None:
    blk = tmp_path / "blk"
    try:
        os.mknod(blk, stat.S_IFBLK | 0o600, os.makedev(7, 250))
    except PermissionError:
        pytest.skip("cannot create device nodes here")
    code, err = run(["compare", "-o", str(blk)])
    assert code == 2
    assert err == (f"tco: error: {blk}: is a block device, not a regular file; "
                   "refusing to replace it\n")
    assert stat.S_ISBLK(os.lstat(blk).st_mode)


def test_socket_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        code, err = run(["report", "--html", str(path)])
    assert code == 2
    assert err == (f"tco: error: {path}: is a socket, not a regular file; "
                   "refusing to replace it\n")
    assert stat.S_ISSOCK(os.lstat(path).st_mode)


def test_symlink_is_followed_and_kept(tmp_path: Path) -> None:
    real = tmp_path / "real.json"
    real.write_text("old\n")
    link = tmp_path / "link.json"
    link.symlink_to(real.name)
    code, _ = run(["compare", "--format", "json", "-o", str(link)])
    assert code == 0
    assert link.is_symlink() and os.readlink(link) == "real.json"
    assert real.read_text().startswith("{")
    assert leftovers(tmp_path) == ["link.json", "real.json"]


# --- an output that is an input or another output ---------------------------------------------

SCENARIO = "name: t\nworkloads:\n  - {id: w, params: 7e9, tokens: 1e11}\n" \
           "candidates:\n  - {id: h100, card: h100-sxm, cards: 64}\n"
QUOTE = "id,field,value,source,as_of\nmi300x,price_usd,14500,Quote 1,2026-01-01\n"

ANALYSES = {
    "compare": [],
    "whatif": ["--set", "utilization=x0.9"],
    "sensitivity": [],
    "breakeven": ["--vary", "utilization", "--candidate", "h100", "--vs", "h100"],
    "montecarlo": ["--draws", "10"],
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    s = tmp_path / "s.yaml"
    s.write_text(SCENARIO)
    q = tmp_path / "q.csv"
    q.write_text(QUOTE)
    return s, q


@pytest.mark.parametrize("command", sorted(ANALYSES))
def test_output_over_the_scenario_is_refused(command: str, files: tuple[Path, Path]) -> None:
    s, _ = files
    code, err = run([command, str(s), *ANALYSES[command], "-o", str(s)])
    assert code == 2
    assert err == (f"tco: error: {s}: --output is the same file as SCENARIO '{s}', which tco "
                   "reads; write the output to another file\n")
    assert s.read_text() == SCENARIO
    assert leftovers(s.parent) == ["q.csv", "s.yaml"]


def test_output_over_a_quote_file_is_refused(files: tuple[Path, Path]) -> None:
    s, q = files
    code, err = run(["compare", str(s), "--catalog", str(q), "--format", "csv", "-o", str(q)])
    assert code == 2
    assert err == (f"tco: error: {q}: --output is the same file as --catalog '{q}', which tco "
                   "reads; write the output to another file\n")
    assert q.read_text() == QUOTE


def test_diff_output_over_either_scenario_is_refused(files: tuple[Path, Path]) -> None:
    s, _ = files
    b = s.with_name("b.yaml")
    b.write_text(SCENARIO)
    code, err = run(["diff", str(s), str(b), "-o", str(b)])
    assert code == 2
    assert "--output is the same file as SCENARIO_B" in err
    assert b.read_text() == SCENARIO


def test_same_file_by_another_name_is_refused(files: tuple[Path, Path]) -> None:
    """A hard link, a symbolic link and a path with '..' are the same file."""
    s, _ = files
    hard = s.with_name("hard.yaml")
    os.link(s, hard)
    soft = s.with_name("soft.yaml")
    soft.symlink_to(s.name)
    sub = s.parent / "sub"
    sub.mkdir()
    for other in (hard, soft, sub / ".." / "s.yaml"):
        code, err = run(["compare", str(s), "-o", str(other)])
        assert code == 2, other
        assert f"--output is the same file as SCENARIO '{s}'" in err
    assert s.read_text() == SCENARIO


def test_shipped_files_are_inputs_too(tmp_path: Path) -> None:
    from tco.resources import example_scenario, pricing_dir

    shipped = min(pricing_dir().iterdir())
    before = shipped.read_bytes()
    code, err = run(["compare", "-o", str(shipped)])
    assert code == 2
    assert f"--output is the same file as the shipped catalog '{shipped}'" in err
    assert shipped.read_bytes() == before
    code, err = run(["init", "--force", str(example_scenario())])
    assert code == 2
    assert "PATH is the same file as the built-in example scenario" in err


def test_two_outputs_on_one_file_are_refused(tmp_path: Path) -> None:
    x = tmp_path / "x"
    code, err = run(["report", "--xlsx", str(x), "--html", str(x)])
    assert code == 2
    assert err == (f"tco: error: {x}: --html is the same file as --xlsx '{x}'; give each "
                   "output its own file\n")
    assert leftovers(tmp_path) == []


def test_two_outputs_on_one_device_are_allowed(tmp_path: Path) -> None:
    null = device(tmp_path / "null", NULL)
    code, err = run(["report", "--draws", "0", "--xlsx", str(null), "--html", str(null)])
    assert (code, err) == (0, f"wrote {null}\nwrote {null}\n")
    assert is_char_device(null, NULL)


def test_check_outputs_rule() -> None:
    fsio.check_outputs([("--a", None), ("--b", None)], [("IN", None)])  # nothing given
    with pytest.raises(OutputError, match="--b is the same file as --a"):
        fsio.check_outputs([("--a", "out.txt"), ("--b", "./out.txt")])


# --- modes -----------------------------------------------------------------------------------


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


@pytest.mark.parametrize(("mask", "mode"), [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)])
def test_new_file_follows_the_umask(tmp_path: Path, mask: int, mode: int) -> None:
    out = tmp_path / "out.csv"
    with umask(mask):
        fsio.write_output(out, "a\n")
    assert stat.S_IMODE(out.stat().st_mode) == mode


@pytest.mark.parametrize(("mode", "mask"), [(0o600, 0o022), (0o640, 0o077), (0o664, 0o000)])
def test_existing_file_keeps_its_mode(tmp_path: Path, mask: int, mode: int) -> None:
    out = tmp_path / "out.csv"
    out.write_text("old\n")
    out.chmod(mode)
    with umask(mask):
        code, _ = run(["compare", "--format", "csv", "-o", str(out)])
    assert code == 0
    assert out.read_text().startswith("id,")
    assert stat.S_IMODE(out.stat().st_mode) == mode


def test_cli_new_file_under_a_private_umask(tmp_path: Path) -> None:
    with umask(0o077):
        code, _ = run(["init", str(tmp_path / "s.yaml")])
    assert code == 0
    assert stat.S_IMODE((tmp_path / "s.yaml").stat().st_mode) == 0o600


def test_private_mode_is_exact(tmp_path: Path) -> None:
    """The baseline cache asks for 0600 whatever the umask or the previous mode."""
    out = tmp_path / "kept.pickle"
    out.write_text("old")
    out.chmod(0o666)
    with umask(0o000):
        fsio.write_atomic(out, b"new", mode=0o600)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600



TRAIN_W = ("  - {id: w, kind: pretrain, params: 7.0e+9, tokens: 1.0e+11, precision: bf16, "
           "runs_per_year: 20}\n")
SERVE_CHAT = ("  - {id: chat, kind: serve, params: 7.0e+10, precision: fp8, layers: 80, "
              "kv_heads: 8, head_dim: 128, input_tokens_per_day: 2.0e+8, "
              "output_tokens_per_day: 5.0e+7, peak_to_average: 2, prompt_tokens: 2000, "
              "output_tokens: 500, ttft_ms: 2000, tpot_ms: 50}\n")
PARTS = ("name: parts of the plan in the table\ncurrency: USD\nrent_options: none\n"
         "workloads:\n{workloads}candidates:\n"
         "  - {{id: both, card: h100-sxm, cards: 64}}\n"
         "  - {{id: serve-only, card: mi300x, cards: 16, workloads: [chat]}}\n"
         "  - {{id: train-only, card: h100-sxm, cards: 64, workloads: [w]}}\n")


@pytest.mark.parametrize("serve_first", [False, True])
def test_the_table_shows_no_figures_of_a_workload_an_option_does_not_carry(
        tmp_path, serve_first):
    """The table's run columns are the plan's first workload's; an option carrying only the
    other one has none of them (it crashed with a KeyError where it carried only the serving
    workload of a plan that trains first)."""
    path = tmp_path / "parts.yaml"
    path.write_text(PARTS.format(workloads=SERVE_CHAT + TRAIN_W if serve_first
                                 else TRAIN_W + SERVE_CHAT))
    got = CliRunner().invoke(cli, ["compare", str(path)], prog_name="tco")
    assert got.exit_code == 0, got.output
    other = "train-only" if serve_first else "serve-only"
    row = next(line for line in got.output.splitlines() if f"  {other}  " in line)
    cells = row.split()
    assert cells[4:7] == ["-", "-", "-"], row  # its first workload's columns
    assert cells[8] == "n/a", row  # and no cost per run (or per million tokens) of it


def test_output_over_an_ingested_file_names_it_once(tmp_path: Path) -> None:
    """`tco ingest a.json -o a.json` said 'the same file as FILE a.json 'a.json''."""
    bench = tmp_path / "a.json"
    bench.write_text("{}\n")
    code, err = run(["ingest", str(bench), "-o", str(bench)])
    assert code == 2
    assert err == (f"tco: error: {bench}: --output is the same file as FILE {bench}, which tco "
                   "reads; write the output to another file\n")
    assert bench.read_text() == "{}\n"
