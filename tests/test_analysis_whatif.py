"""What-if and diff: a setting gives exactly the engine's result for the edited scenario."""

import copy
from pathlib import Path

import pytest

from tco.analysis.settings import apply_values, edited_file, parse_setting, parse_value
from tco.analysis.whatif import diff, present_values, whatif
from tco.engine import compute, evaluate
from tco.engine import edited as engine_edited
from tco.errors import TcoError
from tco.scenario import load_scenario, load_scenario_text, parse_scenario
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
    # catalog price 20,000 USD (pricing/prices.yaml) -15% = 17,000

    def edit(d):
        candidate(d, "mi300x")["card_price"] = 17000.0

    assert_same_as_engine(c, compute(edited(loaded, edit), catalog))
    assert c.inputs[0].before == 20000.0 and c.inputs[0].after == pytest.approx(17000.0)


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
    # 10% less compute per card needs about 1 / 0.9 the cards (1,120 -> 1,248 on the shipped
    # catalog; communication and whole servers move it a little)
    base = compute(loaded, catalog).candidate("a100-deadline").inputs["cards"]
    after = expected.candidate("a100-deadline").inputs["cards"]
    assert after > base
    assert after == pytest.approx(base / 0.9, rel=0.03)


def test_components_add_up_and_electricity_change_is_attributed_to_electricity(catalog):
    loaded = load_scenario()
    c = whatif(loaded, catalog, ["facility.electricity_price_per_kwh=0.12"])
    b200 = next(x for x in c.candidates if x.id == "b200")
    assert sum(line.delta for line in b200.components) == pytest.approx(b200.npv.delta,
                                                                        rel=1e-9)
    changed = {line.key for line in b200.components if abs(line.delta) > 1e-6}
    assert changed == {"electricity"}
    # By hand, with the timeline (methodology §6): each operating year pays its energy x
    # (0.12 - 0.0826). Years 2..5 run the whole year: energy E, present-value factor
    # sum(1.08**-t, t=2..5) = 3.9927100371 - 1/1.08 = 3.0667841112. Year 1 has the cluster
    # installed only after its lead time (the catalog's, 12 weeks in pricing/prices.yaml
    # 2026-12; a share s of the year) and does the year's runs in it (the cluster has more
    # hours than they need): E less the idle draw of the (1 - s) of the year before delivery.
    v = c.before.candidate("b200").values
    y1 = c.before.candidate("b200").yearly[1]
    s = 1 - c.before.candidate("b200").inputs["lead_time_weeks"] / (365.25 / 7)
    assert y1["installed_share"] == pytest.approx(s, rel=1e-12) and y1["own_work_share"] == 1
    energy = v["energy_facility_kwh_per_year"]
    pue = c.before.candidate("b200").inputs["pue"]
    idle_kwh = v["idle_power_w"] * pue * 8760 / 1000
    energy_1 = energy - idle_kwh * (1 - s)
    elec = next(line for line in b200.components if line.key == "electricity")
    assert elec.delta == pytest.approx(
        (0.12 - 0.0826) * (energy_1 / 1.08 + energy * 3.0667841112), rel=1e-9)


def test_present_values_sum_to_npv(example):
    rate = example.inputs["finance.discount_rate"].value
    for c in example.candidates:
        if c.priced:
            assert sum(present_values(c, rate).values()) == pytest.approx(c.values["npv_tco"],
                                                                          rel=1e-12)


def test_ranking_flip_is_noted(catalog, example):
    # The example's cheapest option at twice its price (the card's, or the cloud's for a rent
    # option, at the tier it rents at) falls behind the runner-up: the price is most of its NPV.
    first, second = [c.id for c in example.candidates[:2]]
    info = example.candidate(first).info
    key = "card_price" if info.acquire != "rent" else (  # the tier it rents at
        "on_demand_price_per_card_hour" if example.candidate(first).values["rent_on_demand"]
        else "cloud_price_per_card_hour")
    c = whatif(load_scenario(), catalog, [f"candidates.{info.inputs_of or first}.{key}=x2"])
    assert c.ranking_before[:2] == [first, second] and c.ranking_after[0] == second
    assert c.ranking_flips
    assert any("flips" in n and second in n for n in c.notes)


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
        if x.id in ("rtx-4090", "rtx-4090-rent"):  # and the option renting it went with it
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
    # full-width digits: Python's \d and float() read 0.5 from them; the scenario file does not
    ("utilization=\uff10.\uff15", "must be a number"),
    ("utilization=+\uff11\uff10%", "is not a percentage"),
])
def test_bad_values_name_the_flag(text, message):
    with pytest.raises(TcoError, match=message) as exc:
        parse_setting(text)
    assert "--set" in str(exc.value)


def test_an_input_set_twice_is_refused(catalog):
    """--set utilization=0.5 --set utilization=0.6 took the later without a word (the header
    showed both)."""
    with pytest.raises(TcoError, match=r"--set utilization is given twice \('utilization=0.5' "
                                       r"and 'utilization=-10%'\); give each input once"):
        whatif(load_scenario(), catalog, ["utilization=0.5", "utilization=-10%"])


def test_unknown_path_suggests_closest(catalog):
    with pytest.raises(TcoError, match=r"did you mean: facility\.electricity_price_per_kwh"):
        whatif(load_scenario(), catalog, ["facility.electricity_price=0.1"])


def test_implausible_value_is_refused_with_the_setting_named(catalog):
    with pytest.raises(TcoError, match=r"with --set utilization=1\.5.*outside the plausible"):
        whatif(load_scenario(), catalog, ["utilization=1.5"])


