"""Tiny Tails' RL encoding (adapters.games.register reads it): its actions, observation and bounds."""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.encoding import Block, Encoding, Field, relative

SEATS = 3
CARDS = 3 * SEATS + 3
MAX_CHANCE_OUTCOMES = CARDS
MAX_LENGTH = 100 * SEATS


def actions() -> list[str]:
    return [f"play:{card}" for card in range(1, CARDS + 1)]


SEAT: tuple[Field, ...] = (
    ("points", 1, "points / 3000"),
    ("played", CARDS, "the card it played this round, one-hot"),
    ("hand size", 1, "cards in hand / 3"),
)
LAYOUT: tuple[Field | Block, ...] = (
    ("seats", 2, "table size 2-3, one-hot"),
    ("round", 1, "rounds played / 100"),
    ("turn", SEATS, "the seat to play, relative, one-hot"),
    ("hand", CARDS, "own cards"),
    Block("seat", range(SEATS), SEAT),
)


def fill(e: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    seats, me = view["seats"], view["seat"]
    e.one_hot(out, "seats", seats - 2)
    e.scalar(out, "round", view["round"], 100)
    e.one_hot(out, "turn", relative(view["turn"], me, seats))
    e.counts(out, "hand", (card - 1 for card in view.get("hand") or ()))
    for seat in range(seats):
        slot = f"seat {relative(seat, me, seats)}"
        e.scalar(out, f"{slot} points", view["points"][seat], 3000)
        e.scalar(out, f"{slot} hand size", view["hand_sizes"][seat], 3)
    for played in view["played"]:
        e.one_hot(out, f"seat {relative(played['seat'], me, seats)} played", played["card"] - 1)
