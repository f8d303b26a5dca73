"""Each rule of the decision has one definition (issue 26): tco/modes.py names the acquisition
modes, tco/decide/rules.py defines which option may be recommended, delivers, carries a part,
which portfolio may be used, the tier and rank; every other module asks them. Checked on the
source (AST): no module compares a mode with a literal, defines a rule of its own, or reads
the ranking tier itself. And the recommendation is the plan, at the plan's NPV, on every
shipped scenario; every reason code it gives is worded in English and Chinese."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

import tco
from tco import modes
from tco.decide import recommend
from tco.exporters import decision_words
from tco.resources import starters_dir

ROOT = Path(__file__).resolve().parents[1] / "tco"
SOURCES = {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(ROOT.rglob("*.py"))}
RULES = ROOT / "decide" / "rules.py"
RULE_NAMES = {"usable", "delivers", "part_only", "is_complete", "complete", "barred",
              "barred_here", "portfolio_usable", "best_portfolio", "best_api", "choice",
              "plan_delivers", "eligible", "single", "tier", "rank"}
# where the tier is made and ranked: the model (its formula), the engine (rank, tier), the
# planner and resolution (which read the option's facts, not a Result)
TIER_OWNERS = ("model/", "engine.py", "result.py", "decide/rules.py")


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def _names_mode(node: ast.AST) -> bool:
    """An expression naming an acquisition mode: `x.acquire`, `acquire`, `x.mode`, `mode`."""
    return (isinstance(node, ast.Attribute) and node.attr in ("acquire", "mode")) or \
        (isinstance(node, ast.Name) and node.id in ("acquire", "mode"))


def _literals(node: ast.AST) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return [x for e in node.elts for x in _literals(e)]
    return []


def test_no_module_compares_a_mode_with_a_literal():
    found = []
    for path, tree in SOURCES.items():
        if path == ROOT / "modes.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_names_mode(s) for s in sides) and any(
                        m in modes.MODES for s in sides for m in _literals(s)):
                    found.append(f"{_rel(path)}:{node.lineno}")
    assert found == [], f"compare with tco.modes, not a literal: {found}"


def test_the_checker_sees_a_literal_comparison():
    tree = ast.parse('if c.info.acquire == "rent": pass\nif mode in ("buy", "lease"): pass')
    compares = [n for n in ast.walk(tree) if isinstance(n, ast.Compare)]
    assert len(compares) == 2
    assert all(_names_mode(n.left) and _literals(n.comparators[0]) for n in compares)


def test_the_rules_are_defined_once():
    found = []
    for path, tree in SOURCES.items():
        if path == RULES:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name in RULE_NAMES and \
                    not _rel(path).startswith(("model/", "plan/", "engine.py", "result.py")):
                found.append(f"{_rel(path)}:{node.lineno} def {node.name}")
    assert found == [], f"a rule defined again (tco/decide/rules.py has it): {found}"


def test_no_output_reads_the_tier_or_rederives_usable():
    """Outside the model, the engine and the rules, nothing reads `values["tier"]`, nor
    tests feasibility and a bar together (the rule `usable` / `barred_here`)."""
    found = []
    for path, tree in SOURCES.items():
        rel = _rel(path)
        if rel.startswith(TIER_OWNERS) or rel.startswith(("resolve/", "plan/")):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Subscript) and _literals(node.slice) == ["tier"] and \
                    isinstance(node.value, ast.Attribute) and node.value.attr == "values":
                found.append(f"{rel}:{node.lineno} values['tier']")
            if isinstance(node, ast.BoolOp):
                attrs = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
                if {"feasible", "blocking"} <= attrs:
                    found.append(f"{rel}:{node.lineno} feasible and blocking")
    assert found == [], f"ask tco.decide.rules instead: {found}"


def test_the_scenario_accepts_the_typed_modes():
    from tco.scenario import Candidate

    literal = typing.get_args(Candidate.model_fields["acquire"].annotation)
    assert set(literal) == set(modes.TYPED)


def _codes_given() -> set[str]:
    """Every reason code tco/decide/recommend.py can give: its Reason("...") literals, and
    its f"{mode}_..." codes for each mode they can take."""
    tree = ast.parse((ROOT / "decide" / "recommend.py").read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Reason":
            arg = node.args[0]
            for lit in _literals(arg):
                out.add(lit)
            if isinstance(arg, ast.IfExp):
                out.update(_literals(arg.body) + _literals(arg.orelse))
            if isinstance(arg, ast.JoinedStr):
                tail = "".join(v.value for v in arg.values if isinstance(v, ast.Constant))
                out.update(f"{m}{tail}" for m in (modes.BUY, modes.LEASE, modes.RENT,
                                                    modes.HYBRID))
    return out


def test_every_reason_code_is_worded_in_both_languages():
    table = decision_words.table()["reasons"]
    given = _codes_given()
    assert {"lowest_npv", "plan_lowest", "rent_dearer", "lease_never_pays"} <= given
    # the f-string codes of `_dearer` and the break-even: every mode that may reach them
    missing = sorted(c for c in given if c not in table and not c.startswith(
        ("hybrid_never", "hybrid_pays", "rent_never", "rent_pays")))
    assert missing == []
    for code, words in table.items():
        assert set(words) == {"en", "zh"}, code


SHIPPED = sorted(p for p in starters_dir().glob("*.yaml"))


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_the_recommendation_is_the_plan_at_its_npv(path):
    run = tco.compare(path)
    data = run.to_dict()
    rec = data["recommendation"]
    if data["plan"] is None:  # not planned: the option-level recommendation stands
        assert rec is None or rec["mode"] != modes.PLAN
        return
    assert rec["option"] == modes.PLAN and rec["mode"] == modes.PLAN
    assert rec["npv_tco"] == data["plan"]["npv_tco"]
    assert rec["delivers_plan"] == data["plan"]["delivers_plan"]
    assert rec["value_of_flexibility"] == data["plan"]["value_of_flexibility"]
    assert run.recommended == modes.PLAN
    said = recommend(run.result)
    assert said is not None and said.plan is run.result.plans[0]
    assert [r["code"] for r in rec["reason_codes"]] == said.codes()
    assert rec["reasons"] == decision_words.reasons_text(said, run.result.currency)
    # the Chinese words fill the same figures
    assert len(decision_words.reasons_text(said, run.result.currency, "zh")) == len(said.reasons)


# --- the live page runs the same rules (tco.exporters.live.rules_script) -----------------------
LIVE_JS = Path(__file__).resolve().parents[1] / "templates" / "report_live.js"


def _rules_in_node(cases: list[dict], tmp_path) -> list[dict[str, bool]]:
    """Each case ({"f": facts, "v": [tier, delivered]}) through the generated RULE in Node."""
    import json
    import shutil
    import subprocess

    from report_support import require

    from tco.exporters.live import rules_script
    from tco.expr.javascript import RUNTIME

    exe = shutil.which("node") or shutil.which("nodejs")
    require(exe is not None, "node (apt install nodejs)")
    code = RUNTIME + rules_script() + """
