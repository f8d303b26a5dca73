"""Leasing the owned hardware (acquire: lease; methodology §7, "Leasing"), worked by hand.

tests/data/lease_hand.yaml is tests/data/cashflow_hand.yaml (8 cards, 3 years, every figure
set in the file; test_cashflow.py works its purchase by hand) with the IT equipment leased:
12 % a year (1 % a month), 36 months, a lessor's residual of 10 %, payments in arrears, the
hardware returned at the end, a deposit of one payment. The expected numbers are worked out
below with pencil-and-paper arithmetic; numpy-financial's `pmt` is an independent check of
the payment only.
"""

from pathlib import Path

import numpy_financial as npf
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.resolve import resolve
from tco.scenario import load_scenario, load_scenario_text

DATA = Path(__file__).parent / "data" / "lease_hand.yaml"

# --- the hand calculation (return lease, payments in arrears) -------------------------------
#
# Leased equipment: the hardware of test_cashflow.py (no shared storage here)
#   cards 90,000 + servers 20,000 + network 8,000                 = 118,000
# The lessee still buys the cooling (10,000) and installation (5,900): capex 15,900
#
# Payment: the cost less the present value of the lessor's residual, repaid monthly at 1 %
#   1.01^36 = 1.430768784;  1.01^-36 = 0.698924950
#   residual's present value: 0.10 x 118,000 x 0.698924950     = 8,247.314406
#   to repay: 118,000 - 8,247.314406                            = 109,752.685594
#   payment (arrears): 109,752.685594 x 0.01 / (1 - 0.698924950)
#                    = 1,097.526856 / 0.301075050              = 3,645.359702 a month
#   lease rate factor: 3,645.359702 / 118,000                   = 0.030892879
#
# Commencement at delivery: 4 weeks = 28 / 365.25 years x 12    = 0.919918 months
# Payment k (1..36) in arrears falls at 0.919918 + k months:
#   by month 12: k <= 11.08 -> 11;  by 24: 23;  by 36: 35 (the 36th, at month 36.92, is after
#   the horizon) -> year 1: 11 payments, year 2: 12, year 3: 12
# Deposit, one payment (3,645.359702): paid at commencement (year 1); the term ends at month
#   36.92, after the horizon, so it comes back at the horizon (year 3)
# Settled at the horizon (methodology §7, "Leasing"): the 36th payment, 0.919918 months after
#   it, at its present value (monthly discount factor 1.1^(-1/12)):
#   3,645.359702 x 1.1^(-0.919918 / 12) = 3,645.359702 x 0.992720166 = 3,618.822088
#   less the use left of the returned cluster, its book value (§6: 0.2 + 0.8 x MAX(0, 1 - years
#   / 4)) at the horizon (3 years: 0.4) less at the term's end (36.919918 months = 3.076660
#   years: 0.2 + 0.8 x 0.230835 = 0.384668): 118,000 x 0.015332 = 1,809.171800
#   settlement: 3,618.822088 - 1,809.171800 = 1,809.650288
#
# Yearly flows: year 0 as bought without the IT equipment: 15,900 capex + 20,000 porting
#   + 4,000 delay = 39,900. The running costs of years 1..3 are test_cashflow.py's
#   (29,464.898015, 31,384, 31,384); the residual value is nil (returned).
#   financing, year 1: 11 x 3,645.359702 + 3,645.359702 (deposit) = 43,744.316425
#   financing, year 2: 12 x 3,645.359702                             = 43,744.316425
#   financing, year 3: 12 x 3,645.359702 - 3,645.359702 (refund) + 1,809.650288 = 41,908.607011
#   net: 39,900;  29,464.898015 + 43,744.316425 = 73,209.214440;
#        31,384 + 43,744.316425 = 75,128.316425;  31,384 + 41,908.607011 = 73,292.607011
# NPV at 10 %: 39,900 + 73,209.214440 / 1.1 + 75,128.316425 / 1.21 + 73,292.607011 / 1.331
#   = 39,900 + 66,553.831309 + 62,089.517707 + 55,065.820444       = 223,609.169460
# (bought outright, test_cashflow.py: 198,740.666114; leasing costs 24,868.50 more here)

