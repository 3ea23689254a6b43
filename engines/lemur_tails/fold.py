"""Lemur Tails: the fold, ``apply``'s one step per event type (the state after each event).

Dealt and drawn cards are the deck's top ones, which the fold knows from the shuffle (and which
verification checks against what the seed draws); a redacted log's fold takes the unshuffled top.
How an event names a card depends on the rules version (LT-21): version 1 names the physical
copy (its id), version 2 its kind, and the fold then takes the lowest copy of that kind where the
card leaves (a hand, the market), as decide() picked it (LT-16).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Any

from engines.base import Event
from engines.lemur_tails.cards import (
    END,
    HAND_SIZE,
    MARKET_SIZE,
    NAME_RANGE,
    NAMES,
    SUN_LEMURS_ASIDE,
    SUN_LEMURS_START,
    TAIL_CARDS,
    TAIL_INDEX,
    canonical_ids,
)
from engines.lemur_tails.rules import drawable
from engines.lemur_tails.state import (
    END_BOXED,
    END_DRAWN,
    END_IN_DECK,
    PASS,
    PLAY,
    SWAP,
    TAKEN,
    TURN_START,
    State,
    replacer,
)


class Fold:
    """The fold of one rules version: ``steps`` maps each event type to its step ``(state, event) -> state``."""

    def __init__(self, version: int) -> None:
        self._find = _find_id if version == 1 else _find_lowest
        self._deck = tuple if version == 1 else canonical_ids
        self.steps = {
            "table_laid": self._table_laid,
            "deck_shuffled": self._deck_shuffled,
            "hand_dealt": self._hand_dealt,
            "market_laid": self._market_laid,
            "end_card_shuffled_in": self._end_card_shuffled_in,
            "tail_card_played": self._tail_card_played,
            "sun_lemur_reactivated": self._sun_lemur_reactivated,
            "sun_lemur_gained": self._sun_lemur_gained,
            "joker_exchanged": self._joker_exchanged,
            "sun_lemur_used": self._sun_lemur_used,
            "card_drawn_blind": self._card_drawn_blind,
            "taken_card_kept": self._taken_card_kept,
            "card_discarded": self._card_discarded,
            "swap_finished": self._swap_finished,
            "turn_ended": self._turn_ended,
            "end_card_revealed": self._end_card_revealed,
            "cards_drawn": self._cards_drawn,
            "market_refilled": self._market_refilled,
            "deck_emptied": self._deck_emptied,
            "lemurs_counted": self._lemurs_counted,
            "move_cap_reached": self._lemurs_counted,
        }

    def _card(self, cards: tuple[int, ...], named: Any) -> int:
        """The card an event names among ``cards`` (a hand, the market), as decide() picked it (LT-16)."""
        return cards[self._find(cards, named)]

    def _table_laid(self, state: State | None, event: Event) -> State:
        return State(
            deck=tuple(range(TAIL_CARDS)),
            hands=((), ()),
            market=(),
            tails=((), (), (), ()),
            discard=(),
            end_card=END_BOXED,
            present=(SUN_LEMURS_START, SUN_LEMURS_START),
            empty=(0, 0),
            aside=SUN_LEMURS_ASIDE,
            turn=0,  # ALL-1: seat 0 starts
            turns=(0, 0),
            pending=("shuffle",),
            ending=False,
            over="",
            **TURN_START,
        )

    def _deck_shuffled(self, state: State, event: Event) -> State:
        order = self._deck(event.private["order"]) if event.private is not None else state.deck
        return state._replace(deck=order, pending=("deal",))

    # Dealt and drawn cards are the deck's top ones, which the fold knows from the shuffle (and which
    # verification checks against what the seed draws); a redacted log's fold takes the unshuffled top.

    def _hand_dealt(self, state: State, event: Event) -> State:
        seat, count = event.data["seat"], event.data["count"]
        hands = _set_seat(state.hands, seat, tuple(sorted(state.deck[:count])))
        return state._replace(hands=hands, deck=state.deck[count:])

    def _market_laid(self, state: State, event: Event) -> State:
        count = len(event.data["cards"])
        return state._replace(market=tuple(sorted(state.deck[:count])), deck=state.deck[count:], pending=("end",))

    def _end_card_shuffled_in(self, state: State, event: Event) -> State:
        below = event.private["cards_below"] if event.private is not None else 0
        at = len(state.deck) - below
        deck = (*state.deck[:at], END, *state.deck[at:])
        return state._replace(deck=deck, end_card=END_IN_DECK, pending=())

    def _tail_card_played(self, state: State, event: Event) -> State:
        data = event.data
        seat, tail = data["seat"], TAIL_INDEX[data["tail"]]
        hand = state.hands[seat]
        index = hand.index(state.held) if data["taken"] else self._find(hand, data["card"])
        card = hand[index]
        tails = list(state.tails)
        tails[tail] = (*tails[tail], card)
        hand = hand[:index] + hand[index + 1 :]
        hands = _set_seat(state.hands, seat, hand)
        pending: tuple = ()
        if tail >> 1 == seat:
            # LT-6: same own tail continues the series; the other own tail starts a new one.
            length = state.series_len + 1 if state.series_tail == tail else 1
            series_tail = tail
        else:
            series_tail, length = -1, 0
            count = min(2, drawable(state))
            if count:
                pending = ("draw", seat, count)
        return _PLAYED(state, tuple(tails), hands, state.added + 1, series_tail, length, pending)

    def _sun_lemur_reactivated(self, state: State, event: Event) -> State:
        seat = event.data["seat"]
        return state._replace(
            present=_set_seat(state.present, seat, state.present[seat] + 1),
            empty=_set_seat(state.empty, seat, state.empty[seat] - 1),
        )

    def _sun_lemur_gained(self, state: State, event: Event) -> State:
        seat = event.data["seat"]
        return state._replace(present=_set_seat(state.present, seat, state.present[seat] + 1), aside=state.aside - 1)

    def _joker_exchanged(self, state: State, event: Event) -> State:
        data = event.data
        seat, position, tail = data["seat"], data["position"], TAIL_INDEX[data["tail"]]
        card = self._card(state.hands[seat], data["card"])
        old = state.tails[tail]
        joker = old[position]
        tails = _set(state.tails, tail, (*old[:position], card, *old[position + 1 :]))
        hand = tuple(sorted((*_without(state.hands[seat], card), joker)))
        return state._replace(tails=tails, hands=_set_seat(state.hands, seat, hand))

    def _sun_lemur_used(self, state: State, event: Event) -> State:
        data = event.data
        seat, what = data["seat"], data["action"]
        state = state._replace(
            present=_set_seat(state.present, seat, state.present[seat] - 1),
            empty=_set_seat(state.empty, seat, state.empty[seat] + 1),
        )
        if what == "market":
            card = self._card(state.market, data["card"])
            hand = tuple(sorted((*state.hands[seat], card)))
            return state._replace(
                market=_without(state.market, card),
                hands=_set_seat(state.hands, seat, hand),
                held=card,
                held_public=True,
                phase=TAKEN,
            )
        if what == "tail":
            tail = TAIL_INDEX[data["tail"]]
            card = state.tails[tail][-1]
            hand = tuple(sorted((*state.hands[seat], card)))
            return state._replace(
                tails=_set(state.tails, tail, state.tails[tail][:-1]),
                hands=_set_seat(state.hands, seat, hand),
                held=card,
                held_public=True,
                phase=TAKEN,
            )
        if what == "blind":
            return state._replace(pending=("blind", seat))
        return state._replace(phase=SWAP, discards=0)

    def _card_drawn_blind(self, state: State, event: Event) -> State:
        seat, victim = event.data["seat"], event.data["from"]
        if event.private is None:  # never for a chance event (they are re-derived); stay foldable anyway
            return state._replace(pending=(), phase=PLAY)
        card = self._card(state.hands[victim], event.private["card"])
        hands = _set_seat(state.hands, victim, _without(state.hands[victim], card))
        hands = _set_seat(hands, seat, tuple(sorted((*hands[seat], card))))
        return state._replace(hands=hands, held=card, held_public=False, phase=TAKEN, pending=())

    def _taken_card_kept(self, state: State, event: Event) -> State:
        return state._replace(held=-1, held_public=False, phase=PLAY)

    def _card_discarded(self, state: State, event: Event) -> State:
        seat = event.data["seat"]
        hand = state.hands[seat]
        index = self._find(hand, event.data["card"])
        card = hand[index]
        hand = hand[:index] + hand[index + 1 :]
        hands = _set_seat(state.hands, seat, hand)
        phase = SWAP if state.phase == SWAP else PASS
        return _DISCARDED(state, hands, (*state.discard, card), state.discards + 1, phase)

    def _swap_finished(self, state: State, event: Event) -> State:
        count = min(event.data["count"], drawable(state))
        pending = ("draw", event.data["seat"], count) if count else ()
        return state._replace(phase=PLAY, discards=0, pending=pending)

    def _turn_ended(self, state: State, event: Event) -> State:
        seat = event.data["seat"]
        turns = _set_seat(state.turns, seat, state.turns[seat] + 1)
        want = len(state.hands[seat]) < HAND_SIZE or len(state.market) < MARKET_SIZE
        pending = ("refill", seat) if want and drawable(state) else ()
        return _TURN_ENDED(state, turns, 1 - seat, pending)

    def _end_card_revealed(self, state: State, event: Event) -> State:
        deck = tuple(card for card in state.deck if card != END)
        return state._replace(deck=deck, end_card=END_DRAWN, ending=True)

    def _cards_drawn(self, state: State, event: Event) -> State:
        seat, count = event.data["seat"], event.data["count"]
        deck = state.deck
        hand = tuple(sorted((*state.hands[seat], *deck[:count])))
        hands = _set_seat(state.hands, seat, hand)
        return _DREW(state, hands, deck[count:])

    def _market_refilled(self, state: State, event: Event) -> State:
        count = len(event.data["cards"])
        market = tuple(sorted((*state.market, *state.deck[:count])))
        return state._replace(market=market, deck=state.deck[count:], pending=())

    def _deck_emptied(self, state: State, event: Event) -> State:
        return state._replace(ending=True)

    def _lemurs_counted(self, state: State, event: Event) -> State:
        return state._replace(over=event.data["reason"], pending=())



def _find_id(cards: tuple[int, ...], card: int) -> int:
    """Rules version 1: an event names the very card (its id); its index in ``cards``."""
    return cards.index(card)


def _find_lowest(cards: tuple[int, ...], name: str) -> int:
    """Rules version 2: an event names a kind; the index of the lowest copy of it among ``cards`` (LT-16, LT-21).

    ``cards`` is ascending and an event's card is always there (decide checked it), so bisection finds it.
    """
    low, high = NAME_RANGE[name]
    index = bisect_left(cards, low)
    if cards[index] > high:
        raise ValueError(f"lemur-tails: no {name} there to move")
    return index


NAME_OF_NAME = {name: name for name in NAMES}
"""Rules version 2's events name a card as its action does."""


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    index = cards.index(card)
    return cards[:index] + cards[index + 1 :]


def _set(values: tuple, index: int, value: Any) -> tuple:
    values = list(values)
    values[index] = value
    return tuple(values)


def _set_seat(values: tuple, seat: int, value: Any) -> tuple:
    """``_set`` of a pair (per seat, of two)."""
    return (value, values[1]) if seat == 0 else (values[0], value)


# The fold's commonest steps, each a State.replace of its fields at once (state.replacer).
_PLAYED = replacer(
    State, "tails", "hands", "added", "series_tail", "series_len", "pending", phase=PLAY, held=-1, held_public=False
)
_DISCARDED = replacer(State, "hands", "discard", "discards", "phase")
_TURN_ENDED = replacer(State, "turns", "turn", "pending", **TURN_START)
_DREW = replacer(State, "hands", "deck", pending=())


