"""The live report (issue 16) in headless Chromium: the reader types values into the panel and
the page's figures equal the engine's `tco whatif --set ...` for the same values.

Each check drives the real page: values are typed into the panel's `<input data-path=...>`
elements and a `change` event is sent, as a reader's Enter or Tab does; the figures are read back
from `data-value` (full precision) and from their text. The engine side is the what-if of the
command line, given the page's own "copy as CLI" line, so that line is checked too.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cdp import Page
from report_support import add_analyses, require_chromium, unplanned

from tco.analysis.whatif import whatif_from
from tco.decide import recommend as recommendation
from tco.decide import recommend_option
from tco.engine import compute
from tco.exporters import live
from tco.exporters.html import render_html, write_html
from tco.scenario import load_scenario

SETTINGS = 12  # random panel states checked against the engine (en), besides the zh ones
TCO = str(Path(sys.executable).with_name("tco"))

READ = """(() => {
  const shown = (el) => !el.closest('[hidden]');
  const figures = Array.from(document.querySelectorAll('[data-option][data-metric]'), (el) => [
    el.dataset.option, el.dataset.metric, el.getAttribute('data-value'), el.textContent,
    el.classList.contains('kpi-value')]).filter((f, i) => shown(
    document.querySelectorAll('[data-option][data-metric]')[i]));
  // the tables with a row per option or portfolio: portfolios, every workload, serving
  const tables = Array.from(document.querySelectorAll(
    '#portfolios tbody tr, #workloads tbody tr, #serving tbody tr'), (tr) => [
    (tr.closest('[id]') || {}).id, tr.dataset.candidate || tr.dataset.portfolio, tr.className,
    Array.from(tr.querySelectorAll('td'), (td) => td.textContent.trim())]);
  const order = Array.from(document.querySelectorAll('#comparison table.compare tbody tr'),
    (tr) => [tr.dataset.candidate, tr.className, tr.querySelector('.rank').textContent,
             tr.querySelector('.pill').textContent]);
  const details = Array.from(document.querySelectorAll('article.candidate-detail'), (a) =>
    [a.id, Array.from(a.querySelectorAll('td.num'), (td) => td.textContent),
     a.querySelector('p.note').hidden ? '' : a.querySelector('p.note').textContent.trim()]);
  const method = Array.from(document.querySelectorAll('#methodology p'), (p) => p.textContent);
  const s = document.getElementById('summary');
  const summary = Array.from(s.querySelectorAll(
    '.headline, ul.steps li, ol.reasons li, ul.consider li'), (el) => el.textContent);
  const note = s.querySelector('[data-plan-note]');
  const plans = Array.from(document.querySelectorAll('[data-plan-npv]'), (td) =>
    [td.dataset.planNpv, td.getAttribute('data-value')]);
  return {figures, order, details, summary, method, tables, plans,
          note: note && !note.hidden ? note.textContent : '',
          cli: document.querySelector('[data-live-cli]').textContent,
          diff: document.querySelector('[data-live-diff]').textContent};
})()"""


def type_into(page: Page, path: str, text: str) -> str:
    """Types `text` into the panel input of `path` and commits it; returns its error line."""
    return page.js(f"""(() => {{
      const el = document.querySelector('input[data-path=' + JSON.stringify({json.dumps(path)}) + ']');
      el.value = {json.dumps(text)};
      el.dispatchEvent(new Event('input'));
      el.dispatchEvent(new Event('change'));
      const err = el.closest('label').querySelector('.live-error');
      return err.hidden ? '' : err.textContent;
    }})()""")


@pytest.fixture(scope="module")
def result(catalog):
    return add_analyses(compute(load_scenario(), catalog))


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    exe = require_chromium()
    page = Page(exe, tmp_path_factory.mktemp("profile"))
    yield page
    page.close()


def open_report(browser: Page, result, tmp: Path, lang: str = "en") -> Path:
    tmp.mkdir(parents=True, exist_ok=True)
    path = write_html(result, tmp / f"live-{lang}.html", lang=lang)
    browser.events.clear()
    browser.open(path)
    return path


def close(got: float, want: float) -> bool:
    return got == want or abs(got - want) <= 1e-9 * abs(want)


def engine_after(result, cli: str):
    """The engine's result for the page's "copy as CLI" line (`tco whatif --set ...`)."""
    words = shlex.split(cli)
    assert words[:2] == ["tco", "whatif"], cli
    file = result.provenance.scenario_file
    rest = words[3:] if words[2:3] == [file] else words[2:]  # the scenario, unless built in
    assert rest[::2] == ["--catalog"] * len(result.provenance.catalog_files) + ["--set"] * (
        len(rest) // 2 - len(result.provenance.catalog_files)), cli
    assert rest[1::2][:len(result.provenance.catalog_files)] == list(
        result.provenance.catalog_files)
    sets = [words[i + 1] for i, w in enumerate(words) if w == "--set"]

    return engine_whatif(result, sets), sets


def engine_whatif(result, sets: list[str], recompute=None):
    """The engine's what-if of `result` (tco whatif --set ...); of an unplanned result (see
    `unplanned`), unplanned too."""
    def never(values, label):
        raise AssertionError("panel inputs never need a new resolve")

    after = whatif_from(result, sets, recompute or never).after
    return unplanned(after) if result.planner is None else after


def plan_note(before, after, cli: str, lang: str) -> str:
    """The note the page gives beside the plan after a change (strings.yaml live_plan_*),
    worked out here in Python: the plan as solved re-costed at the new values (tco.plan.recost,
    the float backend of the trees the page runs), against the plans held to one option that
    delivered the work (re-costed likewise, the cheapest first met) and the option, portfolio
    or API the engine would recommend now if it delivers; stale when one of them costs less."""
    import datetime as dt

    from tco.decide import rules
    from tco.exporters.i18n import Strings
    from tco.exporters.report_view import View
    from tco.plan import recost

    s = Strings(lang)
    money = View(before, lang, dt.date(2026, 1, 1)).money
    best = before.plans[0]
    npv = recost(best, after)
    rival, rival_npv = "", float("inf")
    for p in before.plans[1:]:
        if rules.plan_delivers(p) and recost(p, after) < rival_npv:
            rival, rival_npv = s("plan_row_only", option=p.option), recost(p, after)
    now = recommend_option(after)
    ranked_on = "npv_tco_after_tax" if best.basis == "after_tax" else "npv_tco"
    if now is not None:
        if now.mode in ("portfolio", "api"):
            x = next(o for o in (*after.portfolios, *after.api_options) if o.id == now.option)
            alt = x.values[ranked_on]
        else:
            c = after.candidate(now.option)
            alt = c.values[ranked_on] if rules.delivers(c) else float("inf")
        if alt < rival_npv:
            rival, rival_npv = now.option, alt
    key = "live_plan_stale" if rival_npv < npv * (1 - 1e-9) else "live_plan_kept"
    key += "_after_tax" if best.basis == "after_tax" else ""
    return s(key, npv=money(npv), was=money(best.npv_decision), rival=rival,
             rival_npv=money(rival_npv), command=cli)


def random_state(result, rng: np.random.Generator) -> dict[str, str]:
    """A few panel inputs at random values the panel accepts: anywhere in the plausible
    range, or within +/-50% of the scenario's value (clipped to the range)."""
    panel = live.panel(result, __import__("tco.exporters.i18n", fromlist=["x"]).Strings("en"),
                       live.slots(result))
    chosen = rng.choice(len(panel), size=int(rng.integers(1, 7)), replace=False)
    out = {}
    for i in chosen:
        p = panel[int(i)]
        if rng.random() < 0.5:
            x = float(rng.uniform(p["lo"], p["hi"]))
        else:
            x = float(np.clip(p["base"] * rng.uniform(0.5, 1.5), p["lo"], p["hi"]))
        out[p["path"]] = repr(x)
    return out


