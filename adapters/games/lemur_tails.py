"""Lemur Tails's RL encoding: every action string by index, the observation vector of a view, the bounds
OpenSpiel asks for (docs/rl.md). adapters.games registers it under "lemur-tails".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.encoding import Block, Encoding, Field
from engines.lemur_tails.cards import KIND_NAMES, KIND_OF_NAME, TAIL_CARDS, TAILS

GAME = "lemur-tails"
MAX_CHANCE_OUTCOMES = TAIL_CARDS
"""The most outcomes one chance node has: the largest deck it shuffles (or a hand it draws from)."""
MAX_LENGTH = 400 * 100
"""A bound on decisions per game: the move cap (ALL-4) times the most decisions a turn may take."""


def exchange_color(tail: int, position: int) -> int:
    """The colour of the card at ``position`` of tail ``tail`` (0 white, 1 black): colours alternate from the
    one opposite the start card's ring (LT-2), so an exchange there takes a numbered card of that colour."""
    return (1 - (tail & 1)) ^ (position & 1)


def actions() -> list[str]:
    """Plays, places, keep, exchanges (tail, position up to the 88 tail cards, number), Sun lemurs, discards,
    draw, end."""
    return [
        *(f"play:{kind}:{tail}" for kind in KIND_NAMES for tail in TAILS),
        *(f"place:{tail}" for tail in TAILS), "keep",
        *(f"exchange:{TAILS[tail]}:{position}:{KIND_NAMES[exchange_color(tail, position) * 11 + number]}"
          for tail in range(len(TAILS)) for position in range(TAIL_CARDS) for number in range(10)),
        *(f"lemur:market:{kind}" for kind in KIND_NAMES), *(f"lemur:tail:{tail}" for tail in TAILS),
        "lemur:blind", "lemur:swap",
        *(f"discard:{kind}" for kind in KIND_NAMES), "draw", "end",
    ]  # fmt: skip



LT_PHASES = ("play", "taken", "swap", "pass", "chance", "over")
LT_TAIL: tuple[Field, ...] = (
    ("length", 1, "tail cards / 40"),
    ("last", len(KIND_NAMES), "the last card's kind, one-hot (none: only the start card)"),
    ("anchor", 10, "the number the next card must fit, one-hot (none: any number)"),
    ("jokers", 1, "jokers in it / 8"),
)
LAYOUT: tuple[Field | Block, ...] = (
    ("phase", len(LT_PHASES), "one-hot: " + ", ".join(LT_PHASES)),
    ("my turn", 1, "1 when it is the observer's turn"),
    Block("tail", range(4), LT_TAIL),
    ("hand", len(KIND_NAMES), "own hand, copies per kind / 4 (kinds W0-W9, WJ, B0-B9, BJ)"),
    ("market", len(KIND_NAMES), "the market, copies per kind / 4"),
    ("discard pile", len(KIND_NAMES), "the discard pile, copies per kind / 4"),
    ("hand sizes", 2, "cards in hand, observer then opponent / 16"),
    ("sun lemurs", 4, "present and empty Sun lemurs, observer then opponent / 10"),
    ("sun lemurs aside", 1, "Sun lemurs still set aside / 8"),
    ("deck size", 1, "cards in the deck / 64"),
    ("end card drawn", 1, "1 once the End card came up"),
    ("game ending", 1, "1 when this round is the last"),
    ("turns played", 2, "completed turns, observer then opponent / 200"),
    ("added this turn", 1, "tail cards added this turn / 10"),
    ("series tail", 4, "the own tail of the current series, relative, one-hot"),
    ("series length", 1, "cards in the current series / 10"),
    ("discards made", 1, "cards discarded in this swap or pass / 3"),
    ("taken", len(KIND_NAMES), "the card a Sun lemur just brought, one-hot"),
)


def _lt_tails(me: int | None) -> list[str]:
    """The tails in relative order: the observer's white-ring and black-ring tails, then the opponent's."""
    first = me or 0
    return [TAILS[2 * first], TAILS[2 * first + 1], TAILS[2 * (1 - first)], TAILS[2 * (1 - first) + 1]]


def fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    me = view["seat"] or 0
    e = encoding
    e.one_hot(out, "phase", LT_PHASES.index(view["phase"]))
    out[e.at["my turn"]] = float(view["turn"] == me)
    tails = view["tails"]
    order = _lt_tails(me)
    for slot, name in enumerate(order):
        cards = tails[name]
        e.scalar(out, f"tail {slot} length", len(cards), 40)
        if cards:
            e.one_hot(out, f"tail {slot} last", KIND_OF_NAME[cards[-1]])
        numbers = [card for card in cards if card[1] != "J"]
        anchor_card = cards[-1] if cards and cards[-1][1] != "J" else (cards[-2] if len(cards) > 1 else None)
        if anchor_card is not None:
            e.one_hot(out, f"tail {slot} anchor", int(anchor_card[1]))
        e.scalar(out, f"tail {slot} jokers", len(cards) - len(numbers), 8)
    e.counts(out, "hand", (KIND_OF_NAME[card] for card in view.get("hand") or ()), 4)
    e.counts(out, "market", (KIND_OF_NAME[card] for card in view["market"]), 4)
    e.counts(out, "discard pile", (KIND_OF_NAME[card] for card in view["discard_pile"]), 4)
    other = 1 - me
    base = e.at["hand sizes"]
    out[base], out[base + 1] = view["hand_sizes"][me] / 16, view["hand_sizes"][other] / 16
    base = e.at["sun lemurs"]
    lemurs = view["sun_lemurs"]
    out[base:base + 4] = (lemurs[me]["present"] / 10, lemurs[me]["empty"] / 10, lemurs[other]["present"] / 10,
                          lemurs[other]["empty"] / 10)
    e.scalar(out, "sun lemurs aside", view["sun_lemurs_aside"], 8)
    e.scalar(out, "deck size", view["deck_size"], 64)
    out[e.at["end card drawn"]] = float(view["end_card_drawn"])
    out[e.at["game ending"]] = float(view["game_ending"])
    base = e.at["turns played"]
    out[base], out[base + 1] = view["turns_played"][me] / 200, view["turns_played"][other] / 200
    e.scalar(out, "added this turn", view["added_this_turn"], 10)
    series = view["series"]
    if series["tail"] is not None:
        e.one_hot(out, "series tail", order.index(series["tail"]))
    e.scalar(out, "series length", series["length"], 10)
    e.scalar(out, "discards made", view["discards_made"], 3)
    if view["taken"]:
        e.one_hot(out, "taken", KIND_OF_NAME[view["taken"]])
