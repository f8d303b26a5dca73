"""The published training runs of tests/data/training_runs.yaml against the model
(docs/methodology.md §17), and the fit that sets the model's calibrated constants and the
intervals of its time-to-train (§17, "In-sample fit" and "Intervals").

Used by tests/test_calibration.py; run as a script to print the tables methodology §17 quotes
and to write tests/data/training_fit.json (the leave-one-source-out errors behind the
intervals):

    .venv/bin/python tests/training_runs.py            # errors of every run, by set
    .venv/bin/python tests/training_runs.py --fit      # refit: write training_fit.json and
                                                       # the fitted values in
                                                       # pricing/assumptions.yaml

An error is model time / published time - 1 (positive: the model is slower, pessimistic).
"""

from __future__ import annotations

import json
import math
import re
import statistics
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from tco.catalog import Catalog
from tco.engine import compute
from tco.inputs import WORKLOAD_INPUTS
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data"
RUNS = DATA / "training_runs.yaml"
FIT = DATA / "training_fit.json"

# the workload fields a run may give besides params, tokens, precision, batch and sequence
SHAPE_KEYS = ("active_params", "layers", "hidden_size", "attention_heads", "head_dim",
              "qk_head_dim", "experts", "experts_per_token", "moe_layers",
              "expert_comm_hidden", "expert_nodes_per_token")


@dataclass(frozen=True)
class Run:
    name: str
    sample: str  # in | out
    source: str
    metric: str  # tokens_per_card_s | gpu_hours
    published: float
    cite: str
    run: dict[str, Any] = field(default_factory=dict)
    named: bool = False

    @property
    def rate(self) -> bool:
        """A step rate (vendor table, MLPerf log): compared in the steady state."""
        return self.metric == "tokens_per_card_s"

    def error(self, job: dict[str, float]) -> float:
        """Model time / published time - 1."""
        if self.rate:
            return self.published / (job["tokens_per_second"] / self.run["cards"]) - 1
        return job[self.metric] / self.published - 1


def _numbers(node: Any) -> Any:
    """YAML 1.1 reads 1.3e6 (no sign after the e) as a string: such strings are numbers."""
    if isinstance(node, dict):
        return {k: _numbers(v) for k, v in node.items()}
    if isinstance(node, str):
        try:
            return float(node)
        except ValueError:
            return node
    return node


@cache
def runs() -> tuple[Run, ...]:
    data = yaml.safe_load(RUNS.read_text(encoding="utf-8"))
    out = tuple(Run(**{k: (v if k in ("name", "source", "cite") else _numbers(v))
                       for k, v in r.items()}) for r in data["runs"])
    names = [r.name for r in out]
    assert len(set(names)) == len(names), "run names must be unique"
    return out


def scenario_text(run: Run, assumptions: dict[str, float] | None = None) -> str:
    """A one-candidate scenario of the run's facts (no MFU or efficiency override)."""
    r = run.run
    lines = ["rent_options: none", "workloads:", "  - id: run",
             f"    params: {r['params']!r}", f"    tokens: {r['tokens']!r}",
             f"    precision: {r.get('precision', 'bf16')}"]
    if "batch_tokens" in r:
        lines.append(f"    global_batch_tokens: {r['batch_tokens']}")
    if "seq_len" in r:
        lines.append(f"    seq_len_tokens: {r['seq_len']}")
    for key in SHAPE_KEYS:
        if key in r and key in WORKLOAD_INPUTS:  # a field this model takes
            lines.append(f"    {key}: {r[key]!r}")
    if run.rate and "steady_state" in WORKLOAD_INPUTS:
        lines.append("    steady_state: 1")
    lines += ["candidates:", "  - id: cand", f"    card: {r['card']}", f"    cards: {r['cards']}"]
    if "scaleout_gb_per_s" in r:
        lines.append(f"    scaleout_bandwidth_gb_per_s: {r['scaleout_gb_per_s']}")
    if r.get("layout"):
        pins = ", ".join(f"{k}: {v}" for k, v in r["layout"].items())
        lines.append(f"    layout: {{run: {{{pins}}}}}")
    if r.get("familiar"):
        lines.append(f"team: {{familiarity: {{{_stack(r['card'])}: 1}}}}")
    if assumptions:
        lines.append("assumptions:")
        lines += [f"  {k}: {v!r}" for k, v in assumptions.items()]
    return "\n".join(lines) + "\n"


_STACKS: dict[str, str] = {}


def _stack(card: str) -> str:
    return _STACKS[card]


def model_run(catalog: Catalog, run: Run, assumptions: dict[str, float] | None = None
              ) -> dict[str, float]:
    """The primary-job numbers of the run's one-candidate scenario."""
    _STACKS.setdefault(run.run["card"], catalog.card(run.run["card"]).stack)
    (cand,) = compute(load_scenario_text(scenario_text(run, assumptions), "calibration"),
                      catalog).candidates
    assert cand.feasible, (run.name, cand.reasons)
    return dict(cand.jobs["run"])


