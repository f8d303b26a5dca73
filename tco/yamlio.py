"""Safe YAML reading with line numbers for error messages, and guards against hostile files.

Guards: files over MAX_FILE_BYTES are refused before parsing; more than MAX_ALIASES aliases, or
a document whose aliases expand to more than MAX_EXPANDED_NODES nodes (a "billion laughs"
file), is refused after composing and before anything walks the data; tags that would build
Python objects (`!!python/object`) are refused (SafeLoader builds plain data only).
libyaml parses when PyYAML has it (CSafeLoader: the same safe semantics, ten times faster).

Numbers: YAML 1.1 (PyYAML's default) reads `70e9` and `1.5e3` as strings because it wants a
dot and a signed exponent. Every number in a scenario or quote file is a plain float, so the
loader also reads YAML 1.2 floats (`70e9`, `1e-3`, `1.5E3`) as numbers.
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

for _loader in (_PyLoader, _CLoader):
    if _loader is not None:
        _loader.add_implicit_resolver(  # type: ignore[attr-defined]
            "tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789."))


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
            # Lists of records are addressed by their id where they have one.
            ident = str(i)
            if isinstance(item, yaml.MappingNode):
                keys = {k.value: v for k, v in item.value if isinstance(v, yaml.ScalarNode)}
                # `id` names a record; `card` only where there is no id (cloud prices)
                named = keys.get("id", keys.get("card"))
                if named is not None:
                    ident = str(named.value)
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


def read_text(path: Path, error: type[TcoError] = TcoError) -> str:
    check_readable(path, error)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise error(f"cannot read: {exc.strerror}", file=str(path)) from None
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
