"""A money axis counts thousands in thousands: the report's charts wrote $69,100 as "$6.91k"
(the unit of 万, 10,000, with the English suffix k) beside a table saying $69k."""

from __future__ import annotations

import re

from tco.engine import compute
from tco.exporters.fmt import axis_money, money
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text


def test_thousands_are_thousands():
    label = axis_money([69_100.0, 59_400.0], "USD")
    assert [label(x) for x in (69_100.0, 59_400.0, 7_500.0, 0.0)] == [
        "$69.1k", "$59.4k", "$7.5k", "$0.0k"]
    assert axis_money([691_000.0], "EUR")(691_000.0) == "€691k"
    assert axis_money([6_910.0], "USD")(6_910.0) == "$6,910"  # below 10,000: whole units
    assert axis_money([2_500_000.0], "USD")(2_500_000.0) == "$2.50M"
    # Chinese counts in 万 (10,000) and 亿 (10^8), as its tables do
    assert axis_money([69_100.0], "CNY", "zh")(69_100.0) == "¥6.91万"
    assert money(69_100.0, "CNY", "zh") == "¥6.9万"


def test_the_cost_chart_and_the_table_agree(catalog):
    # one H100 run of a 7B model on 64 cards costs some $59k: the table's figure and the bar's
    # label are the same amount
    r = compute(load_scenario_text(
        "name: axis\nrent_options: none\nworkloads:\n"
        "  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}\n"
        "candidates:\n  - {id: a, card: h100-sxm, cards: 64}\n"), catalog)
    cost = r.candidate("a").job["cost_per_job"]
    assert 10_000 < cost < 100_000
    page = render_html(r)
    chart = page[page.index('id="chart-cost"'):]
    bar = re.search(r">  (\$[0-9.,]+k)</text>", chart).group(1)  # the bar's total
    assert bar == f"${cost / 1e3:.1f}k"
    assert money(cost, "USD") == f"${cost / 1e3:,.0f}k"
