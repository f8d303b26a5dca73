"""Your own benchmarks as evidence (issue 29): `tco ingest` and a scenario's `benchmarks:`
read vLLM, SGLang, genai-perf/AIPerf, MLPerf and training-CSV results (the sample files in
tests/data/benchmarks/ are invented values in each documented format) into efficiencies that
replace the catalog's for their card, named as yours in every output; hostile files get one
message naming the file and the field."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tco.benchmarks import BenchmarkError, read
from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario

DATA = Path(__file__).parent / "data" / "benchmarks"

SCENARIO = {
    "name": "serving on H20, measured", "rent_options": "none",
    "workloads": [{"id": "chat", "kind": "serve", "params": 70.55e9, "precision": "fp8",
                   "layers": 80, "kv_heads": 8, "head_dim": 128,
                   "input_tokens_per_day": 2e9, "output_tokens_per_day": 1e9,
                   "prompt_tokens": 1024, "output_tokens": 512, "tpot_ms": 80}],
    "candidates": [{"id": "h20", "card": "h20", "cards": 64},
                   {"id": "h200", "card": "h200-sxm", "cards": 64}],
}
BENCH = {"file": str(DATA / "vllm_h20_fp8.json"), "card": "h20", "cards": 8,
         "precision": "fp8", "engine": "vLLM 0.9"}


def write(tmp_path: Path, data: dict, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


# --- the formats ---------------------------------------------------------------------------


def test_vllm_result_by_hand():
    fmt, (m,) = read(DATA / "vllm_h20_fp8.json")
    assert fmt == "vllm"
    assert m.output_tokens_per_s == 2410.5 and m.mean_tpot_ms == 72.5 and m.p99_tpot_ms == 86
    assert m.prompt_tokens == 655360 / 640 == 1024  # total_input_tokens / completed
    assert m.output_tokens == 327680 / 640 == 512
    assert m.concurrency == 64 and m.measured_on == "2026-11-20" and m.engine == "vllm"


def test_a_vllm_date_in_other_digits_is_not_read_as_a_date(tmp_path):
    """vLLM's YYYYMMDD-HHMMSS is read in ASCII digits only: the same in Arabic-Indic digits,
    which Python's \\d matches, was cut into a date-like ٢٠٢٦-١١-٢٠; it stays text as given."""
    text = (DATA / "vllm_h20_fp8.json").read_text(encoding="utf-8")
    other = "".join(chr(0x660 + int(c)) if c.isdigit() else c for c in "20261120-101500")
    path = tmp_path / "vllm.json"
    path.write_text(text.replace("20261120-101500", other), encoding="utf-8")
    _fmt, (m,) = read(path)
    assert m.measured_on == other


def test_sglang_lines_with_infinity():
    fmt, runs = read(DATA / "sglang_mi300x_fp8.jsonl")
    assert fmt == "sglang" and len(runs) == 2
    assert [r.output_tokens_per_s for r in runs] == [771.4, 3323.4]
    assert runs[1].concurrency == 63.6 and runs[1].prompt_tokens == 655360 / 640


def test_genai_perf_and_aiperf_exports():
    fmt, (g,) = read(DATA / "genai_perf_b200_fp4.json")
    assert fmt == "genai-perf" and g.output_tokens_per_s == 5017.6
    assert (g.mean_tpot_ms, g.p99_tpot_ms) == (19.7, 22.3)  # inter-token latency: a TPOT
    assert (g.prompt_tokens, g.output_tokens, g.concurrency) == (1024, 512, 100)
    fmt, (a,) = read(DATA / "aiperf_h200_fp8.json")
    assert fmt == "genai-perf" and (a.output_tokens_per_s, a.mean_tpot_ms) == (3600, 31.2)


def test_mlperf_summary_by_hand():
    fmt, (m,) = read(DATA / "mlperf_log_summary.txt")
    assert fmt == "mlperf" and m.output_tokens_per_s == 16000
    assert m.mean_tpot_ms == pytest.approx(140.0) and m.p99_tpot_ms == pytest.approx(152.0)
    assert m.mean_ttft_ms == pytest.approx(250.0)
    assert m.output_tokens == pytest.approx(16000 / 55.17)  # tokens / samples per second
    assert m.prompt_tokens is None  # not in the log: the entry must give it


