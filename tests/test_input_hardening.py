"""Bad input that used to reach a traceback or a silent wrong answer (issue 10), and the
legitimate input next to it that must keep working. Cases that are one file and one command
are in the corpus (tests/bad_inputs/cases.yaml); these need a generated file, a pipe, the
environment, or a look at every output."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from openpyxl import Workbook, load_workbook
from refusals import one_error

from tco.analysis import montecarlo as mc_module
from tco.analysis.montecarlo import Draw, Sampler, check_draws
from tco.cli import cli
from tco.dates import MAX_EPOCH, output_date, parse_epoch
from tco.errors import TcoError, printable
from tco.resources import example_scenario

QUOTE_HEADER = "id,field,value,source,as_of\n"


def run(args: list[str], env: dict[str, str] | None = None):
    return CliRunner(env=env).invoke(cli, args)


# --- CSV quotes ------------------------------------------------------------------------------


def test_csv_cell_longer_than_the_field_limit_names_file_and_row(tmp_path: Path) -> None:
    quote = tmp_path / "long.csv"
    quote.write_text(QUOTE_HEADER + "b200,price_usd,36000,ACME quote,2026-01\n"
                     + "h100-sxm,price_usd,25000," + "x" * 140_000 + ",2026-01\n")
    msg = one_error(run(["compare", "--catalog", str(quote)]))
    assert msg.startswith(f"{quote}:3: ")
    assert "a cell is longer than 131,072 characters (the limit)" in msg


def test_unclosed_quote_names_the_row_where_it_opens(tmp_path: Path) -> None:
    """An unclosed quote swallows the rest of the file into one cell: the row it starts on is
    the one to fix, not the last line of the file."""
    quote = tmp_path / "unclosed.csv"
    quote.write_text(QUOTE_HEADER + 'h100-sxm,price_usd,25000,"ACME quote,2026-01\n'
                     + "b200,price_usd,36000,ACME quote,2026-01\n" * 4000)
    msg = one_error(run(["compare", "--catalog", str(quote)]))
    assert msg.startswith(f"{quote}:2: ")
    assert 'is a quote character (") left unclosed?' in msg


def test_multi_line_cell_is_still_read(tmp_path: Path) -> None:
    quote = tmp_path / "note.csv"
    quote.write_text("id,field,value,source,as_of,note\n"
                     'h100-sxm,price_usd,24000,ACME quote,2026-01,"two\nlines"\n')
    result = run(["catalog", "show", "h100-sxm", "--catalog", str(quote), "--format", "json"])
    assert result.exit_code == 0, result.output
    price = json.loads(result.stdout)["figures"]["card_prices.price_usd"]
    assert (price["value"], price["note"]) == (24000, "two\nlines")


# --- xlsx dates ------------------------------------------------------------------------------


def xlsx_quote(path: Path, as_of: object, number_format: str | None = None) -> Path:
    wb = Workbook()
    ws = wb.active
    ws.append(["id", "field", "value", "source", "as_of"])
    ws.append(["h100-sxm", "price_usd", 24000, "ACME quote 17", as_of])
    if number_format:
        ws.cell(row=2, column=5).number_format = number_format
    wb.save(path)
    return path


@pytest.mark.parametrize("as_of, number_format, expected", [
    (dt.datetime(2025, 7, 16), "yyyy-mm-dd", "2025-07-16"),
    (dt.datetime(2025, 7, 16), "d mmm yyyy", "2025-07-16"),
    (dt.date(2025, 7, 16), None, "2025-07-16"),  # openpyxl's default date format
    (dt.datetime(2025, 7, 1), "mmm yyyy", "2025-07"),  # a month: as precise as it is shown
    (dt.datetime(2025, 7, 1), '"as of" mmmm yyyy', "2025-07"),
    ("2025-07", None, "2025-07"),  # text, as before
])
def test_xlsx_date_cell_is_accepted_as_an_iso_date(tmp_path: Path, as_of: object,
                                                   number_format: str | None,
                                                   expected: str) -> None:
    quote = xlsx_quote(tmp_path / "quote.xlsx", as_of, number_format)
    result = run(["catalog", "show", "h100-sxm", "--catalog", str(quote), "--format", "json"])
    assert result.exit_code == 0, result.output
    price = json.loads(result.stdout)["figures"]["card_prices.price_usd"]
    assert (price["value"], price["as_of"]) == (24000, expected)


def test_impossible_date_text_in_an_xlsx_is_refused(tmp_path: Path) -> None:
    quote = xlsx_quote(tmp_path / "quote.xlsx", "2025-02-29")  # 2025 is not a leap year
    msg = one_error(run(["compare", "--catalog", str(quote)]))
    assert msg.startswith(f"{quote}:2: card_prices.h100-sxm.price_usd.as_of: ")
    assert "found '2025-02-29', which is not a date (day is out of range for month)" in msg


def test_date_like_text_outside_as_of_is_just_text(tmp_path: Path) -> None:
    """YAML 1.1 reads 2026-13-45 as a date and crashed on it; a name may look like one."""
    text = example_scenario().read_text()
    scenario = tmp_path / "s.yaml"
    scenario.write_text(re.sub(r"(?m)^name: .*$", "name: 2026-13-45", text, count=1))
    result = run(["compare", str(scenario), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["scenario"] == "2026-13-45"
    scenario.write_text(re.sub(r"(?m)^name: .*$", "name: 2026-01-31", text, count=1))
    result = run(["compare", str(scenario), "--format", "json"])
    assert json.loads(result.stdout)["scenario"] == "2026-01-31"


def test_unquoted_yaml_date_in_a_quote_is_accepted(tmp_path: Path) -> None:
    quote = tmp_path / "quote.yaml"
    quote.write_text("card_prices:\n  - id: h100-sxm\n    price_usd: {value: 24000, "
                     "source: ACME quote 17, as_of: 2025-07-16}\n")
    result = run(["catalog", "show", "h100-sxm", "--catalog", str(quote), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["figures"]["card_prices.price_usd"]["as_of"] == "2025-07-16"


# --- duplicate keys in YAML ------------------------------------------------------------------


def test_duplicate_key_names_both_lines_in_a_flow_mapping(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text("facility: {region: us, region: eu}\n"
                        + example_scenario().read_text().replace("facility:", "facility_:"))
    msg = one_error(run(["validate", str(scenario)]))
    assert msg == (f"{scenario}:1: facility.region: duplicate key 'region': also "
                   "given on the same line; YAML would keep only the last one, so give each "
                   "key once")


def test_merge_keys_are_not_duplicates(tmp_path: Path) -> None:
    """`<<: *anchor` then an explicit key that overrides it is ordinary YAML."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(
        "workloads:\n  - id: w\n    params: 7e9\n    tokens: 1e11\n"
        "candidates:\n  - &first {id: a, card: h100-sxm, cards: 8}\n"
        "  - <<: *first\n    id: b\n    cards: 16\n")
    result = run(["compare", str(scenario), "--format", "json"])
    assert result.exit_code == 0, result.output
    cards = {c["id"]: c["cards"] for c in json.loads(result.stdout)["candidates"]}
    # (and the option renting the H100 of `a`, the first candidate with it: rent_options: auto)
    assert cards == {"a": 8, "b": 16, "a-rent": 8}


