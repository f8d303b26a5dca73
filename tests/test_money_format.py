"""Amounts written short ($1.23M, $456k): an amount that rounds up to a thousand of one scale
is written in the next (the live page's formatter is held to this one in Chromium,
tests/test_report_live.py)."""

import pytest

from tco.exporters.fmt import money


@pytest.mark.parametrize(("x", "written"), [
    (999_499.0, "$999k"),
    (999_500.0, "$1.00M"),  # not $1,000k
    (999_567.0, "$1.00M"),
    (1_000_000.0, "$1.00M"),
    (-999_600.0, "-$1.00M"),
    (999_994_999.0, "$999.99M"),
    (999_995_000.0, "$1.00B"),  # not $1,000.00M
    (12_345.0, "$12k"),
    (9_999.5, "$9,999.50"),
])
def test_an_amount_is_written_in_the_scale_it_rounds_to(x, written):
    assert money(x, "USD") == written
