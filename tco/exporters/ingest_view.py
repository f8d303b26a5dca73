"""`tco ingest`'s output: the `benchmarks:` entries (tco.measured.ingest) as YAML to paste into
a scenario, or as JSON; each with a comment (YAML) or key (JSON) saying what it implies."""

from __future__ import annotations

import json
from typing import Any


def ingest_text(entries: list[dict[str, Any]], fmt: str) -> str:
    import yaml

    if fmt == "json":
        return json.dumps({"benchmarks": entries}, indent=2, ensure_ascii=False) + "\n"
    lines = ["# `tco ingest`: paste under a scenario's top level; each entry replaces the",
             "# catalog's efficiency for its card and precision (docs/methodology.md §18).",
             "benchmarks:"]
    for e in entries:
        said = {k: e[k] for k in ("source_file", "efficiency", "provenance", "efficiencies")
                if k in e}
        body = {k: v for k, v in e.items() if k not in said}
        if "source_file" in said:
            lines.append(f"  # from {said['source_file']}")
        if "efficiency" in said:
            lines.append(f"  # {said['provenance']}: {said['efficiency']:.3f} of the catalog's "
                         "vendor-tuned rate")
        for eff in said.get("efficiencies", []):
            lines.append(f"  # {eff['provenance']}: MFU {eff['mfu']:.3f} at "
                         f"{eff['precision'].upper()} on {eff['card']}")
        text = yaml.safe_dump([body], sort_keys=False, allow_unicode=True, width=100)
        lines += ["  " + ln for ln in text.rstrip("\n").split("\n")]
    return "\n".join(lines) + "\n"


def measured_json(result: Any) -> list[dict[str, Any]]:
    """The inputs your own benchmarks set (origin "measured", tco.measured), apart from the
    catalog's: which option and input, its value and where it came from."""
    out = []
    for path, inp in result.inputs.items():
        if inp.origin != "measured":
            continue
        cid, _, key = path.removeprefix("candidates.").rpartition(".")
        out.append({"candidate": cid, "input": key, "value": inp.value, "source": inp.source})
    return out


def measured_schema() -> dict[str, Any]:
    item = {"type": "object", "additionalProperties": False, "properties": {
        "candidate": {"type": "string", "description": "Option id"},
        "input": {"type": "string", "description": "The candidate input it sets "
                  "(`measured_serving_efficiency_<precision>`, `serving_tail_latency_ratio`, "
                  "`mfu`, `mfu_fp8`, `stack_efficiency`)"},
        "value": {"type": "number", "description": "Its value"},
        "source": {"type": "string", "description": "Where it came from: 'measured by you', "
                   "the date, the cards, the engine and the file"}}}
    item["required"] = list(item["properties"])
    return {"type": "array", "items": item, "description": (
        "The figures your own benchmarks set (the scenario's `benchmarks:`), kept apart from "
        "the catalog's; empty when none (docs/methodology.md section 18)")}