# --- SOURCE_DATE_EPOCH -----------------------------------------------------------------------


@pytest.mark.parametrize("value", ["-1", "1.5", "1e9", "abc", " 1767225600", "1767225600\n",
                                   "١٧٦٧٢٢٥٦٠٠", str(MAX_EPOCH + 1), "9" * 5000])
@pytest.mark.parametrize("flag", ["--xlsx", "--html"])
def test_bad_source_date_epoch_is_refused_for_every_format(tmp_path: Path, value: str,
                                                           flag: str) -> None:
    out = tmp_path / ("report.xlsx" if flag == "--xlsx" else "report.html")
    msg = one_error(run(["report", flag, str(out), "--draws", "0"],
                        env={"SOURCE_DATE_EPOCH": value}))
    assert msg.startswith("SOURCE_DATE_EPOCH=")
    assert ("expected a whole number of seconds since 1970-01-01 UTC" in msg
            or f"out of range; expected 0 to {MAX_EPOCH}" in msg)
    assert len(msg) < 300  # a huge value is shortened, not printed whole
    assert not out.exists()


def test_source_date_epoch_bounds() -> None:
    assert parse_epoch("0") == dt.date(1970, 1, 1)
    assert parse_epoch("0001767225600") == dt.date(2026, 1, 1)
    assert parse_epoch(str(MAX_EPOCH)) == dt.date(9999, 12, 31)
    with pytest.raises(TcoError, match="out of range"):
        parse_epoch(str(MAX_EPOCH + 1))


