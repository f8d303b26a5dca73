"""Safe YAML reading with line numbers for error messages, and guards against hostile files.

Guards: files over MAX_FILE_BYTES are refused before parsing; more than MAX_ALIASES aliases, or
a document whose aliases expand to more than MAX_EXPANDED_NODES nodes (a "billion laughs"
file), is refused after composing and before anything walks the data; tags that would build
Python objects (`!!python/object`) are refused (SafeLoader builds plain data only).
libyaml parses when PyYAML has it (CSafeLoader: the same safe semantics, ten times faster).

Numbers: YAML 1.1 (PyYAML's default) reads `70e9` and `1.5e3` as strings because it wants a
dot and a signed exponent. Every number in a scenario or quote file is a plain float, so the
loader also reads YAML 1.2 floats (`70e9`, `1e-3`, `1.5E3`) as numbers (and the JSON Schemas
accept them as numeric text, tco.numtext, for tools that read YAML 1.1).

Forms YAML parsers read differently are refused, naming the field, the line and what was
written, so that no file means one thing to tco and another to a colleague's tool
(`_ambiguity`): a leading zero (`064`: 52, octal, to YAML 1.1; 64 to YAML 1.2; `09` is text
to YAML 1.1), digits separated by colons (`1:04`: 64, base 60, to YAML 1.1; text to YAML
1.2), digits grouped with `_` (`1_000`: 1000 to YAML 1.1; text to YAML 1.2), `yes`, `no`,
`on`, `off` (booleans to YAML 1.1; text to YAML 1.2), `+.5` (text to YAML 1.1; 0.5 to YAML
1.2), and any other plain scalar the two read differently. Hexadecimal, octal and binary
(`0x40`, `0o100`, `0b1000000`) are refused too: a count or a price is written in decimal, and
not every parser reads them. Quoted, each is text (`'1:04'`). `.nan`, `.inf` and a number
too large for a float (`1e400`) are refused: no input of tco may be infinite or not a number.

A number, yes/no or null under an explicit tag its text does not have by itself (`!!int
"2e12"`, which stopped PyYAML with a Python error) is refused, and a tagged number gets the
checks of a plain one (`!!int "064"`); `!!binary` (bytes, which no check of text sees),
`!!set`, `!!omap` and `!!pairs` are refused as not plain data.

Size: files over MAX_FILE_BYTES, more than MAX_EXPANDED_NODES values (counted while parsing,
before any is built), more than MAX_ALIASES aliases, aliases expanding to more than
MAX_EXPANDED_NODES nodes, mappings and lists nested deeper than MAX_DEPTH, and integers of
more than MAX_DIGITS digits are refused before anything walks the data recursively.

Dates: YAML 1.1 reads `2025-07-16` as a date object, and stops with a Python error on an
impossible one (`2026-13-45`). Here a date-like scalar is text, as written (as in YAML 1.2's
core schema): a name may look like a date, and an `as_of` that is not a real date is reported
by the field that checks it, with its line.

Duplicate keys: YAML allows a later key to replace an earlier one silently (a second
`candidates:` would drop the first list). A mapping that repeats a key is refused, naming
both lines.

Pipes: a file may be a pipe or process substitution (`<(cat s.yaml)`), read once; its size is
not known beforehand, so no more than MAX_FILE_BYTES is read from it.
"""

from __future__ import annotations

import math
import os
import re
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from .errors import TcoError
from .text import text_problem

MAX_FILE_BYTES = 5_000_000
FIFO_WAIT_S = 20.0  # how long an input FIFO may wait for the program that writes into it
MAX_ALIASES = 100
MAX_EXPANDED_NODES = 100_000  # the shipped catalog's largest file has about 2,300 nodes
MAX_DEPTH = 40  # mappings and lists within each other; a scenario needs about 6
MAX_DIGITS = 40  # digits of an integer; the largest plausible input (1e15 tokens) has 16
# Whether the file's model takes text at a field path (by key, a list item by its id): for
# hints that help only there (a name written .inf: "in quotes, if it is text")
TakesText = Callable[[tuple[str, ...]], bool]

