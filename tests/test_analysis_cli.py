"""The analysis commands as a user reads them: every format (table, JSON, CSV), on the built-in
scenario and on the file `tco init` writes, shows the engine's numbers and figures worked out by
hand.

The hand calculations use the card price because every cash flow it reaches is linear in it
(buy, no loan, as in the example scenario). A card bought at price p costs, per card bought
(cards + hot spares), p in year 0, the installation share of p in year 0, the yearly support
share of p in years 1..H, and returns the residual share of p in year H, so

    dNPV/dp = (cards + spares) * (1 + installation + support * A - residual / (1 + r)^H)
(A: the present value of the shares of years 1..H after delivery, when support is paid)

with A = sum over t = 1..H of (1 + r)^-t and residual = salvage + (1 - salvage) *
max(0, 1 - H / depreciation years), or on the card class's used-market curve haircut x
retention^H where the catalog has one (docs/methodology.md, sections 5-8). The cost of one run
charges, per available cluster-hour, the hardware less its salvage share plus installation
spread over the depreciation life, and the yearly support share, for the run's wall hours
(section 9):

    dcost_per_job/dp = (cards + spares) * ((1 - salvage + installation) / depreciation years
                                           + support) / (8760 * utilization) * wall hours
"""

import csv
import io
import json
import math
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tco.cli import cli
from tco.engine import compute
from tco.exporters.fmt import money
from tco.resources import example_scenario
from tco.scenario import load_scenario_text

FORMATS = ["table", "json", "csv"]
SOURCES = ["built-in", "init-file"]
TARIFF = 0.12  # USD/kWh, the what-if's new electricity price
SWING = 0.1


@pytest.fixture(scope="module")
def init_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("init") / "mine.yaml"
    result = CliRunner().invoke(cli, ["init", str(path)])
    assert result.exit_code == 0, result.output
    return str(path)


def run(args):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def scenario_text(source, init_file):
    if source == "built-in":
        return example_scenario().read_text(encoding="utf-8")
    return Path(init_file).read_text(encoding="utf-8")


def cli_output(command, source, init_file, *args, fmt):
    argv = [command] + ([] if source == "built-in" else [init_file]) + list(args) + [
        "--format", fmt]
    result = run(argv)
    assert result.exit_code == 0, result.output
    assert "Monte Carlo  [" not in result.output  # no progress bar outside a terminal
    return result.output


_engine_cache: dict = {}


def engine(catalog, text, tariff=None, card_price=None):
    """The engine's result for a scenario text, edited by hand on its plain data first: a new
    electricity tariff, or a (candidate, price) card price."""
    key = (text, tariff, card_price)
    if key not in _engine_cache:
        doc = yaml.safe_load(text)
        if tariff is not None:
            doc.setdefault("facility", {})["electricity_price_per_kwh"] = tariff
        if card_price is not None:
            cid, price = card_price
            next(c for c in doc["candidates"] if c["id"] == cid)["card_price"] = price
        _engine_cache[key] = compute(load_scenario_text(yaml.safe_dump(doc)), catalog)
    return _engine_cache[key]


def recommendable(result):
    """Candidate ids in the order compare ranks the ones that may be recommended."""
    return [c.id for c in result.candidates if c.feasible and not c.info.blocking]


def cards_bought(result, c):
    """Cards plus hot spares, ROUNDUP(cards x hot_spare_fraction)."""
    spare = result.inputs["assumptions.hot_spare_fraction"].value
    return c.inputs["cards"] + math.ceil(c.inputs["cards"] * spare)


