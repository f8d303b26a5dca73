"""Per-token API options (`api_options:`; docs/methodology.md §18, "Serving by a per-token
API") against numbers worked out by hand, and in every output."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from report_support import unplanned

from tco.cli import cli
from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.exporters.decision_words import action_text
from tco.resources import example_scenario
from tco.scenario import load_scenario, load_scenario_text

SCENARIO = example_scenario().parent / "train-and-serve.yaml"

# One serving workload; the only card option is too small for the peak, so the API is the
# one option that serves the plan. Round prices so that the fees are worked out by hand.
SERVE_ONLY = """
rent_options: none
workloads:
  - id: chat
    kind: serve
    params: 70e9
    precision: fp8
    input_tokens_per_day: 1e10
    output_tokens_per_day: 2.5e9
    prompt_tokens: 1000
    output_tokens: 250
    tpot_ms: 50
candidates:
  - {id: h200, card: h200-sxm, cards: 8}
api_options:
  - id: api
    api: deepinfra-llama-3.3-70b
    input_price_per_million_tokens: 0.2
    output_price_per_million_tokens: 0.6
  - {id: groq, api: groq-llama-3.3-70b}
finance: {horizon_years: 5, discount_rate: 0.08}
"""


@pytest.fixture(scope="module")
def serve_only(catalog):
    return compute(load_scenario_text(SERVE_ONLY, "serve-only.yaml"), catalog)


def test_api_fees_and_npv_by_hand(serve_only):
    api = serve_only.candidate("api")
    job = api.jobs["chat"]
    # a day: 1e10 x $0.2 / 1e6 + 2.5e9 x $0.6 / 1e6 = $2,000 + $1,500 = $3,500; a year x 365
    assert job["cost_per_job"] == pytest.approx(1_277_500, rel=1e-12)
    assert job["cost_per_million_input_tokens"] == 0.2
    assert job["cost_per_million_output_tokens"] == 0.6
    # per million tokens served: $3,500 / 12,500 M tokens a day = $0.28
    assert job["cost_per_million_tokens"] == pytest.approx(0.28, rel=1e-12)
    # paid at the end of years 1..5 at 8%: annuity factor 3.992710
    assert api.values["npv_tco"] == pytest.approx(1_277_500 * 3.9927100371, rel=1e-9)
    assert api.values["undiscounted_tco"] == pytest.approx(5 * 1_277_500, rel=1e-12)
    assert api.values["capex_total"] == 0 and api.values["tier"] == 0


def test_catalog_prices_with_their_sources(serve_only, catalog):
    """At least two providers' published prices for a named 70B model, each sourced."""
    assert len({p.provider for p in catalog.api_prices.values()}) >= 2
    for p in catalog.api_prices.values():
        for fig in (p.input_usd_per_million_tokens, p.output_usd_per_million_tokens):
            assert "http" in fig.source and fig.as_of and fig.confidence
    groq = serve_only.inputs["api_options.groq.output_price_per_million_tokens"]
    assert groq.value == 0.79 and "groq" in groq.source.lower() and groq.as_of == "2026-04"
    assert serve_only.inputs["api_options.api.input_price_per_million_tokens"].source == \
        "scenario"


def test_prices_convert_to_the_scenario_currency(catalog):
    text = SERVE_ONLY.replace("rent_options: none", "rent_options: none\ncurrency: CNY")
    r = compute(load_scenario_text(text, "cny.yaml"), catalog)
    fx = catalog.usd_to("CNY")
    assert r.candidate("groq").jobs["chat"]["cost_per_million_output_tokens"] == \
        pytest.approx(0.79 * fx, rel=1e-12)


def test_an_api_that_serves_the_whole_plan_is_recommended_when_cheapest(serve_only):
    # the 8-card H200 cannot serve the peak: the API is the only option that serves the plan
    assert not serve_only.candidate("h200").feasible
    rec = recommend(serve_only)
    assert rec.mode == "api" and rec.option == "api" and rec.cards == 0
    assert rec.codes()[0] == "api_only"


