"""Twins (tco/twins.py): candidates with the same formulas but for their ids are grouped right,
and evaluating a group at once gives every member's numbers exactly, in the layout search,
sensitivity and Monte Carlo (compared with the one-by-one path, `twins.GROUPED = False`)."""

import numpy as np
import pytest
import yaml

from tco import twins
from tco.analysis.montecarlo import montecarlo
from tco.analysis.sensitivity import sensitivity
from tco.engine import compute
from tco.resources import example_scenario
from tco.scenario import parse_scenario
from tco.yamlio import YamlDoc

MIXED = [
    {"id": "h100-256", "card": "h100-sxm", "cards": 256},
    {"id": "h100-512", "card": "h100-sxm", "cards": 512},
    {"id": "h100-1024", "card": "h100-sxm", "cards": 1024},
    {"id": "h200-512", "card": "h200-sxm", "cards": 512},  # another CUDA card
    {"id": "h100-liquid", "card": "h100-sxm", "cards": 512, "cooling": "liquid"},
    {"id": "h100-quoted", "card": "h100-sxm", "cards": 512, "card_price": 20000},
    {"id": "h100-quoted2", "card": "h100-sxm", "cards": 1024, "card_price": 21000},
    {"id": "h100-pinned", "card": "h100-sxm", "cards": 512,
     "layout": {"llama-70b": {"tp": 4, "pp": 4}}},
    {"id": "h100-deadline", "card": "h100-sxm", "deadline_days": 60},
    {"id": "h200-deadline", "card": "h200-sxm", "deadline_days": 45},
    {"id": "h100-deadline2", "card": "h100-sxm", "deadline_days": 90},
    {"id": "h100-deadline3", "card": "h100-sxm", "deadline_days": 60},  # sized as h100-deadline
    {"id": "mi300x-512", "card": "mi300x", "cards": 512},  # ROCm: another stack
    {"id": "mi300x-1024", "card": "mi300x", "cards": 1024},
    {"id": "mi325x-512", "card": "mi325x", "cards": 512, "cooling": "liquid"},
    {"id": "h100-rent", "card": "h100-sxm", "cards": 512, "acquire": "rent"},
    {"id": "h100-rent2", "card": "h100-sxm", "cards": 1024, "acquire": "rent"},
]


def mixed():
    data = yaml.safe_load(example_scenario().read_text(encoding="utf-8"))
    data["candidates"] = MIXED
    return parse_scenario(YamlDoc(data, {}, "mixed.yaml"))


@pytest.fixture(scope="module")
def mixed_result(catalog):
    loaded = mixed()
    return loaded, compute(loaded, catalog)


@pytest.fixture
def one_by_one(monkeypatch):
    monkeypatch.setattr(twins, "GROUPED", False)


def group_of(result):
    model = result.model
    return {m: g.members for g in twins.groups(model, model.structure.candidates)
            for m in g.members}


def test_twins_are_exactly_the_candidates_with_the_same_formulas(mixed_result):
    _loaded, result = mixed_result
    model, cids = result.model, result.model.structure.candidates
    signature = {cid: twins.formula_signature(model, cid) for cid in cids}
    together = group_of(result)
    own = [c for c in cids if not twins.shapes(model)[c].generated]
    for a in cids:
        for b in cids:
            if b in together[a]:  # twins: the same formulas (what grouping relies on)
                assert signature[a] == signature[b], (a, b)
            elif a in own and b in own:  # and none missed, but for generated rent options
                assert signature[a] != signature[b], (a, b)


def test_what_parts_twins_and_what_does_not(mixed_result):
    _loaded, result = mixed_result
    together = group_of(result)
    # a card count, another card of the same stack, liquid cooling, a quoted price and a
    # pinned layout are numbers (inputs): the formulas stay the same
    assert set(together["h100-256"]) >= {"h100-512", "h100-1024", "h200-512", "h100-liquid",
                                         "h100-quoted", "h100-pinned"}
    # sized to a deadline, another software stack, renting: other formulas
    assert "h100-deadline" not in together["h100-512"]
    assert set(together["h100-deadline"]) == {"h100-deadline", "h200-deadline",
                                              "h100-deadline2", "h100-deadline3"}
    assert set(together["mi300x-512"]) == {"mi300x-512", "mi300x-1024", "mi325x-512"}
    assert set(together["h100-rent"]) == {"h100-rent", "h100-rent2"}
    # their formulas do differ: another stack reads its own familiarity input
    sig = {c: twins.formula_signature(result.model, c) for c in ("h100-512", "mi300x-512",
                                                                   "h100-deadline")}
    assert len(set(sig.values())) == 3


