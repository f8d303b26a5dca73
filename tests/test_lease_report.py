"""The report states a leased option's terms as a lessor's quote does (issue 13, leasing): the
monthly payment, the rate factor, the deposit and the buyout price, in English and Chinese; and
beside a leased option the per-run hardware line is not called depreciation (it is the lease's
payments there, methodology §9). Before, these figures were only in the JSON and the workbook.
"""

from __future__ import annotations

import html
import re

import pytest

from tco.engine import compute
from tco.exporters.html import render_html
from tco.scenario import load_scenario_text

# a buyout lease of 24 months in arrears, two payments of deposit, commencing at delivery
LEASED = """
name: buyout lease
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: buy, card: h100-sxm, cards: 64}
  - {id: lease, card: h100-sxm, cards: 64, acquire: lease, lead_time_weeks: 30}
finance: {horizon_years: 4, discount_rate: 0.08, lease_rate: 0.10, lease_residual_fraction: 0.15,
          lease_term_months: 24, lease_buyout: 1, lease_payments_in_advance: 0,
          lease_deposit_months: 2}
assumptions: {storage_tb_per_card: 10}  # 64 x 10 TB x 300 = 192,000 of storage, as worked below
"""


def words(page: str) -> str:
    page = re.sub(r"<(script|style).*?</\1>", "", page, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


@pytest.fixture(scope="module")
def result(frozen):
    # the amounts below were worked out on the pre-2026-12 prices (tests/data)
    return compute(load_scenario_text(LEASED), frozen)


def test_the_lease_terms_are_in_the_report(result):
    # the equipment the lessor buys: the bought option's cards, servers, network and storage
    y0 = result.candidate("buy").yearly[0]
    amount = y0["cards"] + y0["servers"] + y0["network"] + y0["storage"]
    assert amount == pytest.approx(2_972_000)
    # (cost - PV of the 15 % residual) repaid over 24 months at 10 %/12, in arrears (PMT)
    i, n = 0.10 / 12, 24
    payment = amount * (1 - 0.15 * (1 + i) ** -n) * i / (1 - (1 + i) ** -n)
    assert payment == pytest.approx(120_286.31, abs=0.01)
    lease = result.candidate("lease").values
    assert lease["lease_payment_per_month"] == pytest.approx(payment, rel=1e-12)
    en = words(render_html(result))
    assert (f"Lease payment per month (net of VAT) ${payment / 1e3:,.0f}k "
            f"Lease rate factor (monthly payment per unit of equipment cost) "
            f"{payment / amount:.4f} "
            "Lease security deposit (refunded at the end of the term) $241k "  # 2 payments
            "Price to keep the hardware at the end of the term (0: returned) $446k") in en
    zh = words(render_html(result, lang="zh"))
    assert (f"每月租赁付款（不含增值税） ${payment:,.0f} 租赁费率因子（每月付款 ÷ 设备成本） "
            f"{payment / amount:.4f} 租赁保证金（租期结束时退还） ${2 * payment:,.0f} "
            "租期结束时留购硬件的价格（0：退还） $445,800") in zh


def test_the_hardware_line_is_not_called_depreciation_beside_a_lease(result, catalog):
    en = words(render_html(result))
    assert "Hardware depreciation" not in en
    assert "Hardware (depreciation, or lease payments when leased)" in en
    zh = words(render_html(result, lang="zh"))
    assert "单次训练成本 硬件（折旧，或租赁时的租赁付款） $" in zh  # the per-run table
    bought = compute(load_scenario_text(LEASED.split("finance:")[0].replace(
        ", acquire: lease", "")), catalog)
    assert "Hardware depreciation" in words(render_html(bought))  # no lease: as before
