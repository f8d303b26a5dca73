"""Result types of the analyses, shared by the commands and the exporters that show them."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


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


@dataclass
class MonteCarlo:
    draws: int
    seed: int
    varied: list[str]  # input paths drawn
    # candidate id -> {"npv_tco": {"p10":..,"p50":..,"p90":..,"mean":..},
    #                  <metric>: {...}}
    percentiles: dict[str, dict[str, dict[str, float]]]
    prob_cheapest: dict[str, float]  # candidate id -> P(lowest NPV of TCO)
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
