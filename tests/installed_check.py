"""Every command and the Python API, run from an installed tco in an empty folder.

tests/test_packaging.py copies this file out of the checkout and runs it with the Python of an
installation (a wheel or an sdist installed in a clean virtual environment, or a wheel unpacked
with `pip install --target`):

    python installed_check.py CHECKOUT WORK [--tco PATH/TO/tco]

It checks that `tco` comes from the installation (no checkout on sys.path), then runs each
command with the installed console script (`--tco`), or in this process through click's test
runner, and the Python API. The first failure exits non-zero naming the command, its output and
its errors. Only the standard library and the installed tco (with pandas when installed) are
used.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

CHECKOUT = Path(sys.argv[1]).resolve()
WORK = Path(sys.argv[2]).resolve()
SCRIPT = sys.argv[sys.argv.index("--tco") + 1] if "--tco" in sys.argv else None
Check = Callable[[str], object]


def fail(what: str, detail: str = "") -> None:
    sys.exit(f"installed check: {what}\n{detail}")


def tco(*args: str, check: Check | None = None) -> str:
    """Run `tco ARGS` in WORK; fail unless it exits 0 with no traceback or font warning."""
    if SCRIPT:
        res = subprocess.run([SCRIPT, *args], cwd=WORK, check=False, capture_output=True, text=True)
        code, out, err = res.returncode, res.stdout, res.stderr
    else:
        from click.testing import CliRunner

        from tco.cli import cli

        here = os.getcwd()
        os.chdir(WORK)
        try:
            res = CliRunner().invoke(cli, list(args), prog_name="tco")
        finally:
            os.chdir(here)
        if res.exception is not None and not isinstance(res.exception, SystemExit):
            import traceback

            fail(f"tco {' '.join(args)} raised", "".join(traceback.format_exception(
                res.exception)))
        code, out, err = res.exit_code, res.stdout, res.stderr
    if code != 0 or "Traceback" in err or "findfont" in err or "Glyph" in err:
        fail(f"tco {' '.join(args)}: exit {code}", f"stdout:\n{out[-2000:]}\nstderr:\n{err}")
    if check is not None:
        try:
            ok = check(out)
        except Exception as exc:  # noqa: BLE001 - reported with the command that failed
            ok = f"{type(exc).__name__}: {exc}"
        if ok is not True:
            fail(f"tco {' '.join(args)}: unexpected output ({ok})", out[-2000:])
    print(f"ok  tco {' '.join(args)}", flush=True)
    return out


def has(*keys: str) -> Check:
    return lambda out: all(k in json.loads(out) for k in keys) or f"missing one of {keys}"


def contains(*texts: str) -> Check:
    return lambda out: all(t in out for t in texts) or f"missing one of {texts}"


def file_starts(path: str, magic: bytes) -> None:
    data = (WORK / path).read_bytes()
    if not data.startswith(magic):
        fail(f"{path} does not start with {magic!r}")


def installed_from_elsewhere() -> None:
    import tco as package
    from tco.resources import pricing_dir, templates_dir

    for where in (Path(package.__file__), pricing_dir(), templates_dir()):
        if where.resolve().is_relative_to(CHECKOUT):
            fail(f"{where} is in the checkout: not the installed package")
    if any(Path(p or ".").resolve() == CHECKOUT for p in sys.path):
        fail("the checkout is on sys.path")
    print(f"ok  tco {package.__version__} from {Path(package.__file__).parent}")


def commands(pdf: bool) -> None:
    tco("--version", check=contains("tco"))
    table = tco("compare", check=contains("Recommendation"))
    data = json.loads(tco("compare", "--format", "json",
                          check=has("candidates", "recommendation", "provenance")))
    rows = list(csv.reader(io.StringIO(tco("compare", "--format", "csv"))))
    # one row per candidate, then the plan's rows (acquire "plan": the plan, and the plan
    # restricted to each candidate) when the scenario is planned
    acquire = rows[0].index("acquire") if rows and "acquire" in rows[0] else -1
    options = [r for r in rows[1:] if acquire >= 0 and r[acquire] != "plan"]
    if rows[0][0] != "id" or len(options) != len(data["candidates"]):
        fail("compare --format csv: not one row per candidate", str(rows[:2]))
    if data.get("plan") and not any(r[0] == "plan" for r in rows[1:]):
        fail("compare --format csv: the plan's row is missing", str(rows[-1:]))
    tco("compare", "--format", "json", "-o", "compare.json")
    if json.loads((WORK / "compare.json").read_text(encoding="utf-8")) != data:
        fail("compare -o compare.json differs from its stdout")
    del table
    tco("job", "--model-params", "70e9", "--tokens", "2e12", "--card", "h100-sxm", "--cards",
        "1024", "--format", "json", check=has("tensor_parallel", "wall_days", "cost"))
    tco("job", "--serve", "--model-params", "70e9", "--precision", "fp8", "--card", "h200-sxm",
        "--cards", "16", "--input-tokens-per-day", "2e9", "--output-tokens-per-day", "5e8",
        "--prompt-tokens", "2000", "--output-tokens", "500", "--tpot-ms", "50",
        check=contains("output tokens/s per card"))
    tco("catalog", "list", check=contains("mi300x", "Catalog digest"))
    tco("catalog", "list", "--section", "api", "--format", "json",
        check=lambda out: len(json.loads(out)) >= 1)
    tco("catalog", "show", "mi300x", check=contains("accelerators.peak_tflops_bf16"))
    tco("catalog", "show", "facilities", "--format", "json",
        check=lambda out: "exchange_rates.CNY" in json.loads(out)["figures"])
    tco("schema", "-o", "schema-copy.json")
    json.loads((WORK / "schema-copy.json").read_text(encoding="utf-8"))
    tco("schema", "--quote", check=lambda out: "$defs" in json.loads(out))
    starters()
    tco("compare", "cn.yaml", "--catalog", "cn.quotes.csv", "--format", "json",
        check=lambda out: json.loads(out)["currency"] == "CNY")
    report(pdf)
    tco("whatif", "--set", "facility.electricity_price_per_kwh=0.12", "--format", "json",
        check=has("inputs", "candidates"))
    (WORK / "train2.yaml").write_text((WORK / "train.yaml").read_text(encoding="utf-8")
                                      .replace("cards: 512", "cards: 256"), encoding="utf-8")
    tco("diff", "train.yaml", "train2.yaml", "--format", "json", check=has("candidates"))
    tco("sensitivity", "--swing", "10%", "--format", "json", check=has("candidates"))
    tco("breakeven", "--vary", "candidates.mi300x.card_price", "--candidate", "mi300x",
        "--vs", "h100-sxm", "--format", "json", check=has("path"))
    tco("montecarlo", "--draws", "2000", "--seed", "7", "--format", "json",
        check=has("candidates", "draws"))
    tco("montecarlo", "serve.yaml", "--draws", "1000", "--metric",
        "cost_per_million_output_tokens", "--format", "json", check=has("candidates", "draws"))


def starters() -> None:
    for name, example in (("train", "train"), ("serve", "train-and-serve"), ("cn", "cn")):
        tco("init", f"{name}.yaml", "--example", example)
        first = (WORK / f"{name}.yaml").read_text(encoding="utf-8").splitlines()[0]
        if first != "# yaml-language-server: $schema=scenario.schema.json":
            fail(f"init {name}.yaml: first line {first!r}")
        quotes = ["--catalog", "cn.quotes.csv"] if name == "cn" else []
        tco("validate", f"{name}.yaml", *quotes, check=contains(": ok ("))
    schema = json.loads((WORK / "scenario.schema.json").read_text(encoding="utf-8"))
    if schema.get("$id", "").rsplit("/", 1)[-1] != "scenario.schema.json":
        fail("init wrote no scenario schema beside the starters")


def report(pdf: bool) -> None:
    outs = ["--xlsx", "r.xlsx", "--html", "r.html", *(["--pdf", "r.pdf"] if pdf else [])]
    tco("report", *outs, "--draws", "500")
    file_starts("r.xlsx", b"PK")
    with zipfile.ZipFile(WORK / "r.xlsx") as book:
        if "xl/workbook.xml" not in book.namelist():
            fail("r.xlsx is not a workbook")
    html = (WORK / "r.html").read_text(encoding="utf-8")
    if "<svg" not in html or "<script" not in html:  # charts and the live model (report_live.js)
        fail("r.html lacks its charts or its live model")
    if pdf:
        file_starts("r.pdf", b"%PDF")
    tco("report", "serve.yaml", "--lang", "zh", "--html", "zh.html", "--xlsx", "zh.xlsx",
        "--draws", "200")
    if "<svg" not in (WORK / "zh.html").read_text(encoding="utf-8"):
        fail("zh.html lacks its charts")


def python_api() -> None:
    import tco as api

    run = api.compare()
    rec = run.recommended
    if rec != run.to_dict()["recommendation"]["option"]:
        fail("Run.recommended is not the recommendation")
    serve = api.compare(WORK / "serve.yaml")
    try:
        import pandas  # noqa: F401
    except ImportError:
        print("--  pandas not installed: DataFrames not checked")
    else:
        frame = run.to_frame()
        if rec not in frame.index or list(frame.columns[:2]) != ["rank", "kind"]:
            fail("to_frame(): no row for the recommendation", str(frame.head()))
        kinds = set(serve.to_frame()["kind"])
        if kinds != {"candidate", "api", "portfolio", "plan"}:
            fail(f"to_frame() of train-and-serve: kinds {kinds}")
        if run.jobs_frame().empty or run.yearly_frame().empty:
            fail("jobs_frame() or yearly_frame() is empty")
    change = api.whatif({"facility.electricity_price_per_kwh": 0.12})
    if [i.path for i in change.inputs] != ["facility.electricity_price_per_kwh"]:
        fail("tco.whatif changed other inputs")
    mc = api.montecarlo(draws=500, seed=1)
    if abs(sum(mc.prob_cheapest.values()) - 1) > 1e-9:
        fail("tco.montecarlo: the chances of being cheapest do not add up to 1")
    api.sensitivity(swing=0.1)
    api.breakeven("candidates.mi300x.card_price", "mi300x", "h100-sxm")
    own = api.compare({
        "name": "own API price", "rent_options": "none",
        "workloads": [{"id": "chat", "kind": "serve", "params": 7e10, "precision": "fp8",
                       "input_tokens_per_day": 1e10, "output_tokens_per_day": 2.5e9,
                       "prompt_tokens": 1000, "output_tokens": 250, "tpot_ms": 50}],
        "candidates": [{"id": "h200", "card": "h200-sxm", "cards": 8}],
        "api_options": [{"id": "own", "input_price_per_million_tokens": 0.2,
                         "output_price_per_million_tokens": 0.6, "source": "a quote"}]})
    fees = own.result.candidate("own").jobs["chat"]["cost_per_job"]
    if abs(fees - 1_277_500) > 1e-6:  # (1e10 x 0.2 + 2.5e9 x 0.6) / 1e6 a day, x 365
        fail(f"an API option priced by the scenario: fees {fees}")
    print("ok  Python API")


def main() -> None:
    installed_from_elsewhere()
    from tco.exporters.pdf import chromium, has_weasyprint

    pdf = has_weasyprint() or chromium() is not None
    print(f"--  PDF: {'checked' if pdf else 'skipped (neither weasyprint nor Chromium)'}")
    commands(pdf)
    python_api()
    print("installed check: every command and the Python API ran")


if __name__ == "__main__":
    main()
