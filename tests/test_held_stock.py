"""Existing stock (issue 13 item 5, methodology §13 "Held stock"): cards the buyer holds are
sunk (no purchase capex) but not free: their resale value now is a cost at year 0 and their
book value at the horizon comes back with the residual; they draw power, space, support and
staff; an option buys only the cards beyond the stock. Catalog figures used below
(pricing/prices.yaml, pricing/platforms.yaml, pricing/assumptions.yaml): H100 SXM 30,000 USD,
HGX H100 server 60,000 USD for 8 cards, fabric 5,000 USD per card, hot spares 2 %, storage
192,000 USD for 64 cards (the scenario sets 10 TB per card, at 300 USD a TB: held storage is
the bought share's, as the other purchase lines), installation 3 %, support 5 %/yr, salvage
10 % over 5 years."""

from __future__ import annotations

import io
import json

import openpyxl
import pytest
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.exporters.html import render_html
from tco.exporters.i18n import Strings
from tco.exporters.xlsx.workbook import workbook_bytes
from tco.scenario import load_scenario_text

NOTE = "32 H100 SXM in service since 2024; resale quote from a broker, 2026-11"
BASE = ("name: held\nrent_options: none\ncost_of_delay_per_week: 0\n"
        "workloads:\n  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}\n"
        "candidates:\n  - {id: h, card: h100-sxm, cards: 64, lead_time_weeks: 0}\n"
        "finance: {horizon_years: 5, discount_rate: 0.08, residual_value_fraction: 0.1}\n"
        "team: {engineer_cost_per_month: 20000, familiarity: {cuda: 1.0}}\n"
        "assumptions: {storage_tb_per_card: 10}\n")
HELD = BASE + ("policy:\n  holds_stock: {h100-sxm: {cards: 32, resale_price_per_card: 20000}}\n"
               f"  note: '{NOTE}'\n")


def test_held_cards_are_sunk_but_carry_their_resale_value(frozen):
    catalog = frozen  # worked by hand on the pre-2026-12 prices (tests/data/catalog_2026_11.yaml)
    new = compute(load_scenario_text(BASE), catalog).candidate("h")
    held = compute(load_scenario_text(HELD), catalog).candidate("h")
    v = held.values
    assert (v["held_cards_used"], v["bought_share"]) == (32, 0.5)  # 32 of 64 held
    # purchase lines: the bought half of the whole cluster's
    assert v["capex_cards"] == pytest.approx((64 + 2) * 30_000 * 0.5)  # 990,000
    assert v["capex_servers"] == pytest.approx(8 * 60_000 * 0.5)  # 240,000
    assert v["capex_network"] == pytest.approx(64 * 5_000 * 0.5)  # 160,000
    assert v["capex_storage"] == pytest.approx(192_000 * 0.5)  # 96,000
    assert v["capex_installation"] == pytest.approx(0.03 * 1_390_000)  # 41,700
    # support on the whole cluster's hardware at purchase prices, held or bought: as if new
    assert v["support_per_year"] == pytest.approx(0.05 * 2_780_000) == \
        new.values["support_per_year"]
    for same in ("electricity_per_year", "colocation_per_year", "operations_staff_per_year"):
        assert v[same] == new.values[same]
    # the sale forgone: 32 x 20,000 at year 0, its own line
    assert v["held_stock_value"] == 640_000
    assert held.yearly[0]["held_stock"] == 640_000 and new.yearly[0]["held_stock"] == 0
    # residual: (hardware 1,390,000 + storage 96,000 + held 640,000) x salvage 0.1
    assert v["residual_value"] == pytest.approx(212_600)
    # NPV: half the capex (1,527,700) not spent, 640,000 forgone now, and a residual smaller by
    # 297,200 - 212,600 = 84,600 at year 5; nothing else moves
    delta = -1_527_700 + 640_000 + 84_600 / 1.08 ** 5
    assert v["npv_tco"] - new.values["npv_tco"] == pytest.approx(delta, rel=1e-9)
    assert new.values["capex_total"] == pytest.approx(2 * 1_527_700)


def test_a_cluster_held_whole_waits_for_no_delivery(catalog):
    """64 held for a 32-card cluster: nothing is bought, so the 26-week lead time (catalog)
    does not delay it; 32 cards' resale value (20,000 each) is the year-0 cost."""
    text = HELD.replace("cards: 64, lead_time_weeks: 0", "cards: 32").replace(
        "cards: 32, resale", "cards: 64, resale")
    v = compute(load_scenario_text(text), catalog).candidate("h").values
    assert (v["held_cards_used"], v["bought_share"]) == (32, 0)
    assert v["capex_total"] == 0 and v["delivery_years"] == 0 and v["ready_years"] == 0
    assert v["held_stock_value"] == 32 * 20_000


