"""Monte Carlo: draw the uncertain inputs, evaluate every candidate for every draw at once.

What is drawn: every input the NPV of TCO or the cost per run reads that has a range:
* catalog figures with low < high: split triangular(low, typical, high), whose mode AND median
  are the catalog's typical value: half the draws fall in [low, typical] with density rising
  to typical, half in [typical, high] with density falling from it. A plain triangular with
  mode = typical puts its median far off the typical value when the range is lopsided (a rent
  of 2.99 / 3.49 / 11.06 has its median at 4.4 and its 10th percentile above 3.49), so the
  point results the other commands print would sit outside the Monte Carlo's central range;
  with the split form, an input at its typical value is at its own median; or lognormal with
  low and high as its 10th and 90th percentiles for the inputs that say so (InputSpec.draw:
  the model's error on time to train, assumptions.model_error_<family>);
* a scenario's `distributions:` entry (overrides the catalog): triangular(low, mode, high)
  with mode defaulting to the baseline value, uniform(low, high), or normal with low and high
  as its 10th and 90th percentiles (mode, if given, as its mean);
* not structural or whole-number inputs; cluster sizes stay at their (sized) value.

A distribution may only be given for an input the analysis can draw: not a structural or
whole-number one, and with its low, mode and high inside the input's plausible range (refused
with the scenario, tco.resolve.resolve). A normal distribution whose tails reach outside that
range, so that some of its draws are clipped, and a distribution for an input no result reads,
are reported as warnings (MonteCarlo.warnings) that every output of the analysis shows.

Inputs that come from one catalog figure (the PUE of air cooling, a stack's porting effort)
share one draw: it is one uncertain fact, so drawing it
separately per candidate would add noise to the ranking that the world does not have.
Draws are clipped to the input's plausible range (tco/inputs.py).

Triangular draws use the min/max construction of Stein and Keblis (2009, "A new method to
simulate the triangular distribution", Mathematical and Computer Modelling 49: 1143-1147): for
independent uniforms U1, U2 and c = (mode - low) / (high - low),
low + (high - low) * ((1 - c) * min(U1, U2) + c * max(U1, U2)) is triangular(low, mode, high).
It needs no square root or branch, and every triangular input is drawn in one array operation.
A split triangular uses the same two uniforms: U1 < 1/2 picks the lower half, and V = 2 U1 or
2 U1 - 1 is again uniform and independent of that choice; the lower half is then
low + (typical - low) * max(V, U2) (a triangular with its mode at its top), the upper
typical + (high - typical) * min(V, U2) (mode at its bottom).

Memory: every draw of the NPV of TCO and of the cost per run is kept (8 bytes each, per
candidate) for the percentiles; `--draws` is refused when that needs more than MEMORY_LIMIT
(or half the machine's memory, when that is less).

Reproducibility: draws are made in chunks of CHUNK draws; chunk k uses the random stream
Generator(PCG64(seed).jumped(k)) (chunk 0 is Generator(PCG64(seed)) itself), inputs in a fixed
order within each block. The same seed and draw count give identical output, however many
threads or processes run the chunks (on Linux two forked processes, tco/forked.py).
"""

from __future__ import annotations

import math
import os
from collections import ChainMap
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from .. import forked, twins
from ..errors import TcoError
from ..expr import Value
from ..inputs import Input
from ..plan import costed, decisions
from ..result import Result
from ..twins import Twins
from .common import (
    baseline_values,
    check_metric,
    check_whole,
    feasible_apis,
    feasible_portfolios,
    metric_applies,
    metric_name,
    metric_value,
    plausible_range,
    portfolio_of,
    priced_candidates,
    sources_read,
    tied,
    ties,
)
from .fast import Compiled
from .quantiles import percentiles
from .skew import points_outside
from .types import DrawWarning, MonteCarlo, PlanBand

T = TypeVar("T")
_TRIANGULAR = ("triangular", "split")  # drawn from two uniforms each, in one array
CHUNK = 65_536  # draws per random stream and per task of the worker processes (or threads)
BLOCK = 8_192  # draws sampled and evaluated together
ROWS_AT_ONCE = 8  # triangular quantities transformed together: (2, 8, BLOCK) uniforms, 1 MiB
SAMPLES_KEPT = 2_000  # NPV draws per candidate kept for charts
LEADING_TIERS = 2  # tiers below this may rank first (tco.model.tier_formula: 2 barred, 3 infeasible)
# The NPV and cost-per-run draws kept at once for percentiles: candidates are evaluated in
# groups of at most GROUP_MAX that fit (a thousand candidates x 20,000 draws would otherwise
# keep 320 MB, and their block results as much again). Each group draws its inputs again, so
# the example's 14 candidates x 1,000,000 draws (224 MB) are one group, not two.
GROUP_BYTES = 256 * 2**20
GROUP_MAX = 128
Z90 = 1.2815515655446004  # standard normal 90th percentile
THREADS = min(2, os.cpu_count() or 1)
MEMORY_LIMIT = 4 * 2**30  # bytes for the kept draws (KEPT_PER_DRAW per draw and candidate)
KEPT_PER_DRAW = 2 * 8  # the NPV of TCO and the cost per run, 8-byte floats
# every drawn quantity's draws kept for the passes that read them again (Simulation._sampled)
# when they fit: a thousand candidates' 180 quantities x 20,000 draws are 29 MB
KEEP_DRAWN_BYTES = 64 * 2**20
TWINS_MIN = 2  # twins compiled once for all of them (tco/twins.py) when at least this many
TWINS_AT_ONCE = 8  # twins evaluated together: (twins x BLOCK) arrays of 512 KiB (in cache)
MC_METRICS = ("cost_per_job", "cost_per_million_output_tokens")  # beside the NPV of TCO
NORMAL_CLIP_WARN = 1e-3  # a normal is unbounded: warn when this share or more is clipped


