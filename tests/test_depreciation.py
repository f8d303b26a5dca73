"""Book value and depreciation (methodology §6), defined once in tco/model/depreciation.py and
read by the horizon's residual value, a returned lease's use left, held stock's book value and
the hardware share of a run. Values below are worked by hand from the formula
book(age) = s + (1 - s) x MAX(0, 1 - age / life)."""

from pathlib import Path

import pytest

from tco.engine import compute
from tco.expr import Const, Ref
from tco.model.depreciation import (
    StraightLine,
    book_fraction,
    book_schedule,
    charge_fraction,
    market_curve,
)
from tco.scenario import load_scenario, load_scenario_text

ROOT = Path(__file__).resolve().parent.parent
FIVE_YEARS = {"finance.depreciation_years": 5.0, "finance.residual_value_fraction": 0.1}


@pytest.mark.parametrize(("age", "share"), [
    (0, 1.0), (1, 0.82), (2, 0.64), (2.5, 0.55), (5, 0.1), (7, 0.1)])
def test_straight_line_book_share_by_age(age, share):
    # 0.1 + 0.9 x (1 - age / 5), never below the salvage share 0.1
    assert book_fraction(age).evaluate(FIVE_YEARS) == pytest.approx(share, abs=1e-15)


def test_each_years_charge_is_the_book_value_lost_and_they_add_up_to_the_depreciable_cost():
    charges = [charge_fraction(t).evaluate(FIVE_YEARS) for t in range(1, 8)]
    assert charges[:5] == pytest.approx([0.18] * 5)  # 0.9 / 5 a year
    assert charges[5:] == [0.0, 0.0]  # past the life: nothing more
    assert sum(charges) == pytest.approx(0.9)


def test_a_schedule_is_a_parameter():
    """Another schedule, such as a tax one (issue 28): three years to nothing (China's
    minimum life for equipment above the one-time threshold), against the book's five."""
    tax = StraightLine(Const(3.0), Const(0.0))
    assert [charge_fraction(t, tax).evaluate({}) for t in (1, 2, 3, 4)] == pytest.approx(
        [1 / 3, 1 / 3, 1 / 3, 0.0])
    assert book_fraction(Ref("age"), tax).evaluate({"age": 1.5}) == pytest.approx(0.5)
    assert book_fraction(1.5).evaluate(FIVE_YEARS) == pytest.approx(0.73)  # the book's


def test_the_market_curve_is_convex_and_fits_the_used_h100_index(catalog):
    """The flagship class's typical curve 0.90 x 0.68^t: 0.612, 0.416, 0.283, 0.192, 0.131 at
    1-5 years (by hand: 0.9 x 0.68 = 0.612; x 0.68 = 0.41616; 0.28299; 0.19243; 0.13085),
    within 2.5 points of the GPU Lease Rate Index H100 midpoints 62.5/42.5/30/17.5/12.5 %
    (pricing/resale.yaml), where the book's straight line to 10 % over 5 years gives 0.46 at
    year 3."""
    curve = catalog.resale_curve("h100-sxm")
    env = {"candidates.x.resale_haircut_fraction": curve.haircut_fraction.best,
           "candidates.x.resale_retention_per_year": curve.retention_per_year.best}
    shares = [market_curve("x").book_fraction(t).evaluate(env) for t in range(1, 6)]
    assert shares == pytest.approx([0.612, 0.41616, 0.28299, 0.19243, 0.13085], abs=1e-5)
    for got, index in zip(shares, (0.625, 0.425, 0.30, 0.175, 0.125)):
        assert abs(got - index) < 0.025
    assert book_fraction(3).evaluate(FIVE_YEARS) == pytest.approx(0.46)
    assert catalog.resale_curve("a100-80gb-sxm").id == "previous-generation"


def _text(expr):
    return expr.excel(lambda name: name)  # the formula, names as they are


def test_the_model_reads_the_one_definition(example):
    """Each consumer's formula is the schedule's own: the residual share at the horizon and
    the hardware share of a run per cluster-hour (a bought option of the built-in example)."""
    cid = next(c.id for c in example.candidates if c.info.acquire == "buy")
    exprs = example.model.expressions()
    horizon = example.structure.horizon_years
    # resold on its card class's used-market curve when the catalog has one (pricing/resale.yaml)
    resale = (market_curve(cid).book_fraction(horizon) if cid in example.structure.resale_curve
              else book_fraction(horizon))
    assert _text(exprs[f"{cid}.residual_fraction"]) == _text(resale)
    capacity = Ref(f"{cid}.available_hours_per_year")
    assert _text(exprs[f"{cid}.hardware_cost_per_cluster_hour"]) == _text(book_schedule().charge_per(
        capacity, Ref(f"{cid}.hardware_capex") + Ref(f"{cid}.capex_storage"),
        Ref(f"{cid}.capex_cooling"), Ref(f"{cid}.capex_installation")))


def test_no_other_module_writes_a_book_value():
    """The life and the salvage share are read in tco/model/depreciation.py only (besides
    where the inputs are declared): a second book-value formula would have to read them."""
    readers = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tco").rglob("*.py")
                     if any(k in p.read_text(encoding="utf-8")
                            for k in ("depreciation_years", "residual_value_fraction")))
    # besides the inputs' declarations: a buyer profile's life is a catalog figure
    # (tco/catalog.py's Profile), listed (exporters/catalog_view.py) and taken as the input's
    # default (tco/profiles.py); resolution asks whether the scenario gives a salvage share
    # (tco/resolve/candidates.py: then the straight line, not the used-market curve); none of
    # them computes with it
    # (tco/analysis/settings.py keeps a salvage share the scenario did not give ungiven in a
    # what-if's copy; tco/resolve/candidates.py asks whether the scenario gives one)
    assert readers == ["tco/analysis/settings.py", "tco/catalog.py",
                       "tco/exporters/catalog_view.py", "tco/inputs.py",
                       "tco/model/depreciation.py", "tco/profiles.py",
                       "tco/resolve/candidates.py", "tco/scenario.py"]


def test_held_stock_and_a_returned_lease_use_the_book_schedule(catalog):
    """tests/data/lease_hand.yaml: life 4 years, salvage 0.2, horizon 3 years, a 36-month
    lease from month 1 (4-week lead time) returned at month 37: its use left at the horizon
    is the amount x (book(3) - book(37/12)) = 0.4 - 0.3875 = 0.0125 of it (book(3) = 0.2 +
    0.8 x 0.25 = 0.4). Held stock two years old: 0.2 + 0.8 x 0.5 = 0.6 of its new price."""
    lease = compute(load_scenario(ROOT / "tests/data/lease_hand.yaml"), catalog)
    v = lease.candidate("hand").values
    start_months = v["lease_commencement_months"]
    end = (start_months + 36) / 12
    share = (0.2 + 0.8 * (1 - 3 / 4)) - (0.2 + 0.8 * max(0.0, 1 - end / 4))
    assert v["lease_use_left"] == pytest.approx(v["lease_amount"] * share, rel=1e-12)
    text = (ROOT / "tests/data/cashflow_hand.yaml").read_text() + (
        "policy: {holds_stock: {mi300x: {cards: 4, age_years: 2, new_price_per_card: "
        "30000}}}\n")
    held = compute(load_scenario_text(text), catalog).candidate("hand").values
    assert held["held_book_value_per_card"] == pytest.approx(30_000 * 0.6, rel=1e-12)
    assert held["held_stock_value"] == pytest.approx(4 * 18_000, rel=1e-12)
