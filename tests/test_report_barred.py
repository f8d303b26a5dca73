"""The report never recommends a card that may not be bought, and says why a cheaper one lost."""

import html
import re

from report_support import unplanned

from tco.decide.rules import single
from tco.engine import compute
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

# rent_options: none: renting the H100 capacity installed in China is allowed (only buying
# new is barred, tco/policy.py) and would be recommended; these tests are about buying, so
# about the option-level recommendation: the report words it where the scenario is not
# planned (the planner rents the installed H100s, rent_options listing options only)
BARRED = """
name: barred
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: h100, card: h100-sxm, cards: 512}
  - {id: ascend, card: ascend-910b, cards: 1024}
facility: {region: cn}
"""


def text_of(page: str) -> str:
    """What a reader sees: the page without tags, and without the live report's scripts."""
    page = re.sub(r"<script[^>]*>.*?</script>", " ", page, flags=re.DOTALL)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def test_barred_cheaper_card_is_explained_not_recommended(catalog):
    result = compute(load_scenario_text(BARRED), catalog)
    h100, ascend = result.candidate("h100"), result.candidate("ascend")
    assert h100.values["npv_tco"] < ascend.values["npv_tco"]  # the barred card is cheaper
    text = text_of(render_html(unplanned(result), "en"))
    assert "Recommendation: buy Huawei Ascend 910B" in text
    assert "NVIDIA H100 SXM5 80GB has a lower net present value" in text
    assert "cannot be bought or deployed here" in text
    zh = text_of(render_html(unplanned(result), "zh"))
    assert "在此无法采购或部署" in zh


ALL_BARRED = """
name: all barred
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 2e12, runs_per_year: 1}
candidates:
  - {id: h100, card: h100-sxm, cards: 512}
  - {id: mi300x, card: mi300x, cards: 512}
facility: {region: cn}
"""


def test_when_every_feasible_option_is_barred_nothing_is_recommended(catalog):
    result = compute(load_scenario_text(ALL_BARRED), catalog)
    assert all(c.feasible and c.info.blocking for c in result.candidates)
    assert single(result) is None
    text = text_of(render_html(unplanned(result), "en"))
    assert "No option can be recommended" in text
    assert "No option is feasible" not in text


def test_monte_carlo_never_counts_a_barred_option_as_cheapest():
    import numpy as np

    from tco.analysis.montecarlo import cheapest_counts
    from tco.expr import Ref
    from tco.model import tier_formula

    def tiers(barred):
        return [tier_formula(Ref("f"), b, Ref("d")).evaluate({"f": f, "d": d})
                for f, d, b in zip(feasible, done, barred)]

    # three draws; row 0 is cheapest in every draw but barred, row 1 completes every run in
    # draws 0-1 only, row 2 always completes: draw 2 goes to row 2 (row 1 incomplete there)
    npv = np.array([[1.0, 1.0, 1.0], [2.0, 2.0, 2.0], [3.0, 3.0, 3.0]])
    done = [np.ones(3), np.array([1.0, 1.0, 0.5]), np.ones(3)]
    feasible = [np.ones(3)] * 3
    counts = cheapest_counts(npv, tiers([True, False, False]))
    assert counts.tolist() == [0, 2, 1]
    # all barred: no draw has a winner
    assert cheapest_counts(npv, tiers([True, True, True])).tolist() == [0, 0, 0]
