"""The report's view model: a Result turned into labelled, formatted, translated pieces.

Presentation only. Every figure shown is an engine value formatted by tco/exporters/fmt.py; the
only derived figures are comparisons for the wording of the summary (how much cheaper, which
option is fastest) and the running total drawn in the cash-flow chart. Key table cells carry the
engine's full-precision value in a `data-value` attribute.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .. import modes
from ..analysis.types import DrawWarning, MonteCarlo, PointOutside, Sensitivity, share_text
from ..decide import Decision as Recommendation
from ..decide import recommend as recommendation
from ..decide import recommend_option as recommend
from ..decide import rented_at
from ..decide.rules import barred_here, facts, part_only, plan_delivers, single, usable
from ..decide.rules import complete as is_complete
from ..engine import decision_npv
from ..inputs import Input
from ..resolve.policy import policy_dict, stock_words
from ..result import CandidateResult, Result
from . import (
    charts,
    intervals,
    live,
    plan_report,
    report_api,
    report_portfolios,
    report_workloads,
    shortfall,
)
from .fields import COMPARISON, REPORT_FORMS, Field, field
from .fmt import (
    CHART_CANDIDATES,
    axis_money,
    money,
    money_full,
    number,
    percent,
    plain,
    zh_unit,
)
from .i18n import Segment, Strings
from .report_page import PRICE_KEYS, Cell, Chart, Fig, Row, fig, full
from .serving_report import (
    per_million,
    serve_comparison,
    serve_detail_rows,
    serve_first,
    serve_kpis,
    serving_section,
)
from .workloads import Workload, training_workloads

TORNADO_BARS = 10
DETAIL_LIMIT = 30  # options detailed in a static report; the rest: table, workbook, JSON
MC_SERIES = 5


class View:
    """Builds the dict the template renders; `build()` is the only public entry point."""

    def __init__(self, result: Result, lang: str, report_date: dt.date) -> None:
        self.r = result
        self.s = Strings(lang)
        self.lang = lang
        self.cur = result.currency
        self.date = report_date
        # the recommendation every output gives (tco.decide): the plan when the scenario is
        # planned, and then the summary and key figures describe it (plan_report.summary)
        decided = recommendation(result)
        self.plan = decided if decided is not None and decided.mode == modes.PLAN else None
        said = recommend(result)
        # a recommended portfolio: its id; the single options are then none of them "the" one
        self.portfolio = said.option if said is not None and said.mode == modes.PORTFOLIO else ""
        # a recommended per-token API (tco/exporters/report_api.py): its id
        self.api = said.option if said is not None and said.mode == modes.API else ""
        self.rec = None if self.portfolio or self.api else single(result)
        self.complete = [c for c in result.candidates if is_complete(c) and not barred_here(c)]
        self.at = live.slots(result)
        self.detail_ids = self._detail_ids()

    def _detail_ids(self) -> set[str] | None:
        """The options a long static report details: the first DETAIL_LIMIT priced ones in rank
        order (the recommendation among them, and the option a generated rent option reads its
        inputs from); None (all) when there are no more than that, or the page is live. The
        others are in the comparison table, the workbook and the JSON: a thousand detail pages
        help no reader."""
        r = self.r
        priced = [c for c in r.candidates if c.priced]
        if len(priced) <= DETAIL_LIMIT or live.carried_live(r):
            return None
        shown = priced[:DETAIL_LIMIT]
        if self.rec is not None and self.rec not in shown:
            shown[-1] = self.rec
        return {c.id for c in shown}

    # --- formatting ----------------------------------------------------------------------------
    def money(self, x: float, unit: float | None = None) -> str:
        """CNY in Chinese reads in 万/亿 (in `unit`, its column's, when given: fmt.zh_unit);
        other currencies in Chinese are written out in full with thousands separators;
        English uses k/M/B."""
        if self.lang == "zh" and self.cur != "CNY" and math.isfinite(x) and abs(x) >= 1000:
            return money_full(x, self.cur)
        if self.lang == "zh" and self.cur == "CNY":
            return money(x, self.cur, "zh", unit or None)
        return money(x, self.cur, "en" if self.lang == "zh" else self.lang)

    def axis(self, values: Any) -> Callable[[float], str]:
        """Labels of a money axis, one unit for the whole axis (fmt.axis_money)."""
        return axis_money(values, self.cur, self.lang)

    def amount(self, x: float, unit: float | None = None) -> str:
        """Money in a cash-flow table, where a dash reads better than a column of zeros."""
        return "–" if x == 0 else self.money(x, unit)

    def days(self, x: float) -> str:
        return self.s("days", n=number(x, 1))

    def pct(self, x: float) -> str:
        return percent(x, 1 if abs(x) < 0.1 else 0)

    def count(self, x: float) -> str:
        """70e9 -> '70B' / '700亿'; three significant figures, whole numbers from 100 of a
        unit up (4e7 -> '4000万', 1e15 -> '1,000T', never '4e+03万')."""
        steps = ((1e12, "T"), (1e9, "B"), (1e6, "M")) if self.lang == "en" else (
            (1e12, "万亿"), (1e8, "亿"), (1e4, "万"))
        shown = float(f"{x:.3g}")  # three significant figures first: 999.6e6 is 1B
        for size, suffix in steps:
            if abs(shown) >= size:
                scaled = shown / size
                # Chinese groups digits by ten thousand, not by thousand: 4000万, not 4,000万
                whole = f"{scaled:,.0f}" if self.lang == "en" else f"{scaled:.0f}"
                return (whole if abs(scaled) >= 99.95 else f"{scaled:.3g}") + suffix
        return f"{x:,.0f}"

    def name(self, c: CandidateResult) -> str:
        """The option's name; a generated rent option's ("<name>, rented") in the reader's
        language."""
        return self.s.message(c.info.name) if self.lang != "en" else c.info.name

    def fmt(self, kind: str, x: float, unit: float | None = None) -> str:
        """A figure written the way `kind` says (an amount in `unit` when given: unify_units);
        templates/report_live.js has the same kinds."""
        s = self.s
        if kind in ("money", "amount"):
            return self.money(x, unit) if kind == "money" else self.amount(x, unit)
        writers = {
            "money": self.money, "amount": self.amount, "days": self.days, "pct": self.pct,
            "pct0": lambda v: percent(v, 0), "pct1": lambda v: percent(v, 1),
            "num0": lambda v: number(v, 0), "num1": lambda v: number(v, 1),
            "num4": lambda v: number(v, 4),
            "kw": lambda v: s("value_kw", n=number(v, 0)),
            "mwh": lambda v: s("value_mwh", n=number(v / 1000, 0)),
            "tco2": lambda v: s("value_t_co2", n=number(v / 1000, 0)),
            "breakeven": lambda v: (s("breakeven_any") if v <= 0 else percent(v, 0) if v < 1
                                    else s("breakeven_never")),
            "mtok": lambda v: per_million(v, self.cur),  # a price per million tokens
            "num2": lambda v: number(v, 2),
            "meth_2": lambda v: s("meth_2", rate=percent(v, 1)),
        }
        return writers[kind](x)

    def job_component(self, key: str) -> str:
        """A per-run cost component's name; beside a leased option, whose hardware line is its
        lease payments (methodology §9), the hardware line is not called depreciation."""
        if key == "hardware" and any(c.info.acquire == modes.LEASE for c in self.r.candidates):
            return self.s("component_hardware_lease")
        return self.s.component(key)

    def lease_rows(self, c: CandidateResult) -> list[tuple[str, Fig]]:
        """A leased option's terms as a lessor's quote states them (§7); none for another."""
        if c.info.acquire != modes.LEASE:
            return []
        return [(self.s(label), self.live(kind, f"{c.id}.{key}", c.values[key]))
                for label, key, kind in (
                    ("d_lease_payment", "lease_payment_per_month", "money"),
                    ("d_lease_rate_factor", "lease_rate_factor", "num4"),
                    ("d_lease_deposit", "lease_deposit", "money"),
                    ("d_lease_buyout", "lease_buyout_price", "money"))]

    def live(self, kind: str, name: str, x: float) -> Fig:
        """The figure `name` (a quantity of the model, value `x`), live in the page."""
        return fig(self.fmt(kind, x), self.at[name], kind, x, name.rsplit(".", 1)[-1])

    def live_text(self, key: str, figures: dict[str, tuple[str, str, float]],
                  **fixed: str) -> Fig:
        """The sentence `key` with figures in it (`figures`: placeholder -> (kind, quantity,
        value)), live in the page: the page writes each figure again into the template."""
        names = list(figures)
        text = self.s(key, **fixed, **{k: self.fmt(figures[k][0], figures[k][2]) for k in names})
        out = Fig(text)
        out.t = self.s(key, **fixed, **{k: "{" + str(i) + "}" for i, k in enumerate(names)})
        out.qs = tuple(self.at[figures[k][1]] for k in names)
        out.fs = tuple(figures[k][0] for k in names)
        return out

    def unify_units(self, view: dict[str, Any]) -> None:
        """One unit for the amounts of each column of each table (zh, CNY): 万 or 亿 chosen from
        the column's magnitude (fmt.zh_unit), never both in one column; prices per unit are
        written in full. Each cell keeps the unit (`u`, data-u) for the live page."""
        if self.lang != "zh" or self.cur != "CNY":
            return

        def amount(c: Any) -> float | None:
            if isinstance(c, Fig):
                x, key, f = c.x, c.key, c.f
            elif isinstance(c, Cell) and c.value:
                x, key, f = float(c.value), c.key, c.f
            else:
                return None
            if key in PRICE_KEYS or not math.isfinite(x):
                return None
            if f in ("money", "amount") or str(c) == self.money(x) or (
                    isinstance(c, Cell) and c.text == self.money(x)):
                return x
            return None

        def column(cells: list[Any]) -> list[Any]:
            money = [(i, c, x) for i, c in enumerate(cells) if (x := amount(c)) is not None]
            u = zh_unit(x for _, _, x in money)
            out = list(cells)
            for i, c, x in money:
                kind = "amount" if (c.f if isinstance(c, (Fig, Cell)) else "") == "amount" \
                    else "money"
                text = self.fmt(kind, x, u)
                if isinstance(c, Fig):
                    out[i] = fig(text, c.q, kind if c.f else c.f, x, c.key, u)
                else:
                    c.text, c.u = text, u
            return out

        def table(rows: list[list[Any]]) -> list[list[Any]]:
            width = max((len(r) for r in rows), default=0)
            cols = [column([r[k] if k < len(r) else None for r in rows]) for k in range(width)]
            return [[cols[k][i] for k in range(len(r))] for i, r in enumerate(rows)]

        for rows in ([r.cells for r in view["comparison"]["rows"]],
                     [r["cells"] for r in view["portfolios"].get("rows", [])],
                     *([r["cells"] for r in w["rows"]] for w in view["workloads"]["tables"]),
                     *([r["cells"] for r in c.table["rows"]] for c in view["charts"]
                       if c.table),
                     [[o["npv"], o["more"]] for o in (view.get("plan") or {}).get("options", [])]):
            table(rows)  # Cells are rewritten in place
        for d in view["details"]:
            d["groups"] = [(h, _pairs(table([[v] for _, v in facts]), facts))
                           for h, facts in d["groups"]]
            d["per_run"] = _pairs(table([[v] for _, v in d["per_run"]]), d["per_run"])
            if d["shortfall"]:
                rows = d["shortfall"]["rows"]
                d["shortfall"]["rows"] = _pairs(table([[v] for _, v in rows]), rows)
            cells = table([f["cells"] for f in d["flows"]])
            for f, new in zip(d["flows"], cells):
                f["cells"] = new

    def date_text(self) -> str:
        d = self.date
        return f"{d.year}年{d.month}月{d.day}日" if self.lang == "zh" else d.isoformat()

    # --- sections ------------------------------------------------------------------------------
    def build(self) -> dict[str, Any]:
        view = self._build()
        self.unify_units(view)
        return view

    def _build(self) -> dict[str, Any]:
        s, r = self.s, self.r
        return {
            "lang": self.lang,
            "html_lang": s("lang_tag"),
            "t": s.all_text(),
            # the comparison's first option: "recommended", or beside the plan "best single option"
            "badge": s("badge_best_option" if self.plan is not None else "badge_recommended"),
            "title": r.scenario.name,
            "description": r.scenario.description or "",
            "meta": self.meta(),
            "kpis": self.kpis(),
            "kpis_hidden": self.rec is None and self.plan is None,  # shown by the live page when an option wins
            "summary": self.summary(),
            "comparison": self.comparison(),
            "portfolios": report_portfolios.section(self),
            "plan": plan_report.section(self),
            "workloads": {"columns": report_workloads.columns(self),
                          "tables": report_workloads.section(self)},
            "charts": self.charts(),
            "serving": serving_section(self),
            "details": [self.detail(c) for c in self.detailed()],
            "details_omitted": self.omitted_note(),
            "infeasible": [{"name": self.name(c), "id": c.id,
                            "reasons": [s.message(x) for x in c.reasons]}
                           for c in r.candidates if not c.feasible],
            "risks": [{"name": self.name(c), "id": c.id,
                       "flags": [s.message(f) for f in c.info.flags]}
                      for c in r.candidates if c.info.flags],
            "assumptions": self.assumptions(),
            "methodology": self.methodology(),
            "caveats": self.caveats(),
            "live": self.live_page(),
        }

    # --- the live model (tco/exporters/live.py) ---------------------------------------------
    def live_candidate(self, c: CandidateResult) -> dict[str, Any]:
        """What the page knows of an option besides the model's numbers: names, mode, the
        flags that bar it, and where its figures are in the array of values."""
        s, at = self.s, self.at
        out: dict[str, Any] = {
            "id": c.id, "name": self.name(c), "card": self.s.catalog(c.info.card_name),
            "mode": c.info.acquire,
            "cards": number(c.inputs["cards"], 0), "priced": c.priced, "feasible": c.feasible,
            "rank": self.r.candidates.index(c),
            "blocking": [s.message(f) for f in c.info.blocking],
            "flags": [s.message(f) for f in c.info.flags], "source": c.info.inputs_of,
            "pricing": rented_at(self.r, c),  # the tier it rents at (a fallback's, if one)
            "part": bool(c.info.workloads),  # carries part of the plan: only in a portfolio
            "f": facts(c),  # what the decision's rules read (live.rules_script)
            "cards_n": c.inputs["cards"],
            "part_text": s("name_sep").join(c.info.workloads),
            "carries": s("name_sep").join(c.carries),
        }
        if c.priced:
            w = f"{c.id}.{c.primary_workload}"
            out["notes"] = self.live_notes(c, c.notes)
            tier = self.r.resolved.candidates[c.id].rent_tier  # as resolved, before the choice
            if c.info.acquire == modes.RENT and tier.startswith("committed"):
                # reserved or on demand, whichever the inputs make cheaper (tco.model.cloud)
                from ..engine import rent_notes

                own = len(self.r.resolved.candidates[c.id].notes)
                out["rent"] = {"q": at[f"{c.id}.rent_on_demand"], "pricing": tier.replace(
                    "_", "-"), "reserved": self.live_notes(c, rent_notes(c.notes, own, tier,
                                                                         False)),
                    "on_demand": self.live_notes(c, rent_notes(c.notes, own, tier, True))}
            out["q"] = {
                "npv_tco": at[f"{c.id}.npv_tco"], "rank_npv": at[self.ranked_on(c.id)],
                "cost_per_job": at[f"{w}.cost_per_job"],
                "wall_days": at[f"{w}.wall_days"],
                "cost_per_gpu_hour": at[f"{c.id}.cost_per_gpu_hour"],
                "tier": at[f"{c.id}.tier"],
                "delivered": at[f"{c.id}.plan_delivered_fraction"],
                "cloud_npv": at.index.get(f"{c.id}.cloud_npv", -1),
                "cumulative": [at[f"{c.id}.y{t}.cumulative"] for t in range(len(c.yearly))],
                "parts": [at[f"{w}.cost_{k}"] for k in self.r.job_components],
            }
            serve = serve_first(self)
            if serve and serve in c.jobs:  # the key figures of a plan that serves first
                out["q"].update({k: at[f"{c.id}.{serve}.{k}"] for k in (
                    "cost_per_million_output_tokens", "cost_per_million_input_tokens",
                    "cards_needed")})
            # each workload it carries: a run's cost (by component) and time, or the cost
            # per million output tokens of a serving one
            out["jobs"] = {wid: {"cost_per_job": at[f"{c.id}.{wid}.cost_per_job"],
                                 "wall_days": at[f"{c.id}.{wid}.wall_days"],
                                 "parts": [at[f"{c.id}.{wid}.cost_{k}"]
                                           for k in self.r.job_components],
                                 **({"out": at[f"{c.id}.{wid}.cost_per_million_output_tokens"]}
                                    if f"{c.id}.{wid}.cost_per_million_output_tokens" in at.index
                                    else {})}
                           for wid in c.jobs if c.info.carries(wid)}
            out["shortfall"] = {k: at[f"{c.id}.{k}"] for k in (
                "plan_shortfall_runs", "shortfall_card_hours", "shortfall_rent_price",
                "shortfall_rent_cost", "npv_tco_plan_closed", "shortfall_buy_cards",
                "shortfall_buy_npv", "shortfall_closed_by_buying")
                if k in c.values and f"{c.id}.{k}" in at.index} if c.quantified else {}
        return out

    def on_basis(self, values: Mapping[str, float]) -> float:
        """The NPV an option, portfolio or API is ranked on, from its values: after income tax
        where the scenario's decision basis is after_tax (engine.decision_npv)."""
        return decision_npv(values, self.r.structure.decision_basis)

    def basis_note(self, said: Recommendation) -> list[list[Segment]]:
        """Ranked after tax: a first sentence saying the amounts the summary compares are after
        tax, with the recommendation's NPV before tax."""
        if said.basis != "after_tax":
            return []
        return [self.s.segments("sum_basis_after_tax", npv=self.money(said.npv_tco))]

    def ranked_on(self, oid: str) -> str:
        """The quantity option `oid` is ranked on (engine.decision_npv: the NPV, or the NPV
        after tax when the scenario's decision basis is after_tax), for the page's ranking."""
        after = self.r.structure.decision_basis == "after_tax"
        return f"{oid}.npv_tco_after_tax" if after else f"{oid}.npv_tco"

    def live_plan(self) -> dict[str, Any]:
        """What the page knows of the plan's portfolios, per-token APIs, serving and training
        workloads: ids, names, fixed facts, and where their figures are."""
        s, r, at = self.s, self.r, self.at
        from ..decide.rules import barred, portfolio_facts

        portfolios = [{"id": p.id, "name": p.name, "options": list(p.options),
                       "feasible": p.feasible, "barred": bool(barred(r, p)),
                       "f": portfolio_facts(r, p),
                       "q": {"npv_tco": at[f"{p.id}.npv_tco"], "tier": at[f"{p.id}.tier"],
                             "rank_npv": at[self.ranked_on(p.id)],
                             "delivered": at[f"{p.id}.plan_delivered_fraction"]}}
                      for p in r.portfolios]
        apis = [{"id": a.id, "name": a.info.name, "carries": s("name_sep").join(a.carries),
                 "f": {},
                 "q": {"npv_tco": at[f"{a.id}.npv_tco"], "tier": at[f"{a.id}.tier"],
                       "rank_npv": at[self.ranked_on(a.id)]},
                 "jobs": [{"wid": wid, "q": {k: at[f"{a.id}.{wid}.{k}"] for k in (
                     "cost_per_million_input_tokens", "cost_per_million_output_tokens",
                     "cost_per_job", "tokens_per_year")}} for wid in a.jobs]}
                for a in r.api_options]
        serving = [{"wid": w.id, "title": s("h_serve_chart", workload=w.name or w.id),
                    "axis": s("serve_chart_axis", currency=self.cur)}
                   for w in r.scenario.workloads if w.kind == "serve"]
        training = [{"wid": w.id, "n": n, "cost_title": s("h_cost_per_job") + (
                        "" if n == 0 else s("title_workload", name=w.name)),
                     "time_title": s("h_time") + (
                        "" if n == 0 else s("title_workload", name=w.name))}
                    for n, w in enumerate(training_workloads(r))]
        # the plan recommended, solved at the scenario's values: the page re-costs it as
        # solved, and the plans held to one option that delivered the work, and says when
        # one of them or the option it would recommend now costs less (report_live.js,
        # renderPlanNote): then the plan should be re-solved
        # (on the NPV the plans were chosen on: after tax on that basis, PlanResult.npv_key)
        planned = None
        if self.plan is not None:
            best = self.plan.plan
            planned = {"best": self.plan.best_option.option if self.plan.best_option else None,
                       "q": at[f"{best.id}.{best.npv_key}"], "npv": best.npv_decision,
                       "after_tax": best.basis == "after_tax",
                       "rivals": [{"option": p.option, "q": at[f"{p.id}.{p.npv_key}"]}
                                  for p in r.plans[1:] if plan_delivers(p)]}
        return {"planned": planned, "portfolios": portfolios, "apis": apis, "serving": serving,
                "training": training, "serve_first": serve_first(self)}

    def live_notes(self, c: CandidateResult, notes: list[str]) -> dict[str, Any]:
        """A candidate's `notes` around the one that moves with the inputs (the share of
        planned runs it completes, tco.engine.completes_note): the page writes them again."""
        from ..engine import completes_note

        probe = 0.4321  # a share whose text ("43%") is found again in the translated note
        shown = f"{probe:.0%}"
        template = self.s.message(completes_note(probe))
        assert template.count(shown) == 1, template
        moving = [n for n in notes if n == completes_note(c.values["runs_completed_fraction"])]
        at = notes.index(moving[0]) if moving else len(c.info.notes)
        rest = [self.s.message(n) for n in notes if n not in moving]
        return {"before": rest[:at], "after": rest[at:], "template": template.replace(
            shown, "{pct}"), "q": self.at[f"{c.id}.runs_completed_fraction"],
            "on": c.feasible}

    def live_page(self) -> dict[str, Any]:
        """The live model's scripts and panel; none for a model too large to carry
        (live.MAX_QUANTITIES) or a plan whose sections the page does not recompute yet
        (live.carried_live), whose report stays a static document."""
        from markupsafe import Markup

        from ..resources import templates_dir

        if not live.carried_live(self.r):
            return {"enabled": False, "panel": []}
        data = live.payload(self.r, self.s, self.lang, self.at,
                            [self.live_candidate(c) for c in self.r.candidates],
                            [self.job_component(k) for k in self.r.job_components],
                            self.live_plan())
        model = live.model_script(self.r, self.at)
        app = (templates_dir() / "report_live.js").read_text(encoding="utf-8")
        return {"enabled": True, "data": Markup(live.script_json(data)), "model": Markup(model),
                "app": Markup(app), "panel": data["panel"],
                "csp": Markup(" ".join(live.csp_hash(x) for x in (model, app)))}

    def meta(self) -> list[dict[str, Any]]:
        s, r, p = self.s, self.r, self.r.provenance
        plan = report_workloads.plan_lines(self)
        # six short facts in a row of fixed columns, then the wide ones (the plan, one line
        # per workload, and the policy) each across the whole page (report.css .meta)
        items: list[tuple[str, str | list[str], bool]] = [
            (s("meta_date"), self.date_text(), False),
            (s("meta_horizon"), s("years", n=r.structure.horizon_years), False),
            (s("meta_currency"), self.cur, False),
            (s("meta_tool"), f"tco {p.tool_version}", False),
            (s("meta_catalog"), p.catalog_digest, False),
            (s("meta_scenario"), p.scenario_digest, False),
            (s("meta_workloads" if len(plan) > 1 else "meta_workload"), plan, True),
        ]
        policy = policy_dict(r.scenario_data)
        if policy is not None:
            parts = [s("policy_value", cards=s("name_sep").join(policy["holds_licence"]),
                       note="").strip()] if policy["holds_licence"] else []
            if policy["holds_stock"]:
                parts.append(s("policy_stock", stock=stock_words(policy)))
            items.append((s("meta_policy"), " ".join(parts + [policy["note"] or ""]).strip(),
                          True))
        return [{"label": label, "lines": value if isinstance(value, list) else [value],
                 "wide": wide} for label, value, wide in items]

    def kpis(self) -> list[Cell]:
        """The recommended option's key figures. With no single option recommended (a
        portfolio, an API, nothing), those of the best-ranked priced option carrying the plan,
        hidden: the live page shows them when a change makes a single option win. The plan
        recommended: its own (plan_report.kpis)."""
        if self.plan is not None:
            return plan_report.kpis(self, self.plan)
        c = self.rec or next((c for c in self.r.candidates if c.priced and c.feasible
                              and not c.info.workloads and c.job), None)
        if c is None:
            return []
        if serve_first(self):  # a plan that serves first: its key figures are serving's
            return serve_kpis(self, c, serve_first(self))
        s = self.s
        return [
            Cell(self.money(c.values["npv_tco"]), full(c.values["npv_tco"]), s("kpi_npv"),
                 f="money", metric="npv_tco"),
            Cell(self.money(c.job["cost_per_job"]), full(c.job["cost_per_job"]), s("kpi_job"),
                 f="money", metric="cost_per_job"),
            Cell(self.days(c.job["wall_days"]), full(c.job["wall_days"]), s("kpi_time"),
                 f="days", metric="wall_days"),
            Cell(self.money(c.values["cost_per_gpu_hour"]), full(c.values["cost_per_gpu_hour"]),
                 s("kpi_gpu_hour"), f="money", metric="cost_per_gpu_hour"),
        ]

    def summary(self) -> dict[str, Any]:
        if self.plan is not None:  # the plan recommended: the summary describes it
            return plan_report.summary(self, self.plan)
        s, rec = self.s, self.rec
        consider: list[list[Segment]] = []
        said = recommend(self.r)
        if said is not None and said.mode in (modes.PORTFOLIO, modes.API):  # not a single option
            return {"portfolio": report_portfolios, "api": report_api}[said.mode].summary(self, said)
        if rec is None:
            parts = [c for c in self.r.candidates if part_only(c)]
            if parts:  # usable options, each carrying a part of the plan, and no portfolio
                names = s("name_sep").join(self.name(c) for c in parts)
                return {"headline": s.segments("sum_none_part", names=names), "why": [],
                        "consider": consider}
            barred = [c for c in self.r.candidates if barred_here(c)]
            if barred:  # feasible options exist, but none may be bought here
                names = s("name_sep").join(self.name(c) for c in barred)
                return {"headline": s.segments("sum_none_barred", names=names), "why": [],
                        "consider": consider}
            return {"headline": s.segments("sum_none"), "why": [], "consider": consider}
        years = s("years", n=self.r.structure.horizon_years)
        assert said is not None and said.option == rec.id  # one recommendation everywhere
        cards = number(rec.inputs["cards"], 0)
        if said.mode == modes.RENT:
            headline = s.segments("sum_recommend_rent", card=self.s.catalog(rec.info.card_name), cards=cards,
                                  pricing=s(f"pricing_{said.pricing.replace('-', '_')}"))
        elif said.mode == modes.HYBRID:
            headline = s.segments("sum_recommend_hybrid", card=self.s.catalog(rec.info.card_name),
                                  cards=cards)
        elif said.mode == modes.LEASE:
            headline = s.segments("sum_recommend_lease", name=self.name(rec), cards=cards)
        else:
            headline = s.segments("sum_recommend", name=self.name(rec), cards=cards)
        why: list[list[Segment]] = self.basis_note(said)
        npv = self.on_basis(rec.values)
        others = [c for c in self.complete if c is not rec]
        if is_complete(rec) and others:
            nxt = others[0]
            diff = self.on_basis(nxt.values) - npv
            why.append(s.segments("sum_npv_lowest", years=years, npv=self.money(npv),
                                  diff=self.money(diff),
                                  pct=self.pct(diff / self.on_basis(nxt.values)),
                                  next=self.name(nxt)))
        elif not is_complete(rec):
            why.append(s.segments("sum_npv_incomplete", years=years, npv=self.money(npv),
                                  pct=percent(rec.values["plan_delivered_fraction"], 0)))
        else:
            why.append(s.segments("sum_npv_only", years=years, npv=self.money(npv)))
        pool = self.complete or [rec]
        if len(pool) > 1:  # with one eligible option there is nothing to compare
            cheapest_run = min(pool, key=lambda c: c.job["cost_per_job"])
            if cheapest_run is rec:
                why.append(s.segments("sum_job_lowest", cost=self.money(rec.job["cost_per_job"])))
            else:
                why.append(s.segments(
                    "sum_job_not_lowest", cost=self.money(rec.job["cost_per_job"]),
                    other=self.name(cheapest_run),
                    other_cost=self.money(cheapest_run.job["cost_per_job"])))
            fastest = min(pool, key=lambda c: c.job["wall_days"])
            if fastest is rec:
                why.append(s.segments("sum_time_fastest", days=self.days(rec.job["wall_days"])))
            else:
                why.append(s.segments("sum_time", days=self.days(rec.job["wall_days"]),
                                      fastest=self.name(fastest),
                                      fastest_days=self.days(fastest.job["wall_days"])))
        return {"headline": headline, "why": why, "consider": self.consider(rec, said)}

    def consider(self, rec: CandidateResult, said: Recommendation) -> list[list[Segment]]:
        """What a reader should weigh beside the recommendation of option `rec`: its risk
        flags, cheaper options that are barred or short of the plan, the other mode (renting
        or buying), and the Monte Carlo's chance that it is cheapest. Options are compared on
        the NPV they are ranked on (after tax on that basis)."""
        s, npv, on = self.s, self.on_basis(rec.values), self.on_basis
        consider: list[list[Segment]] = []
        if rec.info.flags:
            flags = s("list_sep").join(s.message(f) for f in rec.info.flags)
            consider.append(s.segments("sum_flags", flags=flags))
        else:
            consider.append(s.segments("sum_no_flags"))
        for c in self.r.candidates:
            if barred_here(c) and c.priced and on(c.values) < npv:
                why_barred = s("list_sep").join(s.message(f) for f in c.info.blocking)
                consider.append(s.segments("sum_barred", name=self.name(c),
                                           npv=self.money(on(c.values)), why=why_barred))
        for c in self.r.candidates:
            if usable(c) and not is_complete(c) and on(c.values) < npv:
                consider.append(s.segments(
                    "sum_incomplete", name=self.name(c), npv=self.money(on(c.values)),
                    pct=percent(c.values["plan_delivered_fraction"], 0)))
                consider += shortfall.consider(self, c)
        excluded = [self.name(c) for c in self.r.candidates if not c.feasible]
        if excluded:
            consider.append(s.segments("sum_infeasible", names=s("name_sep").join(excluded)))
        # Renting against buying, read from the same ranking as the recommendation: the
        # cheapest usable option of the other mode, never a sentence that contradicts it.
        other = said.other_mode
        if said.mode == modes.RENT and other is not None:
            consider.append(s.segments(
                f"sum_{other.info.acquire}_dearer",  # buy, lease or hybrid
                name=self.name(other),
                npv=self.money(on(other.values)),
                diff=self.money(on(other.values) - npv)))
        elif said.mode != modes.RENT:
            cloud = rec.values.get("cloud_npv")  # before tax: compared before tax
            if other is not None and on(other.values) >= npv:
                consider.append(s.segments(
                    "sum_rent_dearer", name=self.name(other),
                    npv=self.money(on(other.values)),
                    diff=self.money(on(other.values) - npv)))
            elif cloud is not None and math.isfinite(cloud):
                if cloud >= rec.values["npv_tco"]:
                    consider.append(s.segments("sum_cloud_dearer", cloud=self.money(cloud)))
                else:  # only when no option renting the card is listed (rent_options: none)
                    consider.append(s.segments(
                        "sum_cloud_unlisted_lease" if said.mode == modes.LEASE else
                        "sum_cloud_unlisted", cloud=self.money(cloud)))
            elif other is None:  # no cloud price for the card: renting is not compared
                consider.append(s.segments("sum_cloud_none", card=self.s.catalog(rec.info.card_name),
                                           currency=self.cur))
        alt = said.lease_or_buy  # bought: the cheapest lease; leased: the cheapest purchase
        if alt is not None:
            consider.append(s.segments(
                "sum_lease_dearer" if alt.info.acquire == modes.LEASE else "sum_buy_dearer",
                name=self.name(alt), npv=self.money(on(alt.values)),
                diff=self.money(on(alt.values) - npv)))
        mc = self.r.analyses.get("montecarlo")
        if isinstance(mc, MonteCarlo) and rec.id in mc.prob_cheapest:
            consider.append(s.segments("sum_mc_after_tax" if mc.basis == "after_tax"
                                       else "sum_mc", draws=number(mc.draws, 0),
                                       p=percent(mc.prob_cheapest[rec.id], 0)))
        return consider

    def field_cell(self, c: CandidateResult, f: Field) -> Cell:
        """A figure of the output fields' registry (tco.exporters.fields) for option `c`:
        its value, written as its unit says (Field.form), where the live page finds it."""
        x = c.jobs[c.primary_workload][f.quantity] if f.scope in ("primary", "workload") \
            else c.values[f.quantity]
        kind = REPORT_FORMS[f.form]
        return Cell(self.fmt(kind, x), full(x), f.quantity,
                    q=self.at[f.quantity_of(c.id, c.primary_workload)], f=kind)

    def comparison(self) -> dict[str, Any]:
        s = self.s
        figures = [field(k) for k in COMPARISON]  # the registry's comparison, in order
        columns = [s("col_rank"), s("col_candidate"), s("col_cards"),
                   *(s(f.label) for f in figures), s("col_status")]
        rows = []
        serve = serve_first(self)
        for rank, c in enumerate(self.r.candidates, start=1):
            cards = c.inputs["cards"]
            cells = [Cell(number(cards, 0), full(cards), "cards")]
            if serve:  # a plan that serves first: no training run's cost and time
                serve_cols, serve_cells = serve_comparison(self, c, serve)
                columns[3], columns[5] = serve_cols
                npv, per_hour = figures[1], figures[3]
                price = (self.field_cell(c, npv), self.field_cell(c, per_hour)) if c.priced \
                    else tuple(Cell(s("not_priced"), "", f.quantity, "num na")
                               for f in (npv, per_hour))
                cells += [serve_cells[0], price[0], serve_cells[1], price[1]]
            elif c.priced:
                cells += [self.field_cell(c, f) for f in figures]
            else:
                cells += [Cell(s("not_priced"), "", f.quantity, "num na") for f in figures]
            if not c.feasible:
                status, text = "infeasible", s("status_infeasible")
            elif c.info.blocking:
                status, text = "incomplete", s("status_barred")
            elif c.info.workloads:  # a part of the plan: it cannot deliver the whole
                status = "incomplete"
                text = s("status_part", workloads=s("name_sep").join(c.info.workloads))
            elif not is_complete(c):
                status = "incomplete"
                text = s("status_incomplete", pct=percent(c.values["plan_delivered_fraction"], 0))
            else:
                status, text = "ok", s("status_ok")
            rows.append(Row(rank, c.id, self.name(c), c is self.rec, status, text, cells,
                            [s.message(x) for x in c.reasons]))
        return {"columns": columns, "rows": rows}

    # --- charts --------------------------------------------------------------------------------
    def charts(self) -> list[Chart]:
        from markupsafe import Markup

        s, lang = self.s, self.lang
        ranked = [c for c in self.r.candidates if c.priced]
        if not ranked:
            return []
        priced = ranked[:CHART_CANDIDATES]
        more = "" if len(priced) == len(ranked) else s(
            "cap_top", shown=number(len(priced), 0), total=number(len(ranked), 0))
        if more and self.lang != "zh":
            more = " " + more
        out = [self.cost_chart(w, priced, more, n)
               for n, w in enumerate(training_workloads(self.r))]

        years = [int(y["year"]) for y in priced[0].yearly]
        series = [charts.Series(self.name(c), [y["cumulative"] for y in c.yearly], c is self.rec)
                  for c in priced]
        title = s("h_cashflow")
        svg = charts.cumulative_lines(years, series, s("chart_cash_axis", currency=self.cur),
                                      s("chart_year_axis"),
                                      self.axis([v for x in series for v in x.values]), lang,
                                      title)
        out.append(Chart("chart-cashflow", title, s("cap_cashflow") + more, Markup(svg)))

        out += [self.time_chart(w, priced, more, n) for n, w in enumerate(training_workloads(self.r))]

        sens = self.r.analyses.get("sensitivity")
        if isinstance(sens, Sensitivity):
            chart = self.tornado(sens)
            if chart is not None:
                out.append(chart)
        mc = self.r.analyses.get("montecarlo")
        if isinstance(mc, MonteCarlo) and mc.percentiles:
            out.append(self.montecarlo(mc))
        return out

    def carriers(self, w: Workload, priced: list[CandidateResult]
                 ) -> tuple[list[CandidateResult], list[str], int | None]:
        """The drawn options that carry workload `w`, their names and the highlighted one."""
        sub = [c for c in priced if c.info.carries(w.id)]
        return sub, [self.name(c) for c in sub], next(
            (i for i, c in enumerate(sub) if c is self.rec), None)

    def cost_chart(self, w: Workload, priced: list[CandidateResult], more: str,
                   n: int) -> Chart:
        """Cost per run of workload `w` by component; `chart-cost` for the first workload,
        `chart-cost-<n+1>` for the others."""
        from markupsafe import Markup

        s = self.s
        priced, names, hl = self.carriers(w, priced)
        jobs = [c.jobs[w.id] for c in priced]
        parts = [charts.Series(self.job_component(k), [j[f"cost_{k}"] for j in jobs])
                 for k in self.r.job_components]
        title = s("h_cost_per_job") + ("" if n == 0 else s("title_workload", name=w.name))
        totals = [j["cost_per_job"] for j in jobs]
        svg = charts.stacked_bars(names, parts, totals,
                                  s("chart_cost_axis", currency=self.cur), self.axis(totals), hl,
                                  self.lang, title)
        return Chart("chart-cost" + ("" if n == 0 else f"-{n + 1}"), title,
                     s("cap_cost_per_job", workload=w.name) + more, Markup(svg),
                     warnings=report_workloads.moe_warning(self, w))

    def time_chart(self, w: Workload, priced: list[CandidateResult], more: str,
                   n: int) -> Chart:
        from markupsafe import Markup

        s = self.s
        priced, names, hl = self.carriers(w, priced)
        days = [c.jobs[w.id]["wall_days"] for c in priced]
        title = s("h_time") + ("" if n == 0 else s("title_workload", name=w.name))
        svg = charts.bars(names, days, [self.days(d) for d in days], s("chart_days_axis"), hl,
                          self.lang, title)
        return Chart("chart-time" + ("" if n == 0 else f"-{n + 1}"), title,
                     s("cap_time", workload=w.name) + more, Markup(svg),
                     warnings=report_workloads.moe_warning(self, w))

    def tornado(self, sens: Sensitivity) -> Chart | None:
        from markupsafe import Markup

        s = self.s
        order = [c for c in self.r.candidates if sens.bars.get(c.id)]
        if not order:
            return None
        c = self.rec if self.rec is not None and self.rec in order else order[0]
        bars = sens.bars[c.id][:TORNADO_BARS]
        base = sens.baseline[c.id]
        name = self.name(c)
        if self.plan is not None and sens.plan_bars and sens.plan_baseline is not None:
            # the plan recommended: its tornado, the plan held fixed and re-costed
            bars, base, name = sens.plan_bars[:TORNADO_BARS], sens.plan_baseline, \
                s("tornado_plan")
        metric = s(f"metric_{sens.metric}") if f"metric_{sens.metric}" in s.all_text() \
            else sens.metric
        title = s("h_tornado")
        svg = charts.tornado(
            [s.input_label(b.path, b.label) for b in bars], [b.metric_low for b in bars],
            [b.metric_high for b in bars], base,
            s("chart_tornado_axis", metric=metric, name=name, currency=self.cur),
            (s("chart_tornado_low"), s("chart_tornado_high")),
            self.axis([base] + [b.metric_low for b in bars] + [b.metric_high for b in bars]),
            self.lang, title)
        if sens.mode == "swing" and sens.swing is not None:
            caption = s("cap_tornado_swing", name=name, swing=percent(sens.swing, 0),
                        metric=metric, base=self.money(base))
        else:
            caption = s("cap_tornado_range", name=name, metric=metric,
                        base=self.money(base))
        if name == s("tornado_plan"):
            caption += " " + s("cap_tornado_plan")
        return Chart("chart-tornado", title, caption, Markup(svg))

    def montecarlo(self, mc: MonteCarlo) -> Chart:
        from markupsafe import Markup

        s = self.s
        order = [c for c in self.r.candidates if c.id in mc.percentiles]
        with_samples = [c for c in order if c.id in mc.samples and len(mc.samples[c.id])]
        title = s("h_montecarlo")
        axis = s("chart_mc_axis", currency=self.cur)
        if with_samples:
            series = [charts.Series(self.name(c), mc.samples[c.id], c is self.rec)
                      for c in with_samples[:MC_SERIES]]
            top = [float(np.nanmax(np.abs(x.values))) for x in series if len(x.values)]
            svg = charts.distributions(series, axis, s("chart_mc_count"), self.axis(top),
                                       self.lang, title)
        else:
            npv = [mc.percentiles[c.id]["npv_tco"] for c in order]
            hl = next((i for i, c in enumerate(order) if c is self.rec), None)
            svg = charts.intervals([self.name(c) for c in order], [p["p10"] for p in npv],
                                   [p["p50"] for p in npv], [p["p90"] for p in npv], axis,
                                   self.axis([p["p90"] for p in npv] + [p["p10"] for p in npv]),
                                   hl, self.lang, title)
        rows = []
        for c in order:
            p = mc.percentiles[c.id]["npv_tco"]
            cheapest = mc.prob_cheapest.get(c.id, 0.0)
            rows.append({"name": self.name(c), "id": c.id, "recommended": c is self.rec,
                         "cells": [Cell(self.money(p[k]), full(p[k]), f"npv_{k}")
                                   for k in ("p10", "p50", "p90")]
                         + [Cell(percent(cheapest, 0), full(cheapest), "prob_cheapest")]})
        band = mc.plan
        if band is not None:  # the plan held fixed, re-costed in every draw: the first row
            p = band.npv_tco
            rows.insert(0, {"name": s("mc_plan_row"), "id": band.id,
                            "recommended": self.plan is not None,
                            "cells": [Cell(self.money(p[k]), full(p[k]), f"npv_{k}")
                                      for k in ("p10", "p50", "p90")]
                            + [Cell(percent(band.cheaper_share, 0), full(band.cheaper_share),
                                    "prob_cheapest")]})
        table = {"columns": [s("col_candidate"), s("col_p10"), s("col_p50"), s("col_p90"),
                             s("col_prob_cheapest")], "rows": rows}
        caption = s("cap_montecarlo", draws=number(mc.draws, 0), varied=len(mc.varied),
                    seed=mc.seed)
        if mc.basis == "after_tax":
            caption += " " + s("mc_after_tax")
        if band is not None:
            caption += " " + s("mc_plan", p10=self.money(band.npv_tco["p10"]),
                               p90=self.money(band.npv_tco["p90"]),
                               share=percent(band.cheaper_share, 0))
        short = [s("mc_short_item", name=self.name(c), share=percent(mc.short_share[c.id], 0))
                 for c in order if mc.short_share.get(c.id, 0) > 0]
        if short:
            caption += " " + s("mc_short", list=("；" if self.lang == "zh" else "; ").join(short))
        return Chart("chart-montecarlo", title, caption, Markup(svg), table,
                     [self.draw_warning(w) for w in mc.warnings]
                     + [self.point_outside(o) for o in mc.outside])

    def input_unit(self, path: str) -> str:
        """An input's unit after a number, in the report's language ("" for a fraction)."""
        unit = self.r.inputs[path].spec.unit
        return "" if unit in ("fraction", "ratio") else " " + self.s.unit(unit, self.cur)

    def point_outside(self, o: PointOutside) -> str:
        """A point estimate outside its own P10-P90 band, and the skewed inputs (skew.py)."""
        s = self.s
        show: Callable[[float], str] = self.money
        if o.metric == "cost_per_million_output_tokens":
            show = lambda x: per_million(x, self.cur)
        metric = s(f"metric_{o.metric}") if f"metric_{o.metric}" in s.all_text() else o.metric
        if o.skewed:
            where = "above" if o.side == "below" else "below"
            join = "；" if self.lang == "zh" else "; "
            why = s("mc_outside_skewed", where=s(f"mc_outside_where_{where}"), inputs=join.join(
                s("mc_outside_input", label=s.input_label(k.path, k.path), value=f"{k.value:.4g}",
                  median=f"{k.median:.4g}", low=f"{k.low:.4g}", high=f"{k.high:.4g}",
                  unit=self.input_unit(k.path),
                  effect=("+" if k.effect >= 0 else "-") + show(abs(k.effect)))
                for k in o.skewed))
        else:
            why = s("mc_outside_joint")
        name = next((self.name(c) for c in self.r.candidates if c.id == o.candidate), o.candidate)
        return s("mc_outside", name=name, metric=metric, point=show(o.point),
                 side=s(f"mc_outside_{o.side}"),
                 edge=show(o.p10 if o.side == "below" else o.p90), why=why)

    def draw_warning(self, w: DrawWarning) -> str:
        s = self.s
        if w.kind == "unused":
            return s("mc_warn_unused", path=w.path)
        unit = "" if w.unit in ("", "fraction") else f" {w.unit}"
        share = "100%" if share_text(w.share) == "all" else share_text(w.share)
        return s("mc_warn_clipped", path=w.path, dist=s(f"dist_{w.dist}"), low=f"{w.low:g}",
                 high=f"{w.high:g}", lo=f"{w.clip_low:g}", hi=f"{w.clip_high:g}", unit=unit,
                 share=share)

    # --- per candidate ------------------------------------------------------------------------
    def run_rows(self, c: CandidateResult) -> list[tuple[str, Any]]:
        """A training option's cluster and run: cards, power, time, utilization, layout,
        memory, energy (each figure live in the page)."""
        s, v, job = self.s, c.values, c.job
        cid, w = c.id, f"{c.id}.{c.primary_workload}"
        return [
            (s("d_cards"), self.live_text("d_cards_value", {
                "spares": ("num0", f"{cid}.spare_cards", v["spare_cards"])},
                cards=number(c.inputs["cards"], 0))),
            (s("d_nodes"), self.live("num0", f"{cid}.nodes", v["nodes"])),
            (s("d_it_power"), self.live("kw", f"{cid}.it_capacity_kw", v["it_capacity_kw"])),
            (s("d_wall"), self.live("days", f"{w}.wall_days", job["wall_days"])),
            (s("d_gpu_hours"), self.live("num0", f"{w}.gpu_hours", job["gpu_hours"])),
            (s("d_mfu"), self.live("pct1", f"{w}.mfu_effective", job["mfu_effective"])),
            (s("d_layout"), s("value_layout", tp=number(job["tensor_parallel"], 0),
                              pp=number(job["pipeline_parallel"], 0),
                              vp=number(job["virtual_stages"], 0),
                              cp=number(job["context_parallel"], 0),
                              ep=number(job["expert_parallel"], 0),
                              dp=number(job["data_parallel"], 0),
                              rc=layout_suffix(s, job))),
            (s("d_scaling"), self.live("pct1", f"{w}.scaling_efficiency",
                                       job["scaling_efficiency"])),
            (s("d_goodput"), self.live("pct1", f"{w}.goodput", job["goodput"])),
            (s("d_memory"), self.live_text("value_gb", {
                "need": ("num1", f"{w}.memory_needed_gb", job["memory_needed_gb"]),
                "usable": ("num1", f"{w}.memory_usable_gb", job["memory_usable_gb"])})),
            (s("d_energy"), self.live("mwh", f"{w}.energy_facility_kwh",
                                      job["energy_facility_kwh"])),
            (s("d_co2"), self.live("tco2", f"{w}.co2e_kg", job["co2e_kg"])),
        ]

    def detail(self, c: CandidateResult) -> dict[str, Any]:
        s, v, job, info = self.s, c.values, c.job, c.info
        cid, w = c.id, f"{c.id}.{c.primary_workload}"
        spec = [
            (s("d_card"), s.catalog(info.card_name)),
            (s("d_platform"), s.catalog(info.platform_name)),
            (s("d_stack"), s.catalog(info.stack_name)),
            (s("d_cooling"), s.cooling(info.cooling)),
        ]
        run = self.run_rows(c) if "mfu_effective" in job else serve_detail_rows(self, c)
        run += intervals.report_rows(self, c)
        money_rows = [("d_capex", "capex_total"), ("d_npv", "npv_tco"),
                      ("d_undiscounted", "undiscounted_tco"),
                      ("d_eac", "equivalent_annual_cost"), ("d_gpu_hour", "cost_per_gpu_hour"),
                      ("d_pflop_hour", "cost_per_pflop_hour")]
        costs = [(s(label), self.live("money", f"{cid}.{key}", v[key]))
                 for label, key in money_rows]
        serving = "mfu_effective" not in job  # its first workload serves: a year is its run
        costs += [
            (s("d_per_mtok_serve" if serving else "d_per_mtok"),
             self.live("money", f"{w}.cost_per_million_tokens", job["cost_per_million_tokens"])),
            (s("d_runs_serve" if serving else "d_runs"),
             self.live("num1", f"{cid}.runs_over_horizon", v["runs_over_horizon"])),
        ]
        if v.get("capex_vat"):  # its own line, after the capex net of VAT
            costs.insert(1, (s("d_vat"), self.live_text("value_vat", {
                "vat": ("money", f"{cid}.capex_vat", v["capex_vat"]),
                "recovered": ("money", f"{cid}.capex_vat_recovered",
                              v["capex_vat_recovered"])})))
        costs[1:1] = self.lease_rows(c)
        if "cloud_npv" in v:
            costs.append((s("d_cloud"), self.live("money", f"{cid}.cloud_npv", v["cloud_npv"])))
            costs.append((s("d_breakeven_lease" if c.info.acquire == modes.LEASE else "d_breakeven"),
                          self.live("breakeven", f"{cid}.breakeven_utilization",
                                    v["breakeven_utilization"])))
        per_run = [(self.job_component(k), self.live("money", f"{w}.cost_{k}", job[f"cost_{k}"]))
                   for k in self.r.job_components]
        per_run.append((s("col_total"), self.live("money", f"{w}.cost_per_job",
                                                  job["cost_per_job"])))
        years = [s("col_year", n=int(y["year"])) for y in c.yearly]
        flows = [{"label": s.component(k),
                  "cells": [self.live("amount", f"{cid}.y{t}.{k}", y[k])
                            for t, y in enumerate(c.yearly)]}
                 for k in self.r.components if any(y[k] != 0 for y in c.yearly)]
        flows.append({"label": s("d_net"),
                      "cells": [self.live("amount", f"{cid}.y{t}.net", y["net"])
                                for t, y in enumerate(c.yearly)], "total": True})
        return {
            "id": c.id, "name": self.name(c), "recommended": c is self.rec,
            "spec": spec,
            "groups": [(s("d_performance"), run), (s("d_costs"), costs)],
            "per_run": per_run, "shortfall": shortfall.detail_table(self, c),
            "per_run_title": s("d_cost_per_year_serving" if serving else "d_cost_per_run"),
            "years": years, "flows": flows,
            "workloads": report_workloads.detail_rows(self, c),
            "notes": [s.message(n) for n in c.notes],
            "reasons": [s.message(n) for n in c.reasons],
        }

    # --- inputs, method, caveats ------------------------------------------------------------------
    def input_row(self, inp: Input) -> dict[str, str]:
        return {"label": self.s.input_label(inp.path, inp.label), "path": inp.path,
                "value": self.input_value(inp), "unit": self.s.unit(inp.spec.unit, self.cur),
                "source": self.s.message(inp.source), "as_of": inp.as_of}

    def input_value(self, inp: Input) -> str:
        x = inp.value
        if inp.spec.fraction:
            return percent(x, 2).replace(".00%", "%")
        if self.lang == "zh" and not inp.spec.money and 1e4 <= abs(x) < 1e16:
            return self.count(x)  # as a Chinese reader says it: 340亿, 1万亿
        text = plain(x)
        return money_prefix(self.cur) + text if inp.spec.money else text

    def detailed(self) -> list[CandidateResult]:
        """The priced options the report details."""
        ids = self.detail_ids
        return [c for c in self.r.candidates if c.priced and (ids is None or c.id in ids)]

    def omitted_note(self) -> str:
        """What the details and assumptions leave out, and where it is; '' when nothing."""
        if self.detail_ids is None:
            return ""
        shown = len(self.detailed())
        priced = sum(1 for c in self.r.candidates if c.priced)
        return self.s("details_omitted", shown=shown, omitted=priced - shown)

    def assumptions(self) -> dict[str, Any]:
        # a generated rent option reads its source's inputs: they are listed there, once; in a
        # long static report (detail_ids) only the detailed options' inputs are listed
        listed = [c for c in self.r.candidates if not c.info.inputs_of]
        if self.detail_ids is not None:
            ids = {c.info.inputs_of or c.id for c in self.detailed()}
            listed = [c for c in listed if c.id in ids]
        per: dict[str, list[dict[str, str]]] = {c.id: [] for c in listed}
        shared: list[dict[str, str]] = []
        for path, inp in self.r.inputs.items():
            if path.startswith("candidates."):
                cid = path.removeprefix("candidates.").rsplit(".", 1)[0]  # ids may have dots
                if cid in per:
                    per[cid].append(self.input_row(inp))
            else:
                shared.append(self.input_row(inp))
        groups = [{"name": self.name(c), "id": c.id, "rows": per[c.id]} for c in listed]
        estimates = sum(1 for i in self.r.inputs.values() if i.source.startswith("estimate"))
        intro = self.s("assumptions_intro", estimates=estimates, total=len(self.r.inputs))
        return {"intro": intro, "shared": shared, "candidates": groups,
                "omitted": self.omitted_note()}

    def methodology(self) -> list[str]:
        s, inputs = self.s, self.r.inputs
        years = self.r.structure.horizon_years
        modes = {c.info.acquire for c in self.r.candidates} | ({"api"} if self.r.api_options
                                                               else set())
        buy = "meth_buy_financed" if self.r.scenario.finance.purchase == "finance" else "meth_buy"
        # a sentence for each way of getting the capacity that an option here uses (a hybrid
        # buys as a bought option does, and rents the rest)
        keys = ([buy] if modes & {"buy", "hybrid"} else []) + [
            key for mode, key in (("hybrid", "meth_hybrid"), ("lease", "meth_lease"),
                                  ("rent", "meth_rent"), ("api", "meth_api")) if mode in modes]
        out = [s(key, years=years) for key in keys]
        out += [
            fig(s("meth_2", rate=percent(inputs["finance.discount_rate"].value, 1)),
                self.at["finance.discount_rate"], "meth_2"),
            s("meth_3", flops=plain(inputs["assumptions.flops_per_param_token"].value)),
            s("meth_4"),
        ]
        sens = self.r.analyses.get("sensitivity")
        if isinstance(sens, Sensitivity):
            key = f"metric_{sens.metric}"
            metric = s(key) if key in s.all_text() else sens.metric
            if sens.mode == "swing" and sens.swing is not None:
                out.append(s("meth_sensitivity_swing", swing=percent(sens.swing, 0),
                             metric=metric))
            else:
                out.append(s("meth_sensitivity_range", metric=metric))
        mc = self.r.analyses.get("montecarlo")
        if isinstance(mc, MonteCarlo):
            out.append(s("meth_montecarlo", draws=number(mc.draws, 0), seed=mc.seed))
        out.append(s("meth_5"))
        return out

    def caveats(self) -> list[str]:
        s = self.s
        return [s("cav_prices"), s("cav_throughput"), *report_workloads.caveats(self),
                s("cav_risks"), s("cav_currency", currency=self.cur), s("cav_sources")]


def _pairs(cells: list[list[Any]], rows: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """(label, figure) rows with their figures replaced by `cells` (one a row)."""
    return [(label, new[0]) for (label, _), new in zip(rows, cells)]


def money_prefix(currency: str) -> str:
    from .fmt import SYMBOLS

    return SYMBOLS.get(currency, currency + " ")


def build_view(result: Result, lang: str, report_date: dt.date) -> dict[str, Any]:
    return View(result, lang, report_date).build()


def layout_suffix(s: Any, job: Mapping[str, Any]) -> str:
    """What follows the degrees in the report's layout row: recomputation, the sharding
    (ZeRO-3, ZeRO-2, HSDP) and the cards whole replicas leave idle."""
    return ((s("value_recompute") if job["activation_recompute"] else "")
            + (s("value_zero3") if job.get("parameter_sharding") else "")
            + (s("value_zero2") if job.get("gradient_sharding") else "")
            + (s("value_hsdp") if job.get("hybrid_sharding") else "")
            + (s("value_idle", n=number(job["idle_cards"], 0)) if job.get("idle_cards") else ""))
