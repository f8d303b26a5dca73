"""Compute vouchers (算力券, methodology §7 "Compute vouchers"): each voucher's inputs
(`vouchers.<id>.share` or `.per_card_hour`, and `.cap_per_year`) and the priced options it
applies to: those it names and every rented option (rented, hybrid, or made to rent) of the
cards it names. A voucher pays part of rent only: an option that rents nothing gets nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import modes
from ..errors import did_you_mean
from ..inputs import VOUCHER_INPUTS
from .state import Resolution

if TYPE_CHECKING:
    from ..resolved import CandidateInfo


def vouchers(r: Resolution, infos: dict[str, CandidateInfo], priced: list[str]
             ) -> tuple[tuple[str, str, bool, tuple[str, ...]], ...]:
    out = []
    for v in r.sc.vouchers:
        where = ["vouchers", v.id]
        for key, spec in VOUCHER_INPUTS.items():
            value = getattr(v, key)
            if value is not None:
                r.put(r.given([*where, key], value, spec))
        for k, oid in enumerate(v.options):
            if oid not in infos:
                raise r.error(f"unknown option '{oid}'{did_you_mean(oid, infos)}",
                              [*where, "options", str(k)])
        for k, card in enumerate(v.cards):
            if card not in r.catalog.accelerators:
                raise r.error(f"unknown card '{card}'{did_you_mean(card, r.catalog.accelerators)}",
                              [*where, "cards", str(k)])
        applies = tuple(cid for cid in priced
                        if (cid in v.options or infos[cid].card in v.cards)
                        and infos[cid].acquire in (modes.RENT, modes.HYBRID))
        out.append((v.id, "share" if v.share is not None else "per_card_hour",
                    v.cap_per_year is not None, applies))
    return tuple(out)
