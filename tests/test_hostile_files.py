"""Hostile files (issue 25), class by class: what every YAML parser does not read alike, files
that exhaust resources from a few kilobytes, exchange rates that move other files' money,
characters that break the outputs, and the Python API accepting what the CLI refuses.

Each bad input is run through the CLI (exit 2, one `tco: error:` line naming the file, field and
what was written, no traceback, nothing written) and through the Python API (the same message
as a TcoError). One-file cases are in the corpus (tests/bad_inputs/cases.yaml); these need a
generated file, two files, or a comparison of the two ways in."""

from __future__ import annotations

import csv
import functools
import json
import math
import operator
import re
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from click.testing import CliRunner
from openpyxl import Workbook, load_workbook
from refusals import one_error, scenario_refused

import tco
from tco.cli import cli
from tco.errors import CatalogError, ScenarioError, TcoError
from tco.numtext import NUMBER_PATTERN, number_from_text
from tco.quote_schema import quote_schema
from tco.resources import pricing_dir
from tco.scenario_schema import scenario_schema
from tco.yamlio import load_yaml_text

ROOT = Path(__file__).resolve().parents[1]
SHIPPED_SCENARIOS = sorted((ROOT / "tco" / "scenarios").glob("*.yaml"))
SMALL = """\
name: small
workloads:
  - {id: w, params: 7.0e+9, tokens: 1.0e+11, runs_per_year: 2}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
"""
HEADER = "id,field,value,source,as_of\n"


def run(args: list[str]) -> Any:
    return CliRunner().invoke(cli, args)


def api_error(call: Any) -> str:
    with pytest.raises(TcoError) as info:
        call()
    return str(info.value)


def compare_writes_nothing(tmp_path: Path, *args: str) -> str:
    """`tco compare ARGS -o out.json` fails with one message and leaves a previous output as it
    was; the message."""
    out = tmp_path / "out.json"
    out.write_text("previous\n")
    msg = one_error(run(["compare", *args, "-o", str(out)]))
    assert out.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.glob(".*")) == []  # no temporary file left
    return msg


# --- 1. YAML numbers every parser reads alike -------------------------------------------------


def _same(a: Any, b: Any, path: str = "") -> list[str]:
    """Where two parsed documents differ (numbers compared by value: 7 and 7.0 are one)."""
    if isinstance(a, dict) and isinstance(b, dict):
        if list(map(str, a)) != list(map(str, b)):
            return [f"{path}: keys {list(a)} != {list(b)}"]
        return [d for k in a for d in _same(a[k], b[k], f"{path}.{k}")]
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{path}: {len(a)} items != {len(b)}"]
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in _same(x, y, f"{path}.{i}")]
    numbers = (int, float)
    if type(a) in numbers and type(b) in numbers:
        return [] if a == b else [f"{path}: {a!r} != {b!r}"]
    return [] if (type(a), a) == (type(b), b) else [f"{path}: {a!r} != {b!r}"]


def _doc_yaml_blocks() -> list[tuple[str, str]]:
    out = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        text = doc.read_text(encoding="utf-8")
        for m in re.finditer(r"```ya?ml\n(.*?)```", text, re.DOTALL):
            out.append((f"{doc.name}:{text[:m.start()].count(chr(10)) + 2}", m.group(1)))
    return out


SHIPPED_YAML = ([(p.relative_to(ROOT).as_posix(), p.read_text(encoding="utf-8"))
                 for p in [*sorted(pricing_dir().glob("*.yaml")), *SHIPPED_SCENARIOS]]
                + _doc_yaml_blocks())


@pytest.mark.parametrize("name, text", SHIPPED_YAML, ids=[n for n, _ in SHIPPED_YAML])
def test_shipped_yaml_reads_the_same_to_pyyaml_and_tco(name: str, text: str) -> None:
    """PyYAML (YAML 1.1) and tco read every shipped file alike; tco reads as YAML 1.2 where the
    two differ and refuses what YAML 1.1 and 1.2 read differently, so all three agree."""
    assert _same(yaml.safe_load(text), load_yaml_text(text, name).data) == []


@pytest.mark.parametrize("path", SHIPPED_SCENARIOS, ids=lambda p: p.name)
def test_shipped_scenarios_validate_with_pyyaml_and_jsonschema(path: Path) -> None:
    schema = json.loads((ROOT / "tco" / "schemas" / "scenario.schema.json").read_text())
    jsonschema.validate(yaml.safe_load(path.read_text(encoding="utf-8")), schema)


def test_the_starter_validates_with_pyyaml_and_jsonschema(tmp_path: Path) -> None:
    starter = tmp_path / "mine.yaml"
    assert run(["init", str(starter)]).exit_code == 0
    schema = json.loads(run(["schema"]).stdout)
    jsonschema.validate(yaml.safe_load(starter.read_text(encoding="utf-8")), schema)


@pytest.mark.parametrize("name", sorted(p.name for p in pricing_dir().glob("*.yaml")))
def test_shipped_catalog_validates_with_pyyaml_as_a_quote(name: str) -> None:
    data = yaml.safe_load((pricing_dir() / name).read_text(encoding="utf-8"))
    jsonschema.validate(data, quote_schema())


def test_exponents_pyyaml_reads_as_text_validate_and_mean_the_same() -> None:
    """`tokens: 2e12` is text to PyYAML: the schema accepts it as numeric text, and tco reads
    the number PyYAML + float() would."""
    text = ("workloads:\n  - {id: w, params: 7e9, tokens: 2e12, seq_len_tokens: 4.096E3}\n"
            "candidates:\n  - {id: h100, card: h100-sxm, cards: 64, card_price: 2.5e4}\n")
    data = yaml.safe_load(text)
    assert data["workloads"][0]["tokens"] == "2e12"  # YAML 1.1
    jsonschema.validate(data, scenario_schema())
    ours = load_yaml_text(text, "s.yaml").data
    assert ours["workloads"][0] == {"id": "w", "params": 7e9, "tokens": 2e12,
                                    "seq_len_tokens": 4096.0}
    assert tco.compare(text).to_dict() == tco.compare(data).to_dict()  # text or dict: one result


NUMERIC_TEXTS = ["2e12", " 2.5e4 ", "25000", "0.85", ".5", "-3", "+1.5E-3", "064", "7.",
                 "nan", "NaN", "inf", "-Infinity", "1_000", "0x40", "1,000", "25000 USD", "12%",
                 "", " ", "1e400", "٢٥٠٠٠"]