PAYMENT = 3_645.359702
LEASE_NET = [39_900, 73_209.214440, 75_128.316425, 73_292.607011]
LEASE_NPV = 223_609.169460


@pytest.fixture(scope="module")
def leased(catalog):
    result = compute(load_scenario(DATA), catalog)
    (cand,) = result.candidates
    assert cand.feasible, cand.reasons
    return result


def test_payment_and_rate_factor_by_hand(leased):
    v = leased.candidates[0].values
    assert v["lease_amount"] == pytest.approx(118_000)
    assert v["lease_payment_per_month"] == pytest.approx(PAYMENT, abs=1e-6)
    # numpy-financial: 36 payments repaying 118,000 less a 11,800 balloon, at 1 % a month
    assert -npf.pmt(0.01, 36, 118_000, -11_800) == pytest.approx(PAYMENT, abs=1e-6)
    assert v["lease_rate_factor"] == pytest.approx(0.030892879, abs=1e-9)
    assert v["lease_commencement_months"] == pytest.approx(0.919918, abs=1e-6)
    assert v["lease_deposit"] == pytest.approx(PAYMENT, abs=1e-6)
    assert v["lease_buyout_price"] == 0
    assert v["capex_total"] == pytest.approx(15_900)  # cooling and installation only
    assert v["residual_value"] == 0  # returned


def test_yearly_flows_and_npv_by_hand(leased):
    c = leased.candidates[0]
    rows = c.yearly
    assert [r["cards"] + r["servers"] + r["network"] + r["storage"] for r in rows] == [0] * 4
    assert [r["financing"] for r in rows] == pytest.approx(
        [0, 43_744.316425, 43_744.316425, 41_908.607011], abs=1e-5)
    assert [r["residual_value"] for r in rows] == [0] * 4
    assert [r["net"] for r in rows] == pytest.approx(LEASE_NET, abs=1e-5)
    assert c.values["npv_tco"] == pytest.approx(LEASE_NPV, abs=1e-5)
    assert npf.npv(0.10, LEASE_NET) == pytest.approx(LEASE_NPV, abs=1e-5)


def test_recommendation_says_lease(leased):
    from tco.decide import recommend_option as recommend
    from tco.exporters.decision_words import action_text

    rec = recommend(leased)
    assert rec is not None and rec.mode == "lease"
    assert action_text(rec, leased.currency) == "lease AMD Instinct MI300X 192GB"



# --- renting the same compute, and the break-even of leasing against renting -----------------
#
# Renting is the purchase's (test_cashflow.py): 2 runs x 12,000 card-h x 2.0 = 48,000 a year,
#   NPV 153,977.262666 (with the half-month port's delay, 2,174.107143). Leasing costs fixed + e x h like buying (h = busy hours a year):
#   e, energy per busy hour: (4,000 - 1,000) W x 1.5 PUE / 1000 x 0.10    = 0.45
#   annuity of years 1..3 at 10 %: 1/1.1 + 1/1.21 + 1/1.331               = 2.486851991
#   fixed of leasing: 223,609.169460 - 2.486851991 x 0.45 x 3,000        = 220,251.919272
#   fixed of renting: porting 20,000 + its delay 2,174.107143
#     + 2.486851991 x 5,000 maintenance                                  =  34,608.367098
#   slopes per busy-year share: (8 x 2.0 - 0.45) x 8,760 x 2.486851991    = 338,753.904573
#   break-even: (220,251.919272 - 34,608.367098) / 338,753.904573         = 0.548019
# (buying breaks even at 0.474607: a lease's payments cost more than the purchase here)

def test_renting_and_breakeven_of_a_leased_option_by_hand(leased):
    c = leased.candidates[0]
    assert c.values["cloud_rent_per_year"] == pytest.approx(48_000)
    assert c.values["cloud_npv"] == pytest.approx(153_977.262666, rel=1e-9)
    assert c.values["breakeven_utilization"] == pytest.approx(0.548019, abs=1e-6)
    q = {x.name: x for x in leased.model.quantities}["hand.breakeven_utilization"]
    assert "leasing costs less than renting" in q.label


