"""The report as a live model (issue 16): what the page needs to recompute itself in the browser.

The HTML report carries

* the model, written as JavaScript from its expression trees (tco/expr/javascript.py): one
  function that fills an array of numbers, inputs first, then every quantity in model order.
  Each value is addressed by its index (`v[12]`), so no name, id or other text from the
  scenario ever becomes code;
* a panel of the inputs that matter most (`panel_paths`): card prices, lead times, cloud prices,
  the electricity tariff, utilization and the discount rate, and the inputs the sensitivity
  ranking puts first. Only inputs that leave every discrete choice as the author's report made
  it (cluster sizes, layouts, the set of options) are offered, so the page's arithmetic is the
  engine's for any value the panel accepts: `tco whatif --set` with the same values gives the
  same numbers (tests/test_report_live.py checks that in Chromium);
* everything else as data (`payload`): the inputs' baseline values and plausible ranges, the
  message the CLI gives for a value outside them (made by running the CLI's own check on a
  sentinel value, never typed twice), the option's names and fixed facts, and the words of the
  summary. Data goes into a `<script type="application/json">` element, escaped so that no
  text in it can end the element (`script_json`).

The page's own code (templates/report_live.js) is the same for every report; the Content-
Security-Policy lets the page run exactly these two scripts, by their SHA-256 (`csp_hash`).
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from .. import twins
from ..errors import TcoError
from ..expr.javascript import program
from ..numtext import NUMBER

if TYPE_CHECKING:
    from ..result import Result
    from .i18n import Strings

# The inputs a reader most often asks about (issue 16); the sensitivity ranking adds others.
FAMILIES = ("card_price", "cloud_price_per_card_hour", "on_demand_price_per_card_hour",
            "lead_time_weeks",
            "electricity_price_per_kwh", "utilization", "discount_rate")
SENSITIVE_EXTRA = 4  # inputs outside FAMILIES the sensitivity ranking may add
# The largest model a report carries live (the example has about 3,700 quantities, some 260 an
# option): the page's script grows with it, and a report of hundreds of options stays static.
MAX_QUANTITIES = 20_000


def carried_live(result: Result) -> bool:
    """Whether the page's script recomputes everything the report shows for this plan: every
    plan (serving, several workloads, options carrying part of it, portfolios, per-token APIs),
    unless its model is too large to carry (MAX_QUANTITIES); that report stays a static
    document (docs/report.md)."""
    return len(result.model.quantities) <= MAX_QUANTITIES and bool(result.candidates)


def plan_quantities(result: Result) -> list[Any]:
    """The money of every plan the planner solved (tco.model.plan.plan_money: the cheapest
    and those held to one option), which the page re-costs with the options: each plan's
    quantities, read from its fixed decisions (`plan_constants`) and the model's."""
    if not carried_live(result):
        return []
    return [q for p in result.plans if p.model is not None for q in p.model.quantities]


def plan_constants(result: Result) -> dict[str, float]:
    """Each plan's decisions (what it buys, leases, rents and calls in each period, the
    planner's answer at the scenario's values): fixed on the page, written into its script
    as numbers."""
    from ..plan import decisions

    out: dict[str, float] = {}
    for p in result.plans:
        if p.model is not None:
            out.update(decisions(p, result))
    return out


