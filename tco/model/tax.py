"""Methodology §20, "Tax": the tax schedule of owned equipment and the after-tax NPV.

Income tax changes what an option costs the business: every deductible cost lowers the tax
paid by the tax rate times itself, in the year it is deducted. Rent, lease payments, API
fees and running costs are deducted as paid; owned equipment is deducted over the years of a
tax depreciation schedule, and what is left of its tax basis when it is sold at the horizon
is deducted then, while the resale price is taxable income. Losses are usable in the year
they arise (the buyer has other taxable profit to set them against: no carry-forward).

The schedule is a `depreciation.Schedule` like the book one (tco/model/depreciation.py): its
`book_fraction(age)` is the tax basis left after `age` whole tax years, and the share deducted
in tax year t is `depreciation.charge_fraction(t, schedule)`. Tax year 1 is the year of the
purchase; its deduction falls at the year's end (with the year's running costs, §7).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..expr import AND, IF, MAX, MIN, NPV0, SUM, Const, Expr, ExprLike, Ref
from .base import Builder, fin
from .depreciation import charge_fraction

# The cash-flow components deducted as paid (tco.model.cashflows.COMPONENTS): running costs,
# rent, porting and the cost of delay (income the business forgoes is income untaxed). Not
# deducted: the purchase (depreciated instead), VAT (recovered, or part of the purchase),
# a loan's principal and interest (the discount rate is the cost of capital: the interest
# shield belongs to an after-tax rate, not counted here) and held stock (its resale forgone).
# The VAT on running costs that is not recovered is a cost like the line it is paid on, and a
# compute voucher (an inflow) is taxable income: it lowers the deductions of its year.
DEDUCTED_AS_PAID = ("porting", "lead_time_delay", "electricity", "colocation", "support",
                    "storage_support", "licences", "operations_staff", "porting_maintenance",
                    "cloud_rent", "running_vat", "voucher")


# Deducted as paid but not qualifying R&D costs: income forgone (the cost of delay) and a
# compute voucher (taxable income, an inflow).
NOT_RD = ("lead_time_delay", "voucher")


def rd_factor() -> Expr:
    """What a qualifying R&D cost is deducted as, per unit (methodology §20, "R&D
    super-deduction"): 1 + tax_rd_share x tax_rd_extra_deduction_fraction (China since 2023:
    1 + share x 1.0, so an option all of whose costs are research deducts them twice)."""
    return 1 + fin("tax_rd_share") * fin("tax_rd_extra_deduction_fraction")


@dataclass(frozen=True)
class TaxSchedule:
    """How the cost of owned equipment is deducted: `kind` straight_line (over
    `finance.tax_life_years`, whole years from the first), macrs_5 (`table`, the
    statutory shares, pricing/tax.yaml) or one_time (all in the first year); a bonus share
    `finance.tax_bonus_fraction` in the first year and the rest on the schedule; and equipment
    whose `unit_value` (one server) is at most `finance.tax_expensing_threshold_per_unit`
    (when above 0) deducted at once."""

    kind: str
    table: tuple[float, ...] = ()
    unit_value: Expr | None = None

    def _base(self, year: int) -> Expr:
        """The schedule's share in tax year `year` (1 = the first), before bonus and threshold."""
        if self.kind == "one_time":
            return Const(1.0 if year == 1 else 0.0)
        if self.kind == "macrs_5":
            return Const(self.table[year - 1] if year <= len(self.table) else 0.0)
        life = fin("tax_life_years")
        return MIN(1, year / life) - MIN(1, (year - 1) / life)

    def deduction(self, year: int) -> Expr:
        """The share of the cost deducted in tax year `year` (1 = the year of the purchase)."""
        first = 1.0 if year == 1 else 0.0
        bonus = fin("tax_bonus_fraction")
        share: Expr = (bonus * first + (1 - bonus) * self._base(year)) if year == 1 \
            else (1 - bonus) * self._base(year)
        if self.unit_value is None:
            return share
        limit = fin("tax_expensing_threshold_per_unit")
        return IF(AND(limit.gt(0), self.unit_value.le(limit)), first, share)

    def book_fraction(self, age: ExprLike) -> Expr:
        """The tax basis left after `age` whole tax years (an int)."""
        years = int(age)  # type: ignore[arg-type]
        if years <= 0:
            return Const(1.0)
        return MAX(0, 1 - SUM(*[self.deduction(t) for t in range(1, years + 1)]))


def tax_schedule(kind: str, table: tuple[float, ...], unit_value: Expr | None) -> TaxSchedule:
    return TaxSchedule(kind, table, unit_value)


def after_tax(b: Builder, horizon: int, parts: list[dict[str, Ref]], net: list[Ref],
              basis: Expr | None, schedule: TaxSchedule, leased: bool, money: str) -> Ref:
    """Each year's tax (negative: a saving) and the after-tax NPV of an option whose year-t
    components are `parts[t]` and net flows `net[t]`; `basis`: the cost of what it owns
    (None when it owns nothing). A lessee deducts its lease payments (`financing`)."""
    rate = fin("tax_rate")
    rd = rd_factor()
    after, taxes = [], []
    for t in range(horizon + 1):
        # the costs the R&D super-deduction counts again: paid for R&D, and the depreciation
        # of its instruments (not income forgone, a voucher or the sale at the horizon)
        research = [parts[t][c] for c in DEDUCTED_AS_PAID if c not in NOT_RD]
        if leased:
            research.append(parts[t]["financing"])
        if basis is not None and t >= 1:
            research.append(basis * charge_fraction(t, schedule))
        deducted = [SUM(*research) * rd] + [parts[t][c] for c in NOT_RD]
        if t == horizon:  # sold: the basis left is deducted, the resale price is income
            if basis is not None:
                deducted.append(basis * schedule.book_fraction(horizon))
            deducted.append(parts[t]["residual_value"])  # negative: an inflow
        d = b.q("tax_deductions", SUM(*deducted), money,
                f"Tax deductions, year {t} (less the taxable resale at the horizon)", "year",
                year=t)
        tax = b.q("income_tax", -rate * d, money,
                  f"Income tax saved (negative) or paid, year {t}", "year", year=t)
        taxes.append(tax)
        after.append(b.q("net_after_tax", net[t] + tax, money,
                         f"Net cash flow after tax, year {t}", "year", year=t))
    b.q("income_tax_npv", NPV0(fin("discount_rate"), taxes), money,
        "Present value of the income tax (negative: saved)", "horizon")
    return b.q("npv_tco_after_tax", NPV0(fin("discount_rate"), after), money,
               "NPV of TCO after income tax", "horizon")
