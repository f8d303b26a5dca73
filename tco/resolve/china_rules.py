"""China's supply rules in a scenario's policy (methodology §21): a vendor's allocation quota
(`policy.supply_limit_cards_per_quarter`, cards of one id per quarter: the planner's limit on
what it buys, a risk flag on an option that buys more at once) and a licence revoked
mid-horizon (`policy.licence_revoked_from`, YYYY-MM: the input
`candidates.<id>.licence_revoked_years`, after which the option's cluster does no work while
its costs stay, and a risk flag)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import modes
from ..errors import did_you_mean
from ..inputs import QUOTA_INPUT, REVOKED_INPUT, Input
from ..resolved import value_problem
from .state import Resolution

if TYPE_CHECKING:
    from ..resolved import CandidateInfo


def months_after(start: str, month: str) -> int:
    """Whole months from `start` to `month` (both YYYY-MM)."""
    y0, m0 = (int(x) for x in start.split("-"))
    y1, m1 = (int(x) for x in month.split("-"))
    return (y1 - y0) * 12 + (m1 - m0)


def flag(info: CandidateInfo, text: str) -> None:
    """Add a risk flag once (a generated option shares its source's list of flags)."""
    if text not in info.flags:
        info.flags.append(text)


def china_rules(r: Resolution, infos: dict[str, CandidateInfo], priced: list[str]
                ) -> tuple[str, ...]:
    """Check the rules' card ids, flag the options they touch, put each revoked option's input;
    the priced options whose licence is revoked within the horizon."""
    policy = r.sc.policy
    for key in ("supply_limit_cards_per_quarter", "licence_revoked_from"):
        for card in getattr(policy, key):
            if card not in r.catalog.accelerators:
                raise r.error(f"unknown card '{card}'{did_you_mean(card, r.catalog.accelerators)}",
                              ["policy", key, card])
    for card, limit in policy.supply_limit_cards_per_quarter.items():
        # 1e308 or 0.5 cards a quarter was taken (and 1e308 printed as a quota)
        if problem := value_problem(limit, QUOTA_INPUT, r.sc.currency, r.usd.scale):
            raise r.error(problem, ["policy", "supply_limit_cards_per_quarter", card])
        for info in infos.values():
            cards = r.inputs.get(f"candidates.{info.inputs_of or info.id}.cards")
            if info.card == card and info.acquire in (modes.BUY, modes.LEASE, modes.HYBRID) \
                    and cards is not None and cards.value > float(limit):
                flag(info, f"supply: the vendor allocates at most {float(limit):,.0f} "
                           f"{info.card_name} a quarter; {cards.value:,.0f} cards take "
                           f"{-(-cards.value // float(limit)):,.0f} quarters")
    revoked = []
    horizon_months = 12 * r.sc.finance.horizon_years
    for card, month in policy.licence_revoked_from.items():
        if r.sc.start is None:
            raise r.error("a licence revoked from a month needs the scenario's start month "
                          "(start: YYYY-MM) to date it", ["policy", "licence_revoked_from", card])
        months = months_after(r.sc.start, month)
        if months < 0:
            raise r.error(f"{month} is before the scenario's start ({r.sc.start})",
                          ["policy", "licence_revoked_from", card])
        for cid in priced:
            info = infos[cid]
            if info.card != card or months >= horizon_months:
                continue
            flag(info, f"licence: {info.card_name} revoked from {month}: the cluster does no work after "
                       "it, its costs stay (policy.licence_revoked_from)")
            path = f"candidates.{info.inputs_of or cid}.licence_revoked_years"
            if path not in r.inputs:
                r.put(Input(path=path, value=months / 12, spec=REVOKED_INPUT, origin="scenario",
                            source=f"policy.licence_revoked_from: {month} "
                                   f"(start {r.sc.start})"))
            revoked.append(cid)
    return tuple(revoked)
