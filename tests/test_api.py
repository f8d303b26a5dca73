"""The Python API (tco.api, docs/api.md): the same numbers and errors as the CLI."""

import doctest
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import tco
from tco.errors import ScenarioError
from tco.resources import example_scenario

ROOT = Path(__file__).resolve().parents[1]
SMALL = """
name: small
workloads:
  - {id: w, params: 7e9, tokens: 1e11, runs_per_year: 2}
candidates:
  - {id: h100, card: h100-sxm, cards: 64}
  - {id: mi300x, card: mi300x, cards: 64}
"""


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tco", *args], capture_output=True, text=True,
                          cwd=ROOT, check=False)


def test_docs_api_examples_run():
    failed, tried = doctest.testfile(str(ROOT / "docs" / "api.md"), module_relative=False)
    assert tried >= 10 and failed == 0


def test_compare_frame_equals_the_cli_json_for_every_option():
    data = json.loads(cli("compare", "--format", "json").stdout)
    frame = tco.compare().to_frame()
    plans = ["plan"] + [f"plan-{o['option']}" for o in data["plan"]["options"]]
    assert list(frame.index) == [c["id"] for c in data["candidates"]] + plans
    for c in data["candidates"]:
        got = frame.loc[c["id"], "npv_tco"]
        assert math.isnan(got) if c["npv_tco"] is None else got == c["npv_tco"]
    # the plans' rows (kind plan), the recommendation's among them
    assert set(frame.loc[plans, "kind"]) == {"plan"}
    assert frame.loc["plan", "npv_tco"] == data["plan"]["npv_tco"]
    assert data["recommendation"]["option"] in frame.index


@pytest.mark.parametrize("kind", ["path", "str-path", "text", "dict"])
def test_a_scenario_is_a_path_text_or_dict(tmp_path, kind):
    import yaml

    file = tmp_path / "s.yaml"
    file.write_text(SMALL, encoding="utf-8")
    source = {"path": file, "str-path": str(file), "text": SMALL,
              "dict": yaml.safe_load(SMALL)}[kind]
    got = tco.compare(source).to_dict()
    want = json.loads(cli("compare", str(file), "--format", "json").stdout)
    assert [c["npv_tco"] for c in got["candidates"]] == [
        c["npv_tco"] for c in want["candidates"]]


def test_errors_carry_the_cli_message(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("cards: 64}", "cards: 64, card_prise: 3}", 1), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        tco.compare(bad)
    out = cli("compare", str(bad))
    assert out.returncode == 2
    assert str(exc.value) in out.stderr
    assert "card_prise" in str(exc.value)


def test_whatif_takes_a_mapping_of_input_paths():
    change = tco.whatif({"facility.electricity_price_per_kwh": 0.12})
    data = json.loads(cli("whatif", "--set", "facility.electricity_price_per_kwh=0.12",
                          "--format", "json").stdout)
    after = {c["id"]: c["npv_tco"]["after"] for c in data["candidates"]}
    assert {c.id: c.npv.after for c in change.candidates} == after


def test_frames_by_workload_and_year():
    run = tco.compare(example_scenario())
    jobs, years = run.jobs_frame(), run.yearly_frame()
    b200 = run.result.candidate("b200")
    assert jobs.loc[("b200", "llama-70b"), "wall_days"] == b200.job["wall_days"]
    horizon = run.result.structure.horizon_years
    assert len(years.loc["b200"]) == horizon + 1
    # the running total of the last year is the undiscounted TCO (methodology section 7)
    assert years.loc[("b200", horizon), "cumulative"] == pytest.approx(
        b200.values["undiscounted_tco"], rel=1e-12)
    assert "<pre>" in run._repr_html_() and "b200" in run._repr_html_()


def test_import_tco_stays_light():
    code = ("import sys, tco; "
            "print(sorted(m for m in ('pandas', 'numpy', 'pydantic') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


def _mix() -> str:
    """Eight H200s train but cannot serve the peak: the portfolio (train on them, serve by
    the API) is recommended (tests/test_api_option.py, the same plan)."""
    from test_api_option import SERVE_ONLY

    text = SERVE_ONLY.replace(
        "workloads:\n  - id: chat",
        "workloads:\n  - {id: pre, params: 7e9, tokens: 1e11, runs_per_year: 2}\n  - id: chat")
    text = text.replace("  - {id: h200, card: h200-sxm, cards: 8}",
                        "  - {id: h200, card: h200-sxm, cards: 8}\n"
                        "  - {id: h200-train, card: h200-sxm, cards: 8, workloads: [pre]}")
    return text + "portfolios:\n  - {id: mix, options: [h200-train, api]}\n"


def test_recommended_is_the_recommendation_a_portfolio_or_an_api_included():
    from test_api_option import SERVE_ONLY

    for text, want in ((_mix(), "mix"), (SERVE_ONLY, "api"), (None, None)):
        run = tco.compare(text)
        rec = run.to_dict()["recommendation"]
        assert run.recommended == rec["option"] == "plan"  # planned: the plan
        assert run.best_option == rec["best_option"]["option"]
        assert want is None or run.best_option == want
        assert run.best_option in run.to_frame().index and "plan" in run.to_frame().index


def test_the_frame_has_a_row_for_each_portfolio_and_api_option():
    run = tco.compare(_mix())
    data, frame = run.to_dict(), run.to_frame()
    want = ([(c["id"], "candidate") for c in data["candidates"]]
            + [(a["id"], "api") for a in data["api_options"]]
            + [(p["id"], "portfolio") for p in data["portfolios"]]
            + [("plan", "plan")] + [(f"plan-{o['option']}", "plan")
                                    for o in data["plan"]["options"]])
    assert list(zip(frame.index, frame["kind"])) == want
    assert list(frame.columns[:2]) == ["rank", "kind"]
    for option in data["api_options"] + data["portfolios"]:
        assert frame.loc[option["id"], "npv_tco"] == option["npv_tco"]
        assert frame.loc[option["id"], "rank"] is tco.api._pandas().NA  # not ranked
    assert frame.loc["mix", "options"] == "h200-train; api"
    assert frame.loc["mix", "acquire"] == "portfolio" and frame.loc["api", "acquire"] == "api"
    # the portfolio is the plan's two parts costed together (methodology section 18)
    assert frame.loc["mix", "npv_tco"] == pytest.approx(
        frame.loc["h200-train", "npv_tco"] + frame.loc["api", "npv_tco"], rel=1e-12)
    assert list(frame["rank"].dropna()) == list(range(1, len(data["candidates"]) + 1))
