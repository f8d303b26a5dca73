"""A kept baseline: the resolved inputs of a scenario, stored so that `tco whatif` (and
`tco montecarlo`) start quickly.

A what-if needs the baseline result of its scenario. Computing it means validating the catalog
and the scenario (pydantic, about a third of a second to import and build its schemas) and
sizing deadline- or power-capped clusters (numpy). What that produces, a `Resolved` with every
cluster sized, depends only on the files it was computed from and on the code, so it is kept
after the first run, under a key that hashes all of them:

* the scenario file's bytes and the name it was given (sources quote it), or the built-in
  example;
* every file of the shipped catalog (pricing/) and every quote file given with --catalog;
* this package's source files, the Python version, and where and when the libraries it passes
  through (numpy, pydantic, PyYAML) were installed.

Change any of these and the key changes: the baseline is computed again. The next run reads
the kept `Resolved`, builds the model for its structure and evaluates it (a few milliseconds,
neither library imported): every number of the Result is computed again from the inputs, none
is read from the file. The changed side of a what-if is never kept; it is evaluated from the
baseline's resolved inputs (tco.resolved) or, for the few inputs resolve derives others from,
by validating the edited scenario again.

Where: `$TCO_CACHE_DIR`, else `$XDG_CACHE_HOME/tco`, else `~/.cache/tco`; `TCO_NO_CACHE=1`
turns keeping off. What is kept is data, never code:

* An entry is JSON, `tco-baseline-<key>.json`, holding the key it was filed under, the
  `Resolved` and the planner's optimal plan for it (the solver's choice by column: what is
  bought, leased, rented and called, and when; its money is costed again when read). It is decoded by an explicit list of this package's own records (`Structure`,
  `Input`, `InputSpec`, `CandidateInfo`, `Resolved`), every field's type checked and no field
  missing or extra; anything else (another key, a damaged or truncated file, an old pickle)
  is ignored, computed again and replaced.
* The folder is created 0700 and used only when it is a real folder (not a symbolic link)
  owned by the user running tco and writable by nobody else. Otherwise the baseline is
  computed every time and the command says so in one line on stderr (`warn`); so it does
  when a folder named by TCO_CACHE_DIR cannot be created or written (the default folder's
  failure is not said: a read-only home directory is not an error).
* An entry is opened without following a symbolic link and checked once open: a regular file,
  owned by the user, writable by nobody else. Entries are written 0600 (they quote quote
  files' sources) to a temporary file in the folder, then renamed into place.
* At most `KEEP` entries are kept: only files whose name is exactly an entry's name, owned by
  the user, are counted and removed (oldest first); symbolic links are not followed and
  nothing else in the folder is touched. Entries of earlier versions (`<key>.pickle`) are
  neither read nor removed.

The user's own files are trusted as the package's own source files are: whoever can write
them can run code as that user anyway. The checks keep everyone else out.

All of this relies on POSIX calls (descriptors relative to the folder, O_NOFOLLOW, owners);
where they are missing nothing is kept.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import os
import re
import stat
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .inputs import Input, InputSpec
from .resolved import CandidateInfo, Resolved, Structure
from .result import Result
from .version import __version__

if TYPE_CHECKING:
    from .analysis.whatif import Recompute
    from .plan.solve import Solution

FORMAT = "tco-baseline 11"
KEEP = 32  # entries kept in the folder
MAX_ENTRY_BYTES = 64 * 1024 * 1024  # a larger file is not read (an entry is well under 1 MiB)
ENTRY_NAME = re.compile(r"tco-baseline-[0-9a-f]{64}\.json")

# Reports why the cache is not used (a folder or an entry others could have written).
Warn = Callable[[str], None]

_SUPPORTED = (
    hasattr(os, "getuid") and hasattr(os, "O_NOFOLLOW") and hasattr(os, "O_DIRECTORY")
    and {os.open, os.stat, os.unlink, os.rename} <= os.supports_dir_fd
    and os.scandir in os.supports_fd
)


def _quiet(message: str) -> None:
    """The default `warn`: the core prints nothing (the CLI passes one that does)."""


def cache_dir() -> Path | None:
    if not _SUPPORTED or os.environ.get("TCO_NO_CACHE", "") not in ("", "0"):
        return None
    given = os.environ.get("TCO_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "tco"


def entry_name(digest: str) -> str:
    """The file name of the entry filed under key `digest`."""
    return f"tco-baseline-{digest}.json"


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
    h = hashlib.sha256(f"{FORMAT}\n{__version__} {sys.version}\n".encode())
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


# --- the folder and its files ----------------------------------------------------------------


def _refusal(st: os.stat_result, what: str) -> str | None:
    """Why a folder or entry with status `st` may have been written by someone else (None when
    it cannot)."""
    if st.st_uid != os.getuid():
        return f"{what} is owned by another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"{what} is writable by others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def asked() -> bool:
    """Whether the user named the cache folder (TCO_CACHE_DIR): then a folder that cannot be
    created or written is said; the default one's is not (a read-only home directory is not
    an error)."""
    return bool(os.environ.get("TCO_CACHE_DIR"))


def _open_folder(directory: Path, warn: Warn) -> int | None:
    """A descriptor of the cache folder, created 0700 when missing; None when it may not be
    used (a symbolic link, not a folder, another user's, writable by others: said through
    `warn`) or cannot be created (said when the user named the folder, `asked`)."""
    def refuse(reason: str) -> None:
        warn(f"not keeping baselines in '{directory}': {reason}; each run computes its "
             "baseline (use a folder only you can write: TCO_CACHE_DIR, or TCO_NO_CACHE=1)")

    def uncreatable(exc: OSError) -> None:
        if asked():
            refuse("it cannot be created (" + ("a part of its path is a file, not a folder"
                   if exc.errno in (errno.EEXIST, errno.ENOTDIR) else exc.strerror or str(exc))
                   + ")")

    try:
        directory.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        uncreatable(exc)
        return None
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass  # checked below, once open
    except OSError as exc:
        uncreatable(exc)
        return None
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            try:
                link = stat.S_ISLNK(os.lstat(directory).st_mode)
            except OSError:
                return None
            refuse("it is a symbolic link" if link else "it is not a folder")
        return None
    problem = _refusal(os.fstat(fd), "it")
    if problem:
        os.close(fd)
        refuse(problem)
        return None
    return fd


def _read(folder: int, digest: str, warn: Warn) -> bytes | None:
    """The bytes of the entry filed under `digest`, if there is one that only its owner, the
    user running tco, can have written."""
    name = entry_name(digest)
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                     dir_fd=folder)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            warn(f"ignoring the kept baseline '{name}': it is a symbolic link")
        return None
    try:
        st = os.fstat(fd)
        problem = (_refusal(st, "it") if stat.S_ISREG(st.st_mode)
                   else "it is not a regular file")
        if problem:
            warn(f"ignoring the kept baseline '{name}': {problem}")
            return None
        if st.st_size > MAX_ENTRY_BYTES:
            return None
        chunks = []
        size = 0
        while chunk := os.read(fd, 1 << 20):
            size += len(chunk)
            if size > MAX_ENTRY_BYTES:
                return None
            chunks.append(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def _write(folder: int, digest: str, blob: bytes, failed: Warn = _quiet) -> None:
    """File `blob` under `digest`: written 0600 to a temporary file in the folder, renamed into
    place, then the oldest entries beyond `KEEP` removed. Failing is not an error: the next run
    computes the baseline again (`failed` is told why)."""
    tmp = f".{entry_name(digest)}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600, dir_fd=folder)
    except OSError as exc:
        failed(exc.strerror or str(exc))
        return
    try:
        try:
            os.fchmod(fd, 0o600)  # whatever the umask
            view = memoryview(blob)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        os.rename(tmp, entry_name(digest), src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException as exc:
        try:
            os.unlink(tmp, dir_fd=folder)
        except OSError:
            pass
        if isinstance(exc, OSError):
            failed(exc.strerror or str(exc))
            return
        raise
    _tidy(folder)


def _tidy(folder: int) -> None:
    """Remove the oldest entries beyond `KEEP`: regular files owned by the user whose name is
    exactly an entry's name (status read without following links); nothing else."""
    uid = os.getuid()
    found = []
    try:
        with os.scandir(folder) as listing:
            for e in listing:
                if ENTRY_NAME.fullmatch(e.name):
                    st = e.stat(follow_symlinks=False)
                    if stat.S_ISREG(st.st_mode) and st.st_uid == uid:
                        found.append((st.st_mtime_ns, e.name))
    except OSError:
        return
    for _, name in sorted(found)[:-KEEP]:
        try:
            os.unlink(name, dir_fd=folder)
        except OSError:
            pass


