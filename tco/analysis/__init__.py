"""Analyses over the TCO engine: what-if, diff, sensitivity, break-even and Monte Carlo.

Each analysis calls the engine (tco.engine / tco.model) and returns plain data
(tco.analysis.types and the dataclasses of each module); the CLI and the exporters present it.
Modules are imported lazily so that `import tco.analysis` stays cheap.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def report_analyses(loaded: Any, catalog: Any, draws: int = 20000, seed: int = 1,
                    swing: str | float = "20%", result: Any = None) -> dict[str, object]:
    """The analyses shown in the workbook and the report: {"sensitivity": Sensitivity,
    "montecarlo": MonteCarlo} (no "montecarlo" when draws == 0). `result`, when given, is
    `compute(loaded, catalog)` already made (the analyses only read it)."""
    return dict(each_report_analysis(loaded, catalog, draws, seed, swing, result))


def each_report_analysis(loaded: Any, catalog: Any, draws: int = 20000, seed: int = 1,
                         swing: str | float = "20%", result: Any = None
                         ) -> Iterator[tuple[str, object]]:
    """`report_analyses` one at a time, (name, analysis), each as soon as it is done: the
    sensitivity, then the Monte Carlo (tco report hands the first to the workbook's process
    while the second runs). The options are checked before the first is computed."""
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
        yield "sensitivity", sensitivity(loaded, catalog, swing=swing, result=result)
        if draws:
            yield "montecarlo", montecarlo(result, draws=draws, seed=seed)
