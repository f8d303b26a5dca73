"""China's rules as the model and the planner apply them (issue 31): a hub region as a site
sets its tariff and holds the PUE to the region's cap; a site's power quota (能耗指标) bounds
what the planner installs there.

Catalog figures used (pricing/facilities.yaml): cn-guizhou tariff 0.38 CNY/kWh, PUE cap 1.2
(发改环资〔2024〕970号); cn 0.63 CNY/kWh, PUE cap 1.25; air cooling PUE 1.25 / 1.4 / 1.58,
liquid 1.08 / 1.15 / 1.25."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from tco.api import load_source
from tco.cli import cli
from tco.engine import compute
from tco.plan.problem import Card, Periods, Problem, Stack, Training, Voucher
from tco.plan.solve import solve

HUB = """
name: hub
currency: CNY
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: east, card: ascend-910b, cards: 64}
  - {id: hub-air, card: ascend-910b, cards: 64, site: gz}
  - {id: hub-liquid, card: ascend-910b, cards: 64, site: gz, cooling: liquid}
facility:
  region: cn
  sites:
    - {id: gz, region: cn-guizhou}
"""


@pytest.fixture(scope="module")
def hub(catalog):
    return compute(load_source(HUB), catalog)


def test_a_hub_site_brings_its_tariff_and_holds_the_pue_to_its_cap(hub):
    inp = hub.inputs
    assert inp["facility.sites.gz.electricity_price_per_kwh"].value == 0.38
    assert inp["facility.electricity_price_per_kwh"].value == 0.63
    # air cooling 1.25 / 1.4 / 1.58 held to the hub's 1.2 in every part; to cn's 1.25 at cn
    air = inp["candidates.hub-air.pue"]
    assert (air.low, air.value, air.high) == (1.2, 1.2, 1.2)
    assert air.source.startswith("held to the 1.2 PUE cap of region cn-guizhou")
    assert inp["candidates.east.pue"].value == 1.25
    liquid = inp["candidates.hub-liquid.pue"]  # 1.08 / 1.15 / 1.25: only the high part moves
    assert (liquid.low, liquid.value, liquid.high) == (1.08, 1.15, 1.2)
    # the same cluster pays its site's tariff at its PUE: 0.38 x 1.2 against 0.63 x 1.25
    east, gz = hub.candidate("east").values, hub.candidate("hub-air").values
    assert gz["electricity_per_year"] == pytest.approx(
        east["electricity_per_year"] * (0.38 * 1.2) / (0.63 * 1.25), rel=1e-12)


@pytest.mark.parametrize(("change", "field"), [
    ("- {id: gz, region: cn-guizhou}", "facility.sites.gz.pue"),
    ("{id: hub-air, card: ascend-910b, cards: 64, site: gz}", "candidates.hub-air.pue"),
])
def test_a_pue_given_above_the_regions_cap_is_refused(tmp_path, change, field):
    text = HUB.replace(change, {
        "- {id: gz, region: cn-guizhou}": "- {id: gz, region: cn-guizhou, pue: 1.3}",
        "{id: hub-air, card: ascend-910b, cards: 64, site: gz}":
            "{id: hub-air, card: ascend-910b, cards: 64, site: gz, pue: 1.3}",
    }[change])
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert field in out.output
    assert "PUE 1.3 is above the 1.2 cap of region cn-guizhou" in out.output
    assert "Traceback" not in out.output


def _case(budgets: dict[str, float], limits: dict[str, float] | None = None,
          stop: int | None = None) -> Problem:
    """tests/test_planner.py's hand-worked case (one server of 8 cards at 100,000, upkeep
    2,000 a quarter, half back at the horizon, a quarter's lead time, 2.00 a card-hour on
    demand, 200,000 card-hours due in the year) with its servers at site "hub", each drawing
    10 kW of the site's power."""
    card = Card(id="x", stack="cuda", cards_per_server=8, lead_periods=1, buy=True,
                lease=False, server_price=(100_000.0,) * 4, upkeep_per_server_period=2_000.0,
                resale_fraction=(0.5,) * 4, rent={"on_demand": (2.0,) * 4}, utilization=1.0,
                facility_kw_per_server=10.0, site="hub", card="x910", stop_period=stop)
    run = Training("pretrain", {"x": 200_000.0}, ((0, 3, 1.0),), shortfall_per_run=1e9)
    return Problem(Periods(4, 3, 0.0), (card,), (run,), (), (Stack("cuda", 0.0, 0, 0.0),),
                   budgets, limits or {})


