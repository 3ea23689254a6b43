"""Tails on Fire: the fold (``FOLD``), one function per event type.

Each function builds the next state from the last one and an event, by position (as
``_replace`` would, at a fraction of its cost; engines/tails_on_fire/engine.py asserts the field
order). ``decide`` in engines/tails_on_fire/engine.py works out its own events' folds inline and
hands those states to ``apply``; this table folds everything else (chance events, the
automatic steps played out one by one, and any log folded from the start).
"""

# ruff: noqa: RUF005 -- the hot folds build tuples by concatenation, faster here than unpacking

from __future__ import annotations

from typing import Any

from engines.base import Event
from engines.tails_on_fire.cards import (
    ALL_OPOSSUMS,
    ANNOUNCE,
    BONFIRES,
    CHOOSE,
    FIRE_CARDS,
    HOME,
    IGUANA,
    NEED_PICKS,
    NUMBERS,
    OVER,
    PACKED_ALL,
    ROGUE,
    ROUND_OVER,
    SEAT_BITS,
    SHUFFLE,
    START,
)
from engines.tails_on_fire.rules import NEXT, first_picker
from engines.tails_on_fire.state import BOXED, KEPT, STACKS, Stack, State, Table, _new


def _after_pass(state: State, seat: int, counted: int) -> State:
    """``seat``'s turn is over without a card (``counted``: 1 if it was a decision)."""
    table = state[0]
    turn = table.order[seat]
    if turn == table.leader and state[3] == START:
        turn = ANNOUNCE  # TOF-5: round to the first seat again: the starting number rises first
    return _new(State, state[:9] + (turn, state[10] + counted))


def _table_laid(state: Any, event: Event) -> State:
    n, rogue = event.data["seats"], event.data["rogue"]
    zeros = (0,) * n
    table = Table(
        seats=n, rogue=rogue, round=1, leader=0, order=NEXT[n][rogue][0], bonfire=zeros, kept=0, exhausted=0,
        stacks=((),) * n, iguana=None, iguana_top=0, iguana_size=len(FIRE_CARDS), rogue_deck=None,
        rogue_deck_size=0, rogue_reserve=(), boxed=(),
    )  # fmt: skip
    return State(table, 0, 0, BONFIRES, 0, (), 0, 0, -1, 0, 0)


# The folds below build tuples by position (as _replace would, at a fraction of its cost; asserted above).


def _bonfires_lit(state: State, event: Event) -> State:
    bonfire = tuple(event.data["opossums"])
    kept = sum(1 << SEAT_BITS * seat + card for seat, card in enumerate(bonfire))
    table = _new(Table, state[0][:5] + (bonfire, kept) + state[0][7:])  # bonfire, kept
    return _new(State, (table,) + state[1:3] + (IGUANA, PACKED_ALL[table.seats] & ~kept) + state[5:])  # phase, held


def _iguana_shuffled(state: State, event: Event) -> State:
    order = tuple(event.private["order"]) if event.private is not None else None
    top, size = event.data["top"], event.data["size"]
    table = _new(Table, state[0][:9] + (order, top, size) + state[0][12:])  # iguana, iguana_top, iguana_size
    phase, picker = (SHUFFLE, state.picker) if table.rogue else (CHOOSE, first_picker(state.held, table.seats))
    return _new(State, (table, state[1], top, phase) + state[4:8] + (picker,) + state[9:])


def _rogue_shuffled(state: State, event: Event) -> State:
    order = tuple(event.private["order"]) if event.private is not None else None
    table = _new(Table, state[0][:12] + (order, event.data["size"]) + state[0][14:])  # rogue_deck, rogue_deck_size
    picker = first_picker(state.held, table.seats)
    return _new(State, (table,) + state[1:3] + (CHOOSE,) + state[4:8] + (picker,) + state[9:])  # phase, picker


