"""Methodology §6, "Book value and depreciation": how owned hardware loses value, defined once.

A depreciation schedule says what share of an asset's cost is still on the books at an age
(`book_fraction`); everything else follows from it: the value of what is owned at the horizon
(tco.model.operations, `residual_fraction`), a returned lease's use left
(tco.model.lease), held stock's value now from its age (tco.model.held), the share of the cost
charged in a year (`charge_fraction`) and the straight-line charge a run bears per hour
(tco.model.jobcost).

A schedule is a parameter of every function here, never read from a global: the book
schedule (`book_schedule()`, straight line to the salvage share over
`finance.depreciation_years`) is the default, and a tax schedule (5-year MACRS, a one-time write-off with a bonus share or a
per-unit threshold) is another object with a `book_fraction(age)` of its own, carrying its
parameters as expressions (a threshold schedule its unit cost), so that no caller changes when
one is added. Ages are in years from the asset's start of service, as numbers or expressions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..expr import MAX, Expr, ExprLike, Ref
from .base import fin


class Schedule(Protocol):
    """How an asset's book value falls with its age."""

    def book_fraction(self, age: ExprLike) -> Expr:
        """The share of the cost still on the books at `age` years."""
        ...


@dataclass(frozen=True)
class StraightLine:
    """Straight line from the whole cost to `salvage_fraction` of it over `life_years`, then
    flat: book(age) = s + (1 - s) x MAX(0, 1 - age / life)."""

    life_years: Expr
    salvage_fraction: Expr

    def book_fraction(self, age: ExprLike) -> Expr:
        s = self.salvage_fraction
        return s + (1 - s) * MAX(0, 1 - age / self.life_years)

    def charge_per(self, per: Expr, salvaged: Expr, *to_nothing: Expr) -> Expr:
        """The yearly charge per unit of `per` (per cluster-hour of a year, say) of `salvaged`
        (falling to the salvage share) and of `to_nothing` (falling to zero, such as an
        installation nobody buys back), while the life lasts."""
        cost = salvaged * (1 - self.salvage_fraction)
        for part in to_nothing:
            cost = cost + part
        return cost / (self.life_years * per)

    def write_off_per_year(self, cost: Expr) -> Expr:
        """The yearly charge of `cost` falling to zero over the life."""
        return cost / self.life_years


def book_schedule() -> StraightLine:
    """The book (economic) schedule of owned hardware: the scenario's life and salvage share.
    Made anew for each use: candidates built chapter by chapter share no node (twins are
    copied from their template, tco/model/twincopy.py, and tests tell the two apart)."""
    return StraightLine(fin("depreciation_years"), fin("residual_value_fraction"))


@dataclass(frozen=True)
class MarketCurve:
    """What a card sells for on the used market, as a share of its new price at `age` years:
    haircut x retention^age (methodology §6, "Resale at the horizon"; pricing/resale.yaml),
    a convex curve, where the book's straight line is linear."""

    haircut: Expr
    retention: Expr

    def book_fraction(self, age: ExprLike) -> Expr:
        return self.haircut * self.retention ** age


def market_curve(inputs_of: str) -> MarketCurve:
    """The used-market curve of the card of candidate `inputs_of` (its inputs)."""
    return MarketCurve(Ref(f"candidates.{inputs_of}.resale_haircut_fraction"),
                       Ref(f"candidates.{inputs_of}.resale_retention_per_year"))


def book_fraction(age: ExprLike, schedule: Schedule | None = None) -> Expr:
    """The share of an asset's cost on the books at `age` years under `schedule` (the book
    schedule unless given)."""
    return (schedule or book_schedule()).book_fraction(age)


def charge_fraction(year: int, schedule: Schedule | None = None) -> Expr:
    """The share of an asset's cost charged in year `year` of its service (1 = the first):
    the book value it loses during that year."""
    schedule = schedule or book_schedule()
    return schedule.book_fraction(year - 1) - schedule.book_fraction(year)