def test_names_map_the_template_to_each_member(mixed_result):
    _loaded, result = mixed_result
    group = next(g for g in twins.groups(result.model, ["h100-512", "h100-256", "mi300x-512"])
                 if len(g.members) == 2)
    assert group.members == ("h100-512", "h100-256")
    assert group.names("candidates.h100-512.cards") == ["candidates.h100-512.cards",
                                                        "candidates.h100-256.cards"]
    assert group.names("h100-512.npv_tco") == ["h100-512.npv_tco", "h100-256.npv_tco"]
    assert group.names("finance.discount_rate") == ["finance.discount_rate"] * 2
    later = group.subset(["h100-256"])  # named after the same template
    assert later.names("h100-512.npv_tco") == ["h100-256.npv_tco"]


def test_a_group_evaluates_to_each_members_own_numbers(mixed_result):
    """Every quantity of six twins, with a shared input and an own input varied over three
    cases, equals each member's own formulas evaluated on the same values, bit for bit."""
    _loaded, result = mixed_result
    model = result.model
    group = next(g for g in twins.groups(model, model.structure.candidates)
                 if "h100-512" in g.members)
    assert len(group.members) >= 6
    t = group.template
    sub = model.feeding([q.name for q in model.of_candidate(t)])
    values = {p: i.value for p, i in result.inputs.items()}
    rate = np.array([0.05, 0.08, 0.12])
    own_path = f"candidates.{t}.card_price"
    prices = np.array([[values[p] * f for f in (0.8, 1.0, 1.3)] for p in group.names(own_path)])
    got = twins.evaluate(group, sub, values, {"finance.discount_rate": rate[None, :],
                                              own_path: prices}, env=result.env)
    for row, cid in enumerate(group.members):
        env = dict(values)
        env.update({"finance.discount_rate": rate, f"candidates.{cid}.card_price": prices[row]})
        want = model.evaluate(env, candidate=cid)
        for q in model.of_candidate(t):
            mine = group.names(q.name)[row]
            value = got[q.name]
            if type(value) is list:
                value = value[row]
            elif np.ndim(value) == 2:
                value = value[row] if value.shape[0] > 1 else value[0]
            assert np.array_equal(np.broadcast_to(value, (3,)),
                                  np.broadcast_to(want[mine], (3,)), equal_nan=True), mine
    # and the NPV does move with both inputs (the comparison is not of constants)
    npv = got[f"{t}.npv_tco"]
    assert np.ndim(npv) == 2 and len(set(np.asarray(npv)[0])) == 3


def test_sizing_and_layouts_do_not_depend_on_grouping(mixed_result, catalog, one_by_one):
    loaded, grouped = mixed_result
    alone = compute(loaded, catalog)
    assert {p: i.value for p, i in alone.inputs.items()} == {
        p: i.value for p, i in grouped.inputs.items()}
    assert {p: i.source for p, i in alone.inputs.items()} == {
        p: i.source for p, i in grouped.inputs.items()}
    for a, b in zip(alone.candidates, grouped.candidates):
        assert (a.id, a.values, a.jobs) == (b.id, b.values, b.jobs)
    cards = {c.id: c.inputs["cards"] for c in grouped.candidates}
    assert cards["h100-deadline3"] == cards["h100-deadline"] != cards["h100-deadline2"]


def test_sensitivity_of_twins_equals_one_by_one(mixed_result, catalog, monkeypatch):
    loaded, result = mixed_result
    grouped = sensitivity(loaded, catalog, result=result)
    monkeypatch.setattr(twins, "GROUPED", False)
    alone = sensitivity(loaded, catalog, result=result)
    assert grouped.baseline == alone.baseline
    assert grouped.bars == alone.bars
    assert len(grouped.bars["h100-512"]) > 10  # bars of its own inputs and shared ones
    assert any(b.path == "candidates.h100-512.card_price" for b in grouped.bars["h100-512"])
    # a dense model's parameters move its active parameters, grouped as one by one
    params = [p for p, inp in result.inputs.items() if p.endswith(".params")
              and inp.meta.get("equal_to") is None
              and result.inputs[p[:-len("params")] + "active_params"].meta.get("equal_to") == p]
    assert params and any(b.path == params[0] for b in grouped.bars["h100-512"])


def test_montecarlo_of_twins_equals_one_by_one(mixed_result, monkeypatch):
    _loaded, result = mixed_result
    grouped = montecarlo(result, draws=3000, seed=7)
    monkeypatch.setattr(twins, "GROUPED", False)
    alone = montecarlo(result, draws=3000, seed=7)
    assert grouped.percentiles == alone.percentiles
    assert grouped.prob_cheapest == alone.prob_cheapest
    assert grouped.varied == alone.varied
    assert grouped.samples.keys() == alone.samples.keys()
    for cid, x in grouped.samples.items():
        assert np.array_equal(x, alone.samples[cid])
    # twins with their own drawn inputs do get their own draws
    p = grouped.percentiles
    assert p["h100-512"]["npv_tco"] != p["h100-1024"]["npv_tco"]