def _opossum_chosen(state: State, event: Event) -> State:
    seat = event.data["seat"]
    # A redacted pick sets all of the seat's bits: its choice is unknown for the round.
    card = event.private["card"] if event.private is not None else None
    shift = SEAT_BITS * seat
    bits = (ALL_OPOSSUMS if card is None else 1 << card) << shift
    # The seat counts one more pick; when it has picked min(3, choosable), the next seat in seat
    # order picks, or (none left) the Hunt starts.
    left, held = state[7] + (1 << shift), state[4]
    picker = seat
    if left >> shift & ALL_OPOSSUMS == NEED_PICKS[held >> shift & ALL_OPOSSUMS]:
        picker = first_picker(held, state[0].seats, seat)
    return _new(State, state[:6] + (state[6] | bits, left, picker, state[9], state[10] + 1))


def _hunt_started(state: State, event: Event) -> State:
    data = event.data
    return _new(State, (state[0], 1, data["number"], START) + state[4:9] + (data["leader"], state[10]))


def _starting_number_raised(state: State, event: Event) -> State:
    return _new(State, (state[0], state[1] + 1, event.data["number"]) + state[3:9] + (state[0].leader, state[10]))


def _opossum_played(state: State, event: Event) -> State:
    data = event.data
    seat, card, number = data["seat"], data["card"], data["number"]  # ``card`` shows ``number``
    shift = SEAT_BITS * seat
    bit = 1 << shift + card
    left, chosen = state[7] - (1 << shift), state[6] & ~bit
    if not left >> shift & ALL_OPOSSUMS:
        chosen &= ~(ALL_OPOSSUMS << shift)  # none left: an unknown (redacted) choice is known empty too
    return _new(State, (
        state[0], state[1], state[2], HOME, state[4] & ~bit, state[5] + ((seat, card, number),), chosen, left,
        state[8], state[0].order[seat], state[10] + 1,
    ))  # fmt: skip


def _passed(state: State, event: Event) -> State:
    return _after_pass(state, event.data["seat"], 1)


def _turn_skipped(state: State, event: Event) -> State:
    return _after_pass(state, event.data["seat"], 0)


def _rogue_played(state: State, event: Event) -> State:
    card, table = event.data["card"], state[0]
    if event.data["from"] == "reserve":
        table = _new(Table, table[:14] + (table[14][:-1], table[15]))
    else:
        table = _rogue_draw(table, table[14])
    return _new(State, (table, state[1], state[2], HOME, state[4], state[5] + ((ROGUE, card, card),)) + state[6:9] + (
        table.order[ROGUE], state[10],
    ))  # fmt: skip


def _rogue_turn_over(state: State, event: Event) -> State:
    table = state[0]
    if event.type == "rogue_reserved":
        table = _rogue_draw(table, table[14] + (event.data["card"],))
    # The Rogue acts last in each circle (TOF-8): the first seat is next.
    turn = ANNOUNCE if state[3] == START else table.order[ROGUE]
    return _new(State, (table,) + state[1:9] + (turn, state[10]))


def _fire_won(state: State, event: Event) -> State:
    data = event.data
    winner, card, number = data["seat"], data["card"], data["number"]
    table = state[0]
    if data["stolen"]:
        stacks, kept, fires, held = _steal(state, data["stolen"], number, [data["fire"]])
    else:  # the usual win: nothing to steal
        stacks, kept, fires, held = list(table[STACKS]), table[KEPT], (data["fire"],), state[4]
    stacks[winner] += (_new(Stack, (card, number, tuple(fires))),)
    kept |= 1 << SEAT_BITS * winner + card
    # The winner starts the next round (TOF-5); ROUND_OVER keeps that seat in ``turn``.
    return _take_fire(state, tuple(stacks), kept, held, table[BOXED], state[5][:-1], winner)


def _rogue_won(state: State, event: Event) -> State:
    # TOF-8: the won fire card and every stolen fire card leave the game; the same seat starts again.
    table, data = state.table, event.data
    stacks, kept, fires, held = _steal(state, data["stolen"], data["number"], [data["fire"]])
    return _take_fire(state, tuple(stacks), kept, held, table.boxed + tuple(fires), state.discard, table.leader)


def _stalemate(state: State, event: Event) -> State:
    # TOF-6: the top fire card leaves the game; TOF-10: the same seat starts the next round.
    table = state.table
    boxed = (*table.boxed, event.data["fire"])
    return _take_fire(state, table.stacks, table.kept, state.held, boxed, state.discard, table.leader)


