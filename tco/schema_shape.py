"""pydantic's JSON Schema in one shape whichever pydantic release is installed: the shipped
schema files (tco/schemas/, written by tco.scenario_schema and tco.quote_schema) must not
depend on it. pyproject.toml allows pydantic 2.5 to the newest; the releases write the same
models differently, in ways no validator or editor should see:

* a lone `allOf: [{$ref}]` is the `$ref` itself (older releases wrap a model's reference);
* a `const` states its type (newer releases write it);
* a union's bounds written as `ge`/`le`/`gt`/`lt` beside its `anyOf` (newer releases; keys JSON
  Schema does not know) are left out: the schema that needs bounds writes them as
  `minimum`/`maximum` from the models themselves (tco.scenario_schema);
* a `dict[str, Any]` written as `additionalProperties: true` (the default) is left out;
* an array's length bounds are `minItems`/`maxItems` (pydantic 2.5 writes a tuple's
  `min_length` as `minLength`, a string's keyword no validator applies to an array).
"""

from __future__ import annotations

from typing import Any

_JSON_TYPES = {str: "string", bool: "boolean", int: "integer", float: "number"}
_ARRAY_LENGTHS = {"minLength": "minItems", "maxLength": "maxItems"}


def stable(node: Any) -> Any:
    """`node` (a schema or any part of one) in the shape above."""
    if isinstance(node, list):
        return [stable(v) for v in node]
    if not isinstance(node, dict):
        return node
    renamed = _ARRAY_LENGTHS if node.get("type") == "array" else {}
    out = {renamed.get(k, k): stable(v) for k, v in node.items()}
    if "const" in out and "type" not in out and type(out["const"]) in _JSON_TYPES:
        out["type"] = _JSON_TYPES[type(out["const"])]
    all_of = out.get("allOf")
    if isinstance(all_of, list) and len(all_of) == 1 and set(all_of[0]) == {"$ref"}:
        del out["allOf"]
        out["$ref"] = all_of[0]["$ref"]
    for key in ("ge", "le", "gt", "lt"):
        out.pop(key, None)
    if out.get("additionalProperties") is True and out.get("type") == "object":
        del out["additionalProperties"]
    return out
