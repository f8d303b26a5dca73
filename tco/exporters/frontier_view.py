"""The throughput-interactivity frontier of each serving workload (tco.frontier) in the text
and JSON outputs: `tco compare`'s table of output tokens per second per card at round
interactivities, the operating point each option's objective picks and the cost per million
output tokens there; the `serving_frontiers` key of `tco compare --format json`. Every number is
the engine's (Result.frontiers); nothing is computed here."""

from __future__ import annotations

from typing import Any

from ..frontier import LEVELS, Frontier, FrontierPoint, at_level
from ..result import Result
from .fmt import SYMBOLS, number


def frontiers_json(result: Result) -> dict[str, Any]:
    """workload -> candidate -> {latency_percentile, operating_point, points}."""
    return {wid: {cid: fr.as_dict() for cid, fr in row.items()}
            for wid, row in result.frontiers.items()}


def cell(p: FrontierPoint | None) -> str:
    """A frontier point in a text or HTML cell: tokens/s per card (TP, precision)."""
    if p is None:
        return "-"
    return f"{number(p.tokens_per_s_per_card, 0)} (TP{p.tensor_parallel} {p.precision.upper()})"


def money(x: float, currency: str) -> str:
    return f"{SYMBOLS.get(currency, currency + ' ')}{x:,.3f}"


def levels(frontiers: dict[str, Frontier]) -> list[float]:
    """The round interactivities at least one option reaches."""
    return [u for u in LEVELS if any(at_level(fr, u) for fr in frontiers.values())]


def frontier_text(result: Result, wid: str) -> str:
    """The frontier table of serving workload `wid` under `tco compare`'s serving block."""
    from ..errors import printable
    from .fmt import text_table

    row = result.frontiers.get(wid, {})
    if not row:
        return ""
    cur = result.currency
    us = levels(row)
    header = ["tokens/s/user", *row]
    rows = [[f">= {u:g}", *[cell(at_level(fr, u)) for fr in row.values()]] for u in us]
    rows.append(["objective", *[
        "-" if fr.operating is None else
        f"{number(fr.operating.tokens_per_s_per_user, 1)}/user: "
        f"{number(fr.operating.tokens_per_s_per_card, 0)}" for fr in row.values()]])
    rows.append([f"{cur}/M out there", *[
        "-" if fr.operating is None else money(fr.operating.cost_per_million_output_tokens, cur)
        for fr in row.values()]])
    pct = next(iter(row.values())).percentile
    return (f"\nFrontier of {printable(wid)}: output tokens/s per card at each interactivity "
            f"(mean tokens/s per user), with the tensor-parallel degree and precision the "
            f"search picks; the objective's point (p{pct:g}) and its cost per million output "
            "tokens:\n" + text_table(header, rows, "l" + "r" * len(row)))


def frontier_schema() -> dict[str, Any]:
    """The JSON Schema of `serving_frontiers` (tco.exporters.schema takes it as is)."""
    def num(desc: str, unit: str) -> dict[str, Any]:
        return {"type": "number", "description": f"{desc} [{unit}]"}

    point = {"type": "object", "additionalProperties": False, "properties": {
        "tokens_per_s_per_user": num("Output tokens per second per user: 1000 / the mean time "
                                     "per output token", "tokens/s"),
        "tokens_per_s_per_card": num("Output tokens per second per card there", "tokens/s"),
        "tpot_ms": num("Mean time per output token", "ms"),
        "tpot_p99_ms": num("Time per output token at the 99th percentile", "ms"),
        "ttft_ms": num("Mean time to first token", "ms"),
        "tensor_parallel": {"type": "integer", "description": "Cards per replica the search "
                            "picks there [cards]"},
        "precision": {"type": "string", "description": "Precision the search picks there"},
        "batch_sequences": num("Sequences decoded together per replica", "sequences"),
        "cost_per_million_output_tokens": num("Cost per million output tokens there, over the "
                                              "card-hours serving uses", "currency/1e6 tokens"),
    }}
    point["required"] = list(point["properties"])
    frontier = {"type": "object", "additionalProperties": False, "properties": {
        "candidate": {"type": "string", "description": "Option id"},
        "workload": {"type": "string", "description": "Serving workload id"},
        "latency_percentile": {"type": "number", "description": "The percentile the "
                               "workload's objectives state (99 or 50)"},
        "operating_point": {"anyOf": [point, {"type": "null"}], "description": "Where the "
                            "workload's own objective puts the option (null: it cannot meet "
                            "it)"},
        "points": {"type": "array", "items": point, "description": "The frontier, by "
                   "interactivity rising: the most output tokens per second per card at each"},
    }}
    frontier["required"] = list(frontier["properties"])
    return {"type": "object", "description": (
        "Each serving workload's throughput-interactivity frontier on each option that serves "
        "it (workload id -> option id -> frontier); empty when nothing serves "
        "(docs/methodology.md section 18)"),
        "additionalProperties": {"type": "object", "additionalProperties": frontier}}
