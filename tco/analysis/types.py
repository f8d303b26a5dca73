"""Result types of the analyses, shared by the commands and the exporters that show them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .common import METRIC_LABELS


@dataclass
class TornadoBar:
    """One input moved down and up, and what that does to one candidate's metric."""

    path: str  # dotted input path, e.g. "candidates.mi300x.card_price"
    label: str
    unit: str
    base_value: float
    low_value: float
    high_value: float
    metric_low: float  # the candidate's metric with the input at low_value
    metric_high: float  # ... at high_value
    clipped: bool = False  # a swing reached the input's plausible range and was cut there

    @property
    def effect(self) -> float:
        return abs(self.metric_high - self.metric_low)


@dataclass
class Sensitivity:
    metric: str  # "npv_tco", "cost_per_job" or "cost_per_million_output_tokens"
    mode: str  # "swing" (every input +/- swing) or "range" (catalog low/high)
    swing: float | None
    baseline: dict[str, float]  # candidate id -> metric at baseline
    bars: dict[str, list[TornadoBar]]  # candidate id -> bars, largest effect first
    currency: str = ""
    # the cheapest plan held fixed and re-costed at each case (the NPV of a planned scenario;
    # "" and None otherwise): its id, NPV at the baseline and bars
    plan_id: str = ""
    plan_baseline: float | None = None
    plan_bars: list[TornadoBar] = field(default_factory=list)


@dataclass(frozen=True)
class DrawWarning:
    """Something about a Monte Carlo input every output of the analysis must say.

    kind "clipped": the distribution reaches outside the input's plausible range and `share`
    of its draws (expected, from its distribution function) are cut to that range;
    kind "unused": the scenario gives a distribution for an input no result of the analysis
    reads (so it is not drawn)."""

    kind: str  # clipped | unused
    path: str
    dist: str = ""
    low: float = 0.0
    high: float = 0.0
    clip_low: float = 0.0
    clip_high: float = 0.0
    unit: str = ""
    share: float = 0.0
    given: bool = True  # from the scenario's `distributions:` (else: the catalog's range)

    @property
    def where(self) -> str:
        return f"distributions.{self.path}" if self.given else f"catalog range of {self.path}"

    @property
    def text(self) -> str:
        if self.kind == "unused":
            return (f"{self.where}: no result of the Monte Carlo analysis depends on this "
                    "input, so it is not drawn")
        unit = f" {self.unit}" if self.unit and self.unit != "fraction" else ""
        return (f"{self.where}: {self.dist} {self.low:g} to {self.high:g}{unit} reaches outside "
                f"the input's plausible range {self.clip_low:g} to {self.clip_high:g}{unit}; "
                f"{share_text(self.share)} of its draws are clipped to that range")


def share_text(share: float) -> str:
    """0.37 -> '37%'; small shares keep a significant digit ('0.02%'), never '0%'."""
    if share >= 0.9995:
        return "all"
    if share >= 0.01:
        return f"{share:.0%}"
    return f"{share * 100:.2g}%"


@dataclass(frozen=True)
class SkewedInput:
    """A drawn input whose draws sit mostly on one side of the value the point estimate
    takes, and how far that alone moves the figure (tco/analysis/skew.py)."""

    path: str
    value: float  # the point estimate's value (the catalog's typical, or the scenario's)
    median: float  # the median of its draws
    low: float  # its distribution's range
    high: float
    unit: str
    effect: float  # the figure with this input alone at its median, less the point estimate