@dataclass(frozen=True)
class Draw:
    """One uncertain quantity and the input paths that take its value."""

    paths: tuple[str, ...]
    dist: str  # split (a catalog range) | triangular | uniform | normal | lognormal
    low: float
    mode: float
    high: float
    clip_low: float
    clip_high: float
    given: bool = False  # from the scenario's `distributions:` (else: a catalog range)

    @property
    def needs_clip(self) -> bool:
        return (self.dist in ("normal", "lognormal") or self.low < self.clip_low
                or self.high > self.clip_high)

    @property
    def log_params(self) -> tuple[float, float]:
        """A lognormal's mu and sigma: low and high are its 10th and 90th percentiles."""
        lo, hi = math.log(self.low), math.log(self.high)
        return (lo + hi) / 2, (hi - lo) / (2 * Z90)

    def cdf(self, x: float) -> float:
        """P(draw <= x) before clipping."""
        lo, mode, hi = self.low, self.mode, self.high
        if self.dist == "lognormal":
            if x <= 0:
                return 0.0
            mu, sigma = self.log_params
            if sigma <= 0:
                return 1.0 if math.log(x) >= mu else 0.0
            return 0.5 * math.erfc(-(math.log(x) - mu) / (sigma * math.sqrt(2)))
        if self.dist == "normal":
            sigma = (hi - lo) / (2 * Z90)
            if sigma <= 0:
                return 1.0 if x >= mode else 0.0
            return 0.5 * math.erfc(-(x - mode) / (sigma * math.sqrt(2)))
        if x < lo:
            return 0.0
        if x >= hi:
            return 1.0
        if self.dist == "uniform":
            return (x / 2 - lo / 2) / (hi / 2 - lo / 2)
        # split or plain triangular; lo < hi here. In halves and as ratios: no difference,
        # square or product of two widths overflows a float, however wide the range
        lo, mode, hi, x = lo / 2, mode / 2, hi / 2, x / 2
        if self.dist == "split":  # half the mass on each side of the mode
            if x <= mode:
                return 0.5 * ((x - lo) / (mode - lo)) ** 2 if mode > lo else 0.5
            return 1.0 - 0.5 * ((hi - x) / (hi - mode)) ** 2 if hi > mode else 1.0
        if x <= mode:
            return (x - lo) / (hi - lo) * ((x - lo) / (mode - lo)) if mode > lo else 0.0
        return 1.0 - (hi - x) / (hi - lo) * ((hi - x) / (hi - mode))

    @property
    def clipped_share(self) -> float:
        """The expected share of draws cut to the plausible range."""
        if self.dist not in ("normal", "lognormal") and self.low == self.high:  # a point
            return 0.0 if self.clip_low <= self.low <= self.clip_high else 1.0
        # P(draw < clip_low): a split triangular whose typical is an end of its range puts
        # half its draws exactly there, which are not cut
        below = self.cdf(math.nextafter(self.clip_low, -math.inf))
        return min(1.0, below + 1.0 - self.cdf(self.clip_high))


class Sampler:
    """Draws every quantity for a block of draws: triangular ones in one (G, n) array.

    A block's stream is, in order: two uniforms for every triangular quantity (all first ones,
    then all second ones, each n long), then each other quantity's own draws. `sample` with
    `rows` makes only those quantities' values, each from its own place in the stream (a PCG64
    stream can be advanced by any number of values at once, and a uniform takes exactly one),
    and leaves the stream where drawing them all would: the values are the same bit for bit.
    Candidates evaluated in groups read only their own inputs and the shared ones, so each
    group draws its own few quantities instead of every one."""

    def __init__(self, draws: list[Draw]) -> None:
        self.draws = draws
        self.tri = [i for i, d in enumerate(draws) if d.dist in _TRIANGULAR]
        self.other = [i for i, d in enumerate(draws) if d.dist not in _TRIANGULAR]
        self.tri_row = {i: row for row, i in enumerate(self.tri)}
        # a normal takes a varying number of uniforms: the others are then drawn in full
        self.skippable = all(draws[i].dist == "uniform" for i in self.other)
        low = np.array([draws[i].low for i in self.tri])
        width = np.array([draws[i].high - draws[i].low for i in self.tri])
        c = np.divide(np.array([draws[i].mode for i in self.tri]) - low, width,
                      out=np.zeros_like(width), where=width > 0)
        # split rows: the lower half is low + (mode - low) max(V, U2) (a = 0, b = mode - low);
        # the upper half, where U1 picked it, mode + (high - mode) min(V, U2)
        split = np.array([draws[i].dist == "split" for i in self.tri], dtype=bool)
        mode = np.array([draws[i].mode for i in self.tri])
        self.split = split[:, None]
        self.low = low[:, None]
        self.mode = mode[:, None]
        self.a = np.where(split, 0.0, width * (1 - c))[:, None]
        self.b = np.where(split, mode - low, width * c)[:, None]
        self.up_a = np.where(split, low + width - mode, 0.0)[:, None]

    def sample(self, rng: np.random.Generator, n: int, rows: list[int] | None = None
               ) -> dict[int, np.ndarray]:
        """n values of each Draw (index -> array): of those in `rows` (ascending), or all."""
        if rows is None:
            rows = list(range(len(self.draws)))
        tri = [self.tri_row[i] for i in rows if i in self.tri_row]
        out: dict[int, np.ndarray] = {}
        if tri:
            x = self._triangular(rng, n, tri)
            out.update({self.tri[t]: x[row] for row, t in enumerate(tri)})
        else:
            rng.bit_generator.advance(2 * len(self.tri) * n)  # type: ignore[attr-defined]
        out.update(self._others(rng, n, set(rows)))
        for i in rows:
            d = self.draws[i]
            if d.needs_clip:
                np.clip(out[i], d.clip_low, d.clip_high, out=out[i])
        return {i: out[i] for i in rows}

    def _triangular(self, rng: np.random.Generator, n: int, tri: list[int]) -> np.ndarray:
        """n values of each triangular quantity `tri` (rows of the stream's triangular part,
        ascending), ROWS_AT_ONCE at a time: the first uniforms of a few quantities and their
        second ones, made by two generators walking the two halves of the stream side by
        side, are transformed while they are in the CPU's cache. Leaves `rng` after the
        triangular part, where drawing every quantity would."""
        bits = rng.bit_generator
        second = np.random.PCG64()
        second.state = bits.state
        second.advance(len(self.tri) * n)  # the second uniforms: the stream's second half
        halves = (rng, np.random.Generator(second))
        x = np.empty((len(tri), n))
        u = np.empty((2, ROWS_AT_ONCE, n))
        pos = 0  # values used so far of each half
        for first, last, at in _runs(tri):
            for lo in range(first, last, ROWS_AT_ONCE):
                k = min(ROWS_AT_ONCE, last - lo)
                for half, gen in enumerate(halves):
                    gen.bit_generator.advance(lo * n - pos)  # type: ignore[attr-defined]
                    gen.random((k, n), out=u[half, :k])
                pos = (lo + k) * n
                self._transform(u[0, :k], u[1, :k], slice(lo, lo + k),
                                x[at + lo - first:at + lo - first + k])
        bits.state = second.state
        bits.advance(len(self.tri) * n - pos)  # type: ignore[attr-defined]
        return x

    def _transform(self, u1: np.ndarray, u2: np.ndarray, rows: slice, x: np.ndarray) -> None:
        """Into x: the triangular quantities `rows` from their uniforms U1, U2 (both
        overwritten), by the construction of the module's docstring."""
        split = self.split[rows]
        if split.all():  # catalog ranges: the lower half, or where U1 picked it the upper
            upper = u1 >= 0.5
            u1 *= 2.0
            u1 -= upper  # V = 2 U1, or 2 U1 - 1
            np.minimum(u1, u2, out=x)
            np.maximum(u1, u2, out=u2)
            np.multiply(x, self.up_a[rows], out=u1)
            u1 += self.mode[rows]  # mode + (high - mode) min(V, U2)
            np.multiply(u2, self.b[rows], out=x)
            x += self.low[rows]  # low + (mode - low) max(V, U2)
            np.copyto(x, u1, where=upper)
            return
        upper = None
        if split.any():
            upper = (u1 >= 0.5) & split
            np.multiply(u1, 2.0, out=u1, where=split)
            np.subtract(u1, 1.0, out=u1, where=upper)
        np.minimum(u1, u2, out=x)
        np.maximum(u1, u2, out=u2)
        if upper is not None:
            np.multiply(self.up_a[rows], x, out=u1)
            u1 += self.mode[rows]
        x *= self.a[rows]
        u2 *= self.b[rows]
        x += u2
        x += self.low[rows]
        if upper is not None:
            np.copyto(x, u1, where=upper)

    def _others(self, rng: np.random.Generator, n: int, wanted: set[int]
                ) -> dict[int, np.ndarray]:
        """n values of each quantity that is not triangular and is `wanted`, from `rng` after
        the triangular part; leaves `rng` where drawing every quantity would."""
        out: dict[int, np.ndarray] = {}
        bits = rng.bit_generator
        pos = 0  # values of this part of the stream used so far
        for k, i in enumerate(self.other):
            d = self.draws[i]
            if self.skippable:  # every other one is uniform: n values each
                if i not in wanted:
                    continue
                bits.advance(k * n - pos)  # type: ignore[attr-defined]
                pos = k * n
            if d.dist == "normal":
                out[i] = rng.standard_normal(n) * ((d.high - d.low) / (2 * Z90)) + d.mode
            elif d.dist == "lognormal":
                mu, sigma = d.log_params
                out[i] = np.exp(rng.standard_normal(n) * sigma + mu)
            else:
                out[i] = d.low + (d.high - d.low) * rng.random(n)
            pos += n
        if self.skippable:
            bits.advance(len(self.other) * n - pos)  # type: ignore[attr-defined]
        return out


