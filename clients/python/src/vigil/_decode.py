"""Turns JSON from the API into the model dataclasses: camelCase keys onto snake_case fields,
ISO 8601 strings onto `datetime`, nested objects and lists onto their own models.

Hand-written because the one library made for this (pydantic) is what the package must not
depend on: Debian and pip ship different major versions of it."""

import dataclasses
import re
from datetime import date as Date
from datetime import datetime
from functools import lru_cache
from typing import Any, Dict, List, Tuple, Type, TypeVar, Union, cast, get_args, get_origin, get_type_hints

from ._errors import VigilError

T = TypeVar("T")

_strict = False


def decode_strictly(strict: bool) -> None:
    """Strict decoding (the package's tests turn it on): an answer with a field the model lacks, or
    without one it requires, raises, so a model that drifted from the server fails a test instead
    of quietly reading `None`. Off, as for every user, an old client keeps working with a newer server."""
    global _strict
    _strict = strict

_CAMEL_BOUNDARY = re.compile(r"(?<!^)(?=[A-Z])")


def snake_case(name: str) -> str:
    return _CAMEL_BOUNDARY.sub("_", name).lower()


def parse_datetime(value: str) -> datetime:
    # Python 3.9's fromisoformat does not read the "Z" the API writes.
    return datetime.fromisoformat(value[:-1] + "+00:00" if value.endswith("Z") else value)


@lru_cache(maxsize=None)
def _fields_of(model: type) -> Tuple[Tuple[str, object, bool], ...]:
    hints = get_type_hints(model)
    return tuple(
        (field.name, hints[field.name], field.default is dataclasses.MISSING and field.default_factory is dataclasses.MISSING)
        for field in dataclasses.fields(model)
        if field.init
    )


def _convert(hint: object, value: object) -> object:
    if value is None or hint is Any or hint is object:
        return value
    origin = get_origin(hint)
    if origin is Union:
        options = [option for option in get_args(hint) if option is not type(None)]
        return _convert(options[0], value) if len(options) == 1 else value
    if origin in (list, List):
        (item,) = get_args(hint)
        return [_convert(item, element) for element in cast(List[object], value)]
    if origin in (dict, Dict):
        return value
    if hint is datetime and isinstance(value, str):
        return parse_datetime(value)
    if hint is Date and isinstance(value, str):
        return Date.fromisoformat(value)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint) and isinstance(value, dict):
        return decode(cast(Type[object], hint), cast(Dict[str, object], value))
    return value


def decode(model: Type[T], data: Dict[str, Any]) -> T:
    """`data` as an instance of the dataclass `model`. Fields the server adds later are ignored;
    a field this version expects but the answer lacks is `None` (or the field's default)."""
    by_field = {snake_case(key): value for key, value in data.items()}
    fields = _fields_of(model)
    arguments: Dict[str, object] = {}
    for name, hint, required in fields:
        if name in by_field:
            arguments[name] = _convert(hint, by_field[name])
        elif required:
            if _strict:
                raise VigilError(f"{model.__name__}: the answer has no {name!r} (regenerate the models: npm run generate)")
            arguments[name] = None
    known = {name for name, _, _ in fields}
    unknown = [key for key in data if snake_case(key) not in known]
    if _strict and unknown:
        raise VigilError(f"{model.__name__}: the answer has fields the model lacks: {unknown} (regenerate the models: npm run generate)")
    return model(**arguments)

