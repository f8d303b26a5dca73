"""The kept baseline (tco/snapshot.py): `tco whatif` reads it instead of validating and sizing
again, only while nothing it was computed from has changed, and only from a folder and files
nobody but the user running tco can have written. A planted or tampered entry is at worst
ignored and computed again; it never runs code or changes a number."""

import dataclasses
import json
import os
import pickle
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco import snapshot
from tco.analysis.whatif import whatif, whatif_from
from tco.catalog import load_catalog
from tco.cli import cli
from tco.engine import compute
from tco.exporters.analysis_view import comparison_json
from tco.resolved import Resolved
from tco.resources import example_scenario
from tco.scenario import load_scenario

needs_root = pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user "
                                "needs root")
NOBODY = 65534


@pytest.fixture
def cache(tmp_path, monkeypatch):
    d = tmp_path / "cache"
    monkeypatch.setenv("TCO_CACHE_DIR", str(d))
    monkeypatch.delenv("TCO_NO_CACHE", raising=False)
    return d


def _scenario(tmp_path, replace=("", "")):
    p = tmp_path / "s.yaml"
    p.write_text(example_scenario().read_text(encoding="utf-8").replace(*replace),
                 encoding="utf-8")
    return str(p)


def _entries(cache):
    return sorted(cache.glob("tco-baseline-*.json"))


def _npv(result, cid="b200"):
    return result.candidate(cid).values["npv_tco"]


def _planted(path, card_price=1.0):
    """An entry in the right format, under the right key, whose B200 cards cost `card_price`
    each: read as is, it gives a wrong NPV."""
    resolved = compute(load_scenario(path), load_catalog()).resolved
    inp = resolved.inputs["candidates.b200.card_price"]
    resolved.inputs[inp.path] = replace(inp, value=card_price)
    digest = snapshot.key(path, ())
    return digest, snapshot.encode(digest, resolved)


def _plant(folder, digest, blob, mode=0o600):
    p = folder / snapshot.entry_name(digest)
    p.write_bytes(blob)
    p.chmod(mode)
    return p


def _no_full_computation(monkeypatch):
    """Make validating the scenario fail: a baseline returned afterwards was read from an
    entry."""
    import tco.scenario

    def refuse(*args, **kwargs):
        raise AssertionError("the baseline was computed, not read")

    monkeypatch.setattr(tco.scenario, "load_scenario", refuse)


def test_kept_baseline_equals_the_engine_and_gives_the_same_whatif(cache, tmp_path, catalog):
    path = _scenario(tmp_path)
    first = snapshot.baseline(path, ())
    assert len(_entries(cache)) == 1
    kept = snapshot.baseline(path, ())
    assert kept is not first and kept.validated is None  # read back, without pydantic objects
    fresh = compute(load_scenario(path), catalog)
    for got in (first, kept):
        assert got.candidates == fresh.candidates
        assert got.inputs == fresh.inputs
        assert got.provenance == fresh.provenance
        assert got.scenario_data == fresh.scenario_data
    assert kept.resolved == replace(fresh.resolved, scenario=None)
    assert [q.name for q in kept.model] == [q.name for q in fresh.model]
    assert kept.scenario == fresh.scenario  # validated again on demand
    for settings in (
        ["facility.electricity_price_per_kwh=0.12", "candidates.mi300x.card_price=-15%"],
        ["workloads.llama-70b.params=x1.1"],  # resolve derives active_params: the long way
    ):
        expected = comparison_json(whatif(load_scenario(path), catalog, settings))
        got = whatif_from(kept, settings, snapshot.recompute(path, ()))
        assert comparison_json(got) == expected


def test_a_second_run_reads_the_entry_instead_of_computing(cache, tmp_path, monkeypatch):
    path = _scenario(tmp_path)
    first = snapshot.baseline(path, ())
    (entry,) = _entries(cache)
    assert entry.name == snapshot.entry_name(snapshot.key(path, ()))
    _no_full_computation(monkeypatch)
    decoded = []
    real = snapshot.decode
    monkeypatch.setattr(snapshot, "decode", lambda *a: decoded.append(a) or real(*a))
    assert snapshot.baseline(path, ()).candidates == first.candidates
    assert len(decoded) == 1 and decoded[0][0] == entry.read_bytes()