def _runs(rows: list[int]) -> Iterator[tuple[int, int, int]]:
    """(first, last + 1, place in `rows`) of each run of consecutive numbers in `rows`."""
    at = 0
    while at < len(rows):
        end = at + 1
        while end < len(rows) and rows[end] == rows[end - 1] + 1:
            end += 1
        yield rows[at], rows[end - 1] + 1, at
        at = end


def scenario_distributions(result: Result) -> dict[str, dict[str, object]]:
    """The scenario's `distributions:` (validated with it), as plain data."""
    return dict(result.scenario_data.get("distributions") or {})


def plan_draws(result: Result, used: set[str]) -> list[Draw]:
    """The quantities to draw, in a fixed order (input order of the scenario). An input tied
    to another (common.ties: a dense model's active parameters) takes that one's draw."""
    scen = scenario_distributions(result)
    links = ties(result.inputs)
    following = tied(links)
    reached = sources_read(links, used)  # drawn for an input tied to them that is read
    for path in following & scen.keys():
        source = next(p for p, followers in links.items() if path in followers)
        raise TcoError(f"{path} is not given: it is {source}'s value by default (a dense "
                       f"model's active parameters are its parameters); draw {source}, which "
                       f"it follows, or give {path} in the scenario to draw it on its own",
                       field=f"distributions.{path}")
    groups: dict[tuple[object, ...], list[str]] = {}
    specs: dict[tuple[object, ...], tuple[str, float, float, float, Input]] = {}
    for path, inp in result.inputs.items():
        if inp.spec.structural or path in following or (
                path not in used and path not in reached):
            continue
        if path in scen:
            d = scen[path]
            if inp.spec.integer:
                raise TcoError(f"distributions: {path} is a whole number; Monte Carlo draws "
                               "only continuous inputs", field=f"distributions.{path}")
            dist, low, high = str(d["dist"]), float(d["low"]), float(d["high"])  # type: ignore[arg-type]
            mode = float(d["mode"]) if d.get("mode") is not None else (  # type: ignore[arg-type]
                (low + high) / 2 if dist == "normal" else min(max(inp.value, low), high))
            if not low <= mode <= high:
                raise TcoError(f"expected low <= mode <= high, found {low:g}, {mode:g}, "
                               f"{high:g}", field=f"distributions.{path}")
            key: tuple[object, ...] = ("scenario", path)
            specs[key] = (dist, low, mode, high, inp)
        elif (not inp.spec.integer and inp.low is not None and inp.high is not None
              and inp.low < inp.high):
            mode = min(max(inp.value, inp.low), inp.high)
            # One catalog figure -> one draw, whichever candidates use it.
            key = (inp.spec.key, inp.source, inp.as_of, inp.value, inp.low, inp.high)
            # a catalog range: split triangular, unless the input says lognormal
            specs[key] = ("split" if inp.spec.draw == "triangular" else inp.spec.draw,
                          inp.low, mode, inp.high, inp)
        else:
            continue
        groups.setdefault(key, []).append(path)
        groups[key] += [f for f in links.get(path, ()) if f in used]
    draws = []
    for key, paths in groups.items():
        dist, low, mode, high, inp = specs[key]
        lo_ok, hi_ok = plausible_range(inp, result)
        draws.append(Draw(tuple(paths), dist, low, mode, high, lo_ok, hi_ok,
                          given=key[0] == "scenario"))
    return draws


