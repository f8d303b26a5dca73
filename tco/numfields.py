"""The number types of the scenario's and the catalog's models: float and int that take
numeric text by the one rule of tco.numtext, and refuse a yes/no value (pydantic would take
true as 1)."""

from __future__ import annotations

import math
import types
from collections.abc import Sequence
from typing import Annotated, Any, Union, get_args, get_origin

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


def field_members(model: Any, parts: Sequence[str]) -> tuple[Any, ...] | None:
    """The types the field at `parts` below the pydantic `model` allows (a union's members;
    a choice as its Literal): a list item's or mapping key's part is passed over as the
    models are walked. None where `parts` leaves the models (an unknown field, an extra key)."""
    members: tuple[Any, ...] = (model,)
    rest = list(parts)
    while rest:
        container = next((m for m in members if get_origin(m) in (list, tuple, dict)), None)
        if container is not None:  # the part names an item or a key: its value's type
            rest.pop(0)
            members = _members(get_args(container)[-1])
            continue
        fields = next((m.model_fields for m in members if hasattr(m, "model_fields")), None)
        field = None if fields is None else fields.get(rest.pop(0))
        if field is None:
            return None
        members = _members(field.annotation)
    return members


def takes_text(model: Any, parts: Sequence[str]) -> bool:
    """Whether the field at `parts` below the pydantic `model` takes free text (a name, a note,
    a source). False where `parts` leaves the models (an unknown field, an extra key)."""
    return str in (field_members(model, parts) or ())  # a choice (Literal) is no text to quote


def _members(annotation: Any) -> tuple[Any, ...]:
    """The types a field's annotation allows: a union's members, Annotated's type."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return _members(get_args(annotation)[0])
    if origin is Union or origin is types.UnionType:
        return tuple(m for a in get_args(annotation) for m in _members(a))
    return (annotation,)
