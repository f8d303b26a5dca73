"""Income tax (methodology §20): the tax schedules of owned equipment, the after-tax NPV of
options and plans, the rules of pricing/tax.yaml and the ranking basis. Expected values are
worked by hand below (the present values of the deduction schedules are those of the
research table for issue 28: at 8% the PV of 1 of deductions is 0.9259 one-time, 0.8113
MACRS 5-year, 0.7985 straight line over 5 years)."""

from __future__ import annotations

import pytest
import yaml
from click.testing import CliRunner
from conftest import bought_or_rented_h100

from tco.catalog import load_catalog
from tco.cli import cli
from tco.engine import compute
from tco.errors import TcoError
from tco.expr import Const
from tco.model.depreciation import charge_fraction
from tco.model.tax import TaxSchedule
from tco.resources import pricing_dir
from tco.scenario import load_scenario_text

MACRS = (0.20, 0.32, 0.192, 0.1152, 0.1152, 0.0576)  # IRS Publication 946, Table A-1

SCENARIO = """
name: tax check
currency: USD
utilization: 0.85
cost_of_delay_per_week: 0
workloads:
  - {{id: w, kind: pretrain, params: 7.0e+9, tokens: 1.0e+11, precision: bf16, runs_per_year: 1}}
candidates:
  - {{id: buy, card: h100-sxm, cards: 64, lead_time_weeks: 0}}
rent_options: none
finance:
  horizon_years: 6
  discount_rate: 0.08
  depreciation_years: 5
  residual_value_fraction: 0.1
{tax}
"""


CATALOG = load_catalog()


def _run(tax: str):
    return compute(load_scenario_text(SCENARIO.format(tax=tax)), CATALOG)


def _pv(shares, rate=0.08):
    return sum(s / (1 + rate) ** t for t, s in enumerate(shares, start=1))


def test_the_schedules_deduct_what_the_law_says():
    env = {"finance.tax_life_years": 5.0, "finance.tax_bonus_fraction": 0.0,
           "finance.tax_expensing_threshold_per_unit": 0.0}
    line = TaxSchedule("straight_line")
    assert [charge_fraction(t, line).evaluate(env) for t in range(1, 8)] == pytest.approx(
        [0.2] * 5 + [0.0, 0.0])
    macrs = TaxSchedule("macrs_5", MACRS)
    assert [charge_fraction(t, macrs).evaluate(env) for t in range(1, 8)] == pytest.approx(
        list(MACRS) + [0.0])
    once = TaxSchedule("one_time")
    assert [charge_fraction(t, once).evaluate(env) for t in (1, 2)] == [1.0, 0.0]
    # 60% bonus, the rest on MACRS: year 1 0.6 + 0.4 x 0.2 = 0.68, year 2 0.4 x 0.32 = 0.128
    bonus = {**env, "finance.tax_bonus_fraction": 0.6}
    assert [charge_fraction(t, macrs).evaluate(bonus) for t in (1, 2)] == pytest.approx(
        [0.68, 0.128])
    # China: a server of CNY 2M is deducted at once under a CNY 5M threshold; one of 20M
    # follows the 3-year straight line
    cn = {**env, "finance.tax_life_years": 3.0,
          "finance.tax_expensing_threshold_per_unit": 5e6}
    small, big = TaxSchedule("straight_line", (), Const(2e6)), \
        TaxSchedule("straight_line", (), Const(2e7))
    assert [charge_fraction(t, small).evaluate(cn) for t in (1, 2, 3)] == [1.0, 0.0, 0.0]
    assert [charge_fraction(t, big).evaluate(cn) for t in (1, 2, 3)] == pytest.approx(
        [1 / 3] * 3)


