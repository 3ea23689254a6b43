"""Tails on Fire: why an action is refused, in a sentence a bot author understands.

The engine checks actions with a few bit operations; only when a check fails (or a seat's
picks are unknown, TOF-18) does it ask this module, which raises IllegalAction with the reason.
"""

from __future__ import annotations

from typing import Any

from engines.base import IllegalAction
from engines.tails_on_fire.state import (
    ACTIONS,
    CARD_NAME,
    FOLLOW,
    PICK,
    PLAY,
    START,
    TRICKSTER,
    State,
    seat_bits,
    unknown,
)


def check_pick(state: State, seat: int, action: Any) -> None:
    """Raise IllegalAction (with the reason) unless ``seat`` may pick ``action`` all the same: its
    picks are unknown (TOF-18) and it holds the card."""
    refusal = pick_refusal(state, seat, action, *_kind_and_card(action))
    if refusal is not None:
        raise IllegalAction(refusal)


def refuse_play(state: State, seat: int, action: Any) -> None:
    """Raise IllegalAction: ``seat`` may not answer ``action`` in the Hunt now (the reason says why)."""
    raise IllegalAction(play_refusal(state, seat, action, *_kind_and_card(action)))


def _kind_and_card(action: Any) -> tuple[int, int]:
    try:
        return ACTIONS[action]
    except (KeyError, TypeError):
        return -1, -1


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
