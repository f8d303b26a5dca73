"""The report never recommends a card that may not be bought, and says why a cheaper one lost."""

import html
import re

from tco.engine import compute
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

BARRED = """
name: barred
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: h100, card: h100-sxm, cards: 512}
  - {id: ascend, card: ascend-910b, cards: 1024}
facility: {region: cn}
"""


def text_of(page: str) -> str:
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_barred_cheaper_card_is_explained_not_recommended(catalog):
    result = compute(load_scenario_text(BARRED), catalog)
    h100, ascend = result.candidate("h100"), result.candidate("ascend")
    assert h100.values["npv_tco"] < ascend.values["npv_tco"]  # the barred card is cheaper
    text = text_of(render_html(result, "en"))
    assert "Recommendation: buy Huawei Ascend 910B" in text
    assert "NVIDIA H100 SXM5 80GB has a lower net present value" in text
    assert "cannot be bought or deployed here" in text
    zh = text_of(render_html(result, "zh"))
    assert "在此无法采购或部署" in zh
