"""The catalog, templates and example scenario work from an installed wheel, not only a checkout."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_wheel_carries_catalog_and_runs(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(tmp_path / "dist"), str(ROOT)],
        check=True, capture_output=True,
    )
    wheel = next((tmp_path / "dist").glob("tco-*.whl"))
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(site), str(wheel)], check=True, capture_output=True)
    assert (site / "tco" / "pricing" / "accelerators.yaml").is_file()
    assert (site / "tco" / "scenarios" / "example.yaml").is_file()
    code = (
        "import tco, json; from tco.cli import cli; from tco.resources import pricing_dir;"
        f"assert str(pricing_dir()).startswith({str(site)!r}), pricing_dir();"
        "cli(['compare', '--format', 'json'])"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"candidates"' in out.stdout
