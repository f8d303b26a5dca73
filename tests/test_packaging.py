"""What users install: the wheel and the sdist, built from the tracked files, hold every file the
package reads, and the installed package runs every command and the Python API from an empty
folder, with no checkout on sys.path (tests/installed_check.py).

By default the wheel is installed with `pip install --no-deps --target` and run with this
environment's dependencies (no network). With TCO_TEST_INSTALL=1 (.ci/run sets it) each of the
wheel and the sdist is installed in a new virtual environment, its dependencies from PyPI, as a
user installs it, and runs every command with its own `tco` script.
"""

import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path(__file__).with_name("installed_check.py")
SKIP = {"__pycache__", ".venv", ".venv-oldest", "build", "dist", ".git", ".pytest_cache",
        ".hypothesis"}


def _tracked(dest: Path) -> Path:
    """A copy of the repository's tracked files (a fresh clone's), or of the tree when this is
    not a git checkout (an unpacked sdist)."""
    try:
        names = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], check=True,
                               capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        names = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*") if p.is_file()
                 and not SKIP & set(p.relative_to(ROOT).parts)
                 and not p.name.endswith(".egg-info")]
    for name in filter(None, names):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    return dest


def _build(kind: str, src: Path, out: Path) -> Path:
    """The PEP 517 hook of our backend (setuptools, as pyproject.toml says), run in `src`."""
    code = ("import sys; from setuptools import build_meta as b; "
            f"print(b.build_{kind}(sys.argv[1]))")
    res = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, check=False, capture_output=True,
                         text=True)
    assert res.returncode == 0, res.stderr[-3000:]
    return out / res.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The sdist and wheel of the tracked files, and the wheel pip builds from that sdist."""
    tmp = tmp_path_factory.mktemp("built")
    src = _tracked(tmp / "src")
    sdist = _build("sdist", src, tmp / "dist")
    wheel = _build("wheel", src, tmp / "dist")
    with tarfile.open(sdist) as tar:  # the "data" filter: Python 3.11.4 and later
        extract = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(tmp / "unpacked", **extract)
    from_sdist = _build("wheel", next((tmp / "unpacked").iterdir()), tmp / "from-sdist")
    return {"src": src, "sdist": sdist, "wheel": wheel, "wheel-from-sdist": from_sdist}


def _package_files(src: Path) -> dict[str, bytes]:
    """Every file of every package folder, by its path in the installed package: tco/... as it
    is, pricing/ and templates/ as tco/pricing/ and tco/templates/ (pyproject.toml)."""
    out = {}
    for folder, inside in (("tco", "tco"), ("pricing", "tco/pricing"),
                           ("templates", "tco/templates")):
        for p in (src / folder).rglob("*"):
            if p.is_file() and "__pycache__" not in p.parts:
                out[f"{inside}/{p.relative_to(src / folder).as_posix()}"] = p.read_bytes()
    return out


@pytest.mark.parametrize("which", ["wheel", "wheel-from-sdist"])
def test_the_wheel_and_the_sdist_hold_every_file_of_every_package_folder(built, which):
    """A file of a package folder left out of the wheel (report_live.js once was, by a
    package-data pattern that named file kinds) fails here, whatever its kind; so does one the
    sdist leaves out, since pip builds the wheel it installs from the sdist."""
    want = _package_files(built["src"])
    with zipfile.ZipFile(built[which]) as whl:
        got = {n: whl.read(n) for n in whl.namelist() if n.startswith("tco/")}
    assert sorted(set(want) - set(got)) == []
    assert sorted(set(got) - set(want)) == []
    assert [n for n in want if got[n] != want[n]] == []


def _env(work: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "TCO_CACHE_DIR": str(work / "cache"), "MPLCONFIGDIR": str(work / "mpl"),
            "SOURCE_DATE_EPOCH": "1700000000", **extra}


def _run_check(python: str, work: Path, env: dict[str, str], *extra: str) -> None:
    """tests/installed_check.py, copied out of the checkout, run in an empty folder."""
    work.mkdir(parents=True, exist_ok=True)
    script = shutil.copy(CHECK, work.parent / CHECK.name)
    res = subprocess.run([python, str(script), str(ROOT), str(work), *extra], cwd=work,
                         env=env, check=False, capture_output=True, text=True)
    assert res.returncode == 0, f"{res.stderr[-5000:]}\n-- stdout:\n{res.stdout[-2000:]}"
    assert "every command and the Python API ran" in res.stdout


def test_the_installed_wheel_runs_every_command(built, tmp_path):
    """The wheel unpacked where nothing else is (pip --target), on this environment's
    dependencies: every command and the Python API in-process, from an empty folder."""
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(site), str(built["wheel"])], check=True, capture_output=True)
    _run_check(sys.executable, tmp_path / "work", _env(tmp_path / "work",
                                                       PYTHONPATH=str(site)))


@pytest.mark.skipif(os.environ.get("TCO_TEST_INSTALL") != "1",
                    reason="set TCO_TEST_INSTALL=1 to install the wheel and the sdist in new "
                    "virtual environments from PyPI (.ci/run does)")
@pytest.mark.parametrize("which", ["wheel", "sdist"])
def test_each_artifact_installs_in_a_clean_environment_and_runs_every_command(
        built, tmp_path, which):
    """As a user installs it: a new virtual environment, `pip install 'tco[pandas,pdf] @
    file:...'` (dependencies from PyPI; an sdist is built in pip's own isolated environment),
    then every command with the environment's `tco` script, from an empty folder."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    req = f"tco[pandas,pdf] @ {built[which].resolve().as_uri()}"
    res = subprocess.run([py, "-m", "pip", "install", "-q", req], check=False, capture_output=True,
                         text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-3000:]
    _run_check(py, tmp_path / "work", _env(tmp_path / "work"), "--tco",
               str(venv / "bin" / "tco"))


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
