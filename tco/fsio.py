"""Atomic file output: a failed or interrupted export leaves the previous file intact."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import OutputError


def check_writable(path: Path | str) -> Path:
    """Fail early, before any work, when `path` cannot be written."""
    p = Path(path)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(f"directory '{parent}' does not exist", file=str(p))
    if p.is_dir():
        raise OutputError("is a directory; give a file name", file=str(p))
    if not os.access(parent, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise OutputError("permission denied: cannot write here", file=str(p))
    return p


def write_atomic(path: Path | str, data: bytes | str) -> Path:
    """Write to a temporary file beside `path`, then rename it over `path`."""
    p = check_writable(path)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=".tmp", dir=p.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, p)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return p
