"""The starter files `tco init` writes: a commented scenario, its quote file when the example has
one, and the scenario JSON Schema the scenario's first line points editors at.

The scenario's first line is a modeline of the YAML language server (VS Code's YAML extension,
Neovim's yamlls, ...) naming `scenario.schema.json` by a path relative to the scenario; `tco init`
writes that schema (the installed version's, `tco schema`) beside it. The pointer names no
folder of the machine that wrote it, and keeps working when the folder is moved, copied or
shared, as long as the two files travel together (docs/design.md, "Starter files").

Nothing here writes: `starter_files` says what to write where, the CLI checks and writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .resources import scenario_schema_file, starters_dir

SCHEMA_NAME = "scenario.schema.json"
MODELINE = f"# yaml-language-server: $schema={SCHEMA_NAME}\n"


@dataclass(frozen=True)
class Starter:
    scenario: str  # file name in tco/scenarios
    quotes: str | None  # a quote file written beside the scenario as <name>.quotes.csv
    about: str  # one line for `tco init --help`


STARTERS: dict[str, Starter] = {
    "train": Starter("example.yaml", None, "pre-train a 70B model on eight kinds of card "
                     "(the built-in example)"),
    "train-and-serve": Starter("train-and-serve.yaml", None, "pre-train a 70B model and serve "
                               "it, on one cluster or with a per-token API"),
    "cn": Starter("cn.yaml", "cn.quotes.csv", "a Chinese procurement package: CNY, region cn, "
                  "quotes in CNY (price_cny rows), 13 % VAT on gross (含税) prices"),
}


@dataclass(frozen=True)
class StarterFile:
    role: str  # how messages name it: "PATH", "quote file", "schema"
    path: Path
    text: str


def quotes_path(path: Path) -> Path:
    """`my.yaml` -> `my.quotes.csv`, beside it."""
    return path.with_name(f"{path.stem}.quotes.csv")


def starter_files(example: str, path: Path, companions: bool = True) -> list[StarterFile]:
    """The files of starter `example` for a scenario written at `path`: the scenario (with the
    modeline), then, when `companions`, its quote file and the schema beside it."""
    starter = STARTERS[example]
    here = starters_dir()
    text = (here / starter.scenario).read_text(encoding="utf-8")
    files = [StarterFile("PATH", path, MODELINE + text)]
    if not companions:
        return files
    if starter.quotes:
        files.append(StarterFile("quote file", quotes_path(path),
                                 (here / starter.quotes).read_text(encoding="utf-8")))
    files.append(StarterFile("schema", path.parent / SCHEMA_NAME,
                             scenario_schema_file().read_text(encoding="utf-8")))
    return files


def is_our_schema(text: str) -> bool:
    """A scenario schema some version of tco wrote (refreshed without --force)."""
    from .scenario_schema import SCHEMA_ID

    return f'"$id": "{SCHEMA_ID}"' in text
