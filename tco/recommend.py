"""The recommendation: which option, how the capacity is got (buy, rent or hybrid), and why.

Defined once from the ranked Result (tco.engine.rank, by the model's tier and the NPV of
delivering the plan) and used by every output: `recommendation` in `tco compare` JSON, the
line under the CLI table and the report's headline. The reasons compare only figures the
Result holds; a sentence about renting never contradicts a recommendation to buy, nor the
reverse, because both read the same ranking.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .expr import AND, IF, Expr, Ref
from .result import CandidateResult, PortfolioResult, Result

MODES = ("buy", "lease", "rent", "hybrid", "portfolio", "api")
# `rent_pricing` tiers in words (the JSON's `pricing` keeps the tier, dashed)
PRICING_WORDS = {"committed-3yr": "3-year committed"}


@dataclass(frozen=True)
class Recommendation:
    option: str  # the recommended option's id
    mode: str  # buy | lease | rent | hybrid | portfolio | api
    name: str
    card_name: str
    cards: int
    pricing: str  # the cloud tier rented at: "committed" or "on-demand" ("" when bought)
    npv_tco: float  # the cost of delivering the plan
    delivers_plan: bool
    runner_up: CandidateResult | None  # the next option that may be used and delivers
    other_mode: CandidateResult | None  # the cheapest usable option of the other mode
    reasons: list[str] = field(default_factory=list)  # in English (JSON, table)
    options: list[str] = field(default_factory=list)  # a portfolio's options (else [option])
    parts: list[str] = field(default_factory=list)  # a portfolio's: each option's action
    # bought: the cheapest leased option on the same basis; leased: the cheapest bought one
    lease_or_buy: CandidateResult | None = None

    def action(self) -> str:
        """"rent NVIDIA B200 at committed prices", "buy ...", "buy ... and rent what it
        cannot do (hybrid)", "combine: buy ... for w1; rent ... for w2" (a portfolio)."""
        if self.mode == "portfolio":
            return "combine: " + "; ".join(self.parts)
        if self.mode == "api":
            return f"pay per token: {self.card_name}"
        if self.mode == "rent":
            return f"rent {self.card_name} at {PRICING_WORDS.get(self.pricing, self.pricing)} prices"
        if self.mode == "hybrid":
            return f"buy {self.card_name} and rent what it cannot do (hybrid)"
        if self.mode == "lease":
            return f"lease {self.card_name}"
        return f"buy {self.card_name}"


def usable(c: CandidateResult) -> bool:
    """May be recommended alone: feasible, priced, not barred here, and carrying every
    workload of the plan (one carrying part of it is recommended only in a portfolio)."""
    return c.feasible and c.priced and not c.info.blocking and not c.info.workloads


def delivers(c: CandidateResult) -> bool:
    return usable(c) and int(c.values["tier"]) == 0


def _money(x: float, currency: str) -> str:
    from .exporters.fmt import money

    return money(x, currency)


def _dearer(how: str, c: CandidateResult, npv: float, cur: str) -> str:
    """"renting costs more: the cheapest rented option (x) costs ..." (`how`: buy, lease,
    rent or hybrid)."""
    what, which = {"buy": ("buying", "bought"), "lease": ("leasing", "leased"),
                   "rent": ("renting", "rented"),
                   "hybrid": ("owning a base and renting the peaks", "hybrid")}[how]
    gap = c.values["npv_tco"] - npv
    return (f"{what} costs more: the cheapest {which} option ({c.id}) costs "
            f"{_money(c.values['npv_tco'], cur)} to deliver the plan, {_money(gap, cur)} more")


def _lease_or_buy(result: Result, rec: CandidateResult, ok: bool) -> CandidateResult | None:
    """Bought, the cheapest leased option; leased, the cheapest bought one (on the same basis
    as the other mode: delivering the plan when the recommended option does)."""
    mode = rec.info.acquire
    if mode not in ("buy", "lease"):
        return None
    want = "lease" if mode == "buy" else "buy"
    return next((c for c in result.candidates if (delivers(c) if ok else usable(c))
                 and c.info.acquire == want), None)