def test_an_api_dearer_than_cards_is_named_in_the_reasons(catalog):
    # rented, the card-hours serving uses cost less than the API's tokens
    text = SERVE_ONLY.replace("cards: 8}", "cards: 32, acquire: rent}")
    r = compute(load_scenario_text(text, "big.yaml"), catalog)
    rec = recommend(r)
    h200 = r.candidate("h200")
    assert rec.option == "h200" and h200.values["npv_tco"] < r.candidate("api").values["npv_tco"]
    (dearer,) = [x for x in rec.reasons if x.code == "api_dearer"]
    assert dearer.figures["api"] == "api"
    assert dearer.figures["diff"] == r.candidate("api").values["npv_tco"] - rec.npv_tco


def test_a_training_workload_cannot_be_served_by_an_api(tmp_path):
    text = SERVE_ONLY.replace("workloads:\n  - id: chat",
                              "workloads:\n  - {id: pre, params: 7e9, tokens: 1e11}\n  - id: chat")
    text = text.replace("  - {id: groq, api: groq-llama-3.3-70b}",
                        "  - {id: groq, api: groq-llama-3.3-70b, workloads: [pre]}")
    (tmp_path / "s.yaml").write_text(text)
    res = CliRunner().invoke(cli, ["compare", str(tmp_path / "s.yaml")])
    assert res.exit_code == 2, res.output
    assert "workload 'pre' is pretrain: an API option serves only serving workloads" in \
        res.output and "api_options.groq.workloads" in res.output
    assert "Traceback" not in res.output


def test_an_unknown_api_price_says_what_was_meant(tmp_path):
    (tmp_path / "s.yaml").write_text(SERVE_ONLY.replace("groq-llama-3.3-70b",
                                                        "groq-llama-3.3-7b"))
    res = CliRunner().invoke(cli, ["compare", str(tmp_path / "s.yaml")])
    assert res.exit_code == 2 and "unknown API price 'groq-llama-3.3-7b'" in res.output
    assert "groq-llama-3.3-70b" in res.output  # did you mean


# --- train on cards, serve by API: a portfolio ----------------------------------------------


def test_a_portfolio_trains_on_cards_and_serves_by_api(catalog):
    r = compute(load_scenario(SCENARIO), catalog)
    port = next(p for p in r.portfolios if p.id == "train-h200-serve-api")
    api, train = r.candidate("chat-api"), r.candidate("h200-train")
    assert port.values["npv_tco"] == pytest.approx(
        api.values["npv_tco"] + train.values["npv_tco"], rel=1e-12)
    # 20e9 x $0.12 + 5e9 x $0.30 per million = $3,900 a day, $1,423,500 a year
    assert api.jobs["chat"]["cost_per_job"] == pytest.approx(1_423_500, rel=1e-12)
    assert api.values["tier"] == 1  # a part of the plan: it ranks in the portfolio
    assert port.tier == 0


def test_the_portfolio_with_the_api_is_recommended_when_it_alone_delivers(catalog):
    """Eight H200s train, but cannot serve the peak: training on them and serving by the API
    is the one way to deliver the plan."""
    text = SERVE_ONLY.replace(
        "workloads:\n  - id: chat",
        "workloads:\n  - {id: pre, params: 7e9, tokens: 1e11, runs_per_year: 2}\n  - id: chat")
    text = text.replace("  - {id: h200, card: h200-sxm, cards: 8}",
                        "  - {id: h200, card: h200-sxm, cards: 8}\n"
                        "  - {id: h200-train, card: h200-sxm, cards: 8, workloads: [pre]}")
    text += "portfolios:\n  - {id: mix, options: [h200-train, api]}\n"
    r = compute(load_scenario_text(text, "mix.yaml"), catalog)
    assert not r.candidate("h200").feasible
    rec = recommend(r)
    assert rec.mode == "portfolio" and rec.option == "mix"
    port = r.portfolios[0]
    assert port.values["npv_tco"] == pytest.approx(
        r.candidate("h200-train").values["npv_tco"] + 1_277_500 * 3.9927100371, rel=1e-9)
    assert ("pay DeepInfra API, Llama 3.3 70B Instruct Turbo (FP8) per token (api) for chat"
            in action_text(rec, r.currency))
    import datetime as dt
    import re

    from tco.exporters.html import render_html

    name = "DeepInfra API, Llama 3.3 70B Instruct Turbo (FP8)"
    for lang, said in (("en", f"The per-token API {name} serves chat: $5.10M."),
                       ("zh", f"按词元计费的接口服务（{name}）承担 chat：$5,100,687。")):
        html = render_html(unplanned(r), lang, day=dt.date(2026, 12, 3))  # option-level
        text = re.sub(r"\s+", " ", re.sub(r"<svg.*?</svg>|<[^>]+>", "", html, flags=re.DOTALL))
        assert said in text, lang


