"""Shared by the report tests: real analyses for a Result, computed from the engine's own model.

The analysis module (tco.analysis) computes these for `tco report`; the report tests build them
here directly from the model so that they do not depend on it, and so that the tornado and the
Monte Carlo chart are drawn from numbers the model really produces.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest

from tco.analysis.types import MonteCarlo, Sensitivity, TornadoBar
from tco.decide.rules import single
from tco.exporters.pdf import CHROMIUM_FLAGS, chromium, has_weasyprint
from tco.result import Result

SWING = 0.2


def base_values(result: Result) -> dict[str, float]:
    return {path: inp.value for path, inp in result.inputs.items()}


def sensitivity(result: Result, cid: str) -> Sensitivity:
    """Every non-structural input of `cid` (and every shared one) moved by +/-20%."""
    values = base_values(result)
    metric = f"{cid}.npv_tco"
    bars = []
    for path, inp in result.inputs.items():
        if inp.spec.structural or inp.value == 0 or (
                path.startswith("candidates.") and not path.startswith(f"candidates.{cid}.")):
            continue
        lo, hi = inp.value * (1 - SWING), inp.value * (1 + SWING)
        env = result.model.evaluate({**values, path: np.array([lo, hi])}, candidate=cid)
        out = np.broadcast_to(np.asarray(env[metric], dtype=float), (2,))
        if out[0] != out[1]:
            bars.append(TornadoBar(path, inp.label, inp.spec.unit, inp.value, lo, hi,
                                   float(out[0]), float(out[1])))
    bars.sort(key=lambda b: -b.effect)
    base = result.candidate(cid).values["npv_tco"]
    return Sensitivity("npv_tco", "swing", SWING, {cid: base}, {cid: bars})


def montecarlo(result: Result, draws: int = 4000, seed: int = 7) -> MonteCarlo:
    """Triangular draws (low, value, high) of every input that has a range."""
    rng = np.random.default_rng(seed)
    values: dict[str, object] = dict(base_values(result))
    varied = []
    for path, inp in result.inputs.items():
        if inp.spec.structural or inp.low is None or inp.high is None or inp.low >= inp.high:
            continue
        mode = min(max(inp.value, inp.low), inp.high)
        values[path] = rng.triangular(inp.low, mode, inp.high, size=draws)
        varied.append(path)
    env = result.model.evaluate(values)
    ids = [c.id for c in result.candidates if c.priced and c.feasible]
    npv = np.vstack([np.broadcast_to(np.asarray(env[f"{cid}.npv_tco"], float), (draws,))
                     for cid in ids])
    job = np.vstack([np.broadcast_to(
        np.asarray(env[f"{cid}.{result.candidate(cid).primary_workload}.cost_per_job"], float),
        (draws,)) for cid in ids])
    cheapest = np.argmin(npv, axis=0)

    def pct(a: np.ndarray) -> dict[str, float]:
        p10, p50, p90 = np.percentile(a, [10, 50, 90])
        return {"p10": float(p10), "p50": float(p50), "p90": float(p90), "mean": float(a.mean())}

    return MonteCarlo(
        draws=draws, seed=seed, varied=varied,
        percentiles={cid: {"npv_tco": pct(npv[i]), "cost_per_job": pct(job[i])}
                     for i, cid in enumerate(ids)},
        prob_cheapest={cid: float(np.mean(cheapest == i)) for i, cid in enumerate(ids)},
        samples={cid: npv[i][:2000].copy() for i, cid in enumerate(ids)},
    )


def add_analyses(result: Result) -> Result:
    rec = single(result)
    assert rec is not None
    result.analyses["sensitivity"] = sensitivity(result, rec.id)
    result.analyses["montecarlo"] = montecarlo(result)
    return result


# --- real programs: skip when missing, but never in CI ------------------------------------------



def require(ok: bool, what: str) -> None:
    """Skip without `what`, except in CI (CI=true), where a missing program is a failure."""
    if ok:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{what} is required in CI but is not installed")
    pytest.skip(f"{what} is not installed")


def require_chromium() -> str:
    exe = chromium()
    require(exe is not None, "chromium")
    assert exe is not None
    return exe


def require_weasyprint() -> None:
    require(has_weasyprint(), "weasyprint (pip install 'tco[pdf]')")


def require_program(name: str) -> str:
    exe = shutil.which(name)
    require(exe is not None, name)
    assert exe is not None
    return exe


def browse(page: Path, tmp: Path, width: int = 1280, height: int = 2000) -> tuple[Path, list[str]]:
    """Load `page` in headless Chromium; return a screenshot and the console messages logged."""
    exe = require_chromium()
    png = tmp / (page.stem + ".png")
    profile = tmp / f"profile-{page.stem}"
    cmd = [exe, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--enable-logging=stderr",
           "--v=0", "--hide-scrollbars", f"--screenshot={png}", f"--window-size={width},{height}",
           page.as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return png, console


def pixels(png: Path) -> np.ndarray:
    """The screenshot as a grey-level array in 0..1."""
    from matplotlib.image import imread

    img = imread(str(png))
    return img[..., :3].mean(axis=2)


class Collect(HTMLParser):
    """Every start tag with its attributes, the text of <style> elements, of <script> elements
    (the live report's data and code) and of the rest (what a reader sees)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.styles: list[str] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("style", "script") else None

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script"):
            self._in = None

    def handle_data(self, data: str) -> None:
        into = {"style": self.styles, "script": self.scripts}.get(self._in or "", self.text)
        into.append(data)


def parse(html: str) -> Collect:
    p = Collect()
    p.feed(html)
    p.close()
    return p


def unplanned(result):
    """`result` as a scenario the planner does not plan (tco.engine.plans_of: one of more than
    tco.plan.MAX_SUPPLIES supplies): the recommendation is then option-level and the page words
    it itself, as Python does, after every change. The option-level wording is checked so."""
    import copy

    out = copy.copy(result)
    out.planner = None
    out._plans = None
    return out
