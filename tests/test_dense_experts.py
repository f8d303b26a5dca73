"""Routed experts written on a dense training workload in a scenario file were silently
ignored (only `tco job --experts` refused them): one message naming the file, its line and the
field, exit 2 (issue 12)."""

from __future__ import annotations

from click.testing import CliRunner
from refusals import scenario_refused

from tco.cli import cli


def test_experts_on_a_dense_workload_in_a_scenario_file_are_refused(tmp_path):
    path, msg = scenario_refused(
        tmp_path, "workloads:\n  - {id: llama, params: 7e9, tokens: 1e11, experts: 64}\n"
        "candidates:\n  - {id: h, card: h100-sxm, cards: 64}\n")
    assert msg.startswith(f"{path}:2: workloads.llama.experts: routed experts are for a "
                          "mixture of experts")


def test_experts_on_a_moe_and_a_whatif_that_makes_it_dense_are_fine(catalog, tmp_path):
    moe = ("workloads:\n  - {id: m, params: 70e9, active_params: 10e9, tokens: 1e11, "
           "experts: 64}\ncandidates:\n  - {id: h, card: h100-sxm, cards: 64}\n")
    path = tmp_path / "moe.yaml"
    path.write_text(moe)
    assert CliRunner().invoke(cli, ["compare", str(path)]).exit_code == 0
    # a what-if of active_params is the user's experiment, not a field they wrote
    out = CliRunner().invoke(cli, ["whatif", str(path), "--set",
                                   "workloads.m.active_params=70e9"])
    assert out.exit_code == 0, out.output
