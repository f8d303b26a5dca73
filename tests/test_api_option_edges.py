"""Where the per-token API option meets the other features (units, what-if, Monte Carlo): each
test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tco.inputs as inputs_module
from tco.exporters.i18n import Strings, Words
from tco.inputs import InputSpec


def _units() -> set[str]:
    """Every unit an input may carry (tco/inputs.py's tables of InputSpec)."""
    out: set[str] = set()
    for value in vars(inputs_module).values():
        if isinstance(value, dict) and value and all(
                isinstance(v, InputSpec) for v in value.values()):
            out |= {v.unit for v in value.values()}
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_input_unit_shows_the_word_money(lang):
    """The API's prices are in money/1e6 tokens: the report and the workbook showed that text
    as it is ("money/1e6 tokens", in Chinese too) instead of the currency's unit."""
    units = sorted(u for u in _units() if "money" in u)
    assert "money/1e6 tokens" in units
    for unit in units:
        for shown in (Strings(lang).unit(unit, "USD"), Words(lang).strings.unit(unit, "USD")):
            assert "money" not in shown and shown.startswith("USD"), (unit, shown)
    assert Strings("en").unit("money/1e6 tokens", "CNY") == "CNY/million tokens"
    assert Strings("zh").unit("money/1e6 tokens", "CNY") == "CNY/百万词元"


def _serve_only(catalog):
    from test_api_option import SERVE_ONLY

    from tco.engine import compute
    from tco.scenario import load_scenario_text

    return compute(load_scenario_text(SERVE_ONLY, "serve-only.yaml"), catalog)


# The API option `api` of test_api_option.SERVE_ONLY, by hand: (1e10 prompt tokens x 0.2 +
# 2.5e9 output tokens x 0.6) / 1e6 = 3,500 USD a day, x 365 = 1,277,500 a year, paid at the
# end of years 1..5 at 8 %: x (1 - 1.08^-5) / 0.08 = 3.99271 -> 5,100,687.
API_NPV = 1_277_500 * (1 - 1.08 ** -5) / 0.08


def test_monte_carlo_weighs_the_api_that_is_recommended(catalog):
    """The 8-card H200 cannot serve the peak and the API, the option recommended, has no
    uncertain input here: it is the cheapest option in every draw. Monte Carlo used to leave
    API options out (here: "no feasible candidate to simulate"; beside cards: P(cheapest)
    shared among the cards alone)."""
    from tco.analysis.montecarlo import montecarlo
    from tco.decide import recommend_option as recommend

    r = _serve_only(catalog)
    assert recommend(r).option == "api"
    assert r.candidate("api").values["npv_tco"] == pytest.approx(API_NPV, rel=1e-9)
    for metric in ("cost_per_job", "cost_per_million_output_tokens"):
        mc = montecarlo(r, draws=500, seed=3, metric=metric)
        assert mc.prob_cheapest["api"] == 1.0
        assert mc.prob_cheapest["groq"] == 0.0
        p = mc.percentiles["api"]["npv_tco"]
        assert p["p10"] == pytest.approx(API_NPV) and p["p90"] == pytest.approx(API_NPV)
    assert mc.percentiles["api"][metric]["p50"] == pytest.approx(0.6)  # its output price


def test_whatif_of_an_api_price_shows_the_api_and_the_recommendation_it_moves(catalog):
    """A what-if of an API's prices used to list only the cards, each "unchanged", though the
    API's NPV and the recommendation moved. Rented, 32 H200s serve the plan for less than the
    API at 0.2/0.6 (test_api_option); at 0.01/0.01 the API costs (1e10 + 2.5e9) x 0.01 / 1e6
    = 125 USD a day, 45,625 a year, x 3.99271 = 182,167 over 5 years at 8 %: it wins."""
    from test_api_option import SERVE_ONLY

    from tco.analysis.whatif import whatif
    from tco.exporters.analysis_view import comparison_table
    from tco.scenario import load_scenario_text

    loaded = load_scenario_text(SERVE_ONLY.replace("cards: 8}", "cards: 32, acquire: rent}"),
                                "big.yaml")
    c = whatif(loaded, catalog, ["api_options.api.input_price_per_million_tokens=0.01",
                                 "api_options.api.output_price_per_million_tokens=0.01"])
    api = next(x for x in c.candidates if x.id == "api")
    assert api.npv.before == pytest.approx(API_NPV)
    assert api.npv.after == pytest.approx(45_625 * (1 - 1.08 ** -5) / 0.08)
    assert "the recommendation changes: api (was h200)" in c.notes
    table = comparison_table(c)
    assert "api: NPV of TCO $5.10M -> $182k" in table
    assert "NOTE: the recommendation changes: api (was h200)" in table


def test_a_distribution_may_be_given_for_an_api_price(catalog):
    """`distributions:` was checked before the API options' prices were made, so a scenario
    could not say how uncertain an API's price is ("no input 'api_options...'")."""
    from test_api_option import SERVE_ONLY

    from tco.analysis.montecarlo import drawn_inputs, montecarlo
    from tco.engine import compute
    from tco.scenario import load_scenario_text

    path = "api_options.api.output_price_per_million_tokens"
    text = SERVE_ONLY + f"""distributions:
  {path}: {{dist: triangular, low: 0.5, high: 0.7}}
"""
    r = compute(load_scenario_text(text, "uncertain-api.yaml"), catalog)
    drawn = drawn_inputs(r, draws=400, seed=2)[path]
    assert 0.5 <= drawn.min() < 0.55 and 0.65 < drawn.max() <= 0.7
    mc = montecarlo(r, draws=400, seed=2)
    assert path in mc.varied
    # the NPV is linear in the output price: 2.5e9 x 365 / 1e6 x 3.99271 = 3,643,348 per USD
    per_usd = 2.5e9 * 365 / 1e6 * (1 - 1.08 ** -5) / 0.08
    assert mc.percentiles["api"]["npv_tco"]["p50"] == pytest.approx(
        API_NPV + per_usd * (float(np.median(drawn)) - 0.6), rel=1e-9)


def test_sensitivity_shows_the_api_options(catalog):
    """The API, recommended here, had no tornado: sensitivity covered the cards alone. Its
    prompt price 0.2 moved 20 %: 1e10 tokens a day x 0.04 / 1e6 x 365 = 146,000 a year,
    x 3.99271 = 582,935 either way."""
    from test_api_option import SERVE_ONLY

    from tco.analysis.sensitivity import sensitivity
    from tco.scenario import load_scenario_text

    loaded = load_scenario_text(SERVE_ONLY, "serve-only.yaml")
    s = sensitivity(loaded, catalog, swing=0.2, result=_serve_only(catalog))
    assert s.baseline["api"] == pytest.approx(API_NPV)
    bar = next(b for b in s.bars["api"]
               if b.path == "api_options.api.input_price_per_million_tokens")
    step = 146_000 * (1 - 1.08 ** -5) / 0.08
    assert bar.metric_low == pytest.approx(API_NPV - step)
    assert bar.metric_high == pytest.approx(API_NPV + step)


@pytest.mark.parametrize("command", [
    ["sensitivity", "--metric", "cost_per_million_output_tokens"],
    ["breakeven", "--vary", "candidates.h100-sxm.card_price", "--candidate", "h100-sxm",
     "--vs", "h200-sxm", "--metric", "cost_per_million_output_tokens"],
])
def test_the_serving_metric_follows_the_output_schema(command):
    """Both commands take --metric cost_per_million_output_tokens; their schema allowed only
    npv_tco and cost_per_job."""
    import json

    from click.testing import CliRunner
    from test_json_schema import validator

    from tco.cli import cli
    from tco.resources import example_scenario

    scenario = str(example_scenario().parent / "train-and-serve.yaml")
    out = CliRunner().invoke(cli, [command[0], scenario, *command[1:], "--format", "json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["metric"] == "cost_per_million_output_tokens"
    assert not list(validator(command[0]).iter_errors(data))


def test_breakeven_of_the_cost_per_token_compares_the_cost_per_token(catalog):
    """The break-even's baseline and its refining step read the cost per run under the
    serving metric: it printed the H100's cost per million output tokens as $1.17M (a training
    run) and found no break-even where the cost per token of the two clusters does cross."""
    from tco.analysis.breakeven import breakeven
    from tco.analysis.settings import apply_values
    from tco.engine import compute
    from tco.resources import example_scenario
    from tco.scenario import load_scenario

    metric, path = "cost_per_million_output_tokens", "candidates.h100-sxm.card_price"
    loaded = load_scenario(example_scenario().parent / "train-and-serve.yaml")
    result = compute(loaded, catalog)
    b = breakeven(loaded, catalog, path, "h100-sxm", "h200-sxm", metric, result=result)
    assert b.base_a == result.candidate("h100-sxm").jobs["chat"][metric] < 1.0
    assert b.base_b == result.candidate("h200-sxm").jobs["chat"][metric]
    (x,) = [c.value for c in b.crossings]
    at = compute(apply_values(loaded, {path: x}, "at the break-even"), catalog)
    assert at.candidate("h100-sxm").jobs["chat"][metric] == pytest.approx(
        at.candidate("h200-sxm").jobs["chat"][metric], rel=1e-6)


WINS = Path(__file__).with_name("data") / "review_api_wins.yaml"
ANNUITY_3Y = (1 - 1.08 ** -3) / 0.08  # 3 years at 8 %: 2.577097


def test_breakeven_of_two_rent_options_sizes_their_sources(frozen):
    """A generated rent option reads its source's size and layout; the break-even left the
    sources unsized and laid out by default, so h100-rent cost $2.37M at the baseline price
    ($304k in tco compare) and the break-even came out at 0.53 USD/card-hour. Both rent on
    demand (a few runs a year: a committed reservation, paid for every hour, costs more), and
    a rent option's NPV is then its rent, proportional to the on-demand price: they cross at
    3.49 x NPV(h200-rent) / NPV(h100-rent) = 3.49 x 381,922 / 450,836 = 2.957."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data)
    from tco.analysis.breakeven import breakeven
    from tco.engine import compute
    from tco.scenario import load_scenario

    loaded = load_scenario(WINS)
    r = compute(loaded, catalog)
    a, b = (r.candidate(c).values["npv_tco"] for c in ("h100-rent", "h200-rent"))
    assert r.candidate("h100-rent").values["rent_on_demand"] == 1
    out = breakeven(loaded, catalog, "candidates.h100.on_demand_price_per_card_hour",
                    "h100-rent", "h200-rent", result=r)
    (x,) = [c.value for c in out.crossings]
    assert x == pytest.approx(3.49 * b / a, rel=1e-5)


def test_breakeven_takes_an_api_option(frozen):
    """`--candidate groq` was "no candidate 'groq'". Groq's NPV grows by 5e8 output tokens a
    day x 365 / 1e6 x 2.577097 = 470,320 per USD of its output price (0.1): it meets
    h100-rent's NPV at 0.1 + (NPV(h100-rent) - NPV(groq)) / 470,320 (about 0.759)."""
    catalog = frozen  # hand-worked on the pre-2026-12 prices (tests/data)
    from tco.analysis.breakeven import breakeven
    from tco.engine import compute
    from tco.scenario import load_scenario

    loaded = load_scenario(WINS)
    r = compute(loaded, catalog)
    rent, api = (r.candidate(c).values["npv_tco"] for c in ("h100-rent", "groq"))
    per_usd = 5e8 * 365 / 1e6 * ANNUITY_3Y
    out = breakeven(loaded, catalog, "api_options.groq.output_price_per_million_tokens",
                    "groq", "h100-rent", result=r)
    (x,) = [c.value for c in out.crossings]
    assert x == pytest.approx(0.1 + (rent - api) / per_usd, rel=1e-5)
    assert 0.88 < x < 0.89  # h100-rent rents on demand: 510,487
