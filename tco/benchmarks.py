"""Your own benchmarks as evidence (docs/methodology.md §18, "Your own benchmarks"): reading
the result files of common serving and training benchmarks into measurements.

Serving (one measurement per run):

* vLLM `vllm bench serve --save-result` / benchmarks/benchmark_serving.py: one JSON object
  (`output_throughput`, `mean_tpot_ms`, `p99_tpot_ms`, `mean_ttft_ms`, `total_input_tokens`,
  `total_output_tokens`, `completed`, `max_concurrency`, `date`, `backend`);
* SGLang `python -m sglang.bench_serving`: one JSON object per line (the same keys, with
  `concurrency` and `accept_length`; `Infinity` is read as Python writes it);
* NVIDIA genai-perf and AIPerf exports (`*_genai_perf.json`, `profile_export_aiperf.json`): one
  object per metric (`output_token_throughput`, `inter_token_latency`, `time_to_first_token`,
  `input_sequence_length`, `output_sequence_length`) with `avg`, `p50`, `p99`, and `input_config`;
* an MLPerf Inference `mlperf_log_summary.txt` (`Completed tokens per second` or `Tokens per
  second`, `Mean Time to Output Token (ns)`, its 99th percentile, `Mean First Token latency`);
  its prompt length is not in the file (give `prompt_tokens`).

Training: a CSV with a header row, one row per measured run: `card`, `cards`, `precision`,
`params`, and `tokens_per_s` or `step_time_s` with `global_batch_tokens`; optional `tp`, `pp`,
`dp`, `measured_on`, `engine`.

Files are hostile until read: at most MAX_FILE_BYTES (tco.yamlio), UTF-8, every number finite
and in a plausible range, one message naming the file and the field on any fault.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import TcoError, printable
from .inputs import CANDIDATE_INPUTS, MEASURED_SERVING_SPEC, SERVE_CANDIDATE_INPUTS
from .numtext import number_from_text
from .text import first_repeated
from .yamlio import MAX_DIGITS, read_text


class BenchmarkError(TcoError):
    """A benchmark result file (or a `benchmarks:` entry) cannot be read as a measurement."""


FORMATS = ("vllm", "sglang", "genai-perf", "mlperf", "training-csv")
MAX_RUNS = 1000  # lines of a SGLang file, rows of a training CSV
MAX_NESTING = 64  # a JSON file nested deeper than this is not a benchmark's result


@dataclass(frozen=True)
class Serving:
    """One serving run: the system's output tokens per second at a mean time per output token
    (and what else the file says)."""

    format: str
    output_tokens_per_s: float
    mean_tpot_ms: float
    p99_tpot_ms: float | None = None
    mean_ttft_ms: float | None = None
    p99_ttft_ms: float | None = None
    prompt_tokens: float | None = None  # mean per request
    output_tokens: float | None = None  # mean per request
    concurrency: float | None = None
    accepted_tokens: float | None = None  # speculative decoding: tokens per step
    measured_on: str | None = None
    engine: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if v is not None}


@dataclass(frozen=True)
class Training:
    """One training run: the cluster's training tokens per second on `cards` cards."""

    card: str
    cards: int
    precision: str
    params: float
    tokens_per_s: float
    layout: dict[str, int] = field(default_factory=dict)
    measured_on: str | None = None
    engine: str | None = None

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if v not in (None, {})}
        out["format"] = "training-csv"
        return out


def read(path: Path | str) -> tuple[str, list[Serving | Training]]:
    """The format and the measurements of one result file."""
    p = Path(path)
    text = read_text(p, BenchmarkError)
    fmt = detect(text, str(p))
    return fmt, parse(text, fmt, str(p))


def detect(text: str, file: str) -> str:
    """Which format `text` is, by what it holds (not by its name)."""
    head = text.lstrip()[:4096]
    if "MLPerf Results Summary" in head or re.search(r"^Scenario\s*:", head, re.MULTILINE):
        return "mlperf"
    if head.startswith("{"):
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > 1 and all(ln.lstrip().startswith("{") for ln in lines[:3]):
            return "sglang"
        data = _json(text, file)
        if isinstance(data, dict) and isinstance(data.get("time_to_first_token"), dict):
            return "genai-perf"
        if isinstance(data, dict) and "concurrency" in data and "output_throughput" in data:
            return "sglang"
        if isinstance(data, dict) and "output_throughput" in data:
            return "vllm"
        raise BenchmarkError("a JSON file without a serving benchmark's keys: expected "
                             "vLLM's or SGLang's `output_throughput` and `mean_tpot_ms`, or "
                             "genai-perf/AIPerf's `time_to_first_token` object", file=file)
    first = head.splitlines()[0] if head else ""
    if "," in first and ("tokens_per_s" in first or "step_time_s" in first):
        return "training-csv"
    raise BenchmarkError("not a benchmark result this reads: expected a vLLM or SGLang JSON, a "
                         "genai-perf or AIPerf JSON export, an MLPerf mlperf_log_summary.txt "
                         "or a training CSV with tokens_per_s or step_time_s", file=file)