def test_empty_source_date_epoch_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "")
    before = dt.datetime.now(tz=dt.UTC).date()
    assert output_date() in (before, dt.datetime.now(tz=dt.UTC).date())


def report_dates(folder: Path, env: dict[str, str]) -> tuple[str, str, str]:
    """(HTML report date, workbook Generated date, workbook created property) of one run."""
    folder.mkdir()
    html, xlsx = folder / "r.html", folder / "r.xlsx"
    proc = subprocess.run([sys.executable, "-m", "tco", "report", "--draws", "0", "--html",
                           str(html), "--xlsx", str(xlsx)], env=env, capture_output=True,
                          text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    page = html.read_text()
    shown = re.search(r"Report date</dt>\s*<dd>(\d{4}-\d{2}-\d{2})", page)
    assert shown, "report date not found"
    wb = load_workbook(xlsx)
    ws = wb["Methodology"]
    generated = next(str(r[1].value) for r in ws.iter_rows() if r[0].value == "Generated")
    return shown.group(1), generated, wb.properties.created.date().isoformat()


@pytest.mark.parametrize("tz", ["Pacific/Kiritimati", "Etc/GMT+12"])  # UTC+14 and UTC-12
def test_every_file_of_a_report_has_the_utc_date_whatever_the_time_zone(tmp_path: Path,
                                                                        tz: str) -> None:
    """Between them the two zones are on another date than UTC at every hour of the day."""
    env = {k: v for k, v in os.environ.items() if k != "SOURCE_DATE_EPOCH"}
    env["TZ"] = tz
    before = dt.datetime.now(tz=dt.UTC).date().isoformat()
    dates = report_dates(tmp_path / "today", env)
    after = dt.datetime.now(tz=dt.UTC).date().isoformat()
    assert dates in ((before,) * 3, (after,) * 3), dates
    # the last second of 2025 (UTC) is 2026 in Kiritimati and 2025-12-31 noon at GMT+12
    env["SOURCE_DATE_EPOCH"] = "1767225599"
    assert report_dates(tmp_path / "epoch", env) == ("2025-12-31",) * 3


# --- a scenario given as a pipe ----------------------------------------------------------------


def tco_process(args: list[str], timeout: float = 120, **kw: object
                ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tco", *args], capture_output=True, text=True,
                          timeout=timeout, check=False, **kw)  # type: ignore[call-overload]


def feed_fifo(path: Path, data: str) -> threading.Thread:
    """A thread that writes `data` once to the FIFO at `path` (when a reader opens it)."""
    def write() -> None:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(data)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def release(path: Path) -> None:
    """Unblock a writer still waiting for a reader (a failed run never opened the FIFO)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


@pytest.mark.parametrize("args", [
    ["whatif", "{fifo}", "--set", "utilization=0.5", "--format", "json"],
    ["whatif", "{fifo}", "--set", "candidates.b200.cards=512", "--format", "json"],
    ["montecarlo", "{fifo}", "--draws", "300", "--format", "json"],
    ["compare", "{fifo}", "--format", "json"],
    ["sensitivity", "{fifo}", "--format", "json"],
])
def test_scenario_from_a_fifo_is_read_once(tmp_path: Path, args: list[str]) -> None:
    text = example_scenario().read_text()
    regular = tmp_path / "s.yaml"
    regular.write_text(text)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    writer = feed_fifo(fifo, text)
    try:
        # a second read of the FIFO would wait for a writer that never comes: the timeout
        proc = tco_process([a.replace("{fifo}", str(fifo)) for a in args], timeout=90)
    except subprocess.TimeoutExpired:
        pytest.fail("tco read the FIFO twice (it waited for a second writer)")
    finally:
        release(fifo)
        writer.join(5)
    assert proc.returncode == 0, proc.stderr
    expected = tco_process([a.replace("{fifo}", str(regular)) for a in args])
    assert expected.returncode == 0, expected.stderr
    assert proc.stdout == expected.stdout


@pytest.mark.parametrize("args", [["validate", "{fifo}.yaml"],
                                  ["validate", "{example}", "--catalog", "{fifo}.xlsx"],
                                  ["validate", "{example}", "--catalog", "{fifo}.csv"]])
def test_a_fifo_no_program_writes_into_is_refused(tmp_path: Path, args: list[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """`mkfifo f.yaml; tco validate f.yaml` waited for ever for a writer (an xlsx quote too);
    a FIFO that no program writes into within tco.yamlio.FIFO_WAIT_S is one message."""
    from tco import yamlio

    monkeypatch.setattr(yamlio, "FIFO_WAIT_S", 0.3)
    fifo = tmp_path / "never"
    argv = [a.replace("{fifo}", str(fifo)).replace("{example}", str(example_scenario()))
            for a in args]
    os.mkfifo(argv[-1])
    out = CliRunner().invoke(cli, argv)
    assert out.exit_code == 2, out.output
    assert out.output == (f"tco: error: {argv[-1]}: a FIFO that no program wrote into within "
                          "0.3 s; write the file into it (cat s.yaml > FIFO), or give the file "
                          "itself\n")


def test_an_xlsx_quote_from_a_fifo_is_read_once(tmp_path: Path) -> None:
    """An xlsx quote was opened by name twice (the archive check, then openpyxl) and sought
    in: from a FIFO, 'File is not a zip file'."""
    book = Workbook()
    book.active.append(["id", "field", "value", "source", "as_of"])
    book.active.append(["h100-sxm", "price_usd", 24000, "ACME quote 17", "2026-01"])
    regular = tmp_path / "q.xlsx"
    book.save(regular)
    fifo = tmp_path / "fifo.xlsx"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(regular.read_bytes()),
                              daemon=True)
    writer.start()
    try:
        proc = tco_process(["catalog", "show", "h100-sxm", "--catalog", str(fifo)], timeout=90)
    finally:
        release(fifo)
        writer.join(5)
    assert proc.returncode == 0, proc.stderr
    assert "ACME quote 17" in proc.stdout


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("command", [
    "tco whatif <(cat {s}) --set utilization=0.5 --format json",
    "tco compare <(cat {s}) --format json",
    "tco montecarlo <(cat {s}) --draws 300 --format json",
    "tco montecarlo <(cat {s}) --catalog {q} --draws 300 --format json",
    "tco whatif <(cat {s}) --catalog {q} --set candidates.h100-sxm.card_price=-10% --format json",
])
def test_process_substitution(tmp_path: Path, command: str) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(example_scenario().read_text())
    quote = tmp_path / "q.csv"
    quote.write_text(QUOTE_HEADER + "h100-sxm,price_usd,24000,ACME quote 17,2026-01\n")
    tco = f"{sys.executable} -m tco"
    line = command.replace("tco ", tco + " ", 1).format(s=scenario, q=quote)
    piped = subprocess.run(["bash", "-c", line], capture_output=True, text=True, timeout=120,
                           check=False)
    assert piped.returncode == 0, piped.stderr
    plain = re.sub(r"<\(cat ([^)]*)\)", r"\1", line)
    expected = subprocess.run(["bash", "-c", plain], capture_output=True, text=True,
                              timeout=120, check=False)
    assert expected.returncode == 0, expected.stderr
    assert piped.stdout == expected.stdout


def test_a_pipe_is_read_up_to_the_size_limit_only(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from tco import yamlio

    monkeypatch.setattr(yamlio, "MAX_FILE_BYTES", 1000)
    fifo = tmp_path / "big.yaml"
    os.mkfifo(fifo)
    writer = feed_fifo(fifo, "# " + "x" * 5000 + "\n")
    try:
        with pytest.raises(TcoError, match="more than 1,000 bytes; the limit is 1,000"):
            yamlio.read_text(fifo)
    finally:
        release(fifo)
        writer.join(5)


# --- control characters --------------------------------------------------------------------

OSC = "\x1b]0;pwned\x07"  # sets the terminal title; click strips only colour sequences


def assert_inert(text: str) -> None:
    assert not any(ch in text for ch in "\x1b\x07\r\x08"), repr(text)


def test_error_message_shows_control_characters_escaped(tmp_path: Path) -> None:
    quote = tmp_path / "q.csv"
    quote.write_text(QUOTE_HEADER + f'"h100{OSC}\rX",price_usd,24000,ACME quote,2026-01\n')
    msg = one_error(run(["compare", "--catalog", str(quote)]))
    assert_inert(msg)
    # refused as read (tco.text), shown escaped
    assert msg.endswith("q.csv:2: id: found 'h100\\x1b]0;pwned\\x07\\rX': character 5 is "
                        "U+001B, a control character; remove it")
    quote.write_text(QUOTE_HEADER + f"h100{OSC}\rX,price_usd,24000,ACME quote,2026-01\n")
    msg = one_error(run(["compare", "--catalog", str(quote)]))  # unquoted: not a CSV cell
    assert msg.startswith(f"{quote}:2: a line break (carriage return) inside a "
                          "cell that is not quoted")
    msg = one_error(run(["whatif", "--set", "util\rization\x08=0.5"]))
    assert_inert(msg)
    assert "no input 'util\\rization\\u0008'" in msg


def test_file_name_with_control_characters_is_escaped(tmp_path: Path) -> None:
    missing = tmp_path / f"s{OSC}.yaml"
    msg = one_error(run(["validate", str(missing)]))
    assert_inert(msg)
    assert "s\\u001b]0;pwned\\u0007.yaml: file not found" in msg


def test_control_characters_in_a_catalog_name_are_refused(tmp_path: Path) -> None:
    """A terminal escape in a name is refused where the quote is read (tco.text), for every
    command, and the message shows it escaped."""
    quote = tmp_path / "names.yaml"
    quote.write_text("accelerators:\n  - id: h100-sxm\n    name: "
                     + json.dumps(f"H100 {OSC}\rfake") + "\n")
    for args in (["catalog", "show", "h100-sxm"],
                 ["job", "--model-params", "7e9", "--tokens", "1e11", "--card", "h100-sxm",
                  "--cards", "64"]):
        msg = one_error(run([*args, "--catalog", str(quote)]))
        assert_inert(msg)
        assert msg == (f"{quote}:3: accelerators.h100-sxm.name: found 'H100 "
                       "\\x1b]0;pwned\\x07\\rfake': character 6 is U+001B, a control "
                       "character; remove it")


@pytest.fixture
def renamed_card(tmp_path: Path) -> Path:
    """Names a table must show on one line: a line separator (U+2028) and a line break."""
    quote = tmp_path / "names.yaml"
    quote.write_text("accelerators:\n  - id: h100-sxm\n    name: "
                     + json.dumps("H100\u2028fake") + "\n    notes: "
                     + json.dumps("line one\nline two") + "\n")
    return quote


def test_catalog_show_and_job_tables_escape_names(renamed_card: Path) -> None:
    shown = run(["catalog", "show", "h100-sxm", "--catalog", str(renamed_card)])
    assert shown.exit_code == 0, shown.output
    assert "accelerators.name: H100\\u2028fake" in shown.stdout
    assert "accelerators.notes: line one line two" in shown.stdout
    job = run(["job", "--model-params", "7e9", "--tokens", "1e11", "--card", "h100-sxm",
               "--cards", "64", "--catalog", str(renamed_card)])
    assert job.exit_code == 0, job.output
    assert job.stdout.startswith("H100\\u2028fake x 64 (")


def test_json_keeps_the_raw_name(renamed_card: Path) -> None:
    shown = run(["catalog", "show", "h100-sxm", "--catalog", str(renamed_card), "--format",
                 "json"])
    assert json.loads(shown.stdout)["figures"]["accelerators.name"] == "H100\u2028fake"


def test_printable_escapes_breaks_only_when_asked() -> None:
    assert printable("a\tb\r\nc") == "a b  c"
    assert printable("a\tb\r\nc", breaks=None) == "a\\tb\\r\\nc"
    assert printable("\u202eevil\u2028") == "\\u202eevil\\u2028"


# --- Monte Carlo: draws, seed, distributions -------------------------------------------------


def test_draws_limit_is_the_memory_the_draws_need(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mc_module, "memory_limit", lambda: 16 * 8 * 1000)
    check_draws(1000, 8)  # 1000 draws x 8 candidates x 2 results x 8 bytes: exactly the limit
    with pytest.raises(TcoError) as info:
        check_draws(1001, 8)
    assert info.value.message == (
        "--draws 1,001: keeping every draw of 8 candidate(s) needs 0.0 GiB of memory (128 bytes "
        "a draw); the limit is 0.0 GiB, which allows at most 1,000 draws for this scenario")


def test_seed_zero_is_a_seed() -> None:
    result = run(["montecarlo", "--seed", "0", "--draws", "100", "--format", "json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["seed"] == 0


CLIPPED = """\
workloads:
  - id: w
    params: 7e9
    tokens: 1e11
candidates:
  - id: h100
    card: h100-sxm
    cards: 64
  - id: b200
    card: b200
    cards: 64
distributions:
  candidates.h100.card_price: {dist: normal, low: 200, high: 900}
  utilization: {dist: normal, low: 0.6, high: 0.99}
  facility.carbon_kg_per_kwh: {dist: uniform, low: 0.1, high: 0.5}
"""
# A normal's low and high are its 10th and 90th percentiles (inside the plausible range, as
# every distribution's bounds must be); its tails beyond the range are clipped:
#   price: mean 550, sigma 700 / (2 x 1.28155) = 273.10; P(x < 100) = Phi(-1.6477) = 0.0497
#   utilization: mean 0.795, sigma 0.39 / 2.5631 = 0.15216; P(x > 1) = 1 - Phi(1.3473) = 0.0889
PRICE_SHARE, UTIL_SHARE = 0.0497, 0.0889
PRICE_WARNING = ("distributions.candidates.h100.card_price: normal 200 to 900 USD/card reaches "
                 "outside the input's plausible range 100 to 1e+06 USD/card; 5% of its draws "
                 "are clipped to that range")
UTIL_WARNING = ("distributions.utilization: normal 0.6 to 0.99 reaches outside the input's "
                "plausible range 0.01 to 1; 9% of its draws are clipped to that range")
UNUSED_WARNING = ("distributions.facility.carbon_kg_per_kwh: no result of the Monte Carlo "
                  "analysis depends on this input, so it is not drawn")
ALL_WARNINGS = f"{UTIL_WARNING}; {PRICE_WARNING}; {UNUSED_WARNING}"  # in input order


@pytest.fixture
def clipped(tmp_path: Path) -> Path:
    path = tmp_path / "clipped.yaml"
    path.write_text(CLIPPED)
    return path


def test_clipped_distribution_is_a_warning_in_the_table(clipped: Path) -> None:
    result = run(["montecarlo", str(clipped), "--draws", "500"])
    assert result.exit_code == 0, result.output
    for warning in (PRICE_WARNING, UTIL_WARNING, UNUSED_WARNING):
        assert f"WARNING: {warning}\n" in result.stdout
    assert result.stderr == ""  # shown once, in the table


def test_clipped_distribution_is_a_warning_in_json_and_csv(clipped: Path, tmp_path: Path
                                                           ) -> None:
    result = run(["montecarlo", str(clipped), "--draws", "500", "--format", "json"])
    assert result.exit_code == 0, result.output
    warnings = json.loads(result.stdout)["warnings"]
    assert [(w["kind"], w["path"], w["message"]) for w in warnings] == [
        ("clipped", "utilization", UTIL_WARNING),
        ("clipped", "candidates.h100.card_price", PRICE_WARNING),
        ("unused", "facility.carbon_kg_per_kwh", UNUSED_WARNING)]
    assert warnings[1]["share_clipped"] == pytest.approx(PRICE_SHARE, abs=1e-4)
    assert warnings[0]["share_clipped"] == pytest.approx(UTIL_SHARE, abs=1e-4)
    # on stderr too: nothing else on the terminal would show it
    assert result.stderr.splitlines() == [f"tco: warning: {w}" for w in
                                          (UTIL_WARNING, PRICE_WARNING, UNUSED_WARNING)]
    out = tmp_path / "mc.csv"
    result = run(["montecarlo", str(clipped), "--draws", "500", "--format", "csv", "-o",
                  str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    # two metrics for each of the two candidates and the two options renting them, and the
    # NPV of the cheapest plan held fixed (the scenario is planned)
    assert len(rows) == 9 and rows[-1]["candidate"] == "plan"
    for row in rows:
        assert row["warnings"] == ALL_WARNINGS
    assert PRICE_WARNING in result.stderr


def test_clipped_distribution_is_a_warning_in_the_report_and_workbook(clipped: Path,
                                                                      tmp_path: Path) -> None:
    html, xlsx = tmp_path / "r.html", tmp_path / "r.xlsx"
    result = run(["report", str(clipped), "--draws", "500", "--html", str(html), "--xlsx",
                  str(xlsx)])
    assert result.exit_code == 0, result.output
    assert f"tco: warning: {PRICE_WARNING}" in result.stderr.splitlines()
    page = html.read_text()
    assert ('<p class="warning" role="note">Warning: the normal distribution of '
            "candidates.h100.card_price, 200 to 900 USD/card, reaches outside the input&#39;s "
            "plausible range (100 to 1e+06 USD/card); 5% of its draws are clipped to that "
            "range.</p>") in page
    assert "Warning: the scenario gives a distribution for facility.carbon_kg_per_kwh" in page
    sheet = load_workbook(xlsx)["MonteCarlo"]
    assert sheet["A4"].value == f"Warning: {ALL_WARNINGS}"
    zh = tmp_path / "r.zh.html"
    assert run(["report", str(clipped), "--draws", "500", "--html", str(zh), "--lang",
                "zh"]).exit_code == 0
    assert ("警告：candidates.h100.card_price 的正态分布（200 至 900 USD/card）超出该输入的合理范围"
            "（100 至 1e+06 USD/card）；其抽样中有 5% 被截断到该范围。") in zh.read_text()


def test_no_warning_for_a_distribution_inside_the_range() -> None:
    result = run(["montecarlo", "--draws", "200", "--format", "json"])
    assert json.loads(result.stdout)["warnings"] == []
    assert result.stderr == ""


@pytest.mark.parametrize("draw", [
    Draw(("x",), "uniform", 0.0, 1.0, 4.0, 0.5, 3.0),
    Draw(("x",), "triangular", 0.0, 1.0, 4.0, 0.5, 3.0),
    Draw(("x",), "triangular", 0.0, 0.0, 4.0, 1.0, 9.0),
    Draw(("x",), "normal", 0.0, 1.0, 2.0, 0.2, 9.0),
])
def test_clipped_share_is_the_share_of_draws_the_range_cuts(draw: Draw) -> None:
    x = Sampler([Draw(draw.paths, draw.dist, draw.low, draw.mode, draw.high, -1e9, 1e9)]
                ).sample(np.random.Generator(np.random.PCG64(3)), 400_000)[0]
    empirical = float(np.mean((x < draw.clip_low) | (x > draw.clip_high)))
    assert draw.clipped_share == pytest.approx(empirical, abs=0.003)
