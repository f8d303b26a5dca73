"""`tco init`: every starter validates (with `tco validate`, and with PyYAML + jsonschema against
the schema written beside it), points editors at that schema by a relative path that names no
folder of this machine and survives moving the folder, and runs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from tco.cli import cli
from tco.resources import scenario_schema_file
from tco.starters import MODELINE, SCHEMA_NAME, STARTERS

EXAMPLES = sorted(STARTERS)


def run(*args: str, ok: bool = True):
    res = CliRunner().invoke(cli, list(args))
    if ok:
        assert res.exit_code == 0, res.output
    return res


def _init(folder: Path, example: str) -> Path:
    path = folder / "plan.yaml"
    run("init", str(path), "--example", example)
    return path


def _catalogs(path: Path) -> list[str]:
    quotes = path.with_name("plan.quotes.csv")
    return ["--catalog", str(quotes)] if quotes.exists() else []


@pytest.mark.parametrize("example", EXAMPLES)
def test_each_starter_validates_with_tco_and_with_pyyaml_and_jsonschema(tmp_path, example):
    path = _init(tmp_path, example)
    assert "ok" in run("validate", str(path), *_catalogs(path)).output
    schema = json.loads((tmp_path / SCHEMA_NAME).read_text(encoding="utf-8"))
    # PyYAML reads YAML 1.1 (70e9 would be a string to it): the starters write 7.0e+10
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema).validate(data)


@pytest.mark.parametrize("example", EXAMPLES)
def test_the_modeline_is_relative_and_survives_moving_the_folder(tmp_path, example):
    (tmp_path / "a").mkdir()
    path = _init(tmp_path / "a", example)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first + "\n" == MODELINE == f"# yaml-language-server: $schema={SCHEMA_NAME}\n"
    for written in (tmp_path / "a").iterdir():
        text = written.read_text(encoding="utf-8")
        assert str(tmp_path) not in text and "file:" not in text, written.name
    assert (tmp_path / "a" / SCHEMA_NAME).read_bytes() == scenario_schema_file().read_bytes()
    moved = Path(shutil.move(tmp_path / "a", tmp_path / "elsewhere")) / path.name
    target = first.split("$schema=", 1)[1]
    assert (moved.parent / target).is_file()  # resolved beside the scenario, as editors do


def test_the_cn_starter_is_a_chinese_procurement_package(tmp_path):
    path = _init(tmp_path, "cn")
    quotes = tmp_path / "plan.quotes.csv"
    assert quotes.read_text(encoding="utf-8").splitlines()[1].startswith(
        "ascend-910b,price_cny,120000,")
    out = json.loads(run("compare", str(path), "--catalog", str(quotes), "--format",
                         "json").output)
    assert out["currency"] == "CNY"
    first = next(c for c in out["candidates"] if c["id"] == "ascend-910b")
    # methodology section 5: capex_vat = capex_total x vat_rate (13 %), all of it recovered
    assert first["capex_vat"] == pytest.approx(first["capex_total"] * 0.13)
    assert first["capex_vat_recovered"] == pytest.approx(first["capex_vat"])
    import tco

    run_ = tco.compare(path, [quotes])
    # the quote in CNY comes back as written: 120,000 per card (Reuters 2024-01)
    assert run_.result.candidate("ascend-910b").inputs["card_price"] == 120000
    assert run_.result.scenario_data["facility"]["region"] == "cn"
    # China's enterprise income tax (pricing/tax.yaml cn): 25 %, the R&D super-deduction on
    # half the costs, the options ranked after tax
    inputs = run_.result.inputs
    assert inputs["finance.tax_rate"].value == 0.25
    assert inputs["finance.tax_rd_extra_deduction_fraction"].value == 1.0
    assert inputs["finance.tax_rd_share"].value == 0.5
    assert run_.result.structure.decision_basis == "after_tax"
    ascend = run_.result.candidate("ascend-910b").values
    assert ascend["npv_tco_after_tax"] < ascend["npv_tco"]


def test_train_and_serve_starter_serves(tmp_path):
    path = _init(tmp_path, "train-and-serve")
    out = json.loads(run("compare", str(path), "--format", "json").output)
    kinds = {w["id"]: w["kind"] for w in out["workloads"]}
    assert kinds == {"llama-70b": "pretrain", "chat": "serve"}
    assert [a["id"] for a in out["api_options"]] == ["chat-api"]


def test_existing_files_are_kept_unless_forced(tmp_path):
    path = _init(tmp_path, "cn")
    res = run("init", str(tmp_path / "other.yaml"), "--example", "cn")
    assert res.exit_code == 0  # another scenario, same schema (refreshed, it is tco's)
    (tmp_path / "third.quotes.csv").write_text("mine\n")
    res = run("init", str(tmp_path / "third.yaml"), "--example", "cn", ok=False)
    assert res.exit_code == 2 and "third.quotes.csv: file exists" in res.output
    assert not (tmp_path / "third.yaml").exists()  # nothing written when one file is refused
    assert (tmp_path / "third.quotes.csv").read_text() == "mine\n"
    res = run("init", str(path), ok=False)
    assert res.exit_code == 2 and "exists" in res.output
    run("init", str(path), "--force")
    assert "70 billion" in path.read_text(encoding="utf-8")


def test_a_schema_file_of_another_tool_is_left_alone(tmp_path):
    (tmp_path / SCHEMA_NAME).write_text("{}\n")
    res = run("init", str(tmp_path / "s.yaml"))
    assert "is not tco's scenario schema: left as it is" in res.output
    assert (tmp_path / SCHEMA_NAME).read_text() == "{}\n"
    assert (tmp_path / "s.yaml").is_file()


def test_into_a_stream_only_the_scenario_is_written(capfd):
    import sys

    from tco.cli import main

    argv = sys.argv
    sys.argv = ["tco", "init", "/dev/stdout", "--example", "cn"]
    try:
        with pytest.raises(SystemExit) as done:
            main()
    finally:
        sys.argv = argv
    assert done.value.code == 0
    out, err = capfd.readouterr()
    assert out.startswith(MODELINE) and "region: cn" in out
    assert "the scenario only" in err and "wrote /dev/stdout\n" in err
