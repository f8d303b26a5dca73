"""`--set PATH=VALUE`: read a setting and apply it to a scenario.

PATH is an input's dotted path, exactly as `resolve(...).inputs` names it (and as the scenario
file, the workbook's defined names and the JSON output do). VALUE is

* absolute: `0.12`, `2.5e12`;
* relative to the baseline value: `-15%`, `+10%` (the sign is required, so that `15%` is never
  mistaken for the fraction 0.15);
* a multiplier of the baseline value: `x0.9` (or `*0.9`).

A setting is applied by editing the scenario itself (a candidate's `card_price`, the facility's
tariff, a workload's `tokens`, ...) and resolving it again, so every plausibility check of the
scenario file applies and deadline- or power-sized clusters are sized again: a what-if result
*is* the engine's result for the edited scenario.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, get_args, get_origin

from ..errors import TcoError, UnknownId, did_you_mean
from ..inputs import Input
from ..numtext import NUMBER
from ..resolved import set_path

if TYPE_CHECKING:
    from ..scenario import Loaded


@dataclass(frozen=True)
class Setting:
    path: str
    kind: str  # absolute | relative | multiplier
    amount: float  # the number, the percent change, or the factor
    text: str  # as given on the command line

    def value(self, base: float) -> float:
        """The input's value; a zero is +0 (`-0`, `x-0` or x0 of a negative baseline would
        otherwise be shown and written as -0)."""
        if self.kind == "relative":
            return base * (1.0 + self.amount / 100.0) + 0.0
        if self.kind == "multiplier":
            return base * self.amount + 0.0
        return self.amount + 0.0


def parse_setting(text: str, flag: str = "--set") -> Setting:
    """`PATH=VALUE` -> Setting; a malformed one is a TcoError naming the flag."""
    if "=" not in text:
        raise TcoError(f"{flag} {text!r}: expected PATH=VALUE, e.g. "
                       "facility.electricity_price_per_kwh=0.12")
    path, raw = (s.strip() for s in text.split("=", 1))
    if not path:
        raise TcoError(f"{flag} {text!r}: PATH is empty")
    return Setting(path, *parse_value(raw, f"{flag} {text!r}", path), text=text)


def parse_value(raw: str, where: str, path: str = "") -> tuple[str, float]:
    """('absolute'|'relative'|'multiplier', amount) for one VALUE (of the input at `path`)."""
    s = raw.strip().replace("_", "")
    kind = "absolute"
    if s.endswith("%"):
        m = re.fullmatch(rf"({NUMBER})\s*%", s)
        if m is None:
            raise TcoError(f"{where}: {raw!r} is not a percentage such as -15% or +10%")
        if s[0] not in "+-":
            raise TcoError(f"{where}: write +{s} or -{s} for a change relative to the "
                           f"baseline, or the value itself (e.g. {float(m.group(1)) / 100:g})")
        kind, s = "relative", m.group(1)
    elif s[:1] in ("x", "X", "*"):
        kind, s = "multiplier", s[1:].strip()
    elif s[:1] == "+" and re.fullmatch(NUMBER, s[1:]):  # reads as "one more", would set 1
        raise TcoError(f"{where}: {raw!r} would set the value {s[1:]}, not add it; write "
                       f"{s}% for a change in percent, a multiplier such as x1.1, or the value "
                       f"itself ({s[1:]})")
    if not re.fullmatch(NUMBER, s):
        fixed = written_in_the_file(path)
        raise TcoError(f"{where}: " + (fixed or f"VALUE {raw!r} must be a number (0.12), a "
                                       "change in percent (-15%, +10%) or a multiplier (x0.9)"))
    amount = float(s)
    if not math.isfinite(amount):
        raise TcoError(f"{where}: VALUE must be finite")
    return kind, amount


def written_in_the_file(path: str) -> str:
    """Why `path`, a field of the scenario that holds no number (a choice, a name, a group of
    fields), is not an input a what-if changes; '' for any other path."""
    if not path:
        return ""
    from ..numfields import field_members
    from ..scenario import Scenario

    members = [m for m in field_members(Scenario, path.split(".")) or ()
               if m is not type(None)]
    if not members or any(m in (int, float) for m in members):
        return ""
    choices = [repr(v) for m in members if get_origin(m) is Literal for v in get_args(m)]
    what = ("a choice (" + " or ".join(choices) + ")" if all(
        get_origin(m) is Literal for m in members) else "text" if str in members
        else "true or false" if bool in members else "a group of fields")
    return (f"{path} is {what} written in the scenario file, not a number; --set changes the "
            "model's numeric inputs only: edit the file to compare")


def check_path(path: str, inputs: Mapping[str, Input], flag: str = "--set") -> Input:
    if path not in inputs:
        fixed = written_in_the_file(path)
        if fixed:
            raise UnknownId(f"no input '{path}': {fixed}", field=flag)
        hint = did_you_mean(path, inputs) or (
            "; paths are utilization, cost_of_delay_per_week, facility.<field>, "
            "finance.<field>, team.<field>, team.familiarity.<stack>, assumptions.<key>, "
            "workloads.<id>.<field> or candidates.<id>.<field>")
        raise UnknownId(f"no input '{path}'{hint}", field=flag)
    return inputs[path]


def resolve_settings(settings: Sequence[Setting], inputs: Mapping[str, Input],
                     flag: str = "--set") -> dict[str, float]:
    """Absolute values for each setting, relative ones taken from the baseline `inputs`
    (a Result's inputs, so a sized cluster's baseline is its sized card count)."""
    out: dict[str, float] = {}
    given: dict[str, str] = {}
    for s in settings:
        inp = check_path(s.path, inputs, flag)
        if s.path in given:  # the later one won without a word (each is from the baseline)
            raise TcoError(f"{flag} {s.path} is given twice ({given[s.path]!r} and {s.text!r}); "
                           "give each input once")
        given[s.path] = s.text
        value = s.value(inp.value)
        if inp.spec.integer and value != int(value):
            raise TcoError(f"{flag} {s.text!r}: gives {value:g}, but {s.path} "
                           f"({inp.spec.label.lower()}) is a whole number")
        out[s.path] = value
    return out


def apply_values(loaded: Loaded, values: Mapping[str, float], label: str = "") -> Loaded:
    """A copy of the scenario with each input path set to its value, validated again.

    Errors name the file as `<file> with <label>` since the changed value is not in the file.
    """
    from ..profiles import unset_profile_defaults
    from ..scenario import parse_scenario
    from ..yamlio import YamlDoc

    data: dict[str, Any] = loaded.scenario.model_dump(mode="python")
    unset_profile_defaults(loaded.scenario, data)  # a profile's defaults stay its own
    # a salvage share the scenario did not give stays ungiven: giving one replaces the card
    # class's resale curve with the straight line (tco.resolve.candidates.resale_figures)
    if "residual_value_fraction" not in loaded.scenario.finance.model_fields_set:
        data.get("finance", {}).pop("residual_value_fraction", None)
    for path, value in values.items():
        set_path(data, path, value)
    return parse_scenario(YamlDoc(data, {}, edited_file(loaded.file, label)), edited=True)


def edited_file(file: str, label: str) -> str:
    """How errors and sources name a scenario changed on the command line."""
    return f"{file} with {label}" if label else file
