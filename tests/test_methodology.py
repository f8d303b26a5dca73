"""docs/methodology.md states every formula of the model: each quantity the model computes has
a row in one of its formula tables, no row names a quantity the model no longer has, and the
worked examples in its prose are what the model computes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tco.engine import compute
from tco.scenario import load_scenario_text

DOC = Path(__file__).resolve().parents[1] / "docs" / "methodology.md"
# The first header cell of the tables that define model quantities (the others list inputs).
QUANTITY_TABLES = ("Quantity", "Component")

# A scenario unlike the example: two workloads (one fine-tuning run in fp8), a loan, another
# currency and region, a cluster sized for a power cap, and cloud prices, one of them quoted
# for a card the cloud catalog does not rent.
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
facility: {region: eu}
finance: {horizon_years: 4, purchase: finance, loan_term_years: 3}
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
    return model_keys(example) | model_keys(other)


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


TENSOR_PARALLEL_SCENARIO = """
name: tensor parallel
workloads:
  - {id: w7, params: 7e9, tokens: 1e11}
  - {id: w13, params: 13e9, tokens: 1e11}
  - {id: w70, params: 70e9, tokens: 1e11}
  - {id: w405, params: 405e9, tokens: 1e11}
candidates:
  - {id: sxm, card: h100-sxm, cards: 1024}
  - {id: pcie, card: h100-pcie, cards: 1024}
  - {id: four, card: h100-sxm, cards: 4}
"""


def test_tensor_parallel_examples_in_the_text_are_the_models(catalog):
    """Section 4 says the group is sized to the model: ROUNDUP(params / 10e9), at least 1,
    capped by the scale-up domain (8 on H100 SXM servers, 2 on an H100 PCIe NVLink pair),
    tensor_parallel_max (8) and the card count."""
    text = DOC.read_text(encoding="utf-8")
    para = text[text.index("**Tensor parallelism.**"):]
    para = para[:para.index("\n\n")]
    sxm = re.search(r"H100 SXM servers a 7B model trains with a group of (\d+), 13B with (\d+), "
                    r"70B with (\d+) and 405B with (\d+)", re.sub(r"\s+", " ", para))
    pcie = re.search(r"H100 PCIe pairs 70B trains with (\d+)", re.sub(r"\s+", " ", para))
    caveat = re.search(r"7B trains with TP (\d+), 13B with (\d+), 70B with (\d+)",
                       re.sub(r"\s+", " ", text))  # section 16
    assert sxm and pcie and caveat, para
    result = compute(load_scenario_text(TENSOR_PARALLEL_SCENARIO), catalog)

    def tp(cid, wid):
        return result.candidate(cid).jobs[wid]["tensor_parallel"]

    # by hand: ROUNDUP(7/10) = 1, ROUNDUP(1.3) = 2, ROUNDUP(7) = 7, MIN(8, 8, 1024, 41) = 8
    assert [int(x) for x in sxm.groups()] == [1, 2, 7, 8]
    assert [int(x) for x in caveat.groups()] == [1, 2, 7]
    assert [tp("sxm", w) for w in ("w7", "w13", "w70", "w405")] == [1, 2, 7, 8]
    assert int(pcie.group(1)) == tp("pcie", "w70") == 2  # MIN(2, 8, 1024, 7)
    assert tp("four", "w70") == tp("four", "w405") == 4  # MIN(8, 8, 4, ...)
    assert tp("four", "w13") == 2

