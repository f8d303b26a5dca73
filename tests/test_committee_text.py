"""What a committee reads in the report's prose (issue 25): the methodology states the cash flows
of each way of getting capacity the plan's options use (not "every option is a year-0 purchase"
for rented and API options), the caveats agree with what the model prices, no sentence speaks to
developers, and the Chinese text calls the plan's workloads 工作负载, not 训练任务 (training jobs),
when serving is among them."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from tco.engine import compute
from tco.exporters.html import render_html
from tco.exporters.i18n import Strings
from tco.exporters.report_view import build_view
from tco.scenario import load_scenario, load_scenario_text

ROOT = Path(__file__).resolve().parent.parent
DAY = dt.date(2026, 1, 15)
SCENARIOS = {
    "example": ROOT / "tco" / "scenarios" / "example.yaml",  # bought and rented options
    "train-and-serve": ROOT / "tco" / "scenarios" / "train-and-serve.yaml",  # and an API
    "zh_package": ROOT / "tests" / "data" / "zh_package" / "scenario.yaml",  # bought only
}
MODES = {"example": {"meth_buy", "meth_rent"},
         "train-and-serve": {"meth_buy", "meth_rent", "meth_api"},
         "zh_package": {"meth_buy"}}
KEYS = ("meth_buy", "meth_buy_financed", "meth_lease", "meth_rent", "meth_hybrid", "meth_api")


@pytest.mark.parametrize("name", list(SCENARIOS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_methodology_states_the_cash_flows_of_each_mode_used(catalog, name, lang):
    result = compute(load_scenario(SCENARIOS[name]), catalog)
    s = Strings(lang)
    years = result.structure.horizon_years
    methodology = [str(p) for p in build_view(result, lang, DAY)["methodology"]]
    said = {k for k in KEYS if s(k, years=years) in methodology}
    assert said == MODES[name]


def test_a_lease_a_hybrid_and_a_loan_are_worded_as_such(catalog):
    text = """
name: modes
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: buy, card: h100-sxm, cards: 64}
  - {id: lease, card: h100-sxm, cards: 64, acquire: lease}
  - {id: hybrid, card: h100-sxm, cards: 64, acquire: hybrid}
finance: {horizon_years: 3, discount_rate: 0.08, purchase: finance}
"""
    result = compute(load_scenario_text(text), catalog)
    s = Strings("en")
    methodology = [str(p) for p in build_view(result, "en", DAY)["methodology"]]
    said = {k for k in KEYS if s(k, years=3) in methodology}
    assert said == {"meth_buy_financed", "meth_lease", "meth_rent", "meth_hybrid"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_caveats_agree_with_the_software_flag(catalog, lang):
    """The example's MI300X carries the software flag, which says porting and an efficiency
    penalty are priced in; the caveat says the same, and says export control, licence and
    supply are not. No caveat speaks of an environment variable."""
    result = compute(load_scenario(), catalog)
    s = Strings(lang)
    flags = [s.message(f) for c in result.candidates for f in c.info.flags]
    software = [f for f in flags if f.startswith(("software:", "软件："))]
    assert software and all(("priced in" in f) or ("已计入成本" in f) for f in software)
    caveats = build_view(result, lang, DAY)["caveats"]
    risk = next(c for c in caveats if c == s("cav_risks"))
    if lang == "en":
        assert "porting effort and efficiency penalty are priced in" in risk
        assert "software maturity" not in risk
    else:
        assert "移植工作量和效率损失已计入成本" in risk and "软件成熟度" not in risk
    page = render_html(result, lang=lang, day=DAY)
    assert "SOURCE_DATE_EPOCH" not in page.split("<script")[0]


def test_the_chinese_plan_of_serving_says_workloads(catalog):
    result = compute(load_scenario(SCENARIOS["train-and-serve"]), catalog)
    page = render_html(result, lang="zh", day=DAY)
    visible = page.split("<script")[0]
    assert "训练任务" not in visible
    assert "工作负载" in visible


@pytest.mark.parametrize(("lang", "x", "shown"), [
    ("en", 70e9, "70B"), ("en", 5.5e7, "55M"), ("en", 1e15, "1,000T"), ("en", 2.5e14, "250T"),
    ("en", 123_456, "123,456"),
    ("zh", 70e9, "700亿"), ("zh", 4e7, "4000万"), ("zh", 5.5e7, "5500万"),
    ("zh", 1e15, "1000万亿"), ("zh", 3.2e5, "32万"),
    ("en", 999.6e6, "1B"), ("zh", 9999.6e4, "1亿"),  # three figures first, then the unit
])
def test_a_count_is_written_without_an_exponent(catalog, lang, x, shown):
    """The report wrote 4e7 parameters as '4e+03万' and 1e15 tokens as '1e+03T'."""
    from tco.exporters.report_view import View

    result = compute(load_scenario(SCENARIOS["example"]), catalog)
    assert View(result, lang, DAY).count(x) == shown