# --- every output --------------------------------------------------------------------------


def test_compare_json_table_and_schema_show_the_api_option():
    from test_json_schema import check

    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "json"])
    data = json.loads(out.output)
    check("compare", data)
    (api,) = data["api_options"]
    assert api["id"] == "chat-api" and api["carries"] == ["chat"]
    assert api["jobs"]["chat"]["cost_per_million_output_tokens"] == 0.30
    assert "deepinfra.com" in api["prices"]["output_price_per_million_tokens"]["source"]
    port = next(p for p in data["portfolios"] if p["id"] == "train-h200-serve-api")
    assert port["options"] == ["h200-train", "chat-api"]
    table = CliRunner().invoke(cli, ["compare", str(SCENARIO)]).output
    assert "Per-token API options" in table and "chat-api (DeepInfra API" in table
    assert "$0.300/M out" in table


def test_whatif_of_an_api_price(catalog):
    out = CliRunner().invoke(cli, ["whatif", str(SCENARIO), "--set",
                                   "api_options.chat-api.output_price_per_million_tokens=0.6",
                                   "--format", "json"])
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_report_shows_the_api_and_its_recommendation(serve_only, lang):
    import datetime as dt
    import re

    from tco.exporters.html import render_html

    # planned, the report headlines the plan ("follow the cheapest plan: pay per token");
    # the option-level recommendation is worded on the scenario unplanned
    planned = render_html(serve_only, lang, day=dt.date(2026, 12, 3))
    assert ("follow the cheapest plan: pay per token" if lang == "en"
            else "采用最低成本计划：按词元付费") in planned
    html = render_html(unplanned(serve_only), lang, day=dt.date(2026, 12, 3))
    text = re.sub(r"\s+", " ", re.sub(r"<svg.*?</svg>|<[^>]+>", " ", html, flags=re.DOTALL))
    row = re.search(r'data-candidate="api"[^>]*>(.*?)</tr>', html, re.DOTALL).group(1)
    assert "$0.200" in row and "$0.600" in row  # the prices per million tokens
    if lang == "en":
        assert "Recommendation: serve by the per-token API DeepInfra API" in text
        assert "the API does, for $5.10M over 5 years" in text  # 1,277,500 x 3.99271
    else:
        assert "建议：通过按词元计费的接口服务" in text and "$5,100,687" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_workbook_recommends_the_api(serve_only, tmp_path, lang):
    import openpyxl

    from tco.exporters.xlsx import write_workbook

    path = tmp_path / f"api.{lang}.xlsx"
    write_workbook(unplanned(serve_only), path, lang=lang)  # the option-level wording
    wb = openpyxl.load_workbook(path)
    texts = [c.value for ws in wb for row in ws.iter_rows() for c in row
             if isinstance(c.value, str)]
    said = "Pay per token, DeepInfra API" if lang == "en" else "按词元付费，DeepInfra API"
    assert any(said in x for x in texts)
    assert not any("No candidate is feasible" in x for x in texts)


def test_catalog_lists_the_api_prices():
    out = CliRunner().invoke(cli, ["catalog", "list", "--section", "api"])
    assert out.exit_code == 0 and "groq-llama-3.3-70b" in out.output
    assert "0.12 (0.12-0.13)" in out.output  # DeepInfra's two stored copies, the range
    show = CliRunner().invoke(cli, ["catalog", "show", "deepinfra-llama-3.3-70b"]).output
    assert "api_prices.output_usd_per_million_tokens" in show and "deepinfra.com" in show