def test_a_resale_value_from_the_age_is_a_sourced_book_value(frozen):
    """Two years old: new price 30,000 + 60,000 / 8 + 5,000 = 42,500 USD; book share
    0.1 + 0.9 x (1 - 2/5) = 0.64; 27,200 USD (catalog ranges: card 25,000-40,000, server
    40,000-95,000, fabric 4,200-6,600; the pre-2026-12 prices, tests/data). The new price is an
    input with the catalog's range (Monte Carlo draws it); the book value is the model's
    (tco.model.depreciation)."""
    catalog = frozen
    text = HELD.replace("resale_price_per_card: 20000", "age_years: 2")
    r = compute(load_scenario_text(text), catalog)
    assert "policy.holds_stock.h100-sxm.resale_price_per_card" not in r.inputs
    new = r.inputs["policy.holds_stock.h100-sxm.new_price_per_card"]
    assert new.value == pytest.approx(42_500) and new.origin == "derived"
    # range: 25,000 + 40,000 / 8 + 4,200 and 40,000 + 95,000 / 8 + 6,600
    assert (new.low, new.high) == pytest.approx((34_200, 58_475))
    assert new.source.startswith("derived: the catalog's new price of the card, 1/8 of a "
                                 "hgx-h100-8 server and its fabric, 42,500 USD")
    assert r.inputs["policy.holds_stock.h100-sxm.age_years"].value == 2
    v = r.candidate("h").values
    assert v["held_book_value_per_card"] == pytest.approx(27_200)
    assert v["held_stock_value"] == pytest.approx(32 * 27_200)
    # a buyer's own new price replaces the catalog's
    own = text.replace("age_years: 2", "age_years: 2, new_price_per_card: 40000")
    mine = compute(load_scenario_text(own), catalog)
    assert mine.candidate("h").values["held_book_value_per_card"] == pytest.approx(
        40_000 * 0.64)


def test_the_book_value_of_held_stock_follows_the_depreciation_life_in_a_whatif(frozen):
    """The book value is a formula, so a what-if of the life edits the input directly (no
    second resolve) and equals resolving the edited scenario: 4 years, 0.1 + 0.9 x (1 - 2/4)
    = 0.55 of 42,500 = 23,375 USD per card (the pre-2026-12 prices, tests/data)."""
    catalog = frozen
    from tco.analysis.whatif import whatif

    text = HELD.replace("resale_price_per_card: 20000", "age_years: 2")
    loaded = load_scenario_text(text)
    before = compute(loaded, catalog)
    assert "finance.depreciation_years" not in before.resolved.read_by_resolve
    (h,) = [c for c in whatif(loaded, catalog, ["finance.depreciation_years=4"]).candidates
            if c.id == "h"]
    edited = compute(load_scenario_text(text.replace(
        "finance: {horizon_years: 5,", "finance: {depreciation_years: 4, horizon_years: 5,")),
        catalog)
    assert edited.candidate("h").values["held_book_value_per_card"] == pytest.approx(23_375)
    assert h.npv.after == edited.candidate("h").values["npv_tco"]


def test_a_new_price_without_an_age_is_refused(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text(BASE + "policy: {holds_stock: {h100-sxm: {cards: 8, resale_price_per_card: "
                    "20000, new_price_per_card: 40000}}}\n")
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2
    assert "policy.holds_stock.h100-sxm.new_price_per_card" in out.output
    assert "not used" in out.output


def test_rented_options_and_other_cards_do_not_draw_on_the_stock(catalog):
    text = HELD.replace("rent_options: none", "rent_options: auto").replace(
        "lead_time_weeks: 0}\n", "lead_time_weeks: 0}\n  - {id: b, card: b200, cards: 64}\n")
    r = compute(load_scenario_text(text), catalog)
    assert dict(zip(r.structure.candidates, r.structure.held)) == {
        "h": "h100-sxm", "b": "", "h-rent": "", "b-rent": ""}
    assert "held_stock_value" not in r.candidate("h-rent").values


def test_the_stock_and_note_are_in_every_output(catalog, tmp_path):
    path = tmp_path / "held.yaml"
    path.write_text(HELD)
    out = CliRunner().invoke(cli, ["compare", str(path), "--format", "json"])
    data = json.loads(out.output)
    assert data["policy"] == {"holds_licence": [], "note": NOTE, "holds_stock": {
        "h100-sxm": {"cards": 32, "resale_price_per_card": 20000.0, "age_years": None}}}
    table = CliRunner().invoke(cli, ["compare", str(path)]).output
    assert ("Policy: the buyer holds cards in service: 32 h100-sxm (sunk, priced at their "
            f"resale value now): {NOTE}") in table
    r = compute(load_scenario_text(HELD), catalog)
    note = r.candidate("h").notes[0]
    assert note.startswith("draws on the NVIDIA H100 SXM5 80GB cards the buyer holds")
    assert NOTE in render_html(r, "en") and note in render_html(r, "en")
    zh = render_html(r, "zh")
    assert NOTE in zh and "买方已持有在用加速卡：32 h100-sxm" in zh
    assert Strings("zh").message(note).startswith("使用买方已持有的 英伟达 H100 SXM5")
    assert "使用买方已持有的 英伟达 H100 SXM5" in zh
    wb = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))
    assert wb["Summary"]["A4"].value.startswith("Policy: the buyer holds cards in service")