def draw_warnings(result: Result, plan: list[Draw]) -> list[DrawWarning]:
    """What every output of the analysis must say about its draws: distributions clipped by
    an input's plausible range, and scenario distributions of inputs that are not drawn."""
    out = []
    for d in plan:
        share = d.clipped_share
        if share > (NORMAL_CLIP_WARN if d.dist in ("normal", "lognormal") else 0.0):
            spec = result.inputs[d.paths[0]].spec
            unit = spec.unit.replace("money", result.currency)
            out.append(DrawWarning("clipped", d.paths[0], d.dist, d.low, d.high, d.clip_low,
                                   d.clip_high, unit, share, d.given))
    drawn = {p for d in plan for p in d.paths}
    out += [DrawWarning("unused", path) for path in scenario_distributions(result)
            if path not in drawn]
    return out


def fixed_plan(result: Result, base: dict[str, float], ranged: list[str]
               ) -> tuple[Any, Compiled] | None:
    """The cheapest plan of a planned scenario and its NPV compiled over the ranged inputs it
    reads: its quantities (what it buys, rents, calls and when: the plan's own inputs, fixed)
    and its money (tco.model.plan.plan_money) on top of the scenario's model. None when the
    scenario is not planned."""
    plan = result.cheapest_plan  # not the plans held to one option: not drawn
    if plan is None or plan.model is None:
        return None
    # its NPV before tax (the band), then on the decision basis (compared with the leader)
    targets = list(dict.fromkeys([f"{plan.id}.npv_tco", f"{plan.id}.{plan.npv_key}"]))
    sub = costed(plan, result).feeding(targets)
    used = set(sub.inputs_used())
    known = ChainMap(decisions(plan, result), base)  # the plan's own inputs, the scenario's
    values = {p: known[p] for p in used}
    return plan, Compiled(sub, values, [p for p in ranged if p in used], targets)


def ranged_inputs(result: Result, distributions: dict[str, dict[str, object]]) -> list[str]:
    """The inputs that may vary: a range (low < high), or a distribution in the scenario;
    and the inputs tied to one of those (common.ties), which take its draw."""
    ranged = [p for p, i in result.inputs.items()
              if (i.low is not None and i.high is not None and i.low < i.high)
              or p in distributions]
    links = ties(result.inputs)
    return list(dict.fromkeys(ranged + [f for p in ranged for f in links.get(p, ())]))


