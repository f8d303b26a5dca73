"""One registry of output fields (tco/exporters/fields.py, issue 26): the JSON and CSV keys,
the report's comparison table (and the live page, which rewrites its cells) and the
workbook's ranking table all read a figure's quantity, its heading and how it is written
from one `Field`. Checked on the example: the same figure is the same number in every
output, under the registry's heading, written as its unit says."""

from __future__ import annotations

import csv
import io
import re

import openpyxl
import pytest

from tco.exporters import fields
from tco.exporters.data import compare_csv, compare_dict
from tco.exporters.html import render_html
from tco.exporters.i18n import Strings
from tco.exporters.xlsx import write_workbook


def test_a_figure_is_written_as_its_unit_says():
    # worked out from the units: an amount, an amount per card-hour, days, a share, hours
    assert fields.field("npv_tco").form == "money"
    assert fields.field("cost_per_gpu_hour").form == "price"
    assert fields.field("wall_days_per_job").form == "days"
    assert fields.field("plan_delivered_fraction").form == "share"
    assert fields.field("gpu_hours_per_job").form == "count"
    assert {fields.REPORT_FORMS[fields.field(k).form] for k in fields.COMPARISON} == {
        "money", "days"}
    assert fields.WORKBOOK_FORMS["price"] == "price" and fields.WORKBOOK_FORMS["money"] == \
        "amount"
    # every figure a table shows has its heading in both languages
    for key in {*fields.COMPARISON, *fields.SUMMARY_FIGURES}:
        label = fields.field(key).label
        assert label and Strings("en")(label) and Strings("zh")(label), key


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_comparison_reads_the_registry(example, lang):
    html = render_html(example, lang)
    table = html[html.index('id="comparison"'):]
    table = table[:table.index("</table>")]
    heads = re.findall(r'<th scope="col"[^>]*>([^<]*)</th>', table)
    s = Strings(lang)
    assert heads[3:3 + len(fields.COMPARISON)] == [s(fields.field(k).label)
                                                    for k in fields.COMPARISON]
    data = {c["id"]: c for c in compare_dict(example)["candidates"]}
    checked = 0
    for f in map(fields.field, fields.COMPARISON):
        kind = fields.REPORT_FORMS[f.form]
        cells = re.findall(rf'data-key="{f.quantity}" data-value="([^"]+)" '
                           rf'data-option="([^"]+)"[^>]*? data-f="([^"]+)"', table)
        assert cells, f.key
        for value, cid, fmt in cells:
            assert fmt == kind, (f.key, fmt)
            assert float(value) == data[cid][f.key], (f.key, cid)
            checked += 1
    assert checked >= 4 * 10


def test_the_workbook_and_the_csv_read_the_registry(example, tmp_path):
    result = example
    path = tmp_path / "w.xlsx"
    write_workbook(result, path)
    ws = openpyxl.load_workbook(path).worksheets[0]
    rows = [[c.value for c in row] for row in ws.iter_rows()]
    head = next(r for r in rows if r[:2] == ["Rank", "Candidate"])
    titles = [Strings("en")(fields.field(k).label) + (" (days)" if fields.field(k).form ==
                                                       "days" else "")
              for k in fields.SUMMARY_FIGURES]
    assert head[4:4 + len(titles)] == titles
    # the cached values of the ranking table are the JSON's and the CSV's numbers
    cached = openpyxl.load_workbook(path, data_only=True).worksheets[0]
    values = [[c.value for c in row] for row in cached.iter_rows()]
    start = rows.index(head) + 1
    data = {c["id"]: c for c in compare_dict(result)["candidates"]}
    table = {r["id"]: r for r in csv.DictReader(io.StringIO(compare_csv(result)))}
    checked = 0
    for row in values[start:]:
        if not isinstance(row[0], int) or row[1] not in data:
            break
        for col, key in enumerate(fields.SUMMARY_FIGURES, start=4):
            if row[col] is None:
                continue
            assert row[col] == pytest.approx(data[row[1]][key], rel=1e-12), (row[1], key)
            if key in table[row[1]] and table[row[1]][key]:
                assert float(table[row[1]][key]) == pytest.approx(row[col], rel=1e-12)
            checked += 1
    assert checked >= 5 * 10
