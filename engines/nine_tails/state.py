"""Nine Tails: the table as a frozen state, and the questions the rules ask of it.

A State is what lies on the table (foxes with their counters, studies and tails; hands;
decks; the Village; the counter pile) plus where the turn stands (phase, who decides).
The helpers below answer the rules' questions: can this fox pay this cost, which slots
pay it (NT-5), may this seat take this card, who is asked next in the trick and cancel
windows (NT-7). The fold (engines/nine_tails/fold.py) and the rules
(engines/nine_tails/engine.py, engines/nine_tails/tricks.py) share them.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, NamedTuple

from engines.nine_tails.cards import (
    ANY,
    KIND,
    NEED,
    NINE,
    SLOTS,
    STUDY,
    SYMBOL_INDEX,
    TAIL,
    TAIL_IDS,
    TAIL_VALUE,
    TRICKS,
    WILD_FOX,
)  # fmt: skip

# Phases. A seat decides in the first group; the engine's own steps (shuffles, the random
# pick of Pickpocket, the move-cap record) wait in the second; RESOLVING lasts only between
# two events of one decision.
ACTION, CHOOSE, PLACE, PAY, DISCARD = "action", "choose", "place", "pay", "discard"
WINDOW, PERFORM, CANCEL, TARGET, BEFUDDLE = "trick window", "perform", "cancel window", "target", "befuddle"
SETUP, RESHUFFLE, ASCEND, PICKPOCKET, CAP = "setup", "reshuffle", "ascend", "pickpocket", "move cap"
RESOLVING, OVER = "resolving", "over"
CHANCE_PHASES = frozenset((SETUP, RESHUFFLE, ASCEND, PICKPOCKET, CAP))

# Stages of a turn: the active seat's action, the trick window after "Done", a trick.
STAGE_ACTION, STAGE_WINDOW, STAGE_TRICK = "action", "window", "trick"

TARGETED = frozenset(("tail-swipe", "befuddle", "study-heist", "pickpocket", "hex"))
CHOSEN = frozenset(("quick-paws", "lure"))  # resolved by choosing a card
RESOLVED_AT_ONCE = frozenset(TRICKS) - TARGETED - CHOSEN  # its effect's events follow the window's close at once


class Fox(NamedTuple):
    """A fox in front of a seat (a starting or a wild fox card)."""

    card: str
    slots: str  # its own trait slots, then each tucked study's, oldest study first
    spent: int  # bitmask over ``slots``: bit i set = an exhaustion counter sits on slot i
    studies: tuple[str, ...] = ()  # tuck order, most recent last
    tails: tuple[str, ...] = ()  # tuck order, most recent last
    count: int = 1  # tails, the starting tail included


class State(NamedTuple):
    """A table of Nine Tails; every field an int, a string or a tuple (never mutated)."""

    seats: int
    goal: int  # ascended foxes that win (NT-9)
    phase: str
    active: int  # the seat whose turn it is
    decider: int  # the seat to decide now (or to draw, while a reshuffle is pending)
    turns: int  # turns completed (NT-9 caps them)
    foxes: tuple[tuple[Fox, ...], ...]
    hands: tuple[tuple[str, ...], ...]  # trickery cards per seat, sorted by name
    ascended: tuple[int, ...]  # foxes each seat helped ascend
    ascended_cards: tuple[int, ...]  # Ascended Fox Cards each seat holds (NT-11)
    stack: int  # Ascended Fox Cards left in their stack
    pile: int  # exhaustion counters in the pile
    starting: tuple[str | None, ...]  # Starting Fox Deck, top first
    wilds: tuple[str | None, ...]  # Wilds Deck, top first
    trickery: tuple[str | None, ...]  # Trickery Deck, top first
    discard: tuple[str, ...]  # trickery discard pile, oldest first
    village: tuple[str, ...]  # in the order the cards arrived
    owed: int = 0  # trickery cards the decider still has to draw after a reshuffle
    ascending: str = ""  # the fox at nine tails, waiting for its ascension
    winner: int = -1
    capped: bool = False
    # Where the turn stands: the last fields, each at its default when a turn begins (TURN_FIELDS).
    stage: str = STAGE_ACTION
    revealed: tuple[str, ...] = ()  # Wilds cards revealed and not yet resolved (public)
    held: str = ""  # the study or tail card being given to a fox
    source: str = ""  # CHOOSE: what the card comes from ("venture", "sneak", or a trick's name)
    trick: str = ""  # the trick in play
    trick_seat: int = -1
    trick_fox: str = ""  # the fox performing it
    paying: str = ""  # PAY: the fox paying a cost while the pile is short
    chosen: str = ""  # PAY: the cost symbols chosen so far
    discarded: int = 0  # DISCARD: trickery cards discarded so far this VENTURE
    target: str = ""  # BEFUDDLE: the fox receiving counters
    left: int = 0  # BEFUDDLE: counters it may still receive
    victim: int = -1  # PICKPOCKET: the seat whose hand is picked


TURN_FIELDS = State._fields.index("stage")
"""State's fields from this position on are where the turn stands; a new turn starts them afresh."""
TURN_START = tuple(State._field_defaults[name] for name in State._fields[TURN_FIELDS:])


