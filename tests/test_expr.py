"""The expression layer: one definition evaluates with numpy and writes a spreadsheet formula."""

import math

import numpy as np
import numpy_financial as npf
import pytest

from tco.expr import AND, IF, MAX, MIN, NPV0, PMT, ROUNDDOWN, ROUNDUP, SUM, Const, Func, Ref

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


def test_npv_inside_a_product_keeps_its_sum_together():
    # f0+NPV(...) is a sum: a*(f0+NPV(r,f1)), never a*f0+NPV(r,f1) (the single-file writer
    # gave it the precedence of a name, which no formula of the model happened to need).
    npv = NPV0(Ref("r"), [b, c])
    assert (a * npv).excel(names) == "a*(b+NPV(r,c))"
    assert (a - npv).excel(names) == "a-(b+NPV(r,c))"
    assert (npv - a).excel(names) == "b+NPV(r,c)-a"
    # a=2, r=10%, flows 1 then 1.1: NPV = 1 + 1.1/1.1 = 2, so a*NPV = 4
    assert (a * npv).evaluate({"a": 2.0, "r": 0.1, "b": 1.0, "c": 1.1}) == pytest.approx(4.0)


def test_pmt_matches_spreadsheet_sign():
    # Spreadsheet PMT(5%, 3, 1000) = -367.208564... (a payment, so negative)
    e = PMT(Ref("r"), 3, 1000)
    assert e.evaluate({"r": 0.05}) == pytest.approx(-367.2085646312, rel=1e-10)
    assert e.evaluate({"r": 0.0}) == pytest.approx(-1000 / 3)


def test_only_portable_functions():
    with pytest.raises(ValueError):
        Func("XLOOKUP", (a,))


def test_every_function_has_each_backend():
    """A function added to the trees needs a float and an array implementation and must be one
    the spreadsheets know; a node kind needs a formula writer."""
    from tco.expr import FUNCTIONS, arrays, floats, formula, tree

    assert set(floats.FUNCTIONS) == set(arrays.FUNCTIONS) == FUNCTIONS
    assert FUNCTIONS <= formula.EXCEL_SAFE
    assert set(floats.BINARY) == set(arrays.BINARY)
    nodes = {cls for cls in vars(tree).values()
             if isinstance(cls, type) and issubclass(cls, tree.Expr) and cls is not tree.Expr}
    assert nodes == set(formula._WRITERS)


def test_a_node_kind_without_a_writer_is_refused():
    from dataclasses import dataclass

    from tco.expr import Expr

    @dataclass(frozen=True, eq=False)
    class Twice(Expr):
        arg: Expr

        def children(self):
            return (self.arg,)

        def apply(self, vals):
            return 2 * vals[0]

    assert Twice(a).evaluate({"a": 1.5}) == 3.0
    assert list(Twice(a).refs()) == [a]
    with pytest.raises(NotImplementedError, match="Twice"):
        (Twice(a) + 1).excel(names)


def test_npv_on_arrays_equals_numpy_financial_per_draw():
    rates = np.array([0.0, 0.05, 0.12])
    flows = [np.array([-100.0, -200.0, -50.0]), 40.0, np.array([60.0, 90.0, 10.0])]
    env = {"r": rates, **{f"f{i}": v for i, v in enumerate(flows)}}
    got = NPV0(Ref("r"), [Ref(f"f{i}") for i in range(3)]).evaluate(env)
    for k in range(3):
        per_draw = [np.broadcast_to(f, 3)[k] for f in flows]
        assert got[k] == pytest.approx(npf.npv(rates[k], per_draw), rel=1e-12)


EDGE = [0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, -0.5, 3.0, 1e-300, 1e300, -1e300, 1e-9,
        -0.99999, math.inf, -math.inf, math.nan]
ONE = [("neg", lambda x: -x), ("roundup", ROUNDUP), ("rounddown", ROUNDDOWN)]
TWO = [(op, fn) for op, fn in [
    ("+", lambda x, y: x + y), ("-", lambda x, y: x - y), ("*", lambda x, y: x * y),
    ("/", lambda x, y: x / y), ("^", lambda x, y: x ** y), ("<=", lambda x, y: x.le(y)),
    ("<", lambda x, y: x.lt(y)), (">=", lambda x, y: x.ge(y)), (">", lambda x, y: x.gt(y)),
    ("MIN", MIN), ("MAX", MAX), ("SUM", SUM), ("AND", lambda x, y: AND(x, y)),
    ("IF", lambda x, y: IF(x, y, 7.0)), ("PMT", lambda x, y: PMT(x, 3.0, y)),
    ("NPV", lambda x, y: NPV0(x, [y, y, 1.0])),
]]


# The two backends agree to within rounding, not bit for bit: Python's pow and numpy's
# vectorized pow (and so NPV's discount factors) may differ in the last place, depending on the
# processor and the numpy release (2.5 ** 2.5 differs by one ulp under numpy 2.4 on some CPUs).
MAX_ULPS = 4


def _ulps_apart(x: float, y: float) -> int:
    """How many representable doubles lie between two finite numbers of the same sign."""
    return abs(int(np.float64(x).view(np.int64)) - int(np.float64(y).view(np.int64)))


