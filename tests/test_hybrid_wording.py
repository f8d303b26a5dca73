"""When renting wins and the cheapest option that owns is a hybrid (an owned base with the
peaks rented), the reasons and the report name it as a hybrid: they called it "the cheapest
bought option" (and "Buying costs more"), which a reader checks against the table and finds
to be a hybrid."""

from __future__ import annotations

import pytest
from report_support import add_analyses, unplanned

from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.decision_words import reason_text
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

RENT_OR_HYBRID = """\
name: rent or own a base
currency: USD
workloads:
  - {id: llama-70b, kind: pretrain, params: 70e9, tokens: 2e12, precision: bf16,
     runs_per_year: 4}
candidates:
  - {id: b200-hybrid, card: b200, cards: 384, acquire: hybrid}
  - {id: b200-cloud, card: b200, cards: 512, acquire: rent}
finance: {horizon_years: 5, discount_rate: 0.08}
"""


@pytest.fixture(scope="module")
def result(catalog):
    return add_analyses(compute(load_scenario_text(RENT_OR_HYBRID, "s.yaml"), catalog))


def test_the_reason_names_the_hybrid_as_a_hybrid(result):
    rec = recommend(result)
    assert rec is not None and rec.mode == "rent" and rec.option == "b200-cloud"
    hybrid = result.candidate("b200-hybrid")
    gap = hybrid.values["npv_tco"] - rec.npv_tco
    assert gap > 0
    (said,) = [r for r in rec.reasons if r.figures.get("option") == "b200-hybrid"]
    assert said.code == "hybrid_dearer" and said.figures["diff"] == pytest.approx(gap)
    # worded as a hybrid, never as a purchase
    words = reason_text(said, result.currency)
    assert words.startswith("owning a base and renting the peaks costs more: the cheapest "
                            "hybrid option (b200-hybrid)"), words
    assert "bought" not in words and "buying" not in words


@pytest.mark.parametrize(("lang", "start"), [
    ("en", "Owning a base and renting the peaks costs more: the cheapest hybrid option"),
    ("zh", "自有基础集群加租用峰值更贵：最便宜的混合方案")])
def test_the_report_names_the_hybrid_as_a_hybrid(result, lang, start):
    page = render_html(unplanned(result), lang=lang)  # the option-level reasons
    # the summary's "also consider" list (the page also carries every string for its script)
    text = page[page.index('<ul class="consider">'):]
    text = text[:text.index("</ul>")]
    assert start in text, text
    assert "Buying costs more" not in text and "购买更贵" not in text
