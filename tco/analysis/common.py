"""Pieces the analyses share: metrics, plausible ranges in the scenario's currency, swings."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import TcoError
from ..numtext import number_from_text

if TYPE_CHECKING:
    from ..inputs import Input
    from ..result import PortfolioResult, Result

METRICS = ("npv_tco", "cost_per_job", "cost_per_million_output_tokens")
# an NPV metric names the option's own quantity: before income tax, or after it
# (finance.decision_basis, methodology §20)
NPV_METRICS = ("npv_tco", "npv_tco_after_tax")
# the NPV after income tax beside the other analyses' metrics: a break-even of a tax input (or
# of any input, after tax) is where the order the options are ranked in flips
BREAKEVEN_METRICS = ("npv_tco", "npv_tco_after_tax", *METRICS[1:])
METRIC_LABELS = {"npv_tco": "NPV of TCO", "npv_tco_after_tax": "NPV of TCO after income tax",
                 "cost_per_job": "cost per run",
                 "cost_per_million_output_tokens": "cost per million output tokens served"}


def portfolio_of(result: Result, pid: str) -> PortfolioResult | None:
    return next((p for p in result.portfolios if p.id == pid), None)


def members(result: Result, oid: str) -> list[str]:
    """The options behind `oid`: a portfolio's, or the option itself."""
    port = portfolio_of(result, oid)
    return list(port.options) if port is not None else [oid]


def decision_metric(result: Result) -> str:
    """The NPV the options are ranked on (`finance.decision_basis`): after income tax where
    the scenario ranks after tax, else before."""
    return "npv_tco_after_tax" if result.structure.decision_basis == "after_tax" else "npv_tco"


def metric_name(result: Result, cid: str, metric: str) -> str:
    """The model quantity behind a metric: NPV of TCO (before or after income tax), or the
    primary workload's cost per run. A portfolio (tco/model/portfolio.py) has only the NPVs:
    it runs several workloads on several clusters, so it has no one run."""
    if metric in NPV_METRICS:
        return f"{cid}.{metric}"
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
    if metric in NPV_METRICS:
        return float(c.values[metric])
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


def ties(inputs: Mapping[str, Input]) -> dict[str, tuple[str, ...]]:
    """Input -> the inputs resolve set equal to it by default (`Input.meta[EQUAL_TO]`: a
    dense model's active parameters are its parameters). An analysis that varies the one
    varies those with it, as resolving the scenario with the one changed would (what `tco
    whatif` does); varied alone, a dense model would become a mixture of experts."""
    from ..inputs import EQUAL_TO

    out: dict[str, list[str]] = {}
    for path, inp in inputs.items():
        source = inp.meta.get(EQUAL_TO)
        if source in inputs:
            out.setdefault(source, []).append(path)
    return {k: tuple(v) for k, v in out.items()}


def sources_read(links: Mapping[str, tuple[str, ...]], read: Iterable[str]) -> set[str]:
    """The inputs with an input tied to them among `read`: varying one moves what is read."""
    read = set(read)
    return {p for p, followers in links.items() if read.intersection(followers)}


def tied(links: Mapping[str, tuple[str, ...]]) -> set[str]:
    """The inputs that follow another (`links`, from `ties`): never varied on their own."""
    return {f for followers in links.values() for f in followers}


def with_ties(values: Mapping[str, Any], links: Mapping[str, tuple[str, ...]]
              ) -> dict[str, Any]:
    """`values` (input -> value or array) with each tied input given its source's value."""
    out = dict(values)
    for source, value in values.items():
        for follower in links.get(source, ()):
            out[follower] = value
    return out


def baseline_values(result: Result) -> dict[str, float]:
    """Every input at its baseline value, sized clusters at their sized card count."""
    return {path: inp.value for path, inp in result.inputs.items()}


DRAWS_OR_NONE = "a number of draws, or 0 for no Monte Carlo"  # the report's --draws
MIN_SWING = 0.001  # 0.1%: a smaller swing moves no result beyond rounding


def parse_swing(text: object) -> float:
    """'20%' or 0.2 -> 0.2: a fraction from MIN_SWING up to, not including, 1. The one check
    of a swing, whether it comes from the command line (`--swing 20%`) or the Python API
    (`tco.sensitivity(swing=0.2)`); the message quotes what was given."""
    shown = repr(text) if isinstance(text, str) else str(text)
    if isinstance(text, bool) or not isinstance(text, (str, numbers.Real)):
        raise TcoError(f"--swing {shown}: expected a percentage such as 20% (or a fraction "
                       "such as 0.2)")
    if isinstance(text, str):
        s = text.strip()
        number = number_from_text(s.removesuffix("%"))
        if number is None:
            raise TcoError(f"--swing {shown}: expected a percentage such as 20%")
        value = number / 100 if s.endswith("%") else number
    else:
        value = float(text)
    if not (math.isfinite(value) and MIN_SWING <= value < 1):
        raise TcoError(f"--swing {shown}: expected a percentage from {MIN_SWING:.1%} up to, "
                       "not including, 100%, such as 20%")
    return value


def check_whole(value: object, flag: str, least: int, expected: str = "") -> int:
    """A whole-number setting (draws, seed) from the command line or the Python API: an int
    (not a yes/no value, not 7.0) of at least `least`."""
    expected = expected or f"a whole number from {least} up"
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TcoError(f"{flag} {value!r}: expected {expected}")
    if value < least:
        raise TcoError(f"{flag} {value}: expected {expected}")
    return int(value)


def check_metric(metric: object, allowed: tuple[str, ...], flag: str = "--metric") -> str:
    if metric not in allowed:
        raise TcoError(f"{flag} {metric!r}: expected one of {', '.join(allowed)}")
    return str(metric)


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
