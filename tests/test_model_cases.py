"""Hand-checked model cases and the JSON contract of `tco job` and `tco compare` (issue 2, s. 5-6).

Everything goes through the command line with click's CliRunner on `tco.cli.cli`, so these tests
also cover argument parsing and the exit status.
"""

import json

import numpy_financial as npf
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.model import COMPONENTS, JOB_COMPONENTS
from tco.scenario import load_scenario_text

JOB_KEYS = {"card", "cards", "train_flops", "gpu_hours", "wall_days", "energy_kwh", "co2e_kg",
            "cost", "currency", "feasible", "reasons", "notes", "flags", "blocking"}
COMPARE_CANDIDATE_KEYS = {"id", "card", "cards", "feasible", "gpu_hours_per_job",
                          "wall_days_per_job", "cost_per_job", "npv_tco", "undiscounted_tco",
                          "cost_per_gpu_hour", "cost_per_pflop_hour", "yearly"}


def run_json(*args: str) -> dict:
    res = CliRunner().invoke(cli, list(args))
    assert res.exit_code == 0, res.output
    return json.loads(res.output)


# --- training compute ------------------------------------------------------------------------


def test_gpt3_training_flops():
    # Brown et al. 2020 (arXiv 2005.14165): 175B parameters, 300B tokens.
    # 6 x 175e9 x 300e9 = 6 x 5.25e22 = 3.15e23 FLOP (the paper's table D.1 gives 3.14e23),
    # plus attention (PaLM App. B: 12·L·h·s per token). By hand: h = (128 x 175e9 / 12)^(1/3)
    # = 12,311.4, L = h / 128 = 96.18, s = 4,096 (the default context): 12 x 96.18 x 12,311.4
    # x 4,096 = 5.820e10 FLOP per token, 5.5% on 6N = 1.05e12: (1.05e12 + 5.820e10) x 300e9.
    out = run_json("job", "--model-params", "175e9", "--tokens", "300e9", "--card", "h100-sxm",
                   "--cards", "1024", "--format", "json")
    assert out["train_flops"] == pytest.approx((1.05e12 + 5.820e10) * 300e9, rel=1e-3)


def test_moe_uses_active_parameters():
    # A mixture of experts costs 6 x active params x tokens: 6 x 37e9 x 1e12 = 2.22e23, plus
    # attention of the active width: h = (128 x 37e9 / 12)^(1/3) = 7,335, L = 57.3, s = 4,096:
    # 12 x 57.3 x 7,335 x 4,096 = 2.064e10 per token (not 671e9's).
    out = run_json("job", "--model-params", "671e9", "--active-params", "37e9", "--tokens",
                   "1e12", "--card", "h200-sxm", "--cards", "2048", "--format", "json")
    assert out["train_flops"] == pytest.approx((2.22e11 + 2.064e10) * 1e12, rel=1e-3)


# --- infeasible: memory ----------------------------------------------------------------------


def test_70b_on_eight_24gb_cards_is_infeasible_for_memory():
    # Mixed-precision Adam state alone: 16 bytes x 70e9 = 1,120 GB, i.e. 140 GB per card even
    # fully sharded over 8 cards, against 24 GB x 0.9 = 21.6 GB usable per RTX 4090.
    out = run_json("job", "--model-params", "70e9", "--tokens", "2e12", "--card", "rtx-4090",
                   "--cards", "8", "--format", "json")
    assert out["feasible"] is False
    assert out["memory_usable_gb"] == pytest.approx(21.6)
    assert out["memory_needed_gb"] > 140
    (reason,) = out["reasons"]
    assert "needs" in reason and "GB per card" in reason and "21.6 GB usable" in reason
    assert "8 cards x 24 GB" in reason
    assert reason not in out["notes"]  # reasons are reasons, not notes as well


