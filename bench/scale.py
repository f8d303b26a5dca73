"""A scenario with many candidates, for the scale target of `make bench`.

`write_scenario(path, n)` writes the built-in example's workload, facility, finance and team
with `n` candidates: every card of the catalog in turn, most with a fixed card count (256 to
8,192), every fourth sized to a deadline (30 to 120 days), some liquid-cooled, some with a
quoted card price or MFU of their own. The same `n` always gives the same file.

Run directly, it writes the scenario and times `tco report SCENARIO --xlsx --html` once,
printing wall seconds and peak memory: the resident set of the larger of its two processes
(the report forks one for the workbook) and the proportional set of both together:

    python bench/scale.py [N]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = 1000

# Fixed card counts and deadlines the candidates cycle through (co-prime lengths, so the
# combinations vary).
COUNTS = (256, 512, 1024, 2048, 4096, 8192, 768)
DEADLINES = (30, 45, 60, 90, 120)
PRICE_FACTORS = (0.9, 1.0, 1.05, 0.95, 1.1)
MFU_FACTORS = (0.95, 1.0, 1.05)


def scenario(n: int = CANDIDATES) -> dict[str, object]:
    """The example scenario with `n` candidates (plain data, ready for YAML)."""
    sys.path.insert(0, str(ROOT))
    from tco.catalog import load_catalog
    from tco.resources import example_scenario

    catalog = load_catalog(())
    from tco.yamlio import load_yaml

    base = load_yaml(example_scenario()).data  # numbers as tco reads them (70e9 is a number)
    # catalog order; a card or server with no public price (pricing/ says `missing:`) would
    # need a quote, so it is left out
    cards = [c for c in catalog.accelerators if not catalog.card_prices[c].missing
             and not catalog.platform(catalog.card(c).default_platform).missing]
    candidates = []
    for i in range(n):
        card = cards[i % len(cards)]
        cand: dict[str, object] = {"id": f"c{i:04d}-{card}", "card": card}
        if i % 4 == 3:
            cand["deadline_days"] = DEADLINES[i % len(DEADLINES)]
        else:
            cand["cards"] = COUNTS[i % len(COUNTS)]
        if i % 3 == 1:
            cand["cooling"] = "liquid"
        if i % 5 == 2:
            price = catalog.card_prices[card].price_usd.best
            cand["card_price"] = round(price * PRICE_FACTORS[i // 5 % len(PRICE_FACTORS)])
        if i % 6 == 5:
            mfu = catalog.card(card).mfu.best
            cand["mfu"] = round(mfu * MFU_FACTORS[i % len(MFU_FACTORS)], 3)
        candidates.append(cand)
    base["name"] = f"{n} candidates (scale benchmark)"
    base["candidates"] = candidates
    return base


def write_scenario(path: Path, n: int = CANDIDATES) -> Path:
    path.write_text(yaml.safe_dump(scenario(n), sort_keys=False), encoding="utf-8")
    return path


def run_report(tco: str, scen: Path, out_dir: Path, draws: int | None = None
               ) -> tuple[float, float, float, float | None]:
    """(wall s, CPU s, peak RSS MiB, peak total PSS MiB) of one `tco report SCEN --xlsx
    --html` process.

    CPU and peak RSS come from wait4, so that other children of this process do not count:
    the CPU of the report's own child (the workbook, tco/exporters/report_files.py) is in
    it, and the peak RSS is that of the larger of the two processes. The peak total PSS is
    the sum over the report's processes (shared pages counted once), sampled every 0.1 s
    (Linux; None elsewhere)."""
    argv = [tco, "report", str(scen), "--xlsx", str(out_dir / "x.xlsx"),
            "--html", str(out_dir / "x.html")]
    if draws is not None:
        argv += ["--draws", str(draws)]
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=ROOT)
    peak_kib: float | None = 0.0 if Path(f"/proc/{proc.pid}/smaps_rollup").exists() else None
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if peak_kib is not None:
            peak_kib = max(peak_kib, sum(_pss_kib(p) for p in _process_tree(proc.pid)))
        time.sleep(0.1)
    elapsed = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, argv)
    return (elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024,  # KiB on Linux
            None if peak_kib is None else peak_kib / 1024)


def _process_tree(pid: int) -> list[int]:
    """`pid` and its descendants (Linux /proc)."""
    out = [pid]
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as fh:
                for child in fh.read().split():
                    out += _process_tree(int(child))
    except OSError:  # gone meanwhile
        pass
    return out


def _pss_kib(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else CANDIDATES
    tco = str(Path(sys.executable).with_name("tco"))
    with tempfile.TemporaryDirectory(prefix="tco-scale-") as tmp:
        scen = write_scenario(Path(tmp) / "scale.yaml", n)
        wall_s, cpu_s, rss, pss = run_report(tco, scen, Path(tmp))
    total = "" if pss is None else f", {pss:,.0f} MiB peak PSS of its processes together"
    print(f"{n} candidates: {wall_s:.2f} s wall, {cpu_s:.2f} s CPU, {rss:,.0f} MiB peak RSS "
          f"(the larger process){total}")


if __name__ == "__main__":
    main()