def test_the_report_names_the_leased_break_even(leased):
    from tco.exporters.html import render_html

    html = render_html(leased)
    assert "Busy share at which leasing equals renting" in html
    assert "Busy share at which buying equals renting" not in html
    # renting (153,977) is cheaper than leasing (223,609), and no rented option is listed
    assert "less than leasing, but no option renting this card" in html



# --- per-run cost lines (methodology §9) ------------------------------------------------------
#
# A leased cluster's hardware line is a year of lease payments plus the straight-line
# depreciation of what the lessee buys (cooling 10,000 and installation 5,900 over 4 years),
# per available hour (0.5 x 8,760 = 4,380), times the run's 1,500 hours:
#   (12 x 3,645.359702 + 15,900 / 4) / 4,380 x 1,500 = (43,744.316425 + 3,975) / 4,380 x 1,500
#                                                    = 16,342.231652
# (bought: (118,000 x 0.8 + 15,900) / 4 / 4,380 x 1,500 = 9,443.493151, test_cashflow.py).
# The other lines are the purchase's: electricity 900, facility 2,054.794521, operations
# 7,780.821918, porting 3,333.333333 -> per run 30,411.181424

def test_per_run_cost_of_a_leased_option_by_hand(leased):
    job = leased.candidates[0].jobs["small"]
    assert job["cost_hardware"] == pytest.approx(16_342.231652, abs=1e-5)
    assert job["cost_electricity"] == pytest.approx(900)
    assert job["cost_facility"] == pytest.approx(2_054.794521, abs=1e-5)
    assert job["cost_operations"] == pytest.approx(7_780.821918, abs=1e-5)
    assert job["cost_porting"] == pytest.approx(3_333.333333, abs=1e-5)
    assert job["cost_per_job"] == pytest.approx(30_411.181424, abs=1e-5)


# --- buyout lease, payments in advance -------------------------------------------------------
#
# Same scenario, 30 months, lessor's residual 20 %, payments in advance, buyout at the end
# of the term at that residual, a deposit of two payments.
#   1.01^30 = 1.347848915;  1.01^-30 = 0.741922918
#   residual's present value: 0.20 x 118,000 x 0.741922918 = 23,600 x 0.741922918 = 17,509.380860
#   in arrears: (118,000 - 17,509.380860) x 0.01 / (1 - 0.741922918)
#             = 1,004.906191 / 0.258077082                 = 3,893.821888
#   in advance (each a month earlier): 3,893.821888 / 1.01  = 3,855.269196 a month
# Payment k falls at 0.919918 + k - 1 months: by month 12: k <= 12.08 -> 12; by 24: 24; by 36:
#   all 30 -> 12, 12 and 6 payments.  The term ends at month 30.92 (year 3): the deposit
#   (2 x 3,855.269196 = 7,710.538391) comes back and the hardware is bought for 23,600 then.
#   financing, year 1: 14 x 3,855.269196                              = 53,973.768739
#   financing, year 2: 12 x 3,855.269196                              = 46,263.230347
#   financing, year 3: 6 x 3,855.269196 - 7,710.538391 + 23,600       = 39,021.076783
# Owned at the horizon, the hardware's book value comes back as for a purchase:
#   0.4 x 118,000 = 47,200 (test_cashflow.py)
#   net: 39,900;  29,464.898015 + 53,973.768739 = 83,438.666754;
#        31,384 + 46,263.230347 = 77,647.230347;  31,384 + 39,021.076783 - 47,200 = 23,205.076783
# NPV: 39,900 + 83,438.666754 / 1.1 + 77,647.230347 / 1.21 + 23,205.076783 / 1.331
#    = 39,900 + 75,853.333413 + 64,171.264750 + 17,434.317643       = 197,358.915806