def test_70b_infeasible_candidate_ranks_last_in_compare(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "workloads:\n  - {id: l70, params: 70e9, tokens: 2e12}\n"
        "candidates:\n  - {id: gaming, card: rtx-4090, cards: 8}\n"
        "  - {id: h100, card: h100-sxm, cards: 64}\n", encoding="utf-8")
    out = run_json("compare", str(path), "--format", "json")
    ids = [c["id"] for c in out["candidates"]]
    # rent_options: auto adds an option renting each card: both infeasible options rank last
    # (by id), after the two feasible ones in either order
    assert set(ids[:2]) == {"h100", "h100-rent"} and ids[2:] == ["gaming", "gaming-rent"]
    for gaming in out["candidates"][2:]:
        assert gaming["feasible"] is False
        assert any("GB per card" in r for r in gaming["reasons"])


# --- precision: the fp64 case ----------------------------------------------------------------

FP64_SCENARIO = """
workloads:
  - {id: sim, params: 1e9, tokens: 1e10, precision: fp64}
candidates:
  - {id: h100, card: h100-sxm, cards: 8}
  - {id: rtx, card: rtx-4090, cards: 8}
  - {id: l40s, card: l40s, cards: 8}
  - {id: gaudi2, card: gaudi2, cards: 8}
  - {id: ascend, card: ascend-910b, cards: 8}
"""


@pytest.fixture(scope="module")
def fp64(catalog):
    result = compute(load_scenario_text(FP64_SCENARIO), catalog)
    return {c.id: c for c in result.candidates}


def test_fp64_workload_uses_the_fp64_peak(fp64):
    # Catalog: H100 SXM FP64 (tensor) 67 TFLOPS, MFU 0.40, CUDA team factor 1.0, and the
    # model's compute_to_published_mfu_ratio 1.19 (pricing/assumptions.yaml)
    #   -> 67e12 x 0.40 x 1.19 = 3.1892e13 FLOP/s per card while computing.
    # RTX 4090 FP64 1.29 TFLOPS (1/64 rate), MFU 0.30 -> 1.29e12 x 0.30 x 1.19 = 4.6053e11.
    assert fp64["h100"].job["sustained_flops_per_card"] == pytest.approx(3.1892e13)
    assert fp64["rtx"].job["sustained_flops_per_card"] == pytest.approx(4.6053e11)
    # L40S FP64 1.4 TFLOPS, MFU 0.33 -> 1.4e12 x 0.33 x 1.19 = 5.4978e11 FLOP/s.
    assert fp64["l40s"].job["sustained_flops_per_card"] == pytest.approx(5.4978e11)


def test_cards_with_reduced_fp64_are_far_slower(fp64):
    h100 = fp64["h100"].job["gpu_hours"]
    # 3.1892e13 / 4.6053e11 = 69x on sustained compute; the layouts change it a little.
    assert fp64["rtx"].job["gpu_hours"] / h100 > 50
    assert fp64["l40s"].job["gpu_hours"] / h100 > 50
    for cid in ("h100", "rtx", "l40s"):
        assert fp64[cid].feasible


def test_cards_without_fp64_are_infeasible(fp64):
    for cid in ("gaudi2", "ascend"):
        c = fp64[cid]
        assert not c.feasible
        assert not c.priced
        assert any("no FP64 support" in r for r in c.reasons), c.reasons


def test_bf16_workload_does_not_use_fp64_peak(catalog):
    text = FP64_SCENARIO.replace("precision: fp64", "precision: bf16")
    cands = {c.id: c for c in compute(load_scenario_text(text), catalog).candidates}
    # 989.4e12 x 0.40 x 1.19 = 4.709544e14
    assert cands["h100"].job["sustained_flops_per_card"] == pytest.approx(4.709544e14)
    assert cands["gaudi2"].feasible and cands["ascend"].priced


# --- JSON contract: tco job ------------------------------------------------------------------


