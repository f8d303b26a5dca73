"""The JavaScript backend (tco/expr/javascript.py): the model written as JavaScript and run in
Node equals the engine for many random settings of the inputs, to a relative 1e-9."""

import json
import math
import shutil
import subprocess

import numpy as np
import pytest
from report_support import require

from tco.engine import compute
from tco.expr import IF, MAX, MIN, NPV0, PMT, ROUNDDOWN, ROUNDUP, SUM, Const, Neg, Ref
from tco.expr.javascript import _WRITERS, javascript, program
from tco.expr.tree import Expr
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text

SETTINGS = 40  # random settings of every ranged input


def node() -> str:
    exe = shutil.which("node") or shutil.which("nodejs")
    require(exe is not None, "node (apt install nodejs)")
    assert exe is not None
    return exe


def run(script: str, inputs: list[dict[str, float]], tmp_path) -> list[dict[str, float]]:
    """`evaluate` of `script` on each input set, in Node (JSON carries inf/nan as strings)."""
    code = script + """
const sets = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const show = (x) => Number.isFinite(x) ? x : String(x);
const out = sets.map((s) => Object.fromEntries(Object.entries(evaluate(s)).map(([k, x]) => [k, show(x)])));
process.stdout.write(JSON.stringify(out));
"""
    file = tmp_path / "model.js"
    file.write_text(code, encoding="utf-8")
    done = subprocess.run([node(), str(file)], input=json.dumps(inputs), capture_output=True,
                          text=True, check=True)
    return [{k: float(v) for k, v in row.items()} for row in json.loads(done.stdout)]


def same(got: float, want: float) -> bool:
    if math.isnan(want) or math.isinf(want):
        return repr(got) == repr(want)
    return got == want or abs(got - want) <= 1e-9 * max(abs(want), 1e-300)


def test_every_node_class_has_a_writer():
    kinds = {cls for cls in vars(__import__("tco.expr.tree", fromlist=["x"])).values()
             if isinstance(cls, type) and issubclass(cls, Expr) and cls is not Expr}
    assert kinds <= set(_WRITERS), kinds - set(_WRITERS)


def test_functions_and_edge_cases_equal_the_float_backend(tmp_path):
    x, y = Ref("x"), Ref("y")
    exprs = {
        "pow": x ** y, "sq": x ** 2, "root": x ** 0.5, "inv": x ** -1, "div": x / y,
        "neg": Neg(x - y), "min": MIN(x, y, 3), "max": MAX(x, y, -3), "sum": SUM(x, y, 1),
        "if": IF(x.gt(y), x, y), "up": ROUNDUP(x * 3.3), "down": ROUNDDOWN(x * 3.3),
        "pmt": PMT(Const(0.07), 3, x), "npv": NPV0(Const(0.08), [x, y, x + y]),
        "cmp": x.le(y) + x.lt(y) + x.ge(y),
    }
    cases = [{"x": a, "y": b} for a in (2.5, -1.5, 0.0, -0.0, 7.0, 1e-300)
             for b in (2.5, -2.0, 0.0, 3.0)]
    got = run(program(exprs.items()), cases, tmp_path)
    for case, row in zip(cases, got):
        want = {k: e.evaluate(dict(case)) for k, e in exprs.items()}
        for k, w in want.items():
            assert same(row[k], float(w)), (k, case, row[k], w)


@pytest.mark.parametrize("scenario", ["example", "train-and-serve", "held-stock", "phased",
                                      "leased"])
def test_the_model_in_javascript_equals_the_engine(scenario, catalog, tmp_path):
    if scenario == "held-stock":  # held stock (tests/test_held_stock.py), closing by buying
        from test_held_stock import HELD

        example = compute(load_scenario_text(HELD), catalog)
    elif scenario == "phased":  # phased deliveries (tests/test_deliveries.py)
        from test_deliveries import PHASED

        example = compute(load_scenario_text(PHASED), catalog)
    elif scenario == "leased":  # a lease beside a purchase (tests/test_lease.py)
        from test_lease import LEASED

        example = compute(load_scenario_text(LEASED), catalog)
    else:
        example = compute(load_scenario(example_scenario().parent / f"{scenario}.yaml"),
                          catalog)
    model = example.model
    base = {p: i.value for p, i in example.inputs.items()}
    ranged = [p for p, i in example.inputs.items()
              if i.low is not None and i.high is not None and i.low < i.high]
    rng = np.random.default_rng(7)
    sets = []
    for _ in range(SETTINGS):
        values = dict(base)
        for p in ranged:
            lo, hi = example.inputs[p].low, example.inputs[p].high
            values[p] = float(rng.uniform(lo, hi))
        sets.append(values)
    script = program((q.name, q.expr) for q in model)
    got = run(script, sets, tmp_path)
    checked = 0
    for values, row in zip(sets, got):
        want = model.evaluate(values)
        for q in model:
            assert same(row[q.name], float(want[q.name])), (q.name, row[q.name], want[q.name])
            checked += 1
    assert checked == SETTINGS * len(model.quantities)


def test_a_quantity_added_to_the_model_needs_no_javascript_written_by_hand():
    # any tree built from the node classes is written; a new kind of node is refused loudly
    class Odd(Expr):
        pass

    with pytest.raises(NotImplementedError):
        javascript(Odd())
