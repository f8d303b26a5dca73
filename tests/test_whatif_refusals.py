"""The what-if's fast path (tco.resolved.with_values) and a full resolve of the edited
scenario refuse a value with the same message: a rule across fields of the scenario (a global
batch holds at least one sequence) is checked on both paths, before the plausible ranges."""

from pathlib import Path

import pytest

from tco.analysis.settings import apply_values
from tco.analysis.whatif import whatif
from tco.catalog import load_catalog
from tco.engine import compute
from tco.errors import TcoError
from tco.scenario import load_scenario, load_scenario_text

HAND = Path(__file__).parent / "data" / "lease_hand.yaml"


def full_resolve_message(loaded, catalog, values, label):
    with pytest.raises(TcoError) as exc:
        compute(apply_values(loaded, values, label), catalog)
    return str(exc.value)


# 1e18 is outside seq_len_tokens' plausible range (16 to 1e7) and above the global batch
# (4,194,304 tokens); 1e7 is inside the range and still above the batch: the fast path used
# to give the range error for the first and to accept the second (an infeasible option), while
# resolving the edited scenario refuses both with the global batch's message.
@pytest.mark.parametrize("value", ["1e18", "1e7"])
def test_fast_path_and_full_resolve_refuse_alike(value):
    loaded, catalog = load_scenario(HAND), load_catalog()
    setting = f"workloads.small.seq_len_tokens={value}"
    expected = full_resolve_message(loaded, catalog, {"workloads.small.seq_len_tokens":
                                                      float(value)}, f"--set {setting}")
    assert "less than one sequence" in expected
    with pytest.raises(TcoError) as exc:
        whatif(loaded, catalog, [setting])
    assert str(exc.value) == expected


# An infeasible portfolio has no NPV (tco compare's JSON gives null, the table "infeasible");
# the what-if used to show one anyway (serve_and_assign.yaml: "NPV of TCO ¥74.13M -> ¥151.74M,
# +104.7%" for a portfolio whose serving option could not carry its peak before the change),
# comparing a plan missing a member with the whole plan. 600 H20 cards carry the chat peak
# (504 needed; 256 before): the portfolio becomes feasible and has an NPV only after.
def test_an_infeasible_portfolio_has_no_npv_in_the_whatif():
    data = Path(__file__).parent / "data" / "serve_and_assign.yaml"
    loaded, catalog = load_scenario(data), load_catalog()
    before = compute(loaded, catalog)
    assert not before.portfolios[0].feasible
    (change,) = whatif(loaded, catalog, ["candidates.h20-serve.cards=600"]).portfolios
    assert change.notes == ["becomes feasible"]
    assert change.npv.before is None and change.npv.after is not None
    assert change.delivered.before is None


def _ranked_ids(path) -> list[str]:
    """The Candidate column of the workbook summary's "Ranked by NPV" table."""
    import openpyxl

    ws = openpyxl.load_workbook(path).worksheets[0]
    rows = list(ws.iter_rows(values_only=True))
    start = next(i for i, r in enumerate(rows) if r[0] and str(r[0]).startswith("Ranked by NPV"))
    ids = []
    for r in rows[start + 2:]:
        if r[1] is None:
            break
        ids.append(r[1])
    return ids


# The workbook's ranked summary leaves infeasible options out; it used to list an infeasible
# portfolio (serve_and_assign.yaml's h100-h20, whose serving option cannot carry its peak)
# with an NPV and a rank, an NPV that tco compare gives as null. Feasible (600 H20 cards), the
# portfolio is listed.
def test_the_ranked_summary_lists_feasible_portfolios_only(tmp_path):
    from tco.exporters.xlsx import write_workbook

    data = Path(__file__).parent / "data" / "serve_and_assign.yaml"
    catalog = load_catalog()
    for cards, listed in (("256", False), ("600", True)):
        text = data.read_text().replace("    cards: 256\n", f"    cards: {cards}\n")
        result = compute(load_scenario_text(text), catalog)
        assert result.portfolios[0].feasible is listed
        write_workbook(result, tmp_path / f"{cards}.xlsx")
        ids = _ranked_ids(tmp_path / f"{cards}.xlsx")
        assert ("h100-h20" in ids) is listed
        assert ("h20-serve" in ids) is listed  # the options: the same rule