def test_montecarlo_compiles_twins_once(mixed_result):
    from tco.analysis.montecarlo import Simulation

    _loaded, result = mixed_result
    sim = Simulation(result)
    compiled = {cid for part, _c in sim.twins for cid in part.members}
    assert {"h100-256", "h100-512", "h100-1024"} <= compiled
    assert all(len(part.members) >= 2 for part, _c in sim.twins)
    assert len(sim.twins) < len(compiled)
    # the quoted prices (no range: not drawn) are compiled apart from the drawn ones
    of = {cid: unit for cid, (unit, _row) in sim.twin_of.items()}
    if "h100-quoted" in of:
        assert of["h100-quoted"] != of["h100-512"]


def test_twins_with_the_same_numbers_are_evaluated_once(catalog, monkeypatch):
    """A second 512-card H100 has the same constants and draws as the first (its card price,
    power and so on are the same catalog figures, drawn once): Monte Carlo evaluates and
    summarises it once, and its numbers are those of the one-by-one path."""
    from tco.analysis.montecarlo import Simulation

    data = yaml.safe_load(example_scenario().read_text(encoding="utf-8"))
    data["candidates"] = MIXED + [{"id": "h100-512-again", "card": "h100-sxm", "cards": 512}]
    result = compute(parse_scenario(YamlDoc(data, {}, "again.yaml")), catalog)
    sim = Simulation(result)
    assert sim.same["h100-512-again"] == "h100-512"
    assert sim.same["h100-512"] == "h100-512" and sim.same["h100-1024"] == "h100-1024"
    grouped = montecarlo(result, draws=2000, seed=5)
    monkeypatch.setattr(twins, "GROUPED", False)
    alone = montecarlo(result, draws=2000, seed=5)
    assert grouped.percentiles == alone.percentiles
    assert grouped.prob_cheapest == alone.prob_cheapest
    for cid, x in grouped.samples.items():
        assert np.array_equal(x, alone.samples[cid])
    p = grouped.percentiles
    assert p["h100-512-again"] == p["h100-512"] != p["h100-1024"]
    assert p["h100-512-again"] is not p["h100-512"]  # copies: one may be changed alone


def test_final_evaluation_of_twins_is_bit_for_bit(mixed_result, monkeypatch):
    """The engine's values with twins evaluated as arrays (here groups of two and more) are
    `Model.evaluate`'s: same names in the same order, same types, same bits (nan, -0.0)."""
    import struct

    from tco import engine

    _loaded, result = mixed_result
    model = result.model
    values = engine.input_values(result.resolved)
    group = next(g for g in twins.groups(model, model.structure.candidates)
                 if "h100-512" in g.members)
    rows = twins.values_of_members(group, model, values)
    assert rows is not None and set(rows) == set(group.members)
    monkeypatch.setattr(engine, "TWINS_EVALUATED_TOGETHER", 2)
    want = model.evaluate(values)
    got = engine.evaluate_model(model, values)
    assert list(got) == list(want)
    for name, v in want.items():
        w = got[name]
        assert type(w) is type(v), name
        assert (struct.pack("d", w) == struct.pack("d", v)) if isinstance(v, float) else w == v
    # the members' NPVs are their own (their card counts differ)
    assert len({rows[m][[q.name for q in model.of_candidate(m)].index(f"{m}.npv_tco")]
                for m in group.members}) == len(group.members)


def test_inputs_used_from_twins_is_the_models_own(mixed_result):
    _loaded, result = mixed_result
    model = result.model
    want = model._inputs_read(model.quantities)  # every formula walked, in first-use order
    model._index.pop("inputs_used", None)
    assert twins.inputs_used(model) == want
    assert model.inputs_used() == want  # kept as the model's answer
    assert "candidates.h100-256.card_price" in want and "finance.discount_rate" in want


def copies(path, extra):
    """The scenario at `path` with each candidate again under new ids and card counts."""
    from pathlib import Path

    data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
    more = []
    for k, factor in enumerate(extra):
        for c in data["candidates"]:
            c2 = {**c, "id": f"{c['id']}-{k}"}
            if isinstance(c.get("cards"), int):
                c2["cards"] = c["cards"] * factor
            more.append(c2)
    data["candidates"] = data["candidates"] + more
    return parse_scenario(YamlDoc(data, {}, Path(path).name))


