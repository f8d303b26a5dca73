"""Analyses over the TCO engine: what-if, diff, sensitivity, break-even and Monte Carlo.

Each analysis calls the engine (tco.engine / tco.model) and returns plain data
(tco.analysis.types and the dataclasses of each module); the CLI and the exporters present it.
Modules are imported lazily so that `import tco.analysis` stays cheap.
"""

from __future__ import annotations

from typing import Any


def report_analyses(loaded: Any, catalog: Any, draws: int = 20000, seed: int = 1,
                    swing: str | float = "20%", result: Any = None) -> dict[str, object]:
    """The analyses shown in the workbook and the report: {"sensitivity": Sensitivity,
    "montecarlo": MonteCarlo} (no "montecarlo" when draws == 0). `result`, when given, is
    `compute(loaded, catalog)` already made (the analyses only read it)."""
    from ..engine import compute
    from ..gcpause import paused_gc
    from .common import DRAWS_OR_NONE, check_whole, parse_swing, priced_candidates
    from .montecarlo import check_draws, check_seed, montecarlo
    from .sensitivity import sensitivity

    draws = check_whole(draws, "--draws", 0, DRAWS_OR_NONE)  # 0: no Monte Carlo
    swing = parse_swing(swing)  # before any work: a bad option fails at once
    if draws:
        seed = check_seed(seed)
    if result is None:
        result = compute(loaded, catalog)
    if draws:
        check_draws(draws, len(priced_candidates(result)))
    with paused_gc():
        out: dict[str, object] = {
            "sensitivity": sensitivity(loaded, catalog, swing=swing, result=result)}
        if draws:
            out["montecarlo"] = montecarlo(result, draws=draws, seed=seed)
    return out
