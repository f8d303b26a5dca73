"""Serving and training in one plan with workloads assigned to options, a portfolio,
`cards: auto` and a held licence (tests/data/serve_and_assign.yaml): the features of issues 13
and 14 together. The review that found these defects ran this scenario."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

from click.testing import CliRunner

from tco.cli import cli

SCENARIO = str(Path(__file__).parent / "data" / "serve_and_assign.yaml")


def run(*args: str) -> str:
    out = CliRunner().invoke(cli, list(args))
    assert out.exit_code == 0, out.output
    return out.output


def test_the_recommendation_compares_only_options_that_deliver_the_whole_plan():
    """An option carrying only `train` delivers all of its part but not the plan: it is not
    'the cheapest rented option' against which the recommendation is weighed (that gave
    '-¥160.10M more')."""
    data = json.loads(run("compare", SCENARIO, "--format", "json"))
    rec = data["recommendation"]
    assert not any(re.search(r"-[¥$]", r) for r in rec["reasons"]), rec["reasons"]
    carries = {c["id"]: c["carries"] for c in data["candidates"]}
    cited = [cid for r in rec["reasons"] for cid in re.findall(r"\(([a-z0-9-]+)\) costs", r)]
    assert cited  # the other mode is weighed, against an option carrying the whole plan
    assert all(sorted(carries[cid]) == ["chat", "train"] for cid in cited), cited


def test_serving_figures_only_for_options_that_serve():
    table = run("compare", SCENARIO)
    block = table[table.index("Serving chat"):]
    block = block[:block.index("\n\n")] if "\n\n" in block else block
    assert "h100-train" not in block  # it carries `train` only
    assert "h20-serve" in block and "h100-all" in block
    rows = list(csv.DictReader(io.StringIO(run("compare", SCENARIO, "--format", "csv"))))
    by_id = {r["id"]: r for r in rows}
    assert by_id["h100-train"]["chat.tokens_per_s_per_card"] == ""
    assert by_id["h100-all"]["chat.tokens_per_s_per_card"] != ""


def test_no_rent_option_is_generated_from_an_option_carrying_part_of_the_plan():
    data = json.loads(run("compare", SCENARIO, "--format", "json"))
    ids = [c["id"] for c in data["candidates"]]
    assert "h100-train-rent" not in ids and "h100-all-rent" in ids
