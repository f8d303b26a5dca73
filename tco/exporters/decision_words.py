"""The recommendation (tco.decide: facts and reason codes) in words, English or Chinese, from one
string table (templates/decide.yaml): the text table, JSON `recommendation.reasons` and the
live page's words read it; nothing else words a reason code."""

from __future__ import annotations

import string
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from .. import modes
from ..decide import Decision, Part, Reason, recommend
from ..errors import printable
from ..resources import templates_dir
from ..result import Result
from .fmt import money, per_million
from .i18n import Segment


@lru_cache(maxsize=1)
def table() -> dict[str, dict[str, dict[str, str]]]:
    import yaml  # here, not at import: a quick `tco whatif` never words a reason

    with (templates_dir() / "decide.yaml").open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class _Filler(string.Formatter):
    """Fills a phrase: `money`, `per_million`, `pct` and `list` are ours, the rest Python's."""

    def __init__(self, currency: str, lang: str,
                 money_fn: Callable[[float], str] | None = None) -> None:
        self.currency, self.lang, self.money_fn = currency, lang, money_fn

    def format_field(self, value: Any, spec: str) -> str:
        if spec == "money":
            if self.money_fn is not None:  # the document's own (the report's View.money)
                return self.money_fn(value)
            return money(value, self.currency, self.lang)
        if spec == "per_million":
            return per_million(value, self.currency)
        if spec == "pct":
            return f"{value:.0%}"
        if spec == "list":
            return _part("list_sep", self.lang).join(str(v) for v in value)
        return super().format_field(value, spec)


def _part(key: str, lang: str) -> str:
    return table()["parts"][key][lang]


def phrase(section: str, key: str, lang: str, currency: str, /, **figures: Any) -> str:
    return _Filler(currency, lang).format(table()[section][key][lang], **figures)


def phrase_segments(section: str, key: str, lang: str, currency: str,
                    money_fn: Callable[[float], str] | None = None, /,
                    **figures: Any) -> list[Segment]:
    """A phrase as literal words and filled-in figures (Segment(value=True)), in order, for a
    document that sets the figures apart (the report's summary)."""
    filler, out = _Filler(currency, lang, money_fn), []
    for literal, name, spec, _conv in string.Formatter().parse(table()[section][key][lang]):
        if literal:
            out.append(Segment(literal))
        if name is not None:
            value, _ = filler.get_field(name, (), figures)
            out.append(Segment(filler.format_field(value, spec or ""), value=True))
    return out


def _reason_figures(r: Reason, currency: str, lang: str,
                    money_fn: Callable[[float], str] | None = None) -> dict[str, Any]:
    figures = dict(r.figures)
    if r.code == "api_prices":
        figures["prices"] = _part("price_sep", lang).join(
            _Filler(currency, lang, money_fn).format(table()["parts"]["api_price"][lang], **p)
            for p in figures["prices"])
    return figures


def reason_text(r: Reason, currency: str, lang: str = "en") -> str:
    """One reason in words."""
    return phrase("reasons", r.code, lang, currency, **_reason_figures(r, currency, lang))


def reason_segments(r: Reason, currency: str, lang: str = "en",
                    money_fn: Callable[[float], str] | None = None) -> list[Segment]:
    """One reason in words, its figures set apart (phrase_segments)."""
    return phrase_segments("reasons", r.code, lang, currency, money_fn,
                           **_reason_figures(r, currency, lang, money_fn))


def reasons_text(d: Decision, currency: str, lang: str = "en") -> list[str]:
    return [reason_text(r, currency, lang) for r in d.reasons]


def pricing_words(tier: str, lang: str = "en") -> str:
    """A cloud tier, dashed ("committed-3yr"), in words ("3-year committed")."""
    return table()["parts"].get(f"pricing_{tier}", {}).get(lang, tier)


def _part_action(p: Part, lang: str, currency: str,
                 name: Callable[[str], str] = str) -> str:
    return phrase("actions", f"part_{p.mode}", lang, currency, card=name(p.card_name),
                  option=p.option, cards=p.cards, carries=list(p.carries),
                  pricing=pricing_words(p.pricing, lang))