def test_job_json_contract():
    out = run_json("job", "--model-params", "70e9", "--tokens", "2e12", "--card", "h100-sxm",
                   "--cards", "1024", "--precision", "bf16", "--mfu", "0.4", "--format", "json")
    assert JOB_KEYS <= set(out)
    assert out["card"] == "h100-sxm"
    assert out["cards"] == 1024 and isinstance(out["cards"], int)
    assert out["currency"] == "USD"
    assert out["feasible"] is True
    assert isinstance(out["notes"], list)
    # 6 x 70e9 x 2e12 = 8.4e23, plus attention: h = (128 x 70e9 / 12)^(1/3) = 9,073,
    # L = 70.9, s = 4,096: 12 x 70.9 x 9,073 x 4,096 = 3.161e10 per token, x 2e12 = 6.32e22
    assert out["train_flops"] == pytest.approx(8.4e23 + 6.32e22, rel=1e-3)
    assert out["gpu_hours"] == pytest.approx(out["wall_days"] * 24 * 1024)
    assert out["energy_kwh"] > 0 and out["co2e_kg"] > 0
    cost = out["cost"]
    assert set(cost) == {"total", *JOB_COMPONENTS}
    assert cost["total"] == pytest.approx(sum(cost[k] for k in JOB_COMPONENTS))
    assert cost["porting"] == 0  # CUDA team on a CUDA card


def test_job_json_mfu_option_changes_throughput():
    base = ["job", "--model-params", "70e9", "--tokens", "2e12", "--card", "h100-sxm",
            "--cards", "1024", "--format", "json"]
    slow = run_json(*base, "--mfu", "0.2")
    fast = run_json(*base, "--mfu", "0.4")
    # Twice the MFU; communication grows with throughput, so slightly less than half the hours.
    assert 0.5 < fast["gpu_hours"] / slow["gpu_hours"] < 0.56


def test_job_bad_card_is_one_line_error():
    res = CliRunner().invoke(cli, ["job", "--model-params", "7e9", "--tokens", "1e11",
                                   "--card", "h100-sxn", "--cards", "8"])
    assert res.exit_code == 2
    assert "h100-sxm" in res.output  # did-you-mean suggestion
    assert "Traceback" not in res.output


# --- JSON contract: tco compare --------------------------------------------------------------


@pytest.fixture(scope="module")
def compare_out():
    return run_json("compare", "--format", "json")


def test_compare_json_contract(compare_out):
    assert compare_out["currency"] == "USD"
    cands = compare_out["candidates"]
    assert len(cands) >= 6
    for c in cands:
        if not c["feasible"] and "npv_tco" not in c:
            continue  # unpriced: see test_compare_json_keys_present_for_unpriced_candidates
        assert COMPARE_CANDIDATE_KEYS <= set(c), c["id"]
        assert isinstance(c["cards"], int)
        years = c["yearly"]
        assert [y["year"] for y in years] == list(range(compare_out["horizon_years"] + 1))
        for y in years:
            assert set(COMPONENTS) <= set(y)
            assert y["net"] == pytest.approx(sum(y[k] for k in COMPONENTS))
        nets = [y["net"] for y in years]
        assert c["undiscounted_tco"] == pytest.approx(sum(nets))
        # Example scenario discounts at 8 %; first flow at t=0 as numpy-financial does.
        assert c["npv_tco"] == pytest.approx(npf.npv(0.08, nets), rel=1e-12)


def test_compare_ranking(compare_out):
    cands = compare_out["candidates"]
    feas = [c["feasible"] for c in cands]
    assert feas == sorted(feas, reverse=True)  # infeasible ones last
    complete = [c for c in cands if c["feasible"] and c["runs_per_year"] is not None
                and not any("completes only" in n for n in c["notes"]) and not c["blocking"]]
    npvs = [c["npv_tco"] for c in complete]
    # cheapest first among those completing all planned runs that may be bought here
    assert npvs == sorted(npvs)
    assert cands[: len(complete)] == complete


def test_compare_json_keys_present_for_unpriced_candidates(tmp_path):
    path = tmp_path / "fp64.yaml"
    path.write_text(FP64_SCENARIO, encoding="utf-8")
    out = run_json("compare", str(path), "--format", "json")
    for c in out["candidates"]:
        assert COMPARE_CANDIDATE_KEYS <= set(c), c["id"]


def test_compare_csv_and_table_run():
    for fmt in ("csv", "table"):
        res = CliRunner().invoke(cli, ["compare", "--format", fmt])
        assert res.exit_code == 0, res.output
        assert "h100-sxm" in res.output
