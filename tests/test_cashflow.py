"""One full cash flow worked by hand (issue 2, section 6).

The scenario is tests/data/cashflow_hand.yaml: 8 cards, 3-year horizon, one workload, and every
figure the model reads set to a round number in the file (no catalog value enters the result).
The expected numbers below are worked out step by step in the comments, with pencil-and-paper
arithmetic; they are NOT computed by calling the model's formulas. numpy-financial is used only
as an independent cross-check of the NPV and the loan payment.
"""

from pathlib import Path

import numpy_financial as npf
import pytest

from tco.engine import compute
from tco.scenario import load_scenario, load_scenario_text

DATA = Path(__file__).parent / "data" / "cashflow_hand.yaml"

# --- the hand calculation -------------------------------------------------------------------
#
# Cluster
#   8 cards, 8 cards per server                    -> 1 server
#   hot spares: ROUNDUP(8 x 0.125)                  -> 1 spare card
#   rated IT power: 8 x 500 W + 1 x 1,000 W         =  5,000 W = 5 kW
#   while training: 5,000 x 0.8                     =  4,000 W
#   while idle:     5,000 x 0.2                     =  1,000 W
#
# Job (one run)
#   training FLOPs: 6 x 1e9 params x 3.6e11 tokens  =  2.16e21 FLOP
#   per card: 100 TFLOPS x 0.5 MFU x 1.0 stack      =  5e13 FLOP/s
#   scaling efficiency 1 (communication fully hidden), goodput 1 (no interruptions,
#   checkpoints of no bytes, no per-step overhead of a whole run)
#   wall time: 2.16e21 / (8 x 5e13) = 5.4e6 s       =  1,500 h = 62.5 days
#   accelerator-hours: 8 x 1,500                    =  12,000 card-h
#   facility energy: 4,000 W x 1,500 h x 1.5 PUE    =  9,000 kWh -> x 0.5 kg/kWh = 4,500 kg CO2e
#
# Year 0 (purchase date)
#   cards: (8 + 1) x 10,000                         =  90,000
#   servers: 1 x 20,000                             =  20,000
#   network: 8 x 1,000                              =   8,000
#   -> hardware capex                               = 118,000
#   cooling: 5 kW x 2,000                           =  10,000
#   installation: 118,000 x 0.05                    =   5,900
#   -> total capex                                  = 133,900
#   porting: 4 eng-months x 10,000 x (1 - 0.5 familiarity) = 20,000
#   delay to the first useful work: the 4-week delivery (the port ends before it, below)
#     4 weeks x 1,000                               =   4,000
#   -> net year 0                                   = 157,900
#
# Timeline (methodology §6): delivery after 4 weeks = 28 / 365.25 = 0.076660 years; porting
#   4 eng-months x (1 - 0.5) / 4 engineers = 0.5 month = 0.041667 years; ready at the delivery.
#   Year 1 has the hardware installed for s = 1 - 28/365.25 = 337.25/365.25 = 0.923340 of it;
#   the cluster can run 4,380 / 3,000 = 1.46 times the planned hours, so in the s of the
#   year it is ready it still runs both of year 1's runs (1.46 x 0.92334 = 1.35 >= 1): no backlog.
#   Year 1 pays the installed costs for s of the year, and idles 8,760 s - 3,000 hours.
#
# Years 2..3 (operating costs at each year end; year 1 below them)
#   planned busy hours: 2 runs x 1,500 h = 3,000 h (<= 0.5 x 8,760 = 4,380 available)
#   electricity: (4,000 W x 3,000 h + 1,000 W x 5,760 h) x 1.5 / 1000
#              = (12,000,000 + 5,760,000) x 1.5 / 1000 = 26,640 kWh x 0.10 = 2,664
#   colocation: 5 kW x 100 x 12                     =   6,000
#   support: 118,000 x 0.10                         =  11,800
#   licences: 8 x 500                               =   4,000
#   operations staff: 8/1000 x 2 x 10,000 x 12      =   1,920
#   porting maintenance: 1 x 10,000 x (1 - 0.5)     =   5,000
#   -> net year 2                                   =  31,384
#
# Year 1: colocation 6,000 s = 5,540.041068; support 11,800 s = 10,895.414100; licences
#   4,000 s = 3,693.360712; staff 1,920 s = 1,772.813142; porting maintenance 5,000;
#   electricity (4,000 x 3,000 + 1,000 x (8,760 s - 3,000)) x 1.5 / 1000 x 0.10
#             = 1,350 + 1,314 s = 2,563.268994
#   -> net year 1 = 6,350 + 25,034 s                = 29,464.898015
#
# Residual value at the end of year 3 (an inflow, so negative)
#   book value share: 0.2 + (1 - 0.2) x max(0, 1 - 3/4) = 0.2 + 0.2 = 0.4
#   residual: 118,000 x 0.4                         =  47,200
#   -> net year 3: 31,384 - 47,200                  = -15,816
#
# NPV at 10 %, first flow at t = 0 (numpy-financial's convention)
#   157,900 + 29,464.898015/1.1 + 31,384/1.21 - 15,816/1.331
#   = 157,900 + 26,786.270923 + 25,937.190083 - 11,882.794891 = 198,740.666114
#   (without the timeline: 200,485.304282; the 4 weeks before delivery save 1,744.64)
# Undiscounted: 157,900 + 29,464.898015 + 31,384 - 15,816 = 202,932.898015
# Annuity factor (3 years, 10 %): (1 - 1/1.331) / 0.1 = 2.486851991
#   every year delivers its planned runs, so the discounted years of work are the annuity
#   equivalent annual cost: 198,740.666114 / 2.486851991 = 79,916.563927
#   delivered card-hours a year: 2 runs x 12,000 = 24,000
#   cost per card-hour: 198,740.666114 / (2.486851991 x 24,000) = 3.329857
#   useful PFLOP-hours a year: 2 x 2.16e21 / 3.6e18 = 1,200
#   cost per PFLOP-hour: 198,740.666114 / (2.486851991 x 1,200) = 66.597137
#
# Per-job cost lines
#   hardware: (118,000 x (1 - 0.2) + 10,000 + 5,900) / (4 years x 4,380 h) x 1,500 h
#           (salvage applies to the hardware only, as in the yearly residual value)
#           = 110,300 / 17,520 x 1,500 = 6.295662 x 1,500 = 9,443.493151
#   electricity: 9,000 kWh x 0.10 = 900
#   facility: 6,000 / 4,380 x 1,500 = 2,054.794521
#   operations: (11,800 + 4,000 + 1,920 + 5,000) / 4,380 x 1,500 = 22,720 / 4,380 x 1,500
#             = 7,780.821918
#   porting: 20,000 / (2 runs x 3 years) = 3,333.333333
#   total: 9,443.493151 + 900 + 2,054.794521 + 7,780.821918 + 3,333.333333 = 23,512.442922
#
# Renting the same 24,000 card-hours a year at 2.0 per card-hour
#   flows: 20,000 (porting) and its delay at t=0: the half-month port, 0.5 / 12 x 365.25 / 7
#   weeks x 1,000 = 2,174.107143 (renting waits for the port, not a delivery), then 48,000
#   + 5,000 maintenance in each of years 1..3
#   NPV: 22,174.107143 + 53,000 x 2.486851991 = 153,977.262666
# Break-even utilization (busy share of the year where buying costs what renting costs)
#   energy slope: (4,000 - 1,000) W x 1.5 / 1000 x 0.10 = 0.45 per busy hour
#   rent slope: 8 cards x 2.0 = 16 per busy hour
#   fixed cost of buying: 198,740.666114 - 2.486851991 x 0.45 x 3,000 = 195,383.415927
#   fixed cost of renting: 22,174.107143 + 2.486851991 x 5,000 = 34,608.367098
#   (195,383.415927 - 34,608.367098) / (2.486851991 x (16 - 0.45) x 8,760) = 0.474607

