"""docs/cli.md is the command reference, generated from the commands' own --help.

Regenerate after changing a command: TCO_UPDATE_DOCS=1 pytest tests/test_cli_reference.py
"""

import os
from pathlib import Path

from click.testing import CliRunner

from tco.cli import cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def _commands(group, prefix):
    yield prefix
    for name in sorted(getattr(group, "commands", {})):
        yield from _commands(group.commands[name], [*prefix, name])


def render() -> str:
    parts = [("# Command reference\n\nGenerated from `tco ... --help` by "
              "tests/test_cli_reference.py; do not edit by hand.\n")]
    for path in _commands(cli, []):
        out = CliRunner().invoke(cli, [*path, "--help"], prog_name="tco", terminal_width=100).output
        title = " ".join(["tco", *path])
        parts.append(f"\n## `{title}`\n\n```\n{out.rstrip()}\n```\n")
    return "".join(parts)


def test_cli_reference_is_current():
    text = render()
    if os.environ.get("TCO_UPDATE_DOCS"):
        DOC.write_text(text, encoding="utf-8")
    assert DOC.read_text(encoding="utf-8") == text, (
        "docs/cli.md is stale: run TCO_UPDATE_DOCS=1 pytest tests/test_cli_reference.py")