def test_the_plan_kept_with_the_baseline_is_not_solved_again_and_costs_the_same(
        cache, tmp_path, monkeypatch):
    """The optimal plan's decisions are kept with the baseline: a second run costs them
    (the same actions, the same NPV) without a solve, and a what-if's re-solve starts from
    them and finds what a solve from nothing finds."""
    import tco.plan

    path = _scenario(tmp_path)
    first = snapshot.baseline(path, ())
    solved = first.cheapest_plan
    assert solved is not None and solved.actions
    monkeypatch.setattr(tco.plan, "solve_plan", _refuse_to_solve)
    kept = snapshot.baseline(path, ())
    assert kept.plan_solved is not None and kept.cheapest_plan.npv_tco == solved.npv_tco
    assert kept.cheapest_plan.actions == solved.actions
    assert kept.cheapest_plan.periods == solved.periods
    monkeypatch.undo()
    settings = ["facility.electricity_price_per_kwh=0.2"]
    after = whatif_from(kept, settings, snapshot.recompute(path, ())).after
    assert after.plan_start is kept.cheapest_plan.solution
    fresh = whatif(load_scenario(path), load_catalog(), settings).after
    assert fresh.plan_start is not None  # the engine's what-if starts from its baseline too
    fresh.plan_start = None
    assert after.cheapest_plan.actions == fresh.cheapest_plan.actions
    assert after.cheapest_plan.npv_tco == pytest.approx(fresh.cheapest_plan.npv_tco, rel=1e-9)


def _refuse_to_solve(*args, **kwargs):
    raise AssertionError("the kept plan was solved again")


@pytest.mark.parametrize("tamper", ["period as text", "no values", "infeasible"])
def test_a_kept_plan_that_is_not_what_tco_writes_is_refused(cache, tmp_path, tamper):
    """A kept plan of the wrong shape is refused (the baseline computed again); one whose
    columns are not the problem's (a period written as text) is solved again."""
    path = _scenario(tmp_path)
    first = snapshot.baseline(path, ())
    (entry,) = _entries(cache)
    digest = snapshot.key(path, ())
    doc = json.loads(entry.read_bytes())
    if tamper == "period as text":
        at = next(i for i, (k, _) in enumerate(doc["plan"]["values"]) if type(k[-1]) is int)
        doc["plan"]["values"][at][0][-1] = str(doc["plan"]["values"][at][0][-1])
        result = snapshot._kept(*snapshot.decode(json.dumps(doc).encode(), digest))
        assert result.cheapest_plan.actions == first.cheapest_plan.actions
        return
    elif tamper == "no values":
        del doc["plan"]["values"]
    else:
        doc["plan"]["status"] = "infeasible"
    with pytest.raises(ValueError):
        snapshot.decode(json.dumps(doc).encode(), digest)


def test_entries_are_data_for_their_own_key_only(cache, tmp_path):
    """What an entry holds: JSON naming the key it was filed under, and the resolved inputs;
    no number of the result is read from it."""
    path = _scenario(tmp_path)
    snapshot.baseline(path, ())
    (entry,) = _entries(cache)
    doc = json.loads(entry.read_bytes())
    digest = snapshot.key(path, ())
    assert doc["format"] == snapshot.FORMAT and doc["key"] == digest
    assert "npv_tco" not in entry.read_text(encoding="utf-8")
    resolved, plan = snapshot.decode(entry.read_bytes(), digest)
    assert isinstance(resolved, Resolved)
    # the plan kept is what the solver chose, by column; its money is computed again
    assert plan is not None and plan.values and "npv_tco" not in doc["plan"]
    with pytest.raises(ValueError):
        snapshot.decode(entry.read_bytes(), "0" * 64)  # filed under another key


def test_the_decoder_lists_every_field_of_every_record():
    """A field added to a kept record must be added to the decoder (else every entry would be
    refused, or a field silently left at its default)."""
    for cls, decoder in snapshot.RECORDS.items():
        assert decoder.fields == tuple(f.name for f in dataclasses.fields(cls)), cls
    assert snapshot.RESOLVED_FIELDS == tuple(f.name for f in dataclasses.fields(Resolved)
                                             if f.name != "scenario")


@pytest.mark.parametrize("tamper", ["other key", "extra field", "missing field", "wrong type",
                                    "duplicate name", "unsized cluster", "truncated", "not json"])