@pytest.mark.parametrize("text", NUMERIC_TEXTS)
def test_numeric_text_has_one_rule_for_the_schema_the_scenario_and_quotes(text: str,
                                                                          tmp_path: Path) -> None:
    """A number written as text is one the schema's pattern accepts exactly when tco takes it:
    in a typed field, in a candidate's override and in a CSV quote cell (1e400 is numeric text
    but beyond a float: refused by tco as infinite, as its range is not the schema's)."""
    in_schema = jsonschema.Draft202012Validator(
        {"type": "string", "pattern": NUMBER_PATTERN}).is_valid(text)
    number = number_from_text(text)
    assert in_schema == (number is not None)
    from tco.resolve import resolve

    # tokens: plausible 1e6 to 1e15 (tco/inputs.py); a card price 100 to 1e6 USD
    for where, lo, hi, scale in (("tokens", 1e6, 1e15, 1e7), ("card_price", 100, 1e6, 1)):
        data = yaml.safe_load(SMALL)
        written = text if scale == 1 or number is None else f"{text.strip()}e7"
        data["workloads" if where == "tokens" else "candidates"][0][where] = written
        value = number_from_text(written)
        expected = value is not None and math.isfinite(value) and lo <= value <= hi
        try:
            resolve(*tco.load(data))
            accepted = True
        except ScenarioError as exc:
            accepted = False
            assert exc.field in (f"workloads.w.{where}", f"candidates.h100.{where}")
        assert accepted == expected, (where, written)
    quote = tmp_path / "q.csv"
    quote.write_text(HEADER + f'h100-sxm,price_usd,"{text}",ACME quote,2026-01\n')
    try:
        tco.load(None, [quote])
        accepted = True
    except CatalogError as exc:
        accepted = False
        assert exc.line == 2
    assert accepted == (number is not None and math.isfinite(number) and 100 <= number <= 1e6)


@pytest.mark.parametrize("value, expected", [
    ("064", "read a leading zero as 52 (octal), YAML 1.2 ones as the decimal 64"),
    ("1:04", "base-60 number (64), YAML 1.2 ones as text"),
    ("1_024", "read 1024, YAML 1.2 ones as text"),
    ("0x400", "hexadecimal notation; write the number in decimal (1024)"),
    ("0b10000000000", "binary notation; write the number in decimal (1024)"),
])
def test_ambiguous_integers_are_refused_alike_by_cli_and_api(value: str, expected: str,
                                                             tmp_path: Path) -> None:
    text = SMALL.replace("cards: 64", f"cards: {value}")
    path, msg = scenario_refused(tmp_path, text, "validate")
    assert msg.startswith(f"{path}:5: candidates.h100.cards: found {value}")
    assert expected in msg
    assert api_error(lambda: tco.compare(text)) == msg.replace(str(path), "<text>")


def test_ambiguous_scalars_in_a_quote_file_are_refused(tmp_path: Path) -> None:
    quote = tmp_path / "q.yaml"
    quote.write_text("card_prices:\n  - id: h100-sxm\n    price_usd: {value: 25_000, source: "
                     "ACME quote, as_of: '2026-01'}\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg == (f"{quote}:3: card_prices.h100-sxm.price_usd.value: found 25_000: YAML 1.1 "
                   "parsers (PyYAML) read 25000, YAML 1.2 ones as text; write 25000 without '_' "
                   "(or with an exponent, e.g. 2e12)")
    assert api_error(lambda: tco.load(None, [quote])) == msg


def test_quoted_forms_are_text_and_may_be_names(tmp_path: Path) -> None:
    text = SMALL.replace("name: small", "name: '1:04'").replace(
        "cards: 64}", "cards: 64, notes: '12:30 call', name: 'no'}")
    result = tco.compare(text).to_dict()
    assert result["scenario"] == "1:04"


@pytest.mark.parametrize(("old", "new", "expected"), [
    # a text field: the hint says how to write the text
    ("name: small", "name: .inf",
     ":1: name: expected a finite number, found .inf (in quotes, '.inf', if it is text)"),
    ("cards: 64}", "cards: 64, notes: .nan}",
     (":5: candidates.h100.notes: expected a finite number, found .nan (in quotes, '.nan', "
      "if it is text)")),
    # a number field: quoting would not help, so no hint
    ("tokens: 1.0e+11", "tokens: .inf",
     ":3: workloads.w.tokens: expected a finite number, found .inf"),
    ("cards: 64}", "cards: -.inf}",
     ":5: candidates.h100.cards: expected a finite number, found -.inf"),
    # a choice is no free text either
    ("id: w,", "id: w, kind: .nan,",
     ":3: workloads.w.kind: expected a finite number, found .nan"),
])
def test_infinity_is_refused_with_the_quoting_hint_only_where_text_goes(
        tmp_path: Path, old: str, new: str, expected: str) -> None:
    """.inf in a name was refused as 'expected a finite number' only; a0c305d added 'in quotes,
    if it is text', which then showed on number fields too, where quoting does not help."""
    path, msg = scenario_refused(tmp_path, SMALL.replace(old, new), "validate")
    assert msg == f"{path}{expected}"


@pytest.mark.parametrize(("figure", "expected"), [
    ('{value: .inf, source: "ACME quote", as_of: 2026-01}',
     "price_usd.value: expected a finite number, found .inf"),
    ('{value: 25000, source: .inf, as_of: 2026-01}',
     ("price_usd.source: expected a finite number, found .inf (in quotes, '.inf', if it is "
      "text)")),
])
def test_infinity_in_a_quote_file_has_the_hint_only_on_text(tmp_path: Path, figure: str,
                                                            expected: str) -> None:
    quote = _write(tmp_path / "q.yaml",
                   f"card_prices:\n  - id: h100-sxm\n    price_usd: {figure}\n")
    msg = one_error(run(["compare", "--catalog", str(quote)]))
    assert msg == f"{quote}:3: card_prices.h100-sxm.{expected}"


def test_a_deeply_nested_file_is_refused_before_it_is_walked(tmp_path: Path) -> None:
    """990 nested lists: libyaml parses them (its limit is 1,000) and a recursive walk then hit
    Python's recursion limit (a traceback)."""
    path, msg = scenario_refused(tmp_path, "name: " + "[" * 990 + "]" * 990 + "\n", "validate")
    assert msg.startswith(f"{path}:1: ")
    assert "nested more than 40 levels deep" in msg


# --- 2. resources: tiny files that claim or expand to a lot -----------------------------------


def test_a_yaml_of_millions_of_values_is_refused_before_they_are_built(tmp_path: Path) -> None:
    """A 4.8 MB flow list of 2.4 million numbers (within the 5 MB limit) took 90 s and 1.3 GB
    to compose before the node count refused it; it is now refused while parsing, in a
    subprocess bounded in time."""
    path = tmp_path / "flat.yaml"
    path.write_text("name: [" + ",".join(["1"] * 2_400_000) + "]\n")
    proc = subprocess.run([sys.executable, "-m", "tco", "validate", str(path)],
                          capture_output=True, text=True, timeout=30, check=False)
    assert proc.returncode == 2
    assert proc.stderr == (f"tco: error: {path}: more than 100,000 values; a scenario or quote "
                           "file holds far fewer\n")


