"""The shortfall of options that cannot deliver the plan, and what closing it costs by renting
or, for a bought option, by buying the cluster cards: auto would size (tco/model/shortfall.py),
in words for the CLI table and the report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..result import CandidateResult, Result
from .fmt import money, number

if TYPE_CHECKING:  # i18n reads YAML, which a quick what-if never imports
    from .i18n import Segment


def short(c: CandidateResult) -> bool:
    """Quantified and leaves planned runs undone at the horizon."""
    return c.quantified and c.values.get("plan_shortfall_runs", 0.0) > 0


def priced(c: CandidateResult) -> bool:
    return "shortfall_rent_cost" in c.values


def table_block(result: Result) -> str:
    """Under the CLI table: each option short of the plan, and the cost of closing it."""
    cur = result.currency
    lines = []
    for c in result.candidates:
        if not short(c):
            continue
        v = c.values
        head = (f"  {c.id}: delivers {v['plan_delivered_fraction']:.0%} of the plan, "
                f"{number(v['plan_shortfall_runs'], 1)} runs short")
        if priced(c):
            head += (f" ({number(v['shortfall_card_hours'], 0)} card-h); renting them at "
                     f"{money(v['shortfall_rent_price'], cur)}/card-h costs "
                     f"{money(v['shortfall_rent_cost'], cur)}")
            if v.get("shortfall_buy_cards", 0) > 0:
                head += (f"; buying {number(v['shortfall_buy_cards'], 0)} more cards "
                         f"(cards: auto's size at linear scaling) adds {money(v['shortfall_buy_npv'], cur)} "
                         "to its NPV")
            how = "buying" if v.get("shortfall_closed_by_buying") else "renting"
            head += (f"; closed the cheaper way ({how}), the whole plan costs "
                     f"{money(v['npv_tco_plan_closed'], cur)} (NPV)")
        else:
            head += "; no cloud price to close it with"
        lines.append(head)
    if not lines:
        return ""
    return ("\nShortfall (options that do not deliver the whole plan; the rent closing it is "
            "paid in the horizon's last year):\n" + "\n".join(lines) + "\n")


def consider(view: Any, c: CandidateResult) -> list[list[Segment]]:
    """The report's sentence on closing an option's shortfall (none when it has none, or no
    price to close it with)."""
    if not (short(c) and priced(c)):
        return []
    v, s = c.values, view.s
    more = number(v.get("shortfall_buy_cards", 0), 0)
    if v.get("shortfall_closed_by_buying"):
        return [s.segments("sum_shortfall_close_buy", name=view.name(c),
                           runs=number(v["plan_shortfall_runs"], 1), more=more,
                           extra=view.money(v["shortfall_buy_npv"]),
                           rent=view.money(v["shortfall_rent_cost"]),
                           total=view.money(v["npv_tco_plan_closed"]))]
    out = [s.segments("sum_shortfall_close", name=view.name(c),
                      runs=number(v["plan_shortfall_runs"], 1),
                      hours=number(v["shortfall_card_hours"], 0),
                      price=view.money(v["shortfall_rent_price"]),
                      cost=view.money(v["shortfall_rent_cost"]),
                      total=view.money(v["npv_tco_plan_closed"]))]
    if v.get("shortfall_buy_cards", 0) > 0:
        out.append(s.segments("sum_shortfall_buy_instead", more=more,
                              extra=view.money(v["shortfall_buy_npv"])))
    return out


def detail_rows(view: Any, c: CandidateResult) -> list[tuple[str, str]]:
    """An option's details: its shortfall and what closing it costs (when it is short). One
    quantity a row, so that the live page recomputes each (tco/exporters/live.py)."""
    if not c.quantified or "plan_shortfall_runs" not in c.values:
        return []
    v, s, cid = c.values, view.s, c.id
    rows = [(s("d_shortfall"), view.live("num1", f"{cid}.plan_shortfall_runs",
                                         v["plan_shortfall_runs"])),
            (s("d_delivered"), view.live("pct0", f"{cid}.plan_delivered_fraction",
                                         v["plan_delivered_fraction"]))]
    if priced(c):
        rows += [(s("d_shortfall_hours"), view.live("num0", f"{cid}.shortfall_card_hours",
                                                    v["shortfall_card_hours"])),
                 (s("d_shortfall_price"), view.live("money", f"{cid}.shortfall_rent_price",
                                                    v["shortfall_rent_price"])),
                 (s("d_shortfall_rent"), view.live("money", f"{cid}.shortfall_rent_cost",
                                                   v["shortfall_rent_cost"])),
                 ]
        if "shortfall_buy_cards" in v:
            rows += [(s("d_shortfall_buy_cards"), view.live(
                         "num0", f"{cid}.shortfall_buy_cards", v["shortfall_buy_cards"])),
                     (s("d_shortfall_buy_npv"), view.live(
                         "money", f"{cid}.shortfall_buy_npv", v["shortfall_buy_npv"]))]
        rows.append((s("d_plan_closed"), view.live("money", f"{cid}.npv_tco_plan_closed",
                                                   v["npv_tco_plan_closed"])))
    return rows


def detail_table(view: Any, c: CandidateResult) -> dict[str, Any] | None:
    """The shortfall rows of an option's details as a table present for every quantified
    option and shown while it is short (`hidden` otherwise): the live page shows it when a
    reader's change makes the option short (`when`: the index of its shortfall in runs), and
    hides it when it no longer is."""
    rows = detail_rows(view, c)
    if not rows:
        return None
    return {"rows": rows, "when": view.at[f"{c.id}.plan_shortfall_runs"],
            "hidden": not short(c)}