@pytest.mark.parametrize("path,metric", [
    ("tco/scenarios/train-and-serve.yaml", "cost_per_million_output_tokens"),
    ("tests/data/serve_and_assign.yaml", "cost_per_job"),
    ("tests/data/review_api_wins.yaml", "cost_per_million_output_tokens"),
])
def test_serving_portfolios_and_apis_equal_one_by_one(path, metric, catalog, monkeypatch):
    """Scenarios with serving workloads, assigned workloads, portfolios and per-token APIs,
    their candidates twice over: the engine, sensitivity and Monte Carlo give the same
    numbers grouped and one by one."""
    from pathlib import Path

    from tco import engine

    monkeypatch.setattr(engine, "TWINS_EVALUATED_TOGETHER", 2)
    loaded = copies(Path(__file__).resolve().parents[1] / path, [2, 1])
    runs = []
    for grouped in (True, False):
        monkeypatch.setattr(twins, "GROUPED", grouped)
        result = compute(loaded, catalog)
        s = sensitivity(loaded, catalog, result=result, metric=metric)
        mc = montecarlo(result, draws=1500, seed=3, metric=metric)
        runs.append(([(c.id, c.values, c.jobs, c.inputs) for c in result.candidates],
                     [(p.id, p.values) for p in result.portfolios],
                     [(a.id, a.values) for a in result.api_options],
                     s.baseline, s.bars, mc.percentiles, mc.prob_cheapest))
    assert runs[0] == runs[1]
    assert any(len(g.members) > 1 for g in twins.groups(result.model,
                                                          result.model.structure.candidates))


def same_tree(a, b):
    """Whether two formulas are the same: node types, parameters (by type and repr: 0.0 and
    -0.0 apart) and names, node for node."""
    if type(a) is not type(b):
        return False
    params = [(n, type(v), repr(v)) for n, v in a.params()]
    if params != [(n, type(v), repr(v)) for n, v in b.params()]:
        return False
    kids_a, kids_b = a.children(), b.children()
    return len(kids_a) == len(kids_b) and all(map(same_tree, kids_a, kids_b))


@pytest.mark.parametrize("path", [
    None, "tco/scenarios/train-and-serve.yaml", "tests/data/serve_and_assign.yaml",
    "tests/data/review_api_wins.yaml",
])
def test_twins_copied_from_their_template_equal_twins_built(path, catalog):
    """build_model copies a twin's quantities from the first candidate of its Shape
    (tco/model/twincopy.py): every quantity equals what the chapters build for it, field for
    field and node for node, and the copy shares what reads nothing of the candidate's own."""
    from pathlib import Path

    from tco.model import build_model
    from tco.resolve import resolve

    loaded = mixed() if path is None else copies(
        Path(__file__).resolve().parents[1] / path, [2, 1])
    st = resolve(loaded, catalog).structure
    copied, built = build_model(st), build_model(st, copy_twins=False)
    assert len(copied.quantities) == len(built.quantities)
    for q, want in zip(copied.quantities, built.quantities):
        assert (q.name, q.unit, q.label, q.candidate, q.group, q.workload, q.year) == (
            want.name, want.unit, want.label, want.candidate, want.group, want.workload,
            want.year)
        assert same_tree(q.expr, want.expr), q.name
    groups = [g for g in twins.groups(copied, st.candidates) if len(g.members) > 1]
    assert groups  # there were twins to copy
    first, twin = groups[0].members[:2]

    def nodes(model, cid):
        out, todo = set(), [q.expr for q in model.of_candidate(cid)]
        while todo:
            node = todo.pop()
            out.add(id(node))
            todo.extend(node.children())
        return out

    assert nodes(copied, first) & nodes(copied, twin)  # shared subtrees: constants at least
    assert not nodes(built, first) & nodes(built, twin)


@pytest.mark.parametrize("path", ["tests/test_workbook_tricky.yaml",
                                  "tco/scenarios/train-and-serve.yaml",
                                  "tests/data/review_api_wins.yaml"])
def test_workbook_of_twins_equals_one_by_one(path, catalog, monkeypatch):
    """The workbook writes twins' formulas once from the template's tree and fills in each
    member's references, and places their cells from the template's (tco/exporters/xlsx):
    the file is the same, byte for byte, as with every formula written from its own tree and
    every cell placed one by one."""
    from datetime import date

    from tco.exporters.xlsx import workbook_bytes

    result = compute(copies(path, [2, 1]), catalog)
    assert any(len(g.members) > 1 for g in twins.groups(result.model,
                                                          result.model.structure.candidates))
    grouped = workbook_bytes(result, generated=date(2024, 1, 2))
    monkeypatch.setattr(twins, "GROUPED", False)
    assert workbook_bytes(result, generated=date(2024, 1, 2)) == grouped