def npv_per_card_price(result, c):
    """dNPV / d(card price), by hand (module docstring)."""
    def v(path):
        return result.inputs[path].value

    r, horizon = v("finance.discount_rate"), result.structure.horizon_years
    assert v("finance.financed_fraction") == 0  # bought outright: no loan flows
    # support is paid from delivery: the share of year t after the lead time
    delivered = c.inputs["lead_time_weeks"] * 7 / 365.25
    annuity = sum(min(1.0, max(0.0, t - delivered)) * (1 + r) ** -t
                  for t in range(1, horizon + 1))
    salvage = v("finance.residual_value_fraction")
    residual = salvage + (1 - salvage) * max(0.0, 1 - horizon / v("finance.depreciation_years"))
    if "resale_retention_per_year" in c.inputs:  # resold on its class's used-market curve
        residual = (c.inputs["resale_haircut_fraction"]
                    * c.inputs["resale_retention_per_year"] ** horizon)
    return cards_bought(result, c) * (1 + v("assumptions.installation_fraction")
                                      + v("assumptions.support_fraction_per_year") * annuity
                                      - residual / (1 + r) ** horizon)


def job_cost_per_card_price(result, c):
    """dcost_per_job / d(card price), by hand (module docstring)."""
    def v(path):
        return result.inputs[path].value

    per_year = ((1 - v("finance.residual_value_fraction") + v("assumptions.installation_fraction"))
                / v("finance.depreciation_years") + v("assumptions.support_fraction_per_year"))
    return (cards_bought(result, c) * per_year / (8760 * v("utilization"))
            * c.job["wall_hours"])


def shows(shown, value, fmt, rel=1e-12):
    """A number as the format shows it: the full float in JSON and CSV, the money text of the
    engine's value in a table."""
    if fmt == "table":
        assert shown == money(value, "USD")
    else:
        assert float(shown) == pytest.approx(value, rel=rel, abs=1e-6)


def money_value(text):
    """'$47.12M' -> 47.12e6: the amount an English money text shows."""
    m = re.fullmatch(r"(-?)\$([\d,]+(?:\.\d+)?)([kMB]?)", text)
    assert m, text
    scale = {"": 1.0, "k": 1e3, "M": 1e6, "B": 1e9}[m.group(3)]
    return float(m.group(2).replace(",", "")) * scale * (-1 if m.group(1) else 1)


def signed(x):
    return ("+" if x >= 0 else "-") + money(abs(x), "USD")


def csv_rows(out):
    rows = list(csv.DictReader(io.StringIO(out)))
    assert rows
    return rows


def table_rows(block):
    """The rows of an aligned text table: cells split at runs of two or more spaces."""
    return [re.split(r"\s{2,}", line.strip()) for line in block.splitlines()
            if line.strip() and not set(line.strip()) <= {"-", " "}]


# --- what-if ---------------------------------------------------------------------------------


def read_whatif(out, fmt):
    """candidate -> npv (before, after, delta), electricity (before, after, delta),
    cost_per_job (before, after), rank_after; as shown."""
    got = {}
    if fmt == "json":
        data = json.loads(out)
        for x in data["candidates"]:
            (el,) = [ln for ln in x["npv_components"] if ln["key"] == "electricity"]
            got[x["id"]] = {
                "npv": (x["npv_tco"]["before"], x["npv_tco"]["after"], x["npv_tco"]["delta"]),
                "electricity": (el["before"], el["after"], el["delta"]),
                "cost_per_job": (x["cost_per_job"]["before"], x["cost_per_job"]["after"]),
                "rank_after": x["rank_after"]}
        return got, [(i["path"], i["before"], i["after"]) for i in data["inputs"]]
    if fmt == "csv":
        for row in csv_rows(out):
            x = got.setdefault(row["candidate"], {"rank_after": "not shown"})
            line = (row["before"], row["after"], row["delta"])
            if row["section"] == "total":
                x["npv"] = line
            elif row["section"] == "npv_component" and row["key"] == "electricity":
                x["electricity"] = line
            elif row["section"] == "cost_per_job":
                x["cost_per_job"] = line[:2]
        return got, None
    head = re.compile(r"^(\S+): NPV of TCO (\S+) -> (\S+) \((\S+), [^)]*\); rank \S+ -> (\S+)$")
    same = re.compile(r"^(\S+): NPV of TCO (\S+), unchanged; rank \S+ -> (\S+)$")
    for block in out.split("\n\n"):
        lines = block.strip("\n").splitlines()
        m, u = head.match(lines[0]), same.match(lines[0])
        if u:  # a rented option: no electricity bill of its own
            got[u.group(1)] = {"npv": (u.group(2), u.group(2), None), "unchanged": True,
                               "rank_after": None if u.group(3) == "-" else int(u.group(3))}
            continue
        if not m:
            continue
        cid, before, after, delta, rank = m.groups()
        x = {"npv": (before, after, delta), "rank_after": None if rank == "-" else int(rank)}
        for line in lines[1:]:
            lm = re.match(r"^  (electricity|cost per run)\s+(\S+)\s+\((\S+) -> (\S+)\)$", line)
            if lm and lm.group(1) == "electricity":
                x["electricity"] = (lm.group(3), lm.group(4), lm.group(2))
            elif lm:
                x["cost_per_job"] = (lm.group(3), lm.group(4))
        got[cid] = x
    inputs = re.search(r"^  facility\.electricity_price_per_kwh\s+(\S+)\s+(\S+)\s+USD/kWh$", out,
                       re.MULTILINE)
    assert inputs, out
    return got, [("facility.electricity_price_per_kwh", float(inputs.group(1)),
                  float(inputs.group(2)))]


