"""Every input a scenario has can be changed on the command line (`tco whatif --set`,
`tco sensitivity`, the live page's panel, which words its refusals as the CLI does): the path
resolves into the scenario's data. A compute voucher's share was an input of the model that
`--set` refused ("no input"), and a report whose sensitivity ranked it among the inputs that
matter failed to write its live page."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from click.testing import CliRunner

import tco
from tco.cli import cli
from tco.resolved import set_path

SCENARIOS = Path(__file__).resolve().parents[1] / "tco" / "scenarios"
SHIPPED = [("example", []), ("train-and-serve", []), ("cn", [SCENARIOS / "cn.quotes.csv"])]


@pytest.mark.parametrize(("name", "quotes"), SHIPPED, ids=[n for n, _q in SHIPPED])
def test_every_input_of_a_shipped_scenario_can_be_set(name, quotes):
    path = SCENARIOS / f"{name}.yaml"
    loaded, _catalog = tco.load(path, quotes)
    result = tco.compare(path, quotes).result
    data = loaded.scenario.model_dump(mode="python")
    given = [p for p, inp in result.inputs.items() if inp.origin != "derived"]
    assert len(given) > 200
    for p in given:
        changed = copy.deepcopy(data)
        set_path(changed, p, result.inputs[p].value)  # raises UnknownId if it cannot


def test_a_vouchers_share_is_changed_by_whatif(tmp_path):
    out = CliRunner().invoke(cli, [
        "whatif", str(SCENARIOS / "cn.yaml"), "--catalog", str(SCENARIOS / "cn.quotes.csv"),
        "--set", "vouchers.hangzhou-other.share=0.3"], prog_name="tco",
        env={"TCO_CACHE_DIR": str(tmp_path)})
    assert out.exit_code == 0, out.output
    assert "vouchers.hangzhou-other.share     0.2    0.3" in out.output
