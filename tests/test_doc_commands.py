"""Every `tco ...` command the README and docs/cli.md show runs as written.

The commands are read from the documents: lines of their code blocks that start with `tco `
(a `\\` continues a line; a `# comment` is dropped), and the README's inline `tco ...` code
that has arguments (a bare `tco job` names the command; `...` and `<(...)` mark a sketch, not
a command). Each runs in its own copy of a folder holding the files the documents name
(my-scenario.yaml, my-quotes.csv, old.yaml and new.yaml, ...), made by `tco init` and the
README's own quote row; a `tco init PATH` runs without PATH there, as on first use.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from tco.cli import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", ROOT / "docs" / "cli.md"]


def _block_commands(text: str) -> list[str]:
    out = []
    for block in re.findall(r"```\w*\n(.*?)```", text, flags=re.DOTALL):
        lines = block.split("\n")
        i = 0
        while i < len(lines):
            line = lines[i].strip()
            while line.endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line[:-1].rstrip() + " " + lines[i].strip()
            if line.startswith("tco "):
                out.append(re.split(r"\s+#\s", line)[0].strip())
            i += 1
    return out


def _inline_commands(text: str) -> list[str]:
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    spans = [re.sub(r"\s+", " ", s).strip() for s in re.findall(r"`(tco [^`]+)`", prose)]
    return [s for s in spans if len(shlex.split(s)) > 2 or s == "tco compare"
            if "..." not in s and "<(" not in s]


def commands() -> list[str]:
    found: list[str] = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        found += _block_commands(text)
        if doc.name == "README.md":
            found += _inline_commands(text)
    return list(dict.fromkeys(found))  # each once, in the documents' order


def test_the_documents_show_the_commands_this_test_runs():
    found = commands()
    assert len(found) >= 40
    for want in ("tco catalog show facilities", "tco init cn.yaml --example cn",
                 "tco compare cn.yaml --catalog cn.quotes.csv",
                 "tco montecarlo --draws 1000000 --seed 7"):
        assert want in found


def _run(*args: str) -> None:
    res = CliRunner().invoke(cli, list(args), prog_name="tco", catch_exceptions=False)
    assert res.exit_code == 0, f"tco {' '.join(args)}: {res.output}"


@pytest.fixture(scope="module")
def prepared(tmp_path_factory) -> Path:
    """The files the documents' commands read."""
    import os

    folder = tmp_path_factory.mktemp("docs")
    here = os.getcwd()
    os.chdir(folder)
    try:
        for path, example in (("my-scenario.yaml", "train"), ("old.yaml", "train"),
                              ("current.yaml", "train"), ("cn.yaml", "cn"),
                              ("train-and-serve.yaml", "train-and-serve"),
                              ("serve.yaml", "train-and-serve")):
            _run("init", path, "--example", example)
    finally:
        os.chdir(here)
    for old, new in (("old.yaml", "new.yaml"), ("current.yaml", "proposed.yaml")):
        text = (folder / old).read_text(encoding="utf-8")
        (folder / new).write_text(text.replace("cards: 512", "cards: 256"), encoding="utf-8")
    # the benchmark results `tco ingest` reads (tests/data/benchmarks: invented values in
    # each documented format)
    data = Path(__file__).parent / "data" / "benchmarks"
    shutil.copy(data / "vllm_h20_fp8.json", folder / "bench.json")
    shutil.copy(data / "training_step_time.csv", folder / "train-runs.csv")
    # the README's own example of a quote row
    (folder / "my-quotes.csv").write_text("id,field,value,source,as_of\n"
                                          "mi300x,price_usd,14500,Quote ACME-2291,2026-11-30\n",
                                          encoding="utf-8")
    return folder


@pytest.mark.parametrize("command", commands())
def test_each_command_of_the_documents_runs_as_written(prepared, tmp_path, monkeypatch,
                                                      command):
    work = shutil.copytree(prepared, tmp_path / "work")
    args = shlex.split(command)[1:]
    if args[0] == "init":
        (work / args[1]).unlink(missing_ok=True)
        (work / Path(args[1]).with_suffix(".quotes.csv").name).unlink(missing_ok=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("TCO_CACHE_DIR", str(tmp_path / "cache"))
    res = CliRunner().invoke(cli, args, prog_name="tco")
    assert res.exit_code == 0, f"{command}\n{res.output}"
    assert "Traceback" not in res.output