def summary_said_live(browser: Page, result, tmp: Path, starts: dict[str, str]) -> None:
    """For each language, the static summary has a sentence starting `starts[lang]`, and the
    page recomputing itself says the same summary (less the Monte Carlo sentence, which the
    page does not redraw)."""
    for lang, start in starts.items():
        open_report(browser, result, tmp / lang, lang)
        before = browser.js(READ)
        assert any(s.startswith(start) for s in before["summary"]), before["summary"]
        browser.js("tcoLive.render(true)")
        assert browser.js(READ)["summary"] == [s for s in before["summary"]
                                               if "Monte Carlo" not in s and "蒙特卡洛" not in s]
        assert browser.console() == []


def static_view(browser: Page, result, tmp: Path, lang: str) -> dict:
    """What the static report of `result` shows (the page as loaded, nothing typed)."""
    open_report(browser, result, tmp, lang)
    return browser.js(READ)


def check_against_engine(browser: Page, result, tmp: Path, state: dict[str, str], lang: str
                         ) -> None:
    open_report(browser, result, tmp, lang)
    for path, text in state.items():
        assert type_into(browser, path, text) == ""
    page = browser.js(READ)
    assert browser.console() == []
    after, sets = engine_after(result, page["cli"])
    assert sorted(sets) == sorted(f"{p}={t}" for p, t in state.items())
    # every headline figure equals the engine's what-if, to a relative 1e-9
    checked = 0
    for option, metric, value, _text, _kpi in page["figures"]:
        c = after.candidate(option)
        want = c.values[metric] if metric in c.values else c.job[metric]
        assert value and close(float(value), want), (option, metric, value, want)
        checked += 1
    assert checked >= 4 * len([c for c in after.candidates if c.priced])
    # the ranking, the recommendation, every text of the figures, the summary and the details
    # are the static report's for the engine's what-if result (made by Python, not the page)
    planned = recommendation(result)
    planned = planned if planned is not None and planned.mode == "plan" else None
    base = static_view(browser, result, tmp / "before", lang) if planned else None
    want = static_view(browser, after, tmp / "after", lang)  # the page left on it
    assert [r[:2] for r in page["order"]] == [r[:2] for r in want["order"]]
    assert page["order"] == want["order"]
    assert [f[:2] + f[3:] for f in page["figures"]] == [f[:2] + f[3:] for f in want["figures"]]
    if planned is not None:
        # the plan recommended was solved at the scenario's values and the page does not
        # re-solve it: its summary stays the static page's, and a note re-costs it as solved
        # and says whether it is still the cheapest, giving the command that re-solves it
        # (`tco whatif --set ...`, whose own note words the new plan)
        assert page["summary"] == base["summary"]
        assert page["note"] == plan_note(result, after, page["cli"], lang)
        # every plan's NPV in its table is the plan as solved, re-costed at these values
        from tco.plan import recost

        solved = {p.id: p for p in result.plans}
        assert len(page["plans"]) == len(result.plans)
        for pid, value in page["plans"]:
            assert close(float(value), recost(solved[pid], after)), pid
    else:
        assert page["summary"] == want["summary"]
        assert page["note"] == ""
    assert page["details"] == want["details"]
    assert page["tables"] == want["tables"]
    def method(texts: list[str]) -> list[str]:  # the analyses' sentences are the scenario's
        return [m for m in texts if not any(w in m for w in (
            "Monte Carlo", "sensitivity", "蒙特卡洛", "敏感性"))]

    assert method(page["method"]) == method(want["method"])


