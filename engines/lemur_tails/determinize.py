"""Lemur Tails: full tables drawn from what one seat has seen (determinization for search bots).

What a seat cannot know is the opponent's hand (but for the cards it saw go there), the deck's
order, and where the End card lies among the deck's bottom cards. Every hidden tail card comes
from the one setup shuffle, so the hidden cards form a single *pool*: the opponent's unknown
hand cards and the deck hold, together and in any arrangement, every tail card the seat has not
seen elsewhere. Known cards in the opponent's hand are the ones the seat saw go there: a market
card or a tail card a Sun lemur took, a joker an exchange gave back, a card blindly drawn from the
seat's own hand. When the opponent plays, exchanges or discards a card of a kind it is known to
hold, that known card is the one that left: every table where it came from the unknown cards is
also a table where it was the known one, so this loses nothing.

``Sighting`` keeps a *concrete* table consistent with every event (a particle): it folds the
seat's redacted events with the engine's own fold, first swapping hidden cards where an event
needs them (the seat's draws and the market come off the deck's top; a card the opponent plays
must be in its hand), so the fold's bookkeeping of physical cards stays exact. ``sample`` then
redraws the pool: the opponent's unknown cards and the deck are a uniform shuffle of the pool's
cards, and the End card, while still in the deck, lies under a uniform 0 to min(10, cards left)
tail cards (it was shuffled among the bottom ten, LT-8, and has not come up). Nothing here reads a
private part the seat may not see, whatever the events carry. Rules version 2 only: version 1's
events name physical copies, and nobody plays it any more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engines.base import EngineError, Event
from engines.lemur_tails.cards import BOTTOM, END, KIND, KIND_OF_NAME, TAIL_INDEX
from engines.lemur_tails.state import END_IN_DECK, State


class Sighting:
    """What one seat has seen of a game of Lemur Tails (engines.base.Determinizer)."""

    __slots__ = ("apply", "known", "other", "seat", "state")

    def __init__(self, engine: Any, seat: int) -> None:
        if engine.version != 2:
            raise EngineError(f"lemur-tails determinizes rules version 2 only, not version {engine.version}")
        self.apply = engine.apply
        self.seat = seat
        self.other = 1 - seat
        self.state: State | None = None
        self.known: Counter = Counter()  # kinds known to be in the opponent's hand

    def see(self, events: Sequence[Event]) -> None:
        seat, other = self.seat, self.other
        for event in events:
            if event.private is not None and not event.visible_to(seat):
                event = Event(event.type, event.data, None, event.audience)
            kind, data = event.type, event.data
            state = self.state
            if kind in ("hand_dealt", "cards_drawn") and data["seat"] == seat:
                state = self._on_top(state, event.private["cards"])
            elif kind in ("market_laid", "market_refilled"):
                state = self._on_top(state, data["cards"])
            elif data.get("seat") == other:
                state = self._played_by_other(state, event)
            elif kind == "card_drawn_blind" and data["seat"] == seat:
                state = self._in_other_hand(state, KIND_OF_NAME[event.private["card"]])
            state = self.state = self.apply(state, event)
            if kind == "card_drawn_blind" and data["seat"] == other:
                self.known[KIND[state.held]] += 1

    def _played_by_other(self, state: State, event: Event) -> State:
        """Before the fold of the opponent's ``event``: what it shows must be in its hand."""
        kind, data = event.type, event.data
        known = self.known
        if kind == "tail_card_played":
            card = KIND_OF_NAME[data["card"]]
            if data["taken"]:  # the card a Sun lemur brought, known since it came
                known[card] -= 1
                return state
            return self._in_other_hand(state, card)
        if kind == "joker_exchanged":
            state = self._in_other_hand(state, KIND_OF_NAME[data["card"]])
            known[KIND_OF_NAME[data["joker"]]] += 1
        elif kind == "card_discarded":
            state = self._in_other_hand(state, KIND_OF_NAME[data["card"]])
        elif kind == "sun_lemur_used" and data["action"] == "market":
            known[KIND_OF_NAME[data["card"]]] += 1
        elif kind == "sun_lemur_used" and data["action"] == "tail":
            known[KIND[state.tails[TAIL_INDEX[data["tail"]]][-1]]] += 1
        return state

    def _in_other_hand(self, state: State, kind: int) -> State:
        """The opponent shows a card of ``kind`` from its hand: a known one first, else one of its unknown cards."""
        known = self.known
        if known[kind]:
            known[kind] -= 1
            return state
        hand = state.hands[self.other]
        if sum(1 for card in hand if KIND[card] == kind) > 0:
            return state
        source = next((i for i, card in enumerate(state.deck) if KIND[card] == kind), -1)
        spare = _spare(hand, known)
        if source < 0 or not spare:
            raise EngineError(f"lemur-tails: seat {self.other} showed a card its hidden cards cannot hold")
        return _swap(state, self.other, spare[0], source)

    def _on_top(self, state: State, names: Sequence[str]) -> State:
        """Before cards of ``names`` come off the deck (the seat's draw, the market): put them on top."""
        need = Counter(KIND_OF_NAME[name] for name in names)
        count = len(names)
        wrong = []
        for position in range(count):
            card_kind = KIND[state.deck[position]]
            if need[card_kind]:
                need[card_kind] -= 1
            else:
                wrong.append(position)
        for position in wrong:
            kind = next(kind for kind, left in need.items() if left)
            need[kind] -= 1
            source = next((i for i in range(count, len(state.deck)) if KIND[state.deck[i]] == kind), -1)
            if source >= 0:
                deck = list(state.deck)
                deck[position], deck[source] = deck[source], deck[position]
                state = state._replace(deck=tuple(deck))
                continue
            hand = state.hands[self.other]
            spare = [card for card in _spare(hand, self.known) if KIND[card] == kind]
            if not spare:
                raise EngineError("lemur-tails: cards came off the deck that no hidden place can hold")
            state = _swap(state, self.other, spare[0], position)
        return state

    def sample(self, rng: Any) -> State:
        state = self.state
        if state is None:
            raise EngineError("lemur-tails: nothing seen yet to determinize")
        other = self.other
        known = Counter(self.known)
        hand = state.hands[other]
        kept = []
        if state.held >= 0 and state.turn == other and state.held in hand:
            kept.append(state.held)  # the card its Sun lemur just brought stays the one it holds
            known[KIND[state.held]] -= 1
        free = []
        for card in hand:
            if card in kept:
                continue
            if known[KIND[card]] > 0:
                known[KIND[card]] -= 1
                kept.append(card)
            else:
                free.append(card)
        pool = free + [card for card in state.deck if card != END]
        rng.shuffle(pool)
        deck = pool[len(free) :]
        if state.end_card == END_IN_DECK:
            below = rng.choice(range(min(BOTTOM, len(deck)) + 1))
            deck.insert(len(deck) - below, END)
        hands = list(state.hands)
        hands[other] = tuple(sorted(kept + pool[: len(free)]))
        return state._replace(hands=tuple(hands), deck=tuple(deck))


def _spare(hand: tuple[int, ...], known: Counter) -> list[int]:
    """The cards of ``hand`` beyond those known to be there (by kind)."""
    reserved = Counter(known)
    out = []
    for card in hand:
        if reserved[KIND[card]] > 0:
            reserved[KIND[card]] -= 1
        else:
            out.append(card)
    return out


def _swap(state: State, seat: int, card: int, position: int) -> State:
    """``card`` of ``seat``'s hand and the deck's card at ``position`` trade places."""
    deck = list(state.deck)
    hand = list(state.hands[seat])
    hand[hand.index(card)] = deck[position]
    deck[position] = card
    hands = list(state.hands)
    hands[seat] = tuple(sorted(hand))
    return state._replace(deck=tuple(deck), hands=tuple(hands))