# Speed, paid for by `python bench/engine.py --game nine-tails`: NamedTuple's own _replace builds a dict of every
# field and maps over it; the fold replaces a few of a State's 34 fields (or a Fox's 6) per event. Bench lines,
# main (with these) and without them taking turns (2026-12-02): "nine-tails seats=3 engine=57 games/s bare=89
# games/s ratio: 0.64" with, 0.58 and 0.60 without.
_STATE_AT = {name: position for position, name in enumerate(State._fields)}
_FOX_AT = {name: position for position, name in enumerate(Fox._fields)}


def _replace_state(state: State, **changes: Any) -> State:
    values = [*state]
    for name in changes:
        values[_STATE_AT[name]] = changes[name]
    return tuple.__new__(State, values)


def _replace_fox(fox: Fox, **changes: Any) -> Fox:
    values = [*fox]
    for name in changes:
        values[_FOX_AT[name]] = changes[name]
    return tuple.__new__(Fox, values)


State._replace = _replace_state  # type: ignore[method-assign]
Fox._replace = _replace_fox  # type: ignore[method-assign]


# --- foxes, payments and who is asked next ---------------------------------------------------


FOX_ACTION = {card: f"fox:{card}" for card in SLOTS if KIND[card] != STUDY}  # "fox:<card>", made once


def new_fox(card: str) -> Fox:
    return Fox(card, SLOTS[card], 0)


# put and without go through a list: about twice as fast as slicing and joining tuples.


def put(values: tuple, index: int, value: Any) -> tuple:
    out = [*values]
    out[index] = value
    return tuple(out)


def without(cards: tuple, card: Any) -> tuple:
    """``cards`` less its first ``card`` (ValueError if there is none)."""
    out = [*cards]
    out.remove(card)
    return tuple(out)


def sort_hand(cards: tuple) -> tuple:
    if None in cards:  # an unknown card (a fold without hands) sorts as the text "None"
        return tuple(sorted(cards, key=str))
    return tuple(sorted(cards))


def drop_trick(hand: tuple, trick: str | None) -> tuple:
    """The hand without one copy of ``trick`` (or of an unknown card, in a fold without hands)."""
    if trick in hand:
        return without(hand, trick)
    return without(hand, None) if None in hand else hand[1:]


def locate(state: State, card: str, hint: int = -1) -> tuple[int, int, Fox]:
    """Seat, position and record of the fox ``card`` (in front of some seat); seat ``hint`` is looked at first."""
    if hint >= 0:
        for index, fox in enumerate(state.foxes[hint]):
            if fox.card == card:
                return hint, index, fox
    for seat, foxes in enumerate(state.foxes):
        for index, fox in enumerate(foxes):
            if fox.card == card:
                return seat, index, fox
    raise KeyError(card)