def test_after_tax_npv_orders_one_time_below_macrs_below_straight_line():
    """Horizon 6 years: every schedule has deducted the whole basis by then, so the after-tax
    NPVs differ only by the timing of the depreciation deductions: 21% x basis x (difference
    of the PV factors). PV factors at 8% by hand: one-time 1/1.08 = 0.925926; MACRS
    0.2/1.08 + 0.32/1.08^2 + 0.192/1.08^3 + 0.1152/1.08^4 + 0.1152/1.08^5 + 0.0576/1.08^6
    = 0.185185 + 0.274348 + 0.152416 + 0.084675 + 0.078403 + 0.036298 = 0.811326;
    straight line 5 y 0.2 x (1 - 1.08^-5) / 0.08 = 0.2 x 3.992710 = 0.798542. As shares of
    the basis at 21%: 19.44%, 17.04%, 16.77% (the research table's 19.4, 17.0, 16.8)."""
    npv = {}
    for kind in ("one_time", "macrs_5", "straight_line"):
        r = _run(f"  tax_rate: 0.21\n  tax_depreciation: {kind}\n  tax_life_years: 5")
        c = r.candidate("buy")
        npv[kind] = c.values["npv_tco_after_tax"]
        basis = c.values["capex_total"]
        pre = c.values["npv_tco"]
    assert npv["one_time"] < npv["macrs_5"] < npv["straight_line"] < pre
    assert 0.925926 == pytest.approx(_pv([1.0]), abs=1e-6)
    assert 0.811326 == pytest.approx(_pv(MACRS), abs=1e-6)
    assert 0.798542 == pytest.approx(_pv([0.2] * 5), abs=1e-6)
    assert npv["macrs_5"] - npv["one_time"] == pytest.approx(
        0.21 * basis * (0.925926 - 0.811326), rel=1e-5)
    assert npv["straight_line"] - npv["macrs_5"] == pytest.approx(
        0.21 * basis * (0.811326 - 0.798542), rel=1e-4)


def test_without_tax_the_after_tax_npv_is_the_npv_and_the_basis_is_pre_tax():
    r = _run("")
    c = r.candidate("buy")
    assert c.values["npv_tco_after_tax"] == c.values["npv_tco"]
    assert r.structure.decision_basis == "pre_tax"
    assert _run("  tax_rate: 0.21").structure.decision_basis == "after_tax"
    assert _run("  tax_rate: 0.21\n  decision_basis: pre_tax").structure.decision_basis \
        == "pre_tax"


def test_rent_is_deducted_as_paid():
    """A rented option owns nothing: every cost is deducted in its year, so with 25% tax its
    after-tax NPV is 75% of its NPV (no cost at year 0, nothing sold at the horizon)."""
    text = SCENARIO.format(tax="  tax_rate: 0.25").replace(
        "lead_time_weeks: 0}", "acquire: rent}")
    c = compute(load_scenario_text(text), CATALOG).candidate("buy")
    assert c.values["npv_tco_after_tax"] == pytest.approx(0.75 * c.values["npv_tco"],
                                                          rel=1e-12)


def test_jurisdiction_rules_by_date():
    us = _run("  tax_jurisdiction: us-federal")
    assert us.structure.tax_depreciation == "macrs_5"
    assert us.inputs["finance.tax_rate"].value == 0.21
    assert us.inputs["finance.tax_bonus_fraction"].value == 1.0  # OBBBA sec. 70301
    early = _run("  tax_jurisdiction: us-federal\n  tax_acquired_on: 2025-01-10")
    assert early.inputs["finance.tax_bonus_fraction"].value == 0.4  # the TCJA phase-down
    cn = _run("  tax_jurisdiction: cn\n  tax_acquired_on: 2026-06")
    assert cn.inputs["finance.tax_rate"].value == 0.25
    # CNY 5M in a USD scenario: 5e6 / the catalog's CNY per USD
    assert cn.inputs["finance.tax_expensing_threshold_per_unit"].value == pytest.approx(
        5e6 / cn.inputs["exchange_rate"].value if "exchange_rate" in cn.inputs else
        5e6 / 7.1526, rel=0.05)
    # a 64-card H100 cluster's servers cost well under CNY 5M each: deducted at once, so its
    # after-tax NPV equals the one_time schedule's at 25%
    once = _run("  tax_rate: 0.25\n  tax_depreciation: one_time").candidate("buy")
    assert cn.candidate("buy").values["npv_tco_after_tax"] == pytest.approx(
        once.values["npv_tco_after_tax"], rel=1e-12)
    with pytest.raises(TcoError, match="unknown tax jurisdiction 'mars'") as exc:
        _run("  tax_jurisdiction: mars")
    assert str(exc.value).count("expected one of") == 1  # the list once
    with pytest.raises(TcoError, match="no us-federal tax rule covers"):
        _run("  tax_jurisdiction: us-federal\n  tax_acquired_on: 2019-01")