# --- the analyses rank an API option beside the options with cards ---------------------------


def test_monte_carlo_sensitivity_and_breakeven_take_an_api_option(serve_only, catalog):
    """The API option's NPV is fees x the annuity factor, so each analysis can be checked by
    hand: Monte Carlo at a collapsed baseline gives it exactly, the tornado moves it by the
    price's swing times the price's share of the fees, and the break-even output price against
    the other API is where the two NPVs meet."""
    from tco.analysis.breakeven import breakeven
    from tco.analysis.montecarlo import montecarlo
    from tco.analysis.sensitivity import sensitivity

    annuity = 3.9927100371
    mc = montecarlo(serve_only, draws=400, seed=5, metric="cost_per_million_output_tokens")
    assert {"api", "groq"} <= set(mc.prob_cheapest)
    assert mc.deterministic["api"]["npv_tco"] == serve_only.candidate("api").values["npv_tco"]
    # the scenario's own prices are single figures: every draw is the baseline
    q = mc.percentiles["api"]["npv_tco"]
    assert q["p10"] == q["p90"] == pytest.approx(1_277_500 * annuity, rel=1e-9)
    assert mc.percentiles["api"]["cost_per_million_output_tokens"]["p50"] == 0.6
    assert sum(mc.prob_cheapest.values()) == pytest.approx(1.0)

    loaded = load_scenario_text(SERVE_ONLY, "serve-only.yaml")
    sens = sensitivity(loaded, catalog, swing=0.2, result=serve_only)
    (bar,) = [b for b in sens.bars["api"]
              if b.path == "api_options.api.output_price_per_million_tokens"]
    # output fees are $1,500 of $3,500 a day: +-20% of them moves the NPV by +-$300 a day
    assert bar.metric_high - bar.metric_low == pytest.approx(2 * 300 * 365 * annuity, rel=1e-9)

    # groq: 0.59 in, 0.79 out; api: 0.2 in, x out. Equal when 1e10 x 0.2 + 2.5e9 x = 1e10 x
    # 0.59 + 2.5e9 x 0.79, x = (5,900 + 1,975 - 2,000) / 2,500 = 2.35 USD per million
    be = breakeven(loaded, catalog, "api_options.api.output_price_per_million_tokens", "api",
                   "groq", result=serve_only)
    assert be.crossings[0].value == pytest.approx(2.35, rel=1e-6)


def test_breakeven_names_api_options_among_what_it_accepts(serve_only, catalog):
    from tco.analysis.breakeven import breakeven
    from tco.errors import TcoError

    loaded = load_scenario_text(SERVE_ONLY, "serve-only.yaml")
    with pytest.raises(TcoError, match="no candidate or API option 'apx'"):
        breakeven(loaded, catalog, "api_options.api.output_price_per_million_tokens", "apx",
                  "groq", result=serve_only)


def test_the_compare_csv_lists_the_api_option_and_the_portfolio(catalog):
    """A CSV reader sees every way the plan can be delivered, the API and the portfolio
    included (the recommendation may be either), with the engine's NPVs."""
    import csv
    import io

    result = compute(load_scenario(SCENARIO), catalog)
    out = CliRunner().invoke(cli, ["compare", str(SCENARIO), "--format", "csv"])
    assert out.exit_code == 0, out.output
    rows = {r["id"]: r for r in csv.DictReader(io.StringIO(out.output))}
    api = rows["chat-api"]
    assert api["acquire"] == "api" and api["cards"] == "0"
    assert float(api["npv_tco"]) == result.candidate("chat-api").values["npv_tco"]
    assert float(api["chat.cost_per_million_output_tokens"]) == pytest.approx(0.30)
    assert api["gpu_hours_per_job"] == ""  # no cluster of its own
    (port,) = result.portfolios
    row = rows[port.id]
    assert row["acquire"] == "portfolio" and row["card"] == " + ".join(port.options)
    assert float(row["npv_tco"]) == port.values["npv_tco"]
    assert int(row["cards"]) == sum(int(result.candidate(o).inputs["cards"])
                                    for o in port.options)