@pytest.mark.parametrize("candidates, workloads, expected", [
    (2001, 1, ":1: candidates: 2,001 items; at most 2,000"),
    (300, 20, (":1: candidates: 300 candidates x 20 workloads is 6,000 to lay out and cost; at "
              "most 4,000 (split the scenario)")),
    (1, 33, ":1: workloads: 33 items; at most 32"),
])
def test_a_scenario_asking_for_too_much_work_is_refused(candidates: int, workloads: int,
                                                       expected: str, tmp_path: Path) -> None:
    """A few kilobytes could list tens of thousands of options, each laid out and costed."""
    data = {"workloads": [{"id": f"w{i}", "params": 7.0e9, "tokens": 1.0e11}
                          for i in range(workloads)],
            "candidates": [{"id": f"c{i}", "card": "h100-sxm", "cards": 8}
                           for i in range(candidates)]}
    path, msg = scenario_refused(tmp_path, json.dumps(data), "validate", "s.json")
    assert msg == f"{path}{expected}"
    assert api_error(lambda: tco.load(data)) == f"<dict>{expected.replace(':1:', ':')}"


def _quote_xlsx(path: Path, rows: int = 1) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.append(["id", "field", "value", "source", "as_of"])
    for _ in range(rows):
        ws.append(["h100-sxm", "price_usd", 24000, "ACME quote", "2026-01"])
    wb.save(path)
    return path


def _rewrite(src: Path, dst: Path, sheet: Any) -> Path:
    """A copy of xlsx `src` with its first sheet's XML changed by `sheet(bytes) -> bytes`."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                data = sheet(data)
            zout.writestr(info.filename, data, compress_type=zipfile.ZIP_DEFLATED,
                          compresslevel=9)
    return dst


def _cell(ref: str, text: bytes) -> bytes:
    return b'<c r="' + ref.encode() + b'" t="inlineStr"><is><t>' + text + b"</t></is></c>"


HOSTILE_XLSX = {
    # a cell of 200 MB that deflates to 200 KB
    "bomb": (lambda x: x.replace(b"</row>", _cell("F1", b"a" * 200_000_000) + b"</row>", 1),
             "part 'xl/worksheets/sheet1.xml' of the xlsx expands from"),
    # an XML document type, which can expand entities without bound
    "doctype": (lambda x: b'<!DOCTYPE x [<!ENTITY a "aaaa">]>' + x,
                "declares an XML document type"),
    # a cell in the last column
    "wide": (lambda x: x.replace(b"</row>", _cell("XFD1", b"x") + b"</row>", 1),
             "a cell beyond column 64; a quote sheet has at most 64 columns"),
    # a cell of 200,000 characters (within the archive's limits)
    "long-cell": (lambda x: x.replace(b"</row>", _cell("F1", b"a" * 200_000) + b"</row>", 1),
                  "the cell in column 6 is 200,000 characters long; the limit is 131,072"),
    # 12,000 rows
    "many-rows": (lambda x: x.replace(b"</sheetData>", b"".join(
        b'<row r="%d">' % i + _cell(f"A{i}", b"h") + b"</row>" for i in range(3, 12_003))
        + b"</sheetData>"), "more than 10,000 rows"),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE_XLSX))
def test_hostile_xlsx_is_refused_before_it_is_read(kind: str, tmp_path: Path) -> None:
    edit, expected = HOSTILE_XLSX[kind]
    quote = _rewrite(_quote_xlsx(tmp_path / "base.xlsx"), tmp_path / f"{kind}.xlsx", edit)
    assert quote.stat().st_size < 1_000_000  # tiny on disk
    work = tmp_path / "work"
    work.mkdir()
    msg = compare_writes_nothing(work, "--catalog", str(quote))
    assert msg.startswith(f"{quote}")
    assert expected in msg
    assert api_error(lambda: tco.load(None, [quote])) == msg


def test_a_claimed_sheet_size_is_not_believed(tmp_path: Path) -> None:
    """A sheet that claims A1:XFD1048576 (openpyxl would pad every row to 16,384 cells and
    make a million rows) is read as the two rows it holds, in a subprocess bounded in time."""
    quote = _rewrite(_quote_xlsx(tmp_path / "base.xlsx"), tmp_path / "claims.xlsx",
                     lambda x: re.sub(rb'<dimension ref="[^"]*"\s*/>',
                                      b'<dimension ref="A1:XFD1048576"/>', x))
    assert b"XFD1048576" in zipfile.ZipFile(quote).read("xl/worksheets/sheet1.xml")
    proc = subprocess.run([sys.executable, "-m", "tco", "catalog", "show", "h100-sxm",
                           "--catalog", str(quote), "--format", "json"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["figures"]["card_prices.price_usd"]["value"] == 24000


def test_a_part_that_lies_about_its_size_is_refused(tmp_path: Path) -> None:
    """An archive entry that declares 5,000 bytes for a part that expands to 200 MB: zipfile
    stops at the declared size and the checksum fails; a clear message, no more read."""
    quote = _rewrite(_quote_xlsx(tmp_path / "base.xlsx"), tmp_path / "bomb.xlsx",
                     HOSTILE_XLSX["bomb"][0])
    data = bytearray(quote.read_bytes())
    at = 0
    while (at := data.find(b"PK\x01\x02", at)) >= 0:  # central directory entries
        size = int.from_bytes(data[at + 28:at + 30], "little")
        if data[at + 46:at + 46 + size] == b"xl/worksheets/sheet1.xml":
            local = int.from_bytes(data[at + 42:at + 46], "little")
            data[at + 24:at + 28] = data[local + 22:local + 26] = (5000).to_bytes(4, "little")
        at += 4
    liar = tmp_path / "liar.xlsx"
    liar.write_bytes(bytes(data))
    msg = one_error(run(["compare", "--catalog", str(liar)]))
    assert msg.startswith(f"{liar}: cannot read as xlsx: Bad CRC-32 for file "
                          "'xl/worksheets/sheet1.xml'")


def test_a_damaged_deflate_stream_is_a_message(tmp_path: Path) -> None:
    """zlib's error is neither a BadZipFile nor an OSError: it was a traceback."""
    quote = _quote_xlsx(tmp_path / "q.xlsx")
    data = bytearray(quote.read_bytes())
    part = zipfile.ZipFile(quote).getinfo("xl/worksheets/sheet1.xml")
    start = (part.header_offset + 30 + int.from_bytes(data[part.header_offset + 26:
                                                          part.header_offset + 28], "little")
             + int.from_bytes(data[part.header_offset + 28:part.header_offset + 30], "little"))
    for i in range(start + 5, start + 40):
        data[i] ^= 0xFF
    quote.write_bytes(bytes(data))
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg.startswith(f"{quote}: cannot read as xlsx: Error -3 while decompressing data")


@pytest.mark.parametrize("body, expected", [
    ("h100-sxm,price_usd,24000,ACME quote,2026-01\n" * 10_001, "more than 10,000 rows"),
    ("h100-sxm,price_usd,24000,ACME quote,2026-01" + "," * 100_000 + "\n",
     "100,005 cells in a row; a quote sheet has at most 64 columns"),
])
def test_csv_rows_and_columns_are_bounded(body: str, expected: str, tmp_path: Path) -> None:
    quote = tmp_path / "q.csv"
    quote.write_text(HEADER + body)
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg.startswith(f"{quote}:") and expected in msg
    assert api_error(lambda: tco.load(None, [quote])) == msg