# Which kind of recommendation wins (CHOICE), from the NPVs of delivering the plan with the
# best single option that delivers it, the best portfolio that may be used here and delivers
# it, and the best per-token API that serves it (each +inf when there is none): 2 the API (it
# costs less than the single option and no more than the portfolio), 1 the portfolio (it
# costs less than the single option), 0 the single option. An expression tree, so that the
# live page runs this rule as generated JavaScript (tco.exporters.live) instead of a copy.
SINGLE, PORTFOLIO, API = Ref("single"), Ref("portfolio"), Ref("api")
CHOICE: Expr = IF(AND(API.lt(SINGLE), API.le(PORTFOLIO)), 2.0,
                  IF(PORTFOLIO.lt(SINGLE), 1.0, 0.0))


def choice(single: CandidateResult | None, port: PortfolioResult | None,
           api: CandidateResult | None, basis: str = "pre_tax") -> int:
    """CHOICE for these (None: there is none), on the NPV of the decision basis."""
    from .engine import decision_npv

    def npv(x: CandidateResult | PortfolioResult | None) -> float:
        return math.inf if x is None else decision_npv(x.values, basis)

    return int(CHOICE.evaluate({"single": npv(single), "portfolio": npv(port),
                                "api": npv(api)}))


def recommend(result: Result) -> Recommendation | None:
    """The best-ranked option (or portfolio of options) that may be used here, with its
    reasons; None when none may."""
    rec, port, api = result.recommended, best_portfolio(result), best_api(result)
    single = rec if rec is not None and delivers(rec) else None
    picked = choice(single, port, api, result.structure.decision_basis)
    if picked == 2 and api is not None:
        return _api(result, api, single, port)
    if picked == 1 and port is not None:
        return _portfolio(result, port, single)
    if rec is None:
        return None
    cur, years = result.currency, result.structure.horizon_years
    mode = rec.info.acquire
    pricing = "" if mode in ("buy", "lease") else rented_at(result, rec)
    npv = rec.values["npv_tco"]
    ok = delivers(rec)
    pool = [c for c in result.candidates if (delivers(c) if ok else usable(c))]
    runner_up = next((c for c in pool if c is not rec), None)
    rented = mode == "rent"
    # the other mode's cheapest option on the same basis: delivering the plan (an option
    # short of it, or carrying part of it, would compare a part with the whole)
    other = next((c for c in result.candidates if (delivers(c) if ok else usable(c))
                  and c is not rec and (c.info.acquire != "rent") == rented), None)
    reasons = basis_reason(result, rec.values)
    if ok and runner_up is not None:
        diff = runner_up.values["npv_tco"] - npv
        reasons.append(
            f"lowest NPV of delivering the plan over {years} years among the options that may "
            f"be used here and deliver it: {_money(npv, cur)}, {_money(diff, cur)} "
            f"({diff / runner_up.values['npv_tco']:.0%}) less than the next, {runner_up.id}")
    elif ok:
        reasons.append(f"the only option that may be used here and delivers the plan: "
                       f"{_money(npv, cur)} over {years} years")
    else:
        reasons.append(
            f"no option that may be used here delivers the whole plan; this one has the "
            f"lowest NPV among them, {_money(npv, cur)}, and delivers "
            f"{rec.values['plan_delivered_fraction']:.0%} of it "
            f"({rec.values['plan_shortfall_runs']:.1f} runs short)"
            + (f"; {_closing_words(rec)} would bring the whole plan to "
               f"{_money(rec.values['npv_tco_plan_closed'], cur)}"
               if "npv_tco_plan_closed" in rec.values else ""))
    if other is not None:
        reasons.append(_dearer(other.info.acquire if rented else "rent", other, npv, cur))
    if other is None and mode in ("buy", "lease") and rec.values.get("cloud_npv") is None:
        reasons.append(f"renting was not compared: no cloud price for {rec.info.card_name} is "
                       "known here; give a quote as cloud_price_per_card_hour on the candidate "
                       f"(per card-hour, in {cur}) to compare it")
    alt = _lease_or_buy(result, rec, ok)
    if alt is not None:
        reasons.append(_dearer(alt.info.acquire, alt, npv, cur))
    source = result.candidate(rec.info.inputs_of) if rec.info.inputs_of else None
    if rented and source is not None and source.priced and "breakeven_utilization" in \
            source.values:
        be = source.values["breakeven_utilization"]
        use = result.inputs["utilization"].value if "utilization" in result.inputs else None
        owning = "leasing" if source.info.acquire == "lease" else "buying"
        if be >= 1:
            reasons.append(f"{owning} the same cluster ({source.id}) would not pay at any "
                           "utilization at these prices")
        elif use is None or be > use:
            reasons.append(f"{owning} the same cluster ({source.id}) would pay only if it were "
                           f"busy more than {be:.0%} of the year")
    if port is not None:
        gap = port.values["npv_tco"] - npv
        reasons.append(f"the cheapest portfolio ({port.id}) costs "
                       f"{_money(port.values['npv_tco'], cur)} to deliver the plan, "
                       f"{_money(gap, cur)} more")
    if api is not None and ok:
        reasons.append(_api_dearer(api, npv, cur))
    if mode != "rent" and rec.values.get("ready_years", 0) > 0:
        reasons.append(f"first useful work {rec.values['ready_years'] * 12:.1f} months after "
                       "the order (delivery and porting); the runs planned meanwhile are "
                       + ("caught up within the horizon" if ok else "partly lost"))
    return Recommendation(rec.id, mode, rec.info.name, rec.info.card_name,
                          int(rec.inputs["cards"]), pricing, npv, ok, runner_up, other,
                          reasons, [rec.id], lease_or_buy=alt)


