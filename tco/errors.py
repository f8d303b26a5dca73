"""Domain errors. The core raises them; the CLI turns each into one message and exit status 2."""

from __future__ import annotations

import difflib
from collections.abc import Iterable


class TcoError(Exception):
    """Any error a user can fix by changing their input."""

    def __init__(self, message: str, *, file: str | None = None, field: str | None = None,
                 line: int | None = None) -> None:
        self.message = message
        self.file = file
        self.field = field
        self.line = line
        super().__init__(self.render())

    def render(self) -> str:
        where = []
        if self.file:
            where.append(f"{self.file}" + (f":{self.line}" if self.line else ""))
        if self.field:
            where.append(self.field)
        prefix = ": ".join(where)
        return f"{prefix}: {self.message}" if prefix else self.message


class CatalogError(TcoError):
    """A catalog or quote file is malformed or inconsistent."""


class ScenarioError(TcoError):
    """A scenario file is malformed or asks for something impossible."""


class UnknownId(TcoError):
    """An id (card, platform, stack, region, input path) that does not exist."""


class OutputError(TcoError):
    """An output file cannot be written."""


def did_you_mean(word: str, choices: Iterable[str], n: int = 3, list_up_to: int = 12) -> str:
    """' (did you mean: a, b?)' for the closest choices; when nothing is close and there are
    few choices, ' (expected one of: a, b, c)'; otherwise ''."""
    choices = list(dict.fromkeys(str(c) for c in choices))
    close = difflib.get_close_matches(word, choices, n=n, cutoff=0.5)
    if not close:
        lowered = [c for c in choices if word.lower() in c.lower() or c.lower() in word.lower()]
        close = lowered[:n]
    if close:
        return f" (did you mean: {', '.join(close)}?)"
    if 0 < len(choices) <= list_up_to:
        return f" (expected one of: {', '.join(choices)})"
    return ""