def test_training_csv_step_time_by_hand():
    fmt, (r,) = read(DATA / "training_step_time.csv")
    assert fmt == "training-csv"
    assert r.tokens_per_s == pytest.approx(4194304 / 75.3)
    assert r.layout == {"tp": 8, "pp": 4, "dp": 8} and r.cards == 256


# --- the efficiency, and every output ------------------------------------------------------


@pytest.fixture(scope="module")
def pair(catalog, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("ingest")
    plain = compute(load_scenario(write(tmp, SCENARIO, "plain.yaml")), catalog)
    measured = compute(load_scenario(write(tmp, {**SCENARIO, "benchmarks": [BENCH]},
                                           "measured.yaml")), catalog)
    return plain, measured, tmp


def test_the_measured_efficiency_reproduces_the_measured_rate(catalog):
    """The solved efficiency, put into the model of the measured point (8 cards, one replica
    of 8, the run's prompt and output lengths, its mean time per token as the objective),
    gives the measured 2,410.5 / 8 = 301.3 output tokens/s per card."""
    from tco.measured import _measured_model, serving_efficiency
    from tco.scenario import Benchmark

    _fmt, (m,) = read(DATA / "vllm_h20_fp8.json")
    entry = Benchmark(file="x", card="h20", cards=8, precision="fp8")
    work = {"id": "chat", "params": 70.55e9, "active_params": None, "layers": 80,
            "kv_heads": 8, "head_dim": 128}
    f = serving_efficiency(catalog, work, entry, "h20", 8, m)
    model, values, path = _measured_model(catalog, work, entry, "h20", 8, m)
    got = model.evaluate({**values, path: f})["cand.w.tokens_per_s_per_card"]
    assert float(got) == pytest.approx(2410.5 / 8, rel=2e-3)
    assert 0.5 < f < 1.2


def test_ingesting_changes_the_cost_per_token_and_says_where_it_came_from(pair):
    plain, measured, _tmp = pair
    before = plain.candidate("h20").jobs["chat"]["cost_per_million_output_tokens"]
    after = measured.candidate("h20").jobs["chat"]["cost_per_million_output_tokens"]
    assert after != before
    # the H200 has no benchmark: its figures stay the catalog's
    assert measured.candidate("h200").jobs["chat"]["cost_per_million_output_tokens"] == \
        plain.candidate("h200").jobs["chat"]["cost_per_million_output_tokens"]
    inp = measured.inputs["candidates.h20.measured_serving_efficiency_fp8"]
    assert inp.origin == "measured"
    assert inp.source.startswith("measured by you, 2026-11-20, 8x NVIDIA H20 96GB "
                                 "(China export variant), vLLM 0.9 (vllm_h20_fp8.json)")
    assert measured.inputs["candidates.h20.serving_tail_latency_ratio"].value == \
        pytest.approx(86 / 72.5)
    assert any(n.startswith("serving at FP8 measured by you") for n in
               measured.candidate("h20").notes)


def test_every_output_shows_the_measured_figure(pair):
    from openpyxl import load_workbook

    from tco.exporters.data import compare_dict, compare_table
    from tco.exporters.html import render_html
    from tco.exporters.xlsx import write_workbook

    plain, measured, tmp = pair
    cost = measured.candidate("h20").jobs["chat"]["cost_per_million_output_tokens"]
    data = compare_dict(measured)
    assert {m["input"] for m in data["measured_benchmarks"]} == {
        "measured_serving_efficiency_fp8", "serving_tail_latency_ratio"}
    h20 = next(c for c in data["candidates"] if c["id"] == "h20")
    assert h20["jobs"]["chat"]["cost_per_million_output_tokens"] == cost
    assert compare_dict(plain)["measured_benchmarks"] == []
    table = compare_table(measured)
    assert "measured by you, 2026-11-20" in table and f"${cost:,.3f}" in table
    for lang in ("en", "zh"):
        html = render_html(measured, lang, day=dt.date(2026, 12, 3))
        assert "measured by you, 2026-11-20" in html or "您的实测" in html
        assert f"${cost:,.3f}" in html
    wb = load_workbook(write_workbook(measured, tmp / "m.xlsx", generated=dt.date(2026, 12, 3)))
    texts = [c.value for ws in wb for row in ws.iter_rows() for c in row
             if isinstance(c.value, str)]
    assert any(t.startswith("measured by you, 2026-11-20") for t in texts)  # Assumptions
    assert any("serving at FP8 measured by you" in t for t in texts)  # Summary's notes


def test_tco_ingest_prints_an_entry_that_gives_the_same_efficiency(pair, catalog):
    _plain, measured, tmp = pair
    scenario = write(tmp, SCENARIO, "for-ingest.yaml")
    out = CliRunner().invoke(cli, ["ingest", str(DATA / "vllm_h20_fp8.json"), "--card", "h20",
                                   "--cards", "8", "--precision", "fp8", "--engine", "vLLM 0.9",
                                   "--scenario", str(scenario)])
    assert out.exit_code == 0, out.output
    entries = yaml.safe_load(out.output)["benchmarks"]
    assert entries[0]["serving"]["output_tokens_per_s"] == 2410.5
    want = measured.inputs["candidates.h20.measured_serving_efficiency_fp8"].value
    assert f"{want:.3f} of the catalog's vendor-tuned rate" in out.output
    inline = compute(load_scenario(write(tmp, {**SCENARIO, "benchmarks": entries},
                                         "inline.yaml")), catalog)
    assert inline.inputs["candidates.h20.measured_serving_efficiency_fp8"].value == \
        pytest.approx(want, rel=1e-12)


def test_a_training_run_sets_the_cards_mfu(catalog, tmp_path):
    """256 910Bs at 4,194,304 tokens per 75.3 s step on a 70B model: MFU = 6 x 70e9 x 55,701
    / (256 x 320e12) = 0.2856, the team's own (no CANN factor on top)."""
    data = {"name": "train", "workloads": [{"id": "pre", "params": 70e9, "tokens": 1e12}],
            "candidates": [{"id": "npu", "card": "ascend-910b", "cards": 256}],
            "benchmarks": [{"file": str(DATA / "training_step_time.csv")}]}
    r = compute(load_scenario(write(tmp_path, data)), catalog)
    mfu = r.inputs["candidates.npu.mfu"]
    assert mfu.value == pytest.approx(6 * 70e9 * 4194304 / 75.3 / (256 * 320e12), rel=1e-9)
    assert mfu.origin == "measured" and "MindSpeed 1.0" in mfu.source
    assert r.inputs["candidates.npu.stack_efficiency"].value == 1.0


# --- hostile files and entries -------------------------------------------------------------

HOSTILE = {
    "empty.json": ("", "not a benchmark result"),
    "array.json": ("[1, 2, 3]", "not a benchmark result"),
    "broken.json": ('{"output_throughput": 1,', "not valid JSON"),
    "deep.json": ("{" + '"a":{' * 100 + "}" * 101, "nested deeper than 64"),
    "nan.json": ('{"output_throughput": NaN, "mean_tpot_ms": 30}', "output_throughput"),
    "negative.json": ('{"output_throughput": -5, "mean_tpot_ms": 30}', "output_throughput"),
    "string.json": ('{"output_throughput": "fast", "mean_tpot_ms": 30}', "expected a number"),
    "no_tpot.json": ('{"output_throughput": 100}', "mean_tpot_ms"),
    "invalid.txt": ("MLPerf Results Summary\nScenario : Server\nResult is : INVALID\n",
                    "not VALID"),
    "no_tpot.txt": (("MLPerf Results Summary\nResult is : VALID\nCompleted tokens per "
                     "second: 10\n"), "time to output token"),
    "rows.csv": ("card,cards,precision,params,tokens_per_s\nh20,8,bf16,,100\n", "params"),
    "noise.csv": ("a,b\n1,2\n", "not a benchmark result"),
    # an integer beyond any float, and one beyond what Python reads (4,300 digits): both were
    # a traceback (OverflowError, ValueError)
    "long_int.json": ('{"output_throughput": 1' + "0" * 400 + ', "mean_tpot_ms": 30}',
                      "output_throughput: found a number of 401 digits"),
    "huge_int.json": ('{"output_throughput": 1' + "0" * 5000 + ', "mean_tpot_ms": 30}',
                      "output_throughput: found a number of 5,001 digits"),
    # a training CSV: a column given twice (the later won), a step time that makes 4e306
    # tokens/s (printed in 300 digits), half a tp degree (cut to 1), Python's own numbers
    "twice.csv": (("card,cards,precision,params,tokens_per_s,tokens_per_s\n"
                   "h20,64,bf16,8e9,98000,1\n"), "column 'tokens_per_s' is given twice"),
    "step.csv": (("card,cards,precision,params,step_time_s,global_batch_tokens\n"
                  "h20,64,bf16,8e9,1e-300,4e6\n"), "is 4e+306 tokens/s; expected at most 1e+12"),
    "half_tp.csv": ("card,cards,precision,params,tokens_per_s,tp\nh20,64,bf16,8e9,98000,1.5\n",
                    "tp: line 2: expected a whole tp degree, found 1.5"),
    "grouped.csv": ("card,cards,precision,params,tokens_per_s\nh20,1_000,bf16,8e9,98000\n",
                    "cards: line 2: expected a number, found '1_000'"),
    "twice.json": ('{"output_throughput": 1, "output_throughput": 2400, "mean_tpot_ms": 30}',
                   "key 'output_throughput' is given twice"),
    # a key or a column given twice among very many: found in one pass (the search for it
    # rebuilt the keys before each key, hours for a file under the size limit)
    "many_keys.json": ("{" + ", ".join(f'"k{i}": 1' for i in range(100_000)) + ', "k5": 2}',
                       "key 'k5' is given twice"),
    "many_columns.csv": (("card,cards,precision,params,tokens_per_s,"
                          + ",".join(f"x{i}" for i in range(100_000)) + ",x5\n"
                          "h20,64,bf16,8e9,98000" + ",1" * 100_001 + "\n"),
                         "column 'x5' is given twice"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_result_file_gets_one_message(tmp_path, name):
    text, expected = HOSTILE[name]
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    out = CliRunner().invoke(cli, ["ingest", str(path), "--card", "h20", "--cards", "8",
                                   "--precision", "fp8"])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output and str(path) in out.output and expected in out.output
    assert len(out.output.strip().splitlines()) == 1


def test_binary_and_oversized_files(tmp_path):
    binary = tmp_path / "b.json"
    binary.write_bytes(b"\xff\xfe\x00{")
    big = tmp_path / "big.json"
    big.write_bytes(b" " * 5_000_001)
    for path, expected in ((binary, "not UTF-8"), (big, "the limit is 5,000,000")):
        with pytest.raises(BenchmarkError, match=expected) as err:
            read(path)
        assert err.value.file == str(path)


def test_a_missing_file_and_bad_entries_name_the_field(catalog, tmp_path):
    from tco.engine import resolve_scenario as resolve
    from tco.errors import ScenarioError

    cases = [
        ({**BENCH, "file": str(tmp_path / "nope.json")}, "file not found"),
        ({**BENCH, "card": "h2000"}, "benchmarks.0.card"),
        ({**BENCH, "precision": "fp4"}, "no FP4 peak"),
        ({k: v for k, v in BENCH.items() if k != "cards"}, "benchmarks.0.cards"),
        ({**BENCH, "cards": 8, "tp": 3}, "benchmarks.0.tp"),
        ({"card": "h20", "cards": 8, "precision": "fp8"}, "give exactly one of file"),
        ({**BENCH, "file": str(DATA / "mlperf_log_summary.txt")}, "give prompt_tokens"),
    ]
    for bench, expected in cases:
        path = write(tmp_path, {**SCENARIO, "benchmarks": [bench]})
        with pytest.raises((ScenarioError, BenchmarkError)) as err:
            resolve(load_scenario(path), catalog)
        assert expected in str(err.value), (bench, str(err.value))


def test_request_lengths_and_tp_out_of_range_name_where_they_came_from(tmp_path):
    """A mean request length outside a serving workload's plausible range (NaN, negative, below
    one token) was printed by `tco ingest` with exit status 0, or failed inside the measured
    point's own scenario ("benchmark: workloads.w.prompt_tokens"), naming neither the file nor
    the field; a --tp that does not divide --cards was printed too."""
    mlperf = str(DATA / "mlperf_log_summary.txt")
    short = tmp_path / "short.json"
    short.write_text('{"output_throughput": 2400, "mean_tpot_ms": 72, "completed": 640, '
                     '"total_input_tokens": 10, "total_output_tokens": 327680}',
                     encoding="utf-8")
    given = ["--card", "h20", "--cards", "8", "--precision", "fp8"]
    cases = [
        ([mlperf, *given, "--prompt-tokens", "nan", "--output-tokens", "100"],
         "Invalid value for '--prompt-tokens': 'nan' is not a number"),  # not a number at all
        ([mlperf, *given, "--prompt-tokens", "0.5", "--output-tokens", "100"],
         "--prompt-tokens: found 0.5, outside the plausible range 1 to 1e+07 tokens"),
        ([mlperf, *given, "--prompt-tokens", "1000", "--output-tokens", "-5"],
         "--output-tokens: found -5, outside the plausible range 1 to 1e+06 tokens"),
        ([str(short), *given], f"{short}: the mean prompt length of its requests: found 0.015625"),
        ([str(DATA / "vllm_h20_fp8.json"), "--card", "h20", "--cards", "3", "--tp", "2"],
         "--tp: 3 cards in replicas of tp 2: expected tp a divisor of the cards"),
        # written into every entry as it was given
        ([str(DATA / "vllm_h20_fp8.json"), *given, "--measured-on", "2026-13-45"],
         "--measured-on: found '2026-13-45', which is not a date"),
    ]
    for args, expected in cases:
        out = CliRunner().invoke(cli, ["ingest", *args])
        assert out.exit_code == 2 and expected in out.output, (args, out.output)
        assert "Traceback" not in out.output and len(out.output.strip().splitlines()) == 1
    entry = {**BENCH, "file": mlperf, "prompt_tokens": -5, "output_tokens": 100}
    path = write(tmp_path, {**SCENARIO, "benchmarks": [entry]})
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert f"{path}:2: benchmarks.0.prompt_tokens: found -5, outside the plausible range" \
        in out.output


def test_request_lengths_given_on_the_command_line_take_the_place_of_the_files(tmp_path):
    """A result whose own mean prompt length is implausible (10 prompt tokens over 640
    requests: 0.016) was refused even with --prompt-tokens given: the length given on the
    command line is the one used (as --measured-on and --engine are), so it is the one
    checked; without it the file's is refused, naming the file."""
    short = tmp_path / "short.json"
    short.write_text('{"output_throughput": 2400, "mean_tpot_ms": 72, "completed": 640, '
                     '"total_input_tokens": 10, "total_output_tokens": 327680}',
                     encoding="utf-8")
    given = ["--card", "h20", "--cards", "8", "--precision", "fp8"]
    out = CliRunner().invoke(cli, ["ingest", str(short), *given, "--prompt-tokens", "1000"])
    assert out.exit_code == 0, out.output
    serving = yaml.safe_load(out.stdout)["benchmarks"][0]["serving"]
    assert serving["prompt_tokens"] == 1000 and serving["output_tokens"] == 327680 / 640
    out = CliRunner().invoke(cli, ["ingest", str(short), *given])
    assert out.exit_code == 2
    assert out.output == (f"tco: error: {short}: the mean prompt length of its requests: found "
                          "0.015625, outside the plausible range 1 to 1e+07 tokens for prompt "
                          "tokens per request\n")
    # a plausible length in the file gives way to the one given too (vllm_h20_fp8.json: 1024)
    out = CliRunner().invoke(cli, ["ingest", str(DATA / "vllm_h20_fp8.json"), *given,
                                   "--prompt-tokens", "2000", "--output-tokens", "256"])
    serving = yaml.safe_load(out.stdout)["benchmarks"][0]["serving"]
    assert (serving["prompt_tokens"], serving["output_tokens"]) == (2000, 256)


@pytest.mark.parametrize("field, value", [("cards", 64.5), ("tp", 1.5)])
def test_a_scenarios_training_entry_takes_whole_cards_and_degrees(tmp_path, field, value):
    """The form `tco ingest` prints for a scenario: 64.5 cards or a tp of 1.5 was cut to 64
    or 1 without a word (the CSV it is made from refused them)."""
    run = {"card": "h20", "cards": 64, "precision": "bf16", "params": 8e9,
           "tokens_per_s": 98000, "tp": 1, field: value}
    data = {**SCENARIO, "benchmarks": [{"training": [run]}]}
    out = CliRunner().invoke(cli, ["validate", str(write(tmp_path, data))])
    assert out.exit_code == 2, out.output
    assert "Traceback" not in out.output
    assert f"training.0.{field}" in out.output
    assert f"found {value}; expected a whole number" in out.output
