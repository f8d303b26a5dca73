"""Checks across sections, once every option is known: inputs whose every reading is a
mistake (stock no option draws on, a licence that lifts nothing, a distribution of an input
that does not exist or cannot be drawn) are refused with the field rather than computed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import modes
from ..errors import did_you_mean
from ..resolved import value_problem
from .policy import LIFTED
from .state import Resolution

if TYPE_CHECKING:
    from ..inputs import InputSpec
    from ..resolved import CandidateInfo


def check_stock_used(r: Resolution, infos: dict[str, CandidateInfo]) -> None:
    """Held stock is drawn on by the owned (bought or hybrid) options of its card; stock
    that no option draws on would be costed nowhere, most likely a card id that is not the
    one the options buy."""
    owned = {info.card for info in infos.values() if info.acquire in (modes.BUY, modes.HYBRID)}
    for card in r.sc.policy.holds_stock:
        if card not in owned:
            cards = ", ".join(sorted(owned)) or "none"
            raise r.error(
                f"no bought or hybrid option uses card '{card}', so its held stock would "
                f"be costed nowhere (cards the options buy: {cards}); add an option of that "
                "card, or remove the stock", ["policy", "holds_stock", card])


def check_licences_used(r: Resolution, infos: dict[str, CandidateInfo]) -> None:
    """A licence lifts a bar of a card an option uses; one that lifts nothing (no option
    uses the card, or nothing bars it in this region) is most likely the wrong card id or
    region, and would print a claim that changes no figure."""
    for card in r.sc.policy.holds_licence:
        mine = [info for info in infos.values() if info.card == card]
        where = ["policy", "holds_licence"]
        if not mine:
            cards = ", ".join(sorted({info.card for info in infos.values()}))
            raise r.error(
                f"no option uses card '{card}', so its licence would lift nothing (cards "
                f"of the options: {cards}); add an option of that card, or remove it",
                where)
        if not any(LIFTED in flag for info in mine for flag in info.flags):
            regions = sorted({r.sites[info.site].region for info in mine})
            raise r.error(
                f"card '{card}' is not barred in region '{', '.join(regions)}' (no "
                "export control or licence bar to lift), so the licence changes nothing; "
                "remove it, or check facility.region", where)


def check_distributions(r: Resolution) -> None:
    """Every Monte Carlo distribution names an input that exists and can be drawn."""
    for path in r.sc.distributions:
        if path not in r.inputs:
            raise r.error(f"no input '{path}'{did_you_mean(path, r.inputs)}",
                          ["distributions", path])
        spec = dict.__getitem__(r.inputs, path).spec
        if spec.structural or spec.integer:  # Monte Carlo would leave it at its value
            why = ("it sets the shape of the model (how many years are computed)"
                   if spec.structural else "it is a whole number")
            raise r.error(
                f"Monte Carlo cannot draw {path}: {why}; remove this distribution and "
                f"compare values with `tco whatif --set {path}=...` instead",
                ["distributions", path])
        check_distribution_range(r, path, spec)


def check_distribution_range(r: Resolution, path: str, spec: InputSpec) -> None:
    """A distribution's low, mode and high inside the input's plausible range, as every
    value the scenario gives is (its unit and currency; a normal's low and high are its
    10th and 90th percentiles, so only its tails are cut to the range). Checked here,
    so `tco validate` refuses what Monte Carlo would: a wide one (low -1e308, high
    1e308) overflowed the sampler."""
    d = r.sc.distributions[path]
    for key in ("low", "mode", "high"):
        value = getattr(d, key)
        if value is None:
            continue
        problem = value_problem(value, spec, r.sc.currency, r.usd.scale)
        if problem:
            raise r.error(f"{d.dist} distribution: {problem}", ["distributions", path, key])