def test_a_sites_power_quota_bounds_the_servers_the_plan_installs_there():
    # Unbounded: 4 servers, 224,000 (tests/test_planner.py). A 25 kW quota at the hub holds 2
    # servers (20 kW): 2 x 56,000 + 2.00 x (200,000 - 2 x 52,560) rented = 301,760.
    sol = solve(_case({"hub": 25.0}))
    assert sol.values[("buy", "x", 0)] == pytest.approx(2.0)
    assert sol.npv == pytest.approx(301_760.0, rel=1e-9)
    # a quota at another site does not bind the hub's servers
    assert solve(_case({"east": 25.0})).npv == pytest.approx(224_000.0, rel=1e-9)


def test_the_planner_reads_each_sites_quota(catalog):
    from tco.plan.build import problem

    text = HUB.replace("- {id: gz, region: cn-guizhou}",
                       "- {id: gz, region: cn-guizhou, power_budget_kw: 400}")
    r = compute(load_source(text), catalog)
    prob, _sup = problem(r.structure, {c.id: c.info for c in r.candidates}, r.env)
    assert prob.power_budget_kw == {"gz": 400.0}
    assert {c.id: c.site for c in prob.cards} == {"east": "", "hub-air": "gz",
                                                  "hub-liquid": "gz"}


VAT = """
name: vat on running costs
currency: CNY
rent_options: none
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: own, card: ascend-910b, cards: 64, site: gz}
  - {id: rent, card: ascend-910b, cards: 64, acquire: rent, cloud_price_per_card_hour: 12}
facility:
  region: cn
  sites:
    - {id: gz, region: cn-guizhou}
finance: {vat_recoverable_fraction: 0.4, horizon_years: 3, discount_rate: 0.1}
"""


def test_vat_on_running_costs_is_the_unrecovered_share_of_each_lines_vat(catalog):
    r = compute(load_source(VAT), catalog)
    inp = r.inputs
    # 《增值税法》 Art. 10: electricity 13 %, IDC and cloud services 6 % (pricing/facilities.yaml cn)
    assert inp["finance.vat_rate_electricity"].value == 0.13
    assert inp["finance.vat_rate_colocation"].value == 0.06
    assert inp["finance.vat_rate_cloud"].value == 0.06
    own, rent = r.candidate("own"), r.candidate("rent")
    for t in (1, 2, 3):
        y = own.yearly[t]
        # 60 % of the VAT is not recovered: 0.6 x (0.13 electricity + 0.06 colocation)
        assert y["running_vat"] == pytest.approx(
            0.6 * (0.13 * y["electricity"] + 0.06 * y["colocation"]), rel=1e-12)
        assert y["electricity"] > 0 and y["colocation"] > 0
        rented = rent.yearly[t]
        assert rented["running_vat"] == pytest.approx(0.6 * 0.06 * rented["cloud_rent"],
                                                      rel=1e-12)
    assert own.yearly[0]["running_vat"] == 0
    # the rent of a year: 64 cards x the hours the runs need x 12 CNY; its VAT cost at 10 %
    hours = rent.values["available_hours_per_year"]
    assert rent.yearly[2]["cloud_rent"] == pytest.approx(64 * hours * 12, rel=1e-9)
    # every VAT recovered: no cost (the NPV moves by the VAT lost discounted at 10 %)
    full = compute(load_source(VAT.replace("vat_recoverable_fraction: 0.4",
                                           "vat_recoverable_fraction: 1")), catalog)
    lost = sum(own.yearly[t]["running_vat"] / 1.1 ** t for t in (1, 2, 3))
    assert all(y["running_vat"] == 0 for y in full.candidate("own").yearly)
    assert own.values["capex_vat"] == 0  # finance.vat_rate (the purchase's) is 0 here
    assert own.values["npv_tco"] - full.candidate("own").values["npv_tco"] == pytest.approx(
        lost, rel=1e-9)


