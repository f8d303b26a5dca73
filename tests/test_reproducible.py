"""The same inputs give byte-identical JSON, CSV and table output in separate processes, and
every output says which tool, catalog and scenario produced it."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco import __version__
from tco.catalog import load_catalog
from tco.cli import cli

QUOTE = "id,field,value,source,as_of\nh100-sxm,price_usd,24000,ACME quote 17,2025-06\n"

# One process writes every format; run twice with different hash seeds, so any output that
# depends on set or dict ordering of strings differs between the runs.
_WRITE_ALL = """
import sys
from tco.cli import cli
out, quote = sys.argv[1], sys.argv[2]
for fmt in ("json", "csv", "table"):
    cli.main(["compare", "--catalog", quote, "--format", fmt, "-o", f"{out}/compare.{fmt}"],
             standalone_mode=False)
cli.main(["compare", "--format", "json", "-o", f"{out}/example.json"], standalone_mode=False)
"""


def write_all(folder: Path, quote: Path, hash_seed: str) -> dict[str, bytes]:
    folder.mkdir()
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    subprocess.run([sys.executable, "-c", _WRITE_ALL, str(folder), str(quote)], env=env,
                   check=True, timeout=120)
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_outputs_are_byte_identical_across_processes(tmp_path: Path) -> None:
    quote = tmp_path / "quote.csv"
    quote.write_text(QUOTE)
    first = write_all(tmp_path / "a", quote, "0")
    second = write_all(tmp_path / "b", quote, "4242")
    assert list(first) == ["compare.csv", "compare.json", "compare.table", "example.json"]
    for name in first:
        assert first[name] == second[name], f"{name} differs between runs"


def run(args: list[str]) -> str:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def example_provenance() -> dict[str, str]:
    return json.loads(run(["compare", "--format", "json"]))["provenance"]


def test_json_provenance(example_provenance: dict[str, str]) -> None:
    assert example_provenance["tool_version"] == __version__
    assert example_provenance["catalog_digest"] == load_catalog().digest()
    assert len(example_provenance["scenario_digest"]) == 12


def test_csv_has_provenance_on_every_row(example_provenance: dict[str, str]) -> None:
    rows = list(csv.DictReader(io.StringIO(run(["compare", "--format", "csv"]))))
    # the example's 8 candidates and 6 generated rent options (every card with a cloud price:
    # not gaudi3 or ascend-910b), then the plan and the plan restricted to each of the 14
    assert [r["acquire"] for r in rows].count("plan") == 15
    assert len(rows) == 14 + 15
    for row in rows:
        assert {k: row[k] for k in example_provenance} == example_provenance


def test_table_ends_with_provenance(example_provenance: dict[str, str]) -> None:
    last = run(["compare"]).splitlines()[-1]
    p = example_provenance
    assert last == (f"tco {p['tool_version']}, catalog {p['catalog_digest']}, "
                    f"scenario {p['scenario_digest']}")


def test_digests_change_with_their_inputs(tmp_path: Path,
                                          example_provenance: dict[str, str]) -> None:
    quote = tmp_path / "quote.csv"
    quote.write_text(QUOTE)
    with_quote = json.loads(run(["compare", "--catalog", str(quote), "--format", "json"]))
    assert with_quote["provenance"]["catalog_digest"] != example_provenance["catalog_digest"]
    assert with_quote["provenance"]["scenario_digest"] == example_provenance["scenario_digest"]

    from tco.resources import example_scenario

    edited = tmp_path / "edited.yaml"
    edited.write_text(example_scenario().read_text().replace("runs_per_year: 4",
                                                             "runs_per_year: 3"))
    other = json.loads(run(["compare", str(edited), "--format", "json"]))["provenance"]
    assert other["scenario_digest"] != example_provenance["scenario_digest"]
    assert other["catalog_digest"] == example_provenance["catalog_digest"]


def test_scenario_digest_ignores_comments_and_layout(tmp_path: Path,
                                                     example_provenance: dict[str, str]) -> None:
    """The digest is of the validated scenario, so a reformatted file is the same scenario."""
    from tco.resources import example_scenario

    text = "\n".join(line.split("  #")[0] for line in
                     example_scenario().read_text().splitlines() if not line.startswith("#"))
    plain = tmp_path / "plain.yaml"
    plain.write_text(text + "\n")
    other = json.loads(run(["compare", str(plain), "--format", "json"]))["provenance"]
    assert other["scenario_digest"] == example_provenance["scenario_digest"]
