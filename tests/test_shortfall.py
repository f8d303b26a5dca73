"""Pricing the shortfall (issue 13, methodology §8): an option that cannot deliver the plan
shows the accelerator-hours it leaves undone and the rent that closes them, worked by hand.

Discounting at 8 % over five years: the rent closing the shortfall falls in year 5,
1 / 1.08**5 = 0.6805831970.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_options import YEAR_WEEKS, scenario

from tco.cli import cli
from tco.engine import compute
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

DISCOUNT_5 = 1 / 1.08 ** 5  # 0.6805831970


def test_a_short_option_is_closed_at_its_cards_cloud_price(catalog):
    """16 H100 a year late (test_options' shortfall case): capacity c < 1 planned years a year
    for 4 years leaves 5 - 4c years of runs waiting. Closing them rents 4 runs x (5 - 4c) x
    one run's accelerator-hours at the H100's cloud price, paid in year 5."""
    result = compute(load_scenario_text(scenario(
        f"  - {{id: small, card: h100-sxm, cards: 16, lead_time_weeks: {YEAR_WEEKS!r}}}\n",
        tokens=2e12)), catalog)
    c = result.candidate("small")
    cap = c.values["capacity_per_demand"]
    assert 0 < cap < 1
    backlog = 5 - 4 * cap  # years of planned runs still waiting
    hours = 4 * c.job["gpu_hours"] * backlog
    price = c.inputs["cloud_price_per_card_hour"]
    assert price == 2.35  # pricing/cloud.yaml: H100 SXM 1-yr committed, typical
    assert c.values["shortfall_card_hours"] == pytest.approx(hours, rel=1e-12)
    assert c.values["shortfall_rent_price"] == price
    assert c.values["shortfall_rent_cost"] == pytest.approx(hours * 2.35, rel=1e-12)
    assert c.values["npv_tco_plan_closed"] == pytest.approx(
        c.values["npv_tco"] + hours * 2.35 * DISCOUNT_5, rel=1e-12)
    assert c.values["npv_tco_plan_closed"] > c.values["npv_tco"]


def test_a_card_without_a_cloud_price_is_closed_at_the_cheapest_same_compute(catalog):
    """Gaudi 3 has no cloud price in the catalog. In region us the cheapest rent per sustained
    BF16 TFLOP-hour (peak x catalog MFU) among the cards that may be used there is the
    MI325X's: 1.45 USD per card-hour committed over 1,307.4 x 0.39 = 509.886 TFLOPS (0.002844
    per TFLOP-hour; MI300X: 1.35 / (1,307.4 x 0.29) = 0.003561; B200: 3.6 / (2,250 x 0.38)
    = 0.004211; the RTX 4090 is licence-barred from data centres). A Gaudi 3 card sustains
    1,835 x 0.36 = 660.6 TFLOPS, so the same compute rents at 1.45 x 660.6 / 509.886 =
    957.87 / 509.886 = 1.878596 USD per Gaudi 3 card-hour."""
    result = compute(load_scenario_text(scenario(
        "  - {id: g, card: gaudi3, cards: 8}\n", tokens=2e12)), catalog)
    c = result.candidate("g")
    price = 1.45 * (1835 * 0.36) / (1307.4 * 0.39)
    assert price == pytest.approx(1.878596, rel=1e-6)
    inp = result.inputs["candidates.g.shortfall_price_per_card_hour"]
    assert inp.value == pytest.approx(price, rel=1e-12)
    assert inp.origin == "derived" and "MI325X" in inp.source
    assert "cloud_price_per_card_hour" not in c.inputs  # no rent option, no cloud NPV
    assert c.values["plan_delivered_fraction"] < 1
    hours = c.values["plan_shortfall_runs"] * c.job["gpu_hours"]  # one workload: runs x h/run
    assert c.values["shortfall_card_hours"] == pytest.approx(hours, rel=1e-12)
    assert c.values["shortfall_rent_cost"] == pytest.approx(hours * price, rel=1e-12)
    assert c.values["npv_tco_plan_closed"] == pytest.approx(
        c.values["npv_tco"] + hours * price * DISCOUNT_5, rel=1e-12)


def test_an_option_that_delivers_the_plan_has_nothing_to_close(example):
    for c in example.candidates:
        if c.quantified and c.values["plan_delivered_fraction"] >= 1:
            assert c.values["shortfall_card_hours"] == 0
            assert c.values["npv_tco_plan_closed"] == c.values["npv_tco"]


def test_the_shortfall_and_its_closing_show_in_json_the_table_and_the_report(catalog, tmp_path):
    text = scenario("  - {id: small, card: h100-sxm, cards: 16}\n"
                    "  - {id: big, card: h100-sxm, cards: 4096}\n", tokens=2e12)
    path = tmp_path / "short.yaml"
    path.write_text(text)
    result = compute(load_scenario_text(text), catalog)
    small = result.candidate("small")
    assert small.values["plan_shortfall_runs"] > 0
    out = CliRunner().invoke(cli, ["compare", str(path), "--format", "json"])
    assert out.exit_code == 0, out.output
    cand = next(c for c in json.loads(out.output)["candidates"] if c["id"] == "small")
    assert cand["npv_tco_plan_closed"] == small.values["npv_tco_plan_closed"]
    assert cand["shortfall_card_hours"] == small.values["shortfall_card_hours"]
    table = CliRunner().invoke(cli, ["compare", str(path)]).output
    line = next(ln for ln in table.splitlines() if ln.startswith("  small: delivers"))
    assert "runs short" in line and "$2.35/card-h" in line
    html = render_html(result, "en")
    detail = html[html.index('id="candidate-small"'):]
    detail = detail[:detail.index("</article>")]
    assert "Renting the shortfall" in detail and "NPV of delivering the whole plan" in detail
    zh = render_html(result, "zh")
    assert "租用补足缺口" in zh