def _same(scalar, array_value):
    """Equal to within MAX_ULPS; nan matches nan, infinities and the sign of zero are exact."""
    expected = float(np.asarray(array_value).reshape(-1)[0])
    assert isinstance(scalar, float)
    if math.isnan(expected) or math.isnan(scalar):
        return math.isnan(scalar) and math.isnan(expected)
    if math.isinf(expected) or math.isinf(scalar) or expected == 0 or scalar == 0:
        return scalar == expected and math.copysign(1, scalar) == math.copysign(1, expected)
    if math.copysign(1, scalar) != math.copysign(1, expected):
        return False
    return _ulps_apart(scalar, expected) <= MAX_ULPS


@pytest.mark.parametrize("name, make", ONE, ids=[n for n, _ in ONE])
def test_float_backend_equals_numpy_backend_on_edge_cases_of_one_operand(name, make):
    e = make(a)
    for x in EDGE:
        scalar = e.evaluate({"a": x})
        with np.errstate(all="ignore"):
            array = e.evaluate({"a": np.array([x])})
        assert _same(scalar, array), (name, x, scalar, array)


@pytest.mark.parametrize("name, make", TWO, ids=[n for n, _ in TWO])
def test_float_backend_equals_numpy_backend_on_edge_cases_of_two_operands(name, make):
    """One scenario runs on plain floats, Monte Carlo on arrays: the same numbers, inf and nan
    included (a float division by zero must not raise where numpy gives inf)."""
    e = make(a, b)
    for x in EDGE:
        for y in EDGE:
            scalar = e.evaluate({"a": x, "b": y})
            # Exponents in the model are single numbers, where numpy computes x^0.5 as a
            # square root (-0.0^0.5 = -0.0, not pow's 0.0): compare with that.
            b_array = y if name == "^" else np.array([y])
            with np.errstate(all="ignore"):
                array = e.evaluate({"a": np.array([x]), "b": b_array})
            assert _same(scalar, array), (name, x, y, scalar, array)


def test_one_scenario_is_evaluated_without_numpy():
    """A single scenario never needs numpy (so `tco whatif` need not import it)."""
    import subprocess
    import sys

    code = ("import sys\nfrom tco.expr import NPV0, PMT, MIN, Ref\n"
            "v = (NPV0(0.08, [Ref('a'), 2.0]) + PMT(0.05, 3, Ref('a')) + MIN(Ref('a'), 1)"
            ").evaluate({'a': 2.0})\n"
            "assert 'numpy' not in sys.modules, 'numpy was imported'\nprint(v)")
    out = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


@pytest.mark.parametrize("exponent", [2.0, 0.5, -1.0, 3.0, 1.5, -2.5, 0.0, 1.0])
def test_float_backend_equals_numpy_backend_on_many_powers(exponent):
    """numpy takes shortcuts for some constant exponents (x^2 as x*x, x^0.5 as a square root);
    the float backend lands within rounding of it, value by value (zeros and specials exact)."""
    x = np.random.default_rng(7).random(5000) * 3.0
    x[:3] = [0.0, 1.0, 2.5]
    e = a ** Const(exponent)
    array = e.evaluate({"a": x})
    scalar = np.array([e.evaluate({"a": float(v)}) for v in x])
    np.testing.assert_array_max_ulp(scalar, array, maxulp=MAX_ULPS)
    assert np.array_equal(np.isinf(scalar), np.isinf(array))


def test_float_backend_equals_numpy_backend_on_many_npvs():
    rng = np.random.default_rng(8)
    rates, flows = rng.random(2000) * 0.3, rng.random((6, 2000)) * 1e6
    e = NPV0(Ref("r"), [Ref(f"f{t}") for t in range(6)])
    array = e.evaluate({"r": rates, **{f"f{t}": flows[t] for t in range(6)}})
    scalar = [e.evaluate({"r": float(rates[i]), **{f"f{t}": float(flows[t, i]) for t in range(6)}})
              for i in range(2000)]
    np.testing.assert_array_max_ulp(np.array(scalar), array, maxulp=MAX_ULPS)


def test_params_and_children_are_the_whole_node():
    """fast.py merges two operations when their type, `params()` and children match: every
    field of every node type must be one or the other, and `params()` names no child."""
    from dataclasses import fields

    from tco.expr.tree import BinOp, Neg, Npv

    x, y = Ref("x"), Ref("y")
    nodes = [Const(2.5), x, BinOp("*", x, y), Neg(x), Func("MIN", (x, y)), Npv(x, (y, x)),
             Func("SUM", ())]
    for node in nodes:
        params = dict(node.params())
        children = [getattr(node, f.name) for f in fields(node) if f.name not in params]
        flat = [c for v in children for c in (v if isinstance(v, tuple) else (v,))]
        assert list(node.children()) == flat, type(node).__name__
        assert not any(isinstance(v, (Ref, Const, BinOp)) for v in params.values())
    assert BinOp("+", x, y).params() == (("op", "+"),)
    assert Const(-0.0).params() == (("value", -0.0),)
