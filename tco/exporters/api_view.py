"""Per-token API options (tco/model/api.py; methodology §18) in `tco compare`'s JSON and
table. Every number is a model quantity; the prices' sources are the inputs'."""

from __future__ import annotations

from typing import Any

from ..decide.rules import tier
from ..result import Result
from .fmt import money, per_million

# The figures each serving workload of an API option shows (`api_options[].jobs.<w>`).
JOB_KEYS = ("cost_per_million_input_tokens", "cost_per_million_output_tokens",
            "cost_per_million_tokens", "tokens_per_year", "cost_per_job")
KEYS = ("npv_tco", "npv_tco_after_tax", "undiscounted_tco", "plan_delivered_fraction", "tier")


def api_options_json(result: Result) -> list[dict[str, Any]]:
    """`api_options` in `tco compare` JSON, ranked by tier then NPV."""
    out = []
    for a in result.api_options:
        p = f"api_options.{a.id}."
        d: dict[str, Any] = {
            "id": a.id, "name": a.info.name, "carries": a.carries,
            "prices": {k: {"value": result.inputs[p + k].value,
                           "source": result.inputs[p + k].source,
                           "as_of": result.inputs[p + k].as_of or None}
                       for k in ("input_price_per_million_tokens",
                                 "output_price_per_million_tokens")},
            **{k: a.values[k] for k in KEYS}, "tier": tier(a),
            "api_fees_per_year": a.values["api_fees_per_year"],
            "jobs": {wid: {k: job[k] for k in JOB_KEYS} for wid, job in a.jobs.items()},
        }
        out.append(d)
    return out


def api_block(result: Result) -> str:
    """Under the serving block of the CLI table: each API option's prices and NPV."""
    if not result.api_options:
        return ""
    cur, lines = result.currency, []
    for a in result.api_options:
        prices = "; ".join(
            f"{wid} {per_million(job['cost_per_million_input_tokens'], cur)}/M in, "
            f"{per_million(job['cost_per_million_output_tokens'], cur)}/M out, "
            f"{money(job['cost_per_job'], cur)} a year" for wid, job in a.jobs.items())
        whole = "" if tier(a) == 0 else " (a part of the plan: in a portfolio)"
        lines.append(f"  {a.id} ({a.info.name}): {prices}; NPV "
                     f"{money(a.values['npv_tco'], cur)}{whole}")
    return ("\nPer-token API options (serving paid per token, no cards; the provider's "
            "latency):\n" + "\n".join(lines) + "\n")
