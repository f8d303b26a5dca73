"""Every command's JSON output follows the published schema (tco/schemas/output.schema.json),
and the keys follow the one table (tco/exporters/fields.py) wherever they appear (issue 11).

Outputs are checked for the built-in example and for a scenario with an infeasible candidate
(200,000 H100s on a 7B model: interrupted too often to make progress) and an unpriced one (an
fp64 workload on a card without fp64).
"""

from __future__ import annotations

import csv
import io
import json
import re
from functools import cache
from pathlib import Path

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from tco import modes
from tco.cli import cli
from tco.engine import compute
from tco.exporters.data import candidate_dict
from tco.exporters.fields import FIELDS, JOB_FIELDS, WORKLOAD_FIELDS, fields
from tco.exporters.schema import COMMANDS, output_schema, schema_text
from tco.model import build_model
from tco.resources import output_schema as shipped_schema_path
from tco.scenario import load_scenario, load_scenario_text

ROOT = Path(__file__).resolve().parent.parent

MIXED = """\
name: mixed verdicts
workloads:
  - {id: sim, params: 7e9, tokens: 1e12, precision: fp64, runs_per_year: 4}
  - {id: tune, kind: finetune, params: 7e9, tokens: 1e10, precision: fp64}
candidates:
  - {id: ok, card: h100-sxm, cards: 64}
  - {id: tiny, card: h100-sxm, cards: 1}    # 7B's training state (112 GB) on one card
  - {id: nofp64, card: gaudi2, cards: 8}
facility: {region: us}
"""


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not JSON")


SERVE_SCENARIO = Path(__file__).parents[1] / "tco" / "scenarios" / "train-and-serve.yaml"


def run_json(*args: str):
    """A command's JSON output, parsed strictly (NaN and Infinity are not JSON)."""
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert res.exit_code == 0, res.output
    return json.loads(res.output, parse_constant=_reject_constant)


@cache
def validator(command: str) -> Draft202012Validator:
    """The shipped schema's entry for one command (its `$defs` name)."""
    schema = json.loads(shipped_schema_path().read_text(encoding="utf-8"))
    return Draft202012Validator({"$schema": schema["$schema"], "$defs": schema["$defs"],
                                 "$ref": f"#/$defs/{command}"})


@cache
def root_validator() -> Draft202012Validator:
    return Draft202012Validator(json.loads(shipped_schema_path().read_text(encoding="utf-8")))