# YAML 1.2 floats YAML 1.1 reads as text: an exponent without a dot or sign (70e9, 1.5e3), and
# a signed number that starts with its point (-.5)
_YAML12_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$"
                           r"|^[-+]\.[0-9][0-9_]*$")


class _PyLoader(yaml.SafeLoader):
    """SafeLoader (no object construction), pure Python."""


_CSafeLoader = getattr(yaml, "CSafeLoader", None)  # SafeLoader semantics, parsed by libyaml
_CLoader: type | None = type("_CLoader", (_CSafeLoader,), {}) if _CSafeLoader else None


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    """A date-like scalar (2025-07-16, 2026-13-45) as the text it is written as."""
    return str(loader.construct_scalar(node))


def _not_plain_data(loader: yaml.SafeLoader, node: yaml.Node) -> None:
    """!!binary (bytes: text that escapes every check of text), !!set, !!omap, !!pairs: not
    the plain data of a scenario or quote file."""
    raise yaml.constructor.ConstructorError(None, None, f"found the tag '{node.tag}'",
                                            node.start_mark)


for _loader in (_PyLoader, _CLoader):
    if _loader is not None:
        _loader.add_implicit_resolver(  # type: ignore[attr-defined]
            "tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))
        _loader.add_constructor(  # type: ignore[attr-defined]
            "tag:yaml.org,2002:timestamp", _timestamp_as_text)
        for _tag in ("binary", "set", "omap", "pairs"):
            _loader.add_constructor(  # type: ignore[attr-defined]
                f"tag:yaml.org,2002:{_tag}", _not_plain_data)


def _count_aliases(root: yaml.Node) -> None:
    """Refuse more than MAX_ALIASES alias references (each alias is the same node object
    appearing again in the composed graph). Visits each distinct node once."""
    seen: set[int] = {id(root)}
    stack = [root]
    aliases = 0
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            children = [x for pair in node.value for x in pair]
        elif isinstance(node, yaml.SequenceNode):
            children = list(node.value)
        else:
            continue
        for child in children:
            if id(child) in seen:
                aliases += 1
                if aliases > MAX_ALIASES:
                    raise yaml.YAMLError(
                        f"more than {MAX_ALIASES} YAML aliases (anchor at line "
                        f"{child.start_mark.line + 1}); refusing a file that may expand "
                        "without bound"
                    )
                continue
            seen.add(id(child))
            stack.append(child)


def _item_name(node: yaml.Node) -> str | None:
    """A list item's id (or, where it has none, its card), as paths name records."""
    if not isinstance(node, yaml.MappingNode):
        return None
    keys = {k.value: v for k, v in node.value
            if isinstance(k, yaml.ScalarNode) and isinstance(v, yaml.ScalarNode)}
    named = keys.get("id", keys.get("card"))
    return str(named.value) if named is not None else None


def _check_duplicate_keys(root: yaml.Node, file: str, error: type[TcoError]) -> None:
    """Refuse a mapping that gives one key twice, naming both lines (YAML itself would keep the
    last silently). Merge keys (`<<: *base`) are not repeats: explicit keys override them."""
    seen_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, path = stack.pop()
        if id(node) in seen_nodes:
            continue
        seen_nodes.add(id(node))
        if isinstance(node, yaml.SequenceNode):
            items = [(item, path + (_item_name(item) or str(i),))
                     for i, item in enumerate(node.value)]
            stack.extend(reversed(items))  # popped in document order
            continue
        if not isinstance(node, yaml.MappingNode):
            continue
        first: dict[tuple[str, str], int] = {}
        children = []
        for key, value in node.value:
            if isinstance(key, yaml.ScalarNode) and key.tag != "tag:yaml.org,2002:merge":
                line = key.start_mark.line + 1
                if (key.tag, key.value) in first:
                    earlier = first[(key.tag, key.value)]
                    where = "on the same line" if earlier == line else f"on line {earlier}"
                    raise error(
                        f"duplicate key '{key.value}': also given {where}; YAML would keep "
                        "only the last one, so give each key once",
                        file=file, line=line, field=".".join(path + (str(key.value),)))
                first[(key.tag, key.value)] = line
            children.append((value, path + (str(getattr(key, "value", "?")),)))
        stack.extend(reversed(children))


_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
_BOOL, _STR = "tag:yaml.org,2002:bool", "tag:yaml.org,2002:str"
_NULL = "tag:yaml.org,2002:null"
# YAML 1.2's core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), for comparison
_Y12_INT = re.compile(r"^[-+]?[0-9]+$|^0o[0-7]+$|^0x[0-9a-fA-F]+$")
_Y12_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$"
                        r"|^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$")