const cases = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const out = cases.map((x) => {
  const v = x.v.map((y) => (y === null ? NaN : y));
  const e = { f: x.f, q: x.q };
  return Object.fromEntries(Object.entries(RULE).map(([k, r]) => [k, r(e, v)]));
});
process.stdout.write(JSON.stringify(out));
"""
    file = tmp_path / "rules.js"
    file.write_text(code, encoding="utf-8")
    done = subprocess.run([exe, str(file)], input=json.dumps(cases), capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout)


def test_the_live_page_runs_the_rules_python_decides_with(tmp_path):
    """Every rule, on every combination of the facts and a spread of tiers and delivered
    shares (NaN: an unpriced option, whose entry has no place for them), gives in Node what
    the same tree gives in Python; and the rules read as intended on hand-picked cases."""
    import itertools
    import math

    from tco.decide.rules import FACTS, RULES

    cases, envs = [], []
    for bits in itertools.product((0.0, 1.0), repeat=len(FACTS)):
        for tier_value, delivered in itertools.product((0.0, 1.0, 2.0, math.nan),
                                                        (1.0, 0.999, math.nan)):
            f = dict(zip(FACTS, bits))
            cases.append({"f": f, "q": {"tier": 0, "delivered": 1},
                          "v": [None if math.isnan(x) else x for x in (tier_value, delivered)]})
            envs.append({**f, "tier": tier_value, "plan_delivered_fraction": delivered})
    # an unpriced option's entry has no `q` at all
    cases.append({"f": dict.fromkeys(FACTS, 1.0), "v": []})
    envs.append({**dict.fromkeys(FACTS, 1.0), "tier": math.nan,
                 "plan_delivered_fraction": math.nan})
    got = _rules_in_node(cases, tmp_path)
    for env, row in zip(envs, got):
        for name, tree in RULES.items():
            assert row[name] == (tree.evaluate(env) != 0), (name, env)
    ok = {**dict.fromkeys(FACTS, 1.0), "part": 0.0, "barred": 0.0, "tier": 0.0,
          "plan_delivered_fraction": 1.0}
    held = {name: bool(tree.evaluate(ok)) for name, tree in RULES.items()}
    assert held == {"usable": True, "delivers": True, "part_only": False, "complete": True,
                    "barred_here": False, "may_lead": True, "portfolio_delivers": True,
                    "api_delivers": True}
    short = {**ok, "tier": 1.0, "plan_delivered_fraction": 0.8}  # usable, short of the plan
    assert [bool(RULES[n].evaluate(short)) for n in ("usable", "delivers", "complete")] == \
        [True, False, False]
    barred = {**ok, "barred": 1.0}
    assert [bool(RULES[n].evaluate(barred)) for n in ("usable", "barred_here", "complete")] \
        == [False, True, True]


@pytest.mark.parametrize("path", SHIPPED, ids=[p.stem for p in SHIPPED])
def test_the_rules_agree_with_their_definitions_on_the_shipped_scenarios(path):
    """Python's rule functions on every option of a shipped scenario, against the rules
    written out by hand from their definitions."""
    from tco.decide import rules

    result = tco.compare(path).result
    for c in result.candidates:
        plain_usable = c.feasible and c.priced and not c.info.blocking and not c.info.workloads
        assert rules.usable(c) == plain_usable, c.id
        assert rules.delivers(c) == (plain_usable and int(c.values["tier"]) == 0), c.id
        assert rules.complete(c) == (c.feasible and c.completes_all_runs), c.id
        assert rules.barred_here(c) == (c.feasible and bool(c.info.blocking)), c.id
    for p in result.portfolios:
        assert rules.portfolio_delivers(result, p) == (
            p.feasible and not rules.barred(result, p) and p.tier == 0), p.id


def test_the_live_page_restates_no_rule():
    """templates/report_live.js asks RULE (generated) instead of testing an option's facts
    or its tier itself."""
    import re

    found = []
    for n, line in enumerate(LIVE_JS.read_text(encoding="utf-8").splitlines(), 1):
        if re.search(r"trunc\(v\[\w+\.q\.tier\]\)\s*===", line):
            found.append(f"{n}: the tier compared")
        if "&&" in line and "feasible" in line and re.search(r"\.blocking|\.part\b|\.barred",
                                                              line):
            found.append(f"{n}: feasibility and a bar or a part together")
    assert found == [], found