BUYOUT = {"lease_term_months": 30, "lease_residual_fraction": 0.2,
          "lease_payments_in_advance": 1, "lease_buyout": 1, "lease_deposit_months": 2}
BUYOUT_NET = [39_900, 83_438.666754, 77_647.230347, 23_205.076783]


def _variant(**finance) -> str:
    text = DATA.read_text()
    for key, value in finance.items():
        text = "\n".join(line if not line.startswith(f"  {key}:") else f"  {key}: {value}"
                         for line in text.splitlines()) + "\n"
    return text


def test_buyout_lease_in_advance_by_hand(catalog):
    result = compute(load_scenario_text(_variant(**BUYOUT), "buyout.yaml"), catalog)
    c = result.candidates[0]
    assert c.values["lease_payment_per_month"] == pytest.approx(3_855.269196, abs=1e-6)
    assert -npf.pmt(0.01, 30, 118_000, -23_600, when="begin") == pytest.approx(
        3_855.269196, abs=1e-6)
    assert c.values["lease_buyout_price"] == pytest.approx(23_600)
    assert [r["financing"] for r in c.yearly] == pytest.approx(
        [0, 53_973.768739, 46_263.230347, 39_021.076783], abs=1e-5)
    assert c.yearly[3]["residual_value"] == pytest.approx(-47_200)
    assert [r["net"] for r in c.yearly] == pytest.approx(BUYOUT_NET, abs=1e-5)
    assert c.values["npv_tco"] == pytest.approx(197_358.915806, abs=1e-5)


def test_payments_after_the_horizon_of_a_buyout_lease_are_owed_at_it(catalog):
    # 48 months in arrears from month 0.92 with a $1-style buyout (residual 0): 35 payments fall
    # within the 3 years (as in the return lease); the 13 left and the buyout (0) are owed at
    # the horizon, where the hardware is the lessee's, at their present value there (the first
    # 0.919918 months after it; v = 1.1^(-1/12), v^13 = 0.901899039):
    #   v^0.919918 x (1 - v^13) / (1 - v) = 0.992720166 x 12.400487829 = 12.310214 payments
    # year 3 pays 12 + 12.310214 = 24.310214 payments.
    result = compute(load_scenario_text(_variant(lease_term_months=48, lease_buyout=1,
                                                 lease_residual_fraction=0,
                                                 lease_deposit_months=0), "l48.yaml"), catalog)
    v, rows = result.candidates[0].values, result.candidates[0].yearly
    payment = v["lease_payment_per_month"]
    # 118,000 x 0.01 / (1 - 1.01^-48) = 1,180 / (1 - 0.620260405) = 3,107.392581
    assert payment == pytest.approx(3_107.392581, abs=1e-6)
    assert [r["financing"] / payment for r in rows] == pytest.approx([0, 11, 12, 24.310214])
    assert rows[3]["residual_value"] == pytest.approx(-47_200)


def test_a_return_lease_must_last_the_horizon(tmp_path):
    short = tmp_path / "short.yaml"
    short.write_text(_variant(lease_term_months=24))
    res = CliRunner().invoke(cli, ["compare", str(short)])
    assert res.exit_code == 2
    assert "a lease of 24 months that returns the hardware (lease_buyout 0) ends before the " \
           "horizon (36 months)" in res.output
    assert "Traceback" not in res.output


def test_lease_terms_need_a_leased_option(catalog):
    text = DATA.read_text().replace("    acquire: lease\n", "")
    with pytest.raises(Exception, match="'lease_rate' is not used by this scenario"):
        resolve(load_scenario_text(text, "noleas.yaml"), catalog)


def test_default_lease_terms_are_the_catalogs_sourced_figures(catalog):
    text = "\n".join(line for line in DATA.read_text().splitlines()
                     if not line.startswith(("  lease_rate:", "  lease_residual_fraction:",
                                             "  lease_deposit_months:"))) + "\n"
    inputs = resolve(load_scenario_text(text, "defaults.yaml"), catalog).inputs
    rate = inputs["finance.lease_rate"]
    assert (rate.value, rate.low, rate.high) == (0.10, 0.06, 0.18)
    assert "gpuleaseindex.com" in rate.source and rate.origin == "catalog"
    assert inputs["finance.lease_residual_fraction"].value == 0.15
    assert inputs["finance.lease_deposit_months"].value == 1


