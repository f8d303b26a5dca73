"""Phased deliveries of an owned option (`candidates[].deliveries`; docs/methodology.md §6):
each share of the cluster is installed, paid for and put to work from its own delivery.
Numbers worked out by hand."""

from __future__ import annotations

import pytest

from tco.engine import compute
from tco.errors import TcoError
from tco.scenario import load_scenario_text

YEAR_WEEKS = 365.25 / 7  # a lead time of exactly one year

PHASED = f"""
name: phased
rent_options: none
cost_of_delay_per_week: 1000
workloads:
  - {{id: w, params: 7e9, tokens: 1e12, runs_per_year: 10}}
candidates:
  - {{id: once, card: h100-sxm, cards: 64, lead_time_weeks: 0}}
  - id: phased
    card: h100-sxm
    cards: 64
    deliveries:
      - {{share: 0.5, lead_time_weeks: 0}}
      - {{share: 0.5, lead_time_weeks: {YEAR_WEEKS!r}}}
finance: {{horizon_years: 3, discount_rate: 0.08}}
team: {{engineer_cost_per_month: 20000, familiarity: {{cuda: 1.0}}}}
"""


@pytest.fixture(scope="module")
def phased(catalog):
    return compute(load_scenario_text(PHASED, "phased.yaml"), catalog)


def yearly(c, key):
    return [y[key] for y in c.yearly]


def test_each_half_is_installed_and_works_from_its_own_delivery(phased):
    once, ph = phased.candidate("once"), phased.candidate("phased")
    # half at once, half a year later: year 1 has half the cluster, years 2 and 3 all of it
    assert yearly(ph, "installed_share") == pytest.approx([0, 0.5, 1, 1], abs=1e-12)
    assert yearly(ph, "ready_share") == pytest.approx([0, 0.5, 1, 1], abs=1e-12)
    assert ph.values["delivery_years"] == 0  # the first delivery
    # what follows the installed hardware (colocation, support, staff) is half in year 1
    for line in ("colocation", "support", "operations_staff"):
        assert yearly(ph, line)[1] == pytest.approx(yearly(once, line)[1] / 2, rel=1e-12)
        assert yearly(ph, line)[2] == pytest.approx(yearly(once, line)[2], rel=1e-12)
    # the capex is the same (paid on order, year 0)
    assert yearly(ph, "cards")[0] == yearly(once, "cards")[0]


def test_the_cost_of_delay_is_the_share_weighted_lead_time(phased):
    # 1,000 a week x (0.5 x 0 + 0.5 x 52.18 weeks) = 26,089.29
    ph = phased.candidate("phased")
    assert ph.values["lead_time_delay_cost"] == pytest.approx(1000 * 0.5 * YEAR_WEEKS, rel=1e-12)
    assert phased.candidate("once").values["lead_time_delay_cost"] == 0


def test_a_what_if_moves_the_shares_together(phased, catalog):
    """A what-if gives the shares that make the whole cluster (one share alone is refused,
    like a scenario's); the model also normalises them, so that sensitivity and Monte Carlo,
    which move one input at a time, keep the whole cluster: 0.25 beside 0.5 brings 1/3."""
    from tco.analysis.whatif import whatif

    loaded = load_scenario_text(PHASED, "phased.yaml")
    out = whatif(loaded, catalog, ["candidates.phased.delivery.1.share=0.25",
                                   "candidates.phased.delivery.2.share=0.75"])
    after = out.after.candidate("phased")
    assert yearly(after, "installed_share")[1] == pytest.approx(0.25, rel=1e-12)
    with pytest.raises(TcoError, match="shares add up to 0.75"):
        whatif(loaded, catalog, ["candidates.phased.delivery.1.share=0.25"])
    base = {p: i.value for p, i in phased.inputs.items()}
    env = phased.model.evaluate({**base, "candidates.phased.delivery.1.share": 0.25})
    assert float(env["phased.y1.installed_share"]) == pytest.approx(1 / 3, rel=1e-12)


@pytest.mark.parametrize(("edit", "message"), [
    ("- {share: 0.5, lead_time_weeks: 0}", "the deliveries' shares add up to 0.9"),
    ("lead_time_weeks: 0}", "give deliveries (each with its lead time) or lead_time_weeks"),
    ("acquire: rent", "deliveries are for an owned option"),
    ("one", "deliveries: found 1 item; expected at least 2"),
])
def test_deliveries_that_cannot_be_are_refused_naming_the_field(catalog, edit, message):
    text = PHASED
    if edit.startswith("- {share"):
        text = text.replace("- {share: 0.5, lead_time_weeks: 0}",
                            "- {share: 0.4, lead_time_weeks: 0}")
    elif edit.startswith("lead_time"):
        text = text.replace("    cards: 64\n    deliveries:",
                            "    cards: 64\n    lead_time_weeks: 10\n    deliveries:")
    elif edit == "acquire: rent":
        text = text.replace("    cards: 64\n    deliveries:",
                            "    cards: 64\n    acquire: rent\n    cloud_price_per_card_hour: 2\n"
                            "    deliveries:")
    else:
        text = text.replace(f"      - {{share: 0.5, lead_time_weeks: {YEAR_WEEKS!r}}}\n", "")
    with pytest.raises(TcoError, match="deliveries") as err:
        compute(load_scenario_text(text, "phased.yaml"), catalog)
    assert message in str(err.value)


def test_deliveries_with_held_stock_are_refused(catalog):
    text = PHASED + ("policy:\n  holds_stock:\n"
                     "    h100-sxm: {cards: 8, resale_price_per_card: 20000}\n")
    with pytest.raises(TcoError, match="deliveries with held stock of 'h100-sxm'"):
        compute(load_scenario_text(text, "phased.yaml"), catalog)


def test_every_output_says_the_option_arrives_in_parts(phased):
    from tco.exporters.data import compare_table
    from tco.exporters.html import render_html

    note = "delivered in parts (share of the cluster / lead time in weeks): 50% / 0, 50% / 52.2"
    assert note in phased.candidate("phased").notes
    assert note in compare_table(phased)
    assert "分批交付（占集群比例 / 交付周期，周）：50% / 0, 50% / 52.2" in render_html(phased, "zh")
