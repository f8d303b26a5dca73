"""The planner's problem as plain numbers (methodology §19): the periods of the horizon, what
each card can supply and what each unit of supply costs, and what each workload needs.

Everything here is a number already worked out by the model (tco/plan/build.py reads them from
the evaluated expression trees); the solver (tco/plan/solve.py) turns them into a mixed-integer
program. Money is in the scenario's currency; costs are positive. A flow in period k is
discounted as the model's cash flows are (methodology §7): a purchase at the start of its
period, every running cost at the end of the year it falls in.
"""

from __future__ import annotations

from dataclasses import dataclass, field

HOURS_PER_YEAR = 8760.0
MONTHS_PER_YEAR = 12
# Rent tiers the planner sizes (tco.rent_tiers.TIERS): a committed tier is a block of cards
# paid for every hour of its term (take-or-pay), the others are paid per card-hour used.
TERM_MONTHS = {"committed": 12, "committed_3yr": 36}
PER_HOUR_TIERS = ("on_demand", "spot")


@dataclass(frozen=True)
class Periods:
    """The time grid: `count` periods of `months` months from the decision (period 0)."""

    count: int
    months: int
    discount_rate: float

    @property
    def hours(self) -> float:
        """Hours in one period."""
        return HOURS_PER_YEAR * self.months / MONTHS_PER_YEAR

    @property
    def per_year(self) -> int:
        return MONTHS_PER_YEAR // self.months

    def start_years(self, k: int) -> float:
        return k * self.months / MONTHS_PER_YEAR

    def year_of(self, k: int) -> int:
        """The year (1, 2, ...) period k falls in: its running costs count at that year's end."""
        return k // self.per_year + 1

    def at_start(self, k: int) -> float:
        """Discount factor of a payment at the start of period k (a purchase)."""
        return float((1 + self.discount_rate) ** -self.start_years(k))

    def at_year_end(self, k: int) -> float:
        """Discount factor of a running cost in period k: the end of its year."""
        return float((1 + self.discount_rate) ** -self.year_of(k))

    @property
    def horizon_years(self) -> int:
        return self.count * self.months // MONTHS_PER_YEAR


@dataclass(frozen=True)
class Card:
    """One card the plan may get, and on what terms. Per-server money is for one server of
    `cards_per_server` cards; per-card-hour money for one card-hour."""

    id: str
    stack: str
    cards_per_server: int
    lead_periods: int  # from the order to the hardware installed
    buy: bool  # may be bought here (policy: export rules, licences)
    lease: bool
    # what a bought server costs: its price when ordered in period k (capex with VAT as paid,
    # net of VAT recovered), its upkeep per period once installed, its resale at the horizon
    server_price: tuple[float, ...] = ()  # [period of the order]
    upkeep_per_server_period: float = 0.0  # colocation, support, licences, staff, idle power
    busy_per_card_hour: float = 0.0  # electricity above idle while a card works
    resale_fraction: tuple[float, ...] = ()  # [period of the order]: share of its price at the horizon
    lease_payment_per_server_period: float = 0.0
    lease_term_periods: int = 0
    facility_kw_per_server: float = 0.0  # power the site provisions for it (IT x PUE)
    first_order_period: int = 0  # a card not yet on sale (a next generation) cannot be ordered before
    # rent per card-hour by tier and period (only the tiers a cloud sells for this card)
    rent: dict[str, tuple[float, ...]] = field(default_factory=dict)
    spot_overhead: float = 0.0  # extra card-hours a job needs on preemptible capacity
    utilization: float = 1.0  # share of an owned or reserved card's hours that can do work
    site: str = ""  # the site its owned servers stand at ("" the facility's first)
    card: str = ""  # the catalog card id (a vendor's quota counts every supply of it)
    stop_period: int | None = None  # its licence is revoked: no work from this period on
    # planned after income tax (Problem.tax): the present value of the tax deductions of one
    # server ordered in period k (its depreciation and the basis left when sold), in money
    tax_deductions_per_server: tuple[float, ...] = ()