VOUCHERS = """
name: vouchers
currency: CNY
rent_options: none
rent_pricing: on_demand
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: a, card: ascend-910b, cards: 64, acquire: rent, cloud_price_per_card_hour: 12}
  - {id: b, card: ascend-910b, cards: 64, acquire: rent, cloud_price_per_card_hour: 12}
  - {id: h, card: h20, cards: 64, acquire: rent, cloud_price_per_card_hour: 10}
  - {id: own, card: ascend-910b, cards: 64}
facility: {region: cn}
finance: {horizon_years: 2, discount_rate: 0.1}
vouchers:
  - {id: hz-domestic, share: 0.3, cap_per_year: 100000, cards: [ascend-910b],
     source: "杭州 《关于支持人工智能全产业链高质量发展的若干措施》 (2024-07): <= 30% of domestic compute"}
  - {id: per-hour, per_card_hour: 2, options: [h], source: "test"}
"""


def test_a_compute_voucher_pays_its_share_of_the_rent_up_to_its_cap(catalog):
    r = compute(load_source(VOUCHERS), catalog)
    a, h, own = r.candidate("a"), r.candidate("h"), r.candidate("own")
    for t in (1, 2):
        rent = a.yearly[t]["cloud_rent"]
        # 30 % of the rent, held to 100,000 a year: the rent is well above 333,333 here
        assert rent > 100_000 / 0.3
        assert a.yearly[t]["voucher"] == -100_000
        assert r.candidate("b").yearly[t]["voucher"] == -100_000  # same card: it applies
        # 2 CNY per card-hour rented: the rent / 10 CNY per card-hour x 2, no cap
        assert h.yearly[t]["voucher"] == pytest.approx(-h.yearly[t]["cloud_rent"] / 10 * 2,
                                                       rel=1e-12)
        assert own.yearly[t]["voucher"] == 0  # a voucher pays rent only
    # NPV: 100,000 less in each of 2 years at 10 %: 100,000 / 1.1 + 100,000 / 1.21
    free = compute(load_source(VOUCHERS.split("vouchers:\n")[0]), catalog)
    assert free.candidate("a").values["npv_tco"] - a.values["npv_tco"] == pytest.approx(
        100_000 / 1.1 + 100_000 / 1.21, rel=1e-9)
    # uncapped, the share itself: 30 % of the rent
    open_ended = compute(load_source(VOUCHERS.replace(", cap_per_year: 100000", "")), catalog)
    y = open_ended.candidate("a").yearly[1]
    assert y["voucher"] == pytest.approx(-0.3 * y["cloud_rent"], rel=1e-12)


@pytest.mark.parametrize(("change", "message"), [
    ("options: [h]", "unknown option 'hh'"),
    ("cards: [ascend-910b]", "unknown card 'ascend-91b'"),
    ("per_card_hour: 2,", "give either share (of the rent) or per_card_hour"),
])
def test_a_bad_voucher_gets_one_clear_message(tmp_path, change, message):
    text = VOUCHERS.replace(change, {"options: [h]": "options: [hh]",
                                     "cards: [ascend-910b]": "cards: [ascend-91b]",
                                     "per_card_hour: 2,": "share: 0.1, per_card_hour: 2,"}[change])
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert message in out.output and "vouchers" in out.output, out.output
    assert "Traceback" not in out.output


def test_a_vendors_quota_spreads_the_orders_over_quarters():
    # 16 cards (2 servers) a quarter: 2 bought in quarter 0 (56,000 each, 52,560 card-hours
    # each) and 2 in quarter 1 (100,000 + 2 x 2,000 - 50,000 = 54,000 each, working quarters
    # 2-3: 35,040 card-hours each, worth 70,080 of rent); a fifth in quarter 2 would work one
    # quarter (35,040 of rent) for 52,000. The rest, 200,000 - 175,200 = 24,800 card-hours,
    # is rented at 2.00: 112,000 + 108,000 + 49,600 = 269,600.
    sol = solve(_case({}, {"x910": 16.0}))
    assert sol.values[("buy", "x", 0)] == pytest.approx(2.0)
    assert sol.values[("buy", "x", 1)] == pytest.approx(2.0)
    assert sol.npv == pytest.approx(269_600.0, rel=1e-9)
    assert solve(_case({}, {"other-card": 16.0})).npv == pytest.approx(224_000.0, rel=1e-9)