def parse(text: str, fmt: str, file: str) -> list[Serving | Training]:
    if fmt == "vllm":
        return [_vllm(_object(_json(text, file), file), file, "vllm", "")]
    if fmt == "sglang":
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) > MAX_RUNS:
            raise BenchmarkError(f"{len(lines):,} runs; the limit is {MAX_RUNS:,}", file=file)
        return [_vllm(_object(_json(ln, file, k), file, f"line {k}"), file, "sglang",
                      f"line {k}: ") for k, ln in enumerate(lines, start=1)]
    if fmt == "genai-perf":
        return [_genai(_object(_json(text, file), file), file)]
    if fmt == "mlperf":
        return [_mlperf(text, file)]
    if fmt == "training-csv":
        return list(_training(text, file))
    raise BenchmarkError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}",
                         file=file)


# --- JSON ------------------------------------------------------------------------------------

def _json(text: str, file: str, line: int | None = None) -> Any:
    """Python's JSON with Infinity and NaN as SGLang writes them; nested at most MAX_NESTING."""
    depth = 0
    for ch in text:  # bounded by the file's size (MAX_FILE_BYTES)
        if ch in "[{":
            depth += 1
            if depth > MAX_NESTING:
                raise BenchmarkError(f"JSON nested deeper than {MAX_NESTING} levels", file=file)
        elif ch in "]}":
            depth -= 1
    try:
        return json.loads(text, parse_int=_whole,
                          object_pairs_hook=lambda pairs: _unique_keys(pairs, file))
    except (json.JSONDecodeError, RecursionError) as exc:
        where = f"line {line}" if line else f"line {getattr(exc, 'lineno', '?')}"
        msg = getattr(exc, "msg", "too deeply nested")
        raise BenchmarkError(f"not valid JSON ({where}: {msg})", file=file) from None


class _Huge(float):
    """A JSON integer longer than any plausible figure: infinite, so that the field's check
    refuses it by name, and shown by its length (Python refuses to read one of more than
    4,300 digits, and no float holds one of more than about 309)."""

    digits: int

    def __repr__(self) -> str:
        return f"a number of {self.digits:,} digits"


def _whole(digits: str) -> int | float:
    if len(digits.lstrip("-0")) <= MAX_DIGITS:
        return int(digits)
    huge = _Huge(-math.inf if digits.startswith("-") else math.inf)
    huge.digits = len(digits.lstrip("-"))
    return huge


def _unique_keys(pairs: list[tuple[str, Any]], file: str) -> dict[str, Any]:
    """A JSON object; a key given twice is refused (json would keep the last one silently)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        twice = first_repeated(k for k, _ in pairs)
        raise BenchmarkError(f"key {twice!r} is given twice; keep one", file=file,
                             field=printable(twice)[:80])
    return out


def _object(data: Any, file: str, where: str = "") -> dict[str, Any]:
    if not isinstance(data, dict):
        raise BenchmarkError(f"{where + ': ' if where else ''}expected a JSON object, found "
                             f"{type(data).__name__}", file=file)
    return data


def number(value: Any, file: str, key: str, lo: float = 0.0, hi: float = 1e12,
           positive: bool = True) -> float:
    """A finite number within [lo, hi] (above 0 when `positive`), naming `key` otherwise."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise BenchmarkError(f"expected a number, found {_shown(value)}", file=file, field=key)
    try:
        v = float(value)
    except OverflowError:  # an integer beyond any float
        v = math.inf
    if not math.isfinite(v) or v < lo or v > hi or (positive and v <= 0):
        bound = "above 0" if positive and lo == 0 else f"at least {lo:g}"
        raise BenchmarkError(f"found {_shown(value)}; expected a finite number {bound} and at "
                             f"most {hi:g}", file=file, field=key)
    return v


def whole(value: Any, file: str, key: str, hi: float = 1e6) -> int:
    """A whole number above 0 and at most `hi` (a card count, a parallel degree), naming `key`
    otherwise: 64.5 cards or a tp of 1.5 is refused, not cut to 64 or 1."""
    v = number(value, file, key, hi=hi)
    if v != int(v):
        raise BenchmarkError(f"found {_shown(value)}; expected a whole number", file=file,
                             field=key)
    return int(v)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _opt(d: dict[str, Any], key: str, file: str, prefix: str, hi: float = 1e9) -> float | None:
    v = d.get(key)
    return None if v is None else number(v, file, prefix + key, hi=hi)


