"""Writing output files without losing what is already on disk.

* A regular file is written whole or not at all: the bytes go to a temporary file beside it,
  which is then renamed over it. A failed or interrupted export leaves the previous file intact.
* Its mode: a file that exists keeps its mode; a new file gets 0666 less the umask, as any
  other program's output does.
* A symbolic link is followed: the file it points to is replaced, the link stays.
* A character device or a FIFO (/dev/null, a terminal, a named pipe) is never replaced:
  `write_output` writes the bytes into it as a stream. Other special files (block devices,
  sockets) are refused.
* /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N name a descriptor the process already
  has open: the bytes are written into that descriptor, wherever it leads, as a shell's `>` or
  `>>` left it (`tco compare -o /dev/stdout >> log.csv` appends).
* `check_outputs` refuses, before any work, an output that is one of the command's inputs or
  another of its outputs (same resolved path, or same device and inode: hard links count).
  Streams are exempt, since writing into them replaces nothing stored:
  `--xlsx /dev/null --html /dev/null` is allowed.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from .errors import OutputError

# One file a command reads or writes, with the role that names it in messages
# ("--output", "--xlsx", "SCENARIO", "--catalog", ...). A None path is skipped.
Named = tuple[str, Path | str | None]

# ASCII digits: Python's \d would take /dev/fd/٣ (an Arabic-Indic three) as descriptor 3
_DESCRIPTOR = re.compile(r"/dev/(?:(stdout)|(stderr)|fd/([0-9]+))|/proc/self/fd/([0-9]+)")


@dataclass(frozen=True)
class _Target:
    """Where writing a path the user gave goes."""

    given: Path
    path: Path  # the file replaced or opened: `given` with a final symbolic link followed
    st: os.stat_result | None  # None: does not exist yet
    fd: int | None = None  # an open descriptor named by /dev/stdout and the like

    @property
    def stream(self) -> bool:
        return self.fd is not None or _is_stream(self.st)


def _is_stream(st: os.stat_result | None) -> bool:
    return st is not None and (stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode))


def _descriptor(p: Path) -> int | None:
    if os.name != "posix":
        return None
    m = _DESCRIPTOR.fullmatch(os.path.normpath(p))
    if m is None:
        return None
    return 1 if m[1] else 2 if m[2] else int(m[3] or m[4])


def _kind(st: os.stat_result) -> str:
    m = st.st_mode
    return ("a block device" if stat.S_ISBLK(m) else "a socket" if stat.S_ISSOCK(m)
            else "a character device" if stat.S_ISCHR(m) else "a FIFO" if stat.S_ISFIFO(m)
            else "not a regular file")


def _fail(p: Path, exc: OSError) -> OutputError:
    return OutputError(f"cannot write: {exc.strerror or exc}", file=str(p))


def _target(p: Path) -> _Target:
    fd = _descriptor(p)
    if fd is not None:
        import fcntl

        try:
            flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        except OSError:
            raise OutputError(f"descriptor {fd} is not open", file=str(p)) from None
        if flags & os.O_ACCMODE not in (os.O_WRONLY, os.O_RDWR):
            raise OutputError(f"descriptor {fd} is not open for writing", file=str(p))
        return _Target(p, p, os.fstat(fd), fd)
    try:
        st: os.stat_result | None = os.stat(p)
    except (FileNotFoundError, NotADirectoryError):  # the parent's problem, reported below
        st = None
    except OSError as exc:
        raise _fail(p, exc) from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        return _Target(p, p, st)  # opened by its own name, if at all
    return _Target(p, Path(os.path.realpath(p)) if os.path.islink(p) else p, st)


def _temp_beside(p: Path, mode: int = 0o600) -> tuple[int, str]:
    """A new, empty file beside `p`, created with `mode` (the kernel applies the umask)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = p.parent / f".{p.name}.{secrets.token_hex(4)}.tmp"
        try:
            return os.open(tmp, flags, mode), str(tmp)
        except FileExistsError:
            continue
        except OSError as exc:
            raise OutputError(f"cannot write in '{p.parent}': {exc.strerror}",
                              file=str(p)) from None
    raise OutputError(f"cannot write in '{p.parent}': no free temporary name", file=str(p))


