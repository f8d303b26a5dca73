"""Sites (methodology §3, "Sites"): the facility is a list of sites, the first written as the
facility itself (`facility: {region: us, ...}`, inputs `facility.<key>`) and each further one
under `facility.sites` (inputs `facility.sites.<id>.<key>`), each with its own tariff,
colocation price, carbon, PUE and power budget; an option runs at the site it names.

Catalog figures used (pricing/facilities.yaml): US industrial tariff 0.0826 USD/kWh, China
0.63 CNY/kWh at 7.1526 CNY/USD; air cooling PUE 1.4."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from tco.analysis.whatif import whatif
from tco.cli import cli
from tco.engine import compute
from tco.resolve import resolve
from tco.scenario import load_scenario_text

SITES = """
name: sites
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: here, card: h100-sxm, cards: 64}
  - {id: there, card: h100-sxm, cards: 64, site: cheap}
  - {id: east, card: h100-sxm, cards: 64, site: cn}
facility:
  region: us
  sites:
    - {id: cheap, electricity_price_per_kwh: 0.04, pue: 1.1}
    - {id: cn, region: cn}
"""


# Every kind of site input, and held stock valued by its age (tco.model.held): what-if takes
# each of their paths (tests/test_analysis_whatif.py)
EVERY_SITE_INPUT = SITES.replace("region: us\n", "region: us\n  pue: 1.3\n  power_budget_kw: 1e5\n"
                                 ).replace("{id: cn, region: cn}",
                                           "{id: cn, region: cn, power_budget_kw: 5e4}") + (
    "policy: {holds_stock: {h100-sxm: {cards: 16, age_years: 2}}}\n")


@pytest.fixture(scope="module")
def sited(catalog):
    return compute(load_scenario_text(SITES), catalog)


def test_a_single_site_scenario_keeps_its_paths(example):
    assert example.structure.sites == (("",),)
    assert "facility.electricity_price_per_kwh" in example.inputs
    assert not any(p.startswith("facility.sites.") for p in example.inputs)
    assert "site" not in example.scenario_data["candidates"][0]
    assert set(example.scenario_data["facility"]) == {
        "region", "electricity_price_per_kwh", "colocation_price_per_kw_month",
        "carbon_kg_per_kwh"}  # the scenario's data (and digest) as before sites


def test_each_site_has_its_own_inputs(sited, catalog):
    inputs = sited.inputs
    assert inputs["facility.sites.cheap.electricity_price_per_kwh"].value == 0.04
    assert inputs["facility.sites.cheap.pue"].value == 1.1
    # the region defaults to the facility's: the US colocation price, from the catalog
    assert inputs["facility.sites.cheap.colocation_price_per_kw_month"].value == \
        catalog.region("us").colocation_price_per_kw_month.best
    # another region's tariff, converted from its own currency: 0.63 CNY / 7.1526
    assert inputs["facility.sites.cn.electricity_price_per_kwh"].value == pytest.approx(
        0.63 / 7.1526, rel=1e-12)
    assert inputs["facility.sites.cn.electricity_price_per_kwh"].source.startswith(
        "CNY x 0.139809 USD/CNY: ")
    # a site that gives a PUE: its options read it, and have no PUE of their own
    assert "candidates.there.pue" not in inputs
    assert inputs["candidates.here.pue"].value == 1.4  # air cooling (catalog)


def test_an_option_pays_its_sites_tariff_at_its_sites_pue(sited):
    """Twins but for their site (same card and size): the energy scales with the PUE and
    the bill with the tariff, 0.04 x 1.1 against 0.0826 x 1.4."""
    here, there = sited.candidate("here").values, sited.candidate("there").values
    assert there["facility_power_kw"] == pytest.approx(here["facility_power_kw"] * 1.1 / 1.4,
                                                       rel=1e-12)
    assert there["electricity_per_year"] == pytest.approx(
        here["electricity_per_year"] * (0.04 * 1.1) / (0.0826 * 1.4), rel=1e-12)
    assert there["colocation_per_year"] == here["colocation_per_year"]  # same region's price
    ratio = sited.candidate("there").job["co2e_kg"] / sited.candidate("here").job["co2e_kg"]
    assert ratio == pytest.approx(1.1 / 1.4, rel=1e-12)  # same grid, less overhead
    exprs = sited.model.expressions()
    assert "facility.sites.cheap.electricity_price_per_kwh" in exprs[
        "there.electricity_per_year"].excel(lambda n: n)


def test_export_control_follows_the_options_site(sited):
    """The H100 is export-controlled in China: barred at the cn site, not at the others."""
    assert sited.candidate("east").info.blocking == [
        "export control: NVIDIA H100 SXM5 80GB is restricted in China"]
    assert not sited.candidate("here").info.blocking
    assert "at site 'cn' (facility.sites, region cn)" in sited.candidate("east").notes


BUDGET = """
name: budget
rent_options: none
workloads:
  - {id: w, params: 70e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: fixed, card: h100-sxm, cards: 512, site: small}
  - {id: capped, card: h100-sxm, power_cap_kw: 400, site: small}
  - {id: rented, card: h100-sxm, cards: 512, acquire: rent, site: small}
  - {id: big, card: h100-sxm, cards: 512}
facility:
  region: us
  sites:
    - {id: small, power_budget_kw: 300}