@pytest.mark.parametrize("stock, message", [
    ("{h100-sxn: {cards: 8, age_years: 1}}", "unknown card 'h100-sxn'"),
    ("{h100-sxm: {cards: 8}}", "give resale_price_per_card"),
    ("{h100-sxm: {cards: 8, age_years: 31}}",
     "age_years: found 31, outside the plausible range 0 to 30 years"),
    ("{h100-sxm: {cards: 8, age_years: -1}}", "age_years: found -1, outside"),
    # with a resale price the age values nothing, but the outputs show it: 1e308 was taken
    ("{h100-sxm: {cards: 8, resale_price_per_card: 20000, age_years: 1.0e+308}}",
     "policy.holds_stock.h100-sxm.age_years: found 1e+308, outside the plausible range"),
])
def test_a_bad_stock_gets_one_clear_message(tmp_path, stock, message):
    path = tmp_path / "bad.yaml"
    path.write_text(BASE + f"policy: {{holds_stock: {stock}}}\n")
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2 and "policy.holds_stock" in out.output
    assert message in out.output, out.output


def test_a_portfolio_does_not_count_the_stock_twice(tmp_path):
    text = HELD.replace("workloads:\n  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}",
                        "workloads:\n  - {id: w, params: 7e9, tokens: 2e11, runs_per_year: 4}"
                        "\n  - {id: v, params: 7e9, tokens: 1e10, runs_per_year: 4}").replace(
        "  - {id: h, card: h100-sxm, cards: 64, lead_time_weeks: 0}\n",
        "  - {id: h, card: h100-sxm, cards: 64, workloads: [w]}\n"
        "  - {id: g, card: h100-sxm, cards: 8, workloads: [v]}\n"
        "portfolios:\n  - {id: both, options: [h, g]}\n")
    path = tmp_path / "twice.yaml"
    path.write_text(text)
    out = CliRunner().invoke(cli, ["compare", str(path)])
    assert out.exit_code == 2 and "portfolios.both.options" in out.output
    assert "options 'h' and 'g' both draw on the held stock of 'h100-sxm'" in out.output


def test_a_licence_and_stock_are_both_stated(catalog):
    """H20 in China: the licence lifts the bar, and 64 held H20 stand in the cluster."""
    text = ("name: both\ncurrency: CNY\nrent_options: none\n"
            "workloads:\n  - {id: w, params: 34e9, tokens: 1e12, runs_per_year: 2}\n"
            "candidates:\n  - {id: h20, card: h20, cards: 128}\n"
            "facility: {region: cn}\nfinance: {horizon_years: 3}\n"
            "team: {engineer_cost_per_month: 150000, familiarity: {cuda: 1.0}}\n"
            "policy: {holds_licence: [h20], holds_stock: {h20: {cards: 64, "
            "resale_price_per_card: 60000}}, note: 'licence 2026-02'}\n")
    r = compute(load_scenario_text(text), catalog)
    v = r.candidate("h20").values
    assert (v["held_cards_used"], v["held_stock_value"]) == (64, 64 * 60_000)
    ws = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r)))["Summary"]
    assert ws["A4"].value == ("Policy: the buyer holds a licence for h20 and cards in "
                              "service: 64 h20 (sunk, priced at their resale value now): "
                              "licence 2026-02")
    zh = openpyxl.load_workbook(io.BytesIO(workbook_bytes(r, lang="zh")))
    assert zh.worksheets[0]["A4"].value.startswith("合规政策：买方持有 h20 的许可，并已持有")


def test_the_held_stock_inputs_have_their_own_chinese_labels():
    s = Strings("zh")
    assert s.input_label("policy.holds_stock.h100-sxm.cards", "x") == "买方已持有的在用加速卡数量"
    assert s.input_label("policy.holds_stock.h100-sxm.resale_price_per_card", "x").startswith(
        "一张已持有加速卡")


def test_stock_no_option_draws_on_is_refused_naming_it(catalog):
    """Held stock of a card no bought or hybrid option uses would be costed nowhere: most
    likely the stock names another card id than the options buy."""
    from tco.errors import TcoError

    text = """
workloads:
  - {id: w, params: 7e9, tokens: 1e12}
candidates:
  - {id: h, card: h100-sxm, cards: 64}
policy:
  holds_stock:
    a100-80gb-sxm: {cards: 32, resale_price_per_card: 8000}
"""
    with pytest.raises(TcoError, match="no bought or hybrid option uses card 'a100-80gb-sxm'"):
        compute(load_scenario_text(text, "stock.yaml"), catalog)
