"""Tails on Fire: the rules: the order of play, what happens without a decision, and refusals.

The phases of a game, the order of picks (TOF-14), the turn order of the Hunt with the Rogue's
place in it (TOF-8), and the automatic steps that follow a seat's decision until the next seat
must decide: the Hunt's start, the Rogue's scripted turns, the turns of seats that hold no chosen
opossum (TOF-11), the rising starting number (TOF-5, TOF-12), wins and steals (TOF-7),
stalemates (TOF-6) and the end of a round. They are appended to the events of the
decision that leads to them, so none of them is a turn under the move cap (TOF-9).

The functions read a state (engines/tails_on_fire/state.py): its fields by name, or (where a decision's
follow-up reads many of them) all at once by unpacking, in the order that module asserts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.base import Event, IllegalAction, chain_of
from engines.tails_on_fire.cards import (
    ACTIONS,
    ANNOUNCE,
    CARD_NAME,
    CHOOSE,
    FOLLOW,
    HOME,
    PICK,
    PLAY,
    ROGUE,
    ROUND_OVER,
    SEAT_BITS,
    START,
    STARTING_NUMBERS,
    TRICKSTER,
)
from engines.tails_on_fire.cards import ALL_OPOSSUMS as SEAT_MASK
from engines.tails_on_fire.state import State, seat_bits, unknown


def _turn_order(seats: int, rogue: bool, leader: int) -> tuple[int, ...]:
    """Who follows each actor (seats, then ROGUE) in a Hunt led by ``leader``.

    The Rogue sits directly before the first seat, so it acts last in each circle (TOF-8).
    """
    out = [leader] * 8
    for seat in range(seats):
        out[seat] = (seat + 1) % seats
    out[(leader - 1) % seats] = ROGUE if rogue else leader
    out[ROGUE] = leader
    return tuple(out)


# NEXT[seats][rogue][leader][actor]: the actor after ``actor`` (a state keeps its round's row).
NEXT = tuple(
    tuple(tuple(_turn_order(seats, rogue, leader) for leader in range(seats)) for rogue in (False, True))
    for seats in range(7)
)


def first_picker(held: int, seats: int, after: int = -1) -> int:
    """The next seat after ``after`` with opossums to choose (in ``held``, packed per seat), or -1:
    seats pick in seat order (TOF-14)."""
    for seat in range(after + 1, seats):
        if held >> SEAT_BITS * seat & SEAT_MASK:
            return seat
    return -1


# The frequent automatic events, built once (events are immutable records; equal ones are shared).
RAISED_EVENTS = tuple(Event("starting_number_raised", {"number": n}) for n in range(10))
SKIPPED_EVENTS = tuple(Event("turn_skipped", {"seat": seat}) for seat in range(6))
HUNT_EVENTS = tuple(
    tuple(Event("hunt_started", {"leader": leader, "number": n}) for n in range(10)) for leader in range(6)
)
ROGUE_PLAYED = tuple(
    {source: Event("rogue_played", {"card": card, "from": source}) for source in ("reserve", "deck")}
    for card in range(10)
)
ROGUE_RESERVED = tuple(Event("rogue_reserved", {"card": card}) for card in range(10))
ROGUE_PASSED = Event("rogue_passed", {})


def follow_up(fold: Callable[[Any, Event], Any], state: Any, events: list[Event], flames) -> list[Event]:
    """Append to ``events`` what happens until a seat must decide or the game ends.

    ``state`` is the state after ``events``, ``fold`` the fold step and ``flames(state)``
    the seats' scores.
    """
    while True:
        table, offers, number, phase, _, discard, _, left, picker, turn, _ = state
        if START <= phase <= HOME:  # the Hunt
            if turn == ANNOUNCE:
                if offers >= STARTING_NUMBERS:
                    # TOF-6: nine numbers offered and none played: the top fire card leaves.
                    event = Event("stalemate", {"fire": table.iguana_top})
                else:
                    event = RAISED_EVENTS[FOLLOW[number]]
            elif phase == HOME and discard[-1][0] == turn:
                event = win(state)
            elif turn == ROGUE:
                event = rogue_turn(state)
            elif not left >> SEAT_BITS * turn & SEAT_MASK:
                event = SKIPPED_EVENTS[turn]  # TOF-4, TOF-11: no chosen opossum left
            else:
                return events
        elif phase == ROUND_OVER:
            event = round_end(state, flames)
        elif phase == CHOOSE and picker < 0:
            event = HUNT_EVENTS[table.leader][number]
        else:
            return events
        state = fold(state, event)
        events.append(event)


def chained_follow_up(folds: Mapping[str, Callable[[Any, Event], Any]], state: Any, event: Event, after: Any, flames):
    """follow_up after a decision's ``event`` (which leads from ``state`` to ``after``), folding with
    ``folds`` (the fold step per event type) and keeping every step: the events, and the first link
    of their chain (engines.base.chain_of). The engine's apply() hands the folded states back from it."""
    steps = [(state, event, after)]

    def keep(before: Any, step: Event) -> Any:
        folded = folds[step.type](before, step)
        steps.append((before, step, folded))
        return folded

    events = follow_up(keep, after, [event], flames)
    return events, chain_of(steps)