def test_whole_number_input_refuses_a_fractional_result(catalog):
    with pytest.raises(TcoError, match="whole number"):
        whatif(load_scenario(), catalog, ["candidates.h100-sxm.cards=+15%"])


# --- a what-if edits the resolved inputs: the same as resolving the edited scenario ----------

TRICKY = Path(__file__).with_name("test_workbook_tricky.yaml")


def _trial_values(inp, fx):
    """An in-range change of the input, and a value no input accepts."""
    spec = inp.spec
    lo, hi = (spec.lo * fx, spec.hi * fx) if spec.money else (spec.lo, spec.hi)
    v = inp.value * 1.07 if inp.value else lo + (hi - lo) * 0.1
    v = min(max(v, lo), hi)
    if spec.integer:
        v = float(round(v)) if round(v) != inp.value else inp.value + 1.0
    return [v, 1e18]


def _outcome(run):
    try:
        return run(), None
    except TcoError as exc:
        return None, exc.render()


SERVE = Path(__file__).parents[1] / "tco" / "scenarios" / "train-and-serve.yaml"


@pytest.mark.parametrize("scenario", ["example", "tricky", "serve", "lease", "sites"])
def test_editing_resolved_inputs_equals_resolving_the_edited_scenario(catalog, scenario):
    """For every input path of the built-in example (what `tco init` writes) and of a scenario
    with a loan, a power cap, EUR, FP8 and an unpriced candidate: the what-if's direct edit
    gives the engine's result for the edited scenario, down to every source and digest, or
    refuses the value with the same message; or it leaves the edit to a full resolve."""
    if scenario == "lease":  # a lease beside a purchase, the catalog's lease terms (issue 13)
        from test_lease import LEASED

        loaded = load_scenario_text(LEASED, "leased.yaml")
    elif scenario == "sites":  # sites with their PUE and budgets, held stock by age
        from test_sites import EVERY_SITE_INPUT

        loaded = load_scenario_text(EVERY_SITE_INPUT, "sites.yaml")
    else:
        loaded = load_scenario({"example": None, "tricky": TRICKY, "serve": SERVE}[scenario])
    before = compute(loaded, catalog)
    fx = before.resolved.usd_to_currency
    direct = set()
    for path, inp in before.inputs.items():
        for value in _trial_values(inp, fx):
            label = f"--set {path}={value!r}"
            file = edited_file(before.provenance.scenario_file, label)
            fast, fast_error = _outcome(
                lambda p=path, v=value, f=file: engine_edited(before.resolved, before.model,
                                                             {p: v}, f))
            if fast is None and fast_error is None:
                continue  # resolve derives other inputs from this one: whatif resolves again
            slow, slow_error = _outcome(
                lambda p=path, v=value, lb=label: compute(apply_values(loaded, {p: v}, lb),
                                                          catalog))
            assert fast_error == slow_error, (path, value)
            if slow is None:
                continue
            direct.add(path)
            got = evaluate(fast, before.model)
            assert got.scenario_data == slow.scenario_data, path
            assert got.provenance == slow.provenance, path
            assert got.structure == slow.structure, path
            assert got.inputs == slow.inputs, path
            assert got.candidates == slow.candidates, (path, value)
    # most inputs take the direct way (a layout degree is a choice: editing one pins it, and
    # the scenario is resolved again)
    chosen = [p for p in before.inputs if ".layout." in p]
    assert not direct & set(chosen)
    assert len(direct) > 0.75 * (len(before.inputs) - len(chosen))
    assert "facility.electricity_price_per_kwh" in direct


def test_whatif_resizes_only_clusters_whose_size_depends_on_the_change(catalog, example):
    """The A100 cluster is sized for a 60-day deadline: the electricity price leaves its size
    as it was; its MFU sizes it again (and the engine agrees on the new size)."""
    before = example
    file = "x"
    tariff = engine_edited(before.resolved, before.model,
                           {"facility.electricity_price_per_kwh": 0.2}, file)
    assert "a100-deadline" in tariff.sized
    mfu = engine_edited(before.resolved, before.model,
                        {"candidates.a100-deadline.mfu": 0.3}, file)
    assert "a100-deadline" not in mfu.sized
    after = evaluate(mfu, before.model)
    assert after.candidate("a100-deadline").inputs["cards"] > \
        before.candidate("a100-deadline").inputs["cards"]  # slower cards: more of them


def test_candidate_ids_with_dots_compute_and_take_settings(catalog):
    """Ids may contain dots (`h100.sxm`): the engine, the report's input groups and a what-if
    on one of its inputs all find the candidate."""
    import datetime as dt

    from tco.exporters.report_view import View

    loaded = load_scenario_text(
        "workloads: [{id: w.1, params: 7e9, tokens: 1e11}]\n"
        "candidates:\n  - {id: h100.sxm, card: h100-sxm, cards: 64}\n"
        "  - {id: mi.300x, card: mi300x, deadline_days: 20}\n")
    result = compute(loaded, catalog)
    assert {c.id for c in result.candidates if c.priced} == {
        "h100.sxm", "mi.300x", "h100.sxm-rent", "mi.300x-rent"}  # and the options renting them
    assert result.candidate("h100.sxm").values["npv_tco"] > 0
    groups = View(result, "en", dt.date(2026, 12, 1)).assumptions()["candidates"]
    assert all(g["rows"] for g in groups)
    for setting in ("candidates.h100.sxm.card_price=-10%", "candidates.mi.300x.mfu=x0.8",
                    "workloads.w.1.tokens=x2"):
        got = whatif(loaded, catalog, [setting])
        path, _ = setting.split("=")
        value = got.after.inputs[path].value
        expected = compute(apply_values(loaded, {path: value}, f"--set {setting}"), catalog)
        assert got.after.candidates == expected.candidates, setting
