"""The scenario's `benchmarks:`: results the user measured replace the catalog's efficiencies
on every option of their card. Solving a benchmark for its efficiency inverts the model
(tco.measured, a layer above this one), so the caller solves them first and hands the
`Measured` figures in (tco.engine.resolve_scenario)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..benchmarks import spec_of
from ..inputs import Input

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ..benchmarks import Measured
    from ..resolved import CandidateInfo
    from .state import Resolution


def apply_benchmarks(r: Resolution, infos: dict[str, CandidateInfo],
                     measured: Sequence[Measured] | None) -> None:
    """Each benchmark's efficiencies replace the catalog's on every option of its card (not a
    figure the scenario gives the option), with a note saying where they came from; a serving
    one only when a workload serves."""
    if not r.sc.benchmarks:
        return
    if measured is None:
        raise ValueError("a scenario with benchmarks: resolve it with tco.engine."
                         "resolve_scenario, which solves them (tco.measured) first")
    for m in measured:
        serving = any(k.startswith("measured_serving_efficiency_") for k in m.inputs)
        if serving and not r.serves:
            continue
        for cid, info in infos.items():
            if info.card != m.card:
                continue
            own = info.inputs_of or cid
            for key, (value, source) in m.inputs.items():
                path = f"candidates.{own}.{key}"
                if path in r.inputs and r.inputs[path].origin == "scenario":
                    continue
                r.put(Input(path=path, value=value, spec=spec_of(key), source=source,
                            low=value, high=value, origin="measured"))
            if m.note not in info.notes:
                info.notes.append(m.note)
            if serving:
                r.measured[own] = tuple(sorted({*r.measured.get(own, ()), m.precision}))
