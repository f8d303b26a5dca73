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
    shipped = site / "tco" / "schemas" / "output.schema.json"  # docs/json.md
    assert shipped.read_bytes() == (ROOT / "tco" / "schemas" / "output.schema.json").read_bytes()
    code = (
        "import tco, json; from tco.cli import cli; from tco.resources import pricing_dir;"
        f"assert str(pricing_dir()).startswith({str(site)!r}), pricing_dir();"
        "from tco.resources import output_schema; assert output_schema().is_file();"
        "cli(['compare', '--format', 'json'])"
    )
    env = {**os.environ, "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", code], check=False, cwd=tmp_path, env=env,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert '"candidates"' in out.stdout


def test_ci_tests_the_declared_lower_bounds():
    """.ci/oldest.txt pins every dependency to its lower bound in pyproject.toml, so the bounds
    we declare are the versions CI's second run actually tests."""
    import re
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = list(project["dependencies"])
    for extra in ("test", "pdf"):
        declared += project["optional-dependencies"][extra]
    lower = {}
    for req in declared:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)>=([0-9.]+)", req.strip())
        assert m, f"{req}: declare a lower bound as name>=version"
        lower[m.group(1).lower().replace("_", "-")] = m.group(2)
    pins = {}
    for line in (ROOT / ".ci" / "oldest.txt").read_text().splitlines():
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            pins[name.lower()] = version
    build_tools = {"setuptools", "wheel"}  # the packaging test's build backend, not runtime
    for name, version in lower.items():
        if name in build_tools:
            continue
        assert name in pins, f"{name} has no pin in .ci/oldest.txt"
        assert pins[name].split(".")[:len(version.split("."))] == version.split("."), (
            f"{name}: pyproject says >={version}, .ci/oldest.txt tests {pins[name]}")


def test_every_subpackage_is_shipped():
    """pyproject lists packages by hand: a new subpackage (tco/model, ...) left out of it
    would be missing from the wheel."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "tco").rglob(
        "__init__.py")}
    assert found <= listed, sorted(found - listed)


def test_no_function_of_the_package_is_longer_than_a_screen():
    """Written to be read: a function over 80 lines does several things."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent / "tco"
    long = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = node.end_lineno - node.lineno + 1
                if lines > 80:
                    long.append(f"{path.relative_to(root)}:{node.lineno} {node.name} ({lines})")
    assert not long, long
