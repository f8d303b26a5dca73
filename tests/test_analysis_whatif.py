"""What-if and diff: a setting gives exactly the engine's result for the edited scenario."""

import copy

import pytest

from tco.analysis.settings import parse_setting, parse_value
from tco.analysis.whatif import diff, present_values, whatif
from tco.engine import compute
from tco.errors import TcoError
from tco.scenario import load_scenario, parse_scenario
from tco.yamlio import YamlDoc


def edited(loaded, edit):
    """The scenario with `edit(data)` applied by hand to its plain data (independent of the
    --set machinery)."""
    data = copy.deepcopy(loaded.scenario.model_dump(mode="python"))
    edit(data)
    return parse_scenario(YamlDoc(data, {}, "edited by hand"))


def candidate(data, cid):
    return next(c for c in data["candidates"] if c["id"] == cid)


def assert_same_as_engine(comparison, expected_result):
    assert comparison.after.candidates  # the changed side was computed
    for c in expected_result.candidates:
        got = next(x for x in comparison.candidates if x.id == c.id)
        if c.priced:
            assert got.npv.after == c.values["npv_tco"]
            assert got.cost_per_job.after == c.job["cost_per_job"]
        assert got.feasible_after == c.feasible
    # the what-if ranking is the engine's, over the options that could be recommended
    assert comparison.ranking_after == [c.id for c in expected_result.candidates
                                        if c.feasible and not c.info.blocking]


def test_absolute_value_equals_engine_on_edited_scenario(catalog):
    loaded = load_scenario()
    c = whatif(loaded, catalog, ["facility.electricity_price_per_kwh=0.12"])

    def edit(d):
        d["facility"]["electricity_price_per_kwh"] = 0.12

    assert_same_as_engine(c, compute(edited(loaded, edit), catalog))
    assert [(i.path, i.after) for i in c.inputs] == [("facility.electricity_price_per_kwh", 0.12)]


def test_relative_value_equals_engine_on_edited_scenario(catalog):
    loaded = load_scenario()
    c = whatif(loaded, catalog, ["candidates.mi300x.card_price=-15%"])
    # catalog price 15,000 USD (pricing/prices.yaml) -15% = 12,750

    def edit(d):
        candidate(d, "mi300x")["card_price"] = 12750.0

    assert_same_as_engine(c, compute(edited(loaded, edit), catalog))
    assert c.inputs[0].before == 15000.0 and c.inputs[0].after == pytest.approx(12750.0)


def test_multiplier_equals_engine_and_resizes_a_deadline_cluster(catalog):
    loaded = load_scenario()
    c = whatif(loaded, catalog, ["candidates.a100-deadline.mfu=x0.9", "utilization=x0.9"])
    # a100 MFU 0.45 (catalog) x 0.9 = 0.405; utilization 0.85 x 0.9 = 0.765

    def edit(d):
        candidate(d, "a100-deadline")["mfu"] = 0.45 * 0.9
        d["utilization"] = 0.85 * 0.9

    expected = compute(edited(loaded, edit), catalog)
    assert_same_as_engine(c, expected)
    a100 = next(x for x in c.candidates if x.id == "a100-deadline")
    assert any("re-sized" in n for n in a100.notes)  # lower MFU needs a bigger cluster
    assert expected.candidate("a100-deadline").inputs["cards"] > 1264


def test_components_add_up_and_electricity_change_is_attributed_to_electricity(catalog):
    loaded = load_scenario()
    c = whatif(loaded, catalog, ["facility.electricity_price_per_kwh=0.12"])
    b200 = next(x for x in c.candidates if x.id == "b200")
    assert sum(line.delta for line in b200.components) == pytest.approx(b200.npv.delta,
                                                                        rel=1e-9)
    changed = {line.key for line in b200.components if abs(line.delta) > 1e-6}
    assert changed == {"electricity"}
    # By hand: each operating year pays energy x (0.12 - 0.0826); years 1..5 at 8% discount
    # have a present-value factor of sum(1.08**-t) = 3.99271004...
    energy = c.before.candidate("b200").values["energy_facility_kwh_per_year"]
    elec = next(line for line in b200.components if line.key == "electricity")
    assert elec.delta == pytest.approx(energy * (0.12 - 0.0826) * 3.9927100371, rel=1e-9)


def test_present_values_sum_to_npv(example):
    rate = example.inputs["finance.discount_rate"].value
    for c in example.candidates:
        if c.priced:
            assert sum(present_values(c, rate).values()) == pytest.approx(c.values["npv_tco"],
                                                                          rel=1e-12)


def test_ranking_flip_is_noted(catalog):
    # b200 (cheapest at baseline) priced 30% higher falls behind gaudi3.
    c = whatif(load_scenario(), catalog, ["candidates.b200.card_price=+30%"])
    assert c.ranking_before[0] == "b200" and c.ranking_after[0] == "gaudi3"
    assert c.ranking_flips
    assert any("flips" in n and "gaudi3" in n for n in c.notes)


def test_diff_matches_whatif_and_names_missing_candidates(catalog, tmp_path):
    base = load_scenario()

    def edit(d):
        d["facility"]["electricity_price_per_kwh"] = 0.12
        d["candidates"] = [x for x in d["candidates"] if x["id"] != "rtx-4090"]

    a_path, b_path = tmp_path / "a.yaml", tmp_path / "b.yaml"
    import yaml

    a_path.write_text(yaml.safe_dump(base.scenario.model_dump(mode="json")))
    b_path.write_text(yaml.safe_dump(edited(base, edit).scenario.model_dump(mode="json")))
    d = diff(load_scenario(a_path), load_scenario(b_path), catalog)
    w = whatif(base, catalog, ["facility.electricity_price_per_kwh=0.12"])
    for x in d.candidates:
        if x.id == "rtx-4090":
            assert x.npv.after is None and any("only in" in n for n in x.notes)
        else:
            y = next(z for z in w.candidates if z.id == x.id)
            assert x.npv.after == y.npv.after and x.npv.before == y.npv.before


@pytest.mark.parametrize("text,expected", [
    ("0.12", ("absolute", 0.12)), ("-15%", ("relative", -15.0)), ("+10%", ("relative", 10.0)),
    ("x0.9", ("multiplier", 0.9)), ("*2", ("multiplier", 2.0)), ("2e12", ("absolute", 2e12)),
])
def test_values_parse(text, expected):
    assert parse_value(text, "--set") == expected


@pytest.mark.parametrize("text,message", [
    ("utilization", "expected PATH=VALUE"),
    ("utilization=abc", "must be a number"),
    ("utilization=15%", r"write \+15% or -15%"),
    ("utilization=xx", "must be a number"),
    ("utilization=nan", "must be a number"),
])
def test_bad_values_name_the_flag(text, message):
    with pytest.raises(TcoError, match=message) as exc:
        parse_setting(text)
    assert "--set" in str(exc.value)


def test_unknown_path_suggests_closest(catalog):
    with pytest.raises(TcoError, match=r"did you mean: facility\.electricity_price_per_kwh"):
        whatif(load_scenario(), catalog, ["facility.electricity_price=0.1"])


def test_implausible_value_is_refused_with_the_setting_named(catalog):
    with pytest.raises(TcoError, match=r"with --set utilization=1\.5.*outside the plausible"):
        whatif(load_scenario(), catalog, ["utilization=1.5"])


def test_whole_number_input_refuses_a_fractional_result(catalog):
    with pytest.raises(TcoError, match="whole number"):
        whatif(load_scenario(), catalog, ["candidates.h100-sxm.cards=+15%"])
