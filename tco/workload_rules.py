"""Rules across a workload's fields, without pydantic: the scenario's validation applies them
(tco.scenario), and so does a what-if that sets inputs directly (tco.resolved.with_values),
which then resolves the edited scenario again so that both give the same message."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def holds_a_sequence(batch: float | None, seq: float | None) -> bool:
    """A global batch holds at least one sequence."""
    return batch is None or seq is None or batch >= seq


def shapes_hold(data: Mapping[str, Any]) -> bool:
    """Every training workload of the scenario's data keeps the rules above."""
    return all(w.get("kind") == "serve"
               or holds_a_sequence(w.get("global_batch_tokens"), w.get("seq_len_tokens"))
               for w in data.get("workloads") or [])
