"""Tails on Fire: what a seat (or a spectator) may know of a table.

Public: the bonfires, fire stacks (top opossum, number shown, fire cards, flames),
exhausted opossums, the discard pile, the Iguana pile's top card and size, the starting
number, whose turn it is, how many opossums each seat holds and has chosen, the Rogue's
reserve and deck size. A seat also sees its own hand and chosen opossums. Never another
seat's cards in hand, the rogue deck's order, or the Iguana pile beneath its top.
"""

from __future__ import annotations

from typing import Any

from engines.tails_on_fire.cards import (
    ANNOUNCE,
    CARDS_OF,
    CHOOSE,
    FLAMES,
    HOME,
    MOVE_CAP,
    NEED_PICKS,
    PHASE_NAMES,
    POPCOUNT,
    ROGUE,
    START,
)
from engines.tails_on_fire.state import State, flames, seat_bits, unknown


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The table as ``seat`` (None: a spectator) sees it; JSON-able, cards as ints (0 = trickster)."""
    table, phase = state.table, state.phase
    turn: int | str | None = None
    if phase == CHOOSE:
        turn = state.picker
    elif START <= phase <= HOME:
        turn = "rogue" if state.turn == ROGUE else (table.leader if state.turn == ANNOUNCE else state.turn)
    score = flames(state)
    players = []
    for other in range(table.seats):
        held, left = seat_bits(state.held, other), seat_bits(state.left, other)
        players.append({
            "bonfire": table.bonfire[other],
            "stacks": [
                {"card": stack.card, "number": stack.number, "fire": list(stack.fire),
                 "flames": sum(FLAMES[fire] for fire in stack.fire)}
                for stack in table.stacks[other]
            ],
            "exhausted": list(CARDS_OF[seat_bits(table.exhausted, other)]),
            "hand_size": POPCOUNT[held] - left,
            "chosen_size": left,
            "to_choose": NEED_PICKS[held] - left if phase == CHOOSE else 0,
            "flames": score[other],
        })  # fmt: skip
    out: dict[str, Any] = {
        "seats": table.seats,
        "seat": seat,
        "phase": PHASE_NAMES[phase],
        "round": table.round,
        "turn": turn,
        "leader": table.leader,
        "starting_number": state.number,
        "numbers_offered": state.offers,
        "iguana": {"top": table.iguana_top, "size": table.iguana_size},
        "boxed": list(table.boxed),
        "players": players,
        "discard": [
            {"owner": "rogue" if owner == ROGUE else owner, "card": card, "number": number}
            for owner, card, number in state.discard
        ],
        "rogue": {"deck_size": table.rogue_deck_size, "reserve": list(table.rogue_reserve)} if table.rogue else None,
        "turns": state.turns,
        "move_cap": MOVE_CAP,
    }
    if seat is not None:
        held, chosen = seat_bits(state.held, seat), seat_bits(state.chosen, seat)
        if unknown(chosen):  # only after a redacted pick: the hand is known as a whole
            out["hand"], out["chosen"] = list(CARDS_OF[held]), None
        else:
            out["hand"], out["chosen"] = list(CARDS_OF[held & ~chosen]), list(CARDS_OF[chosen])
    return out
