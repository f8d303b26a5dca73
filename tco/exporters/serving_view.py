"""Serving workloads (`kind: serve`) in the text outputs: the block under `tco compare`'s
table, the columns `tco compare --format csv` gains, and `tco job --serve`'s table. Every
number is a model quantity of the workload (tco/model/serving.py); nothing is computed here."""

from __future__ import annotations

from typing import Any

from ..model import JOB_COMPONENTS
from ..result import CandidateResult, Result
from .fmt import money, number, per_million
from .frontier_view import frontier_text

# The serving figures each output shows, by the workload's key (fields.SERVE_WORKLOAD_FIELDS).
CSV_KEYS = ("tokens_per_s_per_card", "cards_needed", "ttft_ms", "tpot_ms",
            "cost_per_million_input_tokens", "cost_per_million_output_tokens",
            "dedicated_cost_per_million_output_tokens", "energy_per_output_token_j")


def serve_workloads(result: Result) -> list[str]:
    return [wid for wid, _p, kind in result.structure.workloads if kind == "serve"]


def serving_block(result: Result) -> str:
    """Under the compare table: for each serving workload, each candidate's figures at the
    objective (an infeasible candidate shows why instead)."""
    from ..errors import printable
    from .fmt import text_table

    cur, out = result.currency, ""
    for wid in serve_workloads(result):
        rows = []
        for c in result.candidates:
            if not c.info.carries(wid):
                continue  # another option serves it (methodology §14: no output shows it)
            job = c.jobs.get(wid)
            if not c.feasible or job is None:
                rows.append([c.id, *["-"] * 8])
                continue
            rows.append([c.id, str(int(job["tensor_parallel"])),
                         number(job["tokens_per_s_per_card"], 0),
                         f"{number(job['ttft_ms'], 0)} / {number(job['tpot_ms'], 1)}",
                         f"{int(job['cards_needed']):,}",
                         per_million(job["cost_per_million_input_tokens"], cur),
                         per_million(job["cost_per_million_output_tokens"], cur),
                         per_million(job["dedicated_cost_per_million_output_tokens"], cur),
                         number(job["energy_per_output_token_j"], 2)])
        header = ["candidate", "TP", "tokens/s/card", "TTFT/TPOT ms", "cards at peak",
                  f"{cur}/M in", f"{cur}/M out", "own fleet /M out", "J/out token"]
        out += (f"\nServing {printable(wid)} (output tokens per second per card at the "
                "objective; cost per million tokens over the card-hours serving uses; own "
                "fleet: on cards of its own sized for the peak, idle off-peak):\n"
                + text_table(header, rows, "lrrrrrrrr"))
        out += frontier_text(result, wid)
    return out


def csv_header(result: Result) -> list[str]:
    return [f"{wid}.{k}" for wid in serve_workloads(result) for k in CSV_KEYS]


def csv_values(result: Result, c: CandidateResult) -> list[Any]:
    """The serving columns of one candidate's CSV row (empty when not quantified)."""
    out: list[Any] = []
    for wid in serve_workloads(result):
        job = c.jobs.get(wid, {}) if c.info.carries(wid) else {}
        out += [job[k] if c.quantified and k in job else None for k in CSV_KEYS]
    return out


def serve_job_rows(d: dict[str, Any], cur: str) -> list[list[str]]:
    """`tco job --serve`: the serving workload's figures, then its year's cost lines."""
    rows = [
        ["tensor parallel (cards per replica)", str(d["tensor_parallel"])],
        ["batch (sequences per replica)", number(d["batch_sequences"], 0)],
        ["time to first token", f"{number(d['ttft_ms'], 0)} ms"],
        ["time per output token", f"{number(d['tpot_ms'], 1)} ms"],
        ["output tokens/s per card", number(d["tokens_per_s_per_card"], 0)],
        ["prompt tokens/s per card", number(d["input_tokens_per_s_per_card"], 0)],
        ["cards busy on average", number(d["average_cards_busy"], 1)],
        ["cards at the peak", f"{int(d['cards_needed']):,}"],
        ["energy per output token", f"{number(d['energy_per_output_token_j'], 3)} J"],
        ["cost per million prompt tokens", per_million(d["cost_per_million_input_tokens"], cur)],
        ["cost per million output tokens", per_million(d["cost_per_million_output_tokens"], cur)],
        ["the same on its own fleet sized for the peak",
         per_million(d["dedicated_cost_per_million_output_tokens"], cur)],
    ]
    for comp in JOB_COMPONENTS:
        rows.append([f"cost of a year: {comp}", money(d["cost"][comp], cur)])
    rows.append(["cost of a year: total", money(d["cost"]["total"], cur)])
    return rows


# `tco compare`'s table when the plan's first workload serves: its columns say what a year of
# serving gives and costs, not a training run's days and cost.
SERVE_FIRST_HEADER = ["TP*", "cards at peak"]
SERVE_FIRST_LEGEND = (
    "\nTP*: tensor-parallel cards per replica of the first serving workload, chosen by "
    "search;\nM out*: cost per million output tokens over the card-hours serving uses "
    "(the serving block below has the rest);\nNPV/M out: the serving workload's share of "
    "the horizon's NPV (by card-hours), its output part, over the discounted million output "
    "tokens served;")


def serve_first(result: Result) -> str:
    """The plan's first workload when it serves, else ""."""
    wid, _precision, kind = result.structure.workloads[0]
    return wid if kind == "serve" else ""


def serve_first_cells(c: CandidateResult, wid: str, currency: str) -> list[str]:
    """TP, cards at the peak and the cost per million output tokens of serving `wid`."""
    job = c.jobs.get(wid) if c.info.carries(wid) else None
    if job is None:  # an option carrying another part of the plan
        return ["-", "-", "-"]
    return [str(int(job["tensor_parallel"])), f"{int(job['cards_needed']):,}",
            per_million(job["cost_per_million_output_tokens"], currency)]