def test_the_recommendation_says_it_ranks_after_tax():
    """With a tax rate the options are ranked on the after-tax NPV (tco.decide's CHOICE and
    the engine's rank), and the recommendation's first reason says so with that NPV; the basis
    is a key of its JSON. Without one it is pre_tax and no such reason is given."""
    from tco.decide import recommend_option
    from tco.exporters.decision_words import decision_dict, reason_text

    r = _run("  tax_rate: 0.25")
    d = recommend_option(r)
    assert d is not None and d.basis == "after_tax"
    first = d.reasons[0]
    assert first.code == "basis_after_tax"
    assert first.figures == {"rate": 0.25,
                             "npv": r.candidate("buy").values["npv_tco_after_tax"],
                             "npv_pre_tax": r.candidate("buy").values["npv_tco"]}
    assert reason_text(first, r.currency).startswith("ranked on the NPV after income tax at "
                                                     "25.0%")
    assert "25.0%" in reason_text(first, r.currency, "zh")
    assert decision_dict(d, r.currency)["basis"] == "after_tax"
    plain = recommend_option(_run(""))
    assert plain is not None and plain.basis == "pre_tax"
    assert "basis_after_tax" not in plain.codes()


CN = """
name: China tax check
currency: CNY
utilization: 0.85
cost_of_delay_per_week: 0
workloads:
  - {{id: w, kind: pretrain, params: 7.0e+9, tokens: 1.0e+11, precision: bf16, runs_per_year: 1}}
candidates:
  - {{id: buy, card: ascend-910b, cards: 64, lead_time_weeks: 0, {extra}}}
rent_options: none
facility: {{region: cn-east}}
finance:
  horizon_years: 3
  discount_rate: 0.08
  depreciation_years: 3
  residual_value_fraction: 0.1
  tax_jurisdiction: cn
  tax_acquired_on: 2026-06
{tax}
"""


def _cn(tax: str, extra: str = "card_price: 100000"):
    return compute(load_scenario_text(CN.format(tax=tax, extra=extra)), CATALOG)


def test_the_rd_super_deduction_counts_the_research_costs_twice():
    """China (pricing/tax.yaml cn: 25 %, the R&D super-deduction's extra 100 %,
    MoF/STA 2023 No. 7). A rented option owns nothing: every cost is deducted as paid, so its
    after-tax NPV is (1 - rate x (1 + share x 1.0)) of its NPV: with all of it research,
    1 - 0.25 x 2 = 0.5; with 40 % of it, 1 - 0.25 x 1.4 = 0.65; a High and New Technology
    Enterprise (15 %) with all of it research, 1 - 0.15 x 2 = 0.7; no research, 0.75."""
    for tax, share in (("  tax_rd_share: 1", 0.5), ("  tax_rd_share: 0.4", 0.65),
                       ("  tax_rd_share: 1\n  tax_rate: 0.15", 0.7), ("", 0.75)):
        r = _cn(tax, "acquire: rent, cloud_price_per_card_hour: 12")
        assert r.inputs["finance.tax_rd_extra_deduction_fraction"].value == 1.0
        c = r.candidate("buy")
        assert c.values["npv_tco_after_tax"] == pytest.approx(share * c.values["npv_tco"],
                                                              rel=1e-12), tax


