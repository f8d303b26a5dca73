"""The recommendation as facts (issue 26): what is recommended, how the capacity is got, what it
costs, what comes next, and why, as reason codes with their figures; no words.

When the scenario is planned (tco.plan: no more than MAX_SUPPLIES supplies) the recommendation
is the planner's cheapest plan; the best option as typed is kept beside it (`best_option`).
Otherwise it is the best-ranked option, portfolio or per-token API (CHOICE, tco.decide.rules).
The exporters word the codes in English and Chinese from one string table
(tco.exporters.decision_words, templates/decide.yaml).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from typing import Any

from .. import modes
from ..result import CandidateResult, PortfolioResult, Result
from .rules import (
    barred_here,
    best_api,
    best_portfolio,
    choice,
    delivers,
    part_only,
    plan_delivers,
    single,
    usable,
)


@dataclass(frozen=True)
class Reason:
    """Why, as a code (templates/decide.yaml words it) and the figures it quotes: amounts in
    the scenario's currency, shares as fractions, option ids, card names."""

    code: str
    figures: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "figures": dict(self.figures)}


@dataclass(frozen=True)
class Part:
    """One option of a recommended portfolio: how it gets its capacity and what it carries."""

    option: str
    mode: str
    card_name: str
    pricing: str  # the cloud tier rented at, dashed ("" unless rented)
    cards: int
    carries: tuple[str, ...]


@dataclass(frozen=True)
class Decision:
    """The recommendation (docs/json.md, `recommendation`)."""

    option: str  # the option, portfolio or API id; "plan" for the planner's plan
    mode: str  # tco.modes: buy | lease | rent | hybrid | portfolio | api | plan
    name: str
    card_name: str
    cards: int
    pricing: str  # the cloud tier rented at: "committed", "on-demand" ("" when bought)
    npv_tco: float  # the cost of delivering the plan
    delivers_plan: bool
    runner_up: CandidateResult | None  # the next option that may be used and delivers
    other_mode: CandidateResult | None  # the cheapest usable option of the other mode
    reasons: tuple[Reason, ...] = ()
    options: tuple[str, ...] = ()  # a portfolio's options (else the option)
    parts: tuple[Part, ...] = ()  # a portfolio's options, each with what it carries
    # bought: the cheapest leased option on the same basis; leased: the cheapest bought one
    lease_or_buy: CandidateResult | None = None
    # a plan: the modes its actions use, the plan, the cheapest restricted plan that
    # delivers, what flexibility saves over it, and the decision among the options as typed
    uses: tuple[str, ...] = ()
    plan: Any = None
    runner_up_plan: Any = None
    value_of_flexibility: float | None = None
    best_option: Decision | None = None
    # the NPV the options were ranked on (finance.decision_basis, methodology §20): pre_tax
    # or after_tax; a plan is chosen on the same (the planner minimises that NPV)
    basis: str = "pre_tax"
    npv_after_tax: float | None = None  # after_tax: the NPV it was ranked on
    card_names: tuple[str, ...] = ()  # a plan's cards, each once, in the order it uses them

    def codes(self) -> list[str]:
        return [r.code for r in self.reasons]

    @property
    def npv_decision(self) -> float:
        """The NPV it was ranked on: after tax on that basis, else `npv_tco`."""
        return self.npv_after_tax if self.basis == "after_tax" and \
            self.npv_after_tax is not None else self.npv_tco


def recommend(result: Result) -> Decision | None:
    """The recommendation: the plan when the scenario is planned (and a plan was found),
    else the best option, portfolio or API that may be used here; None when none may."""
    option = recommend_option(result)
    plans = result.plans
    if not plans or plans[0].status == "infeasible":
        return option
    return _plan(result, plans, option)


