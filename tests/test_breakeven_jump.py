"""A break-even found beside a jump is the answer, not the jump (issue 13, leasing).

`finance.lease_quoted_rate_factor` of 0 means "no quote: price the payment from lease_rate",
so at 0 the difference between a purchase and a lease jumps (from the rate-priced payment to
a payment of almost nothing); further on, a quoted factor makes them equal. The break-even
used to report the jump, nearest the baseline 0, as "no value makes the two equal".
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import FROZEN

from tco.analysis.breakeven import breakeven
from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario_text

LEASE = """
name: quoted lease
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: buy, card: h100-sxm, cards: 64}
  - {id: lease, card: h100-sxm, cards: 64, acquire: lease}
finance: {horizon_years: 3, discount_rate: 0.08, residual_value_fraction: 0.1%s}
"""


def npv(catalog, factor: float) -> tuple[float, float]:
    r = compute(load_scenario_text(LEASE % f", lease_quoted_rate_factor: {factor}"), catalog)
    return r.candidate("buy").values["npv_tco"], r.candidate("lease").values["npv_tco"]


def test_the_break_even_of_a_quoted_lease_rate_factor_is_not_hidden_by_the_jump_at_0(frozen):
    catalog = frozen  # the pre-2026-12 prices the break-even 0.02215 was found on
    # the lease's flows (payments, deposit, settlement of the payments left) are each the
    # payment times a count or a discount factor, and the payment is the factor times the
    # equipment: the lease's NPV is a + b x factor; two quotes give a and b, and the purchase
    # (which no lease input moves) equals it at (buy - a) / b
    buy, at_1 = npv(catalog, 0.01)
    buy_3, at_3 = npv(catalog, 0.03)
    assert buy_3 == buy
    b = (at_3 - at_1) / 0.02
    a = at_1 - b * 0.01
    expected = (buy - a) / b
    assert expected == pytest.approx(0.02215, abs=1e-5)

    loaded = load_scenario_text(LEASE % "", "quoted.yaml")
    out = breakeven(loaded, catalog, "finance.lease_quoted_rate_factor", "buy", "lease")
    assert out.value == pytest.approx(expected, rel=1e-6)
    assert out.statement.startswith("buy and lease have the same NPV of TCO at "
                                    "finance.lease_quoted_rate_factor = 0.02215")
    first, jump = out.crossings
    assert first.exact and not first.jump
    assert jump.jump and jump.value is None and jump.bracket[0] == 0
    assert "the input switches how a figure is computed" in jump.note


def test_the_cli_states_the_break_even_first(tmp_path):
    path = tmp_path / "quoted.yaml"
    path.write_text(LEASE % "")
    out = CliRunner().invoke(cli, ["breakeven", str(path), "--catalog", FROZEN, "--vary",
                                   "finance.lease_quoted_rate_factor", "--candidate", "buy",
                                   "--vs", "lease"])
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == ("buy and lease have the same NPV of TCO at "
                                          "finance.lease_quoted_rate_factor = 0.0221525 "
                                          "(baseline 0)")
