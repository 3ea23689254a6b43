"""Nine Tails's RL encoding: every action string by index, the observation vector of a view, the bounds
OpenSpiel asks for (docs/rl.md). adapters.games registers it under "nine-tails".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.encoding import Block, Encoding, Field, relative
from engines.nine_tails.cards import STARTING_FOX_IDS, STUDY_IDS, TRICK_NAMES, WILD_FOX_IDS, WILDS_IDS

GAME = "nine-tails"
MAX_CHANCE_OUTCOMES = len(WILDS_IDS)
"""The most outcomes one chance node has: the largest deck it shuffles (or a hand it draws from)."""
MAX_LENGTH = 3_000 * 60
"""A bound on decisions per game: the move cap (ALL-4) times the most decisions a turn may take."""


MAX_FOX_SLOTS = 4 + 2 * len(STUDY_IDS)
"""A fox's trait slots at most: a starting fox's four, and two for each of the ten study cards."""


def actions() -> list[str]:
    """The turn's actions, cards to take, foxes, cost symbols, tricks, seats, studies and slots (docs/rl.md)."""
    return [
        "venture", "sneak", "rest",
        *(f"take:{card}" for card in WILDS_IDS), "none",
        *(f"fox:{card}" for card in STARTING_FOX_IDS + WILD_FOX_IDS),
        *(f"pay:{symbol}" for symbol in "ACGSQ*"),
        *(f"discard:{trick}" for trick in TRICK_NAMES), "stop",
        "decline", *(f"trick:{trick}" for trick in TRICK_NAMES), "waste", "cancel",
        *(f"seat:{seat}" for seat in range(5)),
        *(f"study:{card}" for card in STUDY_IDS),
        *(f"slot:{slot}" for slot in range(MAX_FOX_SLOTS)),
    ]  # fmt: skip



NT_SEATS = 5
NT_PHASES = ("action", "choose", "place", "pay", "discard", "trick window", "perform", "cancel window", "target",
             "befuddle", "setup", "reshuffle", "ascend", "pickpocket", "move cap", "resolving", "over")
NT_SOURCES = ("venture", "sneak", "windfall", "quick-paws", "lure")
NT_FOXES = STARTING_FOX_IDS + WILD_FOX_IDS
NT_SYMBOLS = "ACGSQ*"
NT_FOX: tuple[Field, ...] = (
    ("owner", NT_SEATS, "its seat, relative, one-hot (all 0: not in play)"),
    ("tails", 1, "tails / 9"),
    ("open slots", 1, "open trait slots / 24"),
    ("exhausted slots", 1, "slots with a counter / 24"),
    ("studies", 1, "tucked studies / 10"),
    ("open by symbol", len(NT_SYMBOLS), "open slots per symbol A C G S Q * / 8"),
)
NT_SEAT: tuple[Field, ...] = (
    ("ascended", 1, "foxes it helped ascend / 3"),
    ("ascended cards", 1, "Ascended Fox Cards it holds / 10"),
    ("hand size", 1, "trickery cards in hand / 10"),
)
LAYOUT: tuple[Field | Block, ...] = (
    ("seats", 4, "table size 2-5, one-hot"),
    ("fast", 1, "1 in the fast game (two ascended foxes win)"),
    ("phase", len(NT_PHASES), "one-hot: " + ", ".join(NT_PHASES)),
    ("active", NT_SEATS, "the seat whose turn it is, relative, one-hot"),
    ("decider", NT_SEATS, "the seat to decide, relative, one-hot"),
    ("turns", 1, "turns / 3000"),
    Block("fox", NT_FOXES, NT_FOX),
    Block("seat", range(NT_SEATS), NT_SEAT),
    ("ascended stack", 1, "Ascended Fox Cards left / 10"),
    ("pile", 1, "exhaustion counters in the pile / 40"),
    ("village", len(WILDS_IDS), "Wilds cards in the Village (cards.WILDS_IDS order)"),
    ("revealed", len(WILDS_IDS), "Wilds cards revealed and not yet resolved"),
    ("held", len(WILDS_IDS), "the study or tail being given to a fox, one-hot"),
    ("source", len(NT_SOURCES), "where the card to choose comes from, one-hot: " + ", ".join(NT_SOURCES)),
    ("decks", 3, "Starting Fox Deck / 10, Wilds Deck / 45, Trickery Deck / 30"),
    ("discard", len(TRICK_NAMES), "trickery discard pile, copies per trick / 3"),
    ("hand", len(TRICK_NAMES), "own trickery cards, copies per trick / 3"),
    ("trick", len(TRICK_NAMES), "the trick in play, one-hot"),
    ("trick seat", NT_SEATS, "its player, relative, one-hot"),
    ("trick fox", len(NT_FOXES), "the fox performing it, one-hot"),
    ("paying fox", len(NT_FOXES), "the fox choosing which part of a cost to pay, one-hot"),
    ("paying chosen", len(NT_SYMBOLS), "cost symbols chosen so far / 4"),
    ("befuddle fox", len(NT_FOXES), "the fox Befuddle aims at, one-hot"),
    ("befuddle left", 1, "counters it may still receive / 2"),
    ("winner", NT_SEATS, "the winner, relative, one-hot"),
)
_WILDS_INDEX = {card: i for i, card in enumerate(WILDS_IDS)}
_FOX_INDEX = {card: i for i, card in enumerate(NT_FOXES)}
_TRICK_INDEX = {trick: i for i, trick in enumerate(TRICK_NAMES)}


def fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    seats, me = view["seats"], view["seat"]
    e = encoding
    e.one_hot(out, "seats", seats - 2)
    out[e.at["fast"]] = float(view["goal"] == 2)
    e.one_hot(out, "phase", NT_PHASES.index(view["phase"]))
    e.one_hot(out, "active", relative(view["active"], me, seats))
    e.one_hot(out, "decider", relative(view["decider"], me, seats))
    e.scalar(out, "turns", view["turns"], 3000)
    for seat, foxes in enumerate(view["foxes"]):
        slot = relative(seat, me, seats)
        for fox in foxes:
            name = f"fox {fox['card']}"
            e.one_hot(out, f"{name} owner", slot)
            e.scalar(out, f"{name} tails", fox["tail_count"], 9)
            exhausted = fox["exhausted"]
            e.scalar(out, f"{name} open slots", exhausted.count(False), 24)
            e.scalar(out, f"{name} exhausted slots", exhausted.count(True), 24)
            e.scalar(out, f"{name} studies", len(fox["studies"]), 10)
            e.counts(out, f"{name} open by symbol",
                     (NT_SYMBOLS.index(trait) for trait, spent in zip(fox["slots"], exhausted, strict=True)
                      if not spent), 8)
    for seat in range(seats):
        slot = relative(seat, me, seats)
        e.scalar(out, f"seat {slot} ascended", view["ascended"][seat], 3)
        e.scalar(out, f"seat {slot} ascended cards", view["ascended_cards"][seat], 10)
        e.scalar(out, f"seat {slot} hand size", view["hand_sizes"][seat], 10)
    e.scalar(out, "ascended stack", view["ascended_stack"], 10)
    e.scalar(out, "pile", view["pile"], 40)
    e.counts(out, "village", (_WILDS_INDEX[card] for card in view["village"]))
    e.counts(out, "revealed", (_WILDS_INDEX[card] for card in view["revealed"]))
    if view["held"]:
        e.one_hot(out, "held", _WILDS_INDEX[view["held"]])
    if view["source"] in NT_SOURCES:
        e.one_hot(out, "source", NT_SOURCES.index(view["source"]))
    decks = view["decks"]
    base = e.at["decks"]
    out[base], out[base + 1], out[base + 2] = decks["starting"] / 10, decks["wilds"] / 45, decks["trickery"] / 30
    e.counts(out, "discard", (_TRICK_INDEX[trick] for trick in view["discard"]), 3)
    e.counts(out, "hand", (_TRICK_INDEX[trick] for trick in view.get("hand") or ()), 3)
    trick = view["trick"]
    if trick is not None:
        e.one_hot(out, "trick", _TRICK_INDEX[trick["name"]])
        e.one_hot(out, "trick seat", relative(trick["seat"], me, seats))
        if trick["fox"]:
            e.one_hot(out, "trick fox", _FOX_INDEX[trick["fox"]])
    paying = view["paying"]
    if paying is not None:
        e.one_hot(out, "paying fox", _FOX_INDEX[paying["fox"]])
        e.counts(out, "paying chosen", (NT_SYMBOLS.index(symbol) for symbol in paying["chosen"]), 4)
    befuddle = view["befuddle"]
    if befuddle is not None:
        e.one_hot(out, "befuddle fox", _FOX_INDEX[befuddle["fox"]])
        e.scalar(out, "befuddle left", befuddle["left"], 2)
    e.one_hot(out, "winner", relative(view["winner"], me, seats))
