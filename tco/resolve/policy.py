"""What the buyer holds (methodology §13, "Policy in the scenario"), and what export controls bar.

Export controls bar shipping chips, not selling their compute: the EAR controls the export,
reexport and in-country transfer of an item (15 CFR 734.13-734.16), and no control of remote
(IaaS) access was adopted after BIS asked about it in 2023-10. So a card export-controlled in
a region (`export_restricted_regions`) may not be bought new there, while renting capacity
already installed there is allowed (`export_restriction: new_purchase`, the default); a card
whose use there is barred (`any_use`: Huawei Ascend outside China, per BIS's 2025-05-13
guidance) bars renting too (`export_bar`).

Export-control and licence bars are catalog defaults (tco.resolve.candidates.risk_policy).
A scenario may state that the buyer holds what lifts them for some cards
(`policy.holds_licence`: an export licence, or a licence agreement for a gaming card's
data-centre use), with a note that every output prints. The bar then stays a risk flag, saying it is lifted and why, and
the option may be recommended.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import did_you_mean

if TYPE_CHECKING:  # a quick what-if prints the policy without importing pydantic
    from ..catalog import Accelerator, Catalog
    from ..resolved import CandidateInfo
    from ..scenario import Loaded

LIFTED = "lifted by the scenario's policy (the buyer holds a licence)"
EXPORT = "export control: "


@dataclass(frozen=True)
class ExportBar:
    blocks: bool  # bars the option here (else a risk flag only)
    text: str


def export_bar(card: Accelerator, place: str, renting: bool) -> ExportBar:
    """What the export control of `card` in `place` (a region where it is restricted) means
    for an option that buys it (a bar) or rents it (a bar only when its use there is barred:
    renting installed capacity is no export)."""
    if renting and card.export_restriction == "new_purchase":
        return ExportBar(False, f"{EXPORT}{card.name} may not be bought new in {place}; renting "
                                "capacity already installed there is not an export, and is "
                                "allowed")
    return ExportBar(True, f"{EXPORT}{card.name} is restricted in {place}")


def rent_bars(card: Accelerator, info: CandidateInfo, place: str) -> tuple[list[str], list[str]]:
    """(flags, bars) of an option renting what `info` owns (rent_options: auto): the owned
    option's, with its export bar replaced by renting's (a licence that lifted the owned
    option's bar lifts renting's too)."""
    exported = [f for f in info.flags if f.startswith(EXPORT)]
    flags = [f for f in info.flags if not f.startswith(EXPORT)]
    blocking = [b for b in info.blocking if not b.startswith(EXPORT)]
    if not exported:
        return flags, blocking
    bar = export_bar(card, place, renting=True)
    lifted = [f for f in exported if LIFTED in f]
    if bar.blocks and lifted:
        return lifted + flags, blocking
    if bar.blocks:
        blocking.insert(0, bar.text)
    return [bar.text] + flags, blocking


def check_policy(loaded: Loaded, catalog: Catalog) -> None:
    """Every card the policy names is a catalog card, named once."""
    held = loaded.scenario.policy.holds_licence
    cards = list(catalog.accelerators)
    for card in held:
        if card not in catalog.accelerators:
            raise loaded.error(f"unknown card '{card}'{did_you_mean(card, cards)}; expected "
                               "catalog card ids (`tco catalog list`)",
                               ["policy", "holds_licence"])
        if held.count(card) > 1:
            raise loaded.error(f"card '{card}' is listed twice", ["policy", "holds_licence"])


def lift_bars(loaded: Loaded, card_id: str, info: CandidateInfo) -> None:
    """A card the buyer holds a licence for: its bars become flags saying they are lifted."""
    policy = loaded.scenario.policy
    if card_id not in policy.holds_licence or not info.blocking:
        return
    note = f": {policy.note}" if policy.note else ""
    lifted = [f"{bar}; {LIFTED}{note}" for bar in info.blocking]
    info.flags = [lifted[info.blocking.index(f)] if f in info.blocking else f
                  for f in info.flags]
    info.blocking = []


def policy_dict(scenario_data: dict[str, object]) -> dict[str, object] | None:
    """`policy` in `tco compare` JSON: what the buyer holds (licences, stock by card id)
    and the note; null when none."""
    policy = scenario_data.get("policy") or {}
    assert isinstance(policy, dict)
    stock = policy.get("holds_stock") or {}
    if not policy.get("holds_licence") and not stock and not policy.get("note"):
        return None
    return {"holds_licence": list(policy.get("holds_licence") or []),
            "holds_stock": {card: dict(held) for card, held in stock.items()},
            "note": policy.get("note")}


def stock_words(policy: dict[str, object]) -> str:
    """"32 h100-sxm" for each held stock, comma-separated ("" when none)."""
    stock = policy.get("holds_stock") or {}
    assert isinstance(stock, dict)
    return ", ".join(f"{held['cards']:,} {card}" for card, held in stock.items())
