"""Cluster sizing for a deadline or a facility power cap, and risk flags by region."""

import pytest

from tco import forked, sizing
from tco.decide.rules import single
from tco.engine import compute
from tco.errors import ScenarioError
from tco.layout import NEAR_BEST
from tco.scenario import load_scenario_text

SCENARIO = """
name: sizing
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: fast, card: h100-sxm, deadline_days: 30}
  - {id: capped, card: h100-sxm, power_cap_kw: 1000}
  - {id: fixed, card: h100-sxm, cards: 512}
facility: {region: REGION}
"""


@pytest.fixture(scope="module")
def result(catalog):
    return compute(load_scenario_text(SCENARIO.replace("REGION", "us")), catalog)


def test_deadline_picks_the_smallest_cluster_that_meets_it(result, catalog):
    fast = result.candidate("fast")
    assert fast.job["wall_days"] <= 30
    cards = fast.inputs["cards"]
    assert cards % 8 == 0  # whole HGX servers
    # one server fewer misses the deadline, but for the layout search's ties: a layout within
    # NEAR_BEST (1%) of the fastest counts as equal and the simplest is kept, so a smaller
    # cluster whose whole replicas force another layout may be up to that much faster
    text = SCENARIO.replace("REGION", "us").replace("deadline_days: 30", f"cards: {int(cards) - 8}")
    smaller = compute(load_scenario_text(text), catalog).candidate("fast")
    assert (smaller.job["wall_days"] > 30
            or smaller.job["wall_days"] >= fast.job["wall_days"] / NEAR_BEST)


def test_power_cap_picks_the_largest_cluster_within_it(result, catalog):
    capped = result.candidate("capped")
    cards = capped.inputs["cards"]
    facility_kw = capped.values["rated_power_w"] * capped.inputs["pue"] / 1000
    assert facility_kw <= 1000
    # by hand: per server 8 x 700 W + node power, times PUE; one more server exceeds the cap
    per_server_kw = (8 * capped.inputs["tdp_w"] + capped.inputs["node_power_w"]) / 1000
    assert facility_kw + per_server_kw * capped.inputs["pue"] > 1000
    assert facility_kw == pytest.approx(cards / 8 * per_server_kw * capped.inputs["pue"])


def test_impossible_deadline_is_infeasible_with_reason(catalog):
    text = SCENARIO.replace("REGION", "us").replace("deadline_days: 30", "deadline_days: 0.01")
    fast = compute(load_scenario_text(text), catalog).candidate("fast")
    assert not fast.feasible
    assert "within 0.01 days" in " ".join(fast.reasons)


def test_export_controls_flag_by_region(catalog):
    cn = compute(load_scenario_text(SCENARIO.replace("REGION", "cn")), catalog)
    flags = " ".join(cn.candidate("fixed").info.flags)
    assert "export control" in flags
    us = compute(load_scenario_text(SCENARIO.replace("REGION", "us")), catalog)
    assert "export control" not in " ".join(us.candidate("fixed").info.flags)


def test_unreachable_deadline_keeps_a_cluster_that_can_run(catalog):
    # No H100 cluster trains 70B on 2T tokens in half a day; the fallback must still be a
    # cluster that makes progress (goodput > 0), never a size whose numbers turn negative.
    text = SCENARIO.replace("REGION", "us").replace("deadline_days: 30", "deadline_days: 0.5")
    fast = compute(load_scenario_text(text), catalog).candidate("fast")
    assert not fast.feasible
    assert fast.job["goodput"] > 0
    assert fast.job["wall_days"] > 0.5
    assert fast.job["cost_per_job"] > 0


def test_huge_power_cap_stops_where_more_cards_stop_helping(catalog):
    # With no practical power limit, the sizing stops at the fastest cluster: past it, the
    # interruptions of a bigger cluster cost more time than its extra cards save.
    text = SCENARIO.replace("REGION", "us").replace("power_cap_kw: 1000", "power_cap_kw: 1e9")
    capped = compute(load_scenario_text(text), catalog).candidate("capped")
    assert capped.feasible and capped.job["goodput"] > 0
    cards = int(capped.inputs["cards"])
    for other in (cards - 8, cards + 8):
        alt = text.replace("power_cap_kw: 1e9", f"cards: {other}")
        assert compute(load_scenario_text(alt), catalog).candidate("capped").job[
            "wall_days"] >= capped.job["wall_days"]


BARRED = """
name: barred
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: h20, card: h20, cards: 1024, card_price: 1000}
  - {id: ascend, card: ascend-910b, cards: 1024}
  - {id: gaming, card: rtx-4090, cards: 2048, card_price: 100}
facility: {region: cn}
"""