def _check(path: Path | str, streams: bool) -> _Target:
    t = _target(Path(path))
    p, st = t.given, t.st
    if (st is not None and stat.S_ISDIR(st.st_mode)) or str(path).endswith(("/", os.sep)):
        # `out.json/` names a directory: Path() drops the slash and would write out.json
        raise OutputError("is a directory; give a file name", file=str(path))
    if streams and t.stream:
        if t.fd is None and not os.access(t.path, os.W_OK):
            raise OutputError("permission denied: cannot write here", file=str(p))
        return t
    if t.fd is not None or (st is not None and not stat.S_ISREG(st.st_mode)):
        what = "an open descriptor" if st is None or stat.S_ISREG(st.st_mode) else _kind(st)
        raise OutputError(f"is {what}, not a regular file; refusing to replace it",
                          file=str(p))
    parent = t.path.parent
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"'{parent}' is a file, not a directory", file=str(p))
    if not parent.is_dir():
        raise OutputError(f"directory '{parent}' does not exist", file=str(p))
    if not os.access(parent, os.W_OK) or (st is not None and not os.access(t.path, os.W_OK)):
        raise OutputError("permission denied: cannot write here", file=str(p))
    fd, tmp = _temp_beside(t.path)
    os.close(fd)
    os.unlink(tmp)
    return t


def check_writable(path: Path | str) -> Path:
    """Fail early, before any work, when `write_output(path, ...)` could not write.

    Permission bits do not tell the whole story (root may write anywhere the bits say, but not
    in /proc or on a read-only mount), so a temporary file is created and removed beside a
    regular file. A character device or FIFO is only checked for permission: opening a FIFO
    would wait for its reader.
    """
    return _check(path, streams=True).given


def _identity(p: Path) -> tuple[str, tuple[int, int] | None, bool]:
    """(resolved path, (device, inode) when it exists, is written as a stream)."""
    real = os.path.realpath(p)
    try:
        st = os.stat(p)
    except OSError:
        return real, None, False
    return real, (st.st_dev, st.st_ino), _is_stream(st) or _descriptor(p) is not None


def is_stream(path: Path | str) -> bool:
    """Written into as a stream (a character device, a FIFO, an open descriptor such as
    /dev/stdout), never replaced."""
    return _identity(Path(path))[2]


def check_outputs(outputs: Iterable[Named], inputs: Iterable[Named] = ()) -> None:
    """Fail early, before any work, when an output cannot be written, is one of the command's
    inputs (it would be overwritten before, or while, being read), or is another output (one
    would silently replace the other)."""
    outs = [(role, Path(p)) for role, p in outputs if p]
    known = [(True, role, Path(p), _identity(Path(p))) for role, p in inputs if p]
    for role, p in outs:
        real, inode, stream = _identity(p)
        for is_input, other_role, other, (o_real, o_inode, o_stream) in known:
            if stream or o_stream or not (real == o_real or (inode and inode == o_inode)):
                continue
            # a role may name its file already (`FILE a.json`, one of several)
            named = other_role if other_role.endswith(f" {other}") else f"{other_role} '{other}'"
            if is_input:
                raise OutputError(f"{role} is the same file as {named}, which tco reads; write "
                                  "the output to another file", file=str(p))
            raise OutputError(f"{role} is the same file as {named}; give each output its own "
                              "file", file=str(p))
        known.append((False, role, p, (real, inode, stream)))
    for _, p in outs:
        check_writable(p)