# --- the entry: JSON, decoded by an explicit list of this package's records -----------------


class _Damaged(Exception):
    """An entry that is not exactly what `encode` writes (never leaves this module)."""


def _str(v: Any) -> str:
    if type(v) is not str:
        raise _Damaged
    return v


def _int(v: Any) -> int:
    if type(v) is not int:
        raise _Damaged
    return v


def _bool(v: Any) -> bool:
    if type(v) is not bool:
        raise _Damaged
    return v


def _num(v: Any) -> float:
    if type(v) not in (int, float):
        raise _Damaged
    return v


def _opt_num(v: Any) -> float | None:
    return None if v is None else _num(v)


def _list(item: Callable[[Any], Any]) -> Callable[[Any], list[Any]]:
    def check(v: Any) -> list[Any]:
        if type(v) is not list:
            raise _Damaged
        return [item(x) for x in v]
    return check


def _tuple(item: Callable[[Any], Any], length: int | None = None) -> Callable[[Any], tuple]:
    def check(v: Any) -> tuple[Any, ...]:
        if type(v) is not list or (length is not None and len(v) != length):
            raise _Damaged
        return tuple(item(x) for x in v)
    return check


def _map(value: Callable[[Any], Any]) -> Callable[[Any], dict[str, Any]]:
    def check(v: Any) -> dict[str, Any]:
        if type(v) is not dict:
            raise _Damaged
        return {k: value(x) for k, x in v.items()}  # JSON keys are strings
    return check