def errors(catalog: Catalog, assumptions: dict[str, float] | None = None,
           which: list[Run] | None = None) -> dict[str, float]:
    return {r.name: r.error(model_run(catalog, r, assumptions)) for r in (which or runs())}


def errors_or_nan(catalog: Catalog) -> dict[str, float]:
    """The errors, nan for a run the model refuses (for comparing models)."""
    out = {}
    for r in runs():
        try:
            out[r.name] = r.error(model_run(catalog, r))
        except Exception as exc:  # noqa: BLE001 - reported as nan
            print(f"refused: {r.name}: {exc}", file=sys.stderr)
            out[r.name] = math.nan
    return out


def summary(errs: dict[str, float], which: list[Run]) -> dict[str, float]:
    e = [errs[r.name] for r in which if not math.isnan(errs[r.name])]
    if not e:
        return {"n": 0}
    worst = max(e, key=abs)
    return {"n": len(e), "median_abs": statistics.median(abs(x) for x in e),
            "signed_median": statistics.median(e), "worst": worst,
            "beyond_30": sum(abs(x) > 0.30 for x in e)}


# ---- the fit -------------------------------------------------------------------------------
# The model's calibrated constants, each fitted on the in-sample runs of its family only, in
# this order (each fit uses the ones before it): the ratio on the dense vendor-tuned step
# rates, the per-step memory passes on the small models' step rates, a whole run's per-step
# overhead on the whole runs of dense and small models, the mixture of experts' memory-bound work on the
# in-sample mixtures of experts. Each sets the signed median error of its runs to zero.
FITTED = ("compute_to_published_mfu_ratio", "step_hbm_bytes_per_param", "run_step_overhead_s",
          "moe_bytes_per_routed_value")
FAMILIES = ("dense_vendor", "dense_team", "small", "moe")  # error_family codes 1..4
Z90 = 1.2815515655446004
SHRINK = 5  # runs' worth of weight the pooled spread has in a family's (small families)


class Evaluator:
    """Model runs at given constants, remembered (the fit evaluates the same points often)."""

    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.memo: dict[tuple[str, tuple[tuple[str, float], ...]], dict[str, float]] = {}

    def job(self, run: Run, params: dict[str, float]) -> dict[str, float]:
        key = (run.name, tuple(sorted(params.items())))
        if key not in self.memo:
            self.memo[key] = model_run(self.catalog, run, params)
        return self.memo[key]

    def error(self, run: Run, params: dict[str, float]) -> float:
        return run.error(self.job(run, params))

    def family(self, run: Run, params: dict[str, float]) -> str:
        return FAMILIES[int(self.job(run, params)["error_family"]) - 1]


def _median_zero(ev: Evaluator, which: list[Run], params: dict[str, float], key: str,
                 lo: float, hi: float, step: float, rising: bool) -> float:
    """The value of `key` (on a grid of `step`) whose signed median error over `which` is
    nearest zero; the median rises with the value when `rising`."""
    def med(v: float) -> float:
        return statistics.median(ev.error(r, {**params, key: v}) for r in which)

    a, b = round(lo / step), round(hi / step)
    while b - a > 1:  # bisection on the grid
        m = (a + b) // 2
        if (med(m * step) < 0) == rising:
            a = m
        else:
            b = m
    best = min((a, b), key=lambda k: abs(med(k * step)))
    return round(best * step, 6)


def fit(ev: Evaluator, without: str | None = None, passes: int = 2) -> dict[str, float]:
    """The fitted constants, on the in-sample runs (without source `without`): each in turn
    with the others at their latest values, `passes` times over (they interact a little)."""
    ins = [r for r in runs() if r.sample == "in" and r.source != without]
    p: dict[str, float] = {FITTED[0]: 1.2, FITTED[1]: 0.0, FITTED[2]: 0.0, FITTED[3]: 0.0}
    for _ in range(passes):
        dense_v = [r for r in ins if r.rate and ev.family(r, p) == "dense_vendor"]
        p[FITTED[0]] = _median_zero(ev, dense_v, p, FITTED[0], 0.9, 1.6, 0.01, rising=False)
        small_v = [r for r in ins if r.rate and ev.family(r, p) == "small"]
        p[FITTED[1]] = _median_zero(ev, small_v, p, FITTED[1], 0.0, 512.0, 1.0, rising=True)
        whole = [r for r in ins if not r.rate and ev.family(r, p) != "moe"]
        p[FITTED[2]] = _median_zero(ev, whole, p, FITTED[2], 0.0, 4.0, 0.01, rising=True)
        moe = [r for r in ins if ev.family(r, p) == "moe"]
        p[FITTED[3]] = _median_zero(ev, moe, p, FITTED[3], 0.0, 4096.0, 10.0, rising=True)
    return p


