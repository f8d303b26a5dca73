"""Methodology §7, "Leasing": an option that leases its hardware (`acquire: lease`).

The lessor buys the IT equipment (cards, servers, network, shared storage) and the lessee pays
a level monthly payment over the term from the day the hardware is delivered (commencement),
in advance or in arrears; it installs, cools, powers, supports and ports the cluster as if it
had bought it. The payment is priced as lessors price it: the cost, less the present value of
the lessor's residual at the end of the term, repaid at the implicit rate (a spreadsheet PMT).
At the end of the term the lessee returns the hardware, or buys it at that residual.

Payments, like every running cost, count at the end of the year they fall in (year 0 for a
payment due at the decision). Month m after the decision falls in year ceil(m / 12).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import IF, MAX, MIN, PMT, ROUNDDOWN, Expr, Ref
from .base import Builder, fin
from .capex import Capex
from .depreciation import book_fraction
from .units import MONTHS_PER_YEAR


@dataclass(frozen=True)
class Lease:
    flows: dict[int, Expr]  # year t (0..H) -> the lease's cash flow (payments, deposit, buyout)
    vat: dict[int, Expr]  # year t -> the VAT on the lessor's charges that is not recovered
    payment: Ref  # the monthly payment, net of VAT


def lease(b: Builder, cx: Capex, delivery_years: Ref, horizon: int, money: str) -> Lease:
    """The lease's payment and its flows year by year (the `financing` line of the option)."""
    q = b.q
    n, adv, buy = fin("lease_term_months"), fin("lease_payments_in_advance"), fin("lease_buyout")
    amount = q("lease_amount", cx.hardware + cx.storage, money,
               "Equipment the lessor buys (hardware and shared storage)", "horizon")
    rate = q("lease_monthly_rate", fin("lease_rate") / MONTHS_PER_YEAR, "fraction",
             "Lease's implicit interest rate per month", "horizon")
    # the cost less the present value of the lessor's residual, repaid over the term; in
    # advance each payment is a month earlier, so it is smaller by 1 + the monthly rate
    # a lessor's quote (its rate factor) is taken as it is
    quoted = fin("lease_quoted_rate_factor")
    payment = q("lease_payment_per_month",
                IF(quoted.gt(0), quoted * amount,
                   -PMT(rate, n, amount * (1 - fin("lease_residual_fraction") * (1 + rate) ** -n))
                   / (1 + adv * rate)), money, "Lease payment per month", "horizon")
    q("lease_rate_factor", IF(amount.gt(0), payment / MAX(amount, 1e-12), 0), "per month",
      "Lease rate factor: monthly payment per unit of equipment cost", "horizon")
    start = q("lease_commencement_months", delivery_years * MONTHS_PER_YEAR, "months",
              "Months from the decision to the lease's commencement (delivery)", "horizon")
    end = start + n  # the end of the term: the hardware is returned or bought
    deposit = q("lease_deposit", fin("lease_deposit_months") * payment, money,
                "Security deposit (paid at commencement, refunded at the end of the term)",
                "horizon")
    buyout = q("lease_buyout_price", buy * fin("lease_residual_fraction") * amount, money,
               "Price paid at the end of the term to keep the hardware (0 when returned)",
               "horizon")

    def paid(months: int) -> Expr:
        """Payments due by `months` after the decision: payment k falls at start + k - 1 in
        advance, start + k in arrears."""
        return MIN(n, MAX(0, ROUNDDOWN(months - start + adv)))

    def by(months: int, when: Expr) -> Expr:
        return IF(when.le(months), 1, 0)

    # A term running past the horizon (year H, month 12H) is settled there, as a purchase is by
    # its residual value: the payments left and the buyout price, at their present value at
    # the horizon (monthly at the discount rate), less, for a returned cluster, the use it
    # still gives: its book value at the horizon less its book value at the term's end.
    v = (1 + fin("discount_rate")) ** (-1 / MONTHS_PER_YEAR)  # one month's discount factor

    def owed_after(now: int, before: int) -> Expr:
        left = n - paid(now)  # payment paid(now) + 1 falls `wait` months after the horizon
        wait = start + paid(now) + 1 - adv - now
        annuity = IF(fin("discount_rate").gt(0), (1 - v ** left) / MAX(1 - v, 1e-12), left)
        return (payment * v ** wait * annuity
                + buyout * (1 - by(before, end)) * v ** MAX(0, end - now))

    def use_left(now: int) -> Expr:
        return q("lease_use_left", (1 - buy) * amount
                 * MAX(0, book_fraction(now / MONTHS_PER_YEAR)
                       - book_fraction(end / MONTHS_PER_YEAR)),
                 money, "A returned lease's use left at the horizon (book value at the horizon "
                 "less at the term's end)", "horizon")

    # what the lessor charges (payments, buyout) bears VAT; the deposit is no supply
    charged: dict[int, Expr] = {0: payment * paid(0)}
    held: dict[int, Expr] = {0: deposit * by(0, start)}
    for t in range(1, horizon + 1):
        now, before = MONTHS_PER_YEAR * t, MONTHS_PER_YEAR * (t - 1)
        charged[t] = payment * (paid(now) - paid(before))
        held[t] = deposit * (by(now, start) - by(before, start))
        if t < horizon:
            charged[t] = charged[t] + buyout * (by(now, end) - by(before, end))
            held[t] = held[t] - deposit * (by(now, end) - by(before, end))
        else:  # at the horizon: the deposit comes back; what the term still holds is settled
            charged[t] = charged[t] + owed_after(now, before)
            held[t] = held[t] - deposit * (by(now, start) - by(before, end)) - use_left(now)
    # VAT on the lessor's charges: the recoverable share is deducted in the period it is paid
    # (counted at the same year's end), the rest is a cost, as on a purchase (capex.py)
    lost = fin("vat_rate") * (1 - fin("vat_recoverable_fraction"))
    return Lease({t: charged[t] + held[t] for t in charged},
                 {t: lost * charged[t] for t in charged}, payment)
