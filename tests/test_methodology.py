"""docs/methodology.md states every formula of the model: each quantity the model computes has
a row in one of its formula tables, no row names a quantity the model no longer has, and the
worked examples in its prose are what the model computes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tco.engine import compute
from tco.scenario import load_scenario, load_scenario_text

DOC = Path(__file__).resolve().parents[1] / "docs" / "methodology.md"
EXAMPLES = Path(__file__).resolve().parents[1] / "tco" / "scenarios"
# The first header cell of the tables that define model quantities (the others list inputs).
QUANTITY_TABLES = ("Quantity", "Component")

# A scenario unlike the example: two workloads (one fine-tuning run in fp8), a loan, another
# currency and region, a cluster sized for a power cap, and cloud prices, one of them quoted
# for a card the cloud catalog does not rent; 64 of the H200s are held stock; a portfolio of
# two CUDA options (one port shared); a site with a power budget (methodology §3, "Sites").
OTHER = """
name: other shapes
currency: EUR
rent_pricing: on_demand
workloads:
  - {id: pre, params: 13e9, tokens: 3e11, runs_per_year: 2}
  - {id: tune, kind: finetune, params: 8e9, tokens: 2e10, precision: fp8, runs_per_year: 6}
candidates:
  - {id: h200, card: h200-sxm, cards: 256}
  - {id: g3, card: gaudi3, power_cap_kw: 400, cloud_price_per_card_hour: 3.5}
  - {id: pre-only, card: h200-sxm, cards: 64, workloads: [pre]}
  - {id: tune-only, card: h100-sxm, cards: 16, workloads: [tune]}
portfolios:
  - {id: pair, options: [pre-only, tune-only]}
facility: {region: eu, power_budget_kw: 1e6}
finance: {horizon_years: 4, purchase: finance, loan_term_years: 3}
policy: {holds_stock: {h200-sxm: {cards: 64, age_years: 1}}}
"""


# A serving scenario with a benchmark of the user's (inline, as `tco ingest` writes it).
MEASURED = """
name: measured
rent_options: none
workloads:
  - {id: chat, kind: serve, params: 70e9, precision: fp8, layers: 80, kv_heads: 8,
     head_dim: 128, input_tokens_per_day: 2e9, output_tokens_per_day: 1e9, prompt_tokens: 1024,
     output_tokens: 512, tpot_ms: 80}
candidates:
  - {id: h20, card: h20, cards: 64}
benchmarks:
  - card: h20
    cards: 8
    precision: fp8
    serving: {output_tokens_per_s: 2410.5, mean_tpot_ms: 72.5, prompt_tokens: 1024,
              output_tokens: 512}
"""


def model_keys(result) -> set[str]:
    """The distinct quantity keys: "<candidate>.<key>", "<candidate>.<workload>.<key>" and
    "<candidate>.y<t>.<component>" all end in the key."""
    return {q.name.rsplit(".", 1)[1] for q in result.model}


def documented_quantities(text: str) -> dict[str, str]:
    """Names in `code` in the first column of the formula tables -> the rest of their row."""
    rows: dict[str, str] = {}
    header = None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells[0]
            continue
        if header in QUANTITY_TABLES and not set(cells[0]) <= {"-", ":"}:
            for name in re.findall(r"`([^`]+)`", cells[0]):
                rows[name] = " | ".join(cells[1:])
    return rows


@pytest.fixture(scope="module")
def keys(catalog, example) -> set[str]:
    other = compute(load_scenario_text(OTHER), catalog)
    # both scenarios rent, g3 at its quoted price: the cloud comparison is in the models
    assert example.structure.rent and "g3" in other.structure.rent
    assert len(other.structure.workloads) == 2
    serving = compute(load_scenario(EXAMPLES / "train-and-serve.yaml"), catalog)
    from test_lease import LEASED  # a leased option (§7, "Leasing")

    leased = compute(load_scenario_text(LEASED), catalog)
    measured = compute(load_scenario_text(MEASURED), catalog)  # `benchmarks:` (§18)
    return (model_keys(example) | model_keys(other) | model_keys(serving) | model_keys(leased)
            | model_keys(measured))


def test_every_model_quantity_has_a_formula_row(keys):
    documented = documented_quantities(DOC.read_text(encoding="utf-8"))
    missing = sorted(keys - set(documented))
    assert not missing, f"add these quantities to docs/methodology.md: {missing}"
    # each row gives a formula (or the yearly rule), not an empty cell
    assert all(documented[k].strip(" |") for k in keys)


def test_no_formula_row_names_a_quantity_the_model_lacks(keys):
    documented = documented_quantities(DOC.read_text(encoding="utf-8"))
    stale = sorted(set(documented) - keys)
    assert not stale, f"docs/methodology.md documents quantities the model lacks: {stale}"


def test_the_table_reader_finds_rows_and_skips_input_tables():
    text = ("| Quantity | Formula | Unit |\n|---|---|---|\n| `a`, `b` | x + y | W |\n\n"
            "| Input | Default | Note |\n|---|---|---|\n| `utilization` | 0.85 | |\n")
    assert documented_quantities(text) == {"a": "x + y | W", "b": "x + y | W"}


LAYOUT_SCENARIO = """
name: layout example
workloads:
  - {id: w70, params: 70e9, tokens: 2e12, global_batch_tokens: 4194304, seq_len_tokens: 4096}
