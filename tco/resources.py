"""Where the shipped catalog, templates and example scenario live: in a checkout or a wheel."""

from __future__ import annotations

from pathlib import Path

_CHECKOUT = Path(__file__).resolve().parent.parent


def _data_dir(name: str) -> Path:
    # In a checkout (or an editable install) the folders sit at the top of the repository;
    # a wheel ships them inside the package as tco.pricing and tco.templates (pyproject.toml).
    here = _CHECKOUT / name
    if here.is_dir() and (_CHECKOUT / "pyproject.toml").is_file():
        return here
    from importlib import resources

    return Path(str(resources.files("tco") / name))


def pricing_dir() -> Path:
    return _data_dir("pricing")


def templates_dir() -> Path:
    return _data_dir("templates")


def starters_dir() -> Path:
    """The shipped scenarios: the built-in example and the other starters of `tco init`."""
    return Path(__file__).resolve().parent / "scenarios"


def example_scenario() -> Path:
    return starters_dir() / "example.yaml"


def scenario_schema_file() -> Path:
    """The shipped JSON Schema of scenario files (tco.scenario_schema)."""
    return Path(__file__).resolve().parent / "schemas" / "scenario.schema.json"


def output_schema() -> Path:
    """The JSON Schema of every `--format json` output (docs/json.md)."""
    return Path(__file__).resolve().parent / "schemas" / "output.schema.json"
