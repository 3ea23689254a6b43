"""Nine Tails: what a seat (or a spectator) may see of the table; nothing hidden leaks."""

from __future__ import annotations

from typing import Any

from engines.nine_tails.cards import KIND, MOVE_CAP, ORDERED_COST
from engines.nine_tails.state import BEFUDDLE, CHANCE_PHASES, OVER, PAY, Fox, State


def view(state: State, seat: int | None) -> dict[str, Any]:
    """What ``seat`` (None: a spectator) may know: everything public, and its own hand."""
    asked = state.phase not in CHANCE_PHASES and state.phase != OVER
    out: dict[str, Any] = {
        "seat": seat,
        "seats": state.seats,
        "goal": state.goal,
        "phase": state.phase,
        "active": state.active,
        "decider": state.decider if asked else None,
        "turns": state.turns,
        "move_cap": MOVE_CAP,
        "foxes": [[_fox_view(fox) for fox in foxes] for foxes in state.foxes],
        "ascended": list(state.ascended),
        "ascended_cards": list(state.ascended_cards),
        "ascended_stack": state.stack,
        "pile": state.pile,
        "village": list(state.village),
        "revealed": list(state.revealed),
        "held": state.held or None,
        "source": state.source or None,
        "decks": {"starting": len(state.starting), "wilds": len(state.wilds), "trickery": len(state.trickery)},
        "discard": list(state.discard),
        "hand_sizes": [len(hand) for hand in state.hands],
        "trick": None,
        "paying": None,
        "befuddle": None,
        "winner": state.winner if state.winner >= 0 else None,
        "capped": state.capped,
    }
    if state.trick:
        out["trick"] = {"name": state.trick, "seat": state.trick_seat, "fox": state.trick_fox or None}
    if state.phase == PAY:
        cost = ORDERED_COST[state.held or state.trick]
        out["paying"] = {"fox": state.paying, "cost": cost, "chosen": state.chosen}
    if state.phase == BEFUDDLE:
        out["befuddle"] = {"fox": state.target, "left": state.left}
    if seat is not None:
        out["hand"] = list(state.hands[seat])
    return out


def _fox_view(fox: Fox) -> dict[str, Any]:
    return {
        "card": fox.card,
        "kind": KIND[fox.card],
        "slots": fox.slots,
        "exhausted": [bool(fox.spent >> i & 1) for i in range(len(fox.slots))],
        "studies": list(fox.studies),
        "tails": list(fox.tails),
        "tail_count": fox.count,
    }