def recommend_option(result: Result) -> Decision | None:
    """The best-ranked option (or portfolio of options, or per-token API) that may be used
    here, with its reasons; None when none may."""
    rec, port, api = single(result), best_portfolio(result), best_api(result)
    one = rec if rec is not None and delivers(rec) else None
    picked = choice(one, port, api, result.structure.decision_basis)
    if picked == 2 and api is not None:
        return on_basis(result, _api(result, api, one, port), api.values)
    if picked == 1 and port is not None:
        return on_basis(result, _portfolio(result, port, one), port.values)
    if rec is None:
        return None
    years = result.structure.horizon_years
    mode = rec.info.acquire
    pricing = "" if modes.owned_or_leased(mode) else rented_at(result, rec)
    on = _basis(result)  # the NPV the options are ranked on, which the reasons quote
    npv = on(rec.values)
    ok = delivers(rec)
    pool = [c for c in result.candidates if (delivers(c) if ok else usable(c))]
    runner_up = next((c for c in pool if c is not rec), None)
    rented = mode == modes.RENT
    # the other mode's cheapest option on the same basis: delivering the plan (an option
    # short of it, or carrying part of it, would compare a part with the whole)
    other = next((c for c in pool if c is not rec
                  and (c.info.acquire != modes.RENT) == rented), None)
    reasons = []
    if ok and runner_up is not None:
        diff = on(runner_up.values) - npv
        reasons.append(Reason("lowest_npv", {
            "years": years, "npv": npv, "diff": diff,
            "share": diff / on(runner_up.values), "next": runner_up.id}))
    elif ok:
        reasons.append(Reason("only_option", {"years": years, "npv": npv}))
    else:
        figures = {"npv": npv, "delivered": rec.values["plan_delivered_fraction"],
                   "short_runs": rec.values["plan_shortfall_runs"]}
        code = "none_delivers"
        if "npv_tco_plan_closed" in rec.values:  # closed the cheaper way on the basis
            after = "_after_tax" if _after_tax(result) else ""
            figures["closed_npv"] = rec.values[f"npv_tco_plan_closed{after}"]
            if rec.values.get(f"shortfall_closed_by_buying{after}"):
                code = "none_delivers_close_by_buying"
                figures["buy_cards"] = rec.values["shortfall_buy_cards"]
            else:
                code = "none_delivers_close_by_renting"
        reasons.append(Reason(code, figures))
    if other is not None:
        reasons.append(_dearer(other.info.acquire if rented else modes.RENT, other, npv, on))
    if other is None and modes.owned_or_leased(mode) and rec.values.get("cloud_npv") is None:
        reasons.append(Reason("rent_not_compared", {"card": rec.info.card_name,
                                                    "currency": result.currency}))
    alt = _lease_or_buy(result, rec, ok)
    if alt is not None:
        reasons.append(_dearer(alt.info.acquire, alt, npv, on))
    source = result.candidate(rec.info.inputs_of) if rec.info.inputs_of else None
    if rented and source is not None and source.priced and "breakeven_utilization" in \
            source.values:
        be = source.values["breakeven_utilization"]
        use = result.inputs["utilization"].value if "utilization" in result.inputs else None
        owning = modes.LEASE if source.info.acquire == modes.LEASE else modes.BUY
        if be >= 1:
            reasons.append(Reason(f"{owning}_never_pays", {"source": source.id}))
        elif use is None or be > use:
            reasons.append(Reason(f"{owning}_pays_above", {"source": source.id,
                                                          "utilization": be}))
    if port is not None:
        reasons.append(Reason("portfolio_dearer", {
            "portfolio": port.id, "npv": on(port.values), "diff": on(port.values) - npv}))
    if api is not None and ok:
        reasons.append(Reason("api_dearer", {"api": api.id, "npv": on(api.values),
                                             "diff": on(api.values) - npv}))
    if mode != modes.RENT and rec.values.get("ready_years", 0) > 0:
        reasons.append(Reason("ready_late_caught_up" if ok else "ready_late_lost",
                              {"months": rec.values["ready_years"] * 12}))
    return on_basis(result, Decision(
        rec.id, mode, rec.info.name, rec.info.card_name, int(rec.inputs["cards"]), pricing,
        rec.values["npv_tco"], ok, runner_up, other, tuple(reasons), (rec.id,),
        lease_or_buy=alt), rec.values)


def _after_tax(result: Result) -> bool:
    return result.structure.decision_basis == "after_tax"


def _basis(result: Result) -> Any:
    """The NPV an option, portfolio or API is ranked on, read from its values: before tax, or
    after income tax when the scenario's decision basis is after_tax (engine.decision_npv)."""
    key = "npv_tco_after_tax" if _after_tax(result) else "npv_tco"
    return lambda values: float(values[key])