# A lease beside the purchase of the same cluster, with the catalog's sourced lease terms
# (ranged, so Monte Carlo, the JavaScript test and the workbook vary them), paid in advance,
# bought out at the end of a term that runs past the horizon: every branch of the formulas.
LEASED = """
name: leased
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 10}
candidates:
  - {id: bought, card: h100-sxm, cards: 64, lead_time_weeks: 13}
  - {id: leased, card: h100-sxm, cards: 64, lead_time_weeks: 13, acquire: lease}
finance: {horizon_years: 3, discount_rate: 0.08, lease_term_months: 48, lease_buyout: 1,
          residual_value_fraction: 0.1}
team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}
"""


def test_lease_and_purchase_rank_on_the_same_basis(catalog):
    result = compute(load_scenario_text(LEASED, "leased.yaml"), catalog)
    bought, leased = result.candidate("bought"), result.candidate("leased")
    # the same cluster, the same work: every running cost equal, only capex and financing differ
    for key in ("electricity", "colocation", "support", "operations_staff"):
        assert [r[key] for r in leased.yearly] == pytest.approx([r[key] for r in bought.yearly])
    assert leased.values["plan_delivered_fraction"] == bought.values["plan_delivered_fraction"]
    # 13 weeks: commencement at 13 / (365.25 / 7) x 12 = 2.989733 months; in advance, payment k
    # at 1.989733 + k: 10 in year 1 (k <= 10.01), 12 in year 2, 12 in year 3; the 14 left
    # (the first 0.989733 months after the horizon) and the buyout price (at the term's end,
    # month 50.989733, 14.989733 months after it) are owed at the horizon (a buyout lease), at
    # their present value there: v = 1.08^(-1/12) a month
    pay = leased.values["lease_payment_per_month"]
    deposit = leased.values["lease_deposit"]
    fin = [r["financing"] for r in leased.yearly]
    assert fin[:3] == pytest.approx([0, 10 * pay + deposit, 12 * pay])
    v = 1.08 ** (-1 / 12)
    left = v ** 0.989733 * (1 - v ** 14) / (1 - v)
    assert fin[3] == pytest.approx((12 + left) * pay - deposit
                                   + leased.values["lease_buyout_price"] * v ** 14.989733)
    from tco.decide import recommend_option as recommend

    rec = recommend(result)
    assert rec is not None and rec.option == min(
        (bought, leased), key=lambda c: c.values["npv_tco"]).id
    other = "lease" if rec.mode == "buy" else "buy"
    assert f"{other}_dearer" in rec.codes()


def test_a_quoted_lease_rate_factor_is_taken_as_it_is(catalog):
    # a lessor quotes 0.0325 a month: 0.0325 x 118,000 = 3,835 a month, whatever the rate;
    # in arrears from month 0.92 as in the return lease: 11, 12 and 12 payments, the deposit
    # (one payment) paid in year 1 and refunded in year 3; the 36th payment settled at the
    # horizon less the use left, as in the return lease: 3,835 x 0.992720166 - 1,809.171800
    text = DATA.read_text()
    text = text.replace("  lease_deposit_months: 1\n",
                        "  lease_deposit_months: 1\n  lease_quoted_rate_factor: 0.0325\n")
    c = compute(load_scenario_text(text, "quoted.yaml"), catalog).candidates[0]
    assert c.values["lease_payment_per_month"] == pytest.approx(3_835)
    assert c.values["lease_rate_factor"] == pytest.approx(0.0325)
    assert [r["financing"] for r in c.yearly] == pytest.approx(
        [0, 12 * 3_835, 12 * 3_835, 11 * 3_835 + 3_835 * 0.992720166 - 1_809.171800])