def present_value(result, c, component):
    r = result.inputs["finance.discount_rate"].value
    return sum(y[component] / (1 + r) ** y["year"] for y in c.yearly)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES)
def test_whatif_shows_the_engine_on_the_edited_scenario(catalog, init_file, source, fmt):
    """`whatif --set facility.electricity_price_per_kwh=0.12`: each NPV and cost per run after
    the change is the engine's on the scenario edited by hand; only electricity moves, and by
    the tariff's ratio; the ranking after is the edited scenario's."""
    text = scenario_text(source, init_file)
    before, after = engine(catalog, text), engine(catalog, text, tariff=TARIFF)
    out = cli_output("whatif", source, init_file,
                     "--set", f"facility.electricity_price_per_kwh={TARIFF}", fmt=fmt)
    got, inputs = read_whatif(out, fmt)
    old_tariff = before.inputs["facility.electricity_price_per_kwh"].value
    if inputs is not None:
        assert inputs == [("facility.electricity_price_per_kwh", old_tariff, TARIFF)]
    assert set(got) == {c.id for c in before.candidates if c.priced}
    ranking = recommendable(after)
    for c in before.candidates:
        if not c.priced:
            continue
        a, x = after.candidate(c.id), got[c.id]
        shows(x["npv"][0], c.values["npv_tco"], fmt)
        shows(x["npv"][1], a.values["npv_tco"], fmt)
        if c.info.acquire == "rent":  # the rental price includes power: the tariff is not read
            assert a.values["npv_tco"] == c.values["npv_tco"]
            assert present_value(after, a, "electricity") == 0
            if x["rank_after"] != "not shown":
                expected = ranking.index(c.id) + 1 if c.id in ranking else None
                assert x["rank_after"] == expected
            continue
        shows(x["cost_per_job"][0], c.job["cost_per_job"], fmt)
        shows(x["cost_per_job"][1], a.job["cost_per_job"], fmt)
        el_before = present_value(before, c, "electricity")
        el_after = present_value(after, a, "electricity")
        shows(x["electricity"][0], el_before, fmt, rel=1e-9)
        shows(x["electricity"][1], el_after, fmt, rel=1e-9)
        if fmt == "table":
            # only electricity moved: its change is the change of the NPV
            assert x["electricity"][2] == x["npv"][2] == signed(
                a.values["npv_tco"] - c.values["npv_tco"])
        else:
            # the bill is energy x tariff, and the energy does not depend on the tariff
            assert float(x["electricity"][1]) / float(x["electricity"][0]) == pytest.approx(
                TARIFF / old_tariff, rel=1e-12)
            assert float(x["npv"][2]) == pytest.approx(float(x["electricity"][2]), rel=1e-9)
        if x["rank_after"] != "not shown":  # CSV has no ranks
            expected = ranking.index(c.id) + 1 if c.id in ranking else None
            assert x["rank_after"] == expected