def _text(v: Any) -> str | None:
    if v is None:
        return None
    s = str(v).strip()
    return s[:120] if s else None


def _vllm(d: dict[str, Any], file: str, fmt: str, prefix: str) -> Serving:
    """vLLM's (and SGLang's) result object."""
    for key in ("output_throughput", "mean_tpot_ms"):
        if key not in d:
            raise BenchmarkError(f"{prefix}no `{key}`: not a vLLM or SGLang serving result",
                                 file=file, field=key)
    completed = _opt(d, "completed", file, prefix, 1e12)
    prompt = out = None
    if completed:
        if d.get("total_input_tokens") is not None:
            prompt = number(d["total_input_tokens"], file, prefix + "total_input_tokens") \
                / completed
        if d.get("total_output_tokens") is not None:
            out = number(d["total_output_tokens"], file, prefix + "total_output_tokens") \
                / completed
    conc = d.get("concurrency")
    if conc is None:
        conc = d.get("max_concurrency")
    date = _text(d.get("date"))
    # vLLM's YYYYMMDD-HHMMSS, in ASCII digits (\d took ٢٠٢٦١١٢٠-... and made a date of it)
    if date and re.fullmatch(r"[0-9]{8}-[0-9]{6}", date):
        date = f"{date[:4]}-{date[4:6]}-{date[6:8]}"
    engine = _text(d.get("backend") or d.get("endpoint_type"))
    return Serving(
        format=fmt,
        output_tokens_per_s=number(d["output_throughput"], file, prefix + "output_throughput"),
        mean_tpot_ms=number(d["mean_tpot_ms"], file, prefix + "mean_tpot_ms", hi=1e6),
        p99_tpot_ms=_opt(d, "p99_tpot_ms", file, prefix, 1e6),
        mean_ttft_ms=_opt(d, "mean_ttft_ms", file, prefix, 1e8),
        p99_ttft_ms=_opt(d, "p99_ttft_ms", file, prefix, 1e8),
        prompt_tokens=prompt, output_tokens=out,
        concurrency=None if conc is None else number(conc, file, prefix + "concurrency"),
        accepted_tokens=_opt(d, "accept_length", file, prefix, 64),
        measured_on=date, engine=engine)


def _genai(d: dict[str, Any], file: str) -> Serving:
    """A genai-perf or AIPerf summary: one object per metric."""
    def stat(metric: str, key: str, required: bool = True) -> float | None:
        m = d.get(metric)
        if not isinstance(m, dict) or m.get(key) is None:
            if required:
                raise BenchmarkError(f"no `{metric}.{key}`: not a genai-perf or AIPerf export",
                                     file=file, field=f"{metric}.{key}")
            return None
        return number(m[key], file, f"{metric}.{key}", hi=1e9)

    itl = "inter_token_latency"  # genai-perf's ITL leaves out the first token: a TPOT
    config = d.get("input_config") if isinstance(d.get("input_config"), dict) else {}
    conc = config.get("concurrency") if config else None
    models = config.get("model_names") if config else None
    return Serving(
        format="genai-perf",
        output_tokens_per_s=stat("output_token_throughput", "avg"),  # type: ignore[arg-type]
        mean_tpot_ms=stat(itl, "avg"),  # type: ignore[arg-type]
        p99_tpot_ms=stat(itl, "p99", False), mean_ttft_ms=stat("time_to_first_token", "avg"),
        p99_ttft_ms=stat("time_to_first_token", "p99", False),
        prompt_tokens=stat("input_sequence_length", "avg", False),
        output_tokens=stat("output_sequence_length", "avg", False),
        concurrency=None if conc is None else number(conc, file, "input_config.concurrency"),
        engine=_text(models[0]) if isinstance(models, list) and models else None)


# --- MLPerf ----------------------------------------------------------------------------------

_LINE = re.compile(r"^\s*([^:\n]{2,80}?)\s*:\s*(\S.*?)\s*$", re.MULTILINE)