def write_output(path: Path | str, data: bytes | str) -> Path:
    """Write a file the user named: atomically (`write_atomic`) when it is a regular file or
    does not exist yet; as a stream into a character device, a FIFO or an open descriptor,
    which stays what it is; any other kind of file is refused."""
    t = _check(path, streams=True)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if not t.stream:
        return write_atomic(t.given, raw)
    if t.fd is not None:
        for f in (sys.stdout, sys.stderr):  # what was printed comes first
            try:
                f.flush()
            except (OSError, ValueError, AttributeError):
                pass
        _write_all(t.given, t.fd, raw)
        return t.given
    flags = os.O_WRONLY | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:  # no O_CREAT, no O_TRUNC: the device or pipe is written into, never made anew
        fd = os.open(t.path, flags)
    except OSError as exc:
        raise _fail(t.given, exc) from None
    try:
        if not _is_stream(os.fstat(fd)):  # replaced between the check and the open
            raise OutputError("changed while being opened; nothing written", file=str(t.given))
        _write_all(t.given, fd, raw)
    finally:
        os.close(fd)
    return t.given


def _write_all(p: Path, fd: int, raw: bytes) -> None:
    view = memoryview(raw)
    try:
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        raise  # the reader went away, as with `tco ... | head`: the CLI stops quietly
    except OSError as exc:
        raise _fail(p, exc) from None


def write_atomic(path: Path | str, data: bytes | str, *, mode: int | None = None) -> Path:
    """Write a regular file: to a temporary file beside `path`, then renamed over it.

    The file keeps its mode when it exists, else gets 0666 less the umask; `mode` sets it
    exactly instead (for private files). Special files are refused, never replaced.
    """
    t = _check(path, streams=False)
    _commit(_stage(t, data, mode), t)
    return t.given


def write_outputs(files: Sequence[tuple[Path | str, bytes | str]]) -> None:
    """Write several files the user named (`tco report --xlsx --html --pdf`, `tco init`) as
    one: each regular file is first written whole into a temporary file beside it, then the
    streams (`write_output`) are written into, and only then is each temporary file renamed
    over its file. A failure on the way (a full disk, `--html /dev/full`) replaces none of
    them, so a file that existed before the run survives it, and leaves no temporary file."""
    staged: list[tuple[str, _Target]] = []
    streams: list[tuple[Path | str, bytes | str]] = []
    try:
        for path, data in files:
            t = _check(path, streams=True)
            if t.stream:
                streams.append((path, data))
            else:
                staged.append((_stage(t, data), t))
        for path, data in streams:
            write_output(path, data)
        while staged:
            _commit(*staged.pop(0))
    finally:
        for tmp, _ in staged:  # left by a failure: nothing replaced
            with contextlib.suppress(OSError):
                os.unlink(tmp)


def _stage(t: _Target, data: bytes | str, mode: int | None = None) -> str:
    """A temporary file beside `t.path` holding `data`, on disk: ready to be renamed over it.
    It has the mode the file keeps (write_atomic), set before any byte is written."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if mode is None and t.st is not None:
        mode = stat.S_IMODE(t.st.st_mode)
    fd, tmp = _temp_beside(t.path, 0o666 if mode is None else 0o600)
    with _removed_on_failure(tmp, t):
        if mode is not None:  # before any byte is written, so none is readable by others
            try:
                os.fchmod(fd, mode)
            except BaseException:
                os.close(fd)
                raise
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
    return tmp


def _commit(tmp: str, t: _Target) -> None:
    """The staged temporary file renamed over `t`'s file."""
    with _removed_on_failure(tmp, t):
        os.replace(tmp, t.path)


@contextlib.contextmanager
def _removed_on_failure(tmp: str, t: _Target) -> Iterator[None]:
    """A failure in the block (staging or committing `t`) removes its temporary file, and an
    OSError is raised as the one message naming the file the user gave (anything else as
    it is)."""
    try:
        yield
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):
            raise _fail(t.given, exc) from None
        raise
