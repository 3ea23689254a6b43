"""What every game's sentences share: seat names, counts, lists, ordinals.

The rulebooks have each player choose a colour, so the page calls seats by colour, in seat
order; past six seats (no game here has more) a seat is called by its number.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

SEAT_NAMES = ("Red", "Green", "Blue", "Yellow", "Purple", "Orange")
SEP = " · "
"""Between the parts of a summary line: "bonfire 3 · stacks none · 1 flame"."""


def seat_name(seat: Any) -> str:
    """"Red" for seat 0, "Green" for seat 1, ...; "seat 7" past the palette."""
    if type(seat) is int and 0 <= seat < len(SEAT_NAMES):
        return SEAT_NAMES[seat]
    return f"seat {seat}"


def count(number: int, thing: str, things: str | None = None) -> str:
    """"1 fire card", "2 fire cards"."""
    return f"{number} {thing if number == 1 else things or thing + 's'}"


def listing(items: Iterable[Any]) -> str:
    """"a", "a and b", "a, b and c"."""
    words = [str(item) for item in items]
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def ordinal(rank: int) -> str:
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank}{suffix}"


def per_seat(values: Sequence[Any], unit: str = "") -> str:
    """"Red 15, Green 5" (with ``unit`` after each value)."""
    return ", ".join(f"{seat_name(seat)} {value}{unit}" for seat, value in enumerate(values))


def show_value(value: Any) -> str:
    """A value with no words of its own, compact: lists in brackets, objects as key value pairs."""
    if isinstance(value, list):
        return "[" + " ".join(show_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} {show_value(v)}" for k, v in value.items()) + "}"
    return str(value)
