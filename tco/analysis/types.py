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
    metric: str  # "npv_tco" or "cost_per_job"
    mode: str  # "swing" (every input +/- swing) or "range" (catalog low/high)
    swing: float | None
    baseline: dict[str, float]  # candidate id -> metric at baseline
    bars: dict[str, list[TornadoBar]]  # candidate id -> bars, largest effect first
    currency: str = ""


@dataclass
class MonteCarlo:
    draws: int
    seed: int
    varied: list[str]  # input paths drawn
    # candidate id -> {"npv_tco": {"p10":..,"p50":..,"p90":..,"mean":..},
    #                  "cost_per_job": {...}}
    percentiles: dict[str, dict[str, dict[str, float]]]
    prob_cheapest: dict[str, float]  # candidate id -> P(lowest NPV of TCO)
    # candidate id -> a subsample (at most a few thousand) of NPV draws, for charts
    samples: dict[str, np.ndarray] = field(default_factory=dict)
    currency: str = ""
    # candidate id -> {"npv_tco": .., "cost_per_job": ..} at the baseline (no draw)
    deterministic: dict[str, dict[str, float]] = field(default_factory=dict)
    # groups of input paths that share one draw (the same catalog figure, e.g. one PUE)
    shared: list[list[str]] = field(default_factory=list)