def test_a_chinese_purchase_after_tax_by_hand():
    """A bought Ascend 910B cluster in China, 8 cards a server at CNY 100,000 a card: a server's value
    is far below CNY 5M, so it is deducted at once in tax year 1 (MoF/STA 2023 No. 37), and
    with all of it research twice. Worked from the model's own yearly components: the tax of
    year t is -25 % x deductions(t), deductions(t) = 2 x (its running costs, and in year 1 the
    basis) and, in year 3, the basis left (0) and less the resale price; the after-tax NPV is
    the NPV plus the present value of the taxes at 8 %."""
    r = _cn("  tax_rd_share: 1")
    c = r.candidate("buy")
    assert c.values["capex_servers"] + c.values["capex_cards"] < 5e6 * c.values["nodes"]
    as_paid = ("porting", "electricity", "colocation", "support", "storage_support",
               "licences", "operations_staff", "porting_maintenance", "cloud_rent",
               "running_vat")
    basis = c.values["capex_total"]
    taxes = []
    for t, year in enumerate(c.yearly):
        deducted = 2 * sum(year[k] for k in as_paid)
        if t == 1:
            deducted += 2 * basis  # one-time: the whole basis, an R&D instrument's
        if t == 3:
            deducted += year["residual_value"]  # negative: the resale is taxable income
        taxes.append(-0.25 * deducted)
    pv_tax = sum(x / 1.08 ** t for t, x in enumerate(taxes))
    assert c.values["npv_tco_after_tax"] == pytest.approx(c.values["npv_tco"] + pv_tax,
                                                          rel=1e-9)
    # the super-deduction is worth 25 % of the research costs' present value again
    plain = _cn("").candidate("buy")
    pv_research = sum(sum(y[k] for k in as_paid) / 1.08 ** t for t, y in enumerate(c.yearly))
    assert plain.values["npv_tco_after_tax"] - c.values["npv_tco_after_tax"] == pytest.approx(
        0.25 * (pv_research + basis / 1.08), rel=1e-9)


def _cn_rule_quote(tmp_path, threshold: str):
    """A quote file giving the shipped rule `cn` again with another expensing threshold."""
    rules = yaml.safe_load((pricing_dir() / "tax.yaml").read_text(encoding="utf-8"))
    rule = next(t for t in rules["tax_rules"] if t["id"] == "cn")
    rule["expensing_threshold_per_unit"] = {"value": "THRESHOLD", "unit": "CNY",
                                            "source": "ACME tax memo 2026", "as_of": "2026-01"}
    path = tmp_path / "tax-quote.yaml"
    path.write_text(yaml.safe_dump({"tax_rules": [rule]}, allow_unicode=True).replace(
        "THRESHOLD", threshold), encoding="utf-8")
    return path


@pytest.mark.parametrize(("threshold", "found"), [("-1", "found -1,"), ("1e308", "found 1e+308,")])
def test_an_implausible_expensing_threshold_in_the_tax_rules_is_refused(tmp_path, threshold,
                                                                         found):
    """A tax rule's expensing_threshold_per_unit of -1 or 1e308 (in the rule's currency, CNY)
    was taken: it is held to tco.inputs' tax_expensing_threshold_per_unit range, 0 to 1e12
    USD, in CNY at the catalog's rate."""
    quote = _cn_rule_quote(tmp_path, threshold)
    out = CliRunner().invoke(cli, ["compare", "--catalog", str(quote)])
    assert out.exit_code == 2 and "Traceback" not in out.output, out.output
    hi = 1e12 * CATALOG.usd_to("CNY")
    assert "tax_rules.cn.expensing_threshold_per_unit.value: " in out.output
    assert (f"{found} outside the plausible range 0 to {hi:g} CNY/server for value per unit "
            "(one server) up to which equipment is deducted at once") in out.output
    assert len(out.output.splitlines()) == 1


def test_a_nan_expensing_threshold_in_the_tax_rules_is_refused(tmp_path):
    out = CliRunner().invoke(cli, ["compare", "--catalog", str(_cn_rule_quote(tmp_path, ".nan"))])
    assert out.exit_code == 2 and len(out.output.splitlines()) == 1, out.output
    assert "tax_rules.cn.expensing_threshold_per_unit.value: expected a finite number, found " \
        ".nan" in out.output