@dataclass(frozen=True)
class Training:
    """A training workload: its runs, each due within a window of periods."""

    id: str
    card_hours_per_run: dict[str, float]  # card id -> card-hours of one run (absent: cannot)
    windows: tuple[tuple[int, int, float], ...]  # (first period, last period, runs due)
    shortfall_per_run: float  # what a run left undone in its window costs (the fallback)
    # the supplies that can run it at all, in its window or not (its fallback's ways); empty:
    # those of card_hours_per_run
    able: tuple[str, ...] = ()
    # the cost of delay within shortfall_per_run (income forgone: taxed as income, not R&D)
    shortfall_delay_per_run: float = 0.0


@dataclass(frozen=True)
class Serving:
    """A serving workload: its traffic must be met in every period."""

    id: str
    traffic: tuple[float, ...]  # [period]: share of the workload's full traffic
    peak_cards: dict[str, float]  # card id -> cards the peak of the full traffic needs
    busy_card_hours: dict[str, float]  # card id -> card-hours a period of full traffic uses
    api: dict[str, tuple[float, ...]]  # api option id -> [period] cost of a period's full traffic
    shortfall_per_period: float  # what a period of full traffic left unserved costs
    # the cost of delay within shortfall_per_period (income forgone: taxed as income)
    shortfall_delay_per_period: float = 0.0


@dataclass(frozen=True)
class Stack:
    """A software stack: ported once before any of its cards can work, if the plan uses it."""

    id: str
    port_cost: float  # one-time, at the decision
    ready_period: int  # first period its cards can work (the port takes the periods before)
    upkeep_per_period: float  # porting maintenance while the plan uses it


@dataclass(frozen=True)
class Allowed:
    """What a plan may use: every card in every mode (None), or the options a user typed
    ("only buy 910B", "only rent"): (card id, mode) pairs, mode buy | lease | rent; and the
    API options."""

    modes: frozenset[tuple[str, str]] | None = None
    api: frozenset[str] | None = None
    # fleets the user fixed: card id -> servers bought in period 0 (an option with `cards: N`)
    fixed_servers: dict[str, int] = field(default_factory=dict)

    def may(self, card: str, mode: str) -> bool:
        return self.modes is None or (card, mode) in self.modes

    def may_call(self, api: str) -> bool:
        return self.api is None or api in self.api


@dataclass(frozen=True)
class Voucher:
    """A compute voucher (methodology §7, "Compute vouchers"): it pays `rate` of the rent of
    the supplies it applies to (kind "share"), or `rate` per card-hour rented (kind
    "per_card_hour"), at most `cap` a year (None: no cap)."""

    id: str
    kind: str
    rate: float
    cap: float | None
    supplies: tuple[str, ...]


@dataclass(frozen=True)
class Tax:
    """Income tax, when the plan is chosen on the NPV after tax (finance.decision_basis
    after_tax, methodology §20): every deductible cost saves `rate` x `rd` of itself (`rd`: the
    R&D super-deduction factor), a purchase its deductions (Card.tax_deductions_per_server),
    and the resale at the horizon and a compute voucher are income taxed at `rate`."""

    rate: float
    rd: float = 1.0

    @property
    def kept_of_cost(self) -> float:
        """What one unit of a cost deducted as paid costs after tax."""
        return 1.0 - self.rate * self.rd

    @property
    def kept_of_income(self) -> float:
        return 1.0 - self.rate


@dataclass(frozen=True)
class Problem:
    periods: Periods
    cards: tuple[Card, ...]
    training: tuple[Training, ...]
    serving: tuple[Serving, ...]
    stacks: tuple[Stack, ...]
    # each site's power for owned capacity (its energy quota, 能耗指标), by site id ("" the
    # first); a site not listed has no cap
    power_budget_kw: dict[str, float] = field(default_factory=dict)
    # the most cards of a catalog card id the vendors allocate per quarter (orders bought or
    # leased in the quarter), by card id (policy.supply_limit_cards_per_quarter)
    supply_limit_cards_per_quarter: dict[str, float] = field(default_factory=dict)
    vouchers: tuple[Voucher, ...] = ()  # compute vouchers that pay part of the rent
    tax: Tax | None = None  # None: the plan is chosen on the NPV before tax