_Y12_BOOL = re.compile(r"^(true|True|TRUE|false|False|FALSE)$")
_RADIX = re.compile(r"^[-+]?0([xob])", re.IGNORECASE)
_LEADING_ZERO = re.compile(r"^[-+]?0[0-9_]+$")
_NOT_FINITE = re.compile(r"^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$")


def _yaml12_kind(text: str) -> str:
    """What YAML 1.2's core schema reads a plain scalar as: int, float, bool or text."""
    if _Y12_INT.match(text):
        return _INT
    if _Y12_FLOAT.match(text):
        return _FLOAT
    if _Y12_BOOL.match(text):
        return _BOOL
    return _STR


def _decimal(text: str) -> str:
    """A numeric scalar written as YAML 1.1 reads it, in plain decimal (for 'write ...')."""
    try:
        value = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.YAMLError:
        return text
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return text
    return f"{value:g}" if isinstance(value, float) else str(value)


def _ambiguity(node: yaml.ScalarNode, text_field: bool = False) -> str | None:
    """Why a plain scalar cannot be trusted to mean one thing (None when it can); `text_field`:
    it stands where the file's model takes text."""
    text, ours = node.value, node.tag
    if ours == _INT and len(text.lstrip("+-0")) > MAX_DIGITS:
        return (f"found a number of {len(text.lstrip('+-'))} digits; expected a plausible "
                "number (written with an exponent, e.g. 2e12)")
    if ours == _FLOAT:
        if _NOT_FINITE.match(text):
            # a name or note given .inf: say how to write it as text (a number field: not)
            quoted = f" (in quotes, '{text}', if it is text)" if text_field else ""
            return f"expected a finite number, found {text}{quoted}"
        if "_" not in text and ":" not in text and not math.isfinite(float(text)):
            return (f"found {text}, beyond the largest number a float holds (about 1.8e308); "
                    "expected a finite number")
    radix = _RADIX.match(text)
    if radix and ours == _INT or radix and _yaml12_kind(text) == _INT:
        base = {"x": "hexadecimal", "o": "octal", "b": "binary"}[radix.group(1).lower()]
        return (f"found {text}, {base} notation; write the number in decimal"
                + (f" ({_decimal(text)})" if ours == _INT else "")
                + f", or in quotes ('{text}') if it is text")
    if _LEADING_ZERO.match(text) and ours in (_INT, _STR):
        read = (f"as {_decimal(text)} (octal)" if ours == _INT else "as text")
        return (f"found {text}: YAML 1.1 parsers (PyYAML) read a leading zero {read}, YAML 1.2 "
                f"ones as the decimal {int(text.replace('_', ''))}; write "
                f"{int(text.replace('_', ''))} without the leading zero, or '{text}' in quotes "
                "if it is text")
    if ours in (_INT, _FLOAT) and ":" in text:
        return (f"found {text}: YAML 1.1 parsers (PyYAML) read digits separated by ':' as one "
                f"base-60 number ({_decimal(text)}), YAML 1.2 ones as text; write the number, "
                f"or '{text}' in quotes if it is text (a time, a ratio)")
    if ours in (_INT, _FLOAT) and "_" in text:
        return (f"found {text}: YAML 1.1 parsers (PyYAML) read {_decimal(text)}, YAML 1.2 ones "
                f"as text; write {_decimal(text)} without '_' (or with an exponent, e.g. 2e12)")
    if ours == _BOOL and _yaml12_kind(text) != _BOOL:
        return (f"found {text}: YAML 1.1 parsers (PyYAML) read it as "
                f"{str(_decimal_bool(text)).lower()}, YAML 1.2 ones as the text '{text}'; "
                f"write true or false, or '{text}' in quotes if it is text")
    theirs = _yaml12_kind(text)
    kinds = {ours, theirs}
    if kinds & {_INT, _FLOAT, _BOOL} and ours != theirs and kinds != {_INT, _FLOAT}:
        return (f"found {text}: YAML parsers read it differently (YAML 1.1 as "
                f"{_KIND_NAMES.get(ours, 'text')}, YAML 1.2 as {_KIND_NAMES[theirs]}); write "
                "a plain number such as 0.5 or 2e12, or quote it if it is text")
    return None