def test_an_entry_that_is_not_exactly_what_tco_writes_is_computed_again(
        cache, tmp_path, tamper):
    path = _scenario(tmp_path)
    good = snapshot.baseline(path, ())
    digest, blob = _planted(path)
    doc = json.loads(blob)
    body = doc["resolved"]
    if tamper == "other key":
        doc["key"] = "0" * 64
    elif tamper == "extra field":
        body["candidates"][0]["npv_tco"] = 1.0
    elif tamper == "missing field":
        del body["inputs"][0]["low"]
    elif tamper == "wrong type":
        body["inputs"][0]["value"] = "1.0"
    elif tamper == "unsized cluster":
        body["sized"] = {}
    text = json.dumps(doc)
    if tamper == "duplicate name":
        text = text.replace('"format":', '"key":"' + "0" * 64 + '","format":', 1)
    raw = text.encode()
    if tamper == "truncated":
        raw = raw[:1000]
    elif tamper == "not json":
        raw = b"\x80" + raw
    entry = _plant(cache, digest, raw)
    with pytest.raises(ValueError):
        snapshot.decode(raw, digest)
    again = snapshot.baseline(path, ())
    assert again.candidates == good.candidates
    assert json.loads(entry.read_bytes())["key"] == digest  # replaced by a good entry
    assert snapshot.decode(entry.read_bytes(), digest) is not None


def test_a_planted_pickle_is_never_unpickled(cache, tmp_path):
    """The entry of the old format, planted under the new name: no code runs."""
    path = _scenario(tmp_path)
    good = snapshot.baseline(path, ())
    marker = tmp_path / "ran"

    class Payload:
        def __reduce__(self):
            return (Path.touch, (marker,))

    digest = snapshot.key(path, ())
    entry = _plant(cache, digest, b"tco-baseline 1\n" + digest.encode() + b"\n"
                   + pickle.dumps(Payload()))
    assert snapshot.baseline(path, ()).candidates == good.candidates
    assert not marker.exists()
    assert json.loads(entry.read_bytes())["key"] == digest


def test_a_planted_entry_in_a_folder_others_may_write_is_not_trusted(cache, tmp_path):
    """The attack of the issue: a shared 0777 cache folder, an entry planted in it that gives
    a wrong NPV. The folder is refused, with a warning, and nothing is written in it."""
    path = _scenario(tmp_path)
    right = _npv(compute(load_scenario(path), load_catalog()))
    cache.mkdir(mode=0o700)
    cache.chmod(0o777)
    digest, blob = _planted(path)
    entry = _plant(cache, digest, blob)
    warned = []
    result = snapshot.baseline(path, (), warned.append)
    assert _npv(result) == right
    assert _npv(snapshot._kept(*snapshot.decode(blob, digest))) != right  # a real trap
    assert len(warned) == 1 and "writable by others (mode 0777)" in warned[0]
    assert str(cache) in warned[0]
    assert entry.read_bytes() == blob and os.listdir(cache) == [entry.name]


@pytest.mark.parametrize("mode", [0o666, 0o620, 0o602])
def test_an_entry_others_may_write_is_not_read(cache, tmp_path, mode):
    path = _scenario(tmp_path)
    right = _npv(snapshot.baseline(path, ()))
    digest, blob = _planted(path)
    entry = _plant(cache, digest, blob, mode)
    warned = []
    assert _npv(snapshot.baseline(path, (), warned.append)) == right
    assert warned == [f"ignoring the kept baseline '{entry.name}': it is writable by others"
                      + f" (mode {mode:04o})"]
    assert (entry.stat().st_mode & 0o777) == 0o600  # replaced by the computed one


@needs_root
def test_an_entry_or_folder_of_another_user_is_not_read(cache, tmp_path):
    path = _scenario(tmp_path)
    right = _npv(snapshot.baseline(path, ()))
    digest, blob = _planted(path)
    entry = _plant(cache, digest, blob, 0o644)
    os.chown(entry, NOBODY, NOBODY)
    warned = []
    assert _npv(snapshot.baseline(path, (), warned.append)) == right
    assert f"owned by another user (uid {NOBODY})" in warned[0]
    entry = _plant(cache, digest, blob, 0o644)
    os.chown(cache, NOBODY, NOBODY)
    warned.clear()
    assert _npv(snapshot.baseline(path, (), warned.append)) == right
    assert len(warned) == 1 and f"'{cache}'" in warned[0] and "another user" in warned[0]
    assert entry.read_bytes() == blob


