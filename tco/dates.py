"""The date written into outputs: the workbook's properties and "Generated" date, the report's
date (HTML and PDF).

It is today's date in UTC, or, when the environment variable SOURCE_DATE_EPOCH is set, the UTC
date of that many seconds since 1970-01-01 (https://reproducible-builds.org/specs/source-date-epoch/),
so that the same inputs give byte-identical files. The time zone (TZ) never changes it.

One rule for every output: SOURCE_DATE_EPOCH must be a whole number of seconds written in ASCII
digits (as `date +%s` prints it), from 0 to MAX_EPOCH (the last second of 9999-12-31, the last
date Python's datetime holds); anything else is an error naming the variable, never a silent
fallback to today. Set but empty counts as not set. A command that writes several files reads
it once (`output_date()`) and gives every file that one date.
"""

from __future__ import annotations

import datetime as dt
import os
import re

from .errors import TcoError

ENV = "SOURCE_DATE_EPOCH"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
MAX_EPOCH = int((dt.datetime(9999, 12, 31, 23, 59, 59, tzinfo=dt.UTC) - _EPOCH).total_seconds())


def parse_epoch(raw: str) -> dt.date:
    """The UTC date of a SOURCE_DATE_EPOCH value; TcoError naming the variable if it is not a
    whole number of seconds from 0 to MAX_EPOCH."""
    shown = raw if len(raw) <= 40 else raw[:37] + "..."
    if not re.fullmatch(r"[0-9]+", raw):
        raise TcoError(f"{ENV}={shown!r}: expected a whole number of seconds since "
                       "1970-01-01 UTC in digits 0-9, as `date +%s` prints it")
    digits = raw.lstrip("0") or "0"
    if len(digits) > len(str(MAX_EPOCH)) or int(digits) > MAX_EPOCH:
        raise TcoError(f"{ENV}={shown}: out of range; expected 0 to {MAX_EPOCH} "
                       "(1970-01-01 to 9999-12-31 UTC)")
    return (_EPOCH + dt.timedelta(seconds=int(digits))).date()


def output_date() -> dt.date:
    """Today (UTC), or the UTC date of SOURCE_DATE_EPOCH when it is set."""
    raw = os.environ.get(ENV)
    if raw is None or raw == "":
        return dt.datetime.now(tz=dt.UTC).date()
    return parse_epoch(raw)
