"""The published serving cases of tests/data/serving_benchmarks.yaml, run through the default
model (tests/test_serving_calibration.py; docs/methodology.md §18)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from tco.engine import compute
from tco.scenario import load_scenario_text

DATA = Path(__file__).parent / "data" / "serving_benchmarks.yaml"


def benchmarks() -> dict[str, Any]:
    return yaml.safe_load(DATA.read_text())


def case_name(case: dict[str, Any]) -> str:
    return (f"{case['model']} {case['scenario']} {case['cards']}x{case['card']} "
            f"({case['source'].split('_')[-1].split(' ')[0]})")


def serve_job(catalog, case: dict[str, Any], data: dict[str, Any], *,
              prompt_tokens: float | None = None, assumptions: dict[str, float] | None = None
              ) -> dict[str, float]:
    """The serving job of a one-candidate scenario built from a published result: the model,
    the request shape, the scenario's objective, the card and card count; the vendor's own
    tuned engine, so the team knows the stack (familiarity 1)."""
    model = data["models"][case["model"]]
    work = {"id": "serve", "kind": "serve", "params": model["params"],
            "precision": case["precision"], "layers": model["layers"],
            "kv_heads": model["kv_heads"], "head_dim": model["head_dim"],
            "prompt_tokens": prompt_tokens or data["prompt_tokens"],
            "output_tokens": model["output_tokens"],
            # little traffic: the cluster of the submission always serves its peak
            "input_tokens_per_day": 1e6, "output_tokens_per_day": 1e6,
            **data["scenarios"][case["scenario"]]}
    if "active_params" in model:
        work["active_params"] = model["active_params"]
    stack = catalog.card(case["card"]).stack
    scenario = {"rent_options": "none", "workloads": [work],
                "candidates": [{"id": "cand", "card": case["card"], "cards": case["cards"]}],
                "team": {"familiarity": {stack: 1}}, "assumptions": assumptions or {}}
    (cand,) = compute(load_scenario_text(yaml.safe_dump(scenario), "serving calibration"),
                      catalog).candidates
    assert cand.feasible, cand.reasons
    return cand.jobs["serve"]


def error(catalog, case: dict[str, Any], data: dict[str, Any], **kw: Any) -> float:
    """Published / modelled tokens per second per card − 1 (positive: the model is slower)."""
    job = serve_job(catalog, case, data, **kw)
    return case["tokens_per_s"] / case["cards"] / job["tokens_per_s_per_card"] - 1