candidates:
  - {id: a100, card: a100-80gb-sxm, cards: 2048}
"""


def test_layout_example_in_the_text_is_the_models(catalog):
    """Section 4's worked example (70B on 2,048 A100) is what the model and its layout search
    give: the degrees, the memory and each time of the step."""
    text = re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))
    m = re.search(r"2,048 A100 \(the search picks t = (\d+), p = (\d+), no recomputation, "
                  r"ZeRO-(\d), ([0-9,]+) replicas of (\d+) micro-batch(?:es)?, ([0-9.]+) GB per "
                  r"card\): compute ([0-9.]+) s per step, tensor traffic ([0-9.]+) s of which half "
                  r"\(([0-9.]+) s\) is exposed, data-parallel traffic ([0-9.]+) s hidden behind "
                  r"one micro-batch's compute and the bubble \(0\.9 × ([0-9.]+) = [0-9.]+ s, "
                  r"and ([0-9.]+) s\); per-step passes over the ([0-9.e]+) parameters a card "
                  r"holds ([0-9.]+) s \(below\); step ([0-9.]+) s, scaling efficiency "
                  r"([0-9]+\.[0-9]+)", text)
    assert m, "the worked example of section 4 changed shape"
    job = compute(load_scenario_text(LAYOUT_SCENARIO), catalog).candidate("a100").jobs["w70"]
    t, p, zero, dp, micro = (int(x.replace(",", "")) for x in m.groups()[:5])
    assert (t, p, dp, micro) == (job["tensor_parallel"], job["pipeline_parallel"],
                                 job["data_parallel"], job["micro_batches"])
    assert job["activation_recompute"] == 0
    assert job["parameter_sharding"] == (zero == 3)
    assert round(job["compute_seconds"] / job["micro_batches"], 2) == float(m[11])
    assert round(job["bubble_seconds"], 2) == float(m[12])
    assert job["params_held_per_card"] == pytest.approx(float(m[13]), rel=5e-3)
    keys = ["memory_needed_gb", "compute_seconds", "tp_comm_seconds", "exposed_comm_seconds",
            "dp_comm_seconds"]
    for key, shown in zip(keys, m.groups()[5:10]):
        decimals = len(shown.split(".")[1])
        assert round(job[key], decimals) == float(shown), key
    for key, shown in (("step_overhead_seconds", m[14]), ("step_seconds", m[15]),
                       ("scaling_efficiency", m[16])):
        assert round(job[key], len(shown.split(".")[1])) == float(shown), key


def test_layout_example_pinned_to_zero3_is_the_models(catalog):
    """Section 4's example also states the layout and step the search gives with ZeRO-3."""
    text = re.sub(r"\s+", " ", DOC.read_text(encoding="utf-8"))
    m = re.search(r"Pinned to ZeRO-3 \(`zero3: 1`\) the search keeps t = (\d+), p = (\d+): "
                  r"its ([0-9.]+) s of data-parallel traffic hides behind the step's compute "
                  r"\(0\.9 × [0-9.]+ = [0-9.]+ s\), ([0-9.]+) GB per card, ([0-9.]+) s\.", text)
    assert m, "the ZeRO-3 variant of section 4's example changed shape"
    pinned = LAYOUT_SCENARIO.replace("cards: 2048}", "cards: 2048, layout: {w70: {zero3: 1}}}")
    job = compute(load_scenario_text(pinned), catalog).candidate("a100").jobs["w70"]
    assert (job["tensor_parallel"], job["pipeline_parallel"]) == (int(m[1]), int(m[2]))
    assert job["parameter_sharding"] == 1
    assert round(job["dp_comm_seconds"], 2) == float(m[3])
    assert round(job["memory_needed_gb"], 1) == float(m[4])
    assert round(job["step_seconds"], 2) == float(m[5])
