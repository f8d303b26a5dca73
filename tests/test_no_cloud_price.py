"""A card without a cloud price (the Ascend 910B and the H20 in China: no public CNY price of
a Chinese cloud, docs/methodology.md §10) leaves renting out of the comparison; the
recommendation and the report say so, and how to add a quote, instead of staying silent (the
issue 13 complaint was a China report whose renting figure contradicted its advice; with no
price, renting simply vanished from it).
"""

from __future__ import annotations

import html
import re

from report_support import add_analyses, unplanned
from test_report_live import browser, summary_said_live  # noqa: F401 (a fixture)

from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.decision_words import reasons_text
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

CHINA = """
name: China, no cloud price
currency: CNY
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: ascend, card: ascend-910b, cards: 64}
facility: {region: cn}
finance: {horizon_years: 3}
"""
SAID = ("renting was not compared: no cloud price for Huawei Ascend 910B (Atlas 800T A2 "
        "module) is known here; give a quote as cloud_price_per_card_hour on the candidate "
        "(per card-hour, in CNY) to compare it")


def words(page: str) -> str:
    page = re.sub(r"<(script|style).*?</\1>", "", page, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", "", page)))


def test_the_recommendation_says_renting_was_not_compared(catalog):
    r = compute(load_scenario_text(CHINA), catalog)
    assert [c.id for c in r.candidates] == ["ascend"]  # no rent option: no price to rent at
    assert r.candidate("ascend").values.get("cloud_npv") is None
    rec = recommend(r)
    assert rec is not None and rec.option == "ascend" and SAID in reasons_text(rec, r.currency)
    assert "rent_not_compared" in rec.codes()
    # the report words the option-level recommendation where the scenario is not planned
    # (planned, the plan takes no action here: undone runs cost only their delay, no rent
    # being known, and that is less than buying the cards; tests/test_plan_outputs.py)
    assert ("Renting was not compared: no cloud price for Huawei Ascend 910B (Atlas 800T A2 "
            "module) is known here (the catalog has none); give a quote as "
            "cloud_price_per_card_hour on the candidate, per card-hour in CNY, to compare it."
            ) in words(render_html(unplanned(r)))
    assert ("未与租用比较：此处没有 华为昇腾 910B（Atlas 800T A2 模组） 的已知云租用价格"
            "（目录中没有）") in words(render_html(unplanned(r), lang="zh"))
    # with a quote, renting is compared and the sentence goes
    quoted = compute(load_scenario_text(CHINA.replace(
        "cards: 64}", "cards: 64, cloud_price_per_card_hour: 12}")), catalog)
    assert quoted.candidate("ascend").values["cloud_npv"] > 0
    assert "rent_not_compared" not in recommend(quoted).codes()


def test_the_live_page_says_it_as_the_static_one(browser, catalog, tmp_path):  # noqa: F811
    r = add_analyses(unplanned(compute(load_scenario_text(CHINA), catalog)))
    summary_said_live(browser, r, tmp_path, {"en": "Renting was not compared",
                                             "zh": "未与租用比较"})
