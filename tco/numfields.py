"""The number types of the scenario's and the catalog's models: float and int that take
numeric text by the one rule of tco.numtext, and refuse a yes/no value (pydantic would take
true as 1)."""

from __future__ import annotations

import math
from typing import Annotated, Any

from pydantic import BeforeValidator
from pydantic_core import PydanticCustomError

from .numtext import LARGEST, number_from_text


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value: Any) -> Any:
    """A scenario's or catalog's number before pydantic checks its type: yes/no is refused
    (pydantic would take true as 1); text is a number only by tco.numtext's rule."""
    if isinstance(value, bool):
        raise PydanticCustomError("not_a_number",
                                  f"expected a number, found a yes/no value ({value})")
    if isinstance(value, str):
        number = number_from_text(value)
        if number is None:
            raise PydanticCustomError("not_a_number",
                                      f"expected a number, found {_shown(value)}".replace(
                                          "{", "{{").replace("}", "}}"))
        if not math.isfinite(number):
            raise PydanticCustomError("not_a_number",
                                      f"found {_shown(value)}, beyond the largest number "
                                      f"({LARGEST:.3g}); expected a finite number")
        return number
    return value


def _whole(value: Any) -> Any:
    value = _number(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # "1e3" as text is 1000; 1.5 is refused by pydantic as not whole
    return value


Num = Annotated[float, BeforeValidator(_number)]
Whole = Annotated[int, BeforeValidator(_whole)]
