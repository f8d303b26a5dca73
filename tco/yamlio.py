"""Safe YAML reading with line numbers for error messages, and guards against hostile files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .errors import TcoError

MAX_FILE_BYTES = 5_000_000
MAX_ALIASES = 100

_CSafeLoader = getattr(yaml, "CSafeLoader", None)  # SafeLoader semantics, parsed by libyaml


class _LineLoader(yaml.SafeLoader):
    """SafeLoader (no object construction) that counts aliases and records line numbers."""

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self.alias_count = 0
        self.lines: dict[tuple[str, ...], int] = {}

    def compose_node(self, parent, index):  # type: ignore[no-untyped-def]
        if self.check_event(yaml.AliasEvent):
            self.alias_count += 1
            if self.alias_count > MAX_ALIASES:
                mark = self.peek_event().start_mark
                raise yaml.YAMLError(
                    f"more than {MAX_ALIASES} YAML aliases (line {mark.line + 1}); "
                    "refusing a file that may expand without bound"
                )
        return super().compose_node(parent, index)


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


def _record_lines(node: yaml.Node, path: tuple[str, ...], lines: dict[tuple[str, ...], int],
                  seen: set[int] | None = None) -> None:
    # An aliased node is walked once only: a few aliases can otherwise stand for billions of
    # paths (the "billion laughs" file), and line numbers are only needed for the original.
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
                for key, value in item.value:
                    if key.value in ("id", "card") and isinstance(value, yaml.ScalarNode):
                        ident = str(value.value)
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


def read_text(path: Path, error: type[TcoError] = TcoError) -> str:
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
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", file=str(path)
        ) from None


def load_yaml_text(text: str, file: str, error: type[TcoError] = TcoError) -> YamlDoc:
    # libyaml (when PyYAML has it) parses the catalog about ten times faster than the
    # pure-Python parser, which matters for commands that should start in well under a second.
    loader = _CSafeLoader(text) if _CSafeLoader is not None else _LineLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return YamlDoc(None, {}, file)
        if _CSafeLoader is not None:
            _count_aliases(node)
        data = loader.construct_document(node)
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
