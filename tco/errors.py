"""Domain errors. The core raises them; the CLI turns each into one message and exit status 2."""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable

_BREAKS = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def printable(text: object, *, breaks: str | None = " ") -> str:
    """Text safe for a terminal: control characters (terminal escape sequences, bell,
    backspace), invisible format characters (bidirectional overrides, zero-width marks) and
    line or paragraph separators are shown as visible escapes (ESC as \\u001b), so user text
    can neither run a terminal command nor hide or rewrite what is shown around it.

    Line breaks and tabs become `breaks` (a space in tables), or, with breaks=None, visible
    escapes too (\\n, \\r, \\t: an error message stays one line and says what was found).
    """
    out = []
    for ch in str(text):
        if ch in _BREAKS:
            out.append(_BREAKS[ch] if breaks is None else breaks)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return "".join(out)


def printable_lines(text: str) -> str:
    """`printable` applied to each line of a multi-line text (a table), keeping its breaks."""
    return "\n".join(printable(line) for line in text.split("\n"))


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
        """'file:line: field: message', with control characters shown escaped (ids, names and
        paths in it come from the user and may hold terminal escape sequences)."""
        where = []
        if self.file:
            where.append(_shortened(self.file) + (f":{self.line}" if self.line else ""))
        if self.field:  # a path through the user's ids: as long as they are
            where.append(_shortened(self.field))
        prefix = ": ".join(where)
        text = printable(f"{prefix}: {self.message}" if prefix else self.message, breaks=None)
        return _shortened(text, MAX_MESSAGE, MAX_MESSAGE - 500, 400)


MAX_MESSAGE = 1500  # characters of one message: user text it quotes (an id of 9,000) is cut


def _shortened(name: str, most: int = 200, head: int = 120, tail: int = 60) -> str:
    """A file name, field or message as it is shown: whole, or its start and end when it is
    absurdly long (a scenario's text taken for a path, an id of 20,000 characters quoted as
    `unknown card '...'`), so that the message stays readable."""
    return name if len(name) <= most else f"{name[:head]}...{name[-tail:]}"


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


def validation_words(kind: str, msg: str, found: object, ctx: dict[str, object],
                     shown: str) -> str | None:
    """A file's field refused by its schema (pydantic's error `kind`, `msg` and `ctx`), in
    this program's words: what was found (`shown`, as the caller quotes it) and what was
    expected. None for a kind the caller words itself."""
    if kind in ("model_type", "model_attributes_type"):
        return f"found {shown}; expected a mapping of fields (name: value)"
    if kind == "dict_type":
        return f"found {shown}; expected a mapping (key: value)"
    if kind in ("list_type", "tuple_type", "set_type"):
        return f"found {shown}; expected a list"
    if kind == "string_type":
        return f"found {shown}; expected text"
    if kind in ("bool_type", "bool_parsing"):
        return f"found {shown}; expected true or false"
    if kind == "string_too_short":
        least = ctx.get("min_length", 1)
        return (f"found {shown}; expected text, not empty" if least == 1 else
                f"found {shown}; expected at least {least} characters")
    if kind == "too_short" and isinstance(found, (list, dict)):
        n = len(found)
        return (f"found {n:,} item{'' if n == 1 else 's'}; expected at least "
                f"{ctx.get('min_length', 1)}")
    if kind in ("too_long", "string_too_long") and isinstance(found, (list, dict, str)):
        most = ctx.get("max_length")
        what = "characters" if isinstance(found, str) else "items"
        return f"{len(found):,} {what}; at most {most:,}" if isinstance(most, int) else None
    if msg.startswith("Input should be"):
        return f"found {shown}; " + msg.replace("Input should be", "expected", 1)
    return None
