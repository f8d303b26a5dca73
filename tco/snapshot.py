"""A kept baseline: the result of a scenario, stored so that `tco whatif` (and `tco montecarlo`)
start quickly.

A what-if needs the baseline result of its scenario. Computing it means validating the catalog
and the scenario (pydantic, about a third of a second to import and build its schemas) and
sizing deadline- or power-capped clusters (numpy). The baseline depends only on the files it
was computed from and on the code, so it is kept after the first run, under a key that hashes
all of them:

* the scenario file's bytes and the name it was given (sources quote it), or the built-in
  example;
* every file of the shipped catalog (pricing/) and every quote file given with --catalog;
* this package's source files, the Python version, and where and when the libraries it passes
  through (numpy, pydantic, PyYAML) were installed.

Change any of these and the key changes: the baseline is computed again. The changed side of
a what-if is never kept; it is evaluated from the baseline's resolved inputs (tco.resolved) or,
for the few inputs resolve derives others from, by validating the edited scenario again.

Where: `$TCO_CACHE_DIR`, else `$XDG_CACHE_HOME/tco`, else `~/.cache/tco`; `TCO_NO_CACHE=1`
turns keeping off. The files are Python pickles: a file is read only when it is owned by the
user running tco and writable by nobody else. An unreadable, stale or damaged file is ignored
and replaced. At most `KEEP` baselines are kept.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pickle
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .result import Result

if TYPE_CHECKING:
    from .analysis.whatif import Recompute

FORMAT = b"tco-baseline 1\n"
KEEP = 32


def cache_dir() -> Path | None:
    if os.environ.get("TCO_NO_CACHE", "") not in ("", "0"):
        return None
    given = os.environ.get("TCO_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tco"


def _files(scenario: str | None, overlays: Sequence[str]) -> list[tuple[str, Path]]:
    from .resources import example_scenario, pricing_dir

    pricing = pricing_dir()
    files = [("scenario " + (scenario or "(built-in)"), Path(scenario) if scenario
              else example_scenario())]
    files += [(f"catalog {p.name}", p) for p in sorted(pricing.iterdir()) if p.is_file()]
    files += [(f"quote {o}", Path(o)) for o in overlays]
    return files


# Libraries whose code the baseline passes through (validation, sizing): an upgrade of one
# computes the baseline again.
LIBRARIES = ("numpy", "pydantic", "pydantic_core", "yaml")


def key(scenario: str | None, overlays: Sequence[str]) -> str | None:
    """The hash of everything the baseline depends on; None when a file cannot be read (the
    full computation then reports it)."""
    h = hashlib.sha256(FORMAT + f"{__version__} {sys.version}\n".encode())
    package = Path(__file__).resolve().parent
    try:
        for f in sorted(package.rglob("*.py")):
            data = f.read_bytes()
            h.update(f"{f.relative_to(package)} {len(data)}\n".encode())
            h.update(data)
        for name in LIBRARIES:
            spec = importlib.util.find_spec(name)  # finds, does not import
            origin = spec.origin if spec and spec.origin else ""
            st = os.stat(origin) if origin else None
            h.update(f"{name} {origin} {st and (st.st_size, st.st_mtime_ns)}\n".encode())
        for label, path in _files(scenario, overlays):
            data = path.read_bytes()
            h.update(f"{label} {len(data)}\n".encode())
            h.update(data)
    except OSError:
        return None
    return h.hexdigest()


def _trusted(path: Path) -> bool:
    """Only our own files, which nobody else may write, are unpickled."""
    st = path.stat()
    uid = getattr(os, "getuid", None)  # POSIX; elsewhere the mode bits alone decide
    return (uid is None or st.st_uid == uid()) and not st.st_mode & 0o022


def _read(path: Path, digest: str) -> Result | None:
    try:
        if not _trusted(path):
            return None
        blob = path.read_bytes()
        head = FORMAT + digest.encode() + b"\n"
        if not blob.startswith(head):
            return None
        result = pickle.loads(blob[len(head):])
    except Exception:  # noqa: BLE001 (any damage, whatever unpickling raises: compute again)
        return None
    return result if isinstance(result, Result) and result.resolved is not None else None


def _write(directory: Path, digest: str, result: Result) -> None:
    """Keep `result` (without the validated scenario objects, so that reading it back needs
    no pydantic). Failing to keep it is not an error: the next run computes it again."""
    from .errors import TcoError
    from .fsio import write_atomic

    assert result.resolved is not None
    plain = replace(result, validated=None, analyses={},
                    resolved=replace(result.resolved, scenario=None))
    try:
        directory.mkdir(parents=True, exist_ok=True)
        blob = FORMAT + digest.encode() + b"\n" + pickle.dumps(plain, pickle.HIGHEST_PROTOCOL)
        write_atomic(directory / f"{digest}.pickle", blob, mode=0o600)
        kept = sorted(directory.glob("*.pickle"), key=lambda p: p.stat().st_mtime_ns)
        for old in kept[:-KEEP]:
            old.unlink()
    except (OSError, TcoError):
        pass


def baseline(scenario: str | None, overlays: Sequence[str]) -> Result:
    """The result of the scenario file (None: the built-in example) with the quote files
    `overlays`: kept from an earlier run when nothing it depends on has changed."""
    directory = cache_dir()
    digest = key(scenario, overlays) if directory is not None else None
    if directory is not None and digest is not None:
        kept = _read(directory / f"{digest}.pickle", digest)
        if kept is not None:
            return kept
    from .catalog import load_catalog
    from .engine import compute
    from .scenario import load_scenario

    result = compute(load_scenario(scenario), load_catalog(overlays))
    # Kept only if no file changed while it was computed (an editor saving meanwhile), so a
    # baseline is never filed under the hash of contents it was not computed from.
    if directory is not None and digest is not None and key(scenario, overlays) == digest:
        _write(directory, digest, result)
    return result


def recompute(scenario: str | None, overlays: Sequence[str]) -> Recompute:
    """The long way for a what-if: the scenario edited, validated and resolved again."""
    def run(values: Mapping[str, float], label: str) -> Result:
        from .analysis.settings import apply_values
        from .catalog import load_catalog
        from .engine import compute
        from .scenario import load_scenario

        loaded = load_scenario(scenario)
        return compute(apply_values(loaded, values, label), load_catalog(overlays))

    return run