def _round_prepared(state: State, event: Event) -> State:
    # Prepare for next round: last round's exhausted cards come back, this round's discards
    # become exhausted, and everything else not on a bonfire or in a stack returns to hand.
    seats, rogue, _, _, _, bonfire, kept, _, stacks, iguana, _, _, _, _, _, boxed = state[0]
    exhausted = 0
    for owner, card, _ in state[5]:
        if owner != ROGUE:
            exhausted |= 1 << SEAT_BITS * owner + card
    data = event.data
    leader, pile = data["leader"], data["iguana"]
    top = pile["top"]
    held = PACKED_ALL[seats] & ~(kept | exhausted)
    table = _new(Table, (
        seats, rogue, data["round"], leader, NEXT[seats][rogue][leader], bonfire, kept, exhausted, stacks, iguana,
        top, pile["size"], None, len(NUMBERS) if rogue else 0, (), boxed,
    ))  # fmt: skip
    phase, picker = (SHUFFLE, -1) if rogue else (CHOOSE, first_picker(held, seats))
    return _new(State, (table, 0, top, phase, held, (), 0, 0, picker, leader, state[10]))


def _game_over(state: State, event: Event) -> State:
    return _new(State, state[:3] + (OVER,) + state[4:])


FOLD = {
    "table_laid": _table_laid,
    "bonfires_lit": _bonfires_lit,
    "iguana_shuffled": _iguana_shuffled,
    "rogue_shuffled": _rogue_shuffled,
    "opossum_chosen": _opossum_chosen,
    "hunt_started": _hunt_started,
    "starting_number_raised": _starting_number_raised,
    "opossum_played": _opossum_played,
    "passed": _passed,
    "turn_skipped": _turn_skipped,
    "rogue_played": _rogue_played,
    "rogue_reserved": _rogue_turn_over,
    "rogue_passed": _rogue_turn_over,
    "fire_won": _fire_won,
    "rogue_won": _rogue_won,
    "stalemate": _stalemate,
    "round_prepared": _round_prepared,
    "iguana_depleted": _game_over,
    "move_cap_reached": _game_over,
}


# --- helpers ----------------------------------------------------------------------------------


def _steal(state: State, thefts: list[dict[str, Any]], number: int, fires: list[int]):
    """TOF-7: each stack in ``thefts`` (every other seat's stack showing ``number``, as the
    win event lists them) gives its fire cards to ``fires`` and goes away; its opossum goes
    back to its owner's hand (the round is over: "prepare for next round" comes next)."""
    table, held = state.table, state.held
    stacks, kept = list(table.stacks), table.kept
    for theft in thefts:  # usually none
        seat = theft["seat"]
        fires += theft["fire"]
        stacks[seat] = tuple(stack for stack in stacks[seat] if stack.number != number)
        bit = 1 << SEAT_BITS * seat + theft["card"]
        kept &= ~bit
        held |= bit
    return stacks, kept, fires, held


def _take_fire(state: State, stacks, kept: int, held: int, boxed, discard, next_leader: int) -> State:
    """The state at the end of a round: the Iguana pile without its top card (the next
    round's "prepare" event reveals the new top), and the seat to start the next round."""
    # Kept, the stacks, the Iguana pile and the boxed cards change (unpacked: cheaper than by name).
    (seats, rogue, round_, leader, order, bonfire, _, exhausted, _, iguana, _, size,
     deck, deck_size, reserve, _) = state[0]  # fmt: skip
    if iguana is not None:
        iguana = iguana[1:]
    table = _new(Table, (
        seats, rogue, round_, leader, order, bonfire, kept, exhausted, stacks, iguana, iguana[0] if iguana else 0,
        size - 1, deck, deck_size, reserve, boxed,
    ))  # fmt: skip
    _, offers, number, _, _, _, chosen, left, picker, _, turns = state
    return _new(State, (table, offers, number, ROUND_OVER, held, discard, chosen, left, picker, next_leader, turns))


def _rogue_draw(table: Table, reserve: tuple[int, ...]) -> Table:
    """The table after the Rogue drew its deck's top card, with ``reserve`` as its reserve."""
    deck = table.rogue_deck
    return _new(Table, table[:12] + (deck[1:] if deck else deck, table[13] - 1, reserve, table[15]))