def test_barred_cards_are_never_recommended(catalog):
    # The H20 is export-controlled for China in the catalog and the RTX 4090's licence bars
    # data-centre use: even at a token price they rank after a card that may be bought.
    result = compute(load_scenario_text(BARRED), catalog)
    order = [c.id for c in result.candidates]
    assert result.candidate("h20").info.blocking and result.candidate("gaming").info.blocking
    assert not result.candidate("ascend").info.blocking
    assert order[0] == "ascend"
    assert single(result) is not None and single(result).id == "ascend"
    # ... although the barred H20 would be cheaper
    assert result.candidate("h20").values["npv_tco"] < result.candidate("ascend").values["npv_tco"]


@pytest.mark.parametrize("first", [1, 150, 1000])
def test_looking_among_the_smallest_sizes_first_changes_nothing(catalog, monkeypatch, first):
    """A deadline's size is looked for among sizing's FIRST_SIZES smallest sizes first,
    then among all: whatever that number (here 1, 150 or 1,000 servers, against every size
    at once), the sizes and every number are the same, whether the deadline is met within
    them, only after them, or never."""
    from tco import sizing

    text = SCENARIO.replace("REGION", "us").replace(
        "  - {id: fixed, card: h100-sxm, cards: 512}",
        "  - {id: tight, card: h100-sxm, deadline_days: 6}\n"
        "  - {id: never, card: h100-sxm, deadline_days: 0.5}")
    runs = []
    for n in (first, sizing.MAX_SIZING_NODES):
        monkeypatch.setattr(sizing, "FIRST_SIZES", n)
        result = compute(load_scenario_text(text), catalog)
        runs.append([(c.id, c.inputs, c.values, c.jobs) for c in result.candidates])
    assert runs[0] == runs[1]
    cards = {cid: inputs["cards"] for cid, inputs, _v, _j in runs[0]}
    # fast is met within 150 servers, tight only past them (within 1,000), never not at all
    assert 8 < cards["fast"] <= 150 * 8 < cards["tight"] <= 1000 * 8


# --- many candidates: sized and laid out in forked processes -------------------------------
# tco.sizing spreads a scenario of SPLIT_AT candidates or more over forked processes, each
# sizing and laying out a share of them; what they give is what one process gives.
MANY = """
name: many
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
""" + "".join(f"  - {{id: c{i}, card: {card}, {size}}}\n" for i, (card, size) in enumerate(
    (card, size) for card in ("h100-sxm", "mi300x", "b200")
    for size in ("deadline_days: 30", "deadline_days: 60", "cards: 512", "power_cap_kw: 2000")))


def _inputs(result):
    return {p: (i.value, i.source) for p, i in result.resolved.inputs.items()}


def test_sizing_in_processes_gives_what_one_process_gives(catalog, monkeypatch):
    if not forked.can_fork():
        pytest.skip("this platform does not fork")
    one = compute(load_scenario_text(MANY), catalog)
    shares = []
    real = sizing._shares

    def spy(model, resolved, todo, kinds):
        got = real(model, resolved, todo, kinds)
        shares.append([len(s) for s in got])
        return got

    monkeypatch.setattr(sizing, "SPLIT_AT", 2)
    monkeypatch.setattr(sizing, "_shares", spy)
    monkeypatch.setattr(sizing.os, "cpu_count", lambda: 2)
    spread = compute(load_scenario_text(MANY), catalog)
    assert shares == [[6, 6]]  # twelve candidates, six (card, target) groups a process
    assert _inputs(spread) == _inputs(one)
    assert [c.values for c in spread.candidates] == [c.values for c in one.candidates]
    # the deadlines were sized: 30 days takes more cards than 60
    assert one.candidate("c0").inputs["cards"] > one.candidate("c1").inputs["cards"]


def test_an_error_while_sizing_in_processes_is_raised_as_itself(catalog, monkeypatch):
    def refuse(model, resolved, cid, values, formulas=None):
        raise ScenarioError(f"{cid}: refused", file="many.yaml", field=f"candidates.{cid}")

    monkeypatch.setattr(sizing, "SPLIT_AT", 2)
    monkeypatch.setattr(sizing.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(sizing, "_size", refuse)
    with pytest.raises(ScenarioError, match="c0: refused"):
        compute(load_scenario_text(MANY), catalog)


def test_few_candidates_are_sized_in_this_process(catalog, monkeypatch):
    monkeypatch.setattr(sizing.os, "cpu_count", lambda: 8)
    result = compute(load_scenario_text(MANY), catalog)
    todo = list(result.structure.candidates)
    assert len(todo) < sizing.SPLIT_AT
    kinds = dict(zip(todo, result.structure.sizing))
    assert sizing._shares(result.model, result.resolved, todo, kinds) == [todo]