def _record(cls: type, checks: Mapping[str, Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """A decoder of `cls` (one of this package's dataclasses) from exactly its fields."""
    def check(v: Any) -> Any:
        if type(v) is not dict or v.keys() != checks.keys():
            raise _Damaged
        return cls(**{name: c(v[name]) for name, c in checks.items()})
    check.fields = tuple(checks)  # type: ignore[attr-defined]
    return check


def _voucher(v: Any) -> tuple[str, str, bool, tuple[str, ...]]:
    """A compute voucher of the Structure: (id, kind, has a cap, the options it applies to)."""
    if type(v) is not list or len(v) != 4:
        raise _Damaged
    return (_str(v[0]), _str(v[1]), _bool(v[2]), _tuple(_str)(v[3]))


def _limit(v: Any) -> tuple[str, float]:
    """A vendor's quota of the Structure: (card id, cards a quarter)."""
    if type(v) is not list or len(v) != 2:
        raise _Damaged
    return (_str(v[0]), _num(v[1]))


_STRUCTURE = _record(Structure, {
    "currency": _str, "horizon_years": _int, "workloads": _tuple(_tuple(_str, 3)),
    "candidates": _tuple(_str), "stacks": _tuple(_str), "sizing": _tuple(_str),
    "acquire": _tuple(_str), "inputs_of": _tuple(_str), "barred": _tuple(_str),
    "rent": _tuple(_str), "objectives": _tuple(_str), "shortfall_rent": _tuple(_str),
    "assigned": _tuple(_tuple(_str)), "portfolios": _tuple(_tuple(_str)),
    "api": _tuple(_tuple(_str)),
    "held": _tuple(_str), "closing": _tuple(_str), "deliveries": _tuple(_int),
    "held_by_age": _tuple(_str), "sites": _tuple(_tuple(_str)), "site_of": _tuple(_str),
    "storage_per_card": _bool,
    "vouchers": _tuple(_voucher), "revoked": _tuple(_str), "supply_limits": _tuple(_limit),
    "precisions": _tuple(_tuple(_str)),
    "speculative": _tuple(_str), "measured": _tuple(_tuple(_str)), "tax_depreciation": _str,
    "tax_table": _tuple(_num), "decision_basis": _str, "resale_curve": _tuple(_str)})
_SPEC = _record(InputSpec, {
    "key": _str, "unit": _str, "label": _str, "lo": _num, "hi": _num, "hint": _str,
    "money": _bool, "integer": _bool, "structural": _bool, "fraction": _bool, "draw": _str})
_INPUT = _record(Input, {
    "path": _str, "value": _num, "spec": _SPEC, "source": _str, "as_of": _str,
    "low": _opt_num, "high": _opt_num, "note": _str, "origin": _str, "unit": _str,
    "meta": _map(_str)})
_CANDIDATE = _record(CandidateInfo, {
    "id": _str, "name": _str, "card": _str, "card_name": _str, "vendor": _str,
    "platform": _str, "platform_name": _str, "cooling": _str, "stack": _str,
    "stack_name": _str, "sizing": _str, "acquire": _str, "inputs_of": _str,
    "flags": _list(_str), "blocking": _list(_str), "rent_blocking": _list(_str),
    "infeasible": _list(_str), "notes": _list(_str), "workloads": _list(_str),
    "rent_tier": _str, "deliveries": _int, "site": _str})
# Resolved's own fields, decoded by `decode` (the validated scenario object is never kept).
RESOLVED_FIELDS = ("structure", "inputs", "candidates", "file", "scenario_data",
                   "catalog_digest", "usd_to_currency", "read_by_resolve", "sized",
                   "catalog_files")
RECORDS = {Structure: _STRUCTURE, InputSpec: _SPEC, Input: _INPUT, CandidateInfo: _CANDIDATE}
SIZING_KINDS = ("deadline_days", "power_cap_kw", "plan")


def _key_part(v: Any) -> str | int:
    """A part of a solver's column key: a name or a period."""
    if type(v) not in (str, int):
        raise _Damaged
    return v


def _plan(v: Any) -> Solution | None:
    """The optimal plan kept with a baseline (the solver's nonzero columns), or None."""
    from .plan.solve import Solution

    if v is None:
        return None
    if type(v) is not dict or v.keys() != {"status", "npv", "gap", "values"}:
        raise _Damaged
    values = {}
    for pair in _list(_tuple(lambda x: x, 2))(v["values"]):
        values[_tuple(_key_part)(pair[0])] = _num(pair[1])
    if len(values) != len(v["values"]) or _str(v["status"]) not in ("optimal", "time_limit"):
        raise _Damaged
    return Solution(v["status"], _num(v["npv"]), values, _num(v["gap"]))


def _plan_body(plan: Solution | None) -> dict[str, Any] | None:
    if plan is None or plan.status == "infeasible":
        return None
    return {"status": plan.status, "npv": plan.npv, "gap": plan.gap,
            "values": [[list(k), v] for k, v in plan.values.items()]}


def encode(digest: str, resolved: Resolved, plan: Solution | None = None) -> bytes:
    """The entry for `resolved` (every cluster sized) filed under key `digest`, with the
    planner's optimal plan for it (`plan`, the solver's answer: what it buys, leases, rents
    and calls, and when), which is a choice, not a number computed from the inputs: its money
    is computed again from the decisions when the entry is read."""
    for path, inp in resolved.inputs.items():
        if path != inp.path:
            raise ValueError(f"input filed as '{path}' is '{inp.path}'")
    for cid, info in resolved.candidates.items():
        if cid != info.id:
            raise ValueError(f"candidate filed as '{cid}' is '{info.id}'")
    body = {
        "structure": asdict(resolved.structure),
        "inputs": [asdict(i) for i in resolved.inputs.values()],
        "candidates": [asdict(c) for c in resolved.candidates.values()],
        "file": resolved.file,
        "scenario_data": resolved.scenario_data,
        "catalog_digest": resolved.catalog_digest,
        "usd_to_currency": resolved.usd_to_currency,
        "read_by_resolve": sorted(resolved.read_by_resolve),
        "sized": sorted(resolved.sized),
        "catalog_files": list(resolved.catalog_files),
    }
    doc = {"format": FORMAT, "key": digest, "resolved": body, "plan": _plan_body(plan)}
    return json.dumps(doc, separators=(",", ":"), check_circular=False).encode("utf-8")


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise _Damaged  # a name given twice: json would keep the last silently
    return out


def decode(blob: bytes, digest: str) -> tuple[Resolved, Solution | None]:
    """The `Resolved` of an entry filed under `digest` and the optimal plan kept with it;
    ValueError when the entry is anything but what `encode` writes for that key."""
    try:
        doc = json.loads(blob.decode("utf-8"), object_pairs_hook=_unique)
        if (type(doc) is not dict or doc.keys() != {"format", "key", "resolved", "plan"}
                or doc["format"] != FORMAT or doc["key"] != digest):
            raise _Damaged
        return _resolved(doc["resolved"]), _plan(doc["plan"])
    except (_Damaged, ValueError, TypeError, RecursionError):
        raise ValueError("not a kept baseline for this key") from None


def _resolved(body: Any) -> Resolved:
    if type(body) is not dict or body.keys() != set(RESOLVED_FIELDS):
        raise _Damaged
    structure = _STRUCTURE(body["structure"])
    inputs = {i.path: i for i in _list(_INPUT)(body["inputs"])}
    candidates = {c.id: c for c in _list(_CANDIDATE)(body["candidates"])}
    sized = frozenset(_list(_str)(body["sized"]))
    read_by_resolve = frozenset(_list(_str)(body["read_by_resolve"]))
    scenario_data = body["scenario_data"]  # JSON data, as json.loads made it
    if (len(inputs) != len(body["inputs"]) or len(candidates) != len(body["candidates"])
            or type(scenario_data) is not dict
            or not set(structure.candidates) <= set(candidates)
            or len(structure.stacks) != len(structure.candidates)
            or not (len(structure.sizing) == len(structure.acquire)
                    == len(structure.inputs_of) == len(structure.candidates))
            or not set(structure.inputs_of) <= set(structure.candidates)
            or not set(structure.sizing) <= {"cards", *SIZING_KINDS}
            or not set(structure.barred) <= set(structure.candidates)
            or not read_by_resolve <= inputs.keys()
            # every own cluster was sized and laid out: evaluating the entry chooses nothing
            # (no numpy); a generated rent option reads its source's choice
            or sized != {cid for cid, own in zip(structure.candidates, structure.inputs_of)
                         if own == cid}
            or not 1 <= structure.horizon_years <= 30):
        raise _Damaged
    return Resolved(structure=structure, inputs=inputs, candidates=candidates,
                    file=_str(body["file"]), scenario_data=scenario_data,
                    catalog_digest=_str(body["catalog_digest"]),
                    usd_to_currency=_num(body["usd_to_currency"]),
                    read_by_resolve=read_by_resolve, sized=sized,
                    catalog_files=tuple(_list(_str)(body["catalog_files"])))


def _kept(resolved: Resolved, plan: Solution | None) -> Result | None:
    """The Result of a decoded entry: the model built for its structure and evaluated, its
    optimal plan the one kept (costed when asked for). None when evaluating fails (an entry
    whose inputs do not fit its structure): computed again."""
    from .engine import evaluate

    try:
        result = evaluate(resolved)
    except Exception:  # noqa: BLE001 (whatever a mismatched entry raises: compute again)
        return None
    result.plan_solved = plan
    return result


# --- the baseline ----------------------------------------------------------------------------


def baseline(scenario: str | None, overlays: Sequence[str], warn: Warn = _quiet) -> Result:
    """The result of the scenario file (None: the built-in example) with the quote files
    `overlays`: evaluated from the inputs kept by an earlier run when nothing they depend on
    has changed. `warn` is told, in one line, why the cache folder or an entry is refused."""
    directory = cache_dir()
    digest = key(scenario, overlays) if directory is not None else None
    folder = _open_folder(directory, warn) if directory is not None and digest else None
    try:
        if folder is not None and digest is not None:
            blob = _read(folder, digest, warn)
            if blob is not None:
                try:
                    kept = _kept(*decode(blob, digest))
                except ValueError:
                    kept = None
                if kept is not None:
                    return kept
        from .catalog import load_catalog
        from .engine import compute
        from .scenario import load_scenario

        result = compute(load_scenario(scenario), load_catalog(overlays))
        # Kept only if no file changed while it was computed (an editor saving meanwhile), so
        # a baseline is never filed under the hash of contents it was not computed from.
        if (folder is not None and digest is not None and result.resolved is not None
                and key(scenario, overlays) == digest):
            try:
                blob = encode(digest, result.resolved, _solution(result))
            except (TypeError, ValueError):  # not JSON data: not kept
                pass
            else:
                _write(folder, digest, blob, lambda why: asked() and warn(
                    f"not keeping the baseline in '{directory}': {why}; each run computes "
                    "it (use a folder you can write: TCO_CACHE_DIR, or TCO_NO_CACHE=1)"))
        return result
    finally:
        if folder is not None:
            os.close(folder)


def _solution(result: Result) -> Solution | None:
    """The solver's answer of `result`'s optimal plan (solved now: the commands that keep a
    baseline, what-if and Monte Carlo, ask for it)."""
    plan = result.cheapest_plan
    return plan.solution if plan is not None else None


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


def _read_once_only(path: str) -> bool:
    """A pipe, a process substitution or a device, as opposed to a regular file (a missing one
    counts as regular: reading it says that it is missing)."""
    try:
        return not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def baseline_and_recompute(scenario: str | None, overlays: Sequence[str], warn: Warn = _quiet
                           ) -> tuple[Result, Recompute]:
    """The baseline and the long way to recompute it, for `whatif` and `montecarlo`.

    A kept baseline hashes the files' bytes and then loads them: two reads. A pipe or process
    substitution (`tco whatif <(cat s.yaml)`) can be read only once, so then the files are read
    once, here, and nothing is kept."""
    if not any(_read_once_only(p) for p in (scenario, *overlays) if p):
        return baseline(scenario, overlays, warn), recompute(scenario, overlays)
    from .analysis.settings import apply_values
    from .catalog import load_catalog
    from .engine import compute
    from .scenario import load_scenario

    loaded, catalog = load_scenario(scenario), load_catalog(overlays)

    def run(values: Mapping[str, float], label: str) -> Result:
        return compute(apply_values(loaded, values, label), catalog)

    return compute(loaded, catalog), run
