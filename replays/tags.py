"""Tag lines, ``[Name value]``, as PGN heads a game: the header syntax of tourney's text files.

A text record of a game (replays.text_record) and a deal book (tournaments.play.deal_books) both
open with tag lines. A tag's value is one JSON value on the line (a string in quotes with
JSON's escapes, an integer, an object), so any bot name or forfeit reason, quotes, newlines
and control characters included, fits on one line and reads back exactly. Lines end with LF
(a CR before it is ignored, for files edited on Windows); docs/replays.md has the grammar.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from replays.log import LogError, loads_strictly

_TAG = re.compile(r"\[([A-Za-z][A-Za-z0-9]*) (.+)\]")
_HEX64 = re.compile("[0-9a-f]{64}")


class TextError(LogError):
    """A text file that does not hold: its name, the line (counted from 1) and why, in one line."""

    def __init__(self, name: str, line: int | None, message: str) -> None:
        super().__init__(f"{name}: line {line}: {message}" if line is not None else f"{name}: {message}")
        self.name = name
        self.line = line
        self.detail = message


@dataclass(frozen=True, slots=True)
class Tag:
    """One tag: its value and the line it stands on."""

    value: Any
    line: int


@dataclass(frozen=True, slots=True)
class Kind:
    """What a tag's value must be: the words a refusal says it in, and the test of a value."""

    said: str
    holds: Callable[[Any], bool]


STRING = Kind("a string", lambda value: type(value) is str)
WHOLE = Kind("a whole number", lambda value: type(value) is int and value >= 0)
OBJECT = Kind("an object", lambda value: type(value) is dict)
HASH = Kind("a string of 64 hex digits (0-9a-f)", lambda value: type(value) is str and bool(_HEX64.fullmatch(value)))
STRINGS = Kind("a list of strings", lambda value: type(value) is list and all(type(item) is str for item in value))


def check_kind(name: str, key: str, tag: Tag, kind: Kind) -> None:
    """TextError at the tag's line unless its value is of ``kind``: null, 0, false, "" or [] where an object
    belongs, 1.0 where a whole number does, a number where a string does, is refused, never read as another."""
    if not kind.holds(tag.value):
        raise TextError(name, tag.line, f"{key} must be {kind.said}, found {shown(_spelt(tag.value))}")


def tag_line(name: str, value: Any) -> str:
    """``[Name value]``, the value as compact JSON (sorted keys: one spelling for one value)."""
    return f"[{name} {orjson.dumps(value, option=orjson.OPT_SORT_KEYS).decode()}]"


def read_text(path: str | Path) -> str:
    """A text file's content; TextError naming the file if it is missing, unreadable or not UTF-8."""
    try:
        raw = Path(path).read_bytes()
    except OSError as error:
        raise TextError(str(path), None, f"cannot read: {error.strerror or error}") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise TextError(str(path), line, "not UTF-8 text") from None


def lines(text: str) -> Iterator[tuple[int, str]]:
    """(number from 1, line) of ``text``: split at LF only (a JSON string may hold U+2028), a CR before it
    dropped; a last empty line (the file's final LF) is not a line."""
    parts = text.split("\n")
    if parts and parts[-1] == "":
        parts.pop()
    for number, line in enumerate(parts, start=1):
        yield number, line[:-1] if line.endswith("\r") else line


def after_first_line(text: str, name: str, first_line: str, what: str) -> Iterator[tuple[int, str]]:
    """The numbered lines of ``text`` after its first, which must be ``first_line`` (a file's format tag);
    TextError naming line 1 otherwise, saying the file is not ``what``."""
    numbered = lines(text)
    first = next(numbered, (1, ""))
    if first[1] != first_line:
        raise TextError(name, 1, f"not {what}: expected {first_line} first, found {shown(first[1])}")
    return numbered


def check_version(name: str, tag: Tag, supported: int, what: str) -> None:
    """A format's version tag: TextError at its line unless it is ``supported``, saying to upgrade for a newer one."""
    value = tag.value
    if type(value) is int and value == supported:  # not 1.0, not true: a version is a whole number
        return
    if type(value) is int and value > supported:
        raise TextError(name, tag.line, f"{what} format version {value} is newer than this tourney reads "
                        f"({supported}); upgrade tourney")
    raise TextError(name, tag.line, f"unknown {what} format version {shown(_spelt(value))}")


def is_tag(line: str) -> bool:
    return line.startswith("[")


def parse_tag(name: str, number: int, line: str, tags: dict[str, Tag]) -> None:
    """Add the tag on ``line`` to ``tags``; TextError if the line is not ``[Name value]`` or names a tag twice."""
    match = _TAG.fullmatch(line)
    if match is None:
        raise TextError(name, number, f"expected a tag [Name value], found {shown(line)}")
    key, text = match.groups()
    if key in tags:
        raise TextError(name, number, f"tag {key} again (first on line {tags[key].line})")
    try:
        orjson.loads(text)
    except orjson.JSONDecodeError:
        raise TextError(name, number, f"the value of {key} is not one JSON value: {shown(text)}") from None
    try:  # a key twice in an object of the value is refused, as in a JSON log
        value = loads_strictly(text, f"the value of {key}", written=False)
    except LogError as error:
        raise TextError(name, number, str(error)) from None
    tags[key] = Tag(value, number)


def shown(text: str, limit: int = 60) -> str:
    """A piece of a line for a message: quoted, escaped (no control character reaches a terminal), cut."""
    quoted = repr(text)
    return quoted if len(quoted) <= limit else quoted[: limit - 1] + "…"


def _spelt(value: Any) -> str:
    """A tag's value as its line spells it, compact JSON (json, not orjson: an integer past 64 bits too)."""
    return json.dumps(value, separators=(",", ":"))
