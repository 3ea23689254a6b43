"""Tails on Fire's RL encoding: every action string by index, the observation vector of a view, the bounds
OpenSpiel asks for (docs/rl.md). adapters.games registers it under "tails-on-fire".
"""

from __future__ import annotations

from typing import Any

import numpy as np

from adapters.encoding import Block, Encoding, Field, relative
from engines.tails_on_fire.cards import CHOOSE_ACTION, PLAY_ACTION

GAME = "tails-on-fire"
MAX_CHANCE_OUTCOMES = 9
"""The most outcomes one chance node has: the largest deck it shuffles (or a hand it draws from)."""
MAX_LENGTH = 2_000
"""A bound on decisions per game: the move cap (ALL-4) times the most decisions a turn may take."""


def actions() -> list[str]:
    """0 choose:trickster, 1-9 choose:1..9, 10 pass, 11-19 play:1..9, 20 trickster."""
    return [*CHOOSE_ACTION, "pass", *PLAY_ACTION[1:], PLAY_ACTION[0]]



TOF_SEATS = 6
TOF_PHASES = ("setup", "shuffle", "choose", "hunt", "round over", "over")
TOF_PLAYER: tuple[Field, ...] = (
    ("seated", 1, "1 when this relative seat is at the table"),
    ("bonfire", 10, "its bonfire opossum, one-hot"),
    ("stack numbers", 9, "numbers 1-9 its fire stacks show"),
    ("fire cards", 9, "fire cards 1-9 in its stacks"),
    ("flames", 1, "its flames / 20"),
    ("exhausted", 10, "its exhausted opossums"),
    ("hand size", 1, "unchosen cards in hand / 10"),
    ("chosen size", 1, "chosen cards still in hand / 3"),
    ("to choose", 1, "picks still to make / 3"),
)
LAYOUT: tuple[Field | Block, ...] = (
    ("seats", 5, "table size 2-6, one-hot"),
    ("phase", len(TOF_PHASES), "one-hot: " + ", ".join(TOF_PHASES)),
    ("round", 1, "round / 10"),
    ("leader", TOF_SEATS, "the round's first seat, relative, one-hot"),
    ("turn", TOF_SEATS + 1, "the seat to act, relative, one-hot; the last slot: the Rogue"),
    ("starting number", 10, "one-hot 0-9 (0: none)"),
    ("numbers offered", 1, "starting numbers offered this Hunt / 9"),
    ("iguana top", 10, "the Iguana pile's top fire card, one-hot 0-9 (0: empty)"),
    ("iguana size", 1, "cards in the Iguana pile / 9"),
    ("boxed", 9, "fire cards 1-9 out of the game"),
    ("discard owner", TOF_SEATS + 1, "the top card's owner, relative, one-hot; the last slot: the Rogue"),
    ("discard number", 10, "the number the top card shows, one-hot"),
    ("discard size", 1, "cards on the discard pile / 30"),
    ("rogue", 1, "1 when the Rogue plays"),
    ("rogue deck size", 1, "rogue deck / 9"),
    ("rogue reserve", 9, "rogue cards 1-9 in the reserve"),
    ("rogue reserve top", 10, "the reserve's top card, one-hot"),
    Block("player", range(TOF_SEATS), TOF_PLAYER),
    ("hand", 10, "own unchosen opossums (0 = trickster)"),
    ("chosen", 10, "own chosen opossums still in hand"),
    ("turns", 1, "decisions so far / 2000"),
)


def fill(encoding: Encoding, out: np.ndarray, view: dict[str, Any]) -> None:
    seats, me = view["seats"], view["seat"]
    e = encoding
    e.one_hot(out, "seats", seats - 2)
    e.one_hot(out, "phase", TOF_PHASES.index(view["phase"]))
    e.scalar(out, "round", view["round"], 10)
    e.one_hot(out, "leader", relative(view["leader"], me, seats))
    turn = view["turn"]
    e.one_hot(out, "turn", TOF_SEATS if turn == "rogue" else relative(turn, me, seats))
    e.one_hot(out, "starting number", view["starting_number"])
    e.scalar(out, "numbers offered", view["numbers_offered"], 9)
    e.one_hot(out, "iguana top", view["iguana"]["top"])
    e.scalar(out, "iguana size", view["iguana"]["size"], 9)
    e.counts(out, "boxed", (card - 1 for card in view["boxed"]))
    discard = view["discard"]
    if discard:
        top = discard[-1]
        e.one_hot(out, "discard owner", TOF_SEATS if top["owner"] == "rogue" else relative(top["owner"], me, seats))
        e.one_hot(out, "discard number", top["number"])
    e.scalar(out, "discard size", len(discard), 30)
    rogue = view["rogue"]
    if rogue is not None:
        out[e.at["rogue"]] = 1.0
        e.scalar(out, "rogue deck size", rogue["deck_size"], 9)
        e.counts(out, "rogue reserve", (card - 1 for card in rogue["reserve"]))
        if rogue["reserve"]:
            e.one_hot(out, "rogue reserve top", rogue["reserve"][-1])
    for seat, player in enumerate(view["players"]):
        slot = f"player {relative(seat, me, seats)}"
        out[e.at[f"{slot} seated"]] = 1.0
        e.one_hot(out, f"{slot} bonfire", player["bonfire"])
        e.counts(out, f"{slot} stack numbers", (stack["number"] - 1 for stack in player["stacks"]))
        e.counts(out, f"{slot} fire cards", (fire - 1 for stack in player["stacks"] for fire in stack["fire"]))
        e.scalar(out, f"{slot} flames", player["flames"], 20)
        e.counts(out, f"{slot} exhausted", player["exhausted"])
        e.scalar(out, f"{slot} hand size", player["hand_size"], 10)
        e.scalar(out, f"{slot} chosen size", player["chosen_size"], 3)
        e.scalar(out, f"{slot} to choose", player["to_choose"], 3)
    e.counts(out, "hand", view.get("hand") or ())
    e.counts(out, "chosen", view.get("chosen") or ())
    e.scalar(out, "turns", view["turns"], 2000)
