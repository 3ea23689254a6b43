"""Tails on Fire: full tables drawn from what one seat has seen (determinization for search bots).

A seat's redacted events fold (engines/tails_on_fire/fold.py) into a table that is whole but for
three things the seat cannot know: the Iguana pile below its top card, the rogue deck's order, and
which opossums the other seats chose this round (their picks reach the fold without their private
part, TOF-18). ``Sighting.sample`` fills each of them uniformly among the tables consistent with
what the seat saw:

* the Iguana pile: its top card is public, and every other fire card not in a fire stack and not
  out of the game (boxed) lies beneath it, in any order;
* the rogue deck: the nine rogue cards less the reserve and the Rogue's cards on this round's
  discard pile, in any order (the deck is shuffled anew every round, TOF-8);
* another seat's chosen opossums still in hand: any ``chosen_size`` of the opossums it holds (which
  are public: everything else it owns is on its bonfire, a stack, the discard pile or exhausted).
  A pass never says a seat holds nothing that fits (passing is always allowed), so nothing
  narrows a choice further.

The three are independent, so each is drawn on its own. Nothing here reads a private part the
seat may not see, whatever the events carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.base import EngineError, Event
from engines.tails_on_fire.cards import ALL_OPOSSUMS, CARDS_OF, FIRE_CARDS, IGUANA, NUMBERS, ROGUE, SEAT_BITS, SHUFFLE
from engines.tails_on_fire.fold import FOLD
from engines.tails_on_fire.state import State, Table, seat_bits, unknown


class Sighting:
    """What one seat has seen of a game of Tails on Fire (engines.base.Determinizer)."""

    __slots__ = ("seat", "state")

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.state: State | None = None

    def see(self, events: Sequence[Event]) -> None:
        state, seat = self.state, self.seat
        for event in events:
            if event.private is not None and not event.visible_to(seat):
                event = Event(event.type, event.data, None, event.audience)
            state = FOLD[event.type](state, event)
        self.state = state

    def sample(self, rng: Any) -> State:
        state = self.state
        if state is None:
            raise EngineError("tails-on-fire: nothing seen yet to determinize")
        table = state.table
        laid = state.phase > IGUANA  # the Iguana pile is shuffled (before that, nobody knows it)
        iguana = table.iguana
        if iguana is None and laid:
            iguana = _iguana(table, rng)
        rogue_deck = table.rogue_deck
        if rogue_deck is None and table.rogue and state.phase > SHUFFLE:
            rogue_deck = _rogue_deck(state, rng)
        if iguana is not table.iguana or rogue_deck is not table.rogue_deck:
            table = table._replace(iguana=iguana, rogue_deck=rogue_deck)
        return state._replace(table=table, chosen=_chosen(state, self.seat, rng))


def _iguana(table: Table, rng: Any) -> tuple[int, ...]:
    """The Iguana pile, top first: its public top card, then the unseen fire cards in any order."""
    if not table.iguana_size:
        return ()
    seen = {table.iguana_top, *table.boxed}
    seen.update(fire for stacks in table.stacks for stack in stacks for fire in stack.fire)
    below = [card for card in FIRE_CARDS if card not in seen]
    if len(below) != table.iguana_size - 1:
        raise EngineError(f"tails-on-fire: {len(below)} unseen fire cards for an Iguana pile of {table.iguana_size}")
    rng.shuffle(below)
    return (table.iguana_top, *below)


def _rogue_deck(state: State, rng: Any) -> tuple[int, ...]:
    """This round's rogue deck, top first: the rogue cards not yet drawn, in any order."""
    table = state.table
    drawn = set(table.rogue_reserve)
    drawn.update(card for owner, card, _ in state.discard if owner == ROGUE)
    deck = [card for card in NUMBERS if card not in drawn]
    if len(deck) != table.rogue_deck_size:
        raise EngineError(f"tails-on-fire: {len(deck)} undrawn rogue cards for a deck of {table.rogue_deck_size}")
    rng.shuffle(deck)
    return tuple(deck)


def _chosen(state: State, seat: int, rng: Any) -> int:
    """The chosen opossums of every seat: ``seat``'s own as seen, the others' drawn from their hands."""
    chosen = state.chosen
    for other in range(state.table.seats):
        bits = seat_bits(chosen, other)
        if other == seat or not unknown(bits):
            continue
        hand = list(CARDS_OF[seat_bits(state.held, other)])
        rng.shuffle(hand)
        picks = 0
        for card in hand[: seat_bits(state.left, other)]:
            picks |= 1 << card
        shift = SEAT_BITS * other
        chosen = chosen & ~(ALL_OPOSSUMS << shift) | picks << shift
    return chosen
