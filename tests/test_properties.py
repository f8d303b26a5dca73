"""Properties of the TCO model that must hold for every input in range (hypothesis).

Strategies are in tests/strategies.py. Sweeps evaluate the model once on arrays: a (K, N) array
per swept input, row k moving only input k along N increasing values.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from strategies import (
    cash_flows,
    cost_paths,
    example,
    increases,
    money_paths,
    points,
    positive_scales,
    rates,
)

from tco.engine import compute
from tco.expr import NPV0, Const, Ref
from tco.scenario import Loaded

PROPERTY = settings(max_examples=30, deadline=None)


def running(env: dict, cid: str) -> bool:
    """The model's numbers mean something only when the cluster makes progress."""
    return all(float(np.asarray(v).reshape(-1)[0]) > 0 for k, v in env.items()
               if k.startswith(f"{cid}.") and k.endswith(".goodput"))


def non_decreasing(a: np.ndarray, axis: int = -1) -> bool:
    a = np.asarray(a, dtype=float)
    step = np.diff(a, axis=axis)
    return bool(np.all(step >= -1e-9 * np.maximum(np.abs(a).max(), 1.0)))


@PROPERTY
@given(point=points(), factors=increases)
def test_raising_any_cost_never_lowers_npv_or_cost_per_job(point: dict, factors: list[float]
                                                           ) -> None:
    ex = example()
    paths = cost_paths()
    grid = np.ones((len(paths), len(factors)))
    values = dict(point)
    for k, path in enumerate(paths):
        sweep = grid.copy()
        sweep[k] = factors
        base = point[path]
        # a zero cost (no licence, a CUDA team's porting) is raised from zero instead
        bump = base if base > 0 else ex.inputs[path].spec.hi * 0.01
        values[path] = base + bump * (sweep - 1.0)
    env = ex.model.evaluate(values)
    # Porting effort is a cost and also sets how long porting takes (methodology §6, timeline):
    # more of it delays the first useful work, so the option may deliver less of the plan (or
    # later), and spend less on power for it. Its NPV may then fall; what it costs per run
    # delivered may not, nor may its shortfall, except for a rented option: a committed
    # reservation is paid for every hour from the port on, so a later port shortens it while
    # the backlog is caught up on its idle hours (methodology §10, take-or-pay).
    timed = [k for k, path in enumerate(paths) if path.endswith(".porting_engineer_months")]
    costs = [k for k in range(len(paths)) if k not in timed]
    for cid in ex.candidates:
        if not running(env, cid):
            continue
        npv = np.broadcast_to(env[f"{cid}.npv_tco"], grid.shape)
        assert non_decreasing(npv[costs]), (cid, [paths[costs[k]] for k in np.nonzero(
            np.diff(npv[costs], axis=1).min(axis=1) < 0)[0]])
        # (over the points that deliver any work: the cost of a run delivered is 0 by
        # convention when none is, methodology §8)
        per_run = np.broadcast_to(env[f"{cid}.cost_per_run_horizon"], grid.shape)
        some = np.broadcast_to(env[f"{cid}.discounted_work_years"], grid.shape) > 0
        rents = ex.resolved.candidates[cid].acquire == "rent"
        falls = [paths[k] for k in range(len(paths)) if not (rents and k in timed)
                 and not non_decreasing(per_run[k][some[k]])]
        assert not falls, (cid, falls)
        short = np.broadcast_to(env[f"{cid}.plan_shortfall_runs"], grid.shape)
        assert non_decreasing(short), cid
        # not vacuous: the candidate's own card price strictly raises its NPV
        if ex.resolved.candidates[cid].acquire == "buy":
            own = paths.index(f"candidates.{cid}.card_price")
            assert npv[own, -1] > npv[own, 0] or factors[-1] < 1 + 1e-9  # (above float noise)
        # a rented option's run is priced at the rent it pays per card-hour used (issue 27):
        # a later port leaves fewer idle hours of a reservation, as for its horizon view
        moved = costs if rents else list(range(len(paths)))
        for wid in ex.workloads:
            job = np.broadcast_to(env[f"{cid}.{wid}.cost_per_job"], grid.shape)[moved]
            assert non_decreasing(job), (cid, wid, [paths[moved[k]] for k in np.nonzero(
                np.diff(job, axis=1).min(axis=1) < 0)[0]])


@PROPERTY
@given(point=points(), factors=increases)
def test_more_tokens_never_lowers_cost_per_job(point: dict, factors: list[float]) -> None:
    ex = example()
    values = dict(point)
    for wid in ex.workloads:
        values[f"workloads.{wid}.tokens"] = point[f"workloads.{wid}.tokens"] * np.array(factors)
    env = ex.model.evaluate(values)
    for cid in ex.candidates:
        if not running(env, cid):
            continue
        # a rented reservation is paid for every hour and its runs at that rent over the hours
        # used (issue 27): longer runs within the reserved hours cost no more
        reserved = (f"{cid}.rent_on_demand" in env
                    and not np.all(np.asarray(env[f"{cid}.rent_on_demand"])))
        for wid in ex.workloads:
            cost = np.asarray(env[f"{cid}.{wid}.cost_per_job"])
            assert non_decreasing(cost), (cid, cost)
            if factors[-1] > 1.0 + 1e-6 and not reserved:
                assert cost[-1] > cost[0]


