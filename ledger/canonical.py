"""Canonical JSON: the exact bytes that are hashed, the same on every machine.

orjson with sorted keys and no whitespace. Only ints, strings, booleans, None, lists
(tuples are written as lists) and objects with ASCII string keys are allowed: a float
has no single canonical spelling, so it is refused, as is anything else.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

_OPTIONS = orjson.OPT_SORT_KEYS
_STRINGS = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
# A float token in compact JSON below the top level: a number after ":", "[" or "," with a
# fraction or an exponent, searched for once the strings are removed (text such as ",1.5"
# inside a string is not a number). The regex costs about a microsecond per hundred bytes, so
# a cheaper filter asks first: with every digit made "0" and every exponent mark made ".",
# any float token shows "0.".
_FLOAT_MARK = re.compile(rb"[:\[,]-?\d+(?:\.\d|[eE])")
_FLOAT_FILTER = bytes.maketrans(b"123456789eE", b"000000000..")


class CanonicalError(ValueError):
    """A value that has no canonical JSON form (a float, a non-ASCII key, an object)."""


def canonical(value: Any) -> bytes:
    """The canonical JSON bytes of ``value``; CanonicalError if it has none.

    The hot path serializes first and looks at the bytes for a float token (see
    _FLOAT_MARK), a non-ASCII byte (a non-ASCII key shows as one) or a null (orjson writes
    a NaN or an infinity as null). Only then is the value walked, to refuse what has no
    canonical form and name it.
    """
    if type(value) is float:
        _check(value, "$")
    try:
        out = orjson.dumps(value, option=_OPTIONS)
    except TypeError as error:
        _check(value, "$")  # names the offending value when it can
        raise CanonicalError(f"$: {error}") from None
    if (not out.isascii() or out.find(b"null") >= 0
            or (out.translate(_FLOAT_FILTER).find(b"0.") >= 0 and _FLOAT_MARK.search(_STRINGS.sub(b"", out)))):
        _check(value, "$")
    return out


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
