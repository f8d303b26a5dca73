"""Where the per-token API option meets the other features (units, what-if, Monte Carlo): each
test failed before its fix (review of the serve2/fidelity2 merge)."""

from __future__ import annotations

import pytest

import tco.inputs as inputs_module
from tco.exporters.i18n import Strings, Words
from tco.inputs import InputSpec


def _units() -> set[str]:
    """Every unit an input may carry (tco/inputs.py's tables of InputSpec)."""
    out: set[str] = set()
    for value in vars(inputs_module).values():
        if isinstance(value, dict) and value and all(
                isinstance(v, InputSpec) for v in value.values()):
            out |= {v.unit for v in value.values()}
    return out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_input_unit_shows_the_word_money(lang):
    """The API's prices are in money/1e6 tokens: the report and the workbook showed that text
    as it is ("money/1e6 tokens", in Chinese too) instead of the currency's unit."""
    units = sorted(u for u in _units() if "money" in u)
    assert "money/1e6 tokens" in units
    for unit in units:
        for shown in (Strings(lang).unit(unit, "USD"), Words(lang).strings.unit(unit, "USD")):
            assert "money" not in shown and shown.startswith("USD"), (unit, shown)
    assert Strings("en").unit("money/1e6 tokens", "CNY") == "CNY/million tokens"
    assert Strings("zh").unit("money/1e6 tokens", "CNY") == "CNY/百万词元"