# --- sensitivity -----------------------------------------------------------------------------


PLAN = ("plan",)  # the key of the plan held fixed, apart from every option id


def read_sensitivity(out, fmt):
    """candidate -> (baseline, [(path, low, high, at_low, at_high, effect)]), as shown; the
    plan held fixed (a planned scenario's, `plan`) under the key PLAN."""
    got = {}
    if fmt == "json":
        plan = json.loads(out)["plan"]
        if plan is not None:
            got[PLAN] = (plan["baseline"], [(b["path"], b["low_value"], b["high_value"],
                                             b["metric_low"], b["metric_high"], b["effect"])
                                            for b in plan["bars"]])
        for x in json.loads(out)["candidates"]:
            got[x["id"]] = (x["baseline"], [(b["path"], b["low_value"], b["high_value"],
                                             b["metric_low"], b["metric_high"], b["effect"])
                                            for b in x["bars"]])
        return got
    if fmt == "csv":
        for row in csv_rows(out):
            key = PLAN if row["candidate"] == "plan" else row["candidate"]
            got.setdefault(key, (None, []))[1].append(
                (row["path"], float(row["low_value"]), float(row["high_value"]),
                 float(row["metric_low"]), float(row["metric_high"]), float(row["effect"])))
        return got
    for block in out.split("\n\n")[1:]:
        lines = block.strip("\n").splitlines()
        if lines[0].startswith("plan: the plan as solved"):  # what the plan's tornado is
            continue
        held = lines[0].startswith("plan (the cheapest plan, held fixed and re-costed):")
        lines[0] = lines[0].replace(" (the cheapest plan, held fixed and re-costed)", "")
        m = re.match(r"^(\S+): (?:NPV of TCO|cost per run) (\S+)", lines[0])
        assert m, lines[0]
        bars = []
        for cells in table_rows("\n".join(lines[2:])):
            path, low_high, at_low, at_high, effect = cells
            low, high = low_high.split(" / ")
            bars.append((path, low, high, at_low, at_high, effect))
        got[PLAN if held else m.group(1)] = (m.group(2), bars)
    return got