# --- 3. exchange rates: no file's rate changes another file's money by order ------------------


def _price(catalogs: list[Path]) -> float:
    return tco.load(None, catalogs)[1].card_prices["h100-sxm"].price_usd.best


def test_conversion_does_not_depend_on_file_order(tmp_path: Path) -> None:
    """A CNY price and a quote file setting the CNY rate convert alike in either order, and
    alike with the rate row before or after the price within one file: at the one rate in
    force (7.0 here, not the shipped 7.1526). 200,000 CNY / 7.0 = 28,571.43 USD."""
    price = tmp_path / "price.csv"
    price.write_text(HEADER + "h100-sxm,price_cny,200000,ACME quote,2026-01\n")
    rate = tmp_path / "rate.csv"
    rate.write_text(HEADER + "exchange_rates,CNY,7.0,bank,2026-01\n")
    both = tmp_path / "both.csv"
    both.write_text(HEADER + "h100-sxm,price_cny,200000,ACME quote,2026-01\n"
                    "exchange_rates,CNY,7.0,bank,2026-01\n")
    both_reversed = tmp_path / "both_reversed.csv"
    both_reversed.write_text(HEADER + "exchange_rates,CNY,7.0,bank,2026-01\n"
                             "h100-sxm,price_cny,200000,ACME quote,2026-01\n")
    prices = {_price([price, rate]), _price([rate, price]), _price([both]),
              _price([both_reversed])}
    assert len(prices) == 1  # the same float, bit for bit, every way
    assert prices.pop() == pytest.approx(28_571.43, abs=0.01)
    # the whole result, through the CLI: the same NPVs both ways
    npvs = []
    for order in ([price, rate], [rate, price]):
        out = run(["compare", "--format", "json", *functools.reduce(operator.iadd, (["--catalog", str(p)] for p in order), [])])
        assert out.exit_code == 0, out.output
        npvs.append([c["npv_tco"] for c in json.loads(out.stdout)["candidates"]])
    assert npvs[0] == npvs[1]


def test_a_cny_scenario_gets_the_quoted_cny_back_at_any_rate(tmp_path: Path) -> None:
    price = tmp_path / "price.csv"
    price.write_text(HEADER + "h100-sxm,price_cny,200000,ACME quote,2026-01\n")
    rate = tmp_path / "rate.csv"
    rate.write_text(HEADER + "exchange_rates,CNY,7.3,bank,2026-01\n")
    text = SMALL.replace("name: small", "name: small\ncurrency: CNY")
    for order in ([price, rate], [rate, price]):
        run_ = tco.compare(text, order)
        inp = run_.result.inputs["candidates.h100.card_price"]
        # the quoted figure exactly, with the quote's own source: a CNY quote in a CNY scenario
        # reads as quoted (committee's rule, tests/test_quote_currency.py); the rate in force is
        # the one rate.csv gives, whichever file came first
        assert inp.value == 200_000 and (inp.low, inp.high) == (200_000, 200_000)
        assert inp.source == "ACME quote"
        assert run_.result.resolved.usd_to_currency == 7.3


