"""The plan's dates and its waits in words (tco.plan, methodology §19): what the table, the
report and JSON's `plan.facts` share. Presentation only; it reads nothing but the Result."""

from __future__ import annotations

from typing import Any

from ..result import Result
from .fmt import money

MONTHS_PER_YEAR = 12


def months_of(years: float) -> int:
    """Whole months after the decision of a time in years (the plan's periods are whole
    months, so this is exact up to float rounding)."""
    return round(years * MONTHS_PER_YEAR)


def month_label(result: Result, years: float, month_word: str = "month {n}") -> str:
    """The calendar month (YYYY-MM) `years` after the decision when the scenario has a start,
    else "month N" (`month_word` with {n}, for another language)."""
    n = months_of(years)
    start = getattr(result.scenario, "start", None)
    if not start:
        return month_word.format(n=n)
    y, m = (int(x) for x in start.split("-"))
    total = y * MONTHS_PER_YEAR + (m - 1) + n
    return f"{total // MONTHS_PER_YEAR:04d}-{total % MONTHS_PER_YEAR + 1:02d}"


WAIT_VERBS = {"buy": "buying", "lease": "leasing", "rent": "renting"}


def wait_text(result: Result, w: Any) -> str:
    """A wait of the plan (tco.plan.Wait) in English: JSON's `plan.facts` and the table's."""
    return (f"waits for {w.card} (on sale from "
            f"{month_label(result, w.on_sale_month / MONTHS_PER_YEAR)}): "
            f"{WAIT_VERBS[w.action]} it from "
            f"{month_label(result, w.month / MONTHS_PER_YEAR)} costs "
            f"{money(w.saving, result.currency)} less than the best plan with {w.rival}, "
            "on sale now")
