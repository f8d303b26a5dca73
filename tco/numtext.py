"""Numbers written as text: the one rule every reader of tco's files applies.

A number may reach tco as text: a CSV or xlsx quote cell, a quoted YAML scalar ("2e12"), or
an unquoted YAML 1.2 float (`2e12`, `1.5e3`) that YAML 1.1 parsers such as PyYAML read as
text. tco takes such text as a number when it is a plain decimal number, optionally with an
exponent and surrounding spaces, and nothing else:

    70e9    2.5e12    0.85    .5    -3    +1.5E-3    064 (text: decimal 64)

Not numbers: `nan`, `inf`, `1_000` (Python would read them), `0x40`, `1,000`, `12%`. The JSON
Schemas (tco/schemas/*.json) accept the same text by the same pattern (`NUMBER_PATTERN`), so a
file that validates with PyYAML + jsonschema is one tco reads, and the other way round.

What YAML parsers read differently (`064`, `1:04`, `1_000`, `yes`) is refused where the file
is read (tco.yamlio); this module only turns accepted text into numbers (and tco.numfields
makes the rule the models' number types). It imports no pydantic: a quick what-if reads
numbers without it.
"""

from __future__ import annotations

import re
from typing import Any

# A plain decimal number, optionally with an exponent: the one pattern, for the files' number
# text, `--set` values and the live page. ASCII digits [0-9], never \d: Python's \d (and float())
# take ٣ and ０, JavaScript's does not. Only groups `( )`, so that it means the same in Python
# and in ECMA 262, the regular expressions of JSON Schema and of the browser.
NUMBER = r"[-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][-+]?[0-9]+)?"
# numeric text in a file: the number with spaces around it (the JSON Schemas' pattern)
NUMBER_PATTERN = rf"^\s*{NUMBER}\s*$"
_NUMBER = re.compile(NUMBER_PATTERN)
LARGEST = 1.7976931348623157e308


def number_from_text(text: str) -> float | None:
    """The number `text` writes (None when it is not a number by the rule above). A number too
    large for a float (1e400) is infinite: callers refuse it, quoting the text."""
    if len(text) > 400 or not _NUMBER.match(text):  # a longer one is not a plausible number
        return None
    return float(text)


def accept_number_text(schema: Any) -> Any:
    """A JSON Schema where every number (and integer) may also be numeric text by the rule
    above: what YAML 1.1 parsers (PyYAML) make of `2e12`, and what a CSV cell holds. The text's
    range and whether it is whole are checked by tco itself (JSON Schema cannot compare text
    as numbers)."""
    if isinstance(schema, list):
        return [accept_number_text(x) for x in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: accept_number_text(v) for k, v in schema.items()}
    if out.get("type") in ("number", "integer"):
        number = {k: out.pop(k) for k in ("type", "minimum", "maximum", "exclusiveMinimum",
                                          "exclusiveMaximum") if k in out}
        out["anyOf"] = [number, {"type": "string", "pattern": NUMBER_PATTERN}]
    if isinstance(out.get("anyOf"), list):  # flattened: [number, text, null], not nested
        flat: list[Any] = []
        for branch in out["anyOf"]:
            nested = branch.get("anyOf") if isinstance(branch, dict) else None
            for b in (nested if nested and set(branch) == {"anyOf"} else [branch]):
                if b not in flat:
                    flat.append(b)
        out["anyOf"] = flat
    return out
