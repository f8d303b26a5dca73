"""When the best option as typed costs less than the recommended plan, the recommendation says
so, with what the option costs held to the plan's terms, instead of "costs X, -Y more". Here
the typed rented H200 serves at spot prices (rent_pricing: spot), which the planner does not
serve on (methodology §19): as typed it costs less than the plan; held to the plan's terms it
costs what the plan does."""

from __future__ import annotations

import pytest

import tco

SPOT_SERVING = """
name: serving on rented H200 at spot prices
currency: USD
rent_pricing: spot
finance: {horizon_years: 1}
workloads:
  - {id: chat, kind: serve, params: 7.0e+10, precision: fp8, layers: 80, kv_heads: 8,
     head_dim: 128, input_tokens_per_day: 2.0e+10, output_tokens_per_day: 5.0e+9,
     peak_to_average: 2, prompt_tokens: 2000, output_tokens: 500, ttft_ms: 2000, tpot_ms: 50}
candidates:
  - {id: h200-sxm, card: h200-sxm, cards: 1024}
facility: {region: us}
"""


def test_a_typed_option_cheaper_than_the_plan_is_said_to_be_and_why():
    run = tco.compare(SPOT_SERVING)
    rec = run.to_dict()["recommendation"]
    codes = {r["code"]: r["figures"] for r in rec["reason_codes"]}
    plan = run.result.plans[0]
    typed = run.result.candidate("h200-sxm-rent").values["npv_tco"]
    held = next(p for p in run.result.plans if p.option == "h200-sxm-rent")
    assert "plan_best_option" not in codes  # "costs X, -Y more"
    less = codes["plan_best_option_less"]
    assert less["option"] == "h200-sxm-rent"
    assert less["npv"] == pytest.approx(typed, rel=1e-12)
    assert less["diff"] == pytest.approx(plan.npv_tco - typed, rel=1e-12) and less["diff"] > 0
    assert codes["plan_option_held"]["npv"] == pytest.approx(held.npv_tco, rel=1e-12)
    words = " ".join(rec["reasons"])
    assert "less than the plan, on its own terms" in words and "-$" not in words
