"""Methodology §18, "Serving by a per-token API": an option that serves its serving
workloads by paying an API per million prompt and output tokens instead of running cards.

It is a column of the model like a portfolio (quantities `<id>.<key>`), not a candidate: it
has no cluster, capex, power or timeline. A year of serving costs the year's tokens at the
API's prices; like rent, that falls at the end of each year 1..H (the API is there from day
one) and is discounted by (1 + r)^t, so the NPV of TCO, the plan's delivered share and the
ranking tier have the meaning they have for every option, and a portfolio adds it to the
options that train."""

from __future__ import annotations

from collections.abc import Sequence

from ..expr import AND, NPV0, SUM, Const, Ref
from ..resolved import Structure
from .base import Builder, Model, fin, w
from .decision import tier_formula
from .serving import DAYS_PER_YEAR
from .tax import rd_factor
from .units import TOKENS_PER_MILLION


def api_option(model: Model, st: Structure, aid: str, workloads: Sequence[str]) -> None:
    b, money = Builder(model, aid), st.currency
    p_in = Ref(f"api_options.{aid}.input_price_per_million_tokens")
    p_out = Ref(f"api_options.{aid}.output_price_per_million_tokens")
    years = []
    for wid in workloads:
        in_day, out_day = w(wid, "input_tokens_per_day"), w(wid, "output_tokens_per_day")
        b.jq(wid, "cost_per_million_input_tokens", p_in, money,
             "API price per million prompt (input) tokens")
        b.jq(wid, "cost_per_million_output_tokens", p_out, money,
             "API price per million output tokens")
        tokens = b.jq(wid, "tokens_per_year", (in_day + out_day) * DAYS_PER_YEAR, "tokens",
                      "Tokens served per year (prompt and output)")
        year = b.jq(wid, "cost_per_job",
                    (in_day * p_in + out_day * p_out) / TOKENS_PER_MILLION * DAYS_PER_YEAR,
                    money, "API fees of a year of serving: tokens per year x price per million")
        b.jq(wid, "cost_per_million_tokens", year / tokens * TOKENS_PER_MILLION,
             money, "API fees per million tokens served (prompt and output)")
        years.append(year)
    fees = b.q("api_fees_per_year", SUM(*years), money,
               "API fees per year, paid at the end of each year 1..horizon", "horizon")
    flows = [Const(0.0)] + [fees] * st.horizon_years  # nothing at year 0
    npv = b.q("npv_tco", NPV0(fin("discount_rate"), flows), money,
              "NPV of the API fees over the horizon", "horizon")
    # deducted as paid, like cloud rent: qualifying R&D at the scenario's share, as a plan's
    # API fees are (tco.model.plan)
    b.q("npv_tco_after_tax", npv * (1 - fin("tax_rate") * rd_factor()), money,
        "NPV of the API fees after income tax (deducted as paid, R&D at its share, "
        "methodology §20)", "horizon")
    b.q("undiscounted_tco", fees * st.horizon_years, money,
        "API fees over the horizon, undiscounted", "horizon")
    b.q("capex_total", Const(0.0), money, "Capex (none: an API is paid per token)", "horizon")
    done = b.q("plan_delivered_fraction", Const(1.0), "fraction",
               "Share of its part of the plan delivered (an API serves from day one)",
               "horizon")
    feasible = b.q("feasible", AND(p_in.ge(0), p_out.ge(0)), "flag",
                   "Feasible: an API has no cards to fit, only its prices to know", "cluster")
    b.q("plan_shortfall_runs", Const(0.0), "runs", "Planned runs not delivered", "horizon")
    partial = len(workloads) < len(st.workloads)
    b.q("tier", tier_formula(feasible, False, done, partial=partial), "tier",
        "Ranking tier (the options' rule; a part of the plan ranks in a portfolio)", "horizon")
