"""The JSON Schema of quote files (`tco schema --quote`, tco/schemas/quote.schema.json): shipped
and test quote files validate against it, and the faults it can see without the catalog (a
misspelt field or section, a figure without a source, words for a number) fail it."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import jsonschema
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.quote_schema import quote_schema, schema_text
from tco.resources import pricing_dir
from tco.yamlio import load_yaml

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "tco" / "schemas" / "quote.schema.json"
BAD = ROOT / "tests" / "bad_inputs" / "quotes"
GOOD_CSV = [ROOT / "tests" / "data" / "zh_package" / "quotes.csv"]
# Quote files the schema refuses on its own (the others need the catalog: an unknown card, a
# price in cents, an impossible date, a duplicate, a NaN that YAML reads as a number).
SCHEMA_FAULTS = {
    "quote-missing-source.yaml": "'source' is a required property",
    "quote-string-value.yaml": "call us",
    "quote-unknown-field.yaml": "lead_tme_weeks",
    "quote-unknown-section.yaml": "Additional properties are not allowed",
    "quote-figure-typo.yaml": "Additional properties are not allowed",
}
CSV_FAULTS = {
    "csv-not-a-number.csv": "is not valid under any of the given schemas",
    "csv-unknown-column.csv": "Additional properties are not allowed",
    "csv-missing-column.csv": "is a required property",
    "csv-no-source.csv": "is too short",
}


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft202012Validator:
    schema = quote_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def row_validator(validator) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/row", "$defs": validator.schema["$defs"]})


def test_the_shipped_schema_is_current_and_printed_by_the_cli():
    assert SHIPPED.read_text(encoding="utf-8") == schema_text()  # regenerate: see the module
    out = CliRunner().invoke(cli, ["schema", "--quote"])
    assert out.exit_code == 0 and json.loads(out.output) == quote_schema()
    assert json.loads(CliRunner().invoke(cli, ["schema"]).output)["title"] != "tco quote file"


@pytest.mark.parametrize("name", sorted(p.name for p in pricing_dir().glob("*.yaml")))
def test_every_shipped_catalog_file_has_the_shape_of_a_quote_file(validator, name):
    """A quote file is a partial catalog: each shipped file is a valid (complete) one."""
    doc = load_yaml(pricing_dir() / name).data
    errors = sorted(validator.iter_errors(doc), key=str)
    assert not errors, errors[0].message


def test_a_yaml_quote_of_some_fields_of_a_record_validates(validator, tmp_path):
    path = tmp_path / "q.yaml"
    path.write_text("card_prices:\n  - id: h100-sxm\n    price_usd: {value: 24000, source: "
                    "ACME quote 2026-11, as_of: 2026-11}\nexchange_rates:\n  CNY: {value: 7.2, "
                    "source: bank quote, as_of: 2026-11-30}\n", encoding="utf-8")
    assert not list(validator.iter_errors(load_yaml(path).data))


@pytest.mark.parametrize("path", GOOD_CSV, ids=lambda p: p.name)
def test_test_csv_quotes_validate_row_by_row(validator, path):
    check = row_validator(validator)
    assert rows(path)
    for row in rows(path):
        assert not list(check.iter_errors(row)), row


def test_a_rows_as_of_is_in_ascii_digits(validator):
    """The row schema's as_of pattern said \\d, which a validator in Python (jsonschema) reads
    as any digit: a full-width ２０２６-１１, which --catalog refuses, passed the schema."""
    check = row_validator(validator)
    row = {"id": "h100-sxm", "field": "price_usd", "value": "24000", "source": "ACME quote",
           "as_of": "2026-11"}
    assert not list(check.iter_errors(row))
    errors = [e.message for e in check.iter_errors({**row, "as_of": "２０２６-１１"})]
    assert errors == ["'２０２６-１１' does not match '^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$'"]


@pytest.mark.parametrize(("name", "message"), sorted(SCHEMA_FAULTS.items()))
def test_faults_a_schema_can_see_fail_it(validator, name, message):
    errors = [e.message for e in validator.iter_errors(load_yaml(BAD / name).data)]
    assert any(message in e for e in errors), errors


@pytest.mark.parametrize(("name", "message"), sorted(CSV_FAULTS.items()))
def test_bad_csv_rows_fail_the_row_schema(validator, name, message):
    check = row_validator(validator)
    errors = [e.message for row in rows(BAD / name) for e in check.iter_errors(row)]
    assert any(message in e for e in errors), errors
