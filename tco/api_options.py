"""Per-token API options (`api_options:` in a scenario; methodology §18), checked and
resolved: each serves some serving workloads at a price per million prompt and output tokens,
from the catalog (pricing/api.yaml) or the scenario. Each mistake is one message naming the
field.

An API option is a column of the model like a portfolio, not a candidate: it has no cards,
so the chapters of a cluster do not apply to it (tco/model/api.py costs it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .catalog import quoted_currency
from .errors import did_you_mean
from .inputs import API_INPUTS, Input

if TYPE_CHECKING:
    from .catalog import Catalog
    from .scenario import ApiOption, Loaded

# The catalog figure behind each input key.
CATALOG_FIELD = {"input_price_per_million_tokens": "input_usd_per_million_tokens",
                 "output_price_per_million_tokens": "output_usd_per_million_tokens"}


def resolve_api_options(loaded: Loaded, catalog: Catalog, fx: float, fx_note: str,
                        put: Callable[[Input], None],
                        given: Callable[[list[str], float, object], Input],
                        taken: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Each API option as (id, name, workload, ...), its two prices put as inputs
    (`api_options.<id>.input_price_per_million_tokens`, `...output...`)."""
    out = []
    kinds = {w.id: w.kind for w in loaded.scenario.workloads}
    serving = [wid for wid, kind in kinds.items() if kind == "serve"]
    for o in loaded.scenario.api_options:
        base = ["api_options", o.id]
        if o.id in taken:
            raise loaded.error(f"id '{o.id}' is also a candidate's or portfolio's; give the API "
                               "option another", base + ["id"])
        price = catalog.api_prices.get(o.api)
        if price is None:
            raise loaded.error(f"unknown API price '{o.api}'"
                               f"{did_you_mean(o.api, list(catalog.api_prices))}",
                               base + ["api"])
        workloads = _workloads(loaded, o, kinds, serving)
        for key, spec in API_INPUTS.items():
            path = ".".join(base + [key])
            value = getattr(o, key)
            if value is not None:
                put(given(base + [key], value, spec))
                continue
            fig = getattr(price, CATALOG_FIELD[key])
            lo, hi = fig.range
            # a price quoted in the scenario's own currency comes back as quoted (the rule of
            # a quote's `price_cny`, tco.resolver._fig_input): no round trip through USD
            same = quoted_currency(fig) == loaded.scenario.currency
            note = f"{fx_note}: " if fx_note and not same else ""
            put(Input(path=path, value=fig.best * fx, spec=spec, source=note + fig.source,
                      as_of=fig.as_of, low=lo * fx, high=hi * fx, note=fig.note or "",
                      origin="catalog"))
        name = o.name or f"{price.provider} API, {price.model}"
        out.append((o.id, name, *workloads))
    return tuple(out)


def _workloads(loaded: Loaded, o: ApiOption, kinds: dict[str, str], serving: list[str]
               ) -> list[str]:
    where = ["api_options", o.id, "workloads"]
    if not serving:
        raise loaded.error("an API option serves serving workloads (kind: serve) and the plan "
                           "has none", ["api_options", o.id])
    if o.workloads is None:
        return serving
    seen: list[str] = []
    for wid in o.workloads:
        if wid not in kinds:
            raise loaded.error(f"unknown workload '{wid}'{did_you_mean(wid, list(kinds))}",
                               where)
        if kinds[wid] != "serve":
            raise loaded.error(
                f"workload '{wid}' is {kinds[wid]}: an API option serves only serving "
                "workloads; give a training workload to a candidate and combine both in a "
                "portfolio (portfolios[])", where)
        if wid in seen:
            raise loaded.error(f"workload '{wid}' is listed twice", where)
        seen.append(wid)
    return [wid for wid in serving if wid in seen]  # in the plan's order