def input_text(x):
    return f"{x:,.0f}"  # card prices: whole currency units with thousands separators


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES)
def test_sensitivity_swing_moves_npv_by_the_hand_worked_card_price_slope(catalog, init_file,
                                                                          source, fmt):
    """`sensitivity --swing 10%`: each candidate's baseline is its NPV; its card price is moved
    to 0.9 and 1.1 times the catalog price, and the NPV there is the baseline -/+ 0.1 x price x
    dNPV/dp worked out by hand; the bars are ranked by their effect."""
    result = engine(catalog, scenario_text(source, init_file))
    out = cli_output("sensitivity", source, init_file, "--swing", f"{SWING:.0%}", fmt=fmt)
    got = read_sensitivity(out, fmt)
    # the planned example: the cheapest plan's tornado too, at the plan's NPV
    plan_baseline, plan_bars = got.pop(PLAN)
    assert plan_bars
    if plan_baseline is not None:  # CSV rows carry no baseline
        shows(plan_baseline, result.plans[0].npv_tco, fmt)
    assert list(got) == [c.id for c in result.candidates if c.quantified]
    checked = 0
    for cid, (baseline, bars) in got.items():
        c = result.candidate(cid)
        if baseline is not None:  # CSV rows carry no baseline
            shows(baseline, c.values["npv_tco"], fmt)
        if fmt != "table":
            effects = [b[5] for b in bars]
            assert effects == sorted(effects, reverse=True)
        price_bars = [b for b in bars if b[0] == f"candidates.{cid}.card_price"]
        if not price_bars:
            # only the top 10 inputs are tabulated; a rented option buys no card
            assert fmt == "table" or c.info.acquire == "rent"
            continue
        (bar,) = price_bars
        price = c.inputs["card_price"]
        move = SWING * price * npv_per_card_price(result, c)
        _, low, high, at_low, at_high, effect = bar
        if fmt == "table":
            assert (low, high) == (input_text(0.9 * price), input_text(1.1 * price))
        else:
            assert (low, high) == pytest.approx((0.9 * price, 1.1 * price), rel=1e-12)
        shows(at_low, c.values["npv_tco"] - move, fmt, rel=1e-9)
        shows(at_high, c.values["npv_tco"] + move, fmt, rel=1e-9)
        shows(effect, 2 * move, fmt, rel=1e-9)
        checked += 1
    assert checked >= 1  # the recommended option's price is among its top inputs


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES)
def test_sensitivity_range_moves_cost_per_run_by_the_hand_worked_slope(catalog, init_file,
                                                                        source, fmt):
    """`sensitivity --range --metric cost_per_job`: the card price spans the catalog's low and
    high price, and the cost per run there follows the hand-worked depreciation slope."""
    result = engine(catalog, scenario_text(source, init_file))
    out = cli_output("sensitivity", source, init_file, "--range", "--metric", "cost_per_job",
                     fmt=fmt)
    got = read_sensitivity(out, fmt)
    assert PLAN not in got  # the plan's tornado is of its NPV only
    assert list(got) == [c.id for c in result.candidates if c.quantified]
    checked = 0
    for cid, (baseline, bars) in got.items():
        c = result.candidate(cid)
        if baseline is not None:
            shows(baseline, c.job["cost_per_job"], fmt)
        price_bars = [b for b in bars if b[0] == f"candidates.{cid}.card_price"]
        if not price_bars:
            # only the top 10 inputs are tabulated; a rented option buys no card
            assert fmt == "table" or c.info.acquire == "rent"
            continue
        (bar,) = price_bars
        price_input = result.inputs[f"candidates.{cid}.card_price"]
        low, high = price_input.low, price_input.high  # the catalog's range (prices.yaml)
        slope = job_cost_per_card_price(result, c)
        _, shown_low, shown_high, at_low, at_high, effect = bar
        if fmt == "table":
            assert (shown_low, shown_high) == (input_text(low), input_text(high))
        else:
            assert (shown_low, shown_high) == pytest.approx((low, high), rel=1e-12)
        base = c.job["cost_per_job"]
        shows(at_low, base + (low - price_input.value) * slope, fmt, rel=1e-9)
        shows(at_high, base + (high - price_input.value) * slope, fmt, rel=1e-9)
        shows(effect, (high - low) * slope, fmt, rel=1e-9)
        checked += 1
    assert checked >= 1


# --- break-even ------------------------------------------------------------------------------


