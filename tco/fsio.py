"""Atomic file output: a failed or interrupted export leaves the previous file intact."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def _temp_beside(p: Path) -> tuple[int, str]:
    try:
        return tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise OutputError(f"cannot write in '{p.parent}': {exc.strerror}", file=str(p)) from None


def check_writable(path: Path | str) -> Path:
    """Fail early, before any work, when `path` cannot be written.

    Permission bits do not tell the whole story (root may write anywhere the bits say, but not
    in /proc or on a read-only mount), so a temporary file is created and removed beside it.
    """
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"'{parent}' is a file, not a directory", file=str(p))
    if not parent.is_dir():
        raise OutputError(f"directory '{parent}' does not exist", file=str(p))
    if p.is_dir():
        raise OutputError("is a directory; give a file name", file=str(p))
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise OutputError("permission denied: cannot write here", file=str(p))
    fd, tmp = _temp_beside(p)
    os.close(fd)
    os.unlink(tmp)
    return p


def write_atomic(path: Path | str, data: bytes | str) -> Path:
    """Write to a temporary file beside `path`, then rename it over `path`."""
    p = check_writable(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = _temp_beside(p)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write: {exc.strerror or exc}", file=str(p)) from None
        raise
    return p
