"""`make bench`: how fast the interactive analyses are on this machine.

Measures, for the built-in scenario:
1. the median wall time of a `tco whatif --set facility.electricity_price_per_kwh=...`
   process with the scenario's baseline (and its plan) kept by an earlier run
   (tco/snapshot.py), each run a different price (target <= 0.1 s, issue 32), and of a cold
   one, nothing kept (TCO_NO_CACHE=1; target <= 0.3 s); a what-if that sizes the
   deadline-sized cluster again is reported beside them;
2. Monte Carlo throughput in candidate-draws per second, in process, 1,000,000 draws
   (target >= 5,000,000), and the time the layout search takes for one candidate (target
   <= 50 ms; the layout is chosen once per scenario, Monte Carlo keeps it fixed per draw);
3. 1,000,000 draws end to end: a cold `tco montecarlo --draws 1000000` process (target <= 2 s);
4. a cold `tco report --xlsx --html` process (target <= 2 s), when the exporters exist;
5. the same for a scenario of 1,000 candidates (bench/scale.py writes it: every card of the
   catalog, fixed and deadline-sized clusters, default draws): wall time (target <= 10 s) and
   the peak memory of the command (target <= 1 GiB), read both ways: the resident set of the
   larger of its two processes (the report forks one to write the workbook) and the peak
   proportional set of both together (shared pages counted once; Linux only);
6. the live report in headless Chromium (bench/live.py): the median time from a change of a
   panel input to the page recomputed and laid out again (target <= 16 ms, one frame), and
   the reader's first change once the page has settled (target <= 100 ms);
7. the planner, in process, on bench/plan.yaml (14 cards bought, each rented on demand and
   committed where a cloud sells it, two per-token APIs, a pre-training and a serving
   workload, 5 years monthly): the median time to build and solve the cheapest plan from the
   evaluated scenario (target <= 1 s), and again after one what-if change (electricity price;
   the search starts from the plan before it; target <= 0.2 s).

Writes reports/bench.json and prints which targets were met. Wall times depend on what else
the machine is doing: the load average before and after is recorded with the figures.
"""

from __future__ import annotations

import importlib.util
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TCO = str(Path(sys.executable).with_name("tco"))
TARGETS = {
    "whatif_kept_s": ("<=", 0.1),
    "whatif_cold_s": ("<=", 0.3),
    "montecarlo_candidate_draws_per_s": (">=", 5_000_000),
    "montecarlo_1m_end_to_end_s": ("<=", 1.5),
    "report_xlsx_html_s": ("<=", 2.0),
    "report_1000_candidates_s": ("<=", 10.0),
    "report_1000_candidates_peak_mib": ("<=", 1024.0),
    "report_1000_candidates_peak_pss_total_mib": ("<=", 1024.0),
    "layout_choice_ms_per_candidate": ("<=", 50.0),
    "live_report_change_ms": ("<=", 16.0),
    "live_report_first_change_ms": ("<=", 100.0),
    "plan_solve_s": ("<=", 1.0),
    "plan_resolve_after_whatif_s": ("<=", 0.2),
}


CPU: dict[str, float] = {}  # figure -> median CPU seconds (user + system) of the process


def plan_solve_s(repeat: int) -> tuple[float, float, int]:
    """Median seconds to build and solve the cheapest plan of bench/plan.yaml from its
    evaluated result (tco.plan.plan_all without the plans held to one option), before and
    after a what-if of the electricity price (which starts from the plan before the change, as
    the engine does); and the plan's supplies."""
    sys.path.insert(0, str(ROOT))
    from tco.analysis.whatif import whatif
    from tco.catalog import load_catalog
    from tco.engine import compute
    from tco.plan import plan_all
    from tco.scenario import load_scenario

    catalog = load_catalog()
    loaded = load_scenario(ROOT / "bench" / "plan.yaml")
    result = compute(loaded, catalog)
    changed = whatif(loaded, catalog, ["facility.electricity_price_per_kwh=0.12"]).after

    def median(r: Any) -> float:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            # as the engine solves it: a what-if's from the baseline's plan (Result.plan_start)
            plan_all(r, restricted_plans=False, start=r.plan_start)
            times.append(time.perf_counter() - t)
        return statistics.median(times)

    supplies = len(plan_all(result, restricted_plans=False)[0].shape.supplies)
    return median(result), median(changed), supplies