def test_a_symlinked_entry_is_not_followed(cache, tmp_path):
    path = _scenario(tmp_path)
    right = _npv(snapshot.baseline(path, ()))
    digest, blob = _planted(path)
    target = tmp_path / "elsewhere.json"
    target.write_bytes(blob)
    target.chmod(0o600)
    entry = cache / snapshot.entry_name(digest)
    entry.unlink()
    entry.symlink_to(target)
    warned = []
    assert _npv(snapshot.baseline(path, (), warned.append)) == right
    assert warned == [f"ignoring the kept baseline '{entry.name}': it is a symbolic link"]
    assert target.read_bytes() == blob  # the file behind the link is left alone
    assert not entry.is_symlink() and entry.read_bytes() != blob  # the link was replaced


def test_a_symlinked_folder_is_refused(cache, tmp_path):
    path = _scenario(tmp_path)
    right = _npv(compute(load_scenario(path), load_catalog()))
    real = tmp_path / "real"
    real.mkdir(mode=0o700)
    digest, blob = _planted(path)
    entry = _plant(real, digest, blob)
    cache.symlink_to(real, target_is_directory=True)
    warned = []
    assert _npv(snapshot.baseline(path, (), warned.append)) == right
    assert len(warned) == 1 and "it is a symbolic link" in warned[0]
    assert os.listdir(real) == [entry.name] and entry.read_bytes() == blob


def test_cleanup_removes_only_the_oldest_of_its_own_entries(cache, tmp_path, monkeypatch):
    monkeypatch.setattr(snapshot, "KEEP", 2)
    cache.mkdir(mode=0o700)
    old = [_plant(cache, f"{i:064x}", b"{}") for i in range(3)]
    for i, p in enumerate(old):
        os.utime(p, ns=(10**18 + i, 10**18 + i))
    outside = tmp_path / "outside"
    outside.mkdir()
    behind = outside / snapshot.entry_name("f" * 64)
    behind.write_bytes(b"{}")
    os.utime(behind, ns=(1, 1))
    link = cache / snapshot.entry_name("e" * 64)
    link.symlink_to(behind)
    others = [cache / n for n in (
        "other.pickle", "a" * 64 + ".pickle", "notes.json", "tco-baseline-xyz.json",
        snapshot.entry_name("a" * 64) + ".bak", snapshot.entry_name("a" * 64).upper())]
    for p in others:
        p.write_bytes(b"keep me")
        os.utime(p, ns=(1, 1))
    (cache / "sub").mkdir()
    path = _scenario(tmp_path)
    snapshot.baseline(path, ())
    new = cache / snapshot.entry_name(snapshot.key(path, ()))
    assert [p.exists() for p in old] == [False, False, True] and new.exists()
    assert all(p.read_bytes() == b"keep me" for p in others)
    assert link.is_symlink() and behind.read_bytes() == b"{}"
    assert (cache / "sub").is_dir()


def test_entries_are_readable_by_their_owner_only(cache, tmp_path):
    previous = os.umask(0)
    try:
        path = _scenario(tmp_path)
        snapshot.baseline(path, ())
    finally:
        os.umask(previous)
    (entry,) = _entries(cache)
    assert cache.stat().st_mode & 0o777 == 0o700
    assert entry.stat().st_mode & 0o777 == 0o600
    assert os.listdir(cache) == [entry.name]  # no temporary file left behind


def test_a_changed_scenario_or_quote_file_is_computed_again(cache, tmp_path, catalog):
    path = _scenario(tmp_path)
    before = snapshot.baseline(path, ())
    _scenario(tmp_path, ("runs_per_year: 4", "runs_per_year: 3"))
    after = snapshot.baseline(path, ())
    assert after.inputs["workloads.llama-70b.runs_per_year"].value == 3.0
    assert before.inputs["workloads.llama-70b.runs_per_year"].value == 4.0
    quote = tmp_path / "quote.yaml"
    quote.write_text("card_prices:\n  - id: mi300x\n    price_usd: {value: 12000, "
                     "source: \"test quote\", as_of: \"2026-11\"}\n", encoding="utf-8")
    quoted = snapshot.baseline(path, (str(quote),))
    assert quoted.inputs["candidates.mi300x.card_price"].value == 12000.0
    assert quoted.candidates == compute(load_scenario(path),
                                        load_catalog([str(quote)])).candidates
    assert len(_entries(cache)) == 3