def on_basis(result: Result, d: Decision, values: dict[str, float]) -> Decision:
    """The decision with the basis its options were ranked on (`finance.decision_basis`,
    methodology §20); after tax, a first reason says so and gives the recommended NPV after
    and before tax (the NPVs the other reasons quote are after tax, as they are ranked)."""
    basis = result.structure.decision_basis
    if basis != "after_tax":
        return replace(d, basis=basis)
    rate = _tax_rate(result)
    first = Reason("basis_after_tax", {"rate": rate, "npv": values["npv_tco_after_tax"],
                                       "npv_pre_tax": values["npv_tco"]})
    return replace(d, basis=basis, reasons=(first, *d.reasons),
                   npv_after_tax=values["npv_tco_after_tax"])


def _tax_rate(result: Result) -> float:
    return result.inputs["finance.tax_rate"].value if "finance.tax_rate" in result.inputs \
        else 0.0


def _dearer(how: str, c: CandidateResult, npv: float, on: Any) -> Reason:
    """The cheapest option of another mode (`how`: buy, lease, rent or hybrid) costs more, on
    the NPV `on` reads (the decision basis)."""
    return Reason(f"{how}_dearer", {"option": c.id, "npv": on(c.values),
                                    "diff": on(c.values) - npv})


def _lease_or_buy(result: Result, rec: CandidateResult, ok: bool) -> CandidateResult | None:
    """Bought, the cheapest leased option; leased, the cheapest bought one (on the same basis
    as the other mode: delivering the plan when the recommended option does)."""
    mode = rec.info.acquire
    if not modes.owned_or_leased(mode):
        return None
    want = modes.LEASE if mode == modes.BUY else modes.BUY
    return next((c for c in result.candidates if (delivers(c) if ok else usable(c))
                 and c.info.acquire == want), None)


def api_wins(api: CandidateResult, one: CandidateResult | None,
             port: PortfolioResult | None) -> bool:
    """An API serving the whole plan is recommended when it costs less than the best single
    option that delivers the plan (or none does) and no more than the best portfolio
    (CHOICE)."""
    return choice(one, port, api) == 2


def _api(result: Result, api: CandidateResult, one: CandidateResult | None,
         port: PortfolioResult | None) -> Decision:
    """A per-token API recommended: it serves the plan for less than any option with cards."""
    years = result.structure.horizon_years
    on = _basis(result)
    npv = on(api.values)
    if one is not None:
        gap = on(one.values) - npv
        reasons = [Reason("api_lowest", {"years": years, "npv": npv, "diff": gap,
                                         "share": gap / on(one.values), "next": one.id})]
    else:
        reasons = [Reason("api_only", {"years": years, "npv": npv})]
    reasons.append(Reason("api_prices", {"prices": [
        {"workload": wid, "input": job["cost_per_million_input_tokens"],
         "output": job["cost_per_million_output_tokens"]} for wid, job in api.jobs.items()]}))
    if port is not None:
        reasons.append(Reason("api_portfolio_npv", {"portfolio": port.id,
                                                    "npv": on(port.values)}))
    return Decision(api.id, modes.API, api.info.name, api.info.card_name, 0, "",
                    api.values["npv_tco"], True, one, None, tuple(reasons), (api.id,))


def rented_at(result: Result, c: CandidateResult) -> str:
    """The cloud tier whose price the option rents at, dashed ("committed", "spot"): the one
    actually used, which is not the scenario's `rent_pricing` when the card has no figure at
    that tier (tco.resolve.rent_tiers falls back to a dearer one) or when on demand costs less
    than a committed reservation paid for every hour (tco.model.cloud.rental; engine.assemble)."""
    tier = c.info.rent_tier or str(result.scenario_data.get("rent_pricing", "committed"))
    return tier.replace("_", "-")


def _portfolio(result: Result, port: PortfolioResult, one: CandidateResult | None
               ) -> Decision:
    """A portfolio recommended: it delivers the plan for less than any single option."""
    years = result.structure.horizon_years
    on = _basis(result)
    npv = on(port.values)
    members = [result.candidate(oid) for oid in port.options]
    reasons = []
    if one is not None:
        gap = on(one.values) - npv
        reasons.append(Reason("portfolio_lowest", {
            "years": years, "npv": npv, "diff": gap, "share": gap / on(one.values),
            "next": one.id}))
    else:
        reasons.append(Reason("portfolio_only", {"years": years, "npv": npv}))
    for c in members:
        reasons.append(Reason("portfolio_part", {"option": c.id, "carries": list(c.carries),
                                                 "npv": on(c.values)}))
    parts = tuple(Part(c.id, c.info.acquire, c.info.card_name,
                       rented_at(result, c) if modes.rents_cards(c.info.acquire) else "",
                       int(c.inputs["cards"]), tuple(c.carries)) for c in members)
    return Decision(
        port.id, modes.PORTFOLIO, port.name, " + ".join(c.info.card_name for c in members),
        sum(int(c.inputs["cards"]) for c in members), "", port.values["npv_tco"], True, one, None,
        tuple(reasons), tuple(port.options), parts)