class Simulation:
    """Everything prepared once: what to draw, and the compiled model of the results.

    The candidates are compiled in groups of at most `group` (default: all in one), in
    ranking order: `montecarlo` evaluates one group at a time over every draw, so that the
    draws it keeps (for percentiles) are those of one group, not of every candidate.

    `keep_drawn` False where each chunk runs in a forked process: the draws a chunk would
    keep for the later groups (`_sampled`) die with the process, so they are not kept."""

    def __init__(self, result: Result, group: int | None = None,
                 metric: str = "cost_per_job", keep_drawn: bool = True) -> None:
        self.keep_drawn = keep_drawn
        self.cands = priced_candidates(result)
        # the NPV of TCO, the second metric (the cost per run, or a serving workload's cost
        # per million output tokens) and the tier, per candidate; an option that does not
        # carry the serving workload has no cost per token (its NPV stands in, not reported)
        self.has_metric = {cid: metric_applies(result, cid, metric) for cid in self.cands}
        self._name_targets(result, metric)
        # an option carrying a part of the plan ranks in tier 1 but never leads: it is
        # recommended only in a portfolio (tco.recommend), so it is never "the cheapest"
        plan = [wid for wid, *_rest in result.structure.workloads]
        self.parts = {cid for cid in self.cands if cid not in self.portfolios
                      and not all(result.candidate(cid).info.carries(w) for w in plan)}
        if not self.cands:
            raise TcoError("no feasible candidate to simulate")
        base = baseline_values(result)
        # Which inputs reach the results at all: compile with every ranged input varying.
        distributions = scenario_distributions(result)
        ranged = ranged_inputs(result, distributions)
        # (first row, candidate ids, the model of their results): a group's results read
        # only its own candidates' formulas and the shared inputs
        self.groups: list[tuple[int, list[str], Compiled | None]] = []
        size = max(1, group or len(self.cands))
        # twins (tco/twins.py) are compiled once per group, for every member
        self.twins: list[tuple[Twins, Compiled]] = []
        self.twin_of: dict[str, tuple[int, int]] = {}  # candidate -> (twins, member row)
        self.twin_reads: list[frozenset[str]] = []  # the varying inputs each reads
        read: set[str] = set()
        if twins.GROUPED:
            read |= self._compile_twins(result, base, ranged, distributions)
        read |= self._compile_groups(result, base, ranged, size)
        # the cheapest plan (tco.plan), held fixed and re-costed in every draw: its money's
        # trees read the option's unit costs, which read the drawn inputs
        self.fixed_plan = fixed_plan(result, base, ranged)
        if self.fixed_plan is not None:
            read |= self.fixed_plan[1].inputs_read
        self.plan = plan_draws(result, read)
        self.varied = [p for d in self.plan for p in d.paths]
        self.following = tied(ties(result.inputs))  # the inputs that take another's draw
        # ranged inputs that are not drawn (they reach no result) stay at their baseline
        drawn = set(self.varied)
        self.fixed = {p: base[p] for p in ranged if p not in drawn}
        self.sampler = Sampler(self.plan)
        # (seed, chunk, draws) -> each block's draws of every quantity, kept (_sampled)
        self.kept: dict[tuple[int, int, int], list[tuple[int, dict[int, np.ndarray]]]] = {}
        self.row_of = {p: row for row, d in enumerate(self.plan) for p in d.paths}  # path -> Draw
        self.warnings = draw_warnings(result, self.plan)
        self.rows = [self._drawn_for(ids, compiled) for _first, ids, compiled in self.groups]
        self.plan_rows = ([] if self.fixed_plan is None
                          else self._drawn_for([], self.fixed_plan[1]))
        # the plan's inputs that reach its NPV are drawn; the others are never read
        self.plan_unread = ({} if self.fixed_plan is None else
                            {p: 0.0 for p in self.fixed_plan[1].varying
                             if p not in self.fixed_plan[1].inputs_read})
        self.same = self._same_numbers()

    def _name_targets(self, result: Result, metric: str) -> None:
        """Each candidate's targets (`names`): its NPV, its metric, the tier and the NPV it is
        ranked by in a draw, and that NPV on the decision basis; with the portfolios and the
        per-token APIs appended to `cands`."""
        # The NPV with its shortfall closed (methodology §8) where the model prices it, with
        # the tier of the plan so closed: a draw short of the plan ranks at those, never
        # dropped (the NPV and the tier stand in where the shortfall has no price). Each draw
        # is ranked on the NPV the options are ranked on (`basis`: after income tax when
        # finance.decision_basis is after_tax, as tco compare ranks them), the shortfall
        # closed likewise; the bands stay the NPV before tax.
        exprs = result.model.expressions()
        self.basis = result.structure.decision_basis
        after = "_after_tax" if self.basis == "after_tax" else ""
        closes = {cid: f"{cid}.npv_tco_plan_closed" in exprs for cid in self.cands}
        self.names = {cid: (metric_name(result, cid, "npv_tco"),
                            metric_name(result, cid, metric if self.has_metric[cid]
                                        else "npv_tco"),
                            f"{cid}.tier_plan_closed" if closes[cid] else f"{cid}.tier",
                            f"{cid}.npv_tco_plan_closed" if closes[cid] else f"{cid}.npv_tco",
                            f"{cid}.npv_tco_plan_closed{after}" if closes[cid]
                            else f"{cid}.npv_tco{after}")
                      for cid in self.cands}
        # portfolios rank beside the options on the same (tier, NPV), as the recommendation
        # reads them; they have no one run: their cost per run stays nan
        self.portfolios = feasible_portfolios(result)
        self.cands += self.portfolios
        self.names.update({pid: (f"{pid}.npv_tco", f"{pid}.npv_tco", f"{pid}.tier",
                                 f"{pid}.npv_tco", f"{pid}.npv_tco{after}")
                           for pid in self.portfolios})
        self.has_metric.update({pid: False for pid in self.portfolios})
        # per-token API options rank beside them too, with the metric where they carry it
        apis = feasible_apis(result)
        self.cands += apis
        self.has_metric.update({aid: metric_applies(result, aid, metric) for aid in apis})
        self.names.update({aid: (f"{aid}.npv_tco", metric_name(
            result, aid, metric if self.has_metric[aid] else "npv_tco"), f"{aid}.tier",
            f"{aid}.npv_tco", f"{aid}.npv_tco{after}") for aid in apis})

    def _compile_groups(self, result: Result, base: dict[str, float], ranged: list[str],
                        size: int) -> set[str]:
        """Each group of at most `size` candidates (in ranking order) compiled over the ranged
        inputs its results read, twins aside (compiled once, _compile_twins); the inputs read."""
        read: set[str] = set()
        for first in range(0, len(self.cands), size):
            ids = self.cands[first:first + size]
            rest = [cid for cid in ids if cid not in self.twin_of]
            if not rest:
                self.groups.append((first, ids, None))
                continue
            targets = [n for cid in rest for n in self.names[cid]]
            sub = result.model.feeding(targets)
            used = sub.inputs_used()
            reach = set(used)
            compiled = Compiled(sub, {p: base[p] for p in used},
                                [p for p in ranged if p in reach], targets, env=result.env)
            self.groups.append((first, ids, compiled))
            read |= compiled.inputs_read
        return read

    def _same_numbers(self) -> dict[str, str]:
        """Twin -> the first twin (in ranking order) whose numbers are the same in every draw:
        compiled together, with the same constants and the same draws of their own inputs (one
        catalog figure is one draw). Its results are computed once and its summary made once."""
        row_of = self.row_of
        first: dict[tuple[object, ...], str] = {}
        same = {}
        for cid in self.cands:
            if cid not in self.twin_of:
                continue
            unit, member = self.twin_of[cid]
            part, compiled = self.twins[unit]
            draws = tuple(row_of[part.names(p)[member]] for p in compiled.varying
                          if p in self.twin_reads[unit] and part.own(p))
            same[cid] = first.setdefault((unit, compiled.member_key(member), draws), cid)
        return same

    def _drawn_for(self, ids: list[str], compiled: Compiled | None) -> list[int]:
        """The quantities (rows of the plan) the candidates `ids` read, in plan order."""
        row_of = self.row_of
        read = set(compiled.inputs_read) if compiled is not None else set()
        for cid in ids:
            if cid in self.twin_of:
                unit, member = self.twin_of[cid]
                part = self.twins[unit][0]
                read |= {part.names(p)[member] if part.own(p) else p
                         for p in self.twin_reads[unit]}
        return sorted({row_of[p] for p in read if p in row_of})

    def _compile_twins(self, result: Result, base: dict[str, float], ranged: list[str],
                       distributions: dict[str, dict[str, object]]) -> set[str]:
        """Compile each group of at least TWINS_MIN twins once (the inputs it reads back).

        Members of one compiled group vary the same inputs, and only inputs that are drawn
        vary (a structural or whole-number input keeps its value), so each member's formulas
        see arrays and numbers where its own would."""
        model = result.model
        drawn = {p for p in ranged if not result.inputs[p].spec.structural
                 and (p in distributions or not result.inputs[p].spec.integer)}
        read: set[str] = set()
        for group in twins.groups(model, self.cands):
            if len(group.members) < TWINS_MIN:
                continue
            t = group.template
            targets = list(self.names[t])
            if any([self.names[m][k] for m in group.members] != group.names(targets[k])
                   for k in range(len(targets))):
                continue
            sub = model.feeding(targets)
            used = sub.inputs_used()
            names = {n: group.names(n) for n in used}
            patterns: dict[tuple[str, ...], list[str]] = {}
            for i, m in enumerate(group.members):
                patterns.setdefault(tuple(n for n in used if names[n][i] in drawn), []).append(m)
            for varying, members in patterns.items():
                if len(members) < TWINS_MIN:
                    continue
                part = group.subset(members)
                compiled = Compiled(sub, {}, varying, targets, env=result.env, twins=part)
                for row, m in enumerate(members):
                    self.twin_of[m] = (len(self.twins), row)
                self.twins.append((part, compiled))
                self.twin_reads.append(compiled.inputs_read)
                read |= {n for p in compiled.inputs_read for n in part.names(p)}
        return read

    def evaluate_twins(self, ids: list[str], inputs: dict[str, np.ndarray],
                       env: dict[str, Value]) -> None:
        """Into `env`: the targets of the twins among `ids` for one block of drawn `inputs`,
        by the members' own names, TWINS_AT_ONCE members at a time (those with the same
        numbers as an earlier one, `same`, take its results)."""
        by_unit: dict[int, list[tuple[int, str]]] = {}
        for cid in ids:
            if cid in self.twin_of:
                unit, row = self.twin_of[cid]
                by_unit.setdefault(unit, []).append((row, cid))
        for unit, members in by_unit.items():
            part, compiled = self.twins[unit]
            template, reads = part.template, self.twin_reads[unit]
            distinct = list(dict.fromkeys(self.twin_of[self.same[cid]][1] for _r, cid in members))
            got_of: dict[int, tuple[dict[str, Value], int]] = {}  # member -> (results, row)
            for first in range(0, len(distinct), TWINS_AT_ONCE):
                chunk = distinct[first:first + TWINS_AT_ONCE]
                rows = np.array(chunk)
                block: dict[str, Value] = {}
                for p in compiled.varying:
                    if p not in reads:  # reaches no target: not drawn, never read
                        block[p] = 0.0
                    elif part.own(p):
                        paths = part.names(p)
                        block[p] = np.stack([inputs[paths[r]] for r in rows])
                    else:
                        block[p] = inputs[p]
                got = compiled.evaluate_block(block, rows)
                got_of.update({r: (got, j) for j, r in enumerate(chunk)})
            for _r, cid in members:
                got, j = got_of[self.twin_of[self.same[cid]][1]]
                for k, name in enumerate(self.names[template]):
                    value = got[name]
                    env[self.names[cid][k]] = (value[j] if isinstance(value, np.ndarray)
                                               and value.ndim == 2 else value)

    def blocks(self, seed: int, k: int, draws: int, rows: list[int] | None = None
               ) -> Iterator[tuple[int, dict[str, np.ndarray]]]:
        """(first draw index, inputs) for each block of chunk k, from chunk k's own stream:
        every drawn input, or those of the quantities `rows` (Sampler.sample)."""
        for start, values in self._sampled(seed, k, draws, rows):
            yield start, {p: x for i, x in values.items() for p in self.plan[i].paths}

    def _sampled(self, seed: int, k: int, draws: int, rows: list[int] | None
                 ) -> Iterator[tuple[int, dict[int, np.ndarray]]]:
        """(first draw index, quantity -> values) for each block of chunk k. Where several
        passes read the draws (the groups of candidates, in one process) and every
        quantity's draws fit in KEEP_DRAWN_BYTES, the first pass draws them all and keeps
        them, and the others take theirs from those (the same values: Sampler.sample)."""
        first, last = k * CHUNK, min((k + 1) * CHUNK, draws)
        kept = self.kept.get((seed, k, draws))
        if kept is None:
            rng = np.random.Generator(np.random.PCG64(seed).jumped(k))
            # one pass per group (the fixed plan is evaluated in the last group's)
            passes = len(self.groups)
            if (passes < 2 or not self.keep_drawn
                    or draws * len(self.plan) * 8 > KEEP_DRAWN_BYTES):
                for start in range(first, last, BLOCK):
                    yield start, self.sampler.sample(rng, min(BLOCK, last - start), rows)
                return
            kept = self.kept[(seed, k, draws)] = [
                (start, self.sampler.sample(rng, min(BLOCK, last - start)))
                for start in range(first, last, BLOCK)]
        for start, values in kept:
            yield start, values if rows is None else {i: values[i] for i in rows}