_KIND_NAMES = {_INT: "a number", _FLOAT: "a number", _BOOL: "true or false", _STR: "text"}


def _decimal_bool(text: str) -> bool:
    return text.lower() in ("yes", "on", "y", "true")


def _scalar_problem(node: yaml.ScalarNode, implicit: Callable[[str], str],
                    text_field: bool = False) -> str | None:
    """Why a scalar cannot be trusted to mean one thing: a plain one YAML parsers read
    differently, or a number or yes/no given an explicit tag (`!!int "064"`) that its text does
    not have by itself (`!!int "2e12"` stopped PyYAML with a Python error)."""
    typed = node.tag in (_INT, _FLOAT, _BOOL, _NULL)
    if not node.style and node.tag == _STR and implicit(node.value) != _STR:
        return None  # `!!str 064`: text, as written, to every parser
    if typed and implicit(node.value) != node.tag:
        return (f"found {node.value!r} tagged !!{node.tag.rsplit(':', 1)[1]}, which it is not "
                "written as; write the number (or true/false) without a tag")
    if not node.style or typed and node.tag != _NULL:
        return _ambiguity(node, text_field)
    return None


def _check_scalars(root: yaml.Node, file: str, error: type[TcoError],
                   implicit: Callable[[str], str], takes_text: TakesText | None) -> None:
    """Refuse plain scalars YAML parsers read differently (`_scalar_problem`), and nesting
    deeper than MAX_DEPTH, naming the field and the line. Iterative: a deep file cannot exhaust
    the stack here (the recursive walks come after this one)."""
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, tuple[str, ...], int]] = [(root, (), 0)]
    while stack:
        node, path, depth = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise error(f"nested more than {MAX_DEPTH} levels deep; a scenario or quote file "
                        "needs a few", file=file, line=node.start_mark.line + 1,
                        field=".".join(path[:MAX_DEPTH]) or None)
        if isinstance(node, yaml.ScalarNode):
            problem = _scalar_problem(  # plain: style None, or "" (libyaml)
                node, implicit, takes_text is not None and takes_text(path))
            if problem:
                raise error(problem, file=file, line=node.start_mark.line + 1,
                            field=".".join(path) or None)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(reversed([(item, path + (_item_name(item) or str(i),), depth + 1)
                                   for i, item in enumerate(node.value)]))
        elif isinstance(node, yaml.MappingNode):
            children: list[tuple[yaml.Node, tuple[str, ...], int]] = []
            for key, value in node.value:
                name = str(getattr(key, "value", "?")) if isinstance(key, yaml.ScalarNode) \
                    else "?"
                children.append((key, path, depth + 1))
                children.append((value, path + (name,), depth + 1))
            stack.extend(reversed(children))


def _contains_itself(node: yaml.Node) -> yaml.Node | None:
    """A mapping or list of the document that holds itself through an alias (`a: &x [*x]`),
    or None. PyYAML builds such a value as a cycle, which no later check could walk to an
    end."""
    state: dict[int, int] = {}  # 1: being walked (an ancestor), 2: done
    stack: list[tuple[yaml.Node, bool]] = [(node, False)]
    while stack:
        n, leaving = stack.pop()
        if leaving:
            state[id(n)] = 2
            continue
        if state.get(id(n)) == 2:
            continue
        state[id(n)] = 1
        stack.append((n, True))
        children: list[yaml.Node] = (
            [x for pair in n.value for x in pair] if isinstance(n, yaml.MappingNode)
            else list(n.value) if isinstance(n, yaml.SequenceNode) else [])
        for child in children:
            if state.get(id(child)) == 1:
                return child
            if state.get(id(child)) is None:
                stack.append((child, False))
    return None


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many nodes the document has once every alias is expanded (linear time: memoized)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a node that contains itself counts once (refused before: _contains_itself)
    total = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            total += _expanded_size(k, memo) + _expanded_size(v, memo)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            total += _expanded_size(item, memo)
    memo[key] = total
    return total


