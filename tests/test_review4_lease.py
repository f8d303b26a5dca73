"""Review of leasing (acquire: lease), worked by hand on tests/data/lease_hand.yaml (see
tests/test_lease.py for its payment, 3,645.359702 a month, and its yearly flows)."""

from pathlib import Path

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "lease_hand.yaml"
PAYMENT = 3_645.359702
LEASE_NPV = 222_249.552415  # tests/test_lease.py


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
#   years 2, 3: 0.13 x 12 x 3,645.359702 = 0.13 x 43,744.316425    = 5,686.761135 each
#   (the deposit and its refund are no supply: no VAT)
# NPV added: 2,067 + 5,212.864374 / 1.1 + 5,686.761135 / 1.21 + 5,686.761135 / 1.331
#   = 2,067 + 4,738.967613 + 4,699.802591 + 4,272.547810          = 15,778.318014
def test_unrecovered_vat_on_lease_payments(catalog):
    cand = _lease(catalog, vat_rate=0.13, vat_recoverable_fraction=0)
    assert [r["vat"] for r in cand.yearly] == pytest.approx(
        [2_067, 5_212.864374, 5_686.761135, 5_686.761135], abs=1e-5)
    assert cand.values["npv_tco"] == pytest.approx(LEASE_NPV + 15_778.318014, abs=1e-4)


# Recovered VAT on the payments is deducted in the period it is paid: only the purchase's
# timing cost on the cooling and installation remains (paid in year 0, recovered in year 1):
#   2,067 - 2,067 / 1.1 = 2,067 - 1,879.090909 = 187.909091
def test_recovered_vat_on_lease_payments_costs_nothing(catalog):
    cand = _lease(catalog, vat_rate=0.13, vat_recoverable_fraction=1)
    assert [r["vat"] for r in cand.yearly] == pytest.approx([2_067, -2_067, 0, 0], abs=1e-6)
    assert cand.values["npv_tco"] == pytest.approx(LEASE_NPV + 187.909091, abs=1e-4)
