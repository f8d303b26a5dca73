"""The JSON Schema of a quote file (`tco schema --quote`), for editors and tools.

A quote file is layered over the shipped catalog (`--catalog FILE`) in one of two forms:

* YAML: a partial catalog document, the sections of pricing/*.yaml (card_prices, accelerators,
  platforms, ...), each record named by its id and giving any of its fields; every number is a
  sourced figure (value or low/typical/high, source, as_of). The schema's top level.
* CSV or xlsx: a sheet of rows id, field, value, source, as_of (optional low, high, note,
  currency); `$defs/row` is one row, as the cells read (numbers may be text, as a CSV has them).

The shapes come from the catalog's own validation models (tco.catalog, pydantic), so the schema
and the checks `--catalog` makes cannot say different things about which sections, fields and
figure keys exist; the checks that need the catalog (does the card exist, is the date real, is
the price in whole units) are `--catalog`'s own. The shipped copy is
tco/schemas/quote.schema.json; regenerate it with

    python -m tco.quote_schema tco/schemas/quote.schema.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import BaseModel

from .catalog import (
    _LIST_SECTIONS,
    _MAP_SECTIONS,
    _QUOTE_CURRENCIES,
    _SHEET_COLUMNS,
    Figure,
    Missing,
    _figure_fields,
)
from .numtext import NUMBER_PATTERN, accept_number_text
from .schema_shape import stable

SCHEMA_ID = "https://github.com/tco-project/tco/schemas/quote.schema.json"
JsonObj = dict[str, Any]


def _record(model: type[BaseModel], key_field: str, defs: JsonObj) -> JsonObj:
    """A catalog record as a quote gives it: its id and any of its other fields."""
    schema = model.model_json_schema(ref_template="#/$defs/{model}")
    for name, sub in schema.pop("$defs", {}).items():
        defs.setdefault(name, sub)
    schema["required"] = [key_field]  # a quote sets some fields of a record, not all
    schema["description"] = (schema.get("description", "") + " A quote gives the record's "
                             f"`{key_field}` and the fields it changes.").strip()
    props = schema["properties"]
    figure, missing = {"$ref": "#/$defs/Figure"}, {"$ref": "#/$defs/Missing"}
    # a figure that may have no public value is that figure or {missing, as_of} (the model
    # moves it to `missing` before validating); the if/then keeps a typo's own message
    either = {"if": {"type": "object", "required": ["missing"]}, "then": missing,
              "else": figure}
    for field in getattr(model, "MAY_BE_MISSING", ()):
        props[field] = {**either, "description": f"{field}, or {{missing: why, as_of}} when no "
                                                 "public figure exists"}
    # a money figure may be written in the currency it was quoted in: `price_cny`
    for field in _figure_fields(model):
        if "_usd" not in field:
            continue
        for cur in ("cny", "eur"):
            named = field.replace("_usd", f"_{cur}", 1)
            props[named] = {**(either if field in getattr(model, "MAY_BE_MISSING", ())
                               else figure),
                            "description": f"{field} quoted in {cur.upper()}, converted once "
                                           "at the catalog's rate"}
    return schema


def _row() -> JsonObj:
    number = {"anyOf": [{"type": "number"}, {"type": "string", "pattern": NUMBER_PATTERN}]}
    optional_number = {"anyOf": [*number["anyOf"], {"type": "string", "maxLength": 0},
                                 {"type": "null"}]}
    text = {"type": "string", "minLength": 1}
    return {
        "type": "object",
        "description": "One row of a CSV or xlsx quote file: where the figure goes (the "
                       "record's id and the figure's field), its value, source and date. A "
                       "price may be given in CNY or EUR by a currency column or by naming the "
                       "field (`price_cny` for `price_usd`); it is converted once, at the "
                       "catalog's rate.",
        "properties": {
            "id": {**text, "description": "The record: a card, platform, stack, region, ... "
                                          "id, or exchange_rates / assumptions"},
            "field": {**text, "description": "The figure, e.g. price_usd, price_cny, "
                                             "lead_time_weeks, memory_gb"},
            "value": {**number, "description": "The number (whole currency units for money)"},
            "source": {"type": "string", "minLength": 3,
                       "description": "Where the number comes from (a quote, a URL)"},
            # [0-9]: a validator in Python reads \d as any digit (２０２６), as --catalog does not
            "as_of": {"type": "string", "pattern": r"^[0-9]{4}(-[0-9]{2}(-[0-9]{2})?)?$",
                      "description": "Date of the figure: YYYY, YYYY-MM or YYYY-MM-DD"},
            "low": optional_number, "high": optional_number,
            "note": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "currency": {"anyOf": [{"enum": [*_QUOTE_CURRENCIES, ""]}, {"type": "null"}],
                         "description": "Currency of value, low and high (USD when empty)"},
        },
        "required": list(_SHEET_COLUMNS),
        "additionalProperties": False,
    }


def quote_schema() -> JsonObj:
    defs: JsonObj = {}
    props: JsonObj = {}
    for section, (key_field, model) in _LIST_SECTIONS.items():
        name = "RegionalCloudPriceQuote" if section == "regional_cloud_prices" else \
            f"{model.__name__}Quote"
        defs[name] = _record(model, key_field, defs)
        props[section] = {"type": "array", "items": {"$ref": f"#/$defs/{name}"},
                          "description": f"Records of pricing/ section `{section}`, by "
                                         f"`{key_field}`"}
    figure = Figure.model_json_schema(ref_template="#/$defs/{model}")
    defs.setdefault("Figure", figure)
    defs.setdefault("Missing", Missing.model_json_schema(ref_template="#/$defs/{model}"))
    for section in _MAP_SECTIONS:
        props[section] = {"type": "object", "additionalProperties": {"$ref": "#/$defs/Figure"},
                          "description": f"Figures of `{section}`, by name"}
    defs["row"] = _row()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "tco quote file",
        "description": "A quote file layered over the shipped catalog with --catalog. The YAML "
                       "form is this object (a partial catalog); each row of the CSV or xlsx "
                       "form is #/$defs/row.",
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "minProperties": 1,
        "$defs": accept_number_text(stable(dict(sorted(defs.items())))),
    }


def schema_text() -> str:
    return json.dumps(quote_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"


if __name__ == "__main__":
    text = schema_text()
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)