SENTINEL_TEXT = "987654321e100"  # a value outside every plausible range, easy to find again
# The words the page's summary, status pills, charts and panel need (templates/strings.yaml).
TEXT_KEYS = (
    "sum_recommend", "sum_recommend_rent", "sum_recommend_hybrid", "sum_recommend_lease",
    "pricing_committed",
    "pricing_on_demand", "sum_npv_lowest", "sum_npv_only", "sum_npv_incomplete", "sum_barred",
    "sum_job_lowest", "sum_job_not_lowest", "sum_time_fastest", "sum_time", "sum_no_flags",
    "sum_flags", "sum_incomplete", "sum_infeasible", "sum_none", "sum_none_barred", "list_sep",
    "sum_buy_dearer", "sum_lease_dearer", "sum_hybrid_dearer", "sum_rent_dearer", "sum_cloud_dearer",
    "sum_cloud_unlisted", "sum_cloud_unlisted_lease", "sum_cloud_none",
    "name_sep", "years", "days", "status_ok", "status_incomplete", "status_infeasible",
    "status_barred", "badge_recommended", "badge_best_option", "live_plan_stale", "live_plan_kept",
    "live_plan_stale_after_tax", "live_plan_kept_after_tax",
    "plan_row_only", "value_kw", "value_mwh", "value_t_co2",
    "breakeven_never", "breakeven_any", "chart_cost_axis", "chart_cash_axis", "chart_year_axis",
    "chart_days_axis", "meth_2", "d_notes", "live_changed", "live_unchanged", "live_static_chart",
    "status_part", "sum_none_part", "sum_shortfall_close", "sum_shortfall_buy_instead",
    "sum_shortfall_close_buy", "sum_recommend_portfolio", "sum_portfolio_cheaper",
    "sum_portfolio_only", "sum_portfolio_api_member", "sum_portfolio_member", "sum_recommend_api",
    "sum_api_cheaper", "sum_api_only", "sum_api_prices", "serve_api_name", "h_serve_chart",
    "serve_chart_axis",
)


@dataclass(frozen=True)
class Slots:
    """Where each input and quantity lives in the page's array of values."""

    inputs: list[str]  # input paths, first
    index: dict[str, int]  # input path or quantity name -> position

    def __getitem__(self, name: str) -> int:
        return self.index[name]


def slots(result: Result) -> Slots:
    inputs = list(result.inputs)
    index = {p: i for i, p in enumerate(inputs)}
    for q in result.model:
        index[q.name] = len(index)
    for q in plan_quantities(result):
        index[q.name] = len(index)
    return Slots(inputs, index)


def choice_script() -> str:
    """tco.recommend.CHOICE as `function choose(n)`: which kind of recommendation wins, from
    the NPVs `n.single`, `n.portfolio`, `n.api` (Infinity for none). Generated from the tree
    the engine decides with, so the page holds no copy of the rule."""
    from ..decide.rules import CHOICE
    from ..expr.javascript import javascript

    return f"function choose(n) {{\n  return {javascript(CHOICE, lambda name: f'n.{name}')};\n}}\n"


# where the page finds the model quantities the rules read (an entry's `q`)
RULE_QUANTITIES = {"tier": "tier", "plan_delivered_fraction": "delivered"}


def rules_script() -> str:
    """tco.decide.rules.RULES as `const RULE`, one function `(x, v) -> boolean` per rule: `x`
    an option, portfolio or API of the page (its FACTS in `x.f`, where its quantities are in
    `x.q`), `v` the model's values. Generated from the trees the engine decides with, so the
    page holds no copy of a rule; a quantity the entry has no place for (an unpriced option)
    reads NaN, and a comparison with NaN is false."""
    from ..decide.rules import FACTS, QUANTITIES, RULES
    from ..expr.javascript import javascript

    def ref(name: str) -> str:
        if name in FACTS:
            return f"x.f.{name}"
        assert name in QUANTITIES, name
        key = RULE_QUANTITIES[name]
        return f"(x.q && x.q.{key} !== undefined ? v[x.q.{key}] : NaN)"

    body = "".join(f"  {name}: (x, v) => {javascript(tree, ref)} !== 0,\n"
                   for name, tree in RULES.items())
    return f"const RULE = {{\n{body}}};\n"


def model_script(result: Result, at: Slots) -> str:
    """The model as JavaScript: `evaluate(v)` over a Float64Array, names replaced by indices
    (the plans' fixed decisions by their numbers, plan_constants), the plans' money after
    the model's quantities, the recommendation's choice (`choose`, choice_script) and the
    decision's rules (`RULE`, rules_script). Built from the trees' node types, numbers and
    indices only; checked to hold nothing that could end or comment out the <script> element
    it goes into."""
    fixed = plan_constants(result)

    def ref(name: str) -> str:
        if name in fixed:
            return _number(fixed[name])
        return f"v[{at[name]}]"

    quantities = [*result.model.quantities, *plan_quantities(result)]
    code = program(((q.name, q.expr) for q in quantities), ref=ref)
    code += choice_script() + rules_script()
    lowered = code.lower()
    if "</script" in lowered or "<!--" in lowered or "-->" in lowered:
        raise AssertionError("the generated model cannot go into a <script> element")
    return code


