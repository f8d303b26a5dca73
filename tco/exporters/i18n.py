"""The report's words in English and Chinese, read from templates/strings.yaml.

`Strings(lang)` looks up a key and fills its {placeholders}; `segments()` does the same but keeps
the filled-in values apart from the surrounding words, so the template can emphasise them while
autoescaping both. Money and numbers are formatted by the caller (tco/exporters/fmt.py).
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import yaml

from ..resources import templates_dir

LANGS = ("en", "zh")


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    path = templates_dir() / "strings.yaml"
    with path.open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


@dataclass(frozen=True)
class Segment:
    """A piece of a sentence; `value` pieces are data (names, amounts) the template emphasises."""

    text: str
    value: bool = False


class Strings:
    def __init__(self, lang: str) -> None:
        if lang not in LANGS:
            raise ValueError(f"unknown language {lang!r}; expected one of {', '.join(LANGS)}")
        self.lang = lang
        table = _table()
        self._text: dict[str, str] = {k: v[lang] for k, v in table["text"].items()}
        self._components = {k: v[lang] for k, v in table["components"].items()}
        self._cooling = {k: v[lang] for k, v in table["cooling"].items()}
        self._units = {k: v[lang] for k, v in table["units"].items()}
        self._inputs_zh: dict[str, str] = table["inputs"]
        self._messages = [(re.compile(m["en"]), m["zh"]) for m in table["messages"]]

    def __call__(self, key: str, **values: Any) -> str:
        return self._text[key].format(**values)

    def segments(self, key: str, **values: Any) -> list[Segment]:
        """The sentence `key` as literal words and filled-in values, in order."""
        out: list[Segment] = []
        for literal, field, _spec, _conv in string.Formatter().parse(self._text[key]):
            if literal:
                out.append(Segment(literal))
            if field is not None:
                out.append(Segment(str(values[field]), value=True))
        return out

    def all_text(self) -> dict[str, str]:
        return dict(self._text)

    def component(self, key: str) -> str:
        return self._components[key]

    def cooling(self, key: str) -> str:
        return self._cooling.get(key, key)

    def unit(self, unit: str, currency: str) -> str:
        """The unit of an input (InputSpec.unit), with "money" replaced by the currency."""
        return self._units.get(unit, unit).format(currency=currency)

    def input_label(self, path: str, english: str) -> str:
        if self.lang == "en":
            return english
        parts = path.split(".")
        key = "familiarity" if parts[:2] == ["team", "familiarity"] else parts[-1]
        return self._inputs_zh.get(key, english)

    def message(self, text: str) -> str:
        """An engine note, reason or flag in this language (as written when not recognised)."""
        if self.lang == "en":
            return text
        for pattern, zh in self._messages:
            m = pattern.match(text)
            if m:
                return zh.format(**{k: v or "" for k, v in m.groupdict().items()})
        return text