"""


def test_an_owned_cluster_over_its_sites_power_budget_is_infeasible(catalog):
    r = compute(load_scenario_text(BUDGET), catalog)
    fixed = r.candidate("fixed")
    kw = fixed.values["facility_power_kw"]  # 512 H100 and 64 servers x PUE 1.4: over 300
    assert kw > 300 and not fixed.feasible and fixed.values["within_power_budget"] == 0
    assert fixed.reasons == [(f"the cluster needs {kw:,.1f} kW, over the 300 kW power budget "
                              "of site 'small'")]
    assert r.candidate("big").feasible  # the facility itself has no budget
    rented = r.candidate("rented")  # renting runs in the cloud's facility
    assert rented.feasible and "within_power_budget" not in rented.values


def test_power_cap_sizing_reads_the_sites_budget(catalog):
    """A 400 kW cap at a 300 kW site is sized within 300 kW; without the budget, within 400.
    Sizing goes in whole servers of 8, so one more server breaks the binding limit."""
    r = compute(load_scenario_text(BUDGET), catalog).candidate("capped")
    assert r.feasible and r.values["facility_power_kw"] <= 300
    per_server = r.values["facility_power_kw"] / (r.inputs["cards"] / 8)
    assert r.values["facility_power_kw"] + per_server > 300
    free = compute(load_scenario_text(BUDGET.replace("power_budget_kw: 300",
                                                     "power_budget_kw: 1e6")), catalog)
    capped = free.candidate("capped")
    assert 300 < capped.values["facility_power_kw"] <= 400
    assert capped.inputs["cards"] > r.inputs["cards"]


def test_a_deadline_or_the_plan_within_a_budget_that_cannot_meet_it_says_so(catalog):
    text = BUDGET.replace("{id: fixed, card: h100-sxm, cards: 512, site: small}",
                          "{id: fixed, card: h100-sxm, deadline_days: 5, site: small}")
    fixed = compute(load_scenario_text(text), catalog).candidate("fixed")
    assert not fixed.feasible
    assert fixed.reasons == [("no cluster within the 300 kW power budget of site 'small' "
                              "finishes a run within 5 days")]
    assert fixed.values["facility_power_kw"] <= 300  # the fastest within the budget is kept


def test_a_whatif_of_a_sites_input_equals_resolving_the_edited_scenario(catalog):
    loaded = load_scenario_text(SITES)
    (there,) = [c for c in whatif(loaded, catalog,
                                  ["facility.sites.cheap.electricity_price_per_kwh=0.08"]
                                  ).candidates if c.id == "there"]
    edited = compute(load_scenario_text(SITES.replace("electricity_price_per_kwh: 0.04",
                                                      "electricity_price_per_kwh: 0.08")),
                     catalog)
    assert there.npv.after == edited.candidate("there").values["npv_tco"]
    assert there.npv.after > there.npv.before


@pytest.mark.parametrize(("change", "field", "message"), [
    ("site: cheap}", "candidates.there.site", "unknown site 'chep' (did you mean: cheap?)"),
    ("- {id: cn, region: cn}", "facility.sites", "duplicate site id 'cheap'"),
    ("region: cn}", "facility.sites.cn.region", "unknown region 'mars'"),
    ("cards: 64, site: cheap}", "candidates.there.pue", "site 'cheap' gives the PUE"),
])
def test_a_bad_site_gets_one_clear_message(tmp_path, change, field, message):
    text = SITES.replace(change, {
        "site: cheap}": "site: chep}",
        "- {id: cn, region: cn}": "- {id: cheap, region: cn}",
        "region: cn}": "region: mars}",
        "cards: 64, site: cheap}": "cards: 64, site: cheap, pue: 1.2}",
    }[change])
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert field in out.output and message in out.output, out.output
    assert "Traceback" not in out.output


def test_the_scenario_schema_takes_sites():
    jsonschema = pytest.importorskip("jsonschema")
    from tco.errors import ScenarioError
    from tco.scenario_schema import scenario_schema
    from tco.yamlio import load_yaml_text

    def data(text):
        return load_yaml_text(text, "s.yaml", ScenarioError).data

    jsonschema.validate(data(SITES), scenario_schema())
    jsonschema.validate(data(BUDGET), scenario_schema())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data(SITES.replace("pue: 1.1", "pue: 1.1, tarif: 2")),
                            scenario_schema())


def test_every_output_takes_a_scenario_of_sites(tmp_path, catalog):
    """JSON, the workbook (the further site's inputs under their defined names) and both
    reports are written; the site's note is translated."""
    from tco.exporters.html import render_html
    from tco.exporters.xlsx.workbook import workbook_bytes

    path = tmp_path / "sites.yaml"
    path.write_text(SITES)
    out = CliRunner().invoke(cli, ["compare", str(path), "--format", "json"])
    assert out.exit_code == 0, out.output
    assert {c["id"] for c in json.loads(out.output)["candidates"]} == {"here", "there", "east"}
    r = compute(load_scenario_text(SITES), catalog)
    import io

    import openpyxl

    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    assert "facility_sites_cheap_electricity_price_per_kwh" in wb.defined_names
    assert "位于站点“cheap”" in render_html(r, "zh")


def test_resolve_records_each_candidates_site(catalog):
    resolved = resolve(load_scenario_text(SITES), catalog)
    st = resolved.structure
    assert st.sites == (("",), ("cheap", "pue"), ("cn",))
    assert dict(zip(st.candidates, st.site_of)) == {"here": "", "there": "cheap", "east": "cn"}