HAND_YEARS = [
    {"cards": 90_000, "servers": 20_000, "network": 8_000, "cooling": 10_000,
     "installation": 5_900, "porting": 20_000, "lead_time_delay": 4_000, "net": 157_900,
     "cumulative": 157_900},
    {"electricity": 2_563.268994, "colocation": 5_540.041068, "support": 10_895.414100,
     "licences": 3_693.360712, "operations_staff": 1_772.813142, "porting_maintenance": 5_000,
     "net": 29_464.898015, "cumulative": 187_364.898015},
    {"electricity": 2_664, "colocation": 6_000, "support": 11_800, "licences": 4_000,
     "operations_staff": 1_920, "porting_maintenance": 5_000, "net": 31_384,
     "cumulative": 218_748.898015},
    {"electricity": 2_664, "colocation": 6_000, "support": 11_800, "licences": 4_000,
     "operations_staff": 1_920, "porting_maintenance": 5_000, "residual_value": -47_200,
     "net": -15_816, "cumulative": 202_932.898015},
]
# The timeline's shares of each year (methodology §6), by hand above.
HAND_SHARES = [
    {"installed_share": 0, "ready_share": 0, "ported_share": 0, "own_work_share": 0,
     "rented_work_share": 0, "work_share": 0, "backlog": 0},
    {"installed_share": 337.25 / 365.25, "ready_share": 337.25 / 365.25,
     "ported_share": 11.5 / 12,
     "own_work_share": 1, "rented_work_share": 0, "work_share": 1, "backlog": 0},
    *[{"installed_share": 1, "ready_share": 1, "ported_share": 1, "own_work_share": 1,
       "rented_work_share": 0, "work_share": 1, "backlog": 0}] * 2,
]
HAND_NPV = 198_740.666114


