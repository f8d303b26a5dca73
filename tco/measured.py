"""A scenario's `benchmarks:` (docs/methodology.md §18, "Your own benchmarks"): each becomes
per-card, per-precision efficiencies that replace the catalog's for that scenario, with where
they came from in their source and in a note on every option they apply to.

* A serving run gives `measured_serving_efficiency_<precision>`: the share of the catalog's
  vendor-tuned model rate that reproduces the run's output tokens per second per card at its
  mean time per output token, on its card count and tensor-parallel degree, for the model it
  served. The model's own formulas are solved for it (over an array of efficiencies), so the
  model at the measured point gives the measured rate. Its p99 over mean time per token, when
  the file has both, replaces the stack's tail ratio.
* A training run gives the card's MFU at its precision (6·N·tokens per second over the cards'
  peak, the catalog's definition) and, being the user's own team's, no stack factor on top.

Measured figures have origin "measured" and never mix with the catalog's: they apply only to
options of the measured card, and every output names them.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .benchmarks import (
    BenchmarkError,
    Measured,
    Serving,
    Training,
    number,
    read,
    whole,
    with_given,
)
from .inputs import CANDIDATE_INPUTS, MEASURED_SERVING_SPEC, Input

if TYPE_CHECKING:
    from .catalog import Catalog
    from .scenario import Benchmark, Loaded, Scenario

EFFICIENCY_LOW, EFFICIENCY_HIGH = 0.02, 5.0  # the search's range, shares of the model's rate
GRID = 400


def provenance(entry: Benchmark, card_name: str, cards: int, engine: str | None,
               date: str | None, file: str | None) -> str:
    """'measured by you, 2026-11-20, 8x NVIDIA H20 96GB, vLLM 0.9 (bench.json)'."""
    parts = ["measured by you"]
    if date:
        parts.append(date)
    parts.append(f"{cards}x {card_name}")
    if engine:
        parts.append(engine)
    text = ", ".join(parts)
    return text + (f" ({Path(file).name})" if file else "")


def resolve_benchmarks(loaded: Loaded, catalog: Catalog) -> list[Measured]:
    """Every `benchmarks:` entry of the scenario, read and solved."""
    sc = loaded.scenario
    out: list[Measured] = []
    base = Path(loaded.file).parent if loaded.doc is not None else Path(".")
    for k, entry in enumerate(sc.benchmarks):
        where = ["benchmarks", str(k)]
        try:
            out += _entry(sc, entry, catalog, base)
        except BenchmarkError as exc:
            if exc.file:  # a fault in the result file: its own name and field
                raise
            raise loaded.error(exc.message, where + ([exc.field] if exc.field else [])) \
                from None
    return out


def _entry(sc: Scenario, entry: Benchmark, catalog: Catalog, base: Path) -> list[Measured]:
    file = None
    runs: list[Serving | Training]
    if entry.file is not None:
        path = Path(entry.file)
        file = str(path if path.is_absolute() else base / path)
        _fmt, runs = read(file)
    elif entry.serving is not None:
        runs = [_inline_serving(entry.serving)]
    else:
        runs = [_inline_training(row, k) for k, row in enumerate(entry.training or [])]
    if runs and isinstance(runs[0], Training):
        return [_training(r, entry, catalog, file) for r in runs if isinstance(r, Training)]
    serving = [r for r in runs if isinstance(r, Serving)]
    return [_serving(serving, entry, sc, catalog, file)]


def _inline_serving(d: dict[str, Any]) -> Serving:
    known = set(Serving.__dataclass_fields__) - {"format"}
    for key in d:
        if key not in known and key != "format":
            raise BenchmarkError(f"unknown field '{key}' of a serving measurement (expected "
                                 f"some of {', '.join(sorted(known))})", field=f"serving.{key}")
    for key in ("output_tokens_per_s", "mean_tpot_ms"):
        if key not in d:
            raise BenchmarkError("required field is missing", field=f"serving.{key}")
    vals: dict[str, Any] = {}
    for key, v in d.items():
        if key in ("measured_on", "engine", "format"):
            vals[key] = None if v is None else str(v)[:120]
        elif v is not None:
            vals[key] = number(v, "", f"serving.{key}", hi=1e12)
    vals.setdefault("format", "inline")
    return Serving(**vals)


def _inline_training(d: dict[str, Any], k: int) -> Training:
    for key in ("card", "cards", "precision", "params", "tokens_per_s"):
        if key not in d:
            raise BenchmarkError("required field is missing", field=f"training.{k}.{key}")
    cards = whole(d["cards"], "", f"training.{k}.cards")
    given = {**(d.get("layout") if isinstance(d.get("layout"), dict) else {}), **d}
    layout = {x: whole(given[x], "", f"training.{k}.{x}") for x in ("tp", "pp", "dp")
              if x in given}
    return Training(card=str(d["card"]), cards=cards, precision=str(d["precision"]),
                    params=number(d["params"], "", f"training.{k}.params", hi=1e15),
                    tokens_per_s=number(d["tokens_per_s"], "", f"training.{k}.tokens_per_s"),
                    layout=layout, measured_on=d.get("measured_on") and str(d["measured_on"]),
                    engine=d.get("engine") and str(d["engine"]))


def _card(catalog: Catalog, card: str | None, field: str = "card", file: str | None = None
          ) -> Any:
    from .errors import UnknownId

    if card is None:
        raise BenchmarkError("required: the card the benchmark ran on (a catalog id)",
                             field=field, file=file)
    try:
        return catalog.card(card)
    except UnknownId as exc:
        raise BenchmarkError(exc.message, field=field, file=file) from None


def _serving(runs: list[Serving], entry: Benchmark, sc: Scenario, catalog: Catalog,
             file: str | None) -> Measured:
    card = _card(catalog, entry.card)
    if entry.cards is None:
        raise BenchmarkError("required: how many cards ran the benchmark", field="cards")
    if entry.precision is None:
        raise BenchmarkError("required: the precision the model was served at", field="precision")
    if card.peak(entry.precision) is None:
        raise BenchmarkError(f"{card.name} has no {entry.precision.upper()} peak in the "
                             "catalog: it cannot have served at it", field="precision")
    tp = entry.tp or entry.cards
    if entry.cards % tp:
        raise BenchmarkError(f"{entry.cards} cards in replicas of tp {tp}: expected tp a "
                             f"divisor of the cards", field="tp")
    work = _workload(sc, entry)
    effs, tails = [], []
    for run in runs:
        m = with_given(run, prompt_tokens=run.prompt_tokens or entry.prompt_tokens,
                       output_tokens=run.output_tokens or entry.output_tokens,
                       measured_on=entry.measured_on or run.measured_on,
                       engine=entry.engine or run.engine)
        for key in ("prompt_tokens", "output_tokens"):
            if getattr(m, key) is None:
                raise BenchmarkError(f"the result does not say the mean {key.split('_')[0]} "
                                     f"length: give {key} in the benchmarks entry", field=key)
        check_lengths(m, run, file)
        effs.append(serving_efficiency(catalog, work, entry, card.id, tp, m))
        if m.p99_tpot_ms and m.p99_tpot_ms >= m.mean_tpot_ms:
            tails.append(m.p99_tpot_ms / m.mean_tpot_ms)
    last = with_given(runs[-1], measured_on=entry.measured_on or runs[-1].measured_on,
                      engine=entry.engine or runs[-1].engine)
    f = statistics.median(effs)
    src = provenance(entry, card.name, entry.cards, last.engine, last.measured_on, file)
    runs_text = f"median of {len(runs)} runs" if len(runs) > 1 else "one run"
    said = (f"{src}: {f:.3g} of the vendor-tuned model's rate at {entry.precision.upper()} "
            f"({runs_text}, {last.mean_tpot_ms:.3g} ms per token)")
    inputs = {f"measured_serving_efficiency_{entry.precision}": (f, said)}
    if tails:
        tail = statistics.median(tails)
        inputs["serving_tail_latency_ratio"] = (max(1.0, tail),
                                                f"{src}: p99 over mean time per output token")
    note = (f"serving at {entry.precision.upper()} {src}: {f:.2f} of the vendor-tuned rate "
            f"(replaces the catalog's and the team factor)")
    summary = {"kind": "serving", "card": card.id, "cards": entry.cards, "tp": tp,
               "precision": entry.precision, "workload": work["id"], "engine": last.engine,
               "measured_on": last.measured_on, "file": Path(file).name if file else None,
               "format": runs[0].format, "runs": [r.as_dict() for r in runs],
               "efficiency": f, "provenance": src}
    return Measured(card.id, card.name, entry.precision, inputs, note, summary)


def check_lengths(m: Serving, run: Serving, file: str | None,
                  flags: dict[str, str] | None = None) -> None:
    """The mean request lengths the measurement is solved at are within a serving workload's
    plausible range; else one message naming where the length came from (the result file, its
    inline `serving:`, the entry's own field or `flags`' option), not the measured point's
    scenario it would otherwise fail in."""
    for key in ("prompt_tokens", "output_tokens"):
        if getattr(run, key) is not None and file:  # worked out from the result file
            check_length(key, getattr(run, key), None, file,
                         f"the mean {key.split('_')[0]} length of its requests: ")
        elif getattr(run, key) is not None:  # the entry's inline `serving:`
            check_length(key, getattr(run, key), f"serving.{key}")
        else:
            check_length(key, getattr(m, key), (flags or {}).get(key, key))


def check_length(key: str, value: float | None, field: str | None, file: str | None = None,
                 what: str = "") -> None:
    """One mean request length (prompt_tokens, output_tokens), None when not given."""
    from .inputs import SERVE_INPUTS

    spec = SERVE_INPUTS[key]
    if value is not None and not spec.lo <= value <= spec.hi:  # NaN is outside too
        raise BenchmarkError(what + spec.out_of_range(value, spec.lo, spec.hi, spec.unit),
                             file=file, field=field)


def _workload(sc: Scenario, entry: Benchmark) -> dict[str, Any]:
    serving = [w for w in sc.workloads if w.kind == "serve"]
    if entry.workload is not None:
        w = next((x for x in sc.workloads if x.id == entry.workload), None)
        if w is None or w.kind != "serve":
            ids = [x.id for x in serving]
            raise BenchmarkError(f"no serving workload '{entry.workload}' (serving workloads: "
                                 f"{', '.join(ids) or 'none'})", field="workload")
    elif len(serving) == 1:
        w = serving[0]
    else:
        raise BenchmarkError("say which serving workload's model the benchmark served "
                             f"(workload: one of {', '.join(x.id for x in serving) or 'none'})",
                             field="workload")
    return {"id": w.id, "params": w.params, "active_params": w.active_params,
            "layers": w.layers, "kv_heads": w.kv_heads, "head_dim": w.head_dim}


def serving_efficiency(catalog: Catalog, work: dict[str, Any], entry: Benchmark, card: str,
                       tp: int, m: Serving) -> float:
    """The share of the vendor-tuned model's rate at which the model gives the measured output
    tokens per second per card, at the measured mean time per output token."""
    import numpy as np

    model, values, path = _measured_model(catalog, work, entry, card, tp, m)
    grid = np.geomspace(EFFICIENCY_LOW, EFFICIENCY_HIGH, GRID)
    env = dict(values)
    env[path] = grid
    got = model.evaluate(env)
    rate = np.broadcast_to(np.asarray(got["cand.w.tokens_per_s_per_card"], dtype=float),
                           grid.shape)
    ok = np.broadcast_to(np.asarray(got["cand.w.meets_objective"], dtype=float) > 0,
                         grid.shape)
    rate = np.where(ok, rate, 0.0)
    target = m.output_tokens_per_s / entry.cards  # type: ignore[operator]
    if rate[-1] < target:
        raise BenchmarkError(
            f"{target:,.0f} output tokens/s per card at {m.mean_tpot_ms:.3g} ms per token is "
            f"more than the model gives at {EFFICIENCY_HIGH:g} times its vendor-tuned rate on "
            f"{entry.cards} cards at tp {tp}: check cards, tp, precision and the workload's "
            "model", field="cards")
    k = int(np.argmax(rate >= target))
    if k == 0:
        if rate[0] == target:
            return float(grid[0])
        raise BenchmarkError(
            f"{target:,.0f} output tokens/s per card at {m.mean_tpot_ms:.3g} ms per token is "
            f"less than the model gives at {EFFICIENCY_LOW:g} of its vendor-tuned rate: check "
            "cards and the workload's model", field="cards")
    lo, hi = rate[k - 1], rate[k]
    frac = 0.0 if hi == lo else (target - lo) / (hi - lo)
    return float(grid[k - 1] + frac * (grid[k] - grid[k - 1]))


def _measured_model(catalog: Catalog, work: dict[str, Any], entry: Benchmark, card: str,
                    tp: int, m: Serving) -> tuple[Any, dict[str, float], str]:
    """The serving model of the measured point: one candidate `cand` of the card and card
    count, the workload `w` of the model served at the measured prompt and output lengths with
    the measured mean time per token as a median objective, tp pinned, its rate the input
    `candidates.cand.measured_serving_efficiency_<precision>` (the model's formulas for it)."""
    from .model import build_model
    from .resolve import resolve
    from .scenario import parse_scenario
    from .yamlio import YamlDoc

    w = {"id": "w", "kind": "serve", "params": work["params"], "precision": entry.precision,
         "prompt_tokens": m.prompt_tokens, "output_tokens": m.output_tokens,
         "input_tokens_per_day": 1e6, "output_tokens_per_day": 1e6,
         "tpot_ms": m.mean_tpot_ms, "latency_percentile": 50}
    for key in ("active_params", "layers", "kv_heads", "head_dim"):
        if work.get(key) is not None:
            w[key] = work[key]
    if m.accepted_tokens and m.accepted_tokens > 1:
        w["speculative_accepted_tokens"] = m.accepted_tokens
        w["speculative_draft_tokens"] = max(3.0, float(int(m.accepted_tokens + 0.999)))
    data = {"name": "measured point", "rent_options": "none", "workloads": [w],
            "candidates": [{"id": "cand", "card": card, "cards": entry.cards,
                            "layout": {"w": {"tp": tp}}}]}
    resolved = resolve(parse_scenario(YamlDoc(data, {}, "benchmark")), catalog, ())
    path = f"candidates.cand.measured_serving_efficiency_{entry.precision}"
    inputs = dict(resolved.inputs)
    inputs[path] = Input(path=path, value=1.0, spec=MEASURED_SERVING_SPEC, source="solved",
                         origin="measured")
    st = replace(resolved.structure, measured=((entry.precision,),))
    model = build_model(st).feeding(["cand.w.tokens_per_s_per_card", "cand.w.meets_objective"])
    values = {p: inp.value for p, inp in inputs.items()}
    return model, values, path


def _training(r: Training, entry: Benchmark, catalog: Catalog, file: str | None) -> Measured:
    card = _card(catalog, r.card, "card", file)
    peak = card.peak(r.precision) if r.precision in ("bf16", "fp16", "fp8") else None
    if peak is None:
        raise BenchmarkError(f"{card.name} has no {r.precision.upper()} training peak in the "
                             "catalog (a training run is bf16, fp16 or fp8)", file=file,
                             field="precision")
    mfu = 6 * r.params * r.tokens_per_s / (r.cards * peak.best * 1e12)
    key = "mfu_fp8" if r.precision == "fp8" else "mfu"
    spec = CANDIDATE_INPUTS[key]
    if not spec.lo <= mfu < spec.hi:
        raise BenchmarkError(
            f"{r.tokens_per_s:,.0f} tokens/s on {r.cards} {card.name} for {r.params:g} "
            f"parameters is an MFU of {mfu:.3f} of the catalog's {peak.best:g} TFLOPS peak: "
            f"expected {spec.lo:g} to below {spec.hi:g} (check cards, params and the unit)",
            file=file, field="tokens_per_s")
    layout = " ".join(f"{k}{v}" for k, v in r.layout.items())
    src = provenance(entry, card.name, r.cards, entry.engine or r.engine,
                     entry.measured_on or r.measured_on, file)
    inputs = {key: (mfu, f"{src}: {r.tokens_per_s:,.0f} training tokens/s"
                         + (f" ({layout})" if layout else "") + f" = {mfu:.3f} MFU"),
              "stack_efficiency": (1.0, f"{src}: your own team's MFU, no stack factor on top")}
    note = f"training MFU at {r.precision.upper()} {src}: {mfu:.3f} (replaces the catalog's)"
    summary = {"kind": "training", "card": card.id, "cards": r.cards, "precision": r.precision,
               "engine": entry.engine or r.engine, "measured_on": entry.measured_on
               or r.measured_on, "file": Path(file).name if file else None,
               "format": "training-csv", "runs": [r.as_dict()], "efficiency": mfu,
               "provenance": src}
    return Measured(card.id, card.name, r.precision, inputs, note, summary)


Applier = Callable[[str, Input], None]


def ingest(files: list[str], catalog: Catalog, *, card: str | None, cards: int | None,
           precision: str | None, tp: int | None = None, engine: str | None = None,
           measured_on: str | None = None, prompt_tokens: float | None = None,
           output_tokens: float | None = None, workload: dict[str, Any] | None = None
           ) -> list[dict[str, Any]]:
    """`tco ingest`: each result file as a `benchmarks:` entry with its measurement inline
    (ready to paste into a scenario), and, for a serving file when the model it served is known
    (`workload`: params and shape), the efficiency it implies against the catalog's
    vendor-tuned model (`efficiency`) with its provenance."""
    from .scenario import Benchmark

    if measured_on is not None:  # written into every entry: a date the catalog would take
        from .catalog import as_of_text

        try:
            measured_on = as_of_text(measured_on)
        except ValueError as exc:
            raise BenchmarkError(str(exc), field="--measured-on") from None
    check_length("prompt_tokens", prompt_tokens, "--prompt-tokens")
    check_length("output_tokens", output_tokens, "--output-tokens")
    if cards and tp and cards % tp:
        raise BenchmarkError(f"{cards} cards in replicas of tp {tp}: expected tp a divisor of "
                             "the cards", field="--tp")
    # the lengths given on the command line take precedence over a file's own
    lengths = {k: v for k, v in (("prompt_tokens", prompt_tokens),
                                 ("output_tokens", output_tokens)) if v is not None}
    out: list[dict[str, Any]] = []
    for file in files:
        fmt, runs = read(file)
        if fmt == "training-csv":
            rows = [r.as_dict() for r in runs if isinstance(r, Training)]
            for row in rows:
                row.pop("format", None)
                if engine:
                    row["engine"] = engine
                if measured_on:
                    row["measured_on"] = measured_on
            entry: dict[str, Any] = {"training": rows}
            fake = Benchmark(training=rows)
            for r in runs:
                if isinstance(r, Training):
                    m = _training(r, fake, catalog, file)
                    entry.setdefault("efficiencies", []).append(
                        {"card": m.card, "precision": m.precision, "mfu": m.summary["efficiency"],
                         "provenance": m.summary["provenance"]})
            entry["source_file"] = Path(file).name
            out.append(entry)
            continue
        for r in runs:
            assert isinstance(r, Serving)
            own = replace(r, **dict.fromkeys(lengths))  # what the file says and is used
            m = with_given(own, **lengths, measured_on=measured_on or r.measured_on,
                           engine=engine or r.engine)
            check_lengths(m, own, file, {"prompt_tokens": "--prompt-tokens",
                                         "output_tokens": "--output-tokens"})
            entry = {"card": card, "cards": cards, "tp": tp, "precision": precision,
                     "serving": {k: v for k, v in m.as_dict().items()
                                 if k not in ("measured_on", "engine")},
                     "engine": m.engine, "measured_on": m.measured_on,
                     "source_file": Path(file).name}
            if workload is not None:
                bench = Benchmark(serving=entry["serving"], card=card, cards=cards, tp=tp,
                                  precision=precision, engine=m.engine,
                                  measured_on=m.measured_on)  # type: ignore[arg-type]
                c = _card(catalog, card, "--card", file)
                if cards is None or precision is None:
                    raise BenchmarkError("give --cards and --precision to say what ran it",
                                         file=file)
                the_tp = tp or cards
                for key in ("prompt_tokens", "output_tokens"):
                    if getattr(m, key) is None:
                        raise BenchmarkError(f"the result does not say the mean "
                                             f"{key.split('_')[0]} length: give "
                                             f"--{key.replace('_', '-')}", file=file)
                f = serving_efficiency(catalog, workload, bench, c.id, the_tp, m)
                entry["efficiency"] = f
                entry["provenance"] = provenance(bench, c.name, cards, m.engine,
                                                 m.measured_on, file)
            out.append({k: v for k, v in entry.items() if v is not None})
    return out
