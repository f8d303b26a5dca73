"""Pieces the analyses share: metrics, plausible ranges in the scenario's currency, swings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import TcoError

if TYPE_CHECKING:
    from ..inputs import Input
    from ..result import PortfolioResult, Result

METRICS = ("npv_tco", "cost_per_job", "cost_per_million_output_tokens")
METRIC_LABELS = {"npv_tco": "NPV of TCO", "cost_per_job": "cost per run",
                 "cost_per_million_output_tokens": "cost per million output tokens served"}


def portfolio_of(result: Result, pid: str) -> PortfolioResult | None:
    return next((p for p in result.portfolios if p.id == pid), None)


def members(result: Result, oid: str) -> list[str]:
    """The options behind `oid`: a portfolio's, or the option itself."""
    port = portfolio_of(result, oid)
    return list(port.options) if port is not None else [oid]


def metric_name(result: Result, cid: str, metric: str) -> str:
    """The model quantity behind a metric: NPV of TCO, or the primary workload's cost per run.
    A portfolio (tco/model/portfolio.py) has only the NPV: it runs several workloads on
    several clusters, so it has no one run."""
    if metric == "npv_tco":
        return f"{cid}.npv_tco"
    if portfolio_of(result, cid) is not None:
        raise TcoError(f"{cid} is a portfolio: its metric is npv_tco (a portfolio has no one "
                       "run to cost)")
    if metric == "cost_per_job":
        return f"{cid}.{result.candidate(cid).primary_workload}.cost_per_job"
    if metric == "cost_per_million_output_tokens":  # the first serving workload's
        serving = [wid for wid, _p, kind in result.structure.workloads if kind == "serve"]
        if not serving:
            raise TcoError("--metric cost_per_million_output_tokens needs a serving workload "
                           "(kind: serve) in the scenario")
        return f"{cid}.{serving[0]}.cost_per_million_output_tokens"
    raise TcoError(f"unknown metric '{metric}'; expected one of {', '.join(METRICS)}")


def metric_applies(result: Result, cid: str, metric: str) -> bool:
    """Whether option `cid` has the metric: the serving metric only when it carries the
    first serving workload (an option that only trains serves no token)."""
    if metric != "cost_per_million_output_tokens":
        return True
    wid = metric_name(result, cid, metric)[len(cid) + 1:].rsplit(".", 1)[0]
    return result.candidate(cid).info.carries(wid)


def metric_value(result: Result, cid: str, metric: str) -> float:
    """The engine's value of `metric_name(result, cid, metric)`."""
    c = result.candidate(cid)
    if metric == "npv_tco":
        return float(c.values["npv_tco"])
    # <cid>.<workload>.<key>: a workload id may hold dots, a key does not
    wid, key = metric_name(result, cid, metric)[len(cid) + 1:].rsplit(".", 1)
    return float(c.jobs[wid][key])


def plausible_range(inp: Input, result: Result) -> tuple[float, float]:
    """The input's plausible range (tco/inputs.py), money converted to the scenario currency."""
    lo, hi = inp.spec.lo, inp.spec.hi
    if inp.spec.money:
        assert result.resolved is not None
        fx = result.resolved.usd_to_currency
        lo, hi = lo * fx, hi * fx
    return lo, hi


def baseline_values(result: Result) -> dict[str, float]:
    """Every input at its baseline value, sized clusters at their sized card count."""
    return {path: inp.value for path, inp in result.inputs.items()}


def parse_swing(text: str | float) -> float:
    """'20%' or 0.2 -> 0.2 (a fraction strictly between 0 and 1)."""
    if isinstance(text, (int, float)):
        value = float(text)
    else:
        s = text.strip()
        try:
            value = float(s[:-1]) / 100 if s.endswith("%") else float(s)
        except ValueError:
            raise TcoError(f"--swing {text!r}: expected a percentage such as 20%") from None
    if not 0 < value < 1:
        raise TcoError(f"--swing {text!r}: expected a percentage between 0% and 100% "
                       "(exclusive), such as 20%")
    return value


def priced_candidates(result: Result, feasible_only: bool = True) -> list[str]:
    """Candidates the analyses report on, in ranking order."""
    return [c.id for c in result.candidates
            if c.priced and (c.feasible or not feasible_only)]


def feasible_apis(result: Result) -> list[str]:
    """Per-token API options (tco/model/api.py) the analyses report on beside the options and
    portfolios, in ranking order (tier, then NPV)."""
    return [a.id for a in result.api_options if a.feasible]


def feasible_portfolios(result: Result) -> list[str]:
    """Portfolios the analyses report on beside the options (their options all priced and
    feasible), in ranking order."""
    return [p.id for p in result.portfolios if p.feasible]
