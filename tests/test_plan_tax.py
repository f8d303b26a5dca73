"""The plan chosen on the NPV the options are ranked on (finance.decision_basis, methodology
§20): with a tax rate or jurisdiction the options are ranked after income tax, and the planner
minimises the plan's NPV after tax, so that the plan, the plans held to one option and the
recommendation compare on one basis. Worked by hand on the planner's small case, then held to
the plan's money (the expression trees the workbook writes) on scenarios that buy, lease and
rent."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml
from conftest import bought_or_rented_h100

import tco
from tco.plan.problem import Card, Periods, Problem, Stack, Tax, Training
from tco.plan.solve import solve

ROOT = Path(__file__).resolve().parents[1]


def _case(tax: Tax | None, deductions: float) -> Problem:
    """tests/test_planner.py's hand-worked case (methodology §19) at no discount: a year of 4
    quarters; 8 cards a server at 100,000, upkeep 2,000 a quarter, half its price back at the
    horizon, a quarter's lead time, or 2.00 a card-hour on demand; one run of 200,000
    card-hours. `deductions`: the present value of one server's tax deductions."""
    card = Card(id="x", stack="cuda", cards_per_server=8, lead_periods=1, buy=True,
                lease=False, server_price=(100_000.0,) * 4, upkeep_per_server_period=2_000.0,
                resale_fraction=(0.5,) * 4, rent={"on_demand": (2.0,) * 4}, utilization=1.0,
                tax_deductions_per_server=(deductions,) * 4)
    run = Training("pretrain", {"x": 200_000.0}, ((0, 3, 1.0),), shortfall_per_run=1e9)
    return Problem(Periods(4, 3, 0.0), (card,), (run,), (), (Stack("cuda", 0.0, 0, 0.0),),
                   tax=tax)


def test_after_tax_the_hand_worked_case_buys_one_server_fewer():
    # Before tax: 56,000 a server (100,000 + 3 x 2,000 - 50,000), 2.00 a card-hour rented;
    # 4 servers (224,000) beat 3 and the rest rented (252,640).
    assert solve(_case(None, 60_000.0)).values[("buy", "x", 0)] == pytest.approx(4.0)
    # Tax at 25 %, R&D costs deducted twice (rd 2): a cost deducted as paid keeps
    # 1 - 0.25 x 2 = 0.5 of itself, the taxed resale 0.75. A server whose deductions are
    # worth 60,000 today: 100,000 - 0.25 x 60,000 + 6,000 x 0.5 - 50,000 x 0.75 = 50,500;
    # a card-hour rented 1.00. k servers work 52,560 k card-hours:
    #   4: 202,000;  3: 151,500 + 42,320 = 193,820;  2: 101,000 + 94,880 = 195,880
    sol = solve(_case(Tax(0.25, 2.0), 60_000.0))
    assert sol.values[("buy", "x", 0)] == pytest.approx(3.0)
    assert sol.npv == pytest.approx(193_820.0, rel=1e-9)


def _variant(tmp_path: Path, name: str, finance: dict, candidates: list | None = None) -> Path:
    data = yaml.safe_load((ROOT / "tco" / "scenarios" / f"{name}.yaml").read_text())
    data.setdefault("finance", {}).update(finance)
    if candidates is not None:
        data["candidates"] = candidates
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data, allow_unicode=True))
    return path


# straight-line over 3 years without bonus, half the costs qualifying R&D deducted twice (a
# China-like rule): the deductions of a purchase and of a cost paid differ in time and size
CN_LIKE = {"tax_rate": 0.25, "tax_depreciation": "straight_line", "tax_life_years": 3,
           "tax_bonus_fraction": 0.0, "tax_rd_share": 0.5,
           "tax_rd_extra_deduction_fraction": 1.0}
# the example's H100 bought and leased (for the horizon's 60 months from delivery: payments
# are owed past the horizon)
BUY_LEASE = [{"id": "h100-sxm", "card": "h100-sxm", "cards": 1024},
             {"id": "h100-lease", "card": "h100-sxm", "cards": 1024, "acquire": "lease"}]


@pytest.fixture(scope="module", params=[
    ("example", {"tax_jurisdiction": "us-federal"}, None),
    ("example", {**CN_LIKE, "lease_term_months": 60}, BUY_LEASE),
    ("train-and-serve", CN_LIKE, None)], ids=["us-federal", "buy-lease", "train-and-serve"])
def taxed(request, tmp_path_factory):
    name, finance, candidates = request.param
    return tco.compare(_variant(tmp_path_factory.mktemp("tax"), name, finance, candidates))


def test_the_plans_money_after_tax_is_the_solvers_objective(taxed):
    plans = taxed.result.plans
    assert plans and all(p.basis == "after_tax" for p in plans)
    for p in plans:
        assert p.npv_decision == p.npv_tco_after_tax
        assert p.npv_tco_after_tax == pytest.approx(p.values["objective"], rel=1e-9), p.id
        assert p.npv_tco_after_tax < p.npv_tco, p.id  # the tax saved on costs


def test_the_plan_after_tax_is_no_dearer_than_any_plan_held_to_one_option(taxed):
    best, *held = taxed.result.plans
    delivering = [p for p in held if all(
        (w.get("delivered_fraction") or 0) >= 1 - 1e-9 for w in p.workloads.values())]
    assert delivering
    for p in delivering:
        assert best.npv_tco_after_tax <= p.npv_tco_after_tax * (1 + 1e-9), p.id


