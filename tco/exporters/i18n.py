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
from pathlib import Path
from typing import Any

from ..resources import pricing_dir, templates_dir

LANGS = ("en", "zh")


def _load(path: Path) -> Any:
    """One of the package's own YAML files (strings, the catalog's regions) as plain data.
    PyYAML is imported here, when words are first read: a quick what-if prints none."""
    import yaml

    safe = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it: 10x faster
    with path.open(encoding="utf-8") as fh:
        return yaml.load(fh, Loader=safe)  # a safe loader: plain data only


@lru_cache(maxsize=1)
def _table() -> dict[str, Any]:
    return _load(templates_dir() / "strings.yaml")


@lru_cache(maxsize=1)
def place_names() -> dict[str, str]:
    """The Chinese name of each region's place, by its English name (pricing/facilities.yaml:
    `place` and `place_zh`), for engine sentences that name a region."""
    regions = _load(pricing_dir() / "facilities.yaml").get("regions", [])
    return {r["place"]: r["place_zh"] for r in regions if "place" in r and "place_zh" in r}


@lru_cache(maxsize=1)
def catalog_zh() -> dict[str, str]:
    """The Chinese display text of the catalog's names and notes, by their English text
    (templates/catalog_zh.yaml; tests/test_no_english.py checks it covers the shipped catalog)."""
    table = _load(templates_dir() / "catalog_zh.yaml")
    return {**table.get("names", {}), **table.get("notes", {})}


def region_name(region_id: str, lang: str) -> str:
    """A region by the name of its place ("China", "中国"), not its id; the id when unknown."""
    regions = {r["id"]: r for r in _load(pricing_dir() / "facilities.yaml").get("regions", [])}
    r = regions.get(region_id, {})
    return str(r.get("place_zh" if lang == "zh" else "place", region_id))


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
        if parts[:2] == ["policy", "holds_stock"]:  # held stock (tco.resolve.held), by card id
            key = f"held_{parts[-1]}"
        if len(parts) > 3 and parts[-3] == "delivery":  # a phased delivery, by its number
            return self._inputs_zh.get(f"delivery_{key}", english).format(k=parts[-2])
        return self._inputs_zh.get(key, english)

    def catalog(self, text: str) -> str:
        """A catalog record's name or a figure's note in this language (templates/catalog_zh.yaml); as
        written when the table has none (a quote file's own words)."""
        return catalog_zh().get(text, text) if self.lang == "zh" else text

    def message(self, text: str) -> str:
        """An engine note, reason or flag in this language (as written when not recognised);
        a catalog name or note (Strings.catalog) and the names inside a sentence too."""
        if self.lang == "en":
            return text
        if text in catalog_zh():
            return catalog_zh()[text]
        for pattern, zh in self._messages:
            m = pattern.match(text)
            if m:
                groups = {k: v or "" for k, v in m.groupdict().items()}
                if "region" in groups:
                    groups["region"] = place_names().get(groups["region"], groups["region"])
                if "region_id" in groups:
                    groups["region_id"] = region_name(groups["region_id"], self.lang)
                if "tier" in groups:  # a rent tier: committed, on-demand, ...
                    key = "pricing_" + groups["tier"].replace("-", "_").replace(" ", "_")
                    groups["tier"] = self._text.get(key, groups["tier"])
                for key in ("name", "rest"):  # a sentence inside the sentence
                    if groups.get(key):
                        groups[key] = self.message(groups[key])
                for key, value in groups.items():  # a card, stack or vendor named inside it
                    groups[key] = catalog_zh().get(value, value)
                return zh.format(**groups)
        return text


@lru_cache(maxsize=1)
def _workbook_table() -> dict[str, Any]:
    return _load(templates_dir() / "workbook_strings.yaml")


class Words:
    """The workbook's words: its English text is the key (as gettext's msgid), its Chinese text
    comes from templates/workbook_strings.yaml; labels of inputs, units, cost components and
    engine messages come from templates/strings.yaml, shared with the report (one translation
    per term). English is returned as written, so the English workbook is what the code says.
    A sentence without a Chinese entry stays English (tests/test_no_english.py finds it)."""

    def __init__(self, lang: str) -> None:
        self.strings = Strings(lang)
        self.lang = lang
        table = _workbook_table()
        zh = lang == "zh"
        self._text: dict[str, str] = dict(table["text"]) if zh else {}
        self._sheets: dict[str, str] = dict(table["sheets"]) if zh else {}
        self._quantities: dict[str, str] = dict(table["quantities"]) if zh else {}
        self._units: dict[str, str] = dict(table["units"]) if zh else {}

    def __call__(self, english: str, **values: Any) -> str:
        text = self._text.get(english, english)
        return text.format(**values) if values else text

    def sheet(self, name: str) -> str:
        return self._sheets.get(name, name)

    def quantity(self, key: str, english: str, year: int | None = None) -> str:
        """A model quantity's label by its key (the part after candidate, workload, year)."""
        zh = self._quantities.get(key)
        if zh is None:
            return english
        return zh.format(year=year) if year is not None else zh

    def unit(self, unit: str, currency: str = "") -> str:
        """A unit as the model or the catalog writes it (`W`, `card-h`, `USD/kWh`)."""
        if self.lang == "en":
            return unit
        if unit in self._units:
            return self._units[unit]
        if currency and unit.startswith(currency):
            rest = unit[len(currency):]
            return currency + self._units.get(rest, rest)
        return self.strings.unit(unit, currency)

    def input_label(self, path: str, english: str) -> str:
        return self.strings.input_label(path, english)

    def message(self, text: str) -> str:
        return self.strings.message(text)

    def source(self, text: str) -> str:
        """A source: the engine's own sources translated (`scenario`, `sized for ...`); catalog
        citations are quoted as published (the report's caveat says so)."""
        return self.strings.message(text)

    def note(self, text: str) -> str:
        return self.strings.message(text)

    def name(self, text: str) -> str:
        """An option's name (a generated rent option's is its source's name, rented)."""
        return self.strings.message(text)

    def component(self, key: str, english: str) -> str:
        if self.lang == "en":
            return english
        try:
            return self.strings.component(key)
        except KeyError:
            return english