@PROPERTY
@given(point=points(), k=positive_scales)
def test_electricity_cost_scales_linearly_with_the_tariff(point: dict, k: float) -> None:
    ex = example()
    tariff = point["facility.electricity_price_per_kwh"]
    values = {**point, "facility.electricity_price_per_kwh": tariff * np.array([1.0, 2.0, k])}
    env = ex.model.evaluate(values)
    for cid in ex.candidates:
        # (a rented option's electricity is a constant 0: in the rental price)
        yearly = np.broadcast_to(env[f"{cid}.electricity_per_year"], (3,))
        assert yearly[2] == pytest.approx(k * yearly[0], rel=1e-12)
        for wid in ex.workloads:
            job = np.broadcast_to(env[f"{cid}.{wid}.cost_electricity"], (3,))
            assert job[2] == pytest.approx(k * job[0], rel=1e-12)
        # everything else is independent of the tariff: the NPV is affine in it
        npv = np.broadcast_to(env[f"{cid}.npv_tco"], (3,))
        assert npv[2] - npv[0] == pytest.approx((k - 1.0) * (npv[1] - npv[0]), rel=1e-9,
                                                abs=1e-6 * abs(npv[0]))


@PROPERTY
@given(point=points())
def test_npv_at_zero_discount_rate_is_the_undiscounted_total(point: dict) -> None:
    ex = example()
    env = ex.model.evaluate({**point, "finance.discount_rate": 0.0})
    horizon = ex.resolved.structure.horizon_years
    for cid in ex.candidates:
        npv = env[f"{cid}.npv_tco"]
        flows = [env[f"{cid}.y{t}.net"] for t in range(horizon + 1)]
        assert npv == pytest.approx(env[f"{cid}.undiscounted_tco"], rel=1e-12)
        assert npv == pytest.approx(math.fsum(flows), rel=1e-12)
        assert env[f"{cid}.equivalent_annual_cost"] == pytest.approx(npv / horizon, rel=1e-12)
        if f"{cid}.cloud_npv" in env:
            rent = (env[f"{cid}.porting_one_time"] + env[f"{cid}.cloud_delay_cost"] + horizon * (
                env[f"{cid}.cloud_rent_per_year"] + env[f"{cid}.porting_maintenance_per_year"]))
            assert env[f"{cid}.cloud_npv"] == pytest.approx(rent, rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(flows=cash_flows, rate=rates)
def test_a_zero_year_at_the_end_does_not_change_npv(flows: list[float], rate: float) -> None:
    env = {"r": rate}
    before = NPV0(Ref("r"), [Const(f) for f in flows]).evaluate(env)
    after = NPV0(Ref("r"), [Const(f) for f in flows] + [Const(0.0)]).evaluate(env)
    # Equal up to summation order (numpy-financial sums pairwise): a few ulps at most.
    assert after == pytest.approx(before, rel=1e-14, abs=1e-300)
    # and at a 0% rate the NPV is the plain sum
    assert NPV0(Const(0.0), [Const(f) for f in flows]).evaluate({}) == pytest.approx(
        math.fsum(flows), rel=1e-12, abs=1e-6)


@PROPERTY
@given(point=points(), scale=positive_scales)
def test_money_inputs_scale_money_outputs_and_nothing_else(point: dict, scale: float) -> None:
    """Homogeneity: the model has no money constants, so a currency is only a unit."""
    ex = example()
    scaled = dict(point)
    for path in money_paths():
        scaled[path] = point[path] * scale
    base, env = ex.model.evaluate(point), ex.model.evaluate(scaled)
    cur = ex.resolved.structure.currency
    for q in ex.model:
        money = q.unit == cur or q.unit.startswith(f"{cur}/")
        want = base[q.name] * (scale if money else 1.0)
        assert np.isclose(env[q.name], want, rtol=1e-9, atol=1e-9 * scale), (q.name, q.unit)


@pytest.mark.parametrize("currency", ["CNY", "EUR"])
def test_currency_round_trip_through_the_engine(currency: str) -> None:
    """Run the example in USD; convert the scenario's money to `currency` at the catalog rate
    and run it in that currency (resolve converts the catalog's USD figures); every money
    output divided by the rate equals the USD output to 1e-9."""
    ex = example()
    rate = ex.catalog.usd_to(currency)
    sc = ex.loaded.scenario
    converted = sc.model_copy(update={
        "currency": currency,
        "cost_of_delay_per_week": sc.cost_of_delay_per_week * rate,
        "team": sc.team.model_copy(update={
            "engineer_cost_per_month": sc.team.engineer_cost_per_month * rate}),
    })
    usd = compute(ex.loaded, ex.catalog)
    other = compute(Loaded(converted, ex.loaded.doc), ex.catalog)
    units = {q.name: q.unit for q in other.model}
    assert [c.id for c in other.candidates] == [c.id for c in usd.candidates]
    checked = 0
    for a, b in zip(usd.candidates, other.candidates):
        assert (a.feasible, a.reasons) == (b.feasible, b.reasons)
        pairs = [(f"{a.id}.{k}", a.values[k], b.values[k]) for k in a.values]
        pairs += [(f"{a.id}.{w}.{k}", a.jobs[w][k], b.jobs[w][k]) for w in a.jobs
                  for k in a.jobs[w]]
        pairs += [(f"{a.id}.y{t}.{k}", row[k], b.yearly[t][k])
                  for t, row in enumerate(a.yearly) for k in row if k != "year"]
        for name, in_usd, in_other in pairs:
            unit = units[name]
            money = unit == currency or unit.startswith(f"{currency}/")
            back = in_other / rate if money else in_other
            assert math.isclose(back, in_usd, rel_tol=1e-9, abs_tol=1e-6), (name, unit)
            checked += money
    assert checked > 500  # most outputs are money: the comparison is not vacuous
