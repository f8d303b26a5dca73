"""docs/cli.md is the command reference, generated from the commands' own --help.

Regenerate after changing a command: `make docs` (python tests/test_cli_reference.py).

The test checks what a reader needs (every command, every option with its flags, choices and
help text, each command's description), not click's layout, which changes between releases.
"""

import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from tco.cli import cli

DOC = Path(__file__).resolve().parent.parent / "docs" / "cli.md"


def _commands(group, prefix):
    yield prefix, group
    for name in sorted(getattr(group, "commands", {})):
        yield from _commands(group.commands[name], [*prefix, name])


COMMANDS = list(_commands(cli, []))


def render() -> str:
    parts = [("# Command reference\n\nGenerated from `tco ... --help` by "
              "tests/test_cli_reference.py; do not edit by hand.\n")]
    for path, _ in COMMANDS:
        out = CliRunner().invoke(cli, [*path, "--help"], prog_name="tco", terminal_width=100).output
        title = " ".join(["tco", *path])
        parts.append(f"\n## `{title}`\n\n```\n{out.rstrip()}\n```\n")
    return "".join(parts)


def _raw_sections() -> dict[str, str]:
    """The doc's text under each "## `tco ...`" heading."""
    text = DOC.read_text(encoding="utf-8")
    found = re.split(r"^## `([^`]+)`\s*$", text, flags=re.MULTILINE)
    return {found[i]: found[i + 1] for i in range(1, len(found), 2)}


def _sections() -> dict[str, str]:
    return {title: _squash(body) for title, body in _raw_sections().items()}


def _squash(text: str) -> str:
    """Without whitespace: click wraps help text at spaces and after hyphens."""
    return re.sub(r"\s+", "", text)


def test_every_command_has_a_section_and_no_section_is_stale():
    documented = set(_sections())
    commands = {" ".join(["tco", *path]) for path, _ in COMMANDS}
    assert documented == commands, (
        "docs/cli.md is stale: run make docs")


@pytest.mark.parametrize("path, command", COMMANDS, ids=[" ".join(p) or "tco" for p, _ in COMMANDS])
def test_every_option_is_documented_with_its_help(path, command):
    section = _sections().get(" ".join(["tco", *path]), "")
    raw = _raw_sections().get(" ".join(["tco", *path]), "")
    stale = "docs/cli.md is stale: run make docs"
    first_line = (command.help or "").strip().splitlines()[0] if command.help else ""
    assert _squash(first_line) in section, (first_line, stale)
    for param in command.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        for flag in [*param.opts, *param.secondary_opts]:
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", raw), (flag, stale)
        if param.help:
            assert _squash(param.help) in section, (param.help, stale)
        if isinstance(param.type, click.Choice):
            for choice in param.type.choices:
                assert str(choice) in section, (param.opts, choice, stale)


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
    print(f"wrote {DOC}")