@pytest.mark.parametrize("seed", range(SETTINGS))
def test_random_panel_states_equal_the_engine(browser, result, tmp_path, seed):
    rng = np.random.default_rng(1000 + seed)
    check_against_engine(browser, result, tmp_path, random_state(result, rng), "en")


@pytest.mark.parametrize("seed", range(3))
def test_random_panel_states_equal_the_engine_in_chinese(browser, result, tmp_path, seed):
    rng = np.random.default_rng(2000 + seed)
    check_against_engine(browser, result, tmp_path, random_state(result, rng), "zh")


def test_a_change_that_flips_the_recommendation(browser, result, tmp_path):
    # the example is planned (issue 27): the plan rents B200, and its best single option is
    # renting B200 on demand (the cheapest NPV with the 2026-12 prices of pricing/cloud.yaml).
    # A B200 on-demand price 5 times the catalog's makes that option dearer than another:
    # the comparison re-ranks, the plan's headline stays (the page does not re-solve it), and
    # the note re-costs the plan as solved (12.48M -> 13.58M: it rents little on demand),
    # still the cheapest, with the command that re-solves it
    said = recommendation(result)
    assert said.mode == "plan" and said.best_option.option == "b200-rent"
    path = "candidates.b200.on_demand_price_per_card_hour"
    base = result.inputs[path].value
    state = {path: repr(base * 5)}
    check_against_engine(browser, result, tmp_path, state, "en")
    open_report(browser, result, tmp_path)
    before = browser.js(READ)
    type_into(browser, path, repr(base * 5))
    after = browser.js(READ)
    assert before["summary"][0].startswith("Recommendation: follow the cheapest plan")
    assert after["summary"] == before["summary"] and before["note"] == ""
    assert after["order"][0][0] != "b200-rent"
    assert after["note"].startswith("Re-costed at these values, the plan above as solved costs "
                                    "$13.58M (at the scenario's values: $12.48M) and is still "
                                    "the cheapest"), after["note"]
    assert after["note"].endswith(f"To re-solve it at these values: tco whatif --set {path}="
                                  f"{base * 5!r}"), after["note"]


