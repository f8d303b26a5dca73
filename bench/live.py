"""`make bench`: how long the live report takes to follow a change (issue 16, target <= 16 ms,
one frame at 60 Hz), and its first change (issue 32, target <= 100 ms): the reader's first,
once the page has settled (its first idle moment after loading, in which the page compiles its
model), and, for the record, a change before the page has had an idle moment (the model's
script run for the first time).

Writes the example's report as `tco report --html` does (with its analyses), opens it in
headless Chromium (1280 x 900, the panel in view) and changes one panel input at a time, each to
a new value within its plausible range, as a reader typing would: the time is from the input
event to the page laid out again (the model recomputed, every figure, the ranking, the summary
and the charts rewritten, style and layout done), measured in the page with performance.now().
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHANGES = 200

MEASURE = """(() => {
  const inputs = Array.from(document.querySelectorAll('input[data-path]'));
  const total = [], script = [];
  for (let i = 0; i < %d; i++) {
    const el = inputs[i %% inputs.length];
    const base = Number(el.defaultValue);
    el.value = String(base * (0.8 + 0.4 * ((i * 7919) %% 101) / 100));
    const t0 = performance.now();
    el.dispatchEvent(new Event('input'));
    const t1 = performance.now();
    document.body.offsetHeight;  // style and layout, as the next frame would do them
    total.push(performance.now() - t0);
    script.push(t1 - t0);
  }
  return {total, script, inputs: inputs.length,
          changed: document.documentElement.dataset.live};
})()"""


# A reader's first keystroke comes after the page has settled: its first idle moment after
# loading, which the page spends compiling its model (templates/report_live.js)
SETTLED = "new Promise((done) => requestIdleCallback(() => done(1)))"


def change_ms(tco: str) -> dict[str, float] | str:
    """Median and 90th percentile milliseconds a change takes, or why it was not measured."""
    sys.path.insert(0, str(ROOT / "tests"))
    from cdp import Page

    from tco.exporters.pdf import chromium

    exe = chromium()
    if exe is None:
        return "not measured: chromium missing"
    with tempfile.TemporaryDirectory(prefix="tco-bench-live-") as tmp:
        page_file = Path(tmp) / "example.html"
        subprocess.run([tco, "report", "--html", str(page_file)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
        with Page(exe, Path(tmp) / "profile") as page:
            # ... and a change before it: the page's idle callbacks held and never run, so the
            # model's script runs for the first time here
            page.hold_idle()
            _open(page, page_file)
            at_load = page.js(MEASURE % 1)
            errors = page.console()
        with Page(exe, Path(tmp) / "profile2") as page:
            _open(page, page_file)
            page.js(SETTLED)
            assert page.js("document.documentElement.dataset.model") == "compiled"
            first = page.js(MEASURE % 1)  # the reader's first change
            page.js(MEASURE % 20)  # warm-up: the JIT compiles the model
            got = page.js(MEASURE % CHANGES)
            assert got["changed"] == "changed" and got["inputs"] > 0, got
            errors += page.console()
    if errors:
        raise RuntimeError(f"the live report logged: {errors}")
    total, script = sorted(got["total"]), sorted(got["script"])
    return {"median_ms": statistics.median(total), "p90_ms": total[int(0.9 * len(total))],
            "script_median_ms": statistics.median(script), "changes": len(total),
            "panel_inputs": got["inputs"], "first_change_ms": first["total"][0],
            "change_at_load_ms": at_load["total"][0]}


def _open(page: Any, page_file: Path) -> None:
    page.call("Emulation.setDeviceMetricsOverride", session=True, width=1280, height=900,
              deviceScaleFactor=1, mobile=False)
    page.open(page_file)
    page.js("document.getElementById('live').scrollIntoView()")


if __name__ == "__main__":
    print(change_ms(str(Path(sys.executable).with_name("tco"))))
