"""The core commands through click's test runner: catalog, init/validate, compare, quotes."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco.catalog import load_catalog
from tco.cli import cli
from tco.engine import compute
from tco.scenario import load_scenario


def run(*args, ok=True):
    result = CliRunner().invoke(cli, list(args))
    if ok:
        assert result.exit_code == 0, result.output
    return result


def test_every_command_has_help_with_an_example():
    def walk(group, prefix):
        for name, cmd in group.commands.items():
            if hasattr(cmd, "commands"):
                yield from walk(cmd, prefix + [name])
            else:
                yield prefix + [name], cmd

    for path, cmd in walk(cli, []):
        out = run(*path, "--help").output
        assert cmd.help, path
        assert "Example:" in out, f"tco {' '.join(path)} --help has no example"


def test_catalog_list_has_every_required_card():
    out = run("catalog", "list", "--format", "json").output
    ids = {r["id"] for r in json.loads(out)}
    required = {"a100-80gb-sxm", "h100-sxm", "h100-pcie", "h200-sxm", "h800-sxm", "h20", "b200",
                "l40s", "rtx-4090", "mi300x", "mi325x", "gaudi2", "gaudi3", "ascend-910b"}
    assert required <= ids


def test_catalog_show_prints_source_and_date():
    out = run("catalog", "show", "h100-sxm", "--format", "json").output
    fig = json.loads(out)["figures"]["accelerators.peak_tflops_bf16"]
    assert fig["value"] == pytest.approx(989.4)  # dense BF16, NVIDIA H100 SXM5 datasheet
    assert fig["source"] and fig["as_of"]


def test_catalog_show_facilities_gives_the_exchange_rates_regions_and_cooling():
    """README: a quoted CNY price is converted at the rate `tco catalog show facilities`
    shows (pricing/facilities.yaml)."""
    import jsonschema

    from tco.resources import output_schema

    data = json.loads(run("catalog", "show", "facilities", "--format", "json").output)
    figures = data["figures"]
    # CFETS central parity 2025-07-16: 715.26 CNY per 100 USD (Xinhua)
    assert figures["exchange_rates.CNY"]["value"] == pytest.approx(7.1526)
    assert "CFETS" in figures["exchange_rates.CNY"]["source"]
    assert {"regions.cn.electricity_price_per_kwh", "regions.us.carbon_kg_per_kwh",
            "cooling.liquid.pue", "cooling.air.capex_per_kw_usd"} <= set(figures)
    schema = json.loads(output_schema().read_text(encoding="utf-8"))
    jsonschema.validate(data, {**schema, "$ref": "#/$defs/catalog_show"})
    table = run("catalog", "show", "facilities").output
    assert "exchange_rates.CNY" in table and "7.1526" in table
    assert "facilities" in run("catalog", "show", "facility", ok=False).output  # did you mean


def test_catalog_show_unknown_id_suggests():
    res = run("catalog", "show", "mi300", ok=False)
    assert res.exit_code == 2
    assert "did you mean" in res.output and "mi300x" in res.output


def test_init_writes_a_scenario_that_validates(tmp_path):
    path = tmp_path / "s.yaml"
    run("init", str(path))
    assert "ok" in run("validate", str(path)).output
    # a second init refuses to overwrite
    res = run("init", str(path), ok=False)
    assert res.exit_code == 2 and "exists" in res.output


def test_compare_formats_agree(tmp_path):
    data = json.loads(run("compare", "--format", "json").output)
    csv_text = run("compare", "--format", "csv").output
    table = run("compare").output
    first = data["candidates"][0]
    assert first["feasible"]
    assert csv_text.splitlines()[1].startswith(first["id"] + ",")
    assert first["id"] in table.splitlines()[3]
    out = tmp_path / "c.json"
    run("compare", "--format", "json", "--output", str(out))
    assert json.loads(out.read_text()) == data


def test_quote_files_override_the_catalog(tmp_path):
    base = compute(load_scenario(), load_catalog())
    csv_q = tmp_path / "q.csv"
    csv_q.write_text("id,field,value,source,as_of\n"
                     "mi300x,price_usd,10000,Quote ACME-1,2026-11-30\n")
    yaml_q = tmp_path / "q.yaml"
    yaml_q.write_text("card_prices:\n  - id: mi300x\n    price_usd: {value: 12000, "
                      "source: Quote ACME-2, as_of: '2026-12-01'}\n")
    # later files win: the YAML quote (12,000) replaces the CSV quote (10,000)
    cat = load_catalog([csv_q, yaml_q])
    assert cat.card_prices["mi300x"].price_usd.best == 12000
    assert cat.card_prices["mi300x"].price_usd.source == "Quote ACME-2"
    res = compute(load_scenario(), cat)
    before = base.candidate("mi300x")
    after = res.candidate("mi300x")
    cards = before.inputs["cards"] + before.values["spare_cards"]
    # Only the card price changed: card capex falls by (20,000 - 12,000) per card bought.
    old_price = before.inputs["card_price"]
    assert after.yearly[0]["cards"] == pytest.approx(cards * 12000)
    assert before.yearly[0]["cards"] == pytest.approx(cards * old_price)
    assert load_catalog([csv_q]).card_prices["mi300x"].price_usd.best == 10000


def test_xlsx_quote_file(tmp_path):
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.append(["id", "field", "value", "source", "as_of", "low", "high"])
    ws.append(["us", "electricity_price_per_kwh", 0.11, "Utility tariff sheet", "2026-10", 0.09,
               0.13])
    path = tmp_path / "quotes.xlsx"
    wb.save(path)
    fig = load_catalog([path]).regions["us"].electricity_price_per_kwh
    assert (fig.low, fig.typical, fig.high) == (0.09, 0.11, 0.13)


def test_job_json_for_gpt3_flops():
    # Brown et al. 2020: 175B parameters, 300B tokens -> 6 N D = 3.15e23 FLOPs, plus attention
    # 5.820e10 per token at the default 4,096 context (worked in test_model_cases.py).
    out = run("job", "--model-params", "175e9", "--tokens", "300e9", "--card", "a100-80gb-sxm",
              "--cards", "1024", "--format", "json").output
    data = json.loads(out)
    assert data["train_flops"] == pytest.approx((1.05e12 + 5.820e10) * 300e9, rel=1e-3)
    assert data["feasible"] is True
    assert data["cost"]["total"] == pytest.approx(sum(
        v for k, v in data["cost"].items() if k != "total"))


def test_job_costs_the_cluster_described_not_the_generated_rent_option():
    """`tco job --card X --cards N` is the run on N owned X: a scenario also generates an option
    renting them (tco.resolve.renting), which may rank first, but it is not what was asked for."""
    data = json.loads(run("job", "--model-params", "7e9", "--tokens", "1e11", "--card",
                          "h100-sxm", "--cards", "64", "--format", "json").output)
    assert (data["id"], data["acquire"]) == ("h100-sxm", "buy")
    assert data["cost"]["rental"] == 0 and data["cost"]["hardware"] > 0


def test_unknown_card_is_one_clear_error():
    res = run("job", "--model-params", "7e9", "--tokens", "1e11", "--card", "h100-sx",
              "--cards", "8", ok=False)
    assert res.exit_code == 2
    assert "unknown card 'h100-sx'" in res.output and "h100-sxm" in res.output
    assert "Traceback" not in res.output


def test_report_paper_option(tmp_path):
    a4, letter = tmp_path / "a4.html", tmp_path / "letter.html"
    run("report", "--html", str(a4), "--draws", "0")
    run("report", "--html", str(letter), "--paper", "letter", "--draws", "0")
    assert "size: A4;" in a4.read_text(encoding="utf-8")
    text = letter.read_text(encoding="utf-8")
    assert "size: letter;" in text and "size: A4;" not in text


def test_outputs_do_not_depend_on_the_install_path(tmp_path):
    # The built-in example is named, not located: a clone elsewhere gives the same bytes.
    root = str(Path(__file__).resolve().parent.parent)
    page = tmp_path / "r.html"
    run("report", "--html", str(page), "--draws", "0")
    assert root not in page.read_text(encoding="utf-8")
    assert root not in run("compare", "--format", "json").output