def check(command: str, data) -> None:
    errors = sorted(validator(command).iter_errors(data), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    assert root_validator().is_valid(data)


@pytest.fixture(scope="module")
def mixed(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("mixed") / "mixed.yaml"
    path.write_text(MIXED, encoding="utf-8")
    return str(path)


# --- the shipped schema ----------------------------------------------------------------------


def test_shipped_schema_is_what_the_generator_writes():
    """Regenerate with: python -m tco.exporters.schema tco/schemas/output.schema.json"""
    assert shipped_schema_path().read_text(encoding="utf-8") == schema_text()


def test_schema_is_a_valid_draft_2020_12_schema_with_a_def_per_command():
    schema = output_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(COMMANDS) <= set(schema["$defs"])
    assert [a["$ref"] for a in schema["anyOf"]] == [f"#/$defs/{c}" for c in COMMANDS]


def test_nullable_numbers_say_so_and_carry_a_unit():
    candidate = output_schema()["$defs"]["candidate"]["properties"]
    assert candidate["npv_tco"]["type"] == ["number", "null"]
    assert "[currency]" in candidate["npv_tco"]["description"]
    assert candidate["gpu_hours_per_job"]["type"] == ["number", "null"]
    assert "[card-h]" in candidate["gpu_hours_per_job"]["description"]
    assert candidate["cards"]["type"] == "integer"  # never null
    workload = output_schema()["$defs"]["workload"]["properties"]
    assert "[FLOP]" in workload["train_flops"]["description"]


# --- every command's output validates ---------------------------------------------------------


EXAMPLE_OUTPUTS = {
    "compare": ["compare"],
    "job": ["job", "--model-params", "70e9", "--tokens", "2e12", "--card", "mi300x",
            "--cards", "1024"],
    "whatif": ["whatif", "--set", "candidates.mi300x.card_price=-15%"],
    "sensitivity": ["sensitivity", "--swing", "10%"],
    "breakeven": ["breakeven", "--vary", "candidates.mi300x.card_price", "--candidate", "mi300x",
                  "--vs", "b200"],
    "montecarlo": ["montecarlo", "--draws", "300"],
}


@pytest.mark.parametrize("command", list(EXAMPLE_OUTPUTS))
def test_example_outputs_follow_the_schema(command):
    check(command, run_json(*EXAMPLE_OUTPUTS[command], "--format", "json"))


def test_diff_output_follows_the_schema(tmp_path):
    a, b = tmp_path / "a.yaml", tmp_path / "b.yaml"
    a.write_text(MIXED, encoding="utf-8")
    b.write_text(MIXED.replace("cards: 64", "cards: 128"), encoding="utf-8")
    data = run_json("diff", str(a), str(b), "--format", "json")
    check("diff", data)
    # rent_options: auto adds an option renting the H100 of `ok` (the only feasible card with
    # a cloud price; `tiny` is infeasible and Gaudi 2 has none)
    assert {c["id"] for c in data["candidates"]} == {"ok", "ok-rent", "tiny", "nofp64"}


@pytest.mark.parametrize("section", ["accelerators", "platforms", "stacks", "regions",
                                     "cooling", "cloud", "api"])
def test_catalog_list_follows_the_schema(section):
    check("catalog_list", run_json("catalog", "list", "--section", section, "--format", "json"))


@pytest.mark.parametrize("ident", ["h100-sxm", "hgx-h100-8", "rocm", "us", "air",
                                   "assumptions", "exchange_rates"])
def test_catalog_show_follows_the_schema(ident):
    check("catalog_show", run_json("catalog", "show", ident, "--format", "json"))


MIXED_OUTPUTS = {
    "compare": ["compare"],
    "whatif": ["whatif", "--set", "utilization=x0.9"],
    "sensitivity": ["sensitivity", "--range"],
    # (an option that cannot run the work is refused: the one renting ok is its pair)
    "breakeven": ["breakeven", "--vary", "candidates.ok.card_price", "--candidate", "ok",
                  "--vs", "ok-rent"],
    "montecarlo": ["montecarlo", "--draws", "300"],
}


@pytest.mark.parametrize("command", list(MIXED_OUTPUTS))
def test_outputs_with_infeasible_and_unpriced_candidates_follow_the_schema(command, mixed):
    args = MIXED_OUTPUTS[command]
    check(command, run_json(args[0], mixed, *args[1:], "--format", "json"))


def test_compare_gives_an_infeasible_and_an_unpriced_candidate_the_same_keys(mixed):
    data = run_json("compare", mixed, "--format", "json")
    check("compare", data)
    by_id = {c["id"]: c for c in data["candidates"]}
    assert set(by_id["tiny"]) == set(by_id["ok"]) == set(by_id["nofp64"])
    tiny, nofp64 = by_id["tiny"], by_id["nofp64"]
    assert not tiny["feasible"] and not nofp64["feasible"]
    assert tiny["npv_tco"] is None and tiny["yearly"] == []
    # Every workload is there; the figures a reason quotes are kept when it was priced.
    assert set(tiny["jobs"]) == set(nofp64["jobs"]) == {"sim", "tune"}
    # 6 x 7e9 plus attention 12 x L x h x 4,096 = 6.81e9 per token (h = 4,211, L = 32.9)
    assert tiny["jobs"]["sim"]["train_flops"] == pytest.approx((6 * 7e9 + 6.81e9) * 1e12,
                                                               rel=1e-3)
    assert tiny["jobs"]["sim"]["gpu_hours"] is None and tiny["jobs"]["sim"]["cost"] is None
    assert all(v is None for v in nofp64["jobs"]["sim"].values())


@pytest.mark.parametrize("args", [
    ["--card", "h100-sxm", "--cards", "1"],  # infeasible: 7B's training state on one card
    ["--card", "gaudi2", "--cards", "8", "--precision", "fp64"],  # unpriced: no fp64
    ["--card", "rtx-4090", "--cards", "8", "--model-params", "70e9"],  # does not fit
], ids=["one-card", "unpriced", "memory"])
def test_job_outputs_of_infeasible_candidates_follow_the_schema(args):
    base = {"--model-params": "7e9", "--tokens": "1e12"}
    for opt, value in zip(args[::2], args[1::2]):
        base[opt] = value
    argv = [x for kv in base.items() for x in kv]
    data = run_json("job", *argv, "--format", "json")
    check("job", data)
    assert data["feasible"] is False and data["reasons"] and data["gpu_hours"] is None


def test_a_feasible_candidate_with_a_null_cost_breaks_the_schema():
    """The null rule is in the schema, not only in the prose: a feasible candidate shows its
    numbers, an infeasible one none."""
    data = run_json("compare", "--format", "json")
    check("compare", data)
    first = data["candidates"][0]
    assert not validator("candidate").is_valid({**first, "npv_tco": None})
    assert not validator("candidate").is_valid({**first, "feasible": False})
    assert not validator("candidate").is_valid({**first, "unexpected": 1})


# --- one table, one name per quantity ----------------------------------------------------------


def _job_scenario(card: str, cards: int) -> str:
    return (f"name: quick job\nworkloads:\n  - {{id: job, params: 70e9, tokens: 2e12}}\n"
            f"candidates:\n  - {{id: {card}, card: {card}, cards: {cards}}}\n"
            "facility: {region: us}\n")


def test_a_workload_figure_has_the_same_key_and_value_in_job_and_compare(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(_job_scenario("mi300x", 1024), encoding="utf-8")
    compared = next(c for c in run_json("compare", str(path), "--format", "json")["candidates"]
                    if c["id"] == "mi300x")  # the owned cluster (`tco job`), not its rent option
    job = run_json("job", "--model-params", "70e9", "--tokens", "2e12", "--card", "mi300x",
                   "--cards", "1024", "--format", "json")
    workload = compared["jobs"]["job"]
    assert list(workload) == [f.key for f in WORKLOAD_FIELDS]
    shared = set(workload) - {"feasible"}
    assert shared <= set(job)
    assert {k: job[k] for k in shared} == {k: workload[k] for k in shared}
    assert workload["energy_it_kwh"] > 0 and workload["effective_mfu"] > 0  # were job-only
    assert job["cost_per_million_tokens"] > 0  # was compare-only
    assert list(job) == ([f.key for f in fields("candidate")] + ["currency"]
                         + [f.key for f in JOB_FIELDS if f.scope == "workload"] + ["provenance"])


def test_headline_keys_are_the_primary_workloads_figures():
    data = run_json("compare", "--format", "json")
    by_quantity = {f.quantity: f.key for f in WORKLOAD_FIELDS if f.kind != "interval"}
    for c in data["candidates"]:
        primary = c["jobs"][next(iter(c["jobs"]))]
        for f in fields("primary"):
            value = primary[by_quantity[f.quantity]]
            if f.kind == "cost":
                assert c[f.key] == value
            else:  # a number headline of the cost lines is their total
                expect = value["total"] if isinstance(value, dict) else value
                assert c[f.key] == expect, (c["id"], f.key)


def test_job_reasons_are_reasons_and_notes_are_notes():
    data = run_json("job", "--model-params", "70e9", "--tokens", "2e12", "--card", "rtx-4090",
                    "--cards", "8", "--format", "json")
    assert any("GB per card" in r for r in data["reasons"])
    # not the reasons again, nor the flags (the one note: the RTX 4090 has no 1-year price in
    # pricing/cloud.yaml, so renting it falls back to on-demand)
    assert data["notes"] == [("no 1-year committed cloud price is published: renting uses "
                              "on-demand")]
    assert any(f.startswith("licence:") for f in data["flags"])
    assert data["blocking"]


def test_every_table_quantity_is_a_model_quantity_in_the_tables_unit(example, catalog):
    # The serving keys are the serving workload's quantities (the train-and-serve scenario).
    serving = compute(load_scenario(SERVE_SCENARIO), catalog)
    leased = compute(load_scenario(Path(__file__).parent / "data" / "lease_hand.yaml"),
                     catalog)  # the lease keys (acquire: lease)
    units = {}
    for result, wid in ((example, example.candidates[0].primary_workload), (serving, "chat"),
                        (leased, "small")):
        # Over every option: a rented one has no `cloud_npv` (it is the rent), a bought one has.
        for q in build_model(result.structure):
            if q.year is None and q.workload in (None, wid):
                key = (q.workload is not None, q.name.rsplit(".", 1)[1])
                assert units.setdefault(key, q.unit) == q.unit, (key, q.unit)
    currency = example.currency
    for f in FIELDS:
        if f.scope not in ("primary", "workload", "horizon") or f.kind == "boolean":
            continue
        unit = units.get((f.scope != "horizon", f.quantity))
        assert unit is not None, f"{f.key}: no model quantity {f.quantity}"
        table_unit = f.unit.replace("{currency}", currency)
        # the model states money per unit of the key's name (cost_per_million_tokens: USD)
        assert table_unit == unit or table_unit.startswith(unit + "/"), (f.key, unit)


def test_csv_columns_are_table_keys_with_the_json_values(mixed):
    """Every CSV column is a table key (with the JSON's value), or `<workload>.<key>`: a
    workload's own figure, `jobs.<workload>.<key>` in JSON (null where the option does not
    carry the workload or its numbers do not hold)."""
    compared = run_json("compare", mixed, "--format", "json")
    data = {c["id"]: c for c in compared["candidates"]}
    workloads = {w["id"] for w in compared["workloads"]}
    res = CliRunner().invoke(cli, ["compare", mixed, "--format", "csv"])
    rows = list(csv.DictReader(io.StringIO(res.output)))
    table_keys = {f.key for f in FIELDS}
    extra = {"currency", "tool_version", "catalog_digest", "scenario_digest"}
    per_workload = {k for k in rows[0] if k.split(".", 1)[0] in workloads}
    assert set(rows[0]) - extra - per_workload <= table_keys
    for row in rows:
        if row["acquire"] == modes.PLAN:  # a plan's row: tests/test_plan_outputs.py
            continue
        d = data[row["id"]]
        for key in set(row) - extra:
            if key in per_workload:
                wid, *path = key.split(".")
                value = (d.get("jobs") or {}).get(wid) if d["feasible"] else None
                for part in path:
                    value = (value or {}).get(part)
            else:
                value = d[key]
            if isinstance(value, list):
                assert row[key] == "; ".join(value)
            elif isinstance(value, (int, float)) and not isinstance(value, bool):
                assert float(row[key]) == value, (key, row[key])
            else:
                assert row[key] == ("" if value is None else str(value)), key


def test_breakeven_keys_do_not_collide_with_candidate_ids(tmp_path):
    """Candidates named `value` and `note` (valid ids) must not overwrite the crossing's own
    `value` and `note`."""
    path = tmp_path / "s.yaml"
    path.write_text(
        "workloads:\n  - {id: w, params: 70e9, tokens: 2e12}\n"
        "candidates:\n  - {id: value, card: h100-sxm, cards: 1024}\n"
        "  - {id: note, card: mi300x, cards: 1024}\n"
        "finance: {residual_value_fraction: 0.1}\n", encoding="utf-8")  # the straight line
    data = run_json("breakeven", str(path), "--vary", "candidates.value.card_price",
                    "--candidate", "value", "--vs", "note", "--format", "json")
    (crossing, *_) = data["crossings"]
    low, high = crossing["bracket"]
    assert low <= crossing["value"] <= high
    assert crossing["value"] == data["value"]
    assert crossing["metric_candidate"] == pytest.approx(crossing["metric_versus"], rel=1e-6)
    assert isinstance(crossing["note"], str)
    assert set(data["baseline"]) == {"metric_candidate", "metric_versus"}
    check("breakeven", data)


def test_unquantified_compare_numbers_match_the_table(catalog):
    result = compute(load_scenario_text(MIXED), catalog)
    for c in result.candidates:
        d = candidate_dict(result, c)
        for f in fields("primary", "horizon"):
            assert (d[f.key] is None) == (not c.quantified or f.quantity not in c.values
                                          and f.scope == "horizon"), (c.id, f.key)


# --- the documentation -------------------------------------------------------------------------


def test_docs_explain_every_key_and_command():
    doc = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"`([a-z0-9_]+)`", doc))
    for f in FIELDS:
        assert f.key in documented, f"docs/json.md does not explain `{f.key}`"
    for command in COMMANDS:
        assert command in documented, command
    assert "python -m tco.exporters.schema tco/schemas/output.schema.json" in doc
    assert "docs/json.md" in (ROOT / "README.md").read_text(encoding="utf-8")



def test_committed_example_report_follows_the_schema():
    """reports/example.json (make report) is the compare output users see first."""
    check("compare", json.loads((ROOT / "reports" / "example.json").read_text(encoding="utf-8")))


def test_a_break_even_where_an_option_stops_running_follows_the_schema(tmp_path):
    """8 H100 hold a dense 7B model, not one above about 35.7B parameters: the value where they
    stop is listed among the crossings (tests/test_tied_inputs.py)."""
    path = tmp_path / "dense.yaml"
    path.write_text("""
name: dense
workloads:
  - {id: w, kind: pretrain, params: 7.0e+9, tokens: 2.0e+11, precision: bf16, runs_per_year: 4}
candidates:
  - {id: h100, card: h100-sxm, cards: 8}
  - {id: mi, card: mi300x, cards: 1024}
facility: {region: us}
finance: {horizon_years: 3, discount_rate: 0.08}
""", encoding="utf-8")
    data = run_json("breakeven", str(path), "--vary", "workloads.w.params", "--candidate", "h100",
                    "--vs", "mi", "--format", "json")
    check("breakeven", data)
    assert data["value"] is None
    assert any(c["note"].startswith("h100 cannot run the work above") for c in data["crossings"])
