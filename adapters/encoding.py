"""The machinery each game's encoding module (adapters/games/<game>.py) lays out: its action space and observation.

An ``Encoding`` is built from a game's layout (fields, and ``Block``s of fields repeated per seat,
tail or card) and its fill function, which writes a view into the vector with the writers here
(``one_hot``, ``scalar``, ``counts``) and ``relative`` seats; adapters/observations.py says what
the vectors are for and lists every game's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

Segment = tuple[str, int, int, str]
"""(name, first index, size, what it holds)."""
Field = tuple[str, int, str]
"""(name, size, what it holds): one segment of a layout, or one field of a block."""


@dataclass(frozen=True, slots=True)
class Block:
    """Fields repeated once per member (a relative seat, a tail, a fox card): segments "<kind> <member> <field>"."""

    kind: str
    members: Sequence[Any]
    fields: tuple[Field, ...]


class Encoding:
    """A game's observation layout (segments laid out from fields and blocks) and how to fill it from a view."""

    def __init__(self, game: str, layout: Sequence[Field | Block],
                 fill: Callable[[Encoding, np.ndarray, dict[str, Any]], None]) -> None:
        self.game = game
        self.segments: list[Segment] = []
        self.at: dict[str, int] = {}
        self.size = 0
        self._fill = fill
        for entry in layout:
            if isinstance(entry, Block):
                for member in entry.members:
                    for name, size, meaning in entry.fields:
                        self.add(f"{entry.kind} {member} {name}", size, meaning)
            else:
                self.add(*entry)

    def add(self, name: str, size: int, meaning: str) -> None:
        self.segments.append((name, self.size, size, meaning))
        self.at[name] = self.size
        self.size += size

    def encode(self, view: dict[str, Any]) -> np.ndarray:
        """The vector of ``view`` (a seat's view of this game)."""
        out = np.zeros(self.size, np.float32)
        self._fill(self, out, view)
        np.clip(out, 0.0, 1.0, out=out)
        return out

    # Writers used by the fill functions.
    def one_hot(self, out: np.ndarray, name: str, index: int | None) -> None:
        if index is not None and index >= 0:
            out[self.at[name] + index] = 1.0

    def scalar(self, out: np.ndarray, name: str, value: float, bound: float) -> None:
        out[self.at[name]] = value / bound

    def counts(self, out: np.ndarray, name: str, indices, bound: float = 1.0) -> None:
        base = self.at[name]
        for index in indices:
            out[base + index] += 1.0 / bound


def relative(seat: int | None, observer: int | None, seats: int) -> int | None:
    """``seat``'s slot as ``observer`` sees the table: 0 itself, 1 the next seat clockwise, ..."""
    if seat is None or not isinstance(seat, int) or seat < 0:
        return None
    return (seat - (observer or 0)) % seats


class ActionSpace:
    """A game's action strings in a fixed order: ``names[i]`` is action i, ``index[name]`` its number."""

    def __init__(self, game: str, names: Sequence[str]) -> None:
        self.game = game
        self.names = tuple(names)
        self.index = {name: i for i, name in enumerate(self.names)}
        if len(self.index) != len(self.names):
            raise ValueError(f"{game}: an action is listed twice")

    def __len__(self) -> int:
        return len(self.names)

    def indices(self, legal: Iterable[str]) -> list[int]:
        """The indices of ``legal`` (KeyError names an action this space does not list)."""
        index = self.index
        try:
            return [index[action] for action in legal]
        except KeyError as missing:
            raise KeyError(f"{self.game}: action {missing.args[0]!r} has no index") from None