def test_the_recommendation_compares_the_plans_after_tax(taxed):
    data = taxed.to_dict()
    rec, plan = data["recommendation"], data["plan"]
    assert rec["mode"] == "plan" and rec["basis"] == "after_tax" == plan["basis"]
    first, lowest = rec["reason_codes"][0], rec["reason_codes"][1]
    assert first["code"] == "plan_basis_after_tax"
    assert first["figures"]["npv"] == pytest.approx(plan["npv_tco"], rel=1e-12)
    assert "after income tax" in rec["reasons"][0]
    if lowest["code"] == "plan_lowest":  # the value of flexibility, after tax both ways
        runner = next(o for o in plan["options"] if o["option"] == lowest["figures"]["next"])
        assert lowest["figures"]["npv"] == pytest.approx(plan["npv_tco_after_tax"], rel=1e-12)
        assert lowest["figures"]["next_npv"] == pytest.approx(runner["npv_tco_after_tax"],
                                                              rel=1e-12)
        flex = runner["npv_tco_after_tax"] - plan["npv_tco_after_tax"]
        assert rec["value_of_flexibility"] == pytest.approx(flex, rel=1e-9, abs=1e-6)
        assert plan["value_of_flexibility"] == pytest.approx(flex, rel=1e-9, abs=1e-6)
        assert flex >= -1e-6


def test_a_plan_leased_after_tax_deducts_what_is_owed_past_the_horizon(tmp_path):
    """The plan held to the leased H100 leases (nothing else is open to it), and its payments
    owed after the horizon are lease payments deducted as the others are (R&D costs), in the
    plan's money and in the solver alike."""
    path = _variant(tmp_path, "example", {**CN_LIKE, "lease_term_months": 60}, BUY_LEASE)
    held = next(p for p in tco.compare(path).result.plans if p.option == "h100-lease")
    assert {a.action for a in held.actions} == {"lease"}
    assert held.values["owed_after_horizon"] > 0
    assert held.npv_tco_after_tax == pytest.approx(held.values["objective"], rel=1e-9)


def test_before_tax_the_plan_is_chosen_as_before(tmp_path):
    """finance.decision_basis pre_tax with a tax rate: the planner minimises the NPV before tax
    (its objective), and reports the NPV after tax beside it."""
    run = tco.compare(_variant(tmp_path, "example", {**CN_LIKE, "decision_basis": "pre_tax"}))
    for p in run.result.plans:
        assert p.basis == "pre_tax" and p.npv_decision == p.npv_tco
        assert p.npv_tco == pytest.approx(p.values["objective"], rel=1e-9), p.id
    assert run.to_dict()["recommendation"]["reason_codes"][0]["code"] == "plan_lowest"


def test_the_cost_of_delay_in_work_left_undone_is_deducted_once():
    """Work left undone costs its fallback: the dearest way to do it (a research cost) plus
    the business's cost of delay (income forgone, deducted once, never as R&D). A run no card
    can do, at 1,000,000 of which 400,000 is delay, after 25 % tax with R&D costs deducted
    twice: 600,000 x (1 - 0.25 x 2) + 400,000 x (1 - 0.25) = 600,000 (the whole fallback as
    R&D would have been 500,000)."""
    card = Card(id="x", stack="cuda", cards_per_server=8, lead_periods=1, buy=True,
                lease=False, server_price=(100_000.0,) * 4, upkeep_per_server_period=2_000.0,
                resale_fraction=(0.5,) * 4, rent={"on_demand": (2.0,) * 4}, utilization=1.0,
                tax_deductions_per_server=(60_000.0,) * 4)
    run = Training("pretrain", {}, ((0, 3, 1.0),), shortfall_per_run=1_000_000.0,
                   shortfall_delay_per_run=400_000.0)
    prob = Problem(Periods(4, 3, 0.0), (card,), (run,), (), (Stack("cuda", 0.0, 0, 0.0),),
                   tax=Tax(0.25, 2.0))
    sol = solve(prob)
    assert sol.values[("short", "pretrain", 0)] == pytest.approx(1.0)
    assert sol.npv == pytest.approx(600_000.0, rel=1e-12)
    assert solve(replace(prob, tax=None)).npv == pytest.approx(1_000_000.0, rel=1e-12)



def test_a_plan_leaving_work_undone_deducts_its_delay_once(tmp_path):
    """Held to the 64 bought H100, whose purchase is deducted over 30 tax years at 40 % tax,
    the plan leaves every run to its fallback (renting at 0.2 of the rent after tax is
    cheaper than buying). Its fallback is paid at each year's end: pre-tax NPV P. Every cost
    in it is research (deducted twice: kept 1 - 0.4 x 2 = 0.2) but the cost of delay,
    2,000 a week x 52 = 104,000 a year whatever the runs, which keeps 1 - 0.4 = 0.6: after
    tax 0.2 P + 0.4 x 104,000 x (the annuity of 5 years at 8 %, 3.99271)."""
    path = tmp_path / "undone.yaml"
    path.write_text(bought_or_rented_h100(delay_per_week=2000))
    plans = tco.compare(path).result.plans
    held = next(p for p in plans if p.option == "buy")
    assert held.workloads["w"]["delivered_fraction"] == 0 and not held.actions
    annuity = sum(1 / 1.08 ** y for y in range(1, 6))
    assert held.npv_tco_after_tax == pytest.approx(
        0.2 * held.npv_tco + 0.4 * 104_000 * annuity, rel=1e-9)
    for p in plans:
        assert p.npv_tco_after_tax == pytest.approx(p.values["objective"], rel=1e-9), p.id