@pytest.mark.parametrize(("threshold", "message"), [
    ("-1", "found -1, outside the plausible range 0 to 1e+12 USD/server"),
    ("1.0e+308", "found 1e+308, outside the plausible range 0 to 1e+12 USD/server"),
    (".nan", "expected a finite number, found .nan"),
])
def test_an_implausible_expensing_threshold_in_a_scenario_is_refused(threshold, message):
    with pytest.raises(TcoError) as exc:
        _run(f"  tax_jurisdiction: cn\n  tax_expensing_threshold_per_unit: {threshold}")
    assert exc.value.field == "finance.tax_expensing_threshold_per_unit"
    assert message in str(exc.value)



def test_the_reasons_quote_the_npv_the_options_are_ranked_on():
    """64 H100 bought cost less than renting as many before tax (about 4.2M against 5.3M
    USD), but more after a 40 % tax with every cost qualifying R&D deducted twice and the
    purchase deducted over 30 years (about 2.05M against 1.05M): after tax renting is
    recommended, and every NPV its reasons compare is after tax, so no reason says the
    recommended option costs less by a negative amount; the first gives its NPV before tax."""
    from tco.decide import recommend_option
    from tco.exporters.decision_words import reason_text

    r = compute(load_scenario_text(bought_or_rented_h100()), CATALOG)
    buy, rent = r.candidate("buy").values, r.candidate("rent").values
    assert buy["npv_tco"] < rent["npv_tco"]
    assert rent["npv_tco_after_tax"] < buy["npv_tco_after_tax"]
    d = recommend_option(r)
    assert d is not None and d.option == "rent"
    by = {x.code: x.figures for x in d.reasons}
    assert by["basis_after_tax"] == {"rate": 0.4, "npv": rent["npv_tco_after_tax"],
                                     "npv_pre_tax": rent["npv_tco"]}
    diff = buy["npv_tco_after_tax"] - rent["npv_tco_after_tax"]
    assert by["lowest_npv"]["npv"] == rent["npv_tco_after_tax"]
    assert by["lowest_npv"]["diff"] == pytest.approx(diff, rel=1e-12) and diff > 0
    assert by["buy_dearer"] == {"option": "buy", "npv": buy["npv_tco_after_tax"],
                                "diff": pytest.approx(diff, rel=1e-12)}
    assert "the NPVs below are after tax too" in reason_text(d.reasons[0], r.currency)


def test_the_report_summary_compares_the_options_after_tax():
    """The same case unplanned (as a scenario of more supplies than the planner takes is): the
    report's summary recommends renting, says the amounts it compares are after tax, gives
    the NPV before tax, and the rent's lead over buying is the positive after-tax one."""
    from tco.exporters.fmt import money
    from tco.exporters.html import render_html

    r = compute(load_scenario_text(bought_or_rented_h100()), CATALOG)
    r._plans = []  # unplanned: the summary is an option's
    buy, rent = r.candidate("buy").values, r.candidate("rent").values
    page = render_html(r, "en")
    before = money(rent["npv_tco"], "USD")
    assert f"the amounts compared below are after tax; before tax it costs <strong>{before}" \
        in page
    diff = buy["npv_tco_after_tax"] - rent["npv_tco_after_tax"]
    assert f"which is <strong>{money(diff, 'USD')}</strong>" in page and diff > 0
    assert "税后" in render_html(r, "zh")


@pytest.mark.parametrize("finance", [
    "  tax_rate: 0.6\n  tax_rd_share: 1\n  tax_rd_extra_deduction_fraction: 2",
    "  tax_rate: 0.5\n  tax_rd_share: 1\n  tax_rd_extra_deduction_fraction: 1",
])
def test_a_tax_rule_under_which_spending_earns_money_is_refused(finance):
    """At rate x (1 + share x extra) = 1.8 (or exactly 1) every research cost would return at
    least itself in tax: the option that spends most would rank first. Refused, naming the
    field, the factor and what was expected."""
    with pytest.raises(TcoError) as exc:
        _run(finance)
    assert exc.value.field == "finance.tax_rate"
    assert "expected tax_rate x (1 + tax_rd_share x tax_rd_extra_deduction_fraction) below 1" \
        in str(exc.value)
    assert _run("  tax_rate: 0.25\n  tax_rd_share: 1\n  tax_rd_extra_deduction_fraction: 1"
                ).candidate("buy").values["npv_tco_after_tax"] > 0


