"""`tco catalog list` and `tco catalog show`: figures with their source and date."""

from __future__ import annotations

from typing import Any

from ..catalog import Catalog, Figure, Missing
from ..errors import UnknownId, did_you_mean, printable
from .data import rows_csv, text_table, to_json

_SECTIONS = {
    "accelerators": "accelerators", "platforms": "platforms", "stacks": "stacks",
    "regions": "regions", "cooling": "cooling", "cloud": "cloud_prices", "api": "api_prices",
    "regional-cloud": "regional_cloud_prices", "profiles": "profiles",
}
_LIST_FIELDS = {
    "accelerators": ["peak_tflops_bf16", "peak_tflops_fp64", "memory_gb", "tdp_w", "mfu"],
    "platforms": ["cards_per_node", "node_price_usd", "node_power_w",
                  "scaleout_bandwidth_gb_per_s", "network_cost_per_card_usd"],
    "stacks": ["efficiency_vs_cuda", "porting_engineer_months_moderate",
               "maintenance_engineer_months_per_year"],
    "regions": ["electricity_price_per_kwh", "colocation_price_per_kw_month",
                "carbon_kg_per_kwh"],
    "cooling": ["pue", "capex_per_kw_usd"],
    "cloud_prices": ["on_demand_usd_per_card_hour", "committed_usd_per_card_hour"],
    "api_prices": ["input_usd_per_million_tokens", "output_usd_per_million_tokens"],
    "regional_cloud_prices": ["on_demand_usd_per_card_hour", "committed_usd_per_card_hour"],
    "profiles": ["discount_rate", "depreciation_years", "utilization",
                 "support_fraction_per_year", "ops_engineers_per_1000_cards", "pue",
                 "colocation_price_per_kw_month_usd"],
}
_SOURCE_WIDTH = 60  # the table's source column is cut here; json and csv give it whole


def _fig_text(f: Figure | Missing | None) -> str:
    if f is None:
        return "-"
    if isinstance(f, Missing):
        return "no public figure"
    if f.value is not None:
        return f"{f.value:g}"
    return f"{f.typical:g} ({f.low:g}-{f.high:g})"


def catalog_listing(cat: Catalog, section: str, fmt: str) -> str:
    key = _SECTIONS[section]
    records = getattr(cat, key)
    fields = _LIST_FIELDS[key]
    extra = ["price_usd", "lead_time_weeks"] if key == "accelerators" else []
    cited = "price_usd" if extra else fields[0]  # the figure whose source the list shows
    header = ["id"] + fields + extra + ["source"]
    rows: list[list[Any]] = []
    data: list[dict[str, Any]] = []
    for ident, rec in records.items():
        figs = {f: getattr(rec, f, None) for f in fields}
        figs.update(getattr(rec, "missing", {}))
        if extra:
            price = cat.card_prices[ident]
            figs.update(price_usd=price.price_usd or price.missing.get("price_usd"),
                        lead_time_weeks=price.lead_time_weeks)
        source = _source(figs[cited])
        shown = source if fmt != "table" or len(source) <= _SOURCE_WIDTH else \
            source[:_SOURCE_WIDTH - 3] + "..."
        rows.append([ident] + [_fig_text(figs[f]) for f in fields + extra] + [shown])
        data.append({"id": ident, **{f: (figs[f].model_dump(exclude_none=True)
                                         if figs[f] else None) for f in fields + extra}})
    if fmt == "json":
        return to_json(data)
    if fmt == "csv":
        return rows_csv(header, rows)
    return text_table(header, rows, "l" + "r" * (len(header) - 2) + "l") + (
        f"\n{len(rows)} records. Catalog digest {cat.digest()}. Source: of "
        f"{cited}, cut to {_SOURCE_WIDTH} characters; `tco catalog show ID` gives each "
        "figure's source and date.\n")


def _source(f: Figure | Missing | None) -> str:
    if f is None:
        return ""
    if isinstance(f, Missing):
        return f"{f.missing} ({f.as_of})"
    return f"{f.source} ({f.as_of})"


# Ids that name a file of the catalog rather than a record: every record of its sections, each
# as <section>.<record id> (pricing/facilities.yaml: regions, cooling and the exchange rates).
FILES = {"facilities": ("regions", "cooling", "exchange_rates")}
WHOLE = ("assumptions", "exchange_rates")  # sections shown whole by their own name


def _find(cat: Catalog, ident: str) -> list[tuple[str, Any]]:
    found: list[tuple[str, Any]] = []
    if ident in FILES:
        for s in FILES[ident]:
            if s in WHOLE:
                found.append((s, getattr(cat, s)))
            else:
                found += [(f"{s}.{rid}", rec) for rid, rec in getattr(cat, s).items()]
        return found
    for section in ("accelerators", "card_prices", "platforms", "stacks", "regions", "cooling",
                    "cloud_prices", "api_prices", "regional_cloud_prices", "profiles"):
        rec = getattr(cat, section).get(ident)
        if rec is not None:
            found.append((section, rec))
    if ident in WHOLE:
        found.append((ident, getattr(cat, ident)))
    return found


def catalog_record(cat: Catalog, ident: str, fmt: str) -> str:
    found = _find(cat, ident)
    if not found:
        every = set()
        for s in ("accelerators", "platforms", "stacks", "regions", "cooling", "api_prices",
                  "regional_cloud_prices", "profiles"):
            every.update(getattr(cat, s))
        every.update({*WHOLE, *FILES})
        raise UnknownId(f"no catalog record '{ident}'{did_you_mean(ident, sorted(every))}")
    rows: list[list[str]] = []
    facts: list[str] = []
    data: dict[str, Any] = {}
    for section, rec in found:
        items = rec.items() if isinstance(rec, dict) else (
            (k, getattr(rec, k)) for k in type(rec).model_fields)
        for field, value in items:
            if field == "missing" and isinstance(value, dict):
                for name, why in value.items():
                    rows.append([f"{section}.{name}", _fig_text(why), why.as_of, "",
                                 why.missing])
                    data[f"{section}.{name}"] = why.model_dump()
                continue
            if isinstance(value, Figure):
                rows.append([f"{section}.{field}", _fig_text(value), value.as_of,
                             value.confidence or "", value.source])
                data[f"{section}.{field}"] = value.model_dump(exclude_none=True)
            elif value not in (None, [], ""):
                facts.append(f"{section}.{field}: {value}")
                data[f"{section}.{field}"] = value
    if fmt == "json":
        return to_json({"id": ident, "figures": data})
    head = "\n".join(printable(f) for f in facts) + "\n\n" if facts else ""
    return head + text_table(["field", "value", "as of", "conf.", "source"], rows, "lrlll")
