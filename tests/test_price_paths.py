"""Price paths and next generations in the planner (methodology §19, "Price paths"): a server
ordered t years after the decision costs price x (1 + card_price_change_per_year)^t, a
card-hour rented then rent x (1 + rent_change_per_year)^t, and a card not yet on sale
(`available_in_months`) may not be ordered or rented before. Expected values by hand."""

from __future__ import annotations

import pytest

import tco
from tco.plan.build import problem

SCENARIO = """
name: buy now or wait for the next generation
currency: USD
utilization: 0.85
cost_of_delay_per_week: 0
rent_options: none
workloads:
  - {{id: pre, kind: pretrain, params: 70.0e+9, tokens: 2.0e+12, precision: bf16, runs_per_year: 2}}
candidates:
  - {{id: now, card: h100-sxm, cards: 1024, lead_time_weeks: 0,
      card_price_change_per_year: {g}, rent_change_per_year: {g}}}
  - {{id: next, card: b200, cards: 1024, lead_time_weeks: 0, available_in_months: {months},
      card_price_change_per_year: {g}, rent_change_per_year: {g}}}
facility: {{region: us}}
finance: {{horizon_years: 4, discount_rate: 0.08}}
"""


def _compare(g: float, months: int):
    return tco.compare(SCENARIO.format(g=g, months=months))


def test_prices_follow_the_path_and_a_next_generation_waits_for_its_month():
    r = _compare(-0.3, 12).result
    prob, _sup = problem(r.structure, {c.id: c.info for c in r.candidates}, r.env)
    card = {c.id: c for c in prob.cards}
    nxt, now = card["next"], card["now"]
    assert nxt.first_order_period == 12 and now.first_order_period == 0
    # 30 % cheaper a year: 0.7 after 12 months, 0.7^0.5 = 0.836660 after 6 (no VAT here)
    assert nxt.server_price[12] / nxt.server_price[0] == pytest.approx(0.7, rel=1e-12)
    assert now.server_price[6] / now.server_price[0] == pytest.approx(0.836660, rel=1e-6)
    for tier, prices in now.rent.items():
        assert prices[12] / prices[0] == pytest.approx(0.7, rel=1e-12), tier


def test_a_falling_price_and_a_next_generation_in_a_year_make_the_planner_wait():
    """Constant prices with the next generation on sale now: the plan buys at month 0. With
    prices and rents falling 30 % a year and the next generation on sale in 12 months: it buys
    nothing at month 0 (it rents what the first year needs, as late in the year as it may),
    uses the next generation from its month on, and says so with what that saves against the
    plan with the card on sale now."""
    before = _compare(0.0, 0).result.plans[0]
    assert any(a.action == "buy" and a.start_years == 0.0 for a in before.actions)
    result = _compare(-0.3, 12).result
    after = result.plans[0]
    assert not any(a.action == "buy" and a.start_years == 0.0 for a in after.actions)
    uses_next = [a for a in after.actions if a.option == "next" and a.action != "sell"]
    assert uses_next and min(a.start_years for a in uses_next) >= 1.0
    assert after.npv_tco == pytest.approx(after.values["objective"], rel=1e-9)
    rival = next(p for p in result.plans if p.id == "plan-now")
    assert rival.npv_tco > after.npv_tco
    (w,) = after.waits
    first = min(uses_next, key=lambda a: a.start_years)
    assert (w.card, w.action, w.month, w.rival) == (
        "next", first.action, round(first.start_years * 12), "now")
    assert w.month >= 12  # not before it goes on sale
    assert w.saving == pytest.approx(rival.npv_tco - after.npv_tco, rel=1e-12)
    # explained in every output: JSON's facts, the table, the report in English and Chinese
    from tco.exporters.data import compare_dict, compare_table
    from tco.exporters.fmt import money
    from tco.exporters.html import render_html

    saving = money(rival.npv_tco - after.npv_tco, "USD")
    verb = {"buy": ("buying", "buys", "购买"), "rent": ("renting", "rents", "租用")}[w.action]
    assert w.on_sale_month == 12
    said = (f"waits for next (on sale from month 12): {verb[0]} it from month {w.month} costs "
            f"{saving} less than the best plan with now, on sale now")
    plan = compare_dict(result)["plan"]
    assert plan["facts"] == [said]
    assert plan["waits"] == [{"card": "next", "on_sale_month": 12, "action": w.action,
                              "month": w.month,
                              "saving": w.saving, "rival": "now"}]
    assert f"  Why it waits: {said}" in compare_table(result)
    assert (f"Why it waits: next goes on sale in month 12; the plan {verb[1]} it from month "
            f"{w.month}, and that costs {saving} less than the best plan with now, which is on "
            "sale now."
            in render_html(result, "en"))
    zh = render_html(result, "zh")
    assert f"为何等待：next 于第 12 个月上市，计划自第 {w.month} 个月起{verb[2]}该卡" in zh


def test_every_plan_of_the_path_scenario_costs_its_objective():
    for p in _compare(-0.3, 12).result.plans:
        assert p.npv_tco == pytest.approx(p.values["objective"], rel=1e-9), p.id