def test_a_change_that_makes_the_plan_stale(browser, result, tmp_path):
    # Twice the B200 committed price: the plan as solved reserves B200 and re-costs at
    # 24.69M, more than the plan held to renting MI300X (14.47M re-costed, unchanged): the
    # note says it is no longer the cheapest and gives the command that re-solves it; the
    # plans' table shows every plan re-costed (check_against_engine)
    path = "candidates.b200.cloud_price_per_card_hour"
    base = result.inputs[path].value
    check_against_engine(browser, result, tmp_path, {path: repr(base * 2)}, "en")
    open_report(browser, result, tmp_path)
    type_into(browser, path, repr(base * 2))
    page = browser.js(READ)
    assert page["note"].startswith("Re-costed at these values, the plan above as solved costs "
                                   "$24.69M (at the scenario's values: $12.48M), more than Only "
                                   "mi300x-rent at $14.47M: it is no longer the cheapest"), \
        page["note"]


def cli_error(path: str, text: str) -> str:
    done = subprocess.run([TCO, "whatif", "--set", f"{path}={text}"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 2
    return done.stderr.strip()


@pytest.mark.parametrize("path, text", [
    ("facility.electricity_price_per_kwh", "5"),  # over the 2 USD/kWh plausible maximum
    ("candidates.mi300x.card_price", "50"),  # under 100 USD: a price in the wrong unit
    ("utilization", "+30%"),  # 0.85 * 1.3 = 1.105 > 1
    ("finance.discount_rate", "abc"),  # not a number at all
    ("utilization", "+0.5"),  # would set 0.5, not add it: refused as the CLI refuses it
])
def test_a_refused_value_shows_the_cli_message_and_changes_nothing(browser, result, tmp_path,
                                                                   path, text):
    open_report(browser, result, tmp_path)
    before = browser.js(READ)
    assert type_into(browser, path, text) == cli_error(path, text)
    after = browser.js(READ)
    assert after == before
    assert browser.js("document.querySelector('input[aria-invalid=\"true\"]').dataset.path") == path


def test_reset_puts_back_every_figure(browser, result, tmp_path):
    open_report(browser, result, tmp_path)
    before = browser.js(READ)
    assert before["cli"] == "tco whatif" and before["diff"] == "All values are the scenario's."
    type_into(browser, "facility.electricity_price_per_kwh", "0.31")
    type_into(browser, "candidates.mi300x.card_price", "9000")
    changed = browser.js(READ)
    assert changed["cli"] == ("tco whatif --set facility.electricity_price_per_kwh=0.31 "
                              "--set candidates.mi300x.card_price=9000")
    assert "Electricity tariff 0.0826 → 0.31" in changed["diff"]
    assert changed["figures"] != before["figures"]
    browser.js("document.querySelector('[data-live-reset]').click()")
    assert browser.js(READ) == before
    assert browser.js("Array.from(document.querySelectorAll('input[data-path]'))"
                      ".every((el) => el.value === el.defaultValue)")
    assert browser.js("document.querySelector('#chart-cost .chart-static').hidden") is False


def test_the_page_writes_the_static_report_at_the_scenario_values(browser, result, tmp_path):
    """At the scenario's values the page's own rendering (summary included, which it normally
    takes from the static HTML there) equals what Python wrote: the formatting is the same."""
    open_report(browser, result, tmp_path)
    before = browser.js(READ)
    browser.js("tcoLive.render(true)")
    now = browser.js(READ)
    # the example is planned: the page leaves the plan's summary as Python wrote it (it does
    # not re-solve the plan); the option-level summary it words itself: test_a_leased_option...
    said = recommendation(result)
    assert said is not None and said.mode == "plan"
    assert now["summary"] == before["summary"] and now["note"] == ""
    assert now["figures"] == before["figures"] and now["details"] == before["details"]
    assert now["order"] == before["order"]
    # the live charts are drawn (SVG, one bar or line per priced option)
    bars = browser.js("document.querySelectorAll('#chart-time .chart-live svg text').length")
    assert bars > len([c for c in result.candidates if c.priced])
    assert browser.console() == []


# Runs the idle callbacks Page.hold_idle held, watching what they change in the document
RELEASE_WATCHED = """(() => {
  const seen = [];
  const watch = new MutationObserver(() => {});
  watch.observe(document.documentElement,
                {subtree: true, childList: true, attributes: true, characterData: true});
  for (const callback of window.__heldIdle.splice(0))
    callback({didTimeout: false, timeRemaining: () => 50});
  for (const m of watch.takeRecords())
    seen.push(m.type + ':' + (m.attributeName || '') + ':' + m.target.nodeName);
  watch.disconnect();
  return seen;
})()"""


def test_the_page_compiles_its_model_when_idle_and_changes_nothing(browser, result, tmp_path):
    """In its first idle moment after opening the page runs its model once (so that the
    reader's first change does not compile it): the one thing it changes in the document is
    the mark that it did; no figure, text or chart moves."""
    held = browser.hold_idle()
    try:
        open_report(browser, result, tmp_path)
        before = browser.js(READ)
        assert browser.js("window.__heldIdle.length") == 1  # the warm-up, not yet run
        assert browser.js("document.documentElement.dataset.model") is None
        assert browser.js(RELEASE_WATCHED) == ["attributes:data-model:HTML"]
    finally:
        browser.call("Page.removeScriptToEvaluateOnNewDocument", session=True, identifier=held)
    assert browser.js("document.documentElement.dataset.model") == "compiled"
    assert browser.js("document.documentElement.dataset.live") is None  # never rendered
    assert browser.js(READ) == before
    assert browser.console() == []


def test_number_formatting_equals_python(browser, result, tmp_path):
    """The page's format(x, '.Nf'), format(x, 'g') and repr(x) against Python's, ties included
    (0.125 to two places is 0.12 in Python, half to even; toFixed would say 0.13)."""
    open_report(browser, result, tmp_path)
    rng = np.random.default_rng(5)
    xs = [0.125, 2.5, 0.5, 1234565.0, 999999.5, 1e-5, 1.5e-5, 123456789.0, 1e16, 1e22, -0.0,
          0.1 + 0.2, 85.0, 0.0826, 1e-300, 999_499.0, 999_500.0, 999_567.0, 999_994_999.0,
          999_995_000.0, -999_600.0]
    xs += [float(x) for x in rng.lognormal(0, 8, 200) * rng.choice([-1, 1], 200)]
    xs += [round(float(x), 3) for x in rng.uniform(0, 100, 100)]
    got = browser.js(f"""(() => {{
      const xs = {json.dumps(xs)};
      const f = tcoLive.format;
      return xs.map((x) => [tcoLive.g(x), tcoLive.pyRepr(x), f.num0(x), f.num1(x), f.pct1(x),
                            f.money(x)]);
    }})()""")
    from tco.exporters.fmt import money, number, percent

    for x, row in zip(xs, got):
        want = [f"{x:g}", repr(x), number(x, 0), number(x, 1), percent(x, 1), money(x, "USD")]
        assert row == want, (x, row, want)


def test_the_panel_offers_the_inputs_that_matter_and_only_those_it_can_recompute(result):
    paths = live.panel_paths(result)
    keys = {p.rsplit(".", 1)[-1] for p in paths}
    assert {"card_price", "cloud_price_per_card_hour", "lead_time_weeks",
            "electricity_price_per_kwh", "utilization", "discount_rate"} <= keys
    fixed = live.fixed_inputs(result)
    assert not set(paths) & fixed
    # the deadline-sized A100 cluster is sized by its speed: nothing that feeds the run time
    # (an MFU, a workload's tokens) nor a card count may be on the panel
    assert "candidates.a100-deadline.mfu" in fixed and "workloads.llama-70b.tokens" in fixed
    assert not any(result.inputs[p].spec.integer for p in paths)
    html = render_html(result, "en")
    for p in paths:
        assert f'data-path="{p}"' in html


def test_names_stay_text_and_the_data_cannot_end_its_script(browser, catalog, tmp_path):
    """A scenario name and a candidate name holding markup: the page shows them as text, runs
    no script of theirs (the CSP allows only the page's two scripts, by hash) and logs nothing."""
    import copy

    loaded = load_scenario()
    data = copy.deepcopy(loaded.scenario.model_dump(mode="python"))
    evil = "</script><script>document.title='pwned'</script><!--"
    data["name"] = evil
    data["candidates"][3]["name"] = "MI300X " + evil
    from tco.scenario import parse_scenario
    from tco.yamlio import YamlDoc

    res = compute(parse_scenario(YamlDoc(data, {}, "evil.yaml")), catalog)
    html = render_html(res, "en")
    assert html.count("</script>") == 3  # the data, the model and the page's code
    scripts = html.split('<script type="application/json" id="tco-live-data">', 1)[1]
    assert "<" not in scripts.split("</script>", 1)[0]
    path = tmp_path / "evil.html"
    path.write_text(html, encoding="utf-8")
    browser.events.clear()
    browser.open(path)
    assert browser.js("document.title") != "pwned"
    type_into(browser, "candidates.mi300x.card_price", "5000")
    assert browser.js("document.title") != "pwned"
    assert browser.console() == []
    text = browser.js("document.body.textContent")
    assert evil in text


def test_script_json_escapes_what_could_end_a_script():
    text = live.script_json({"a": "</script><!--\u2028&>"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"a": "</script><!--\u2028&>"}


def test_the_model_in_the_page_is_made_of_indices_not_names(result):
    code = live.model_script(result, live.slots(result))
    assert "mi300x" not in code and "npv" not in code.replace("R.NPV", "")
    # the model's quantities, then every plan's money (its decisions written as numbers)
    plans = sum(len(p.model.quantities) for p in result.plans)
    assert plans > 0
    assert code.count("\n  v[") == len(result.model.quantities) + plans


def test_a_model_too_large_to_carry_leaves_a_static_report(result, monkeypatch):
    monkeypatch.setattr(live, "MAX_QUANTITIES", len(result.model.quantities) - 1)
    html = render_html(result, "en")
    assert "<script" not in html and "script-src" not in html and 'data-path="' not in html
    assert "default-src 'none'" in html


def test_without_javascript_the_report_reads_as_the_scenarios(browser, result, tmp_path):
    """Scripts off: no panel, the static charts, and every figure as Python wrote it."""
    browser.call("Emulation.setScriptExecutionDisabled", session=True, value=True)
    try:
        open_report(browser, result, tmp_path)
        hidden = browser.js("document.getElementById('live').hidden")
        static = browser.js("document.querySelector('#chart-cost .chart-static svg') !== null"
                            " && document.querySelector('#chart-cost .chart-live').hidden")
        state = browser.js("document.documentElement.dataset.live === undefined")
    finally:
        browser.call("Emulation.setScriptExecutionDisabled", session=True, value=False)
    assert hidden is True and static is True and state is True


def test_a_note_that_moves_with_the_inputs_follows(browser, result, tmp_path):
    # at 20% utilization (0.85 in the example) the bought clusters cannot fit the year's four
    # runs: the engine notes the share completed, and so must the page
    check_against_engine(browser, result, tmp_path, {"utilization": "0.2"}, "en")
    noted = {d[0] for d in browser.js(READ)["details"] if "completes only" in d[2]}
    before = {d[0] for d in static_view(browser, result, tmp_path / "base", "en")["details"]
              if "completes only" in d[2]}
    assert before < noted, (before, noted)  # the example's RTX 4090 and 910B, and now more


@pytest.fixture(scope="module")
def leased(catalog):
    """A lease beside the purchase of the same cluster (tests/test_lease.py)."""
    from test_lease import LEASED

    from tco.scenario import load_scenario_text

    return unplanned(add_analyses(compute(load_scenario_text(LEASED, "leased.yaml"), catalog)))


def test_a_leased_option_in_the_live_report(browser, leased, tmp_path):
    """The page words a lease as Python does: at the scenario's values (bought is cheaper:
    'Leasing costs more'), and after a lower card price for the leased option flips the
    recommendation to it (headline 'lease', 'Buying costs more'), in English and Chinese."""
    open_report(browser, leased, tmp_path)
    before = browser.js(READ)
    assert any(s.startswith("Leasing costs more: the cheapest option that leases")
               for s in before["summary"]), before["summary"]
    browser.js("tcoLive.render(true)")
    now = browser.js(READ)
    assert now["summary"] == [s for s in before["summary"] if "Monte Carlo" not in s]
    assert browser.console() == []
    path = "candidates.leased.card_price"
    after = engine_whatif(leased, [f"{path}=20000"])
    for lang in ("en", "zh"):
        open_report(browser, leased, tmp_path / lang, lang)
        assert type_into(browser, path, "20000") == ""
        page = browser.js(READ)
        assert browser.console() == []
        want = static_view(browser, after, tmp_path / lang / "after", lang)
        assert page["summary"] == want["summary"]
        assert page["order"] == want["order"]
    assert page["summary"][0].startswith("建议：租赁"), page["summary"][0]
    assert any(s.startswith("购买更贵") for s in page["summary"]), page["summary"]


def test_a_hybrid_named_as_a_hybrid_in_the_live_report(browser, catalog, tmp_path):
    """Renting wins and the cheapest option that owns is a hybrid: the page, recomputing
    itself, words it as Python does ("Owning a base and renting the peaks costs more"), in
    English and Chinese (tests/test_hybrid_wording.py)."""
    from test_hybrid_wording import RENT_OR_HYBRID

    from tco.scenario import load_scenario_text

    hybrid = unplanned(add_analyses(compute(load_scenario_text(RENT_OR_HYBRID, "s.yaml"),
                                            catalog)))
    summary_said_live(browser, hybrid, tmp_path, {
        "en": "Owning a base and renting the peaks costs more", "zh": "自有基础集群加租用峰值更贵"})


# --- every plan live (issue 25): serving, several workloads, portfolios, per-token APIs -------

ROOT = Path(__file__).resolve().parent.parent
TRAIN_AND_SERVE = ROOT / "tco" / "scenarios" / "train-and-serve.yaml"


@pytest.fixture(scope="module")
def serving(catalog):
    """tco/scenarios/train-and-serve.yaml: pre-training and serving, rented and bought options,
    an option that only trains, a portfolio of it with a per-token API."""
    return add_analyses(compute(load_scenario(TRAIN_AND_SERVE), catalog))


@pytest.mark.parametrize("seed", range(6))
def test_random_panel_states_of_train_and_serve_equal_the_engine(browser, serving, tmp_path,
                                                                 seed):
    assert live.carried_live(serving)
    rng = np.random.default_rng(3000 + seed)
    check_against_engine(browser, serving, tmp_path, random_state(serving, rng), "en")


@pytest.mark.parametrize("seed", range(2))
def test_random_panel_states_of_train_and_serve_in_chinese(browser, serving, tmp_path, seed):
    rng = np.random.default_rng(4000 + seed)
    check_against_engine(browser, serving, tmp_path, random_state(serving, rng), "zh")


def test_a_change_that_makes_the_portfolio_win(browser, serving, tmp_path):
    """At the scenario's values renting MI300X wins ($16.7M); the portfolio (the H200 cluster
    that only trains, with the API serving) costs $76.8M. Clouds at 50 an hour and the
    training-only H200 at 100 a card make the portfolio the cheapest way to deliver the plan:
    the page ranks it first, marks it, and words its summary as Python does."""
    state = {"candidates.h200-train.card_price": "100"}
    for cid in ("mi300x", "h100-sxm", "h200-sxm"):
        state[f"candidates.{cid}.cloud_price_per_card_hour"] = "50"
        state[f"candidates.{cid}.on_demand_price_per_card_hour"] = "50"
    check_against_engine(browser, unplanned(serving), tmp_path / "unplanned", state, "en")
    open_report(browser, unplanned(serving), tmp_path / "page", "en")
    for path, text in state.items():
        assert type_into(browser, path, text) == ""
    page = browser.js(READ)
    assert page["summary"][0].startswith("Recommendation: combine the options of"), page["summary"]
    row = next(t for t in page["tables"] if t[1] == "train-h200-serve-api")
    assert "recommended" in row[2]
    assert browser.js("document.querySelector('.kpis').hidden") is True  # no single option


API_ONLY = """
name: serve only
workloads:
  - {id: chat, kind: serve, params: 70e9, precision: fp8, layers: 80, kv_heads: 8,
     head_dim: 128, input_tokens_per_day: 2e9, output_tokens_per_day: 5e8,
     peak_to_average: 2, prompt_tokens: 2000, output_tokens: 500, ttft_ms: 2000, tpot_ms: 50}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
api_options:
  - {id: chat-api, api: deepinfra-llama-3.3-70b}
finance: {horizon_years: 3, discount_rate: 0.08}
team: {familiarity: {cuda: 1.0}}
"""


def test_a_plan_that_serves_first_and_an_api_that_wins(browser, catalog, tmp_path):
    """A plan that only serves, with a per-token API: the key figures are serving's (cost per
    million tokens, cards at the peak) and follow the panel; when renting and buying H100 cost
    more, the API wins in the page as in the engine."""
    from tco.decide import recommend_option as recommend
    from tco.scenario import load_scenario_text

    planned = add_analyses(compute(load_scenario_text(API_ONLY, "serve.yaml"), catalog))
    # planned, the plan serves by the API from month 0 and rents H100s on demand once the
    # rent's price path (pricing/price_paths.yaml, issue 28) makes them cheaper: the headline
    said = recommendation(planned)
    assert said.mode == "plan" and said.uses == ("rent", "api")
    assert ("Recommendation: <strong>follow the cheapest plan: rent NVIDIA H100 SXM5 80GB and "
            "pay per token</strong>;" in render_html(planned, "en"))
    result = unplanned(planned)  # the option-level wording the page does itself
    said = recommend(result)
    assert said is not None
    rng = np.random.default_rng(7)
    check_against_engine(browser, result, tmp_path / "random", random_state(result, rng), "en")
    state = {p: "400000" for p in live.panel_paths(result) if p.endswith(".card_price")}
    state.update({p: "40" for p in live.panel_paths(result)
                  if p.endswith(("cloud_price_per_card_hour", "on_demand_price_per_card_hour"))})
    check_against_engine(browser, result, tmp_path / "api", state, "en")
    page = browser.js(READ)
    assert page["summary"][0].startswith("Recommendation: serve by the per-token API"), \
        page["summary"]


def test_the_cli_line_names_every_quote_file_and_gives_the_page_numbers(browser, catalog,
                                                                          tmp_path):
    """The zh package is priced with a quote file: the page's "copy as CLI" line names it
    (--catalog), and that line, run as shown, gives the NPVs the page shows."""
    from tco.catalog import load_catalog

    package = ROOT / "tests" / "data" / "zh_package"
    quotes = package / "quotes.csv"
    result = compute(load_scenario(package / "scenario.yaml"), load_catalog([quotes]))
    open_report(browser, result, tmp_path, "zh")
    path = "facility.electricity_price_per_kwh"
    assert type_into(browser, path, "1.2") == ""
    page = browser.js(READ)
    words = shlex.split(page["cli"])
    assert words[:3] == ["tco", "whatif", str(package / "scenario.yaml")]
    assert words[3:5] == ["--catalog", str(quotes)] and words[5:] == ["--set", f"{path}=1.2"]
    done = subprocess.run([TCO, *words[1:], "--format", "json"], capture_output=True, text=True,
                          check=True)
    npv = {c["id"]: c["npv_tco"]["after"] for c in json.loads(done.stdout)["candidates"]}
    shown = {o: float(v) for o, m, v, _t, kpi in page["figures"] if m == "npv_tco" and not kpi}
    assert shown and all(close(shown[o], npv[o]) for o in shown), (shown, npv)


def test_panel_values_and_ranges_read_as_the_report_writes_numbers(catalog):
    """No float noise and no exponent in the panel (issue 25: 125000.00000000001, 7.1526e+06):
    the field shows at most 12 significant digits, the range its bounds exactly, thousands
    grouped (7,152,600)."""
    from tco.catalog import load_catalog
    from tco.exporters.i18n import Strings

    assert live.exact_text(125000.00000000001) == "125000"
    assert live.exact_text(0.0826) == "0.0826" and live.exact_text(1e-05) == "0.00001"
    package = ROOT / "tests" / "data" / "zh_package"
    result = compute(load_scenario(package / "scenario.yaml"),
                     load_catalog([package / "quotes.csv"]))
    panel = live.panel(result, Strings("zh"), live.slots(result))
    assert panel
    for p in panel:
        assert "e+" not in p["text"] and "e-" not in p["text"], p
        assert "e+" not in p["range"] and "e-" not in p["range"], p
    price = next(p for p in panel if p["path"] == "candidates.h20.card_price")
    assert price["text"] == "105000"  # the CNY quote as quoted (no round trip through USD)
    # the plausible card price, 100 to 1,000,000 USD, in CNY at 7.1526
    assert price["range"] == "715.26 – 7,152,600"


def test_the_chinese_package_live_in_cny(browser, catalog, tmp_path):
    """The zh package (CNY, a quote file): after a change the page writes every figure as the
    static report of the engine's what-if does, each column's amounts in one unit (万 or 亿)
    chosen again from the new values."""
    from tco.catalog import load_catalog

    package = ROOT / "tests" / "data" / "zh_package"
    result = add_analyses(compute(load_scenario(package / "scenario.yaml"),
                                  load_catalog([package / "quotes.csv"])))
    state = {"candidates.ascend-910b.card_price": "900000",
             "facility.electricity_price_per_kwh": "2.5"}
    check_against_engine(browser, result, tmp_path, state, "zh")
    assert any("亿" in d for a in browser.js(READ)["details"] for d in a[1])


def test_a_plan_chosen_after_tax_is_recosted_after_tax(browser, catalog, tmp_path):
    """The Chinese starter names a tax jurisdiction, so its options are ranked and its plans
    chosen after income tax: the page re-costs each plan on that NPV (its table's column and
    the note), compares the option it would recommend on the same basis, and says so."""
    from tco.catalog import load_catalog

    root = ROOT / "tco" / "scenarios"
    result = add_analyses(compute(load_scenario(root / "cn.yaml"),
                                  load_catalog([root / "cn.quotes.csv"])))
    assert result.plans[0].basis == "after_tax"
    state = {"facility.sites.guizhou.electricity_price_per_kwh": "2.5",
             "candidates.h100-lease.on_demand_price_per_card_hour": "30"}
    check_against_engine(browser, result, tmp_path, state, "en")
    open_report(browser, result, tmp_path / "again", "en")  # the check leaves another page
    for path, text in state.items():
        assert type_into(browser, path, text) == ""
    assert "after income tax" in browser.js(READ)["note"]