def basis_reason(result: Result, values: dict[str, float]) -> list[str]:
    """The reason naming the decision basis when it is after tax (methodology §20); none
    before tax, the basis every NPV below is stated on."""
    if result.structure.decision_basis != "after_tax":
        return []
    rate = result.inputs["finance.tax_rate"].value if "finance.tax_rate" in result.inputs \
        else 0.0
    return [(f"ranked on the NPV after income tax at {rate:.1%} (finance.decision_basis: "
             f"after_tax): {_money(values['npv_tco_after_tax'], result.currency)}; the NPVs "
             "below are before tax")]


def _closing_words(c: CandidateResult) -> str:
    """How the closed-plan figure closes the shortfall: the cheaper of renting it and buying
    the cluster cards: auto would size (tco/model/shortfall.py)."""
    if c.values.get("shortfall_closed_by_buying"):
        return (f"buying {c.values['shortfall_buy_cards']:,.0f} more cards (cheaper than "
                "renting the shortfall)")
    return "renting the shortfall"


def best_portfolio(result: Result) -> PortfolioResult | None:
    """The cheapest portfolio that may be used here and delivers the plan."""
    from .exporters.portfolios import usable as may_use

    return next((p for p in result.portfolios if may_use(result, p) and p.tier == 0), None)


def api_wins(api: CandidateResult, single: CandidateResult | None,
             port: PortfolioResult | None) -> bool:
    """An API serving the whole plan is recommended when it costs less than the best single
    option that delivers the plan (or none does) and no more than the best portfolio
    (CHOICE)."""
    return choice(single, port, api) == 2


def _api_dearer(api: CandidateResult, npv: float, cur: str) -> str:
    gap = api.values["npv_tco"] - npv
    return (f"paying per token costs more: the cheapest API ({api.id}) costs "
            f"{_money(api.values['npv_tco'], cur)} to serve the plan, {_money(gap, cur)} more")


def best_api(result: Result) -> CandidateResult | None:
    """The cheapest per-token API option that serves the whole plan (a plan that only
    serves); one serving part of it ranks in a portfolio."""
    return next((a for a in result.api_options if int(a.values["tier"]) == 0), None)