def _mlperf(text: str, file: str) -> Serving:
    fields: dict[str, str] = {}
    for m in _LINE.finditer(text):
        fields.setdefault(m.group(1).strip().lower(), m.group(2))
    result = fields.get("result is")
    if result is None or result.upper() != "VALID":
        raise BenchmarkError(f"the run is not VALID (Result is : {result or 'missing'}): "
                             "loadgen rejected it", file=file, field="Result is")

    def num(*labels: str, required: bool = True, scale: float = 1.0) -> float | None:
        for label in labels:
            if label in fields:
                try:
                    v = float(fields[label].replace(",", ""))
                except ValueError:
                    raise BenchmarkError(f"expected a number, found {_shown(fields[label])}",
                                         file=file, field=label) from None
                return number(v, file, label, hi=1e18) * scale
        if required:
            raise BenchmarkError("missing: not an MLPerf LLM summary with time per output "
                                 "token", file=file, field=labels[0])
        return None

    tokens = num("completed tokens per second", "tokens per second")
    samples = num("completed samples per second", "samples per second", required=False)
    ns = 1e-6  # ns -> ms
    return Serving(
        format="mlperf", output_tokens_per_s=tokens,  # type: ignore[arg-type]
        mean_tpot_ms=num("mean time to output token (ns)", scale=ns),  # type: ignore[arg-type]
        p99_tpot_ms=num("99.00 percentile time to output token (ns)", required=False, scale=ns),
        mean_ttft_ms=num("mean first token latency (ns)", required=False, scale=ns),
        p99_ttft_ms=num("99.00 percentile first token latency (ns)", required=False, scale=ns),
        output_tokens=tokens / samples if tokens and samples else None,
        engine=_text(fields.get("sut name")))


# --- training CSV ----------------------------------------------------------------------------

TRAINING_COLUMNS = ("card", "cards", "precision", "params")


def _training(text: str, file: str) -> list[Training]:
    reader = csv.DictReader(io.StringIO(text))
    names = [str(c).strip() for c in reader.fieldnames or []]
    twice = first_repeated(c for c in names if c)
    if twice:  # the row's later cell would win without a word
        raise BenchmarkError(f"line 1: column '{twice}' is given twice; keep one", file=file,
                             field=twice)
    rows = list(reader)
    if not rows:
        raise BenchmarkError("no rows under the header", file=file)
    if len(rows) > MAX_RUNS:
        raise BenchmarkError(f"{len(rows):,} rows; the limit is {MAX_RUNS:,}", file=file)
    out = []
    for k, row in enumerate(rows, start=2):
        row = {str(a).strip(): (b or "").strip() for a, b in row.items() if a is not None}
        where = f"line {k}"
        for col in TRAINING_COLUMNS:
            if not row.get(col):
                raise BenchmarkError(f"{where}: missing", file=file, field=col)

        def num(col: str, hi: float = 1e15, row: dict[str, str] = row, where: str = where
                ) -> float:
            v = number_from_text(row[col])  # tco.numtext's rule: not nan, 1_000 or ０
            if v is None:
                raise BenchmarkError(f"{where}: expected a number, found {_shown(row[col])}",
                                     file=file, field=col)
            return number(v, file, col, hi=hi)

        if row.get("tokens_per_s"):
            tps = num("tokens_per_s", 1e12)
        elif row.get("step_time_s") and row.get("global_batch_tokens"):
            tps = num("global_batch_tokens", 1e10) / num("step_time_s", 1e6)
            if tps > 1e12:  # a step time of 1e-300 s: the message would print 300 digits
                raise BenchmarkError(f"{where}: global_batch_tokens / step_time_s is "
                                     f"{tps:.3g} tokens/s; expected at most 1e+12 (is the "
                                     "step time in seconds?)", file=file, field="step_time_s")
        else:
            raise BenchmarkError(f"{where}: give tokens_per_s, or step_time_s and "
                                 "global_batch_tokens", file=file, field="tokens_per_s")
        cards = num("cards", 1e6)
        if cards != int(cards):
            raise BenchmarkError(f"{where}: expected a whole number of cards, found "
                                 f"{row['cards']}", file=file, field="cards")
        layout = {d: num(d, 1e6) for d in ("tp", "pp", "dp") if row.get(d)}
        for d, degree in layout.items():
            if degree != int(degree):
                raise BenchmarkError(f"{where}: expected a whole {d} degree, found {row[d]}",
                                     file=file, field=d)
        out.append(Training(card=row["card"], cards=int(cards), precision=row["precision"],
                            params=num("params"), tokens_per_s=tps,
                            layout={d: int(v) for d, v in layout.items()},
                            measured_on=_text(row.get("measured_on")),
                            engine=_text(row.get("engine"))))
    return out


def with_given(m: Serving, **given: Any) -> Serving:
    """The measurement with the `benchmarks:` entry's own figures filling what the file does
    not say (and overriding its date and engine when given)."""
    return replace(m, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True)
class Measured:
    """What one benchmark entry sets on the options of its card."""

    card: str
    card_name: str
    precision: str
    inputs: dict[str, tuple[float, str]]  # candidate input key -> (value, source)
    note: str
    summary: dict[str, Any]  # for the outputs' `measured_benchmarks`


def spec_of(key: str) -> Any:
    """The input spec of a candidate input a benchmark sets."""
    if key.startswith("measured_serving_efficiency_"):
        return MEASURED_SERVING_SPEC
    return CANDIDATE_INPUTS.get(key) or SERVE_CANDIDATE_INPUTS[key]