@pytest.fixture(scope="module")
def hand(catalog):
    result = compute(load_scenario(DATA), catalog)
    (cand,) = result.candidates
    assert cand.feasible, cand.reasons
    return cand


def test_cluster_and_job_by_hand(hand):
    v, job = hand.values, hand.jobs["small"]
    assert v["nodes"] == 1
    assert v["spare_cards"] == 1
    assert v["rated_power_w"] == pytest.approx(5_000)
    assert v["training_power_w"] == pytest.approx(4_000)
    assert v["idle_power_w"] == pytest.approx(1_000)
    assert job["goodput"] == pytest.approx(1.0)
    assert job["train_flops"] == pytest.approx(2.16e21)
    assert job["scaling_efficiency"] == pytest.approx(1.0)
    assert job["wall_hours"] == pytest.approx(1_500)
    assert job["wall_days"] == pytest.approx(62.5)
    assert job["gpu_hours"] == pytest.approx(12_000)
    assert job["energy_facility_kwh"] == pytest.approx(9_000)
    assert job["co2e_kg"] == pytest.approx(4_500)


def test_capex_lines_by_hand(hand):
    v = hand.values
    assert v["capex_cards"] == pytest.approx(90_000)
    assert v["capex_servers"] == pytest.approx(20_000)
    assert v["capex_network"] == pytest.approx(8_000)
    assert v["hardware_capex"] == pytest.approx(118_000)
    assert v["capex_cooling"] == pytest.approx(10_000)
    assert v["capex_installation"] == pytest.approx(5_900)
    assert v["capex_total"] == pytest.approx(133_900)


def test_every_yearly_line_by_hand(hand):
    assert len(hand.yearly) == 4  # years 0..3
    for t, (row, flows, shares) in enumerate(zip(hand.yearly, HAND_YEARS, HAND_SHARES,
                                                  strict=True)):
        assert row["year"] == t
        expected = {**flows, **shares}
        for comp, value in row.items():
            if comp in ("year", "tax_deductions"):  # no tax here: deductions save nothing
                continue
            if comp == "net_after_tax":  # methodology §20: the net flow, less 0 tax
                assert value == row["net"], t
                continue
            assert value == pytest.approx(expected.get(comp, 0.0), abs=1e-6), (t, comp)


def test_residual_value_by_hand(hand):
    assert hand.values["residual_fraction"] == pytest.approx(0.4)
    assert hand.values["residual_value"] == pytest.approx(47_200)


def test_npv_and_totals_by_hand(hand):
    v = hand.values
    assert v["npv_tco"] == pytest.approx(HAND_NPV, abs=1e-5)
    # Independent cross-check: numpy-financial discounts the first flow by (1+r)^0.
    nets = [row["net"] for row in hand.yearly]
    assert npf.npv(0.10, nets) == pytest.approx(HAND_NPV, abs=1e-5)
    assert v["undiscounted_tco"] == pytest.approx(202_932.898015, abs=1e-5)
    assert v["annuity_factor"] == pytest.approx(2.486851991, rel=1e-9)
    assert v["equivalent_annual_cost"] == pytest.approx(79_916.563927, rel=1e-9)
    assert v["cost_per_gpu_hour"] == pytest.approx(3.329857, rel=1e-6)
    assert v["cost_per_pflop_hour"] == pytest.approx(66.597137, rel=1e-7)
    assert v["runs_over_horizon"] == pytest.approx(6)


