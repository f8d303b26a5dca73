"""Text tables, JSON and CSV for the analyses (what-if/diff, sensitivity, break-even, Monte
Carlo). Presentation only: every number comes from tco.analysis; rounding happens here."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..analysis.common import METRIC_LABELS
from ..analysis.whatif import Comparison, Line
from ..errors import printable_lines

if TYPE_CHECKING:  # numpy-backed: not imported by what-if, which must start quickly
    from ..analysis.breakeven import Breakeven
    from ..analysis.types import MonteCarlo, Sensitivity
from .data import rows_csv, text_table, to_json
from .fmt import money, per_million, percent

TOP_BARS = 10  # tornado bars per candidate in the text table


def _num(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


def _signed_money(x: float | None, cur: str) -> str:
    if x is None:
        return "n/a"
    return ("+" if x >= 0 else "-") + money(abs(x), cur)


def _value(x: float | None) -> str:
    """An input value, readable: 40,000 / 0.0826 / 2e+12."""
    if x is None:
        return "n/a"
    if x != 0 and (abs(x) >= 1e9 or abs(x) < 1e-3):
        return f"{x:.4g}"
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    return f"{x:.4g}"


def _changed(line: Line) -> bool:
    d = line.delta
    if d is None:
        return line.before != line.after
    scale = max(abs(line.before or 0.0), abs(line.after or 0.0), 1.0)
    return abs(d) > 1e-9 * scale


# --- what-if / diff --------------------------------------------------------------------------


def _line_dict(line: Line) -> dict[str, Any]:
    return {"key": line.key, "label": line.label, "before": _num(line.before),
            "after": _num(line.after), "delta": _num(line.delta)}


def comparison_dict(c: Comparison) -> dict[str, Any]:
    return {
        "before": c.before_label,
        "after": c.after_label,
        "currency": c.currency,
        "inputs": [{"path": i.path, "label": i.label, "unit": i.unit, "before": i.before,
                    "after": i.after} for i in c.inputs],
        "candidates": [{
            "id": x.id, "name": x.name, "rank_before": x.rank_before, "rank_after": x.rank_after,
            "feasible_before": x.feasible_before, "feasible_after": x.feasible_after,
            "npv_tco": _line_dict(x.npv), "cost_per_job": _line_dict(x.cost_per_job),
            "npv_components": [_line_dict(line) for line in x.components],
            "cost_per_job_lines": [_line_dict(line) for line in x.job_lines],
            "notes": x.notes,
        } for x in c.candidates],
        "portfolios": [{
            "id": p.id, "name": p.name, "options": p.options, "npv_tco": _line_dict(p.npv),
            "plan_delivered_fraction": _line_dict(p.delivered), "notes": p.notes,
        } for p in c.portfolios],
        "ranking_before": c.ranking_before,
        "ranking_after": c.ranking_after,
        "ranking_flips": c.ranking_flips,
        "notes": c.notes,
    }


def comparison_json(c: Comparison) -> str:
    return to_json(comparison_dict(c))


def comparison_csv(c: Comparison) -> str:
    rows = []
    for x in c.candidates:
        lines = ([("total", x.npv)] + [("npv_component", line) for line in x.components]
                 + [("cost_per_job", x.cost_per_job)]
                 + [("cost_per_job_line", line) for line in x.job_lines])
        for section, line in lines:
            rows.append([x.id, section, line.key, line.label, _num(line.before),
                         _num(line.after), _num(line.delta), c.currency])
    for p in c.portfolios:  # a portfolio's rows: its NPV and the share of the plan delivered
        rows.append([p.id, "portfolio", p.npv.key, p.npv.label, _num(p.npv.before),
                     _num(p.npv.after), _num(p.npv.delta), c.currency])
        rows.append([p.id, "portfolio", p.delivered.key, p.delivered.label,
                     _num(p.delivered.before), _num(p.delivered.after),
                     _num(p.delivered.delta), "fraction"])
    return rows_csv(["candidate", "section", "key", "label", "before", "after", "delta",
                     "currency"], rows)


def comparison_table(c: Comparison) -> str:
    cur = c.currency
    out = [f"{c.before_label} -> {c.after_label} ({cur}; NPV lines are present values)"]
    if c.inputs:
        out.append("")
        out.append("Inputs that differ:")
        rows = [[i.path, _value(i.before), _value(i.after), i.unit] for i in c.inputs]
        out.append(_indent(text_table(["input", "before", "after", "unit"], rows, "lrrl")))
    for x in c.candidates:
        out.append("")
        rank = f"rank {x.rank_before or '-'} -> {x.rank_after or '-'}"
        if not _changed(x.npv):
            out.append(f"{x.id}: NPV of TCO {money(x.npv.after, cur)}, unchanged; {rank}")
        else:
            out.append(f"{x.id}: NPV of TCO {money(x.npv.before, cur)} -> "
                       f"{money(x.npv.after, cur)} ({_signed_money(x.npv.delta, cur)}"
                       f"{_pct(x.npv)}); {rank}")
        rows = []
        for line in sorted((ln for ln in x.components if _changed(ln)),
                           key=lambda ln: -abs(ln.delta or 0.0)):
            rows.append([line.label.lower(), _signed_money(line.delta, cur),
                         f"({money(line.before, cur)} -> {money(line.after, cur)})"])
        if _changed(x.cost_per_job):
            rows.append(["cost per run", _signed_money(x.cost_per_job.delta, cur),
                         (f"({money(x.cost_per_job.before, cur)} -> "
                          f"{money(x.cost_per_job.after, cur)})")])
        if rows:
            out.append(_indent(_plain(rows, "lrl")))
        out.extend(f"  note: {n}" for n in x.notes)
    out += _portfolio_lines(c)
    if c.notes:
        out.append("")
        top = [n for n in c.notes
               if n.startswith(("the ranking", "the recommendation", "the plan"))]
        out.extend(f"NOTE: {n}" for n in top)
    return printable_lines("\n".join(out).rstrip()) + "\n"


def _portfolio_lines(c: Comparison) -> list[str]:
    """Each portfolio's NPV before and after (its options' lines are above)."""
    out: list[str] = []
    cur = c.currency
    for p in c.portfolios:
        out.append("")
        label = f"{p.id} (portfolio: {' + '.join(p.options)})"
        if p.npv.before is None or p.npv.after is None:
            was, now = (money(x, cur) if x is not None else "n/a"
                        for x in (p.npv.before, p.npv.after))
            out.append(f"{label}: NPV of TCO {was} -> {now}")
        elif not _changed(p.npv):
            out.append(f"{label}: NPV of TCO {money(p.npv.after, cur)}, unchanged")
        else:
            out.append(f"{label}: NPV of TCO {money(p.npv.before, cur)} -> "
                       f"{money(p.npv.after, cur)} ({_signed_money(p.npv.delta, cur)}"
                       f"{_pct(p.npv)})")
        if _changed(p.delivered) and p.delivered.before is not None \
                and p.delivered.after is not None:
            out.append(f"  plan delivered: {percent(p.delivered.before, 0)} -> "
                       f"{percent(p.delivered.after, 0)}")
        out.extend(f"  note: {n}" for n in p.notes)
    return out


def _pct(line: Line) -> str:
    if line.before and line.delta is not None:
        return f", {line.delta / line.before:+.1%}"
    return ""


def _indent(text: str, pad: str = "  ") -> str:
    return "\n".join(pad + ln if ln else ln for ln in text.rstrip("\n").split("\n"))


def _plain(rows: list[list[str]], align: str) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.ljust(w) if a == "l" else c.rjust(w) for c, w, a in zip(r, widths, align)]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


# --- sensitivity -----------------------------------------------------------------------------


def _tornados(s: Sensitivity) -> list[tuple[str, float, list[Any]]]:
    """(id, baseline, bars) of every candidate, then of the plan held fixed (if any)."""
    out = [(cid, s.baseline[cid], bars) for cid, bars in s.bars.items()]
    if s.plan_id and s.plan_baseline is not None:
        out.append((s.plan_id, s.plan_baseline, s.plan_bars))
    return out


def sensitivity_dict(s: Sensitivity) -> dict[str, Any]:
    def tornado(cid: str, baseline: float, bars: list[Any]) -> dict[str, Any]:
        return {
            "id": cid, "baseline": baseline,
            "bars": [{"path": b.path, "label": b.label, "unit": b.unit,
                      "base_value": b.base_value, "low_value": b.low_value,
                      "high_value": b.high_value, "metric_low": b.metric_low,
                      "metric_high": b.metric_high, "effect": b.effect, "clipped": b.clipped}
                     for b in bars]}

    return {
        "metric": s.metric, "mode": s.mode, "swing": s.swing, "currency": s.currency,
        "candidates": [tornado(cid, s.baseline[cid], bars) for cid, bars in s.bars.items()],
        "plan": tornado(s.plan_id, s.plan_baseline, s.plan_bars)
        if s.plan_id and s.plan_baseline is not None else None,
    }


def sensitivity_csv(s: Sensitivity) -> str:
    rows = [[cid, b.path, b.label, b.unit, b.base_value, b.low_value, b.high_value,
             b.metric_low, b.metric_high, b.effect, b.clipped, s.metric, s.currency]
            for cid, _base, bars in _tornados(s) for b in bars]
    return rows_csv(["candidate", "path", "label", "unit", "base_value", "low_value",
                     "high_value", "metric_low", "metric_high", "effect", "clipped", "metric",
                     "currency"], rows)


def sensitivity_table(s: Sensitivity, top: int = TOP_BARS) -> str:
    cur = s.currency
    how = (f"each input -{s.swing:.0%} / +{s.swing:.0%}" if s.mode == "swing"
           else "each input across its catalog low..high range")
    out = [(f"Sensitivity of {METRIC_LABELS[s.metric]} ({cur}): {how}; * = cut at the "
            "input's plausible range")]
    for cid, baseline, bars in _tornados(s):
        out.append("")
        held = " (the cheapest plan, held fixed and re-costed)" if cid == s.plan_id else ""
        out.append(f"{cid}{held}: {METRIC_LABELS[s.metric]} {money(baseline, cur)}"
                   + (f" (top {top} of {len(bars)} inputs)" if len(bars) > top else ""))
        rows = []
        for b in bars[:top]:
            rows.append([b.path + ("*" if b.clipped else ""),
                         f"{_value(b.low_value)} / {_value(b.high_value)}",
                         money(b.metric_low, cur), money(b.metric_high, cur),
                         money(b.effect, cur)])
        if rows:
            out.append(_indent(text_table(["input", "low / high", "at low", "at high",
                                           "range"], rows, "lrrrr")))
        else:
            out.append("  no input moves it")
    if s.plan_id:
        out.append("")
        out.append(f"{s.plan_id}: {PLAN_HELD}")
    return printable_lines("\n".join(out).rstrip()) + "\n"


PLAN_HELD = ("the plan as solved at the scenario's values, re-costed at each case and not "
             "re-solved: an input that enlarges the work costs the plan's extra card-hours "
             "(electricity, hours rented) but is not checked against the capacity it owns or "
             "reserves; `tco whatif --set PATH=VALUE` re-solves it")


# --- break-even ------------------------------------------------------------------------------


def breakeven_dict(b: Breakeven) -> dict[str, Any]:
    return {
        "path": b.path, "label": b.label, "unit": b.unit, "candidate": b.candidate,
        "versus": b.versus, "metric": b.metric, "currency": b.currency,
        "value": b.value, "base_value": b.base_value,
        # by role, not by candidate id: an id may be "value" or "note" (and the CSV's names)
        "baseline": {"metric_candidate": _num(b.base_a), "metric_versus": _num(b.base_b)},
        "scan": {"low": b.scan_low, "high": b.scan_high},
        "crossings": [{"value": c.value, "exact": c.exact, "bracket": list(c.bracket),
                       "metric_candidate": _num(c.metric_a), "metric_versus": _num(c.metric_b),
                       "note": c.note} for c in b.crossings],
        "statement": b.statement,
    }


def breakeven_csv(b: Breakeven) -> str:
    rows = [[b.path, b.candidate, b.versus, b.metric, c.value, c.exact, c.bracket[0],
             c.bracket[1], _num(c.metric_a), _num(c.metric_b), c.note, b.currency]
            for c in b.crossings]
    return rows_csv(["path", "candidate", "versus", "metric", "value", "exact", "bracket_low",
                     "bracket_high", "metric_candidate", "metric_versus", "note", "currency"],
                    rows)


def breakeven_table(b: Breakeven) -> str:
    cur = b.currency
    m = METRIC_LABELS[b.metric]
    out = [b.statement, "",
           (f"baseline {b.path} = {_value(b.base_value)} {b.unit}: {m} {b.candidate} "
            f"{money(b.base_a, cur)}, {b.versus} {money(b.base_b, cur)}"),
           f"searched {_value(b.scan_low)} .. {_value(b.scan_high)} {b.unit}"]
    if b.crossings:
        rows = []
        for c in b.crossings:
            where = (f"{c.value:.10g}" if c.value is not None
                     else f"{c.bracket[0]:.8g} .. {c.bracket[1]:.8g}")
            rows.append([where, "yes" if c.exact else "no", money(c.metric_a, cur),
                         money(c.metric_b, cur), c.note])
        out.append("")
        out.append(text_table([b.path, "equal", b.candidate, b.versus, "note"], rows,
                              "lrrrl").rstrip())
    return printable_lines("\n".join(out)) + "\n"


# --- Monte Carlo -----------------------------------------------------------------------------


def _show(mc: MonteCarlo, metric: str) -> Callable[[float], str]:
    """How a figure of `metric` is written: money, or a price per million tokens."""
    if metric == "cost_per_million_output_tokens":
        return lambda x: per_million(x, mc.currency)
    return lambda x: money(x, mc.currency)


def outside_notes(mc: MonteCarlo) -> list[str]:
    """Every point estimate outside its own P10-P90 band, in words (tco/analysis/skew.py)."""
    return [o.text(_show(mc, o.metric)) for o in mc.outside]


def montecarlo_dict(mc: MonteCarlo) -> dict[str, Any]:
    outside: dict[str, list[dict[str, Any]]] = {}
    for o in mc.outside:
        outside.setdefault(o.candidate, []).append({
            "metric": o.metric, "side": o.side, "deterministic": o.point, "p10": o.p10,
            "p90": o.p90, "message": o.text(_show(mc, o.metric)),
            "skewed_inputs": [{"path": k.path, "value": k.value, "median": k.median,
                               "low": k.low, "high": k.high, "effect": k.effect}
                              for k in o.skewed]})
    return {
        "draws": mc.draws, "seed": mc.seed, "currency": mc.currency, "basis": mc.basis,
        "varied": mc.varied, "shared_draws": mc.shared,
        "warnings": [{"kind": w.kind, "path": w.path, "share_clipped": w.share,
                      "message": w.text} for w in mc.warnings],
        "candidates": [{
            "id": cid, "npv_tco": mc.percentiles[cid]["npv_tco"],
            mc.metric: mc.percentiles[cid].get(mc.metric),
            "prob_cheapest": mc.prob_cheapest[cid],
            "short_share": mc.short_share.get(cid, 0.0),
            "ranked_share": mc.ranked_share.get(cid, 1.0),
            "deterministic": mc.deterministic.get(cid, {}),
            "outside": outside.get(cid, []),
        } for cid in mc.percentiles],
        "plan": None if mc.plan is None else {
            "id": mc.plan.id, "npv_tco": mc.plan.npv_tco,
            "deterministic": mc.plan.deterministic, "cheaper_share": mc.plan.cheaper_share},
    }


def montecarlo_csv(mc: MonteCarlo) -> str:
    """One row per candidate and metric; the warnings, if any, on every row (like the run's
    draws and seed, and the basis its prob_cheapest ranks on), so that no row read on its own
    hides them."""
    warnings = "; ".join(w.text for w in mc.warnings)
    notes = {(o.candidate, o.metric): o.text(_show(mc, o.metric)) for o in mc.outside}
    rows = []
    for cid, p in mc.percentiles.items():
        for metric in ("npv_tco", mc.metric):
            if metric not in p:  # an option that serves no token
                continue
            q = p[metric]
            if q is None:  # a portfolio has no one run
                continue
            rows.append([cid, metric, q["p10"], q["p50"], q["p90"], q["mean"],
                         mc.deterministic.get(cid, {}).get(metric), mc.prob_cheapest[cid],
                         mc.short_share.get(cid, 0.0), mc.draws, mc.seed, mc.currency,
                         mc.basis, notes.get((cid, metric), ""), warnings])
    if mc.plan is not None:  # the plan held fixed: its prob_cheapest is its cheaper_share
        q = mc.plan.npv_tco
        rows.append([mc.plan.id, "npv_tco", q["p10"], q["p50"], q["p90"], q["mean"],
                     mc.plan.deterministic, mc.plan.cheaper_share, 0.0, mc.draws, mc.seed,
                     mc.currency, mc.basis, PLAN_NOTE, warnings])
    return rows_csv(["candidate", "metric", "p10", "p50", "p90", "mean", "deterministic",
                     "prob_cheapest", "short_share", "draws", "seed", "currency", "basis",
                     "note", "warnings"], rows)


PLAN_NOTE = ("the cheapest plan, held fixed (what it buys, leases, rents and calls, and when) "
             "and re-costed in each draw; prob_cheapest: the share of draws in which it costs "
             "no more than the candidate ranked first there")


AFTER_TAX_NOTE = ("P(cheapest) ranks each draw on the NPV after income tax "
                  "(finance.decision_basis: after_tax, as tco compare ranks; a shortfall closed "
                  "after tax too), the plan's share on its NPV after tax; the NPV columns are "
                  "before tax.")


def montecarlo_table(mc: MonteCarlo) -> str:
    cur = mc.currency
    out = [(f"Monte Carlo: {mc.draws:,} draws, seed {mc.seed}, {len(mc.varied)} inputs drawn "
            f"({cur})")]
    out.extend(f"WARNING: {w.text}" for w in mc.warnings)
    per_token = mc.metric == "cost_per_million_output_tokens"
    show = (lambda x: per_million(x, cur)) if per_token else (lambda x: money(x, cur))
    rows = []
    for cid, p in mc.percentiles.items():
        n, j = p["npv_tco"], p.get(mc.metric)
        rows.append([cid, money(n["p10"], cur), money(n["p50"], cur), money(n["p90"], cur),
                     money(mc.deterministic.get(cid, {}).get("npv_tco"), cur),
                     *([show(j["p10"]), show(j["p50"]), show(j["p90"])] if j else ["-"] * 3),
                     percent(mc.prob_cheapest[cid], 1)])
    if mc.plan is not None:
        q = mc.plan.npv_tco
        rows.append([f"{mc.plan.id} (fixed)", money(q["p10"], cur), money(q["p50"], cur),
                     money(q["p90"], cur), money(mc.plan.deterministic, cur), "-", "-", "-",
                     percent(mc.plan.cheaper_share, 1)])
    second = "/M out" if per_token else "run"
    out.append(text_table(["candidate", "NPV P10", "P50", "P90", "baseline", f"{second} P10",
                           "P50", "P90", "P(cheapest)"], rows, "lrrrrrrrr").rstrip())
    if mc.plan is not None:
        out.append("")
        out.append(f"{mc.plan.id} (fixed): {PLAN_NOTE}.")
    short = [f"{cid} in {percent(x, 1)} of draws" for cid, x in mc.short_share.items() if x > 0]
    out.append("")
    out.append("NPV: of delivering the plan, and P(cheapest) from the same draws (tier, then "
               "NPV, as tco compare ranks). An option short of the plan in a draw is not "
               "dropped: it is priced with its shortfall closed (npv_tco_plan_closed: renting "
               "it, or buying the larger cluster where that costs less)"
               + (f"; short: {', '.join(short)}." if short else "; none fell short."))
    if mc.basis == "after_tax":
        out.append(AFTER_TAX_NOTE)
    unranked = [f"{cid} in {percent(1 - x, 1)}" for cid, x in mc.ranked_share.items()
                if 0 < x < 1]
    if unranked:
        out.append("Not rankable in some draws (infeasible there, e.g. a deadline missed): "
                   + ", ".join(unranked) + ".")
    notes = outside_notes(mc)
    if notes:
        out.append("")
        out.append("Point estimates outside their own P10-P90 band (skewed inputs):")
        out.extend(f"  {n}" for n in notes)
    if mc.shared:
        out.append("")
        out.append("One draw shared by: " + "; ".join(
            f"{g[0].rsplit('.', 1)[-1]} ({len(g)} candidates)" for g in mc.shared))
    return printable_lines("\n".join(out)) + "\n"