def read_breakeven(out, fmt):
    """(value, decimals shown, npv of the candidate there, npv of the other there)."""
    if fmt == "json":
        data = json.loads(out)
        (x,) = data["crossings"]
        assert x["exact"] is True and data["value"] == x["value"]
        return x["value"], None, x["metric_candidate"], x["metric_versus"]
    if fmt == "csv":
        (row,) = csv_rows(out)
        assert row["exact"] == "True"
        return (float(row["value"]), None, float(row["metric_candidate"]),
                float(row["metric_versus"]))
    rows = table_rows(out.split("\n\n")[-1])
    assert rows[0][:4] == ["candidates.mi300x.card_price", "equal", "mi300x", "b200"]
    ((value, equal, at_a, at_b),) = rows[1:]
    assert equal == "yes"
    return float(value), len(value.split(".")[1]), at_a, at_b


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES)
def test_breakeven_price_makes_the_two_npvs_equal(catalog, init_file, source, fmt):
    """`breakeven --vary candidates.mi300x.card_price --candidate mi300x --vs b200`: the price
    shown is the one worked out by hand from the NPV gap and dNPV/dp, and the engine run on the
    scenario with that price gives mi300x and b200 the same NPV."""
    text = scenario_text(source, init_file)
    result = engine(catalog, text)
    a, b = result.candidate("mi300x"), result.candidate("b200")
    slope = npv_per_card_price(result, a)
    by_hand = a.inputs["card_price"] - (a.values["npv_tco"] - b.values["npv_tco"]) / slope
    out = cli_output("breakeven", source, init_file, "--vary", "candidates.mi300x.card_price",
                     "--candidate", "mi300x", "--vs", "b200", fmt=fmt)
    value, decimals, at_a, at_b = read_breakeven(out, fmt)
    # printed to `decimals` places in the table: the hand value rounds to what is shown
    tol = 0.5 * 10.0 ** -decimals if decimals is not None else 1e-9 * by_hand
    assert abs(value - by_hand) <= tol + 1e-9 * by_hand
    set_back = engine(catalog, text, card_price=("mi300x", value))
    npv_a = set_back.candidate("mi300x").values["npv_tco"]
    npv_b = set_back.candidate("b200").values["npv_tco"]
    assert npv_b == b.values["npv_tco"]  # the other option does not depend on this price
    assert abs(npv_a - npv_b) <= slope * tol + 1e-9 * npv_b
    shows(at_a, npv_b, fmt, rel=1e-9)
    shows(at_b, npv_b, fmt)
    if fmt == "table":
        assert (f"baseline candidates.mi300x.card_price = {a.inputs['card_price']:,.0f} USD/card:"
                f" NPV of TCO mi300x {money(a.values['npv_tco'], 'USD')}, b200 "
                f"{money(b.values['npv_tco'], 'USD')}") in out


# --- Monte Carlo ------------------------------------------------------------------------------


def read_montecarlo(out, fmt):
    """(draws, seed, candidate -> {p10, p50, p90, baseline, prob}); the plan held fixed (a
    planned scenario's) under the key PLAN, its `prob` the share of draws it costs no more
    than the option ranked first."""
    got = {}
    if fmt == "json":
        data = json.loads(out)
        if data["plan"] is not None:
            x = data["plan"]
            got[PLAN] = {**{k: x["npv_tco"][k] for k in ("p10", "p50", "p90")},
                         "baseline": x["deterministic"], "prob": x["cheaper_share"]}
        for x in data["candidates"]:
            got[x["id"]] = {**{k: x["npv_tco"][k] for k in ("p10", "p50", "p90")},
                            "baseline": x["deterministic"]["npv_tco"],
                            "prob": x["prob_cheapest"]}
        return data["draws"], data["seed"], got
    if fmt == "csv":
        rows = [r for r in csv_rows(out) if r["metric"] == "npv_tco"]
        for r in rows:
            got[PLAN if r["candidate"] == "plan" else r["candidate"]] = {
                "p10": float(r["p10"]), "p50": float(r["p50"]), "p90": float(r["p90"]),
                "baseline": float(r["deterministic"]), "prob": float(r["prob_cheapest"])}
        assert {(r["draws"], r["seed"]) for r in rows} == {(rows[0]["draws"], rows[0]["seed"])}
        return int(rows[0]["draws"]), int(rows[0]["seed"]), got
    m = re.match(r"^Monte Carlo: ([\d,]+) draws, seed (\d+),", out)
    assert m, out
    lines = out.split("\n\n")[0].splitlines()[1:]
    for cells in table_rows("\n".join(lines))[1:]:
        cid, p10, p50, p90, baseline, _rp10, _rp50, _rp90, prob = cells
        got[PLAN if cid == "plan (fixed)" else cid] = {
            "p10": p10, "p50": p50, "p90": p90, "baseline": baseline, "prob": prob}
    return int(m.group(1).replace(",", "")), int(m.group(2)), got


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("source", SOURCES)
def test_montecarlo_shows_engine_baselines_and_a_probability_per_draw(catalog, init_file,
                                                                       source, fmt):
    """`montecarlo --draws 2000 --seed 3`: the baseline column is the engine's NPV of
    delivering the plan (its NPV, or with the shortfall closed for an option short of it:
    the RTX 4090s); each chance of being cheapest counts whole draws out of 2,000, they add up
    to one over the options that may be recommended, and a barred option is never the
    cheapest; percentiles are ordered."""
    result = engine(catalog, scenario_text(source, init_file))
    out = cli_output("montecarlo", source, init_file, "--draws", "2000", "--seed", "3", fmt=fmt)
    draws, seed, got = read_montecarlo(out, fmt)
    assert (draws, seed) == (2000, 3)
    plan = got.pop(PLAN)  # the planned example: its cheapest plan held fixed
    shows(plan["baseline"], result.plans[0].npv_tco, fmt)
    assert list(got) == [c.id for c in result.candidates if c.quantified]
    allowed = recommendable(result)
    counts = []
    for cid, x in got.items():
        values = result.candidate(cid).values
        shows(x["baseline"], values.get("npv_tco_plan_closed", values["npv_tco"]), fmt)
        if fmt == "table":
            prob = float(x["prob"].rstrip("%")) / 100
            assert x["prob"] == f"{prob:.1%}"
            p10, p50, p90 = (money_value(x[k]) for k in ("p10", "p50", "p90"))
        else:
            prob, (p10, p50, p90) = x["prob"], (x["p10"], x["p50"], x["p90"])
        assert p10 <= p50 <= p90
        if cid not in allowed:
            assert prob == 0
        counts.append(prob * draws)
    if fmt == "table":
        # shown to 0.1 % (2 draws): each share is off by at most half of that
        assert abs(sum(counts) - draws) <= len(allowed) * 0.0005 * draws
    else:
        assert all(n == round(n) for n in counts)  # whole draws
        assert sum(round(n) for n in counts) == draws  # exactly one cheapest option per draw


