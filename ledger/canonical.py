"""Canonical JSON: the exact bytes that are hashed, the same on every machine.

orjson with sorted keys and no whitespace. Only ints, strings, booleans, None, lists
(tuples are written as lists) and objects with ASCII string keys are allowed: a float
has no single canonical spelling, so it is refused, as is anything else.
"""

from __future__ import annotations

from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS


class CanonicalError(ValueError):
    """A value that has no canonical JSON form (a float, a non-ASCII key, an object)."""


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of ``value``; CanonicalError if it has none."""
    _check(value, "$")
    return orjson.dumps(value, option=_OPTIONS)


def loads(data: bytes | str) -> Any:
    """Parse JSON bytes (the inverse of ``canonical`` for canonical input)."""
    return orjson.loads(data)


def _check(value: Any, where: str) -> None:
    kind = type(value)
    if kind is str or kind is int or kind is bool or value is None:
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str or not key.isascii():
                raise CanonicalError(f"{where}: keys must be ASCII strings, got {key!r}")
            _check(item, f"{where}.{key}")
        return
    if kind is list or kind is tuple:
        for index, item in enumerate(value):
            _check(item, f"{where}[{index}]")
        return
    if kind is float:
        raise CanonicalError(f"{where}: floats are not allowed in event data, got {value!r}")
    raise CanonicalError(f"{where}: {kind.__name__} is not allowed in event data")