def replace_fox(foxes: tuple, seat: int, index: int, fox: Fox) -> tuple:
    return put(foxes, seat, put(foxes[seat], index, fox))


def slot_mask(slots: list[int]) -> int:
    mask = 0
    for slot in slots:
        mask |= 1 << slot
    return mask


def remove_study(fox: Fox, card: str) -> tuple[Fox, int]:
    """The fox without study ``card`` and its two slots; and how many counters those slots held."""
    index = fox.studies.index(card)
    start = len(SLOTS[fox.card]) + 2 * index  # every study has two slots (NT-3)
    low = fox.spent & ((1 << start) - 1)
    returned = (fox.spent >> start & 3).bit_count()
    spent = low | (fox.spent >> (start + 2)) << start
    slots = fox.slots[:start] + fox.slots[start + 2 :]
    fox = fox._replace(slots=slots, spent=spent, studies=without(fox.studies, card))
    return fox, returned


def ascension_cards(fox: Fox) -> tuple[str, ...]:
    """What goes to the bottom of the Wilds Deck when ``fox`` ascends (rulebook steps 2-3)."""
    own = (fox.card,) if KIND[fox.card] == WILD_FOX else ()
    return own + fox.studies + fox.tails


def can_pay(fox: Fox, need: tuple[int, ...]) -> bool:
    """Whether ``fox`` has open slots for a whole cost (NT-5: Any slots cover what trait slots lack)."""
    return slots_pay(fox.slots, fox.spent, need)


@lru_cache(maxsize=1 << 16)
def slots_pay(slots: str, spent: int, need: tuple[int, ...]) -> bool:
    """``can_pay`` by what decides it: the fox's slots and spent mask."""
    return _pays(_open_slots(slots, spent), need)


@lru_cache(maxsize=1 << 16)
def _open_slots(slots: str, spent: int) -> tuple[int, ...]:
    """How many open slots a fox has per symbol: A, C, G, S, Q, Any."""
    have = [0] * 6
    for index, trait in enumerate(slots):
        if not spent >> index & 1:
            have[SYMBOL_INDEX[trait]] += 1
    return tuple(have)


def _pays(have: tuple[int, ...], need: tuple[int, ...]) -> bool:
    """Whether open slots ``have`` (per symbol, as ``_open_slots``) pay a whole cost ``need``."""
    a, c, g, s, q, any_ = have
    na, nc, ng, ns, nq, n_any = need
    short = (na > a and na - a) + (nc > c and nc - c) + (ng > g and ng - g) + (ns > s and ns - s) + (nq > q and nq - q)
    return short <= any_ and na + nc + ng + ns + nq + n_any <= a + c + g + s + q + any_


def fits(fox: Fox, card: str) -> bool:
    """Whether ``fox`` may be given tail ``card``: it can pay, and stays at nine tails or fewer."""
    return card in _fitting(_open_slots(fox.slots, fox.spent), NINE - fox.count)


@lru_cache(maxsize=1 << 14)
def _fitting(have: tuple[int, ...], room: int) -> frozenset[str]:
    """The tail cards a fox with open slots ``have`` and room for ``room`` more tails may be given (``fits``).

    Cached by what decides it, which many foxes share: the legal actions ask it of every tail card in
    the Village at every turn.
    """
    a, c, g, s, q, any_ = have
    total = a + c + g + s + q + any_
    return frozenset(
        [
            card
            for card, value, size, na, nc, ng, ns, nq in _TAIL_NEEDS
            # _pays, unrolled: what the trait slots lack, the Any slots cover, and there are slots enough in all
            if value <= room
            and size <= total
            and (na > a and na - a)
            + (nc > c and nc - c)
            + (ng > g and ng - g)
            + (ns > s and ns - s)
            + (nq > q and nq - q)
            <= any_
        ]
    )


