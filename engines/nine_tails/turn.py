"""Nine Tails: the flow of a turn, which the fold keeps (fold.py): the next seat asked, the trick and
cancel windows opening and closing, the next turn starting. Worked out from the rules alone, so a
log holds only the facts.
"""

from __future__ import annotations

from typing import Any

from engines.nine_tails.cards import (
    MOVE_CAP,
    NINE,
    TAIL_VALUE,
)
from engines.nine_tails.state import (
    ACTION,
    ASCEND,
    CANCEL,
    CAP,
    CHOOSE,
    CHOSEN,
    OVER,
    RESHUFFLE,
    RESOLVING,
    STAGE_ACTION,
    STAGE_WINDOW,
    TARGET,
    TARGETED,
    TURN_FIELDS,
    TURN_START,
    WINDOW,
    Fox,
    State,
    cancel_asker,
    locate,
    next_holder,
    put,
    replace_fox,
    slot_mask,
    sort_hand,
)

# Positions of State's fields. The most frequent events (and the flow of a turn, ``finish``) set a state's
# fields on one list of them and make one tuple, rather than copy the state through ``_replace`` step by step.
INDEX = {name: position for position, name in enumerate(State._fields)}
NEW = tuple.__new__
AT_SEATS, AT_PHASE, AT_ACTIVE, AT_DECIDER, AT_TURNS, AT_FOXES, AT_HANDS, AT_PILE, AT_TRICKERY, AT_DISCARD = (
    INDEX[name]
    for name in ("seats", "phase", "active", "decider", "turns", "foxes", "hands", "pile", "trickery", "discard")
)
(AT_OWED, AT_ASCENDING, AT_WINNER, AT_STAGE, AT_SOURCE, AT_TRICK, AT_TRICK_SEAT, AT_TRICK_FOX, AT_PAYING, AT_CHOSEN,
 AT_DISCARDED) = (
    INDEX[name]
    for name in (
        "owed", "ascending", "winner", "stage", "source", "trick", "trick_seat", "trick_fox", "paying", "chosen",
        "discarded",
    )
)  # fmt: skip


# --- the flow of a turn ---------------------------------------------------------------------


def gain_tail(state: State, fox_card: str, card: str, slots: list[int], hint: int) -> State:
    seat, index, fox = locate(state, fox_card, hint)  # ``hint``: the seat giving the tail, the fox's own
    fox = fox._replace(spent=fox.spent | slot_mask(slots), tails=(*fox.tails, card), count=fox.count + TAIL_VALUE[card])
    # rulebook "Fox Ascension": exactly nine tails ascends at once
    ascending = fox.card if fox.count == NINE else state.ascending
    return finish(
        state, foxes=replace_fox(state.foxes, seat, index, fox), pile=state.pile - len(slots), held="", paying="",
        chosen="", ascending=ascending,
    )  # fmt: skip


def perform(state: State, fox_card: str, slots: list[int]) -> State:
    seat, index, fox = locate(state, fox_card, state.trick_seat)
    fox = NEW(Fox, (fox.card, fox.slots, fox.spent | slot_mask(slots), fox.studies, fox.tails, fox.count))
    values = [*state]
    values[AT_FOXES] = replace_fox(state.foxes, seat, index, fox)
    values[AT_PILE], values[AT_TRICK_FOX] = state.pile - len(slots), fox_card
    values[AT_PAYING], values[AT_CHOSEN] = "", ""
    asker = cancel_asker(state, state.trick_seat)  # reads the hands and the trick's player only
    if asker < 0:
        return begin_resolution(values)
    values[AT_PHASE], values[AT_DECIDER] = CANCEL, asker
    return NEW(State, values)


def begin_resolution(values: list[Any]) -> State:
    """The cancel window closed with no cancel: the trick's player resolves it (the state's fields are ``values``)."""
    trick = values[AT_TRICK]
    values[AT_DECIDER] = values[AT_TRICK_SEAT]
    if trick in CHOSEN:
        values[AT_PHASE], values[AT_SOURCE] = CHOOSE, trick
    elif trick in TARGETED:
        values[AT_PHASE] = TARGET
    else:  # RESOLVED_AT_ONCE: its effect's events follow at once
        values[AT_PHASE] = RESOLVING
    return NEW(State, values)


def finish(state: State, **changes: Any) -> State:
    """The current action or trick is done: pending draws and ascensions first, then what follows.

    ``changes`` (the event's own) are made first, in the same copy: one copy of the state in all.
    """
    return settle(changed(state, changes))


def settle(values: list[Any]) -> State:
    """``finish`` on the list of a state's fields ``values``."""
    if values[AT_WINNER] >= 0:
        values[AT_PHASE] = OVER
        return NEW(State, values)
    if values[AT_OWED]:
        if values[AT_DISCARD] and not values[AT_TRICKERY]:  # NT-8: refill from the discard pile
            values[AT_PHASE] = RESHUFFLE
            return NEW(State, values)
        values[AT_OWED] = 0  # NT-12: nothing left to draw
    if values[AT_ASCENDING]:
        values[AT_PHASE] = ASCEND
        return NEW(State, values)
    if values[AT_STAGE] == STAGE_ACTION:  # "Done": the trick window opens (NT-7)
        active = values[AT_ACTIVE]
        asker = next_holder(values[AT_SEATS], values[AT_HANDS], active, active)  # window_asker
        if asker >= 0:
            values[AT_STAGE], values[AT_PHASE], values[AT_DECIDER] = STAGE_WINDOW, WINDOW, asker
            return NEW(State, values)
        return next_turn(values)
    # STAGE_TRICK: the resolved trick goes to the discard pile, and the turn is over
    values[AT_DISCARD] = (*values[AT_DISCARD], values[AT_TRICK])
    return next_turn(values)


def end_turn(state: State, **changes: Any) -> State:
    """The turn is over: the next seat's turn (or the cap), with the event's ``changes`` made too."""
    return next_turn(changed(state, changes))


def changed(state: State, changes: dict[str, Any]) -> list[Any]:
    """The list of ``state``'s fields with ``changes`` (by field name) made, for ``settle`` or ``next_turn``."""
    values = [*state]
    for name, value in changes.items():
        values[INDEX[name]] = value
    return values


def next_turn(values: list[Any]) -> State:
    """The state whose fields are ``values`` at the end of a turn: the next seat's turn, or the cap."""
    values[TURN_FIELDS:] = TURN_START  # where the turn stands, afresh
    turns = values[AT_TURNS] = values[AT_TURNS] + 1
    if turns >= MOVE_CAP:  # NT-9, ALL-4: the same step records the cap (engines/nine_tails/engine.py _close)
        values[AT_PHASE], values[AT_DECIDER] = CAP, -1
    else:
        seat = (values[AT_ACTIVE] + 1) % values[AT_SEATS]
        values[AT_ACTIVE] = values[AT_DECIDER] = seat
        values[AT_PHASE] = ACTION
    return NEW(State, values)


def drawn(state: State, seat: int, count: int, private: Any) -> tuple[tuple, tuple]:
    """The Trickery Deck and the hands after ``seat`` draws ``count`` cards (unknown ones without ``private``)."""
    cards = tuple(private["cards"]) if private is not None else state.trickery[:count]
    if not cards:  # an empty deck (NT-8): the hands stay as they are, each sorted already
        return state.trickery[count:], state.hands
    return state.trickery[count:], put(state.hands, seat, sort_hand(state.hands[seat] + cards))


