"""Safe YAML reading with line numbers for error messages, and guards against hostile files.

Guards: files over MAX_FILE_BYTES are refused before parsing; more than MAX_ALIASES aliases, or
a document whose aliases expand to more than MAX_EXPANDED_NODES nodes (a "billion laughs"
file), is refused after composing and before anything walks the data; tags that would build
Python objects (`!!python/object`) are refused (SafeLoader builds plain data only).
libyaml parses when PyYAML has it (CSafeLoader: the same safe semantics, ten times faster).

Numbers: YAML 1.1 (PyYAML's default) reads `70e9` and `1.5e3` as strings because it wants a
dot and a signed exponent. Every number in a scenario or quote file is a plain float, so the
loader also reads YAML 1.2 floats (`70e9`, `1e-3`, `1.5E3`) as numbers.

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

import re
from pathlib import Path
from typing import Any

import yaml

from .errors import TcoError

MAX_FILE_BYTES = 5_000_000
MAX_ALIASES = 100
MAX_EXPANDED_NODES = 100_000  # the shipped catalog's largest file has about 2,300 nodes

_YAML12_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)[eE][-+]?[0-9]+$")


class _PyLoader(yaml.SafeLoader):
    """SafeLoader (no object construction), pure Python."""


_CSafeLoader = getattr(yaml, "CSafeLoader", None)  # SafeLoader semantics, parsed by libyaml
_CLoader: type | None = type("_CLoader", (_CSafeLoader,), {}) if _CSafeLoader else None


def _timestamp_as_text(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> str:
    """A date-like scalar (2025-07-16, 2026-13-45) as the text it is written as."""
    return str(loader.construct_scalar(node))


for _loader in (_PyLoader, _CLoader):
    if _loader is not None:
        _loader.add_implicit_resolver(  # type: ignore[attr-defined]
            "tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))
        _loader.add_constructor(  # type: ignore[attr-defined]
            "tag:yaml.org,2002:timestamp", _timestamp_as_text)


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


def _expanded_size(node: yaml.Node, memo: dict[int, int]) -> int:
    """How many nodes the document has once every alias is expanded (linear time: memoized)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # a node that contains itself counts once (SafeLoader refuses those anyway)
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
    if path.is_dir():
        raise error("is a directory, expected a file", file=str(path))
    if size > MAX_FILE_BYTES:
        raise error(f"file is {size:,} bytes; the limit is {MAX_FILE_BYTES:,}", file=str(path))


def read_bytes(path: Path, error: type[TcoError] = TcoError) -> bytes:
    """The bytes of an input file, read once: a pipe or process substitution (`<(cat s.yaml)`)
    cannot be read again. At most MAX_FILE_BYTES (a pipe's size is not known beforehand)."""
    check_readable(path, error)
    try:
        with path.open("rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", file=str(path)) from None
    if len(raw) > MAX_FILE_BYTES:
        raise error(f"more than {MAX_FILE_BYTES:,} bytes; the limit is {MAX_FILE_BYTES:,}",
                    file=str(path))
    return raw


def read_text(path: Path, error: type[TcoError] = TcoError) -> str:
    raw = read_bytes(path, error)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", file=str(path)
        ) from None


def load_yaml_text(text: str, file: str, error: type[TcoError] = TcoError) -> YamlDoc:
    loader = (_CLoader or _PyLoader)(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDoc(None, {}, file)
        _count_aliases(node)
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
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    _record_lines(node, (), lines)
    return YamlDoc(data, lines, file)


def load_yaml(path: Path, error: type[TcoError] = TcoError) -> YamlDoc:
    return load_yaml_text(read_text(path, error), str(path), error)
