"""Tails on Fire: why an action is refused, in a sentence a bot author understands.

The engine checks actions with a few bit operations; only when a check fails (or a seat's
picks are unknown, TOF-18) does it ask this module for the reason it raises IllegalAction with.
"""

from __future__ import annotations

from typing import Any

from engines.tails_on_fire import CARD_NAME, PICK, PLAY, TRICKSTER, State, seat_bits, unknown
from engines.tails_on_fire_hunt import FOLLOW, START


def pick_refusal(state: State, seat: int, action: Any, kind: int, card: int) -> str | None:
    """Why ``seat`` may not pick ``action`` now, or None if it may (its picks are unknown)."""
    if kind != PICK:
        return (
            f"seat {seat} is choosing its opossums for the round: answer 'choose:N' (N 1-9) or "
            f"'choose:trickster', not {action!r}"
        )
    if not seat_bits(state.held, seat) >> card & 1:
        return f"seat {seat} cannot choose its {CARD_NAME[card]}: {_where(state, seat, card)}"
    chosen = seat_bits(state.chosen, seat)
    if not unknown(chosen) and chosen >> card & 1:
        return f"seat {seat} has already chosen its {CARD_NAME[card]} this round"
    return None


def play_refusal(state: State, seat: int, action: Any, kind: int, card: int) -> str:
    """Why ``seat`` may not answer ``action`` in the Hunt now."""
    if kind != PLAY:
        return f"seat {seat} is in the Hunt: answer 'pass', 'play:N' (N 1-9) or 'trickster', not {action!r}"
    name = CARD_NAME[card]
    held = seat_bits(state.held, seat)
    if not seat_bits(state.chosen, seat) & held >> card & 1:
        if held >> card & 1:
            return f"seat {seat} cannot play its {name}: it did not choose it this round"
        return f"seat {seat} cannot play its {name}: {_where(state, seat, card)}"
    if state.phase == START:
        if card == TRICKSTER:
            return f"seat {seat} cannot play its trickster as the starting number (TOF-5)"
        return f"seat {seat} cannot play {card}: the starting number is {state.number}"
    owner, _, number = state.discard[-1]
    if card == TRICKSTER:
        return f"seat {seat} cannot play its trickster on seat {owner}'s trickster (TOF-5)"
    need = FOLLOW[number]
    return f"seat {seat} cannot play {card}: the top card is {number}, so only {need} or a trickster may follow"


def _where(state: State, seat: int, card: int) -> str:
    """Why ``seat`` does not hold ``card`` (the end of a refusal)."""
    name, table = CARD_NAME[card], state.table
    if table.bonfire[seat] == card:
        return f"the {name} sits on its bonfire for the whole game (TOF-2)"
    if any(stack.card == card for stack in table.stacks[seat]):
        return f"its {name} tops one of its fire stacks"
    if seat_bits(table.exhausted, seat) >> card & 1:
        return f"its {name} is exhausted this round"
    return f"its {name} is already on the discard pile"