@dataclass(frozen=True)
class PointOutside:
    """The point estimate (no draw) of a candidate's figure lies outside its own P10-P90
    band, and why: the inputs whose draws are skewed away from the point's values."""

    candidate: str
    metric: str  # npv_tco or the analysis' second metric
    side: str  # below (under P10) | above (over P90)
    point: float
    p10: float
    p90: float
    skewed: tuple[SkewedInput, ...]  # largest effect first; empty: no single input explains it

    def text(self, show: Callable[[float], str]) -> str:
        """In words, figures shown with `show` (money or a per-token price)."""
        head = (f"{self.candidate}: the point estimate of its "
                f"{METRIC_LABELS.get(self.metric, self.metric)} "
                f"({show(self.point)}) lies {self.side} its "
                f"{'P10' if self.side == 'below' else 'P90'} "
                f"({show(self.p10 if self.side == 'below' else self.p90)})")
        if not self.skewed:
            return (head + ": no single input's draws are skewed enough to explain it; the "
                    "inputs together move it (the model is not linear in them)")
        where = "above" if self.side == "below" else "below"
        return (head + ": the point takes each input at its typical value, and the draws of "
                f"these inputs lie mostly {where} it: " + "; ".join(
                    f"{k.path} (typical {k.value:.4g}, median of its draws {k.median:.4g}, "
                    f"range {k.low:.4g} to {k.high:.4g}{' ' + k.unit if k.unit else ''}; "
                    f"{'+' if k.effect >= 0 else '-'}{show(abs(k.effect))} alone)"
                    for k in self.skewed))


@dataclass
class PlanBand:
    """The cheapest plan (tco.plan), held fixed (what it buys, rents and calls, and when) and
    re-costed in every draw of a Monte Carlo: its NPV's percentiles and the share of draws in
    which it costs no more than the option ranked first in that draw."""

    id: str
    npv_tco: dict[str, float]  # {"p10", "p50", "p90", "mean"}
    deterministic: float  # the plan's NPV at the scenario's values
    cheaper_share: float
    samples: np.ndarray = field(default_factory=lambda: np.empty(0))


@dataclass
class MonteCarlo:
    draws: int
    seed: int
    varied: list[str]  # input paths drawn
    # candidate id -> {"npv_tco": {"p10":..,"p50":..,"p90":..,"mean":..},
    #                  <metric>: {...}}; "npv_tco" is the NPV of delivering the plan in each
    # draw: an option short of it there is priced with its shortfall closed (`short_share`)
    percentiles: dict[str, dict[str, dict[str, float]]]
    prob_cheapest: dict[str, float]  # candidate id -> P(ranked first), from the same draws
    # candidate id -> a subsample (at most a few thousand) of NPV draws, for charts
    samples: dict[str, np.ndarray] = field(default_factory=dict)
    currency: str = ""
    # candidate id -> {"npv_tco": .., "cost_per_job": ..} at the baseline (no draw)
    deterministic: dict[str, dict[str, float]] = field(default_factory=dict)
    # groups of input paths that share one draw (the same catalog figure, e.g. one PUE)
    shared: list[list[str]] = field(default_factory=list)
    # distributions cut by an input's plausible range, or given for an input not drawn
    warnings: list[DrawWarning] = field(default_factory=list)
    # the second metric of `percentiles` and `deterministic` (beside "npv_tco"):
    # "cost_per_job" or "cost_per_million_output_tokens" (tco.analysis.common.METRICS)
    metric: str = "cost_per_job"
    # candidate id -> share of draws in which it fell short of the plan and was ranked (and
    # its "npv_tco" drawn) at its NPV with the shortfall closed (`npv_tco_plan_closed`)
    short_share: dict[str, float] = field(default_factory=dict)
    # candidate id -> share of draws in which it could rank first at all (not barred, not
    # infeasible in that draw, not a part of the plan)
    ranked_share: dict[str, float] = field(default_factory=dict)
    # point estimates outside their own P10-P90 band, with the skewed inputs that put them there
    outside: list[PointOutside] = field(default_factory=list)
    # the cheapest plan held fixed and re-costed in every draw (None: the scenario is not
    # planned)
    plan: PlanBand | None = None
    # what each draw is ranked on (P(cheapest), the plan's cheaper_share): the NPV before tax
    # (pre_tax) or after income tax (after_tax), as tco compare ranks (finance.decision_basis);
    # the bands (`percentiles`, `plan.npv_tco`) are the NPV before tax either way
    basis: str = "pre_tax"