# --- an API option the scenario prices itself -----------------------------------------------

OWN = SERVE_ONLY.replace(
    "  - {id: groq, api: groq-llama-3.3-70b}",
    "  - {id: own, input_price_per_million_tokens: 0.2, output_price_per_million_tokens: 0.6,\n"
    "     source: \"Quote ACME-77, 2026-11\"}")


def test_an_api_option_priced_by_the_scenario_needs_no_catalog_price(catalog):
    r = compute(load_scenario_text(OWN, "own.yaml"), catalog)
    own = r.candidate("own")
    # the same prices as option `api`: $2,000 + $1,500 a day, x 365 (test_api_fees_and_npv_by_hand)
    assert own.jobs["chat"]["cost_per_job"] == pytest.approx(1_277_500, rel=1e-12)
    assert own.values["npv_tco"] == pytest.approx(1_277_500 * 3.9927100371, rel=1e-9)


def test_an_api_option_priced_by_the_scenario_names_its_source_everywhere(tmp_path):
    (tmp_path / "own.yaml").write_text(OWN)
    res = CliRunner().invoke(cli, ["compare", str(tmp_path / "own.yaml"), "--format", "json"])
    assert res.exit_code == 0, res.output
    api = next(a for a in json.loads(res.output)["api_options"] if a["id"] == "own")
    assert api["name"] == "own"  # no provider to name it after: its id
    for key in ("input_price_per_million_tokens", "output_price_per_million_tokens"):
        assert api["prices"][key]["source"] == "Quote ACME-77, 2026-11"
    assert api["prices"]["output_price_per_million_tokens"]["value"] == 0.6


@pytest.mark.parametrize("option, message", [
    ("{id: own}", ("an API option needs its prices: `api` (a catalog price, `tco catalog list "
                   "--section api`) or both input_price_per_million_tokens and "
                   "output_price_per_million_tokens with their source; missing "
                   "input_price_per_million_tokens and output_price_per_million_tokens")),
    ("{id: own, input_price_per_million_tokens: 0.2, source: q}",
     "missing output_price_per_million_tokens"),
    ("{id: own, input_price_per_million_tokens: 0.2, output_price_per_million_tokens: 0.6}",
     "give the source of the prices (the provider's price page or your quote), as `source`"),
])
def test_an_api_option_without_a_price_is_one_clear_error(tmp_path, option, message):
    text = SERVE_ONLY.replace("  - {id: groq, api: groq-llama-3.3-70b}", f"  - {option}")
    (tmp_path / "s.yaml").write_text(text)
    res = CliRunner().invoke(cli, ["compare", str(tmp_path / "s.yaml")])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert message in res.output and "api_options.own" in res.output
    assert res.output.count("\n") == 1  # one line


def test_api_fees_after_tax_are_deducted_as_cloud_rent_is(catalog):
    """At 25 % tax with every cost qualifying R&D deducted twice, the fees (deducted as paid,
    as cloud rent and a plan's API fees are) keep 1 - 0.25 x 2 = 0.5 of themselves; with R&D
    at half its share, 1 - 0.25 x 1.5 = 0.625; without the super-deduction 0.75."""
    for finance, kept in ((("tax_rate: 0.25, tax_rd_share: 1, "
                            "tax_rd_extra_deduction_fraction: 1"), 0.5),
                          (("tax_rate: 0.25, tax_rd_share: 0.5, "
                            "tax_rd_extra_deduction_fraction: 1"), 0.625),
                          ("tax_rate: 0.25", 0.75)):
        text = SERVE_ONLY.replace("discount_rate: 0.08}", f"discount_rate: 0.08, {finance}}}")
        api = compute(load_scenario_text(text, "serve-only.yaml"), catalog).candidate("api")
        assert api.values["npv_tco_after_tax"] == pytest.approx(
            kept * 1_277_500 * 3.9927100371, rel=1e-9)