def test_nothing_is_kept_when_turned_off_or_unwritable(cache, tmp_path, monkeypatch):
    path = _scenario(tmp_path)
    monkeypatch.setenv("TCO_NO_CACHE", "1")
    snapshot.baseline(path, ())
    assert not cache.exists()
    monkeypatch.delenv("TCO_NO_CACHE")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    # the default folder (a read-only home directory is not an error): nothing said
    monkeypatch.delenv("TCO_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker / "home-cache"))
    warned: list[str] = []
    assert snapshot.baseline(path, (), warned.append).candidates  # computed, nothing kept
    assert warned == []
    # a folder the user named: said, in one line, and the baseline computed all the same
    monkeypatch.setenv("TCO_CACHE_DIR", str(blocker / "cache"))
    assert snapshot.baseline(path, (), warned.append).candidates
    assert warned == [(f"not keeping baselines in '{blocker / 'cache'}': it cannot be created "
                      "(a part of its path is a file, not a folder); each run computes its "
                      "baseline (use a folder only you can write: TCO_CACHE_DIR, or "
                      "TCO_NO_CACHE=1)")]


def test_an_entry_that_cannot_be_written_is_said(tmp_path):
    """Writing an entry fails (here: the folder's descriptor is closed; a full disk or a
    folder the user may not write, when not root): the reason goes to the caller, who says
    it when the user named the folder, and nothing is left behind."""
    fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    os.close(fd)
    why: list[str] = []
    snapshot._write(fd, "0" * 64, b"{}", why.append)
    assert why == ["Bad file descriptor"] and os.listdir(tmp_path) == []


def test_the_command_warns_in_one_line_and_answers(cache, tmp_path):
    cache.mkdir(mode=0o777)
    cache.chmod(0o777)
    args = ["whatif", "--set", "facility.electricity_price_per_kwh=0.12"]
    r = CliRunner().invoke(cli, args)
    assert r.exit_code == 0, r.output
    assert r.stderr.startswith("tco: warning: not keeping baselines in ")
    assert r.stderr.count("\n") == 1
    assert "electricity" in r.stdout and os.listdir(cache) == []


def test_a_quick_whatif_imports_neither_pydantic_nor_yaml(cache):
    """What keeps `tco whatif` quick to start: with the baseline kept and an input resolve
    copies one to one, the command needs neither validation nor a YAML parser. It solves
    the plan again at the new values (issue 27: the plan's NPV and actions may change), and
    that takes the solver (HiGHS) and numpy."""
    code = (
        "import sys\nfrom tco.cli import main\n"
        "sys.argv = ['tco', 'whatif', '--set', 'facility.electricity_price_per_kwh=0.12']\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "heavy = [m for m in ('pydantic', 'numpy', 'yaml') if m in sys.modules]\n"
        "print('HEAVY', heavy, file=sys.stderr)\n")
    runs = [subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True,
                           cwd=Path(__file__).parent) for _ in range(2)]
    for r in runs:
        assert r.returncode == 0, r.stderr
    assert runs[0].stdout == runs[1].stdout
    assert "electricity" in runs[1].stdout
    assert "HEAVY ['pydantic', 'numpy', 'yaml']" in runs[0].stderr  # first run computes
    assert "HEAVY ['numpy']" in runs[1].stderr
    assert "its actions are unchanged" in runs[1].stdout  # the plan, solved again


def test_a_file_changed_while_the_baseline_is_computed_is_not_kept(cache, tmp_path, monkeypatch):
    """An editor saving the scenario between hashing and reading must not leave a baseline
    filed under contents it was not computed from."""
    import tco.scenario

    path = _scenario(tmp_path)
    real = tco.scenario.load_scenario

    def load_after_a_save(p):
        _scenario(tmp_path, ("runs_per_year: 4", "runs_per_year: 1"))
        return real(p)

    monkeypatch.setattr(tco.scenario, "load_scenario", load_after_a_save)
    snapshot.baseline(path, ())
    assert not _entries(cache)