def common_follow_up(event: Event, after: Any) -> list[Event] | None:
    """The events of ``event`` and of the most frequent automatic steps after it, worked out from
    ``after`` (the state ``event`` leads to) without folding: the Hunt starts after the last pick,
    the starting number rises when the turn comes round to the first seat (TOF-5), a seat's card
    wins the round (TOF-7) and the next round is prepared. None when anything else follows
    (follow_up plays it out; the tests check that both agree)."""
    table, offers, number, phase, _, discard, _, left, _, turn, _ = after
    leader = table.leader
    leader_holds = left >> SEAT_BITS * leader & SEAT_MASK
    if phase == CHOOSE:
        if leader_holds:
            return [event, HUNT_EVENTS[leader][number]]
    elif turn == ANNOUNCE:
        if offers < STARTING_NUMBERS and leader_holds:
            return [event, RAISED_EVENTS[FOLLOW[number]]]
    elif phase == HOME and turn < ROGUE and discard[-1][0] == turn:
        size, iguana = table.iguana_size, table.iguana
        if size > 1 and iguana:
            return [event, win(after), prepared(table.round + 1, turn, iguana[1], size - 1)]
    return None


def rogue_turn(state: Any) -> Event:
    """TOF-8: the Rogue plays its reserve's top card if it can, else draws one card and plays it
    if it can, else puts it face up on the reserve; with no deck left it passes."""
    need = state.number if state.phase == START else FOLLOW[state.discard[-1][2]]
    table = state.table
    reserve = table.rogue_reserve
    if reserve and reserve[-1] == need:
        return ROGUE_PLAYED[need]["reserve"]
    if not table.rogue_deck_size:
        return ROGUE_PASSED
    card = table.rogue_deck[0]
    if card == need:
        return ROGUE_PLAYED[card]["deck"]
    return ROGUE_RESERVED[card]


def win(state: Any) -> Event:
    """The top card's owner wins the Iguana pile's top card and steals from every other seat's
    stack showing its number (TOF-7); the Rogue's winnings leave the game (TOF-8)."""
    owner, card, number = state.discard[-1]
    table = state.table
    stolen = [
        {"seat": seat, "card": stack.card, "fire": list(stack.fire)}
        for seat, stacks in enumerate(table.stacks)
        if seat != owner
        for stack in stacks
        if stack.number == number
    ]
    fire = table.iguana_top
    if owner == ROGUE:
        return Event("rogue_won", {"card": card, "number": number, "fire": fire, "stolen": stolen})
    if stolen:
        return Event("fire_won", {"seat": owner, "card": card, "number": number, "fire": fire, "stolen": stolen})
    key = (owner, card, number, fire)
    event = _UNCONTESTED.get(key)
    if event is None:
        data = {"seat": owner, "card": card, "number": number, "fire": fire, "stolen": []}
        event = _UNCONTESTED[key] = Event("fire_won", data)
    return event


def prepared(round_number: int, leader: int, top: int, size: int) -> Event:
    """The event preparing round ``round_number``, led by ``leader``, revealing the Iguana pile's
    new ``top`` card (of ``size``)."""
    key = (round_number, leader, top, size)
    event = _PREPARED.get(key)
    if event is None:
        iguana = {"top": top, "size": size}
        event = _PREPARED[key] = Event("round_prepared", {"round": round_number, "leader": leader, "iguana": iguana})
    return event


# Equal events are built once and shared (a few thousand at most: seats x cards x numbers x fire cards).
_UNCONTESTED: dict[tuple[int, int, int, int], Event] = {}
_PREPARED: dict[tuple[int, int, int, int], Event] = {}


def round_end(state: Any, flames) -> Event:
    """After a win or stalemate: the next round is prepared (its "prepare" step, with the
    Iguana pile's new top revealed), or the game ends when the pile is empty (TOF-9)."""
    table = state.table
    if not table.iguana_size:
        return Event("iguana_depleted", {"flames": flames(state)})
    # The round's end left the next first seat in ``turn`` (TOF-5, TOF-8, TOF-10).
    return prepared(table.round + 1, state.turn, table.iguana_top, table.iguana_size)


# --- refusals: why an action is refused, in a sentence a bot author understands -----------------
# The engine checks actions with a few bit operations; only when a check fails (or a seat's picks are
# unknown, TOF-18) does it ask these functions, which raise IllegalAction with the reason.


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
