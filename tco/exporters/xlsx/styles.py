"""Cell styles and number formats of the workbook (presentation only: values stay full floats).

Convention: inputs are blue on pale yellow and unlocked; formulas are black and locked; values
computed once by the engine (sensitivity, Monte Carlo) are grey italics.
"""

from __future__ import annotations

import math
from typing import Any

from xlsxwriter.format import Format
from xlsxwriter.workbook import Workbook

from ..fmt import SYMBOLS, WAN, YI, zh_unit
from ..i18n import Words

_ROLES: dict[str, dict[str, Any]] = {
    "text": {"valign": "top"},
    "wrap": {"valign": "top", "text_wrap": True},
    "title": {"bold": True, "font_size": 14},
    "subtitle": {"italic": True, "font_color": "#595959"},
    "header": {"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "valign": "top",
               "text_wrap": True},
    "header_right": {"bold": True, "bg_color": "#D9E1F2", "bottom": 1, "valign": "top",
                     "align": "right"},
    "section": {"bold": True, "bg_color": "#F2F2F2"},
    "label": {"bold": True},
    "rank": {"align": "center"},
    "input": {"font_color": "#0000FF", "bg_color": "#FFF2CC", "locked": False, "border": 1,
              "border_color": "#BFBFBF"},
    "formula": {},
    "total": {"bold": True, "top": 1},
    "static": {"italic": True, "font_color": "#404040"},
    "note": {"italic": True, "font_color": "#7F7F7F", "text_wrap": True, "valign": "top"},
    "warning": {"bold": True, "font_color": "#C00000"},
}


WHOLE_UNITS = {"cards", "nodes"}  # counts the model keeps whole (ROUNDUP, MIN of counts)


def money_format(currency: str, value: float, lang: str = "en", price: bool = False,
                 size: float | None = None, zero: str = '"-"') -> str:
    """`"$"#,##0` for amounts, more decimals for unit prices such as a tariff per kWh.

    In Chinese, CNY amounts are shown in 万 (`¥5000.0万`) or 亿 (`¥1.23亿`), as the zh report
    writes them (tco.exporters.fmt): in `size`, the unit of the amount's column (fmt.zh_unit of
    the column's amounts, so one column never mixes 万 and 亿), or else the one its own value
    calls for. A price per unit (`price`: money per card, per kWh, per card-hour) is written in
    full, as the assumptions show it. The cell keeps the full value; only its display is scaled
    (`,` divides by 1,000 and the escaped `\\.` is a literal point before the last digit:
    50,000,000 shows as ¥5000.0万, in Excel and LibreOffice alike; digit grouping is left out,
    as it would group around the literal point). `zero` is the zero section (a dash in tables;
    a chart axis writes its zero as ¥0)."""
    sym = SYMBOLS.get(currency, currency + " ")
    quoted = f'"{sym}"'
    a = abs(value) if math.isfinite(value) else 0.0
    if lang == "zh" and currency == "CNY" and not price:  # other currencies in full
        size = size if size is not None else zh_unit([a])
        if size in (WAN, YI):
            digits = '0\\.00,,"亿"' if size == YI else '0\\.0,"万"'
            return f'{quoted}{digits};-{quoted}{digits};{zero}'
    digits = "#,##0" if a >= 100 or a == 0 else ("#,##0.00" if a >= 1 else "#,##0.0000")
    return f'{quoted}{digits};-{quoted}{digits};{zero}'  # zero shows as a dash


def is_price(unit: str) -> bool:
    """Money per something (`CNY/card-h`, `money/kWh`), not an amount (`CNY`, `money`)."""
    return "/" in unit


def number_format(unit: str, value: float, currency: str, lang: str = "en",
                  size: float | None = None) -> str | None:
    """The number format for a value of this unit, or None for the General format; `size`:
    the unit of the column's amounts (money_format)."""
    if unit == "flag":
        return None
    if unit.startswith((currency, "money")):
        return money_format(currency, value, lang, price=is_price(unit), size=size)
    if unit == "fraction":
        return "0.00%"
    if unit in WHOLE_UNITS:
        return "#,##0"
    a = abs(value) if math.isfinite(value) else 0.0
    if a >= 1e9 or (0 < a < 1e-3):
        return "0.000E+00"
    if a >= 100 or a == 0:
        return "#,##0"
    if a >= 1:
        return "#,##0.00"
    return "0.0000"


class Styles:
    """One xlsxwriter Format per (role, number format), created on first use."""

    def __init__(self, workbook: Workbook, currency: str, words: Words | None = None) -> None:
        self._wb = workbook
        self.currency = currency
        self.t = words or Words("en")  # the workbook's words (tco.exporters.i18n)
        self.lang = self.t.lang
        self._cache: dict[tuple[str, str | None], Format] = {}

    def __call__(self, role: str = "text", num_format: str | None = None) -> Format:
        key = (role, num_format)
        if key not in self._cache:
            props = dict(_ROLES[role])
            if num_format:
                props["num_format"] = num_format
            self._cache[key] = self._wb.add_format(props)
        return self._cache[key]

    def value(self, role: str, unit: str, value: float, size: float | None = None) -> Format:
        return self(role, number_format(unit, value, self.currency, self.lang, size))

    def money(self, role: str, value: float, size: float | None = None) -> Format:
        return self(role, money_format(self.currency, value, self.lang, size=size))