def test_a_revoked_licence_stops_the_card_from_its_period_on():
    # revoked from quarter 2: a server bought in quarter 0 works quarter 1 only (17,520
    # card-hours, 35,040 of rent) for 56,000, so none is bought; and nothing works on the card
    # from quarter 2, rented or not: the run is rented in quarters 0-1, 400,000
    sol = solve(_case({}, stop=2))
    assert not any(k[0] == "buy" for k in sol.values)
    assert not any(k[0] == "work" and k[4] >= 2 for k in sol.values)
    assert sol.npv == pytest.approx(400_000.0, rel=1e-9)


RULES = """
name: rules
currency: CNY
rent_options: none
start: 2027-01
workloads:
  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}
candidates:
  - {id: own, card: ascend-910b, cards: 1024, lead_time_weeks: 0}
  - {id: h20, card: h20, cards: 64, acquire: rent, cloud_price_per_card_hour: 10}
facility: {region: cn}
finance: {horizon_years: 3}
team: {familiarity: {cann: 1.0}}
policy:
  supply_limit_cards_per_quarter: {ascend-910b: 200}
  licence_revoked_from: {ascend-910b: 2028-07}
"""


def test_a_revoked_licence_strands_the_cluster_and_flags_it(catalog):
    r = compute(load_source(RULES), catalog)
    own = r.candidate("own")
    free = compute(load_source(RULES.replace("  licence_revoked_from: {ascend-910b: 2028-07}\n",
                                             "")), catalog).candidate("own")
    assert r.inputs["candidates.own.licence_revoked_years"].value == 1.5  # 18 months
    name = own.info.card_name
    assert f"licence: {name} revoked from 2028-07: the cluster does no work after it, " \
        "its costs stay (policy.licence_revoked_from)" in own.info.flags
    assert f"supply: the vendor allocates at most 200 {name} a quarter; 1,024 cards " \
        "take 6 quarters" in own.info.flags
    # delivered at once and ported (familiar team): ready all of year 1, half of year 2, none
    # of year 3; installed, and so colocation, as without the revocation
    assert [own.yearly[t]["ready_share"] for t in (1, 2, 3)] == [1.0, 0.5, 0.0]
    assert own.yearly[3]["colocation"] == free.yearly[3]["colocation"] > 0
    assert own.yearly[3]["work_share"] == 0 < free.yearly[3]["work_share"]
    assert own.values["npv_tco"] == pytest.approx(free.values["npv_tco"] - sum(
        (free.yearly[t]["electricity"] - own.yearly[t]["electricity"]) / 1.08 ** t
        for t in (1, 2, 3)), rel=1e-9)  # only the busy power falls: costs stay
    assert not r.candidate("h20").info.flags or all(
        "revoked" not in f for f in r.candidate("h20").info.flags)


def test_the_planner_reads_the_quota_and_the_revocation(catalog):
    from tco.plan.build import problem

    r = compute(load_source(RULES), catalog)
    prob, _sup = problem(r.structure, {c.id: c.info for c in r.candidates}, r.env)
    assert prob.supply_limit_cards_per_quarter == {"ascend-910b": 200.0}
    stops = {c.id: c.stop_period for c in prob.cards}
    assert stops == {"own": 18, "h20": None}  # 2028-07 is 18 months after 2027-01


