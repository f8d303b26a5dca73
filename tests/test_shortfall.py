"""Pricing the shortfall (issue 13, methodology §8): an option that cannot deliver the plan
shows the accelerator-hours it leaves undone and the rent that closes them, worked by hand.

Discounting at 8 % over five years: the rent closing the shortfall falls in year 5,
1 / 1.08**5 = 0.6805831970.
"""

from __future__ import annotations

import json
import math

import pytest
from click.testing import CliRunner
from conftest import FROZEN
from test_options import YEAR_WEEKS, scenario

from tco.cli import cli
from tco.engine import compute
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

DISCOUNT_5 = 1 / 1.08 ** 5  # 0.6805831970


def test_a_short_option_is_closed_at_its_cards_cloud_price(frozen):
    """16 H100 a year late (test_options' shortfall case): capacity c < 1 planned years a year
    for 4 years leaves 5 - 4c years of runs waiting. Closing them rents 4 runs x (5 - 4c) x
    one run's accelerator-hours at the H100's on-demand cloud price (rented once, in year 5:
    a committed reservation would be paid for every hour of its term), paid in year 5."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data)
    result = compute(load_scenario_text(scenario(
        f"  - {{id: small, card: h100-sxm, cards: 16, lead_time_weeks: {YEAR_WEEKS!r}}}\n",
        tokens=2e12)), catalog)
    c = result.candidate("small")
    cap = c.values["capacity_per_demand"]
    assert 0 < cap < 1
    backlog = 5 - 4 * cap  # years of planned runs still waiting
    hours = 4 * c.job["gpu_hours"] * backlog
    assert c.inputs["cloud_price_per_card_hour"] == 2.35  # the scenario's tier: 1-yr committed
    price = c.inputs["on_demand_price_per_card_hour"]
    assert price == 3.49  # pricing/cloud.yaml: H100 SXM on-demand, typical
    assert c.values["shortfall_card_hours"] == pytest.approx(hours, rel=1e-12)
    assert c.values["shortfall_rent_price"] == price
    assert c.values["shortfall_rent_cost"] == pytest.approx(hours * 3.49, rel=1e-12)
    rented = c.values["npv_tco"] + hours * 3.49 * DISCOUNT_5
    assert c.values["shortfall_rent_npv"] == pytest.approx(hours * 3.49 * DISCOUNT_5, rel=1e-12)
    # the closed plan takes the cheaper of renting that and buying more cards
    assert c.values["npv_tco_plan_closed"] == pytest.approx(
        min(rented, c.values["npv_tco_bought_larger"]), rel=1e-12)
    assert c.values["npv_tco_plan_closed"] > c.values["npv_tco"]


def test_a_card_without_a_cloud_price_is_closed_at_the_cheapest_same_compute(frozen):
    """Gaudi 3 has no cloud price in the catalog. In region us the cheapest rent per sustained
    BF16 TFLOP-hour (peak x catalog MFU), on demand (a shortfall is rented once, in the last
    year), among the cards that may be used there is the RTX PRO 6000 Blackwell Server's: 0.52
    USD per card-hour (SemiAnalysis retail tier, pricing/cloud.yaml) over 500 x 0.33 = 165
    TFLOPS (0.003152 per TFLOP-hour; MI325X: 2.10 / (1,307.4 x 0.39) = 0.004119; MI300X: 1.99
    / (1,307.4 x 0.29) = 0.005249; the RTX 4090 and 5090 are licence-barred from data centres).
    A Gaudi 3 card sustains 1,835 x 0.36 = 660.6 TFLOPS, so the same compute rents at
    0.52 x 660.6 / 165 = 2.081891 USD per Gaudi 3 card-hour."""
    catalog = frozen  # the pre-2026-12 prices (tests/data) with the cards added since
    result = compute(load_scenario_text(scenario(
        "  - {id: g, card: gaudi3, cards: 8}\n", tokens=2e12)), catalog)
    c = result.candidate("g")
    price = 0.52 * (1835 * 0.36) / (500 * 0.33)
    assert price == pytest.approx(2.081891, rel=1e-6)
    inp = result.inputs["candidates.g.shortfall_price_per_card_hour"]
    assert inp.value == pytest.approx(price, rel=1e-12)
    assert inp.origin == "derived" and "RTX PRO 6000" in inp.source
    assert "cloud_price_per_card_hour" not in c.inputs  # no rent option, no cloud NPV
    assert c.values["plan_delivered_fraction"] < 1
    hours = c.values["plan_shortfall_runs"] * c.job["gpu_hours"]  # one workload: runs x h/run
    assert c.values["shortfall_card_hours"] == pytest.approx(hours, rel=1e-12)
    assert c.values["shortfall_rent_cost"] == pytest.approx(hours * price, rel=1e-12)
    rented = c.values["npv_tco"] + hours * price * DISCOUNT_5
    assert c.values["npv_tco_plan_closed"] == pytest.approx(
        min(rented, c.values["npv_tco_bought_larger"]), rel=1e-12)


def test_an_option_that_delivers_the_plan_has_nothing_to_close(example):
    for c in example.candidates:
        if c.quantified and c.values["plan_delivered_fraction"] >= 1:
            assert c.values["shortfall_card_hours"] == 0
            assert c.values["npv_tco_plan_closed"] == c.values["npv_tco"]


def test_the_shortfall_and_its_closing_show_in_json_the_table_and_the_report(frozen, tmp_path):
    catalog = frozen  # the pre-2026-12 prices (tests/data): H100 on demand $3.49
    text = scenario("  - {id: small, card: h100-sxm, cards: 16}\n"
                    "  - {id: big, card: h100-sxm, cards: 4096}\n", tokens=2e12)
    path = tmp_path / "short.yaml"
    path.write_text(text)
    result = compute(load_scenario_text(text), catalog)
    small = result.candidate("small")
    assert small.values["plan_shortfall_runs"] > 0
    out = CliRunner().invoke(cli, ["compare", str(path), "--catalog", FROZEN, "--format",
                                   "json"])
    assert out.exit_code == 0, out.output
    cand = next(c for c in json.loads(out.output)["candidates"] if c["id"] == "small")
    assert cand["npv_tco_plan_closed"] == small.values["npv_tco_plan_closed"]
    assert cand["shortfall_card_hours"] == small.values["shortfall_card_hours"]
    table = CliRunner().invoke(cli, ["compare", str(path), "--catalog", FROZEN]).output
    line = next(ln for ln in table.splitlines() if ln.startswith("  small: delivers"))
    assert "runs short" in line and "$3.49/card-h" in line  # on demand
    html = render_html(result, "en")
    detail = html[html.index('id="candidate-small"'):]
    detail = detail[:detail.index("</article>")]
    assert "Renting the shortfall" in detail and "NPV of delivering the whole plan" in detail
    zh = render_html(result, "zh")
    assert "租用补足缺口" in zh


CLOSE = ("name: close\nrent_options: none\ncost_of_delay_per_week: 0\n"
         "workloads:\n  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 40}\n"
         "candidates:\n  - {id: h, card: h100-sxm, cards: 32, lead_time_weeks: 0, "
         "on_demand_price_per_card_hour: PRICE}\n"
         "  - {id: a, card: h100-sxm, cards: auto, lead_time_weeks: 0}\n"
         "finance: {horizon_years: 3, discount_rate: 0.08}\n"
         "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n")


@pytest.mark.parametrize("price, buys", [(2.35, False), (40.0, True)])
def test_a_short_bought_option_is_closed_the_cheaper_way(catalog, price, buys, tmp_path):
    """32 H100 bought for 40 runs a year have capacity c = 0.20009 of the plan's hours a
    year, ready at once (no lead time, CUDA). Delivering H = 3 years from year 0 needs
    c' = H / (H - 0) = 1, so 32 x 1 / c = 159.9 cards, whole servers of 8: 160, 128 more.
    Each added card costs the cluster's NPV per card (no port, upkeep or delay to take out):
    the larger cluster's NPV is 160 / 32 of this one's. The estimate assumes linear scaling;
    `cards: auto` (option a, same card and terms) sizes with the model's own, where each
    step's fixed costs weigh more on a larger cluster's shorter steps: 176 cards, an NPV no
    lower than the estimate's. Renting the shortfall costs card-hours x the on-demand price
    in year 3 (1 / 1.08**3). The closed plan takes the cheaper: at 2.35 USD/card-h renting,
    at 40 USD/card-h buying."""
    r = compute(load_scenario_text(CLOSE.replace("PRICE", repr(price))), catalog)
    h, a = r.candidate("h"), r.candidate("a")
    v = h.values
    cap = v["capacity_per_demand"]
    assert cap == pytest.approx(0.20009, abs=1e-5) and v["ready_years"] == 0
    assert v["shortfall_capacity_needed"] == 1
    assert math.ceil(32 / cap / 8) * 8 == 160 < a.inputs["cards"] == 176
    assert v["shortfall_buy_cards"] == 128
    assert v["npv_per_card"] == pytest.approx(v["npv_tco"] / 32, rel=1e-12)
    bigger = v["npv_tco"] * 160 / 32
    assert v["shortfall_buy_npv"] == pytest.approx(128 * v["npv_tco"] / 32, rel=1e-12)
    assert v["npv_tco_bought_larger"] == pytest.approx(bigger, rel=1e-12)
    assert bigger <= a.values["npv_tco"]
    rent = v["shortfall_card_hours"] * price / 1.08 ** 3
    assert v["shortfall_rent_npv"] == pytest.approx(rent, rel=1e-12)
    rented = v["npv_tco"] + rent
    assert (bigger < rented) is buys and v["shortfall_closed_by_buying"] == float(buys)
    assert v["npv_tco_plan_closed"] == pytest.approx(min(rented, bigger), rel=1e-12)
    path = tmp_path / "close.yaml"
    path.write_text(CLOSE.replace("PRICE", repr(price)))
    table = CliRunner().invoke(cli, ["compare", str(path)]).output
    assert "buying 128 more cards (cards: auto's size at linear scaling) adds" in table
    assert ("closed the cheaper way (buying)" if buys else
            "closed the cheaper way (renting)") in table


def test_an_option_that_delivers_has_nothing_to_close_by_buying(catalog):
    r = compute(load_scenario_text(CLOSE.replace("PRICE", "2.35").replace(
        "runs_per_year: 40", "runs_per_year: 1")), catalog)
    v = r.candidate("h").values
    assert v["plan_delivered_fraction"] == 1
    assert v["shortfall_buy_cards"] == 0 and v["shortfall_buy_npv"] == 0
    assert v["shortfall_closed_by_buying"] == 0
    assert v["npv_tco_plan_closed"] == v["npv_tco"]


@pytest.mark.parametrize("price", [2.35, 40.0])
def test_the_shortfall_closed_after_tax(catalog, price):
    """The same short option with income tax at 25 % and every cost qualifying R&D deducted
    twice (methodology §20): each unit of a research cost deducted as paid keeps
    1 - 0.25 x 2 = 0.5 of itself after tax. Renting the shortfall is such a cost: after tax it
    adds half the rent's present value. Buying more adds 128 cards at the cluster's after-tax
    NPV per card (no port, upkeep or delay to take out here): 160 / 32 of its after-tax NPV.
    The closed plan after tax takes the cheaper of the two after tax, which Monte Carlo ranks
    a short draw by when the options are ranked after tax."""
    text = CLOSE.replace("PRICE", repr(price)).replace(
        "discount_rate: 0.08}", "discount_rate: 0.08, tax_rate: 0.25, tax_rd_share: 1, "
        "tax_rd_extra_deduction_fraction: 1}")
    v = compute(load_scenario_text(text), catalog).candidate("h").values
    after = v["npv_tco_after_tax"]
    assert after < v["npv_tco"]
    rent = v["shortfall_card_hours"] * price / 1.08 ** 3
    rented_after = after + 0.5 * rent
    bigger_after = after * 160 / 32
    assert v["npv_per_card_after_tax"] == pytest.approx(after / 32, rel=1e-12)
    assert v["npv_tco_bought_larger_after_tax"] == pytest.approx(bigger_after, rel=1e-12)
    assert v["npv_tco_plan_closed_after_tax"] == pytest.approx(
        min(rented_after, bigger_after), rel=1e-12)
    # at 2.35 renting is the cheaper way before and after tax; at 40 buying
    assert (bigger_after < rented_after) is (price == 40.0)
    # without tax the closed plan after tax is the closed plan
    plain = compute(load_scenario_text(CLOSE.replace("PRICE", repr(price))), catalog)
    pv = plain.candidate("h").values
    assert pv["npv_tco_plan_closed_after_tax"] == pytest.approx(pv["npv_tco_plan_closed"],
                                                                rel=1e-9)


def test_ranked_after_tax_the_reason_closes_the_shortfall_the_cheaper_way_after_tax(catalog):
    """At 5 USD a card-hour buying closes the shortfall more cheaply before tax (renting
    costs more above about 2.9); after 40 % tax with R&D costs deducted twice and the purchase
    deducted over 30 years, renting (kept at 0.2) is the cheaper way below about 7.3, and the
    recommendation's reason (ranked after tax) says so with the closed NPV after tax."""
    from tco.decide import recommend_option

    text = CLOSE.replace("PRICE", "5.0").replace(
        "  - {id: a, card: h100-sxm, cards: auto, lead_time_weeks: 0}\n", "").replace(
        "discount_rate: 0.08}", "discount_rate: 0.08, tax_rate: 0.4, tax_life_years: 30, "
        "tax_rd_share: 1, tax_rd_extra_deduction_fraction: 1}")
    r = compute(load_scenario_text(text), catalog)
    v = r.candidate("h").values
    assert v["shortfall_closed_by_buying"] == 1 and v["shortfall_closed_by_buying_after_tax"] == 0
    assert v["npv_tco_plan_closed_after_tax"] == pytest.approx(
        v["npv_tco_after_tax"] + 0.2 * v["shortfall_rent_npv"], rel=1e-12)
    reason = next(x for x in recommend_option(r).reasons if x.code.startswith("none_delivers"))
    assert reason.code == "none_delivers_close_by_renting"
    assert reason.figures["closed_npv"] == v["npv_tco_plan_closed_after_tax"]