def family_stats(log_errors: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    """Per family: the centre b (median log error ln(model / published)), the robust spread
    s (1.4826 MAD, shrunk toward the pooled spread by SHRINK runs' weight), and the P10 and
    P90 multipliers on the model's time that they give: exp(-b -/+ 1.2816 s)."""
    def mad(xs: list[float], centre: float) -> float:
        return 1.4826 * statistics.median(abs(x - centre) for x in xs)

    pooled_x = [x - statistics.median(xs) for xs in log_errors.values() if xs for x in xs]
    s_pool = mad(pooled_x, 0.0)
    out = {}
    for f in FAMILIES:
        xs = log_errors.get(f, [])
        n = len(xs)
        b = statistics.median(xs) if xs else 0.0
        s = mad(xs, b) if n > 1 else s_pool
        s = math.sqrt((n * s * s + SHRINK * s_pool * s_pool) / (n + SHRINK))
        out[f] = {"n": n, "centre": b, "spread": s, "spread_pooled": s_pool,
                  "p10": math.exp(-b - Z90 * s), "p90": math.exp(-b + Z90 * s)}
    return out


def run_fit(catalog: Catalog) -> dict[str, Any]:
    """The whole fit: constants on every in-sample run, then again without each in-sample
    source (leave-one-source-out), the errors each gives, and the intervals' families."""
    ev = Evaluator(catalog)
    full = fit(ev)
    errs = {r.name: ev.error(r, full) for r in runs()}
    fams = {r.name: ev.family(r, full) for r in runs()}
    loso: dict[str, float] = {}
    folds: dict[str, dict[str, float]] = {}
    for source in dict.fromkeys(r.source for r in runs() if r.sample == "in"):
        folds[source] = fit(ev, without=source)
        for r in runs():
            if r.sample == "in" and r.source == source:
                loso[r.name] = ev.error(r, folds[source])
    log_errors: dict[str, list[float]] = {}
    for name, e in loso.items():
        log_errors.setdefault(fams[name], []).append(math.log(1 + e))
    return {"constants": full, "errors": errs, "families": fams, "loso_errors": loso,
            "folds": folds, "intervals": family_stats(log_errors)}


def ship(got: dict[str, Any]) -> None:
    """Write the fit's constants and the families' P10 and P90 (three decimals) as the values
    of their records in pricing/assumptions.yaml, keeping everything else of the file."""
    path = DATA.parents[1] / "pricing" / "assumptions.yaml"
    text = path.read_text(encoding="utf-8")
    values = dict(got["constants"])
    for f, s in got["intervals"].items():
        values[f"model_error_p10_{f}"] = round(s["p10"], 3)
        values[f"model_error_p90_{f}"] = round(s["p90"], 3)
    for key, value in values.items():
        pattern = re.compile(r"(\n  " + re.escape(key) + r":\n    value: )[^\n]*")
        text, n = pattern.subn(lambda m, v=value: m.group(1) + repr(v), text)
        assert n == 1, key
    path.write_text(text, encoding="utf-8")


def _print_errors(catalog: Catalog) -> None:
    errs = errors_or_nan(catalog)
    for sample in ("in", "out"):
        which = [r for r in runs() if r.sample == sample]
        print(f"\n== {sample}-sample ({len(which)})")
        for r in which:
            print(f"{errs[r.name]:+7.1%}  {'N ' if r.named else '  '}{r.source:24s} {r.name}")
        s = summary(errs, which)
        print(f"median |e| {s['median_abs']:.1%}, signed {s['signed_median']:+.1%}, "
              f"worst {s['worst']:+.1%}, beyond 30%: {s['beyond_30']}")
    named = [r for r in runs() if r.named]
    s = summary(errs, named)
    print(f"\nnamed ({s['n']}): median |e| {s['median_abs']:.1%}, worst {s['worst']:+.1%}")


if __name__ == "__main__":
    from tco.catalog import load_catalog

    cat = load_catalog()
    if "--fit" in sys.argv:
        got = run_fit(cat)
        FIT.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        ship(got)
        print(json.dumps({"constants": got["constants"], "intervals": got["intervals"]},
                         indent=1))
    else:
        _print_errors(cat)


def coverage(catalog: Catalog, which: list[Run]) -> dict[str, Any]:
    """How many of `which` have their published figure inside the model's 80% interval (the
    job's time_factor_p10 and _p90 times the model's time), and the median P90/P10."""
    inside, widths, by_family = 0, [], {}
    for r in which:
        job = model_run(catalog, r)
        ratio = 1 / (1 + r.error(job))  # published time / model time
        ok = job["time_factor_p10"] <= ratio <= job["time_factor_p90"]
        inside += ok
        widths.append(job["time_factor_p90"] / job["time_factor_p10"])
        fam = FAMILIES[int(job["error_family"]) - 1]
        got = by_family.setdefault(fam, [0, 0])
        got[0] += ok
        got[1] += 1
    return {"n": len(which), "covered": inside / len(which),
            "median_width": statistics.median(widths), "by_family": by_family}
