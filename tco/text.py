"""Text a scenario, a quote or the catalog may hold: the characters refused at input.

Every text of a scenario or catalog file (names, ids, notes, sources, keys) ends up in the
outputs: cells and document properties of the workbook (XML), the HTML report, the terminal.
Some characters break them, and none belongs in a name or a source, so they are refused where
the file is read, naming the file, line, field and the character:

* characters XML 1.0 cannot hold (https://www.w3.org/TR/xml/#charsets): C0 control
  characters other than tab and line feed (a carriage return only before a line feed, as a
  Windows line end), surrogates, U+FFFE and U+FFFF; a workbook holding one does not open;
* the other Unicode noncharacters (U+FDD0 to U+FDEF, and the last two code points of every
  plane), which Unicode reserves for a program's internal use, never for interchange;
* DEL and the C1 control characters (U+007F to U+009F): XML allows them but no reader shows
  them, and U+009B starts a terminal escape sequence as ESC [ does;
* bidirectional controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069): an
  override in a name reorders the figures printed beside it in the HTML report and the
  terminal, so that a reader sees numbers that are not the ones computed.

Right-to-left letters themselves (Arabic, Hebrew) are text like any other.

A text is at most MAX_TEXT_CHARS characters: a spreadsheet cell holds 32,767, and the
workbook would otherwise cut a longer source or description without a word (the catalog's
longest source has 825).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Hashable, Iterable
from typing import Any, TypeVar

from .errors import TcoError

H = TypeVar("H", bound=Hashable)

BIDI_CONTROLS = frozenset([0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F),
                           *range(0x2066, 0x206A)])


def _kind(code: int) -> str | None:
    """Why a code point is refused (None when it is not)."""
    if code < 0x20 and code not in (0x09, 0x0A, 0x0D) or 0x7F <= code <= 0x9F:
        return "a control character"
    if 0xD800 <= code <= 0xDFFF:
        return "a surrogate, which is not a character on its own"
    if 0xFDD0 <= code <= 0xFDEF or (code & 0xFFFE) == 0xFFFE:
        return "a Unicode noncharacter, which XML and the workbook cannot hold"
    if code in BIDI_CONTROLS:
        return ("a bidirectional control, which would reorder the text and figures shown "
                "around it")
    return None


MAX_TEXT_CHARS = 10_000

# Every code point `_kind` refuses, as one character class: most texts are searched once by
# it, in C, and only one it finds is read character by character for the message.
# tests/test_hostile_files.py holds it to `_kind` over every code point.
_REFUSED_RANGES = [(0x00, 0x08), (0x0B, 0x0C), (0x0E, 0x1F), (0x7F, 0x9F), (0xD800, 0xDFFF),
                   (0xFDD0, 0xFDEF), *[(c, c) for c in sorted(BIDI_CONTROLS)],
                   *[(plane << 16 | 0xFFFE, plane << 16 | 0xFFFF) for plane in range(0x11)]]
REFUSED = re.compile("[" + "".join(
    rf"\U{lo:08x}-\U{hi:08x}" for lo, hi in _REFUSED_RANGES) + "]")


def text_problem(text: str) -> str | None:
    """Why `text` cannot be a name, id, note or source (None when it can)."""
    if len(text) > MAX_TEXT_CHARS:
        return (f"found a text of {len(text):,} characters ({text[:40]!r}...); at most "
                f"{MAX_TEXT_CHARS:,} (a spreadsheet cell holds 32,767)")
    if REFUSED.search(text) is None:
        return None
    for at, ch in enumerate(text):
        code = ord(ch)
        if code == 0x0D and text[at + 1:at + 2] == "\n":
            continue  # a Windows line end in a multi-line cell
        why = _kind(code)
        if why:
            try:
                name = f" ({unicodedata.name(ch)})"
            except ValueError:
                name = ""
            shown = text if len(text) <= 60 else (text[:57] + "...") if at < 57 else (
                "..." + text[max(0, at - 30):at + 20] + "...")
            return (f"found {shown!r}: character {at + 1} is U+{code:04X}{name}, {why}; "
                    "remove it")
    return None


def _item_name(item: Any) -> str | None:
    if isinstance(item, dict):
        named = item.get("id", item.get("card"))
        if isinstance(named, (str, int)) and not isinstance(named, bool):
            return str(named)
    return None


def check_texts(data: Any, error: type[TcoError], file: str,
                line_of: Any = None) -> None:
    """Refuse the first text (a value or a key, anywhere in `data`) that `text_problem`
    refuses, naming its field (list items by their id, as other messages do) and line."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(data, ())]
    while stack:
        node, path = stack.pop()
        if isinstance(node, dict):
            children = []
            for key, value in node.items():
                if isinstance(key, str):
                    problem = text_problem(key)
                    if problem:
                        _raise(error, f"key {problem}", file, path, line_of)
                children.append((value, path + (str(key),)))
            stack.extend(reversed(children))
        elif isinstance(node, (list, tuple)):
            stack.extend(reversed([(item, path + (_item_name(item) or str(i),))
                                   for i, item in enumerate(node)]))
        elif isinstance(node, str):
            problem = text_problem(node)
            if problem:
                _raise(error, problem, file, path, line_of)
        elif isinstance(node, (bytes, bytearray)):  # from the Python API: not text, unchecked
            _raise(error, "found bytes; expected text (a str)", file, path, line_of)


def _raise(error: type[TcoError], message: str, file: str, path: tuple[str, ...],
           line_of: Any) -> None:
    raise error(message, file=file, field=".".join(path) or None,
                line=line_of(list(path)) if line_of else None)


def first_repeated(items: Iterable[H]) -> H | None:
    """The first item equal to one before it (a key or a column given twice), or None: in one
    pass, so a hostile file of many keys costs no more than reading it."""
    seen: set[H] = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None