def fixed_inputs(result: Result) -> set[str]:
    """Inputs the page must not change: what sizes a cluster or chooses a layout (a what-if
    of one makes the engine choose again), what resolve derives other inputs from, and the
    structural ones (the horizon)."""
    from ..engine import sizing_inputs
    from ..resolved import _derives

    resolved = result.resolved
    if resolved is None:  # a result without its resolve: offer nothing rather than guess
        return set(result.inputs)
    out: set[str] = set()
    for cid in resolved.sized:
        out |= sizing_inputs(result.model, resolved, cid)
    out |= {p for p, inp in resolved.inputs.items() if _derives(resolved, p, inp)}
    return out


def panel_paths(result: Result) -> list[str]:
    """The inputs of the panel: every eligible input of FAMILIES, then up to SENSITIVE_EXTRA
    others the sensitivity ranking moves most; shared inputs first, then by candidate in
    ranking order, each group by effect on the metric (largest first)."""
    from ..analysis.types import Sensitivity

    fixed = fixed_inputs(result) | result.model.inputs_feeding(
        [f"{cid}.feasible" for cid in result.structure.candidates])
    read = set(twins.inputs_used(result.model))  # from the twins' templates: fast
    eligible = [p for p, inp in result.inputs.items()
                if p in read and p not in fixed and not inp.spec.integer]
    effect: dict[str, float] = {}
    sens = result.analyses.get("sensitivity")
    if isinstance(sens, Sensitivity):
        for bars in sens.bars.values():
            for b in bars:
                effect[b.path] = max(effect.get(b.path, 0.0), b.effect)
    family = [p for p in eligible if p.rsplit(".", 1)[-1] in FAMILIES]
    extra = sorted((p for p in eligible if p not in family and effect.get(p, 0) > 0),
                   key=lambda p: -effect[p])[:SENSITIVE_EXTRA]
    chosen = set(family) | set(extra)
    order = {c.id: i for i, c in enumerate(result.candidates)}

    def group(p: str) -> int:
        if not p.startswith("candidates."):
            return -1
        owners = [i for cid, i in order.items() if p.startswith(f"candidates.{cid}.")
                  and "." not in p.removeprefix(f"candidates.{cid}.")]
        return min(owners) if owners else len(order)

    position = {p: i for i, p in enumerate(result.inputs)}
    return sorted(chosen, key=lambda p: (group(p), -effect.get(p, 0.0), position[p]))


def cli_message(result: Result, path: str, text: str) -> str:
    """What `tco whatif --set PATH=TEXT` prints for this report's scenario when it fails."""
    from ..analysis.whatif import whatif_from

    def recompute(values: Any, label: str) -> Result:
        raise AssertionError("a panel input is set without resolving again")

    try:
        whatif_from(result, [f"{path}={text}"], recompute)
    except TcoError as exc:
        return f"tco: error: {exc.render()}"
    raise AssertionError(f"{path}={text} was accepted")


def refusal_template(result: Result, path: str) -> str:
    """The CLI's message for an out-of-range value of `path`, with `{text}` (as typed) and
    `{value}` (formatted as Python's `:g`) where the value goes."""
    shown = f"{float(SENTINEL_TEXT):g}"
    msg = cli_message(result, path, SENTINEL_TEXT)
    if msg.count(SENTINEL_TEXT) != 1 or msg.count(shown) != 1:
        raise AssertionError(f"cannot find the value in the message for {path}: {msg}")
    return (msg.replace("{", "{{").replace("}", "}}").replace(SENTINEL_TEXT, "{text}")
            .replace(shown, "{value}"))


def parse_template(result: Result, path: str) -> str:
    """The CLI's message for a value that is not a number, with `{text}` where it goes."""
    word = "QQQ"
    msg = cli_message(result, path, word)
    return msg.replace("{", "{{").replace("}", "}}").replace(word, "{text}")


def plus_template(result: Result, path: str) -> str:
    """The CLI's message for '+N' (it would set N, not add it), with `{n}` where N goes."""
    word = "12345"
    msg = cli_message(result, path, "+" + word)
    return msg.replace("{", "{{").replace("}", "}}").replace(word, "{n}")


