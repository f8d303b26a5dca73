"""The published serving cases of tests/data/serving_benchmarks.yaml, run through the default
model (tests/test_serving_calibration.py; docs/methodology.md §18)."""

from __future__ import annotations

import math
import statistics
from pathlib import Path
from typing import Any

import yaml

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "serving_benchmarks.yaml"
# what the acceptance counts: latency-bound results (Offline is reported apart)
LATENCY_BOUND = ("Server", "Interactive", "frontier")


def benchmarks() -> dict[str, Any]:
    return yaml.safe_load(DATA.read_text())


def scenario_of(case: dict[str, Any]) -> str:
    return "frontier" if case.get("kind") == "frontier" else case["scenario"]


def case_name(case: dict[str, Any]) -> str:
    if case.get("kind") == "frontier":
        return (f"{case['model']} {case['precision']} at {case['tokens_per_s_per_user']:g} "
                f"tokens/s/user 8x{case['card']} (InferenceX)")
    parts = case["log"].split("/")
    who = case.get("submitter", parts[1])
    if parts[0] == "open":  # a stock engine: its system and model build name it
        who += f" {parts[3]} {parts[4]}"
    return (f"{case['model']} {case['scenario']} {case['cards']}x{case['card']} "
            f"{case['precision']} {who} ({case['source'].split('_')[-1].split(' ')[0]})")


def published(case: dict[str, Any], data: dict[str, Any]) -> float:
    """Published output tokens per second per card."""
    if case.get("kind") == "frontier":
        return case["tokens_per_s_per_gpu_total"] * data["frontier_output_share"]
    return case["tokens_per_s"] / case["cards"]


def scenario(catalog, case: dict[str, Any], data: dict[str, Any], *,
             prompt_tokens: float | None = None, assumptions: dict[str, float] | None = None,
             candidate: dict[str, float] | None = None) -> dict[str, Any]:
    """A one-candidate scenario built from a published result: the model, the request shape,
    the objective, the card and card count. A vendor's tuned engine runs with the team
    familiar with the stack (familiarity 1); a stock engine with a team new to it (0)."""
    model = data["models"][case["model"]]
    if case.get("kind") == "frontier":
        objective = {"tpot_ms": 1000.0 / case["tokens_per_s_per_user"], "latency_percentile": 50}
        prompt = prompt_tokens or data["frontier_prompt_tokens"]
        out, cards = model["output_tokens"], data["frontier_cards"]
    else:
        objective = dict(data["scenarios"][case["scenario"]])
        prompt = prompt_tokens or data["prompt_tokens"]
        out, cards = case.get("output_tokens") or model["output_tokens"], case["cards"]
    work = {"id": "serve", "kind": "serve", "params": model["params"],
            "precision": case["precision"], "layers": model["layers"],
            "kv_heads": model["kv_heads"], "head_dim": model["head_dim"],
            "prompt_tokens": prompt, "output_tokens": out,
            # little traffic: the cluster of the submission always serves its peak
            "input_tokens_per_day": 1e6, "output_tokens_per_day": 1e6, **objective}
    if "active_params" in model:
        work["active_params"] = model["active_params"]
    stack = catalog.card(case["card"]).stack
    familiar = 0 if case.get("tuning") == "stock" else 1
    return {"rent_options": "none", "workloads": [work],
            "candidates": [{"id": "cand", "card": case["card"], "cards": cards,
                            **(candidate or {})}],
            "team": {"familiarity": {stack: familiar}}, "assumptions": assumptions or {}}


def serve_job(catalog, case: dict[str, Any], data: dict[str, Any], **kw: Any
              ) -> dict[str, float]:
    sc = scenario(catalog, case, data, **kw)
    (cand,) = compute(load_scenario_text(yaml.safe_dump(sc), "serving calibration"),
                      catalog).candidates
    if not cand.feasible:
        return {"tokens_per_s_per_card": 0.0, "tensor_parallel": 0.0,
                "batch_sequences": 0.0}
    return cand.jobs["serve"]


def error(catalog, case: dict[str, Any], data: dict[str, Any], **kw: Any) -> float:
    """Published / modelled tokens per second per card − 1 (positive: the model is slower);
    a case the model cannot serve at all (no batch meets the objective) is +inf."""
    job = serve_job(catalog, case, data, **kw)
    modelled = job["tokens_per_s_per_card"]
    return published(case, data) / modelled - 1 if modelled > 0 else math.inf


def summary(errors: list[float]) -> tuple[int, float, float]:
    """(count, median |error|, largest |error|)."""
    mags = [abs(e) for e in errors]
    return len(mags), statistics.median(mags), max(mags)