def test_a_revocation_without_a_start_month_is_refused(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(RULES.replace("start: 2027-01\n", ""))
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert "policy.licence_revoked_from.ascend-910b" in out.output
    assert "needs the scenario's start month" in out.output and "Traceback" not in out.output


@pytest.mark.parametrize(("quota", "message"), [
    ("1.0e+308", ("found 1e+308, outside the plausible range 1 to 1e+06 cards/quarter for "
                  "cards of one id the vendor allocates per quarter; expected a whole number of "
                  "cards a quarter, such as 200")),
    ("0.5", "found 0.5, outside the plausible range 1 to 1e+06 cards/quarter"),
    ("0", "found 0, outside the plausible range 1 to 1e+06 cards/quarter"),
    ("2.5", "expected a whole number, found 2.5"),
])
def test_a_quota_of_no_whole_plausible_cards_is_refused(tmp_path, quota, message):
    """A quota of 1e308 cards a quarter was taken (and printed as the vendor's allocation),
    half a card too; the quota is a whole number of cards, at most a cluster's most
    (tco.inputs.QUOTA_INPUT)."""
    path = tmp_path / "bad.yaml"
    path.write_text(RULES.replace("{ascend-910b: 200}", f"{{ascend-910b: {quota}}}"))
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert f"{path}:15: policy.supply_limit_cards_per_quarter.ascend-910b: {message}" \
        in out.output
    assert "Traceback" not in out.output and len(out.output.splitlines()) == 1


def test_a_chinese_cloud_offer_is_picked_by_id(catalog):
    """pricing/cloud.yaml cn-a100-80gb-sxm (domestic platforms' list average, 10 CNY typical
    on demand); a Chinese API by id: tests/test_china_market.py."""
    r = compute(load_source({
        "name": "cn", "currency": "CNY", "rent_options": "none", "rent_pricing": "on_demand",
        "workloads": [{"id": "w", "params": 7e9, "tokens": 1e11, "runs_per_year": 2}],
        "candidates": [{"id": "a", "card": "a100-80gb-sxm", "cards": 64, "acquire": "rent",
                        "cloud": "cn-a100-80gb-sxm"}],
        "facility": {"region": "us"}}), catalog)
    # picked by id though the facility is in the US (whose offer would be the general one)
    assert r.inputs["candidates.a.cloud_price_per_card_hour"].value == 10


def test_an_unknown_cloud_offer_gets_one_clear_message(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(VOUCHERS.replace("acquire: rent, cloud_price_per_card_hour: 10}",
                                     "acquire: rent, cloud: cn-lease-h100-sxm}"))
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2, out.output
    assert "candidates.h.cloud" in out.output
    assert "cloud offer 'cn-lease-h100-sxm' rents h100-sxm, not h20" in out.output


def test_a_voucher_in_the_plan_pays_its_share_of_the_rent_up_to_its_cap():
    # 50 % of the rent of x, at most 30,000 a year. k servers and the rest rented cost
    # 56,000 k + 2 x (200,000 - 52,560 k) less the voucher: 4 servers 224,000 (no rent, no
    # voucher); 3 servers 168,000 + 84,640 - min(30,000, 42,320) = 222,640, the cheapest;
    # 2 servers 112,000 + 189,760 - 30,000 = 271,760; renting all 400,000 - 30,000
    p = _case({})
    v = Voucher("v", "share", 0.5, 30_000.0, ("x",))
    sol = solve(Problem(p.periods, p.cards, p.training, p.serving, p.stacks, vouchers=(v,)))
    assert sol.values[("buy", "x", 0)] == pytest.approx(3.0)
    assert sol.values[("voucher", "v", 1)] == pytest.approx(30_000.0)
    assert sol.npv == pytest.approx(222_640.0, rel=1e-9)


def test_the_plans_money_counts_the_vouchers_as_the_solver_does():
    """The cn starter (a 20 % voucher on the H100 lease, capped at CNY 8 M a year): every
    plan's NPV from the model's trees equals the solver's objective, and the plan held to the
    leased option costs what the option does (both count the voucher)."""
    import tco

    root = Path(__file__).resolve().parents[1] / "tco" / "scenarios"
    run = tco.compare(root / "cn.yaml", [root / "cn.quotes.csv"])
    plans = {p.id: p for p in run.result.plans}
    # every plan, also those held to an option that does no work (their traffic left to its
    # fallback, priced with every API that serves it, as the solver prices it)
    assert len(plans) == 6
    for pid, p in plans.items():
        # planned after tax (the scenario gives a jurisdiction): the objective is that NPV
        assert p.basis == "after_tax", pid
        assert p.npv_tco_after_tax == pytest.approx(p.values["objective"], rel=1e-9), pid
    lease = plans["plan-h100-lease"]
    assert plans["plan"].npv_tco == lease.npv_tco  # the cheapest plan is that one
    # the plan held to the leased option rents its cards on demand: with the rent's price
    # path (pricing/price_paths.yaml) and the voucher, that costs less than leasing them
    assert [(a.action, a.tier) for a in lease.actions] == [("rent", "on_demand")]
    option = run.result.candidate("h100-lease").values["npv_tco"]
    assert lease.npv_tco < 0.6 * option
    paid = [v for k, v in lease.env.items() if k.startswith("plan-h100-lease.p")
            and k.endswith(".voucher")]
    assert paid and all(v < 0 for v in paid)
