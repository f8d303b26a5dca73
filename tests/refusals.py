"""Refusals, checked one way: tco refuses bad input with one line on standard error,
`tco: error: FILE:LINE: FIELD: what was found; what was expected`, exit status 2, nothing on
standard output and no traceback."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tco.cli import cli

PREFIX = "tco: error: "


def one_error(result: Any) -> str:
    """The single `tco: error:` line of a failed run (exit 2, no traceback, no stdout), without
    its prefix."""
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        f"crashed: {result.exception!r}")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(PREFIX), result.stderr
    assert "Traceback" not in result.stderr
    return lines[0].removeprefix(PREFIX)


def refused(args: list[str]) -> str:
    """The one message `tco ARGS` refuses with."""
    return one_error(CliRunner().invoke(cli, args))


def scenario_refused(tmp_path: Path, text: str, command: str = "compare",
                     name: str = "s.yaml") -> tuple[Path, str]:
    """Write `text` as the scenario file `name`; its path and the one message `tco COMMAND
    FILE` refuses it with."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path, refused([command, str(path)])
