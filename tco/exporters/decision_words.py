"""The recommendation (tco.decide: facts and reason codes) in words, English or Chinese, from one
string table (templates/decide.yaml): the text table, JSON `recommendation.reasons` and the
live page's words read it; nothing else words a reason code."""

from __future__ import annotations

import string
from functools import lru_cache
from typing import Any

from .. import modes
from ..decide import Decision, Part, Reason, recommend
from ..errors import printable
from ..resources import templates_dir
from ..result import Result
from .fmt import money, per_million


@lru_cache(maxsize=1)
def table() -> dict[str, dict[str, dict[str, str]]]:
    import yaml  # here, not at import: a quick `tco whatif` never words a reason

    with (templates_dir() / "decide.yaml").open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


class _Filler(string.Formatter):
    """Fills a phrase: `money`, `per_million`, `pct` and `list` are ours, the rest Python's."""

    def __init__(self, currency: str, lang: str) -> None:
        self.currency, self.lang = currency, lang

    def format_field(self, value: Any, spec: str) -> str:
        if spec == "money":
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


def reason_text(r: Reason, currency: str, lang: str = "en") -> str:
    """One reason in words."""
    figures = dict(r.figures)
    if r.code == "api_prices":
        figures["prices"] = _part("price_sep", lang).join(
            phrase("parts", "api_price", lang, currency, **p) for p in figures["prices"])
    return phrase("reasons", r.code, lang, currency, **figures)


def reasons_text(d: Decision, currency: str, lang: str = "en") -> list[str]:
    return [reason_text(r, currency, lang) for r in d.reasons]


def pricing_words(tier: str, lang: str = "en") -> str:
    """A cloud tier, dashed ("committed-3yr"), in words ("3-year committed")."""
    return table()["parts"].get(f"pricing_{tier}", {}).get(lang, tier)


def _part_action(p: Part, lang: str, currency: str) -> str:
    return phrase("actions", f"part_{p.mode}", lang, currency, card=p.card_name,
                  option=p.option, cards=p.cards, carries=list(p.carries),
                  pricing=pricing_words(p.pricing, lang))


def action_text(d: Decision, currency: str, lang: str = "en") -> str:
    """"rent NVIDIA B200 at committed prices", "buy ...", "buy ... and rent what it cannot do
    (hybrid)", "combine: buy ... for w1; rent ... for w2" (a portfolio), "follow the cheapest
    plan: buy and rent (b200)" (a plan)."""
    if d.mode == modes.PORTFOLIO:
        parts = _part("part_sep", lang).join(_part_action(p, lang, currency) for p in d.parts)
        return phrase("actions", "portfolio", lang, currency, parts=parts)
    if d.mode == modes.PLAN:
        uses = [phrase("actions", f"use_{m}", lang, currency) for m in d.uses]
        said = (_part("list_sep", lang).join(uses[:-1]) + _part("and", lang) + uses[-1]
                if len(uses) > 1 else "".join(uses))
        return phrase("actions", "plan", lang, currency, uses=said, card=d.card_name)
    return phrase("actions", d.mode, lang, currency, card=d.card_name,
                  pricing=pricing_words(d.pricing, lang))


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