def wall(argv: list[str] | Callable[[int], list[str]], repeat: int, key: str = "") -> float:
    """Median wall time of `repeat` cold processes (after one warm-up for the disk cache);
    the median CPU time goes to CPU[key]: less sensitive to what else the machine runs.
    `argv` may be a function of the run's number (0 is the warm-up)."""
    times, cpu = [], []
    for i in range(repeat + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(argv(i) if callable(argv) else argv, check=True,
                       stdout=subprocess.DEVNULL, cwd=ROOT)
        elapsed = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if i:
            times.append(elapsed)
            cpu.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    if key:
        CPU[key] = statistics.median(cpu)
    return statistics.median(times)


def cpu_s() -> float:
    """CPU seconds of this process and of its children that have ended (Monte Carlo's worker
    processes, tco/forked.py)."""
    return sum(u.ru_utime + u.ru_stime for u in (resource.getrusage(resource.RUSAGE_SELF),
                                                 resource.getrusage(resource.RUSAGE_CHILDREN)))


def montecarlo_throughput(draws: int, repeat: int) -> tuple[float, int]:
    from tco.analysis.montecarlo import montecarlo
    from tco.catalog import load_catalog
    from tco.engine import compute
    from tco.scenario import load_scenario

    loaded, catalog = load_scenario(), load_catalog()
    result = compute(loaded, catalog)
    montecarlo(result, draws=10_000, seed=1)  # warm-up
    times, cpu = [], []
    for _ in range(repeat):
        t, c = time.perf_counter(), cpu_s()
        mc = montecarlo(result, draws=draws, seed=1)
        times.append(time.perf_counter() - t)
        cpu.append(cpu_s() - c)
    n_cands = len(mc.percentiles)
    CPU["montecarlo_candidate_draws_per_s"] = statistics.median(cpu)
    return draws * n_cands / statistics.median(times), n_cands


def layout_choice_ms(repeat: int) -> float:
    """Median milliseconds the layout search (tco.layout.choose) takes for one candidate of the
    built-in scenario (every workload), the model already built."""
    from tco import layout
    from tco.catalog import load_catalog
    from tco.model import build_model
    from tco.resolve import resolve
    from tco.scenario import load_scenario
    from tco.sizing import size_clusters

    resolved = resolve(load_scenario(), load_catalog())
    model = build_model(resolved.structure)
    resolved = size_clusters(model, resolved)
    times = []
    for _ in range(repeat):
        st = resolved.structure
        for cid in (c for c, own in zip(st.candidates, st.inputs_of) if c == own):
            t = time.perf_counter()  # a generated rent option has no layout of its own
            layout.choose(model, resolved, [cid])
            times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def report_at_scale(repeat: int) -> tuple[float, float, float, float | None]:
    """(median wall s, median CPU s, largest peak RSS MiB, largest peak total PSS MiB) of
    `repeat` cold `tco report` processes on a scenario of scale.CANDIDATES candidates, after
    one warm-up (scale.run_report: the RSS is the larger process's, the PSS both together)."""
    import scale  # bench/scale.py, beside this file

    with tempfile.TemporaryDirectory(prefix="tco-bench-scale-") as tmp:
        scen = scale.write_scenario(Path(tmp) / "scale.yaml")
        runs = [scale.run_report(TCO, scen, Path(tmp)) for _ in range(repeat + 1)][1:]
    pss = [r[3] for r in runs if r[3] is not None]
    return (statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs),
            max(r[2] for r in runs), max(pss) if pss else None)


def exporters_present() -> bool:
    return all(importlib.util.find_spec(m) is not None
               for m in ("tco.exporters.xlsx", "tco.exporters.html"))