def _api(result: Result, api: CandidateResult, single: CandidateResult | None,
         port: PortfolioResult | None) -> Recommendation:
    """A per-token API recommended: it serves the plan for less than any option with cards."""
    cur, years = result.currency, result.structure.horizon_years
    npv = api.values["npv_tco"]
    prices = "; ".join(
        f"{_per_m(job['cost_per_million_input_tokens'], cur)} per million prompt tokens and "
        f"{_per_m(job['cost_per_million_output_tokens'], cur)} per million output tokens "
        f"({wid})" for wid, job in api.jobs.items())
    if single is not None:
        gap = single.values["npv_tco"] - npv
        reasons = [(f"lowest NPV of serving the plan over {years} years: the API's fees cost "
                    f"{_money(npv, cur)}, {_money(gap, cur)} "
                    f"({gap / single.values['npv_tco']:.0%}) less than the best option with "
                    f"cards, {single.id}")]
    else:
        reasons = [(f"no option with cards that may be used here serves the plan; the API "
                    f"does, for {_money(npv, cur)} over {years} years")]
    reasons.append(f"its prices: {prices}; the latency is the provider's (no objective is "
                   "checked)")
    if port is not None:
        reasons.append(f"the cheapest portfolio ({port.id}) costs "
                       f"{_money(port.values['npv_tco'], cur)}")
    return Recommendation(api.id, "api", api.info.name, api.info.card_name, 0, "", npv, True,
                          single, None, reasons, [api.id])


def _per_m(x: float, currency: str) -> str:
    from .exporters.serving_view import per_million

    return per_million(x, currency)


def rented_at(result: Result, c: CandidateResult) -> str:
    """The cloud tier whose price the option rents at, dashed ("committed", "spot"): the one
    actually used, which is not the scenario's `rent_pricing` when the card has no figure at
    that tier (tco.resolve.rent_tiers falls back to a dearer one) or when on demand costs less than a
    committed reservation paid for every hour (tco.model.cloud.rental; engine.assemble)."""
    tier = c.info.rent_tier or str(result.scenario_data.get("rent_pricing", "committed"))
    return tier.replace("_", "-")


def _option_action(result: Result, c: CandidateResult) -> str:
    if c.info.acquire == "api":
        return f"pay {c.info.card_name} per token ({c.id}) for {', '.join(c.carries)}"
    pricing = PRICING_WORDS.get(rented_at(result, c), rented_at(result, c))
    verb = {"rent": f"rent {c.info.card_name} at {pricing} prices",
            "hybrid": f"buy {c.info.card_name} and rent what it cannot do",
            "lease": f"lease {c.info.card_name}"}.get(
        c.info.acquire, f"buy {c.info.card_name}")
    return f"{verb} ({c.id}, {int(c.inputs['cards']):,} cards) for {', '.join(c.carries)}"


def _portfolio(result: Result, port: PortfolioResult, single: CandidateResult | None
               ) -> Recommendation:
    """A portfolio recommended: it delivers the plan for less than any single option."""
    cur, years = result.currency, result.structure.horizon_years
    npv = port.values["npv_tco"]
    members = [result.candidate(oid) for oid in port.options]
    reasons = []
    if single is not None:
        gap = single.values["npv_tco"] - npv
        reasons.append(
            f"lowest NPV of delivering the plan over {years} years: its options together cost "
            f"{_money(npv, cur)}, {_money(gap, cur)} "
            f"({gap / single.values['npv_tco']:.0%}) less than the best single option, "
            f"{single.id}")
    else:
        reasons.append(f"no single option that may be used here delivers the plan; together "
                       f"its options do, for {_money(npv, cur)} over {years} years")
    for c in members:
        reasons.append(f"{c.id} carries {', '.join(c.carries)}: "
                       f"{_money(c.values['npv_tco'], cur)}")
    return Recommendation(
        port.id, "portfolio", port.name, " + ".join(c.info.card_name for c in members),
        sum(int(c.inputs["cards"]) for c in members), "", npv, True, single, None, reasons,
        list(port.options), [_option_action(result, c) for c in members])


def recommendation_dict(result: Result) -> dict[str, object] | None:
    """`recommendation` in `tco compare` JSON (null when nothing may be recommended)."""
    r = recommend(result)
    if r is None:
        return None
    return {"option": r.option, "mode": r.mode, "name": r.name, "card_name": r.card_name,
            "cards": r.cards, "pricing": r.pricing or None, "npv_tco": r.npv_tco,
            "delivers_plan": r.delivers_plan, "action": r.action(), "reasons": r.reasons,
            "options": r.options, "basis": result.structure.decision_basis}
