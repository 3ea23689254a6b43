"""Nine Tails test positions: helpers shared by test_nine_tails.py and test_nine_tails_properties.py.

Positions are built by folding the setup's events with chosen deck orders (``lay``), then
arranged with ``place_fox`` / ``set_hand`` / ``to_village``, which move cards from where
they lie so that every card stays in exactly one place, and then played with real
decisions through ``Table.do``. ``conserved`` checks that every card and counter is in
exactly one place.
"""

from __future__ import annotations

from collections import Counter

from engines.base import CHANCE, Event, fold
from engines.chance import Prng
from engines.nine_tails.cards import (
    ASCENDED_FOX_CARDS,
    COPIES,
    COUNTERS,
    SLOTS,
    STARTING_FOX_IDS,
    TAIL_VALUE,
    TRICK_NAMES,
    TRICKERY_CARDS,
    WILDS_IDS,
)
from engines.nine_tails.engine import ENGINE
from engines.nine_tails.state import Fox, State, put, sort_hand, without


def top_then_rest(top, cards):
    rest = list(cards)
    for card in top:
        rest.remove(card)
    return [*top, *rest]


def lay(seats=3, *, fast=False, starting=(), wilds=(), trickery=()):
    """The table right after Setup, with the given cards on top of each deck (hands dealt first)."""
    events = ENGINE.start(ENGINE.configure(seats, {"fast": True} if fast else {}))
    order_s = top_then_rest(starting, STARTING_FOX_IDS)
    order_w = top_then_rest(wilds, WILDS_IDS)
    order_t = top_then_rest(trickery, TRICKERY_CARDS)
    events.append(Event("starting_foxes_shuffled", {"size": 10}, {"order": order_s}, ()))
    events += [Event("starting_fox_dealt", {"seat": seat, "fox": order_s[seat]}) for seat in range(seats)]
    events.append(Event("wilds_shuffled", {"size": 45}, {"order": order_w}, ()))
    events.append(Event("trickery_shuffled", {"size": 30}, {"order": order_t}, ()))
    for seat in range(seats):
        cards = order_t[3 * seat : 3 * seat + 3]
        events.append(Event("trickery_dealt", {"seat": seat, "count": 3}, {"cards": cards}, (seat,)))
    return fold(ENGINE, events)


def _lift(state: State, card: str) -> State:
    """Take ``card`` out of wherever it lies (a deck, the Village, a fox)."""
    for field in ("starting", "wilds", "village"):
        cards = getattr(state, field)
        if card in cards:
            return state._replace(**{field: without(cards, card)})
    foxes = tuple(
        tuple(
            fox._replace(
                studies=tuple(s for s in fox.studies if s != card), tails=tuple(t for t in fox.tails if t != card)
            )
            for fox in seat_foxes
            if fox.card != card
        )
        for seat_foxes in state.foxes
    )
    return state._replace(foxes=foxes)


def place_fox(state, seat, card, *, tails=(), studies=(), spent=(), first=False):
    """Put fox ``card`` in front of ``seat`` with these tails and studies and counters on these slots.

    If the fox is already in front of a seat, its counters go back to the pile and its other
    cards to the Village.
    """
    old = [fox for foxes in state.foxes for fox in foxes if fox.card == card]
    pile = state.pile + sum(fox.spent.bit_count() for fox in old)
    left = tuple(c for fox in old for c in fox.studies + fox.tails if c not in (*tails, *studies))
    for moved in (card, *tails, *studies):
        state = _lift(state, moved)
    state = state._replace(village=state.village + left)
    mask = sum(1 << slot for slot in spent)
    slots = SLOTS[card] + "".join(SLOTS[study] for study in studies)
    fox = Fox(card, slots, mask, tuple(studies), tuple(tails), 1 + sum(TAIL_VALUE[t] for t in tails))
    foxes = (fox, *state.foxes[seat]) if first else (*state.foxes[seat], fox)
    return state._replace(foxes=put(state.foxes, seat, foxes), pile=pile - len(spent))


def set_hand(state, seat, cards):
    """Give ``seat`` exactly these trickery cards, swapping with the top of the Trickery Deck."""
    deck = list(state.trickery) + list(state.hands[seat])
    for card in cards:
        deck.remove(card)
    return state._replace(hands=put(state.hands, seat, sort_hand(tuple(cards))), trickery=tuple(deck))


def to_village(state, *cards):
    for card in cards:
        state = _lift(state, card)
    return state._replace(village=state.village + cards)


def fox_of(state, card):
    return next(fox for foxes in state.foxes for fox in foxes if fox.card == card)


class Table:
    """A state played forward by decisions, with chance steps drawn from a fixed seed."""

    def __init__(self, state):
        self.state = state
        self.events: list[Event] = []
        self.stream = 0

    def do(self, *actions):
        for action in actions:
            self._fold(ENGINE.decide(self.state, action))
            while ENGINE.actor(self.state) == CHANCE:
                self._fold(ENGINE.chance(self.state, Prng("table", self.stream)))
                self.stream += 1
        return self

    def _fold(self, events):
        self.events += events
        for event in events:
            self.state = ENGINE.apply(self.state, event)

    def types(self):
        return [event.type for event in self.events]

    def last(self, kind):
        return next(event for event in reversed(self.events) if event.type == kind)

    @property
    def legal(self):
        return ENGINE.legal_actions(self.state)

    @property
    def actor(self):
        return ENGINE.actor(self.state)

    def view(self, seat=None):
        return ENGINE.view(self.state, seat)


def conserved(state: State) -> None:
    """Every card and counter is in exactly one place (Components)."""
    places = list(state.starting) + list(state.wilds) + list(state.village) + list(state.revealed)
    places += [state.held] if state.held else []
    for foxes in state.foxes:
        for fox in foxes:
            places += [fox.card, *fox.studies, *fox.tails]
            assert fox.count == 1 + sum(TAIL_VALUE[t] for t in fox.tails) <= 9
            assert len(fox.slots) == len(SLOTS[fox.card]) + 2 * len(fox.studies)
    assert sorted(places) == sorted(STARTING_FOX_IDS + WILDS_IDS)
    tricks = Counter(state.trickery) + Counter(state.discard) + sum((Counter(h) for h in state.hands), Counter())
    tricks += Counter([state.trick] if state.trick else [])
    assert tricks == Counter(dict.fromkeys(TRICK_NAMES, COPIES))
    assert state.pile + sum(fox.spent.bit_count() for foxes in state.foxes for fox in foxes) == COUNTERS
    assert state.pile >= 0
    assert state.stack + sum(state.ascended_cards) == ASCENDED_FOX_CARDS


def wasted_window(table, seat):
    """Everyone else declines the trick window."""
    while table.actor >= 0 and table.state.phase == "trick window":
        table.do("decline")
    return table


def trick_table(trick, performer, *, state=None, hand0=("windfall",)):
    """Seat 0 sneaks a wild fox; seat 1 plays ``trick`` with fox ``performer``; nobody cancels."""
    state = state or lay()
    state = set_hand(state, 0, hand0)
    state = set_hand(state, 2, ["second-wind"] if trick != "second-wind" else ["lure"])
    state = set_hand(state, 1, [trick])
    if performer not in [fox.card for fox in state.foxes[1]]:
        state = place_fox(state, 1, performer, first=True)
    table = Table(to_village(state, "W-SAC") if "W-SAC" not in state.village else state)
    table.do("sneak", "take:W-SAC", f"trick:{trick}", f"fox:{performer}")
    while table.state.phase == "cancel window":
        table.do("decline")
    return table
