"""`rent_options: auto` rents a leased or hybrid card too (issue 13): a scenario whose only option leases
H100s got no rent option, so it recommended leasing at $3.43M while its own table showed
renting the same hours at $356k (`cloud NPV`; $529k on demand since a committed reservation
is paid for every hour), and the report advised adding `rent_options: auto`, which was
already on.
"""

from __future__ import annotations

import pytest

from tco.decide import recommend_option as recommend
from tco.engine import compute
from tco.scenario import load_scenario_text

LEASE_ONLY = """
name: lease only
workloads:
  - {id: w, params: 7e9, tokens: 1e12, runs_per_year: 2}
candidates:
  - {id: lease, card: h100-sxm, cards: 64, acquire: lease}
finance: {horizon_years: 3, discount_rate: 0.08}
team: {familiarity: {cuda: 1.0}}
"""


def test_a_leased_card_is_also_rented(frozen):
    # hand-worked on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    r = compute(load_scenario_text(LEASE_ONLY), frozen)
    assert [c.id for c in r.candidates] == ["lease-rent", "lease"]
    rent, lease = r.candidate("lease-rent"), r.candidate("lease")
    assert rent.info.acquire == "rent" and rent.info.inputs_of == "lease"
    assert rent.notes == [
        ("renting the card and cluster size of 'lease' at on-demand cloud prices "
         "(rent_options: auto)"),
        ("rents on demand: paying for the hours used costs less over the horizon than a "
         "committed reservation paid for every hour")]
    # two runs a year of the run's card-hours at the on-demand H100 price, $3.49 a card-hour
    # (the 1-year committed $2.35 would be paid for all 64 x 8,760 hours), paid at the end of
    # each of the 3 years, no porting (CUDA)
    hours = lease.jobs["w"]["gpu_hours"]
    assert rent.jobs["w"]["gpu_hours"] == pytest.approx(hours, rel=1e-12)
    assert r.inputs["candidates.lease.cloud_price_per_card_hour"].value == 2.35
    assert 2 * hours * 3.49 < 64 * 8760 * 2.35
    npv = sum(2 * hours * 3.49 / 1.08 ** t for t in (1, 2, 3))
    assert rent.values["npv_tco"] == pytest.approx(npv, rel=1e-9)
    assert lease.values["cloud_npv"] == pytest.approx(npv, rel=1e-9)  # the same plan rented
    assert npv == pytest.approx(545_000, rel=0.01)
    rec = recommend(r)
    assert rec is not None and rec.option == "lease-rent" and rec.mode == "rent"
    assert rec.reasons[1].code == "lease_dearer" and rec.reasons[1].figures["option"] == "lease"
    # The break-even compares leasing with the rent actually paid at each use (issue 25).
    # With storage sized from the data (issue 27: 9.975 TB of checkpoints and dataset, where
    # it was 10 TB a card), leasing costs $3.248M, and reserving all 64 x 8,760 card-hours,
    # 64 x 8,760 x 2.35 = $1.318M a year x 2.577 (the 3-year annuity at 8 %) = $3.395M, costs
    # more: leasing pays at full use, and down to where on demand costs as much as it.
    assert lease.values["storage_tb"] == pytest.approx(9.975, rel=1e-9)
    annuity = sum(1.08 ** -t for t in (1, 2, 3))
    assert 64 * 8760 * 2.35 * annuity == pytest.approx(3_395_000, rel=1e-3)
    assert lease.values["npv_tco"] == pytest.approx(3_248_000, rel=1e-3)
    # Leasing's fixed cost: its NPV less the energy of its busy hours (A e h), where
    # e = (61,200 - 20,400) W x PUE 1.4 / 1,000 x $0.0826/kWh = $4.7178 an hour and
    # h = 947.46 busy hours a year. Above the reservation's 8,760 hours it would pay from
    # fixed / (A (64 x 2.35 - e)) = 8,620 hours; that is below 8,760, so leasing pays from
    # where on demand costs as much: fixed / (A (64 x 3.49 - e)) = 5,744 hours, 65.57 %.
    e = (61200 - 20400) * 1.4 / 1000 * 0.0826
    busy = lease.values["busy_hours_per_year"]
    assert busy == pytest.approx(947.46, rel=1e-5)
    fixed = lease.values["npv_tco"] - annuity * e * busy
    assert fixed / (annuity * (64 * 2.35 - e)) == pytest.approx(8620, rel=1e-3)
    assert lease.values["breakeven_utilization"] == pytest.approx(
        fixed / (annuity * (64 * 3.49 - e)) / 8760, rel=1e-9)
    assert lease.values["breakeven_utilization"] == pytest.approx(0.6557, abs=1e-4)
    # two runs a year use 947 hours (11 %): well below it, renting wins and says why
    assert [x.code for x in rec.reasons] == ["lowest_npv", "lease_dearer"]


def test_rent_options_none_still_lists_only_the_candidates(catalog):
    r = compute(load_scenario_text(LEASE_ONLY + "rent_options: none\n"), catalog)
    assert [c.id for c in r.candidates] == ["lease"]


def test_a_hybrid_card_is_also_rented(frozen):
    catalog = frozen  # the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    # a hybrid owns a base and rents its gaps; renting all of it is another option, priced
    # the same way: $529k on demand against the hybrid's $2.85M for two runs a year
    r = compute(load_scenario_text(LEASE_ONLY.replace("acquire: lease", "acquire: hybrid")),
                catalog)
    assert [c.id for c in r.candidates] == ["lease-rent", "lease"]
    rent = r.candidate("lease-rent")
    hours = rent.jobs["w"]["gpu_hours"]
    assert rent.values["npv_tco"] == pytest.approx(
        sum(2 * hours * 3.49 / 1.08 ** t for t in (1, 2, 3)), rel=1e-9)
    rec = recommend(r)
    assert rec is not None and rec.option == "lease-rent"
    assert rec.reasons[1].code == "hybrid_dearer"