def test_two_files_setting_different_rates_are_refused(tmp_path: Path) -> None:
    first = tmp_path / "a.csv"
    first.write_text(HEADER + "exchange_rates,CNY,7.0,bank,2026-01\n")
    second = tmp_path / "b.yaml"
    second.write_text("exchange_rates:\n  CNY: {value: 7.3, source: bank, as_of: '2026-01'}\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(first), "--catalog", str(second))
    assert msg == (f"{second}:2: exchange_rates.CNY: sets the CNY exchange rate to 7.3, and "
                   f"{first}:2 sets it to 7.0; the rate converts every quote file's CNY prices, "
                   "so give it in one file only")
    assert api_error(lambda: tco.load(None, [first, second])) == msg
    same = tmp_path / "c.csv"
    same.write_text(HEADER + "exchange_rates,CNY,7.0,bank 2,2026-02\n")
    tco.load(None, [first, same])  # the same rate twice is no conflict


def test_an_inverted_rate_is_refused(tmp_path: Path) -> None:
    rate = tmp_path / "rate.csv"
    rate.write_text(HEADER + "exchange_rates,CNY,0.14,bank,2026-01\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(rate))
    assert msg == (f"{rate}:2: exchange_rates.CNY.value: found 0.14, outside the plausible range "
                   "1 to 20 CNY per USD for exchange rate; expected units of the currency for "
                   "one US dollar, e.g. 7.2 CNY, not US dollars per unit")


@pytest.mark.parametrize("row, expected", [
    # 50 CNY / 7.1526 = 6.99 USD: the message quotes the 50 CNY written, its range in CNY
    ("h100-sxm,price_cny,50,ACME quote,2026-01,,,",
     (":2: card_prices.h100-sxm.price_cny.value: found 50 CNY (6.99047 USD at 7.1526 CNY/USD), "
     "outside the plausible range 715.26 to 7.1526e+06 CNY/card for purchase price per "
     "accelerator")),
    ("h100-sxm,price_usd,50,ACME quote,2026-01,CNY,,",
     ":2: card_prices.h100-sxm.price_usd.value: found 50 CNY (6.99047 USD at 7.1526 CNY/USD)"),
    ("h100-sxm,price_cny,200000,ACME quote,2026-01,,300000,100000",
     (":2: h100-sxm.price_cny: expected low <= value <= high, found low 300000, value 200000, "
     "high 100000 (CNY)")),
])
def test_quote_messages_quote_the_number_as_written(row: str, expected: str,
                                                    tmp_path: Path) -> None:
    quote = tmp_path / "q.csv"
    quote.write_text("id,field,value,source,as_of,currency,low,high\n" + row + "\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg.startswith(f"{quote}{expected}")


# --- 4. characters that break the outputs ----------------------------------------------------

FORBIDDEN = {
    "U+FFFE": "\ufffe", "U+FFFF": "\uffff", "U+FDD0": "\ufdd0",
    "U+0001": "\x01", "U+001B": "\x1b", "U+000B": "\x0b", "U+0085": "\x85", "U+009B": "\x9b",
    "U+202E": "\u202e", "U+2066": "\u2066", "U+200F": "\u200f", "U+061C": "\u061c",
}
NAMED_AS = {"U+FFFE": "a Unicode noncharacter", "U+0001": "a control character",
            "U+202E": "RIGHT-TO-LEFT OVERRIDE", "U+2066": "LEFT-TO-RIGHT ISOLATE"}


@pytest.mark.parametrize("code", sorted(FORBIDDEN))
@pytest.mark.parametrize("where", ["scenario-name", "candidate-name", "notes", "key"])
def test_forbidden_characters_in_a_scenario_are_refused(code: str, where: str,
                                                        tmp_path: Path) -> None:
    ch = FORBIDDEN[code]
    data = yaml.safe_load(SMALL)
    field = {"scenario-name": "name", "candidate-name": "candidates.h100.name",
             "notes": "candidates.h100.notes", "key": f"team.familiarity.cu{ch}da"}[where]
    if where == "scenario-name":
        data["name"] = f"Plan {ch}2026"
    elif where == "key":
        data["team"] = {"familiarity": {f"cu{ch}da": 0.5}}
    else:
        data["candidates"][0][field.rsplit(".", 1)[1]] = f"H100 {ch}x"
    path = tmp_path / "s.yaml"
    path.write_text(json.dumps(data), encoding="utf-8")  # JSON is YAML; escapes any character
    xlsx = tmp_path / "r.xlsx"
    msg = one_error(run(["report", str(path), "--xlsx", str(xlsx), "--draws", "0"]))
    assert not xlsx.exists()
    assert msg.startswith(f"{path}:1: ")
    assert f" is {code}" in msg
    if code in NAMED_AS:
        assert NAMED_AS[code] in msg
    assert ch not in msg  # shown escaped
    api = api_error(lambda: tco.compare(data))
    assert api.split(": ", 1)[1] == msg.split(": ", 1)[1]  # the same message, file <dict>


def test_a_text_longer_than_a_workbook_cell_would_keep_is_refused(tmp_path: Path) -> None:
    """A 40,000-character description and a 100,000-character source were cut to 32,767 in
    the workbook without a word."""
    data = yaml.safe_load(SMALL)
    data["description"] = "D" * 40_000
    path, msg = scenario_refused(tmp_path, json.dumps(data), "validate")
    assert msg == (f"{path}:1: description: found a text of 40,000 characters ('{'D' * 40}'...); "
                   "at most 10,000 (a spreadsheet cell holds 32,767)")
    quote = _write(tmp_path / "q.csv", HEADER + "h100-sxm,price_usd,24000," + "S" * 100_000
                   + ",2026-01\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg.startswith(f"{quote}:2: source: found a text of 100,000 characters")


@pytest.mark.parametrize("ident, expected", [
    ("a" * 9_000, "candidates.0.id: 9,000 characters; at most 64"),
    (True, "candidates.0.id: found True; expected text"),
    ("x" * 20_000, "found a text of 20,000 characters"),
])
def test_an_id_that_is_the_fault_is_not_the_field_path(tmp_path: Path, ident: object,
                                                       expected: str) -> None:
    """A record is named by its id in messages; an id of 9,000 characters made the one line
    9,000 characters long (`candidates.aaaa...aaaa.id`), and `id: true` named
    `candidates.True.id`. A record whose id is itself the fault is named by its index, and
    any field path is shortened as a file name is."""
    data = yaml.safe_load(SMALL)
    data["candidates"][0]["id"] = ident
    path, msg = scenario_refused(tmp_path, yaml.safe_dump(data, width=10**6), "validate")
    assert expected in msg and msg.startswith(f"{path}:")
    assert len(msg) < 500


@pytest.mark.parametrize("edit, expected", [
    (("workloads", [1]), "3: workloads.0: found 1; expected a mapping of fields (name: value)"),
    (("workloads", {"w": 1}), "2: workloads: found a mapping; expected a list"),
    (("workloads", []), "2: workloads: found 0 items; expected at least 1"),
    (("name", ["x"]), "1: name: found a list; expected text"),
    (("candidates", [{"id": "", "card": "h100-sxm"}]),
     "7: candidates.0.id: found ''; expected text, not empty"),
    (("rent_options", {"a": 1}), "rent_options: found a mapping; expected 'auto' or 'none'"),
    # a blank title or label (the report's heading, a legend) is no name
    (("name", "  "), ("1: name: found '  '; expected a name, not blank (leave the field out for "
                     "the default)")),
    (("candidates", [{"id": "h100", "card": "h100-sxm", "name": ""}]),
     ("candidates.h100.name: found ''; expected a name, not blank (leave the field out for the "
     "default)")),
])
def test_a_field_of_the_wrong_kind_is_worded_as_found_and_expected(
        tmp_path: Path, edit: tuple[str, object], expected: str) -> None:
    """Schema refusals read as every other message, "found X; expected Y", not in the
    validation library's words ("Input should be a valid dictionary or instance of
    Workload", "String should have at least 1 character")."""
    data = yaml.safe_load(SMALL)
    data[edit[0]] = edit[1]
    path, msg = scenario_refused(tmp_path, yaml.safe_dump(data, sort_keys=False), "validate")
    assert msg.startswith(f"{path}:") and msg.endswith(expected), msg
    assert "Input should" not in msg and "should have" not in msg


def test_a_message_quoting_a_long_text_stays_readable(tmp_path: Path) -> None:
    """An unknown card id of 9,000 characters was quoted whole (`unknown card 'xxx...'`, a
    9,000-character line), as was a --set path, a --candidate or a `catalog show` id: one
    message is at most tco.errors.MAX_MESSAGE characters, its start and end kept."""
    from tco.errors import MAX_MESSAGE

    long_id = "x" * 9_000
    data = yaml.safe_load(SMALL)
    data["candidates"][0]["card"] = long_id
    path, msg = scenario_refused(tmp_path, yaml.safe_dump(data, width=10**6), "validate")
    assert msg.startswith(f"{path}:2: candidates.h100.card: unknown card 'xxx")
    assert msg.endswith("xxx'") and len(msg) <= MAX_MESSAGE
    for args in (["catalog", "show", long_id], ["whatif", "--set", f"{long_id}=1"],
                 ["breakeven", "--vary", "utilization", "--candidate", long_id, "--vs", "b200"]):
        assert len(one_error(run(args))) <= MAX_MESSAGE, args


def test_bytes_from_the_api_are_not_text() -> None:
    """Bytes would pass the checks of text (pydantic decodes them into a str afterwards):
    U+FFFE in UTF-8 reached the workbook."""
    data = yaml.safe_load(SMALL)
    data["candidates"][0]["name"] = "H100 \ufffe".encode()
    assert api_error(lambda: tco.compare(data)) == (
        "<dict>: candidates.h100.name: found bytes; expected text (a str)")


def test_noncharacters_beyond_the_first_plane_are_refused() -> None:
    """U+1FFFF (as libyaml refuses it in a YAML escape, through the API's dict)."""
    data = yaml.safe_load(SMALL)
    data["name"] = "Plan \U0001ffff"
    assert "is U+1FFFF, a Unicode noncharacter" in api_error(lambda: tco.compare(data))


@pytest.mark.parametrize("code", ["U+FFFE", "U+0001", "U+202E", "U+2067"])
def test_forbidden_characters_in_quotes_are_refused(code: str, tmp_path: Path) -> None:
    ch = FORBIDDEN.get(code, "\u2067")
    csv_quote = tmp_path / "q.csv"
    csv_quote.write_text(HEADER + f"h100-sxm,price_usd,24000,ACME {ch}quote,2026-01\n",
                         encoding="utf-8")
    yaml_quote = tmp_path / "q.yaml"
    yaml_quote.write_text(json.dumps({"accelerators": [{"id": "h100-sxm",
                                                        "name": f"H100 {ch}"}]}))
    quotes = [(csv_quote, ":2: source: "), (yaml_quote, ":1: accelerators.h100-sxm.name: ")]
    if code in ("U+202E", "U+2067"):  # openpyxl writes no control character, and U+FFFE
        xlsx_quote = tmp_path / "q.xlsx"  # only as XML no reader accepts (below)
        wb = Workbook()
        wb.active.append(["id", "field", "value", "source", "as_of"])
        wb.active.append(["h100-sxm", "price_usd", 24000, f"ACME {ch}quote", "2026-01"])
        wb.save(xlsx_quote)
        quotes.append((xlsx_quote, ":2: source: "))
    for quote, where in quotes:
        msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
        assert msg.startswith(f"{quote}{where}found "), msg
        assert f" is {code}" in msg
        assert api_error(lambda q=quote: tco.load(None, [q])) == msg


def test_an_xlsx_that_is_not_well_formed_xml_is_refused(tmp_path: Path) -> None:
    quote = tmp_path / "q.xlsx"
    wb = Workbook()
    wb.active.append(["id", "field", "value", "source", "as_of"])
    wb.active.append(["h100-sxm", "price_usd", 24000, "ACME \ufffequote", "2026-01"])
    wb.save(quote)  # openpyxl writes U+FFFE as it is: XML no reader accepts
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg.startswith(f"{quote}: cannot read as xlsx: not well-formed (invalid token)")


def test_forbidden_characters_from_the_command_line_and_file_names(tmp_path: Path) -> None:
    msg = one_error(run(["job", "--model-params", "7e9", "--tokens", "1e11", "--card",
                         "h100\u202e-sxm", "--cards", "8"]))
    assert msg == ("--card: found 'h100\\u202e-sxm': "
                   "character 5 is U+202E (RIGHT-TO-LEFT OVERRIDE), a bidirectional control, "
                   "which would reorder the text and figures shown around it; remove it")
    odd = tmp_path / "plan\u202e.yaml"
    odd.write_text(SMALL)
    msg = one_error(run(["compare", str(odd)]))
    assert "the file's name: found" in msg and "U+202E" in msg and "rename the file" in msg


TRICKY = ("H100 « 中文 » עברית عربي 😀 e\u0301 <b>&amp;</b> _x0041_ \"q\" 'a'\ttab\nline "
          "\u2028sep \u200dzwj")


@pytest.fixture(scope="module")
def tricky_report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Every text of a report holding characters that are allowed and easy to get wrong."""
    tmp = tmp_path_factory.mktemp("tricky")
    data = yaml.safe_load(SMALL)
    data["name"] = TRICKY
    data["description"] = TRICKY
    data["candidates"][0].update(name=TRICKY, notes=TRICKY)
    scenario = tmp / "s.yaml"
    scenario.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    quote = tmp / "q.csv"
    with quote.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "field", "value", "source", "as_of", "note"])
        writer.writerow(["h100-sxm", "price_usd", 24000, TRICKY, "2026-01", TRICKY])
    out = {"xlsx": tmp / "r.xlsx", "html": tmp / "r.html", "zh": tmp / "r.zh.xlsx"}
    for lang, xlsx in (("en", out["xlsx"]), ("zh", out["zh"])):
        args = ["report", str(scenario), "--catalog", str(quote), "--xlsx", str(xlsx),
                "--draws", "200", "--lang", lang]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = run([*args, "--html", str(out["html"])] if lang == "en" else args)
        assert result.exit_code == 0, result.output
        # a tab in a name has no glyph: matplotlib warned of it on the terminal
        assert [str(w.message) for w in caught if "Glyph" in str(w.message)] == []
    return out


def test_a_workbook_with_tricky_text_is_valid_xml_and_keeps_the_text(
        tricky_report: dict[str, Path]) -> None:
    for xlsx in (tricky_report["xlsx"], tricky_report["zh"]):
        with zipfile.ZipFile(xlsx) as archive:
            for name in archive.namelist():
                if name.endswith((".xml", ".rels")):
                    from xml.dom import minidom

                    minidom.parseString(archive.read(name))  # well-formed, or raises
        wb = load_workbook(xlsx)
        texts = {c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
                 if isinstance(c.value, str)}
        assert any(TRICKY in t for t in texts)  # kept as written, not escaped or cut


def test_libreoffice_opens_the_workbook_with_tricky_text(tricky_report: dict[str, Path],
                                                         tmp_path: Path) -> None:
    from test_workbook_recalc import recalculate

    converted = recalculate([tricky_report["xlsx"]], tmp_path / "out", tmp_path / "profile")
    wb = load_workbook(converted["r"])
    texts = {c.value for ws in wb.worksheets for row in ws.iter_rows() for c in row
             if isinstance(c.value, str)}
    assert any("עברית عربي 😀" in t for t in texts)


def test_a_right_to_left_name_does_not_reorder_the_figures_beside_it(tmp_path: Path) -> None:
    """In 'Recommendation: buy {name}, {cards} accelerators.' a Hebrew name would pull the
    card count to its left (the bidirectional algorithm runs the comma and digits with it);
    every name and figure set into a sentence is isolated (report.css), so the count stays to
    its right, as written. Checked as laid out by Chromium."""
    from cdp import Page
    from report_support import require_chromium, unplanned

    from tco.catalog import load_catalog
    from tco.engine import compute
    from tco.exporters.html import write_html
    from tco.scenario import load_scenario

    data = yaml.safe_load(SMALL)
    data["candidates"][0]["name"] = "שרת"
    data["rent_options"] = "none"
    page = tmp_path / "r.html"
    # the option-level headline names the typed option (planned, the plan's names cards)
    result = compute(load_scenario(_write(tmp_path / "s.yaml", json.dumps(data))),
                     load_catalog())
    write_html(unplanned(result), page)
    with Page(require_chromium(), tmp_path / "profile") as browser:
        browser.open(page)
        boxes = browser.js("[...document.querySelectorAll('p.headline strong')].map(e => "
                           "[e.textContent, e.getBoundingClientRect().left, "
                           "e.getBoundingClientRect().right])")
    (name, _l1, name_right), (cards, cards_left, _r2) = boxes[:2]
    assert (name, cards) == ("שרת", "64")
    assert cards_left > name_right


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --- 5. the Python API refuses what the CLI refuses, with the same message --------------------


@pytest.mark.parametrize("cli_args, api_call, expected", [
    (["sensitivity", "--swing", "nan"], lambda: tco.sensitivity(swing=float("nan")),
     "expected a percentage"),
    (["sensitivity", "--swing", "0%"], lambda: tco.sensitivity(swing=0),
     "expected a percentage from 0.1% up to, not including, 100%, such as 20%"),
    (["sensitivity", "--swing", "1e300"], lambda: tco.sensitivity(swing=1e300),
     "expected a percentage from 0.1% up to, not including, 100%"),
    (["sensitivity", "--swing", "0.00001"], lambda: tco.sensitivity(swing=1e-5),
     "expected a percentage from 0.1% up to"),
    (["montecarlo", "--seed", "-1"], lambda: tco.montecarlo(seed=-1, draws=10),
     "--seed -1: expected a whole number from 0 up"),
    (None, lambda: tco.montecarlo(seed=1.5, draws=10), "--seed 1.5: expected a whole number"),
    (None, lambda: tco.montecarlo(draws=2.5), "--draws 2.5: expected a whole number from 1 up"),
    (None, lambda: tco.montecarlo(draws=True), "--draws True: expected a whole number"),
    (["montecarlo", "--draws", "0"], lambda: tco.montecarlo(draws=0), "--draws"),
    (["montecarlo", "--metric", "npv_tco"], lambda: tco.montecarlo(draws=10, metric="npv_tco"),
     "npv_tco"),
    (None, lambda: tco.sensitivity(metric="cost"), "--metric 'cost': expected one of npv_tco"),
    (["whatif", "--set", "utilization=nan"], lambda: tco.whatif({"utilization": math.nan}),
     "VALUE 'nan' must be a number"),
    (["whatif", "--set", "utilization=inf"], lambda: tco.whatif({"utilization": math.inf}),
     "VALUE 'inf' must be a number"),
    (["whatif", "--set", "utilization=5"], lambda: tco.whatif({"utilization": 5}),
     "found 5, outside the plausible range 0.01 to 1"),
    (None, lambda: tco.whatif({"utilization": True}), "VALUE must be a number"),
    (None, lambda: tco.breakeven(123, "h100", "b200"), "--vary 123: expected text"),
    (None, lambda: tco.breakeven("utilization", ["h100"], "b200"),
     "--candidate ['h100']: expected text"),
    (None, lambda: tco.breakeven("utilization", "h100", "b200", metric="npv"),
     "--metric 'npv': expected one of npv_tco"),
])
def test_the_api_refuses_what_the_cli_refuses(cli_args: list[str] | None, api_call: Any,
                                              expected: str) -> None:
    api = api_error(api_call)
    assert expected in api
    if cli_args is not None:
        result = run(cli_args)
        assert result.exit_code == 2 and result.stdout == "", result.output
        assert "Traceback" not in result.stderr
        assert expected in result.stderr  # click's usage errors are the CLI's own words too
        if "--seed" in expected:
            assert result.stderr == f"tco: error: {api}\n"


def test_api_settings_and_catalogs_are_not_taken_letter_by_letter(tmp_path: Path) -> None:
    """A string is one setting and one quote file (it was a sequence of one-letter ones:
    'u', 't', ... and a 'file not found' for 'q')."""
    quote = tmp_path / "q.csv"
    quote.write_text(HEADER + "h100-sxm,price_usd,24000,ACME quote,2026-01\n")
    assert (tco.load(None, str(quote))[1].card_prices["h100-sxm"].price_usd.best
            == tco.load(None, [quote])[1].card_prices["h100-sxm"].price_usd.best == 24000)
    from tco.exporters.analysis_view import comparison_json

    def after(comparison: Any) -> list[Any]:
        data = json.loads(comparison_json(comparison))
        return [data["inputs"], [c["npv_tco"]["after"] for c in data["candidates"]]]

    one = after(tco.whatif("utilization=0.5", SMALL))
    assert one == after(tco.whatif(["utilization=0.5"], SMALL))
    assert one == after(tco.whatif({"utilization": 0.5}, SMALL))
    # a VALUE text, as --set takes it: 0.85 - 10% is 0.765
    relative = after(tco.whatif({"utilization": "-10%"}, SMALL))
    assert relative[0][0]["after"] == pytest.approx(0.765)
    assert relative[1] == pytest.approx(after(tco.whatif("utilization=0.765", SMALL))[1])
    msg = api_error(lambda: tco.load(None, str(tmp_path / "missing.csv")))
    assert msg == f"{tmp_path / 'missing.csv'}: file not found"


@pytest.mark.parametrize("source", [
    json.dumps(yaml.safe_load(SMALL)) + " " * 5000,  # one line of JSON longer than NAME_MAX
    "{" + ", ".join(f"k{i}: {i}" for i in range(2)) + "}",  # a flow mapping
    "{name: x, workloads: [{id: w, params: 7.0e+9, tokens: 1.0e+11}], "
    "candidates: [{id: h100, card: h100-sxm, cards: 64}]}" + " " * 4000,
])
def test_one_line_text_is_text_not_a_file_name(source: str) -> None:
    try:
        tco.load(source)
    except ScenarioError as exc:  # the two-key mapping is no scenario: a message about it
        assert exc.file == "<text>"
        assert "File name too long" not in str(exc)


@pytest.mark.parametrize("source, expected", [
    ("missing.yaml", "missing.yaml: file not found"),
    ("x" * 5000, ": cannot read: File name too long"),
    ("a\0b.yaml", "a\\u0000b.yaml: not a file name: it holds a NUL character"),
])
def test_a_path_that_cannot_be_read_gets_a_message(source: str, expected: str) -> None:
    msg = api_error(lambda: tco.load(source))
    assert msg.endswith(expected)
    assert len(msg) < 300  # an absurdly long name is shortened


@pytest.mark.parametrize("dist, expected", [
    ("{dist: triangular, low: -1.0e+308, mode: 27000, high: 1.0e+308}",
     ("distributions.candidates.h100.card_price.low: triangular distribution: found -1e+308, "
     "outside the plausible range 100 to 1e+06 USD/card")),
    ("{dist: uniform, low: 20000, high: 1.0e+300}",
     "distributions.candidates.h100.card_price.high: uniform distribution: found 1e+300"),
    ("{dist: normal, low: 1, high: 30000}",
     "distributions.candidates.h100.card_price.low: normal distribution: found 1, outside"),
    ("{low: 20000, mode: 40000, high: 30000}",
     "distributions.candidates.h100.card_price.mode: mode (40000) is outside low..high"),
])
def test_distributions_are_checked_by_validate_and_compute_alike(dist: str, expected: str,
                                                                 tmp_path: Path) -> None:
    text = SMALL + f"distributions:\n  candidates.h100.card_price: {dist}\n"
    path = _write(tmp_path / "s.yaml", text)
    for command in ("validate", "compare", "montecarlo"):
        msg = one_error(run([command, str(path)]))
        assert msg.startswith(f"{path}:7: {expected}"), (command, msg)
    assert api_error(lambda: tco.montecarlo(text, draws=100)).startswith(f"<text>:7: {expected}")


def test_the_sampler_survives_the_widest_distribution_the_ranges_allow() -> None:
    """tokens may range over 1e6..1e15: a triangular over all of it draws finite values and a
    finite clipped share (squares of such widths overflowed before)."""
    import numpy as np

    from tco.analysis.montecarlo import Draw, Sampler

    draw = Draw(("x",), "triangular", 1e6, 2e6, 1e15, 1e6, 1e15)
    x = Sampler([draw]).sample(np.random.Generator(np.random.PCG64(1)), 10_000)[0]
    assert np.isfinite(x).all() and x.min() >= 1e6 and x.max() <= 1e15
    assert draw.clipped_share == 0.0
    # the share of the warning: nearly every draw of -1e308..1e308 lies outside -1..1
    wide = Draw(("x",), "triangular", -1e308, 0.0, 1e308, -1.0, 1.0)
    assert wide.clipped_share == pytest.approx(1.0)
    assert Draw(("x",), "uniform", -1e308, 0.0, 1e308, 0.0, 1e308).clipped_share == 0.5


def test_tokens_per_second_is_checked_in_its_own_unit(tmp_path: Path) -> None:
    text = ("workloads:\n  - {id: chat, kind: serve, params: 7.0e+9, input_tokens_per_day: "
            "1.0e+9, output_tokens_per_day: 1.0e+8, prompt_tokens: 1000, output_tokens: 200, "
            "tokens_per_s_per_user: 20000}\ncandidates:\n  - {id: h100, card: h100-sxm, "
            "cards: 64}\n")
    path, msg = scenario_refused(tmp_path, text, "validate")
    # 1000 / 20000 = 0.05 ms, below the 0.1 ms floor of tpot_ms: said in tokens/s
    assert msg == (f"{path}:2: workloads.chat.tokens_per_s_per_user: found 20000, outside the "
                   "plausible range 0.01 to 10000 tokens/s per user for the output speed "
                   "objective (a time per output token of 0.1 to 100000 ms)")
    assert api_error(lambda: tco.compare(text)) == msg.replace(str(path), "<text>")


def test_the_pattern_that_screens_texts_refuses_exactly_the_characters_refused():
    """`text_problem` first searches a text with one pattern and reads it character by
    character only when the pattern finds one: the pattern must find exactly the code points
    refused one by one (`_kind`), every one of the 1,114,112."""
    from tco.text import REFUSED, _kind, text_problem

    found = {c for c in range(0x110000) if REFUSED.search(chr(c))}
    refused = {c for c in range(0x110000) if _kind(c) is not None}
    assert found == refused
    assert len(refused) == 9 + 2 + 18 + 33 + 2048 + 32 + 12 + 34  # ranges counted by hand
    assert text_problem("H100 \u202e80GB") is not None and text_problem("a\r\nb") is None


@pytest.mark.parametrize(("row", "message"), [
    ("h100-sxm,price_cny,200000,,2026-01", "found ''"),
    ("h100-sxm,price_cny,200000,x,2026-01", "found 'x'"),
])
def test_a_price_quoted_in_another_currency_needs_its_source(tmp_path: Path, row: str,
                                                             message: str) -> None:
    """A price_cny row without a real source passed: the conversion wrote its own words
    around it ("x (quoted 200,000 CNY; at 7.1526 CNY/USD)"). It is refused as a price_usd row
    is, naming the field as the row wrote it."""
    from tco.errors import CatalogError

    price = tmp_path / "price.csv"
    price.write_text(HEADER + row + "\n")
    with pytest.raises(CatalogError) as exc:
        tco.load(None, [price])
    assert exc.value.field == "card_prices.h100-sxm.price_cny.source"
    assert f"{message}; expected a source: who said so, where (a URL) and when" in str(exc.value)


def test_a_quote_dated_after_today_is_refused(tmp_path: Path) -> None:
    """A quote's as_of is when it was quoted: 2062 for 2026 was taken, and a quote so dated
    looks newer than the catalog's figures. Today (UTC, a day of grace east of it) is taken."""
    import datetime as dt

    today = dt.datetime.now(tz=dt.UTC).date()
    later = today + dt.timedelta(days=3)
    quote = _write(tmp_path / "q.csv", HEADER + f"h100-sxm,price_usd,24000,ACME quote,{later}\n")
    msg = compare_writes_nothing(tmp_path, "--catalog", str(quote))
    assert msg == (f"{quote}:2: card_prices.h100-sxm.price_usd.as_of: found '{later}', a date "
                   f"after today ({today}); expected the date the figure was quoted")
    month = f"{today.year + 1}-{today.month:02d}"
    quote = _write(tmp_path / "q.yaml", "card_prices:\n  - id: h100-sxm\n    price_usd: "
                   f"{{value: 24000, source: ACME quote, as_of: '{month}'}}\n")
    assert compare_writes_nothing(tmp_path, "--catalog", str(quote)).startswith(
        f"{quote}:3: card_prices.h100-sxm.price_usd.as_of: found '{month}', a date after today")
    quote = _write(tmp_path / "q.csv", HEADER + f"h100-sxm,price_usd,24000,ACME quote,{today}\n")
    assert run(["compare", "--catalog", str(quote)]).exit_code == 0


def test_an_empty_value_is_named_as_such(tmp_path: Path) -> None:
    """`card_price: ~` was refused as 'found None', Python's word for YAML's null."""
    data = yaml.safe_load(SMALL)
    data["candidates"][0]["card_price"] = None
    path, msg = scenario_refused(tmp_path, yaml.safe_dump(data, sort_keys=False), "validate")
    assert msg == (f"{path}:11: candidates.h100.card_price: expected a number (USD/card), "
                   "found nothing (null)"), msg


def test_a_quote_workbook_with_rows_on_two_sheets_is_refused(tmp_path: Path) -> None:
    """Only the first sheet was read: a newer price on a second sheet (or an invalid row
    there) was ignored without a word. An empty second sheet is no harm."""
    wb = Workbook()
    wb.active.title = "old"
    wb.active.append(["id", "field", "value", "source", "as_of"])
    wb.active.append(["h100-sxm", "price_usd", 30000, "ACME quote", "2025-01"])
    wb.create_sheet("notes")  # empty
    quote = tmp_path / "q.xlsx"
    wb.save(quote)
    assert run(["catalog", "show", "h100-sxm", "--catalog", str(quote)]).exit_code == 0
    new = wb.create_sheet("new")
    new.append(["id", "field", "value", "source", "as_of"])
    new.append(["h100-sxm", "price_usd", 20000, "ACME quote", "2026-11"])
    wb.save(quote)
    assert compare_writes_nothing(tmp_path, "--catalog", str(quote)) == (
        f"{quote}: the workbook has 2 sheets with values ('old', 'new'); a quote workbook holds "
        "its rows on one sheet: move them to one, or give each sheet as a file of its own")


def test_a_formula_without_a_saved_result_is_named(tmp_path: Path) -> None:
    """A workbook written by a script keeps a formula without its result (openpyxl, as
    here): the value read as empty ('value is empty'), though the cell is not."""
    wb = Workbook()
    wb.active.append(["id", "field", "value", "source", "as_of"])
    wb.active.append(["h100-sxm", "price_usd", "=20000+5000", "ACME quote", "2026-01"])
    quote = tmp_path / "q.xlsx"
    wb.save(quote)
    assert compare_writes_nothing(tmp_path, "--catalog", str(quote)) == (
        f"{quote}:2: the cell C2 holds a formula (=20000+5000) with no saved result; open and "
        "save the workbook in a spreadsheet program, which computes it, or type the number")