_TAIL_NEEDS = tuple((card, TAIL_VALUE[card], sum(NEED[card]), *NEED[card][:5]) for card in TAIL_IDS)


def assign(fox: Fox, symbols: str) -> list[int]:
    """The slots that pay ``symbols`` (trait symbols first), by NT-5's one rule.

    A trait symbol takes the first open slot of its trait, else the first open Any slot;
    an Any symbol takes the first open trait slot, else the first open Any slot. "First"
    is slot order: the fox's own slots, then its studies' in tuck order. With trait
    symbols placed before Any symbols this pays every cost that can be paid at all.
    """
    return [*_assign(fox.slots, fox.spent, symbols)]


@lru_cache(maxsize=1 << 14)
def _assign(slots: str, spent: int, symbols: str) -> tuple[int, ...]:
    """``assign`` by what decides it (a tuple, shared by the cache)."""
    taken, out = spent, []
    for symbol in symbols:
        pick = -1
        for index, trait in enumerate(slots):
            if not taken >> index & 1 and (trait == symbol if symbol != ANY else trait != ANY):
                pick = index
                break
        if pick < 0:
            pick = next(i for i, trait in enumerate(slots) if trait == ANY and not taken >> i & 1)
        taken |= 1 << pick
        out.append(pick)
    return tuple(out)


def usable(state: State, seat: int, card: str) -> bool:
    """Whether ``seat`` can claim ``card`` or give it to one of its foxes (NT-13)."""
    kind = KIND[card]
    if kind == WILD_FOX:
        return True
    if kind == STUDY:
        return bool(state.foxes[seat])
    return kind == TAIL and any(fits(fox, card) for fox in state.foxes[seat])


def usable_cards(state: State, seat: int, cards: tuple[str, ...]) -> list[str]:
    """The cards among ``cards`` that ``seat`` can use (``usable``), in their order.

    For the Village at every turn: the tail cards its foxes fit are found once, not per card and fox.
    """
    foxes = state.foxes[seat]
    fitting = _seat_fitting(foxes)
    return [card for card in cards if (kind := KIND[card]) == WILD_FOX or (kind == STUDY and foxes) or card in fitting]


def can_use_any(state: State, seat: int, cards: tuple[str, ...]) -> bool:
    """Whether ``seat`` can use any of ``cards`` (``usable``): a wild fox or a study settles it before any tail."""
    foxes = state.foxes[seat]
    fitting = None
    for card in cards:
        kind = KIND[card]
        if kind == WILD_FOX or (kind == STUDY and foxes):
            return True
        if kind == TAIL:
            if fitting is None:
                fitting = _seat_fitting(foxes)
            if card in fitting:
                return True
    return False


def _seat_fitting(foxes: tuple[Fox, ...]) -> frozenset[str]:
    """The tail cards some fox among ``foxes`` (one seat's) may be given (``fits``)."""
    return frozenset().union(*[_fitting(_open_slots(fox.slots, fox.spent), NINE - fox.count) for fox in foxes])


def window_asker(state: State, after: int) -> int:
    """The next seat clockwise after ``after`` to ask for a trick, stopping at the active seat (NT-7).

    A seat with no trickery cards cannot play one, and its hand size is public, so it is skipped.
    """
    return next_holder(state.seats, state.hands, after, state.active)


def cancel_asker(state: State, after: int) -> int:
    """The next seat clockwise after ``after`` to ask for a cancel, stopping at the trick's player (NT-7).

    Every seat holding any trickery card is asked, whether or not it holds the trick's name, so
    being asked tells nobody what a hand holds.
    """
    return next_holder(state.seats, state.hands, after, state.trick_seat)


def next_holder(seats: int, hands: tuple, after: int, stop: int) -> int:
    """The first seat clockwise after ``after``, before reaching ``stop``, that holds a trickery card; -1 if none."""
    seat = (after + 1) % seats
    while seat != stop:
        if hands[seat]:
            return seat
        seat = (seat + 1) % seats
    return -1
