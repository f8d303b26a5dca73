"""The kept baseline (tco/snapshot.py): `tco whatif` reads it instead of validating and sizing
again, and only while nothing it was computed from has changed."""

import subprocess
import sys
from pathlib import Path

import pytest

from tco import snapshot
from tco.analysis.whatif import whatif, whatif_from
from tco.catalog import load_catalog
from tco.engine import compute
from tco.exporters.analysis_view import comparison_json
from tco.resources import example_scenario
from tco.scenario import load_scenario


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


def test_kept_baseline_equals_the_engine_and_gives_the_same_whatif(cache, tmp_path, catalog):
    path = _scenario(tmp_path)
    first = snapshot.baseline(path, ())
    assert len(list(cache.glob("*.pickle"))) == 1
    kept = snapshot.baseline(path, ())
    assert kept is not first and kept.validated is None  # read back, without pydantic objects
    fresh = compute(load_scenario(path), catalog)
    for got in (first, kept):
        assert got.candidates == fresh.candidates
        assert got.inputs == fresh.inputs
        assert got.provenance == fresh.provenance
    assert kept.scenario == fresh.scenario  # validated again on demand
    for settings in (
        ["facility.electricity_price_per_kwh=0.12", "candidates.mi300x.card_price=-15%"],
        ["workloads.llama-70b.params=x1.1"],  # resolve derives active_params: the long way
    ):
        expected = comparison_json(whatif(load_scenario(path), catalog, settings))
        got = whatif_from(kept, settings, snapshot.recompute(path, ()))
        assert comparison_json(got) == expected


def test_a_kept_file_others_may_write_is_not_read(cache, tmp_path):
    path = _scenario(tmp_path)
    snapshot.baseline(path, ())
    (kept,) = cache.glob("*.pickle")
    kept.chmod(0o666)
    assert snapshot._read(kept, kept.stem) is None
    kept.chmod(0o644)
    assert snapshot._read(kept, kept.stem) is not None


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
    assert len(list(cache.glob("*.pickle"))) == 3


def test_a_damaged_kept_file_is_ignored_and_replaced(cache, tmp_path):
    path = _scenario(tmp_path)
    good = snapshot.baseline(path, ())
    (kept,) = cache.glob("*.pickle")
    kept.write_bytes(kept.read_bytes()[:1000])
    again = snapshot.baseline(path, ())
    assert again.candidates == good.candidates
    assert snapshot.baseline(path, ()).candidates == good.candidates  # rewritten whole


def test_nothing_is_kept_when_turned_off_or_unwritable(cache, tmp_path, monkeypatch):
    path = _scenario(tmp_path)
    monkeypatch.setenv("TCO_NO_CACHE", "1")
    snapshot.baseline(path, ())
    assert not cache.exists()
    monkeypatch.delenv("TCO_NO_CACHE")
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setenv("TCO_CACHE_DIR", str(blocker / "cache"))
    assert snapshot.baseline(path, ()).candidates  # computed, nothing kept, no error


def test_a_quick_whatif_imports_neither_pydantic_nor_numpy(cache):
    """What keeps `tco whatif` quick to start: with the baseline kept and an input resolve
    copies one to one, the command needs neither library."""
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
    assert "HEAVY []" in runs[1].stderr


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
    assert not list(cache.glob("*.pickle"))
