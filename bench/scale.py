"""A scenario with many candidates, for the scale target of `make bench`.

`write_scenario(path, n)` writes the built-in example's workload, facility, finance and team
with `n` candidates: every card of the catalog in turn, most with a fixed card count (256 to
8,192), every fourth sized to a deadline (30 to 120 days), some liquid-cooled, some with a
quoted card price or MFU of their own. The same `n` always gives the same file.

Run directly, it writes the scenario and times `tco report SCENARIO --xlsx --html` once,
printing wall seconds and peak memory (resident set) of the process:

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
    cards = list(catalog.accelerators)  # catalog order
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
               ) -> tuple[float, float, float]:
    """(wall s, CPU s, peak RSS MiB) of one `tco report SCEN --xlsx --html` process.

    Peak RSS is the child's own `ru_maxrss`, read with wait4 so that other children of this
    process do not count."""
    argv = [tco, "report", str(scen), "--xlsx", str(out_dir / "x.xlsx"),
            "--html", str(out_dir / "x.html")]
    if draws is not None:
        argv += ["--draws", str(draws)]
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, cwd=ROOT)
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - t
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, argv)
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else CANDIDATES
    tco = str(Path(sys.executable).with_name("tco"))
    with tempfile.TemporaryDirectory(prefix="tco-scale-") as tmp:
        scen = write_scenario(Path(tmp) / "scale.yaml", n)
        wall_s, cpu_s, rss = run_report(tco, scen, Path(tmp))
    print(f"{n} candidates: {wall_s:.2f} s wall, {cpu_s:.2f} s CPU, {rss:,.0f} MiB peak RSS")


if __name__ == "__main__":
    main()