def _plan(result: Result, plans: list[Any], option: Decision | None) -> Decision:
    """The planner's cheapest plan recommended: what it saves over the cheapest plan held to
    one typed option (or portfolio) that delivers, what the best option as typed costs, and
    the work it leaves undone, if any. Every NPV the reasons compare is on the decision basis
    (after tax where the options are ranked after tax: the plans were chosen on it), and a
    first reason then says so and gives the plan's NPV before tax."""
    best, restricted = plans[0], plans[1:]
    years = result.structure.horizon_years
    after_tax = result.structure.decision_basis == "after_tax"
    npv = best.npv_decision
    ok = plan_delivers(best)
    runner = min((p for p in restricted if plan_delivers(p)), key=lambda p: p.npv_decision,
                 default=None)
    flex = runner.npv_decision - npv if runner is not None else None
    reasons = []
    if after_tax:
        reasons.append(Reason("plan_basis_after_tax", {"rate": _tax_rate(result),
                                                       "npv": best.npv_tco}))
    if runner is not None:
        reasons.append(Reason("plan_lowest", {
            "years": years, "npv": npv, "next": runner.option, "next_npv": runner.npv_decision,
            "diff": flex, "share": flex / runner.npv_decision if runner.npv_decision else 0.0}))
    else:
        reasons.append(Reason("plan_only", {"years": years, "npv": npv}))
    typed = None if option is None else option.npv_decision  # on the same basis
    if option is not None and typed is not None and option.delivers_plan and typed < npv:
        # costed on its own terms (its typed size, tier and dates), which the plan's months
        # do not take: what it costs held to the plan's terms says which to believe
        reasons.append(Reason("plan_best_option_less", {
            "option": option.option, "npv": typed, "diff": npv - typed}))
        held = next((p for p in restricted if p.option == option.option), None)
        if held is not None:
            reasons.append(Reason("plan_option_held", {"option": option.option,
                                                       "npv": held.npv_decision}))
    elif option is not None and typed is not None:
        reasons.append(Reason("plan_best_option" if option.delivers_plan else
                              "plan_best_option_short", {
            "option": option.option, "mode": option.mode, "npv": typed,
            "diff": typed - npv, "delivers": option.delivers_plan}))
    elif any(part_only(c) for c in result.candidates):
        reasons.append(Reason("plan_no_option", {
            "parts": [c.id for c in result.candidates if part_only(c)]}))
    elif any(barred_here(c) for c in result.candidates):
        reasons.append(Reason("plan_all_barred", {
            "barred": [c.id for c in result.candidates if barred_here(c)]}))
    else:
        reasons.append(Reason("plan_none_feasible", {
            "infeasible": [c.id for c in result.candidates if not c.feasible]}))
    for wid, w in best.workloads.items():
        share = w.get("delivered_fraction") or 0.0
        if share < 1 - 1e-9:
            reasons.append(Reason("plan_unmet", {"workload": wid, "delivered": share}))
    uses = tuple(m for m in (modes.BUY, modes.LEASE, modes.RENT, modes.API)
                 if any(a.action == m for a in best.actions))
    held = [a for a in best.actions if a.action in (modes.BUY, modes.LEASE)]
    cards = int(sum(a.quantity for a in held))
    card_names = {c.info.card: c.info.card_name for c in result.candidates}
    used = list(dict.fromkeys(card_names.get(a.card, a.card) for a in best.actions if a.card))
    return Decision(modes.PLAN, modes.PLAN, best.id, " + ".join(used), cards, "",
                    best.npv_tco, ok, None, None, tuple(reasons), tuple(dict.fromkeys(
                        a.option for a in best.actions)), uses=uses, plan=best,
                    runner_up_plan=runner, value_of_flexibility=flex, best_option=option,
                    basis=result.structure.decision_basis,
                    npv_after_tax=best.npv_tco_after_tax if after_tax else None,
                    card_names=tuple(used))


def plan_actions(d: Decision) -> list[dict[str, Any]]:
    """The plan's dated actions as data (docs/json.md, `plan.actions`)."""
    return [asdict(a) for a in d.plan.actions] if d.plan is not None else []
