"""The expression layer: one definition evaluates with numpy and writes a spreadsheet formula."""

import numpy as np
import numpy_financial as npf
import pytest

from tco.expr import IF, MAX, MIN, NPV0, PMT, ROUNDUP, SUM, Const, Func, Ref

a, b, c = Ref("a"), Ref("b"), Ref("c")


def names(r):
    return r.name


def test_precedence_and_parentheses():
    assert ((a - (b - c)) / (b * c)).excel(names) == "(a-(b-c))/(b*c)"
    assert (a - b - c).excel(names) == "a-b-c"
    assert (a / (b / c)).excel(names) == "a/(b/c)"
    assert (-(a ** 2)).excel(names) == "-(a^2)"
    assert ((a + b) ** Const(0.5)).excel(names) == "(a+b)^0.5"


def test_functions_render_and_evaluate():
    e = MAX(a, b) * IF(a.gt(b), 1, 2) + MIN(a, c) + ROUNDUP(a / b)
    assert e.excel(names) == "MAX(a,b)*IF(a>b,1,2)+MIN(a,c)+ROUNDUP(a/b,0)"
    # a=3, b=2, c=1: MAX=3, IF(3>2)=1, MIN=1, ROUNDUP(1.5)=2 -> 3+1+2 = 6
    assert e.evaluate({"a": 3.0, "b": 2.0, "c": 1.0}) == 6.0


def test_arrays_broadcast_like_scalars():
    e = SUM(a * b, IF(a.le(b), a, b))
    arr = e.evaluate({"a": np.array([1.0, 5.0]), "b": 2.0})
    assert arr.tolist() == [1 * 2 + 1, 5 * 2 + 2]


def test_npv_first_flow_at_t0_matches_numpy_financial():
    flows = [-1000.0, 300.0, 400.0, 500.0]
    env = {"r": 0.08, **{f"f{i}": v for i, v in enumerate(flows)}}
    e = NPV0(Ref("r"), [Ref(f"f{i}") for i in range(4)])
    assert e.evaluate(env) == pytest.approx(npf.npv(0.08, flows), rel=1e-12)
    # The spreadsheet NPV discounts its first argument, so flow 0 stays outside it.
    assert e.excel(names) == "f0+NPV(r,f1,f2,f3)"


def test_pmt_matches_spreadsheet_sign():
    # Spreadsheet PMT(5%, 3, 1000) = -367.208564... (a payment, so negative)
    e = PMT(Ref("r"), 3, 1000)
    assert e.evaluate({"r": 0.05}) == pytest.approx(-367.2085646312, rel=1e-10)
    assert e.evaluate({"r": 0.0}) == pytest.approx(-1000 / 3)


def test_only_portable_functions():
    with pytest.raises(ValueError):
        Func("XLOOKUP", (a,))


def test_npv_on_arrays_equals_numpy_financial_per_draw():
    rates = np.array([0.0, 0.05, 0.12])
    flows = [np.array([-100.0, -200.0, -50.0]), 40.0, np.array([60.0, 90.0, 10.0])]
    env = {"r": rates, **{f"f{i}": v for i, v in enumerate(flows)}}
    got = NPV0(Ref("r"), [Ref(f"f{i}") for i in range(3)]).evaluate(env)
    for k in range(3):
        per_draw = [np.broadcast_to(f, 3)[k] for f in flows]
        assert got[k] == pytest.approx(npf.npv(rates[k], per_draw), rel=1e-12)