def reference_loop_s() -> float:
    """Seconds for a fixed pure-Python loop (10 million additions): how fast this machine is
    right now. Shared and throttled machines vary by a factor of two or more, so the figures
    below are only comparable between runs with similar reference times."""
    best = float("inf")
    for _ in range(3):
        t = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    figures: dict[str, object] = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "platform": platform.platform(), "load_average_before": os.getloadavg(),
                    "reference_loop_s": reference_loop_s()},
    }
    # Bytecode, as an installed package has it (an editable install under
    # PYTHONDONTWRITEBYTECODE would otherwise compile every module on every run).
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "tco")], check=True,
                   stdout=subprocess.DEVNULL)
    print("timing cold `tco whatif` processes ...", flush=True)
    cache = tempfile.mkdtemp(prefix="tco-bench-cache-")
    os.environ["TCO_CACHE_DIR"] = cache  # the processes below inherit it
    t = time.perf_counter()
    subprocess.run([TCO, "whatif", "--set", "facility.electricity_price_per_kwh=0.12"],
                   check=True, stdout=subprocess.DEVNULL, cwd=ROOT)
    figures["whatif_first_run_s"] = time.perf_counter() - t
    figures["whatif_kept_s"] = wall(
        lambda i: [TCO, "whatif", "--set", f"facility.electricity_price_per_kwh={0.1 + i / 1000}"],
        repeat=11, key="whatif_kept_s")
    os.environ["TCO_NO_CACHE"] = "1"
    figures["whatif_cold_s"] = wall(
        lambda i: [TCO, "whatif", "--set", f"facility.electricity_price_per_kwh={0.1 + i / 1000}"],
        repeat=5, key="whatif_cold_s")
    del os.environ["TCO_NO_CACHE"]
    figures["whatif_resizing_s"] = wall(
        lambda i: [TCO, "whatif", "--set", f"candidates.a100-deadline.mfu={0.40 + i / 1000}"],
        repeat=5)
    shutil.rmtree(cache, ignore_errors=True)
    print("timing the layout search in process ...", flush=True)
    figures["layout_choice_ms_per_candidate"] = layout_choice_ms(repeat=5)
    print("timing Monte Carlo in process ...", flush=True)
    rate, n_cands = montecarlo_throughput(1_000_000, repeat=3)
    figures["montecarlo_candidate_draws_per_s"] = rate
    figures["montecarlo_candidates"] = n_cands
    print("timing a cold `tco montecarlo --draws 1000000` process ...", flush=True)
    figures["montecarlo_1m_end_to_end_s"] = wall(
        [TCO, "montecarlo", "--draws", "1000000", "--format", "json"], repeat=3,
        key="montecarlo_1m_end_to_end_s")
    if exporters_present():
        print("timing a cold `tco report --xlsx --html` process ...", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            figures["report_xlsx_html_s"] = wall(
                [TCO, "report", "--xlsx", f"{tmp}/tco.xlsx", "--html", f"{tmp}/tco.html"],
                repeat=3, key="report_xlsx_html_s")
        print("timing a cold `tco report --xlsx --html` of 1,000 candidates ...", flush=True)
        wall_s, cpu_s, peak, total = report_at_scale(repeat=3)
        figures["report_1000_candidates_s"] = wall_s
        figures["report_1000_candidates_peak_mib"] = peak  # the larger of its two processes
        figures["report_1000_candidates_peak_pss_total_mib"] = total  # both together
        CPU["report_1000_candidates_s"] = cpu_s
    else:
        for key in ("report_xlsx_html_s", "report_1000_candidates_s",
                    "report_1000_candidates_peak_mib",
                    "report_1000_candidates_peak_pss_total_mib"):
            figures[key] = "not measured: exporter missing"
    print("timing the planner in process ...", flush=True)
    solve, resolve, supplies = plan_solve_s(repeat=5)
    figures["plan_solve_s"] = solve
    figures["plan_resolve_after_whatif_s"] = resolve
    figures["plan_supplies_used"] = supplies
    print("timing the live report in Chromium ...", flush=True)
    import live  # bench/live.py, beside this file

    measured = live.change_ms(TCO)
    figures["live_report"] = measured
    figures["live_report_change_ms"] = (measured["median_ms"] if isinstance(measured, dict)
                                        else measured)
    figures["live_report_first_change_ms"] = (measured["first_change_ms"]
                                              if isinstance(measured, dict) else measured)
    figures["machine"]["load_average_after"] = os.getloadavg()  # type: ignore[index]
    figures["cpu_seconds"] = {k: round(v, 4) for k, v in CPU.items()}

    met: dict[str, bool | None] = {}
    for key, (op, target) in TARGETS.items():
        value = figures[key]
        met[key] = None if not isinstance(value, float) else (
            value <= target if op == "<=" else value >= target)
    figures["targets"] = {k: {"target": f"{op} {t:g}", "met": met[k]}
                          for k, (op, t) in TARGETS.items()}
    out = ROOT / "reports" / "bench.json"
    out.parent.mkdir(exist_ok=True)
    sys.path.insert(0, str(ROOT))
    from tco.fsio import write_atomic

    write_atomic(out, json.dumps(figures, indent=2) + "\n")

    print()
    print(f"{'figure':40} {'value':>18} {'target':>14}  met")
    for key, (op, target) in TARGETS.items():
        value = figures[key]
        shown = (f"{value:,.0f}" if isinstance(value, float) and value > 100
                 else f"{value:.3f}" if isinstance(value, float) else str(value))
        flag = {True: "yes", False: "NO", None: "-"}[met[key]]
        if not isinstance(value, float):
            print(f"{key:40} {shown}")
            continue
        print(f"{key:40} {shown:>18} {op + ' ' + format(target, ',g'):>14}  {flag}")
    print(f"\n`tco whatif` first run (computes and keeps the baseline): "
          f"{figures['whatif_first_run_s']:.3f} s; a what-if that sizes the deadline cluster "
          f"again: {figures['whatif_resizing_s']:.3f} s")
    print("\nCPU seconds (user + system; all threads) behind each figure: " + ", ".join(
        f"{k} {v:.3f}" for k, v in CPU.items()))
    load = figures["machine"]
    print(f"\nload average before/after: {load['load_average_before']} / "  # type: ignore[index]
          f"{load['load_average_after']}")  # type: ignore[index]
    print(f"machine reference: a 10-million-step Python loop took "
          f"{load['reference_loop_s']:.2f} s; compare runs only at similar reference times")  # type: ignore[index]
    print(f"wrote {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
