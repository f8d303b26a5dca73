"""Workbook defined names, made from input paths and candidate ids by one documented rule.

    facility.electricity_price_per_kwh   ->  facility_electricity_price_per_kwh
    candidates.h100-sxm.card_price       ->  candidates_h100_sxm_card_price
    (headline output of candidate h100-sxm)  npv_tco_h100_sxm

The rule (README "Workbook defined names", docs/workbook.md):

1. lowercase; every run of characters other than a-z and 0-9 becomes one `_`;
2. a name that a spreadsheet could read as something else gets a leading `_`: one starting with a
   digit, one shaped like an A1 cell reference (1-3 letters then digits: `a100`, `xfd1`), one
   shaped like an R1C1 reference (`r`, `c`, `r1`, `c12`, `r1c1`), TRUE/FALSE, and the names Excel
   reserves for itself (`print_area`, ...);
3. when two paths give the same name (candidates `h100-sxm` and `h100_sxm`), the first keeps it
   and later ones get `_2`, `_3`, ... in workbook order (inputs first, in Assumptions order,
   then headline outputs in candidate order).
"""

from __future__ import annotations

import re

_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_A1_LIKE = re.compile(r"^[a-z]{1,3}[0-9]+$")
_R1C1_LIKE = re.compile(r"^(r[0-9]*c?[0-9]*|c[0-9]*)$")
_RESERVED = {
    "true", "false", "print_area", "print_titles", "criteria", "extract", "database",
    "consolidate_area", "sheet_title", "auto_open", "auto_close", "recorder",
}
MAX_NAME_CHARS = 255


def base_name(text: str) -> str:
    """Rules 1 and 2: the defined name for a dotted path or id, before de-duplication."""
    name = _NON_ALNUM.sub("_", text.lower())
    if not name or name == "_":
        name = "_x"
    if name[0].isdigit() or _A1_LIKE.match(name) or _R1C1_LIKE.match(name) or name in _RESERVED:
        name = "_" + name
    return name[:MAX_NAME_CHARS]


class NameRegistry:
    """Hands out unique defined names (rule 3) and remembers what each refers to."""

    def __init__(self) -> None:
        self._taken: set[str] = set()
        self.names: dict[str, str] = {}  # key (input path or "npv_tco:<cid>") -> defined name

    def claim(self, key: str, text: str) -> str:
        base = base_name(text)
        name, n = base, 1
        while name in self._taken:
            n += 1
            name = f"{base}_{n}"
        self._taken.add(name)
        self.names[key] = name
        return name