def action_text(d: Decision, currency: str, lang: str = "en",
                name: Callable[[str], str] = str) -> str:
    """"rent NVIDIA B200 at committed prices", "buy ...", "buy ... and rent what it cannot do
    (hybrid)", "combine: buy ... for w1; rent ... for w2" (a portfolio), "follow the cheapest
    plan: buy and rent (b200)" (a plan; "take no action: ..." when it has none). `name` writes a catalog name in the reader's
    language (the report's Strings.catalog)."""
    if d.mode == modes.PORTFOLIO:
        parts = _part("part_sep", lang).join(_part_action(p, lang, currency, name)
                                             for p in d.parts)
        return phrase("actions", "portfolio", lang, currency, parts=parts)
    if d.mode == modes.PLAN:
        if not d.uses:  # the cheapest plan takes no action: nothing offered does any work
            return phrase("actions", "plan_none", lang, currency)
        # the cards' verbs before the cards; paying per token after them ("rent H100 and pay
        # per token"): a plan of an API alone names no card, no blank left where they would be
        on_cards = [m for m in d.uses if m != "api"]
        uses = [phrase("actions", f"use_{m}", lang, currency) for m in on_cards or d.uses]
        said = (_part("list_sep", lang).join(uses[:-1]) + _part("and", lang) + uses[-1]
                if len(uses) > 1 else "".join(uses))
        cards = (" + ".join(name(n) for n in d.card_names) if d.card_names
                 else name(d.card_name))
        key = "plan_and_api" if on_cards and "api" in d.uses else "plan"
        return phrase("actions", key, lang, currency, uses=said, card=cards).rstrip()
    return phrase("actions", d.mode, lang, currency, card=name(d.card_name),
                  pricing=pricing_words(d.pricing, lang))


def headline_segments(d: Decision, years: float, currency: str, lang: str = "en",
                      money_fn: Callable[[float], str] | None = None,
                      name: Callable[[str], str] = str) -> list[Segment]:
    """The recommendation in one sentence, its action and NPV set apart: the report's
    headline when the plan is recommended (templates/decide.yaml `headlines`)."""
    return phrase_segments("headlines", d.mode if d.mode == modes.PLAN else "option", lang,
                           currency, money_fn, action=action_text(d, currency, lang, name),
                           npv=d.npv_tco, years=years)


def decision_line(d: Decision, currency: str, lang: str = "en",
                  name: Callable[[str], str] = str) -> str:
    """The recommendation on one line, its action and then its reasons: the workbook's
    Summary (templates/decide.yaml `headlines.line`)."""
    return phrase("headlines", "line", lang, currency, action=action_text(d, currency, lang, name),
                  reasons=_part("part_sep", lang).join(
                      reason_text(r, currency, lang) for r in d.reasons))


def decision_dict(d: Decision, currency: str) -> dict[str, Any]:
    """A decision in JSON (docs/json.md, `recommendation`): its facts, its action and reasons in
    English, and the reasons as codes with their figures."""
    return {"option": d.option, "mode": d.mode, "name": d.name, "card_name": d.card_name,
            "cards": d.cards, "pricing": d.pricing or None, "npv_tco": d.npv_tco,
            "delivers_plan": d.delivers_plan, "action": action_text(d, currency),
            "reasons": reasons_text(d, currency),
            "reason_codes": [r.as_dict() for r in d.reasons], "options": list(d.options),
            "uses": list(d.uses),
            "actions": [{"start_years": a.start_years, "end_years": a.end_years,
                         "action": a.action, "option": a.option, "quantity": a.quantity,
                         "unit": a.unit} for a in d.plan.actions] if d.plan is not None else [],
            "value_of_flexibility": d.value_of_flexibility, "basis": d.basis,
            "runner_up_plan": d.runner_up_plan.option if d.runner_up_plan is not None else None,
            "best_option": (decision_dict(d.best_option, currency)
                            if d.best_option is not None else None)}


def recommendation_dict(result: Result) -> dict[str, Any] | None:
    """`recommendation` in `tco compare` JSON (null when nothing may be recommended)."""
    d = recommend(result)
    return None if d is None else decision_dict(d, result.currency)


def recommendation_line(result: Result, d: Decision | None, parts: list[str]) -> str:
    """The recommendation under the CLI table, with its reasons (`parts`: the usable options
    that each carry a part of the plan, named when nothing is recommended)."""
    if d is None and parts:  # usable options, each carrying a part of the plan
        return ("\nRecommendation: none; no single option that may be used here carries the "
                f"whole plan (parts of it only: {', '.join(parts)}); combine options "
                "that together carry every workload in a portfolio (portfolios: in the "
                "scenario).\n")
    if d is None:
        return "\nRecommendation: none; no option may be used here (see status).\n"
    cur = result.currency
    size = "" if d.mode in (modes.API, modes.PLAN) else f", {d.cards:,} cards"
    return (f"\nRecommendation: {printable(action_text(d, cur))} ({d.option}{size}), "
            "because:\n" + "".join(f"  - {printable(x)}\n" for x in reasons_text(d, cur)))
