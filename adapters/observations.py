"""Fixed-size observation encodings of a seat's view, one per game (docs/rl.md lists every segment).

A learning library wants each observation as a vector of one fixed size; the games give a seat a
JSON-able view (``engine.view(state, seat)``). ``Encoding`` turns a view into a float32 vector
with values in [0, 1]: one-hot fields, masks of cards, and counts divided by a bound (clipped at
1). Seats are *relative* to the observer (slot 0 is the observer, slot 1 the next seat clockwise,
...), so one policy can play any seat, and tables are padded to the game's largest, so one
policy can play any table size. Only the view is read: an encoding never holds more than the
seat may know.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters import games
from adapters.encoding import Block, Encoding, Field, Segment, relative

ENCODINGS = games.ENCODINGS
"""The observation encoding of each game (each game's layout and fill are in its module under adapters/games/)."""


def segments(game: str) -> Sequence[Segment]:
    """The named segments of a game's observation vector, in order (docs/rl.md prints them)."""
    return ENCODINGS[game].segments


BLOCKS = {"player": "relative seat", "seat": "relative seat",
          "tail": "tail (own white-ring, own black-ring, the opponent's two)",
          "fox": "fox card (starting foxes, then wild foxes, in cards.py's order)"}
"""Segments repeated once per seat, tail or fox card: named "<kind> <member> <field>"."""


def markdown(game: str) -> str:
    """The layout of a game's vector as the table docs/rl.md shows (a test keeps the two the same).

    A block repeated per seat, tail or fox card is shown once, with offsets within the block.
    """
    encoding = ENCODINGS[game]
    lines = [f"{game}: {encoding.size} floats", "", "| index | size | segment | holds |", "|---|---|---|---|"]
    blocks: dict[str, tuple[str, int]] = {}  # kind -> (its first member, where its first block starts)
    for name, at, size, meaning in encoding.segments:
        kind, _, rest = name.partition(" ")
        member, _, field = rest.partition(" ")
        if kind not in BLOCKS or not field:
            lines.append(f"| {at} | {size} | `{name}` | {meaning} |")
            continue
        if kind not in blocks:
            blocks[kind] = (member, at)
            members = list(dict.fromkeys(n.split(" ")[1] for n, *_ in encoding.segments if n.startswith(kind + " ")))
            width = sum(z for n, _, z, _ in encoding.segments if n.split(" ")[:2] == [kind, member])
            lines.append(f"| {at} | {len(members)} x {width} | **per {BLOCKS[kind]}**: block k starts at {at} + "
                         f"{width} k | the rows below, offsets within the block |")
        first, start = blocks[kind]
        if member == first:
            lines.append(f"| +{at - start} | {size} | `{field}` | {meaning} |")
    return "\n".join(lines)

__all__ = ["BLOCKS", "ENCODINGS", "Block", "Encoding", "Field", "Segment", "markdown", "relative", "segments"]