def panel(result: Result, s: Strings, at: Slots) -> list[dict[str, Any]]:
    from ..analysis.common import plausible_range

    out = []
    names = {c.id: s.message(c.info.name) for c in result.candidates}  # in the page's language
    for path in panel_paths(result):
        inp = result.inputs[path]
        lo, hi = plausible_range(inp, result)
        owner = ""
        if path.startswith("candidates."):
            owner = next((n for cid, n in names.items()
                          if path == f"candidates.{cid}.{path.rsplit('.', 1)[-1]}"), "")
        out.append({
            "path": path, "at": at[path], "base": inp.value, "text": exact_text(inp.value),
            "label": s.input_label(path, inp.label), "owner": owner,
            "unit": s.unit(inp.spec.unit, result.currency), "lo": lo, "hi": hi,
            "range": f"{bound_text(lo)} – {bound_text(hi)}",
            "refuse": refusal_template(result, path),
            "unparsed": parse_template(result, path),
            "plus": plus_template(result, path),
        })
    return out


def exact_text(x: float) -> str:
    """The value as the panel's field shows it: a plain decimal (15000, 0.0826, 125000) of
    at most 12 significant digits, never an exponent, so that a value a conversion left as
    125000.00000000001 reads 125000. The field keeps the exact value while its text is this
    one (templates/report_live.js); a value typed is taken as typed."""
    if not math.isfinite(x):
        return repr(x)
    text = format(Decimal(f"{x:.12g}"), "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def bound_text(x: float) -> str:
    """A bound of the panel's range: exact_text with its thousands grouped (7,152,600, as the
    report writes amounts), never an exponent."""
    text = exact_text(x)
    whole, dot, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    return f"{sign}{int(whole.lstrip('-')):,}{dot}{frac}" if whole.lstrip("-").isdigit() else text


def cli_command(result: Result) -> str:
    """`tco whatif` with this report's scenario and every quote file the report was made with
    (--catalog, in order), as a shell would need it: run as shown it gives the page's
    numbers."""
    import shlex

    file = result.provenance.scenario_file
    words = ["tco", "whatif"]
    if file and not file.startswith(("built-in", "<")):  # not the example, text or a dict
        words.append(shlex.quote(file))
    for quote in result.provenance.catalog_files:
        words += ["--catalog", shlex.quote(quote)]
    return " ".join(words)


def payload(result: Result, s: Strings, lang: str, at: Slots,
            candidates: list[dict[str, Any]], components: list[str],
            plan: dict[str, Any] | None = None) -> dict[str, Any]:
    """Everything the page's script reads besides the model: `plan` adds what the view knows
    of the plan's portfolios, per-token APIs, serving and training workloads."""
    from ..model import COMPLETE_FRACTION
    from . import charts
    from .fmt import CHART_CANDIDATES

    texts = s.all_text()
    return {
        "complete": COMPLETE_FRACTION, "chart_candidates": CHART_CANDIDATES,
        "colours": {"ink": charts.INK, "muted": charts.MUTED, "grid": charts.GRID,
                    "accent": charts.ACCENT, "components": list(charts.COMPONENT_COLOURS),
                    "others": list(charts.OTHER_COLOURS)},
        "titles": {"chart-cost": s("h_cost_per_job"), "chart-cashflow": s("h_cashflow"),
                   "chart-time": s("h_time")},
        "lang": lang, "currency": result.currency, "size": len(at.index),
        "base": [_finite(result.inputs[p].value) for p in at.inputs],
        "panel": panel(result, s, at), "candidates": candidates, "components": components,
        "horizon": result.structure.horizon_years,
        "text": {k: texts[k] for k in TEXT_KEYS}, "number": f"^{NUMBER}$",
        "command": cli_command(result), **(plan or {}),
    }


def _number(x: float) -> str:
    """A fixed number as JavaScript (repr round-trips a double; no name, no text)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    return repr(float(x))


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) else None


def script_json(data: Any) -> str:
    """JSON that can sit inside <script>: no '<', '>', '&' or line separators in the text
    (each is written as a \\u escape, which JSON.parse reads back as the same character)."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    for ch, esc in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                    ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(ch, esc)
    return text


def csp_hash(script: str) -> str:
    """The Content-Security-Policy source that allows exactly this inline script."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
