"""Per-token API options (`api_options:` in a scenario; methodology §18), checked and
resolved: each serves some serving workloads at a price per million prompt and output tokens,
from the catalog (pricing/api.yaml) or the scenario. Each mistake is one message naming the
field.

An API option is a column of the model like a portfolio, not a candidate: it has no cards,
so the chapters of a cluster do not apply to it (tco/model/api.py costs it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import did_you_mean
from ..inputs import API_INPUTS, Input

if TYPE_CHECKING:
    from ..catalog import ApiPrice, Catalog
    from ..scenario import ApiOption, Loaded
    from .state import Resolution

# The catalog figure behind each input key.
CATALOG_FIELD = {"input_price_per_million_tokens": "input_usd_per_million_tokens",
                 "output_price_per_million_tokens": "output_usd_per_million_tokens"}


def resolve_api_options(r: Resolution, taken: Sequence[str]) -> tuple[tuple[str, ...], ...]:
    """Each API option as (id, name, workload, ...), its two prices put as inputs
    (`api_options.<id>.input_price_per_million_tokens`, `...output...`): the scenario's, or
    the catalog's converted as every catalog figure is (tco.resolve.figures)."""
    loaded, catalog = r.loaded, r.catalog
    out = []
    kinds = {w.id: w.kind for w in loaded.scenario.workloads}
    serving = [wid for wid, kind in kinds.items() if kind == "serve"]
    for o in loaded.scenario.api_options:
        base = ["api_options", o.id]
        if o.id in taken:
            raise loaded.error(f"id '{o.id}' is also a candidate's or portfolio's; give the API "
                               "option another", base + ["id"])
        price = _catalog_price(loaded, catalog, o)
        workloads = _workloads(loaded, o, kinds, serving)
        for key, spec in API_INPUTS.items():
            path = ".".join(base + [key])
            value = getattr(o, key)
            if value is not None:
                r.put(_given(r, o, key, value))
            else:
                assert price is not None  # _catalog_price: without `api`, both prices are given
                r.figure(path, getattr(price, CATALOG_FIELD[key]), spec)
        name = o.name or (f"{price.provider} API, {price.model}" if price else o.id)
        out.append((o.id, name, *workloads))
    return tuple(out)


def _catalog_price(loaded: Loaded, catalog: Catalog, o: ApiOption) -> ApiPrice | None:
    """The catalog's price of `o` (by `api`); None when the scenario gives both prices and
    their source itself."""
    base = ["api_options", o.id]
    if o.api is None:
        missing = [k for k in API_INPUTS if getattr(o, k) is None]
        if missing:
            raise loaded.error(
                "an API option needs its prices: `api` (a catalog price, `tco catalog list "
                "--section api`) or both input_price_per_million_tokens and "
                f"output_price_per_million_tokens with their source; missing {' and '.join(missing)}",
                base)
        if not o.source:
            raise loaded.error("give the source of the prices (the provider's price page or "
                               "your quote), as `source`", base)
        return None
    price = catalog.api_prices.get(o.api)
    if price is None:
        raise loaded.error(f"unknown API price '{o.api}'"
                           f"{did_you_mean(o.api, list(catalog.api_prices))}", base + ["api"])
    return price


def _given(r: Resolution, o: ApiOption, key: str, value: float) -> Input:
    """A price the scenario gives (in its currency, checked as every scenario value), with the
    option's `source` when it has one."""
    inp = r.given(["api_options", o.id, key], value, API_INPUTS[key])
    if o.source:
        from dataclasses import replace

        inp = replace(inp, source=o.source)
    return inp


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