def _record_lines(node: yaml.Node, path: tuple[str, ...], lines: dict[tuple[str, ...], int],
                  seen: set[int] | None = None) -> None:
    # An aliased node is walked once only: line numbers are only needed for the original.
    seen = set() if seen is None else seen
    if id(node) in seen:
        return
    seen.add(id(node))
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            k = str(key.value)
            lines[path + (k,)] = key.start_mark.line + 1
            _record_lines(value, path + (k,), lines, seen)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            # Lists of records are addressed by their id where they have one (`card` only
            # where there is no id: cloud prices).
            ident = _item_name(item) or str(i)
            lines[path + (str(i),)] = item.start_mark.line + 1
            lines[path + (ident,)] = item.start_mark.line + 1
            _record_lines(item, path + (ident,), lines, seen)


class YamlDoc:
    """A parsed YAML document and the line of every dotted path in it."""

    def __init__(self, data: Any, lines: dict[tuple[str, ...], int], file: str) -> None:
        self.data = data
        self.lines = lines
        self.file = file

    def line_of(self, path: tuple[str, ...] | list[str]) -> int | None:
        p = tuple(str(x) for x in path)
        while p:
            if p in self.lines:
                return self.lines[p]
            p = p[:-1]
        return None


def check_readable(path: Path, error: type[TcoError] = TcoError) -> None:
    """An input file exists, is a file, and is within MAX_FILE_BYTES."""
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise error("file not found", file=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", file=str(path)) from None
    except ValueError:  # a NUL character, which no file name holds (from the Python API)
        raise error("not a file name: it holds a NUL character", file=str(path)) from None
    if path.is_dir():
        raise error("is a directory, expected a file", file=str(path))
    name = str(path)
    raw = next((ch for ch in name if 0xDC80 <= ord(ch) <= 0xDCFF), None)
    if raw is not None:  # os.fsdecode's stand-in for a byte that is not UTF-8
        raise error(f"the file's name is not UTF-8 text (byte 0x{ord(raw) - 0xDC00:02X}); "
                    "rename the file", file=name)
    problem = text_problem(name)
    if problem:  # the name is written into the outputs (sources, the workbook)
        raise error(f"the file's name: {problem} (rename the file)", file=name)
    if size > MAX_FILE_BYTES:
        raise error(f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}", file=str(path))


def read_bytes(path: Path, error: type[TcoError] = TcoError) -> bytes:
    """The bytes of an input file, read once: a pipe or process substitution (`<(cat s.yaml)`)
    cannot be read again. At most MAX_FILE_BYTES (a pipe's size is not known beforehand)."""
    check_readable(path, error)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            named = stat.S_ISFIFO(os.fstat(fd).st_mode) and _is_named_fifo(path)
            first = _first_bytes(fd, path, error, MAX_FILE_BYTES + 1) if named else b""
            os.set_blocking(fd, True)
            raw = first + (fh.read(MAX_FILE_BYTES + 1 - len(first))
                           if len(first) <= MAX_FILE_BYTES else b"")
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", file=str(path)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise error(f"more than {MAX_FILE_BYTES:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                    file=str(path))
    return raw


def _is_named_fifo(path: Path) -> bool:
    """A FIFO made by mkfifo, which a writer may open later: not a shell's `<(...)`
    (/dev/fd/63), a pipe whose writer was there from the start and whose end of input is the
    writer having finished."""
    try:
        return stat.S_ISFIFO(os.lstat(os.path.realpath(path)).st_mode)
    except OSError:  # /proc/<pid>/fd/pipe:[...]: no file of that name
        return False


def _first_bytes(fd: int, path: Path, error: type[TcoError], most: int) -> bytes:
    """The first bytes of a FIFO opened without waiting for its writer: once a program writes
    into it (or holds it open, as a shell's `<(...)` does), the rest is read as from any file.
    A FIFO no program opens within FIFO_WAIT_S is refused; a plain open would wait for ever
    (`mkfifo f; tco validate f`)."""
    deadline = time.monotonic() + FIFO_WAIT_S
    while True:
        try:
            chunk = os.read(fd, min(most, 1 << 16))
        except BlockingIOError:  # a writer holds it open, nothing written yet
            return b""
        if chunk:
            return chunk
        if time.monotonic() > deadline:  # 0 bytes and no writer: none has come yet
            raise error(f"a FIFO that no program wrote into within {FIFO_WAIT_S:g} s; write "
                        "the file into it (cat s.yaml > FIFO), or give the file itself",
                        file=str(path))
        time.sleep(0.02)


def read_text(path: Path, error: type[TcoError] = TcoError) -> str:
    raw = read_bytes(path, error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", file=str(path)
        ) from None


def _count_events(text: str, file: str, error: type[TcoError]) -> None:
    """Refuse a document of more than MAX_EXPANDED_NODES values before any is built: parsed
    as a stream of events, none kept (a 5 MB flow list of 2.4 million numbers took 90 s and
    1.3 GB to compose before the count after it refused it)."""
    loader = (_CLoader or _PyLoader)(text)
    try:
        count = 0
        while loader.check_event():
            loader.get_event()
            count += 1
            if count > 2 * MAX_EXPANDED_NODES:  # about two events a value (start and end)
                raise error(f"more than {MAX_EXPANDED_NODES:,} values; a scenario or quote "
                            "file holds far fewer", file=file)
    except yaml.YAMLError:
        return  # reported, with its line, by the parse that follows
    finally:
        loader.dispose()


def load_yaml_text(text: str, file: str, error: type[TcoError] = TcoError,
                   takes_text: TakesText | None = None) -> YamlDoc:
    """The document of `text`, its scalars checked (`_check_scalars`); `takes_text` says which
    field paths the file's model takes text at, for the messages' hints."""
    _count_events(text, file, error)
    loader = (_CLoader or _PyLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDoc(None, {}, file)
        _check_scalars(node, file, error,
                       lambda value: loader.resolve(yaml.ScalarNode, value, (True, False)),
                       takes_text)
        _count_aliases(node)
        itself = _contains_itself(node)
        if itself is not None:
            raise error("a YAML anchor holds an alias of itself (a value that contains "
                        "itself); expected plain data", file=file,
                        line=itself.start_mark.line + 1)
        expanded = _expanded_size(node, {})
        if expanded > MAX_EXPANDED_NODES:
            raise error(
                f"the YAML expands to {expanded:,} values through aliases (limit "
                f"{MAX_EXPANDED_NODES:,}); refusing a file that may expand without bound",
                file=file,
            )
        _check_duplicate_keys(node, file, error)
        data = loader.construct_document(node)
    except yaml.constructor.ConstructorError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        found = re.search(r"tag '([^']+)'", str(exc.problem or ""))
        what = found.group(1).replace("tag:yaml.org,2002:", "!!") if found else "(unknown)"
        raise error(
            f"YAML tag {what} is not allowed; expected plain data (mappings, lists, numbers, "
            "text)", file=file, line=line,
        ) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        raise error(f"malformed YAML: {exc.problem or exc}", file=file, line=line) from None
    except yaml.YAMLError as exc:
        raise error(f"malformed YAML: {exc}", file=file) from None
    except (ValueError, TypeError, OverflowError) as exc:  # a tagged value PyYAML cannot build
        raise error(f"malformed YAML: {exc}", file=file) from None
    except RecursionError:  # the pure-Python parser, before MAX_DEPTH is checked
        raise error(f"nested more than {MAX_DEPTH} levels deep; a scenario or quote file "
                    "needs a few", file=file) from None
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    _record_lines(node, (), lines)
    return YamlDoc(data, lines, file)


def load_yaml(path: Path, error: type[TcoError] = TcoError,
              takes_text: TakesText | None = None) -> YamlDoc:
    return load_yaml_text(read_text(path, error), str(path), error, takes_text)