# --- other commands and errors ----------------------------------------------------------------


def test_diff_between_two_files(init_file, tmp_path):
    other = tmp_path / "other.yaml"
    text = Path(init_file).read_text(encoding="utf-8").replace("utilization: 0.85",
                                                            "utilization: 0.6")
    other.write_text(text, encoding="utf-8")
    result = run(["diff", init_file, str(other), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert [(i["path"], i["before"], i["after"]) for i in data["inputs"]] == [
        ("utilization", 0.85, 0.6)]


def test_whatif_json_matches_compare_of_the_edited_file(init_file, tmp_path):
    edited = tmp_path / "edited.yaml"
    text = Path(init_file).read_text(encoding="utf-8").replace(
        "  region: us", "  region: us\n  electricity_price_per_kwh: 0.12")
    edited.write_text(text, encoding="utf-8")
    w = json.loads(run(["whatif", init_file, "--set", "facility.electricity_price_per_kwh=0.12",
                        "--format", "json"]).output)
    c = json.loads(run(["compare", str(edited), "--format", "json"]).output)
    after = {x["id"]: x["npv_tco"]["after"] for x in w["candidates"]}
    assert after == {x["id"]: x["npv_tco"] for x in c["candidates"]}


@pytest.mark.parametrize("args,message", [
    (["whatif", "--set", "nope=1"], "no input 'nope'"),
    (["whatif", "--set", "utilization=lots"], "--set 'utilization=lots'"),
    (["sensitivity", "--swing", "300%"], "--swing"),
    (["breakeven", "--vary", "utilization", "--candidate", "x", "--vs", "b200"],
     "--candidate: no candidate 'x'"),
])
def test_errors_are_one_line_and_exit_2(args, message):
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_output_file_is_written(tmp_path):
    out = tmp_path / "mc.json"
    result = run(["montecarlo", "--draws", "500", "--format", "json", "--output", str(out)])
    assert result.exit_code == 0 and result.output == ""
    assert json.loads(out.read_text())["draws"] == 500