def test_per_job_cost_lines_by_hand(hand):
    job = hand.jobs["small"]
    assert job["cost_hardware"] == pytest.approx(9_443.493151, rel=1e-9)
    assert job["cost_electricity"] == pytest.approx(900)
    assert job["cost_facility"] == pytest.approx(2_054.794521, rel=1e-9)
    assert job["cost_operations"] == pytest.approx(7_780.821918, rel=1e-9)
    assert job["cost_porting"] == pytest.approx(3_333.333333, rel=1e-9)
    assert job["cost_per_job"] == pytest.approx(23_512.442922, rel=1e-9)
    # 23,512.44 / 360,000 million tokens
    assert job["cost_per_million_tokens"] == pytest.approx(23_512.442922 / 360_000, rel=1e-9)


def test_rent_and_breakeven_by_hand(hand):
    v = hand.values
    assert v["cloud_rent_per_year"] == pytest.approx(48_000)
    assert v["cloud_delay_cost"] == pytest.approx(2_174.107143, rel=1e-9)
    assert v["cloud_npv"] == pytest.approx(153_977.262666, rel=1e-9)
    assert v["breakeven_utilization"] == pytest.approx(0.474607, abs=1e-6)


# --- financed variant ------------------------------------------------------------------------
#
# Same scenario, all capex (133,900) financed at 6 % over 3 years.
#   payment = 133,900 x 0.06 / (1 - 1.06^-3)
#     1.06^3 = 1.191016;  1.06^-3 = 0.83961928;  1 - 0.83961928 = 0.16038072
#     133,900 x 0.06 = 8,034;  8,034 / 0.16038072 = 50,093.304 a year (years 1..3)
#   year 0: 157,900 - 133,900 loan proceeds   = 24,000
#   year 1: 29,464.898 + 50,093.304            = 79,558.202
#   year 2: 31,384 + 50,093.304                = 81,477.304
#   year 3: -15,816 + 50,093.304               = 34,277.304
#   NPV at 10 %: 24,000 + 79,558.202/1.1 + 81,477.304/1.21 + 34,277.304/1.331
#              = 24,000 + 72,325.638 + 67,336.615 + 25,753.046 = 189,415.299
#   Financing at 6 % while discounting at 10 % lowers the NPV by 198,740.666 - 189,415.299
#   = 9,325.37 (as without the timeline: the loan does not depend on it).
#   Undiscounted: 24,000 + 79,558.202 + 81,477.304 + 34,277.304 = 219,312.810
HAND_PMT = 50_093.304
HAND_NPV_FINANCED = 189_415.299


@pytest.fixture(scope="module")
def financed(catalog):
    text = DATA.read_text(encoding="utf-8").replace(
        "  purchase: buy\n",
        "  purchase: finance\n  financed_fraction: 1.0\n  loan_rate: 0.06\n  loan_term_years: 3\n",
    )
    assert "purchase: finance" in text
    (cand,) = compute(load_scenario_text(text, "financed"), catalog).candidates
    return cand


def test_financed_variant_by_hand(financed):
    v = financed.values
    assert v["financed_amount"] == pytest.approx(133_900)
    assert v["loan_payment_per_year"] == pytest.approx(HAND_PMT, abs=0.001)
    # Cross-check with numpy-financial (payments come out negative there).
    assert -npf.pmt(0.06, 3, 133_900) == pytest.approx(HAND_PMT, abs=0.001)
    fin = [row["financing"] for row in financed.yearly]
    assert fin[0] == pytest.approx(-133_900)
    assert fin[1:] == pytest.approx([HAND_PMT] * 3, abs=0.001)
    nets = [row["net"] for row in financed.yearly]
    assert nets == pytest.approx([24_000, 79_558.202, 81_477.304, 34_277.304], abs=0.001)
    assert v["npv_tco"] == pytest.approx(HAND_NPV_FINANCED, abs=0.001)
    assert npf.npv(0.10, nets) == pytest.approx(HAND_NPV_FINANCED, abs=0.001)
    assert v["undiscounted_tco"] == pytest.approx(219_312.810, abs=0.001)
