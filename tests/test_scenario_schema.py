"""The scenario JSON Schema (tco.scenario_schema): shipped, printed, pointed at by `tco init`,
and in agreement with `tco validate` on every scenario we ship or test with."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from tco.errors import ScenarioError
from tco.numtext import NUMBER_PATTERN
from tco.resources import example_scenario, scenario_schema_file
from tco.scenario import parse_scenario
from tco.scenario_schema import scenario_schema, schema_text
from tco.yamlio import load_yaml, load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = [example_scenario(), ROOT / "tests" / "data" / "cashflow_hand.yaml",
             ROOT / "tests" / "test_workbook_tricky.yaml"]


@pytest.fixture(scope="module")
def validator():
    schema = scenario_schema()
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def test_the_shipped_schema_is_the_generated_one():
    assert scenario_schema_file().read_text(encoding="utf-8") == schema_text()
    out = subprocess.run([sys.executable, "-m", "tco", "schema"], capture_output=True,
                         text=True, check=True)
    assert out.stdout == schema_text()


def test_init_points_editors_at_the_schema(tmp_path):
    path = tmp_path / "s.yaml"
    subprocess.run([sys.executable, "-m", "tco", "init", str(path)], check=True,
                   capture_output=True)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    # relative to the scenario, where init writes the schema (tests/test_starters.py)
    assert first == "# yaml-language-server: $schema=scenario.schema.json"
    assert (path.parent / "scenario.schema.json").read_bytes() == \
        scenario_schema_file().read_bytes()


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_every_shipped_and_test_scenario_is_valid(validator, path):
    data = load_yaml(path, ScenarioError).data
    errors = [e.message for e in validator.iter_errors(data)]
    assert not errors


def test_the_scale_benchmark_scenario_is_valid(validator):
    sys.path.insert(0, str(ROOT))
    from bench.scale import scenario

    assert not list(validator.iter_errors(scenario(40)))


BASE = """
name: s
workloads:
  - {id: w, params: 7e9, tokens: 1e11, runs_per_year: 2}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
"""


@pytest.mark.parametrize("change", [
    ("cards: 64}", "cards: 64, card_prise: 3}"),  # a typo of an input
    ("runs_per_year: 2}", "runs_per_year: 2, tokenz: 1}"),
    ("name: s", "name: s\nassumptions: {mfu_typo: 0.3}"),
    ("cards: 64}", "cards: 64, cooling: water}"),
    ("cards: 64}", "cards: 64, mfu: 3}"),  # outside the plausible range 0.01..1
])
def test_schema_and_validate_refuse_the_same_mistakes(validator, change):
    text = BASE.replace(*change)
    doc = load_yaml_text(text, "<s>", ScenarioError)
    assert list(validator.iter_errors(doc.data)), change
    with pytest.raises(ScenarioError):
        from tco.catalog import load_catalog
        from tco.resolve import resolve

        resolve(parse_scenario(doc), load_catalog())


def test_numbers_carry_unit_and_range_from_the_inputs():
    cand = scenario_schema()["$defs"]["Candidate"]["properties"]
    assert "Purchase price per accelerator" in cand["card_price"]["description"]
    number, text = cand["mfu"]["anyOf"]
    assert number == {"type": "number", "minimum": 0.01, "maximum": 1.0}
    assert text == {"type": "string", "pattern": NUMBER_PATTERN}  # "2e12" read by YAML 1.1
    work = scenario_schema()["$defs"]["Workload"]["properties"]
    assert "tokens" in work["tokens"]["description"]
    assert json.dumps(scenario_schema())  # serialisable


def test_a_benchmarks_bounds_are_json_schemas_own_whichever_pydantic_writes_it():
    """`benchmarks[].cards` is Field(ge=1, le=1e6) on an annotated whole number: pydantic 2.5
    leaves the bounds out and newer releases write them as `ge`/`le`, keys no JSON Schema
    validator reads (the shipped file differed by release, and CI's oldest run failed). The
    schema states them as minimum/maximum, the same under every release."""
    bench = scenario_schema()["$defs"]["Benchmark"]["properties"]
    number, _text, _null = bench["cards"]["anyOf"]
    assert number == {"type": "integer", "minimum": 1, "maximum": 1_000_000}
    assert bench["tp"]["anyOf"][0] == {"type": "integer", "minimum": 1, "maximum": 1024}
    assert '"ge"' not in schema_text() and '"le"' not in schema_text()
    serving = bench["serving"]["anyOf"][0]
    assert serving == {"type": "object"}  # a dict of anything: the default, not written
    def errors(cards: int) -> list[str]:
        schema = {"$defs": scenario_schema()["$defs"], "$ref": "#/$defs/Benchmark"}
        return [e.message for e in Draft202012Validator(schema).iter_errors(
            {"card": "h100-sxm", "cards": cards})]

    assert errors(0) == ["0 is not valid under any of the given schemas"]
    assert errors(1) == [] and errors(1_000_000) == []
    assert errors(1_000_001)