def test_a_plan_that_would_earn_by_buying_idle_servers_is_refused(tmp_path):
    """The example after a 30 % tax with every cost qualifying R&D deducted twice: a server
    bought a few months before the horizon deducts its first tax year's depreciation twice and
    the basis left at the sale, and is sold nearly new (the resale taxed): it earns money held
    idle, so the more a plan bought the cheaper it would be after tax. Refused with the reason
    and the way out (before, the solver failed and a plan of 0 was reported, exit 0)."""
    from tco.resources import example_scenario

    text = example_scenario().read_text().replace(
        "\nfinance:", "\nfinance:\n  tax_rate: 0.3\n  tax_rd_share: 1\n"
        "  tax_rd_extra_deduction_fraction: 1\n ", 1)
    path = tmp_path / "earning.yaml"
    path.write_text(text)
    got = CliRunner().invoke(cli, ["compare", str(path)], prog_name="tco")
    assert got.exit_code == 2
    assert "held idle to the horizon would earn" in got.output
    assert "set finance.decision_basis: pre_tax" in got.output
    path.write_text(text.replace("\nfinance:", "\nfinance:\n  decision_basis: pre_tax", 1))
    assert CliRunner().invoke(cli, ["compare", str(path)], prog_name="tco").exit_code == 0


def test_the_break_even_of_the_tax_rate_is_found_on_the_npv_the_options_are_ranked_on():
    """`tco breakeven` compares the NPV the options are ranked on: after tax where the basis
    is after_tax (its default with a tax rate). The NPV after tax is the NPV before it less the
    rate times the present value of what is deducted (resale taxed), so for each option it is
    linear in the rate: from the two NPVs at 40 % the rate where buying and renting cost the
    same after tax is (rent − buy before tax) / (slope of rent − slope of buy), worked here
    from the engine's figures at 40 %. Before tax the rate moves nothing: no break-even."""
    from tco.analysis.breakeven import breakeven

    loaded = load_scenario_text(bought_or_rented_h100())
    r = compute(loaded, CATALOG)
    buy, rent = r.candidate("buy").values, r.candidate("rent").values
    slope_buy = (buy["npv_tco"] - buy["npv_tco_after_tax"]) / 0.4
    slope_rent = (rent["npv_tco"] - rent["npv_tco_after_tax"]) / 0.4
    by_hand = (rent["npv_tco"] - buy["npv_tco"]) / (slope_rent - slope_buy)
    assert 0.2 < by_hand < 0.21

    b = breakeven(loaded, CATALOG, "finance.tax_rate", "buy", "rent", result=r)
    assert b.metric == "npv_tco_after_tax"
    assert b.crossings[0].value == pytest.approx(by_hand, rel=1e-6)
    assert b.base_a == buy["npv_tco_after_tax"] and b.base_b == rent["npv_tco_after_tax"]
    at = compute(load_scenario_text(bought_or_rented_h100().replace(
        "tax_rate: 0.4", f"tax_rate: {b.crossings[0].value!r}")), CATALOG)
    assert at.candidate("buy").values["npv_tco_after_tax"] == pytest.approx(
        at.candidate("rent").values["npv_tco_after_tax"], rel=1e-6)

    pre = load_scenario_text(bought_or_rented_h100("pre_tax"))
    b = breakeven(pre, CATALOG, "finance.tax_rate", "buy", "rent")
    assert b.metric == "npv_tco" and b.crossings == []
    b = breakeven(pre, CATALOG, "finance.tax_rate", "buy", "rent", metric="npv_tco_after_tax")
    assert b.crossings[0].value == pytest.approx(by_hand, rel=1e-6)


def test_the_break_even_command_says_which_npv_it_compares(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(bought_or_rented_h100())
    out = CliRunner().invoke(cli, ["breakeven", str(path), "--vary", "finance.tax_rate",
                                   "--candidate", "buy", "--vs", "rent"], prog_name="tco")
    assert out.exit_code == 0, out.output
    assert out.output.startswith("buy and rent have the same NPV of TCO after income tax at "
                                 "finance.tax_rate = 0.2055")
