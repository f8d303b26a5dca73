"""Leasing (acquire: lease), worked by hand on tests/data/lease_hand.yaml (see
tests/test_lease.py for its payment, 3,645.359702 a month, and its yearly flows)."""

from pathlib import Path

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "lease_hand.yaml"
PAYMENT = 3_645.359702
LEASE_NPV = 223_609.169460  # tests/test_lease.py


def _variant(finance: dict[str, object]) -> str:
    """lease_hand.yaml with finance keys set (added under `finance:` when absent)."""
    lines = DATA.read_text().splitlines()
    for key, value in finance.items():
        hit = [i for i, line in enumerate(lines) if line.startswith(f"  {key}:")]
        if hit:
            lines[hit[0]] = f"  {key}: {value}"
        else:
            lines.insert(lines.index("finance:") + 1, f"  {key}: {value}")
    return "\n".join(lines) + "\n"


def _lease(catalog, **finance):
    result = compute(load_scenario_text(_variant(finance)), catalog)
    (cand,) = result.candidates
    return cand


# VAT: a lessor charges VAT on its payments as a seller does on the equipment (China: 13 % on
# the financial leasing of movable goods). With 13 % VAT the buyer cannot recover, a purchase
# pays it on the whole capex; the lease used to pay it on the cooling and installation only,
# so leasing avoided the VAT on 118,000 of equipment. By hand, the lease's unrecovered VAT:
#   year 0: 0.13 x 15,900 (cooling and installation)            = 2,067
#   year 1: 0.13 x 11 payments x 3,645.359702 = 0.13 x 40,098.956723 = 5,212.864374
#   year 2: 0.13 x 12 x 3,645.359702 = 0.13 x 43,744.316425        = 5,686.761135
#   year 3: the same 12 payments and the 36th settled at the horizon (3,618.822088,
#     tests/test_lease.py): 0.13 x 47,363.138513                     = 6,157.208007
#   (the deposit, its refund and the use left are no supply: no VAT)
# NPV added: 2,067 + 5,212.864374 / 1.1 + 5,686.761135 / 1.21 + 6,157.208007 / 1.331
#   = 2,067 + 4,738.967613 + 4,699.802591 + 4,626.001508          = 16,131.771712
def test_unrecovered_vat_on_lease_payments(catalog):
    cand = _lease(catalog, vat_rate=0.13, vat_recoverable_fraction=0)
    assert [r["vat"] for r in cand.yearly] == pytest.approx(
        [2_067, 5_212.864374, 5_686.761135, 6_157.208007], abs=1e-5)
    assert cand.values["npv_tco"] == pytest.approx(LEASE_NPV + 16_131.771712, abs=1e-4)


# Recovered VAT on the payments is deducted in the period it is paid: only the purchase's
# timing cost on the cooling and installation remains (paid in year 0, recovered in year 1):
#   2,067 - 2,067 / 1.1 = 2,067 - 1,879.090909 = 187.909091
def test_recovered_vat_on_lease_payments_costs_nothing(catalog):
    cand = _lease(catalog, vat_rate=0.13, vat_recoverable_fraction=1)
    assert [r["vat"] for r in cand.yearly] == pytest.approx([2_067, -2_067, 0, 0], abs=1e-6)
    assert cand.values["npv_tco"] == pytest.approx(LEASE_NPV + 187.909091, abs=1e-4)


# A return lease whose term runs past the horizon used to count only the payments inside it:
# 120 months on the 3-year plan counted 35 of 120 payments, so the longest lease looked
# cheapest (NPV 164k against 222k for 36 months) though its payments run seven years on for
# hardware that, by the model's own depreciation, is worth 20 % by then. Settled at the
# horizon as a purchase is (methodology §7), by hand:
#   payment: (118,000 - 11,800 x 1.01^-120) x 0.01 / (1 - 1.01^-120), 1.01^-120 = 0.302994780
#          = 1,144.246616 / 0.697005220 = 1,641.661472 a month
#   payments in the horizon as for 36 months: 11, 12, 12; deposit one payment, back at H
#   85 payments left, the first 0.919918 months after the horizon; v = 1.1^(-1/12)
#     = 0.992088943: present value 1,641.661472 x v^0.919918 x (1 - v^85) / (1 - v)
#     = 1,641.661472 x 0.992720166 x 62.052584 = 101,127.745218
#   use left: book value at 3 years 0.4, at the term's end (10.08 years) 0.2:
#     118,000 x 0.2 = 23,600
#   financing: year 1: 12 x 1,641.661472 (11 payments and the deposit) = 19,699.937664
#     year 2: 19,699.937664; year 3: 11 x 1,641.661472 + 101,127.745218 - 23,600 = 95,586.021410
#   net: 39,900; 29,464.898015 + 19,699.937664 = 49,164.835679; 31,384 + 19,699.937664
#     = 51,083.937664; 31,384 + 95,586.021410 = 126,970.021410
#   NPV: 39,900 + 49,164.835679 / 1.1 + 51,083.937664 / 1.21 + 126,970.021410 / 1.331
#     = 39,900 + 44,695.305163 + 42,218.130301 + 95,394.456356 = 222,207.891820
def test_return_lease_longer_than_horizon_settled_at_horizon(catalog):
    cand = _lease(catalog, lease_term_months=120)
    assert cand.values["lease_payment_per_month"] == pytest.approx(1_641.661472, abs=1e-6)
    assert [r["financing"] for r in cand.yearly] == pytest.approx(
        [0, 19_699.937664, 19_699.937664, 95_586.021410], abs=1e-5)
    assert cand.values["npv_tco"] == pytest.approx(222_207.891820, abs=1e-4)