def drawn_inputs(result: Result, draws: int, seed: int, metric: str = "cost_per_job"
                 ) -> dict[str, np.ndarray]:
    """The input values `montecarlo` (with `metric`) draws, all of them (for checks and
    audits)."""
    sim = Simulation(result, metric=metric)
    out = {p: np.empty(draws) for p in sim.varied}
    for k in range(-(-draws // CHUNK)):
        for start, inputs in sim.blocks(seed, k, draws):
            for p, x in inputs.items():
                out[p][start:start + len(x)] = x
    return out


def check_seed(seed: object) -> int:
    """A seed: a whole number from 0 up (the random generator takes no negative seed)."""
    return check_whole(seed, "--seed", 0)


def memory_limit() -> int:
    """MEMORY_LIMIT, or half the machine's memory when that is less (where it is known)."""
    try:
        physical = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return MEMORY_LIMIT
    return min(MEMORY_LIMIT, physical // 2) if physical > 0 else MEMORY_LIMIT


def _gib(n: float) -> str:
    return f"{n / 2**30:,.1f} GiB"


def check_draws(draws: object, candidates: int) -> int:
    """At least one draw, and no more than the kept draws of `candidates` fit in memory."""
    draws = check_whole(draws, "--draws", 1)
    per_draw = KEPT_PER_DRAW * max(candidates, 1)
    limit = memory_limit()
    if draws * per_draw > limit:
        raise TcoError(
            f"--draws {draws:,}: keeping every draw of {candidates} candidate(s) needs "
            f"{_gib(draws * per_draw)} of memory ({per_draw} bytes a draw); the limit is "
            f"{_gib(limit)}, which allows at most {limit // per_draw:,} draws for this scenario")
    return draws


def group_size(draws: int) -> int:
    """Candidates evaluated together: their NPV and cost-per-run draws fit in GROUP_BYTES."""
    return max(1, min(GROUP_MAX, GROUP_BYTES // (16 * draws)))


def montecarlo(result: Result, draws: int, seed: int = 1,
               progress: Callable[[int], None] | None = None,
               metric: str = "cost_per_job") -> MonteCarlo:
    """Draws of every uncertain input of `result`'s scenario, evaluated as arrays: the NPV of
    TCO and `metric` (the cost per run of the primary workload, or
    `cost_per_million_output_tokens` of the first serving workload) of every candidate."""
    seed = check_seed(seed)
    draws = check_whole(draws, "--draws", 1)
    metric = check_metric(metric, MC_METRICS)
    workers = Workers(-(-draws // CHUNK))
    sim = Simulation(result, group_size(draws), metric, keep_drawn=not workers.processes)
    cands = sim.cands
    check_draws(draws, len(cands))
    lead = Leader(draws, workers.array)
    samples: dict[str, np.ndarray] = {}
    stats: dict[str, tuple[dict[str, float], dict[str, float]]] = {}  # NPV, metric
    short: dict[str, float] = {}  # draws ranked at the NPV with the shortfall closed
    ranked: dict[str, float] = {}  # draws in which it may rank first
    evaluated = reported = 0  # candidate-draws; draws reported to `progress`

    def tick(n: int) -> None:  # n more candidate-draws; the whole run is `draws` steps
        nonlocal evaluated, reported
        evaluated += n
        if progress is not None:
            progress(evaluated // len(cands) - reported)
            reported = evaluated // len(cands)

    # the fixed plan's NPV in every draw: evaluated on the last group's draws (drawn once)
    plan_npv = None if sim.fixed_plan is None else workers.array((2, draws))
    for group, (first, ids, compiled) in enumerate(sim.groups):
        last = group == len(sim.groups) - 1
        npv, job, shorts, ranks = evaluate_group(sim, group, lead, draws, seed, workers, tick,
                                                 plan_npv if last else None)
        short.update({cid: float(shorts[row]) / draws for row, cid in enumerate(ids)})
        ranked.update({cid: float(ranks[row]) / draws for row, cid in enumerate(ids)})
        samples.update({cid: npv[row, :SAMPLES_KEPT].copy() for row, cid in enumerate(ids)})
        # twins with the same numbers as an earlier candidate have its summaries
        own = [row for row, cid in enumerate(ids) if sim.same.get(cid, cid) == cid]
        got = summaries([a for row in own for a in (npv[row], job[row])])
        stats.update({ids[row]: (got[2 * k], got[2 * k + 1]) for k, row in enumerate(own)})
        stats.update({cid: stats[sim.same[cid]] for cid in ids if cid not in stats})
        del npv, job
    plan_band = None if plan_npv is None else band_of_plan(sim, lead, plan_npv)
    counts = lead.counts(len(cands))

    percentiles = {cid: {"npv_tco": dict(stats[cid][0]),
                         **({metric: dict(stats[cid][1])} if sim.has_metric[cid] else {})}
                   for cid in cands}
    # the point estimate of the same figures the draws give (the NPV of delivering the plan)
    deterministic = {cid: {"npv_tco": point_npv(sim, result, cid),
                           **({metric: metric_value(result, cid, metric)}
                              if sim.has_metric[cid] else {})}
                     for cid in cands if cid not in sim.portfolios}
    for pid in sim.portfolios:  # no one run, no one cost per token: the NPV only
        deterministic[pid] = {"npv_tco": portfolio_of(result, pid).values["npv_tco"]}
    return MonteCarlo(
        draws=draws, seed=seed, varied=sim.varied, percentiles=percentiles,
        prob_cheapest={cid: float(counts[row]) / draws for row, cid in enumerate(cands)},
        samples=samples,
        currency=result.currency, deterministic=deterministic,
        # inputs of several candidates that take one draw (an input tied to another takes
        # its draw too, common.ties, but is no candidate's own)
        shared=[own for d in sim.plan
                if len(own := [p for p in d.paths if p not in sim.following]) > 1],
        warnings=sim.warnings, metric=metric, short_share=short, ranked_share=ranked,
        outside=points_outside(result, sim.plan, percentiles, deterministic,
                               {cid: (sim.names[cid][3], sim.names[cid][1])
                                for cid in cands if cid not in sim.portfolios}, metric),
        plan=plan_band, basis=sim.basis,
    )


class Workers:
    """How the chunks of draws are spread: over THREADS forked processes where this
    platform can fork and there are several chunks (tco/forked.py: threads would
    hand Python's lock to each other at every numpy call of the evaluator), else over as
    many threads. The arrays the chunks fill are made here: shared with the processes."""

    def __init__(self, chunks: int) -> None:
        self.processes = THREADS > 1 and chunks > 1 and forked.can_fork()

    def array(self, shape: tuple[int, ...], fill: float | None = None,
              dtype: Any = float) -> np.ndarray:
        if self.processes:
            return forked.shared_array(shape, fill, dtype)
        return np.empty(shape, dtype) if fill is None else np.full(shape, fill, dtype)

    def map(self, fn: Callable[[int], T], items: Iterable[int]) -> Iterator[T]:
        """fn of each item; in no particular order."""
        if self.processes:
            yield from forked.fork_map(fn, items, THREADS)
            return
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            yield from pool.map(fn, items)


def point_npv(sim: Simulation, result: Result, cid: str) -> float:
    """The point estimate (no draw) of the NPV the draws give (`ranked`): the NPV of
    delivering the plan, with the shortfall closed where the model prices it."""
    closed = sim.names[cid][3]  # <id>.npv_tco_plan_closed, or <id>.npv_tco
    return float(result.candidate(cid).values[closed.rsplit(".", 1)[1]])


def evaluate_group(sim: Simulation, group: int, lead: Leader, draws: int, seed: int,
                   workers: Workers, tick: Callable[[int], None],
                   plan_npv: np.ndarray | None = None
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """NPV of TCO (of delivering the plan: `ranked`) and cost per run of the candidates of
    `sim.groups[group]` for every draw, the chunks of draws spread over `workers`
    (`tick` hears how many candidate-draws each one did); the cheapest so far goes into
    `lead`. Also, per candidate, the draws in which it fell short of the plan and was
    priced with its shortfall closed, and those in which it could rank first. With
    `plan_npv`, the fixed plan's NPV of each draw goes into it, from the same draws."""
    first, ids, compiled = sim.groups[group]
    names = sim.names
    npv = workers.array((len(ids), draws))
    job = workers.array((len(ids), draws))
    # inputs that reach none of the group's targets are not drawn for it: never read
    unread = {} if compiled is None else {p: 0.0 for p in compiled.varying
                                          if p not in compiled.inputs_read}
    rows = sim.rows[group]
    if plan_npv is not None:
        rows = sorted(set(rows) | set(sim.plan_rows))

    def run_chunk(k: int) -> tuple[int, np.ndarray, np.ndarray]:
        shorts, ranks = np.zeros(len(ids)), np.zeros(len(ids))
        for start, inputs in sim.blocks(seed, k, draws, rows):
            env = {} if compiled is None else compiled.evaluate_block(
                {**unread, **sim.fixed, **inputs})
            sim.evaluate_twins(ids, inputs, env)
            stop = min(start + BLOCK, (k + 1) * CHUNK, draws)
            if plan_npv is not None:
                plan_npv[:, start:stop] = plan_value(sim, inputs, stop - start)
            tiers, on_basis = [], np.empty((len(ids), stop - start))
            for row, cid in enumerate(ids):
                value, tier, short = ranked(sim, cid, env, stop - start)
                npv[row, start:stop] = value
                on_basis[row] = value if sim.basis != "after_tax" else env[names[cid][4]]
                job[row, start:stop] = (np.nan if cid in sim.portfolios
                                        else env[names[cid][1]])
                tiers.append(tier)
                shorts[row] += np.count_nonzero(short)
                ranks[row] += np.count_nonzero(tier < LEADING_TIERS)
            lead.update(start, first, on_basis, tiers)
        return min((k + 1) * CHUNK, draws) - k * CHUNK, shorts, ranks

    shorts, ranks = np.zeros(len(ids)), np.zeros(len(ids))
    for done, s, r in workers.map(run_chunk, range(-(-draws // CHUNK))):
        tick(done * len(ids))
        shorts += s
        ranks += r
    return npv, job, shorts, ranks


def plan_value(sim: Simulation, inputs: dict[str, np.ndarray], n: int) -> np.ndarray:
    """The fixed plan's NPV for one block of n drawn `inputs`: before tax, and on the basis
    the options are ranked on (the same row again when that is before tax)."""
    assert sim.fixed_plan is not None
    compiled = sim.fixed_plan[1]
    env = compiled.evaluate_block({**sim.plan_unread, **sim.fixed, **inputs})
    return np.stack([np.broadcast_to(np.asarray(env[compiled.targets[k]], dtype=float), (n,))
                     for k in (0, -1)])


def band_of_plan(sim: Simulation, lead: Leader, both: np.ndarray) -> PlanBand:
    """The fixed plan's band from its NPV in every draw (the same draws as the options'),
    `both` its NPV before tax (row 0) and on the decision basis (row 1): the percentiles of
    the first, and the share of draws in which the second is no more than the option ranked
    first there (`lead`, every group evaluated, on the same basis). Reorders `both[0]`."""
    assert sim.fixed_plan is not None
    plan = sim.fixed_plan[0]
    npv = both[0]
    cheaper = float(np.count_nonzero(both[1] <= lead.npv)) / npv.size
    samples = npv[:SAMPLES_KEPT].copy()
    return PlanBand(id=plan.id, npv_tco=summary(npv), deterministic=plan.npv_tco,
                    cheaper_share=cheaper, samples=samples)


def ranked(sim: Simulation, cid: str, env: dict[str, Value], n: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One candidate's n draws as the ranking reads them: (the NPV of delivering the plan,
    the tier, whether it fell short). An option whose shortfall the model prices is never
    dropped for falling short of the plan in a draw: it ranks by the tier and NPV of the
    plan with its shortfall closed (`tier_plan_closed`, `npv_tco_plan_closed`: renting it,
    or buying the larger cluster where that costs less, methodology §8; its NPV when it
    delivers the plan), so that a hair's shortfall costs a hair, whether it made the option
    rank below (tier 1) or, for `cards: auto`, infeasible. A part of the plan never leads
    (tier inf)."""
    npv_name, _metric, tier_name, closed, _ranked_on = sim.names[cid]
    value = np.broadcast_to(np.asarray(env[closed], dtype=float), (n,))
    tier = np.broadcast_to(np.asarray(env[tier_name], dtype=float), (n,))
    if cid in sim.parts:
        tier = np.full(n, np.inf)
    if closed == npv_name:  # no price for the shortfall: short of the plan ranks below
        return value, tier, np.zeros(n, dtype=bool)
    return value, tier, value > np.asarray(env[npv_name], dtype=float)


def summaries(arrays: list[np.ndarray]) -> list[dict[str, float]]:
    """`summary` of each array, THREADS at a time (each a few long numpy calls: threads run
    them side by side). Reorders the arrays in place."""
    with ThreadPoolExecutor(max_workers=THREADS) as pool:
        return list(pool.map(summary, arrays))


def summary(x: np.ndarray) -> dict[str, float]:
    """P10/P50/P90 (numpy.percentile's, linear interpolation: tco/analysis/quantiles.py) and
    mean. Reorders `x` in place."""
    mean = float(np.mean(x))
    p10, p50, p90 = percentiles(x, (10, 50, 90))
    return {"p10": p10, "p50": p50, "p90": p90, "mean": mean}


def cheapest_counts(npv: np.ndarray, tiers: list[Value]) -> np.ndarray:
    """How many draws each candidate (rows of `npv`) ranks first in, ranked as `tco compare`
    ranks (tco.engine.rank): by the model's tier (`<id>.tier`, tco.model.tier_formula) in each
    draw, then NPV of TCO; a barred (tier 2) or infeasible (tier 3) candidate never ranks
    first."""
    lead = Leader(npv.shape[1])
    lead.update(0, 0, npv, tiers)
    return lead.counts(npv.shape[0])


class Leader:
    """For each draw, the candidate ranked first so far, as candidates (in ranking order,
    or in any order of whole groups of them) are added: `cheapest_counts` without holding
    every candidate's draws at once.

    Per draw it keeps the best tier seen (0 or 1: may be bought; barred or infeasible
    candidates never lead) and, among the candidates of that tier, the lowest NPV and its
    row; the first row wins a tie, and a nan NPV never wins."""

    def __init__(self, draws: int, array: Callable[..., np.ndarray] | None = None) -> None:
        """`array(shape, fill, dtype)` makes its arrays (Workers.array; default np.full)."""
        array = array or (lambda shape, fill, dtype: np.full(shape, fill, dtype))
        self.tier = array((draws,), np.inf, float)
        self.npv = array((draws,), np.inf, float)
        self.row = array((draws,), -1, np.int64)

    def update(self, start: int, first_row: int, npv: np.ndarray, tiers: list[Value]) -> None:
        """Candidates `first_row`, `first_row` + 1, ... (rows of `npv`, draws `start`...)."""
        n = npv.shape[1]
        stop = start + n
        best_tier, best, winner = (self.tier[start:stop], self.npv[start:stop],
                                   self.row[start:stop])
        for i in range(npv.shape[0]):
            tier = np.broadcast_to(np.asarray(tiers[i], dtype=float), (n,))
            tier = np.where(tier < LEADING_TIERS, tier, np.inf)
            lower = tier < best_tier  # a better tier: its candidates start again
            best_tier[lower] = tier[lower]
            best[lower] = np.inf
            winner[lower] = -1
            better = (tier == best_tier) & np.isfinite(tier) & (npv[i] < best)
            best[better] = npv[i][better]
            winner[better] = first_row + i

    def counts(self, candidates: int) -> np.ndarray:
        return np.bincount(self.row[self.row >= 0], minlength=candidates)
