"""Lemur Tails test positions: helpers shared by test_lemur_tails.py and test_lemur_tails_properties.py.

``table`` folds hand-made events into a position (hands, tails, market and deck top given
by card name; the fold numbers the copies, LT-21); ``act`` and ``resolve`` play it on with
real decisions and a fixed chance stream; ``names`` and ``plays_on`` read it back by name.
"""

from __future__ import annotations

from engines.base import CHANCE, Event, fold
from engines.chance import Prng
from engines.lemur_tails.cards import END, KIND, KIND_OF_NAME, NAMES
from engines.lemur_tails.engine import ENGINE

GAME = "lemur-tails"


# ---------------------------------------------------------------------- positions


class Cards:
    """Hands out unused physical card ids by name ("W5", "BJ"), lowest copy first."""

    def __init__(self) -> None:
        self.free = list(range(END))

    def take(self, name: str) -> int:
        kind = KIND_OF_NAME[name]
        for card in self.free:
            if KIND[card] == kind:
                self.free.remove(card)
                return card
        raise AssertionError(f"no {name} left")

    def many(self, names) -> list[int]:
        return [self.take(name) for name in names]


def table(hands=((), ()), tails=None, market=(), deck_top=(), end_below=5, turn=0):
    """A position folded from hand-made events: hands, tails, market, deck top (all by card name)."""
    tails = tails or {}
    cards = Cards()
    hand_ids = [cards.many(hand) for hand in hands]
    tail_ids = {name: cards.many(tail) for name, tail in tails.items()}
    market_ids = cards.many(market)
    top = cards.many(deck_top)
    owned = [
        hand_ids[seat] + [c for name, ids in tail_ids.items() if name[0] == str(seat) for c in ids] for seat in (0, 1)
    ]
    rest = cards.free
    order = owned[0] + owned[1] + market_ids + top + rest
    # Rules version 2's events name kinds (LT-21); the fold numbers the copies itself.
    events = [
        *ENGINE.start(ENGINE.configure(2)),
        Event("deck_shuffled", {"cards": 88}, {"order": [NAMES[c] for c in order]}, ()),
        Event("hand_dealt", {"seat": 0, "count": len(owned[0])}, {"cards": names(owned[0])}, (0,)),
        Event("hand_dealt", {"seat": 1, "count": len(owned[1])}, {"cards": names(owned[1])}, (1,)),
        Event("market_laid", {"cards": names(market_ids)}),
        Event("end_card_shuffled_in", {"among_bottom": 10}, {"cards_below": end_below}, ()),
    ]
    for name, ids in tail_ids.items():
        seat = int(name[0])
        events += [Event("tail_card_played", {"seat": seat, "card": NAMES[c], "tail": name, "taken": False})
                   for c in ids]
    state = fold(ENGINE, events)
    # The tails were laid before the game: no turn has added anything yet.
    return state._replace(added=0, series_tail=-1, series_len=0, turn=turn)


def act(state, *actions):
    """Decide and fold each action in turn, resolving chance steps with a fixed stream."""
    for action in actions:
        for event in ENGINE.decide(state, action):
            state = ENGINE.apply(state, event)
        state = resolve(state)
    return state


def resolve(state, seed="fixed", stream=0):
    while ENGINE.actor(state) == CHANCE:
        for event in ENGINE.chance(state, Prng(seed, stream)):
            state = ENGINE.apply(state, event)
        stream += 1
    return state


def names(cards) -> list[str]:
    return sorted(NAMES[c] for c in cards)


def plays_on(state, tail: str) -> list[str]:
    return sorted(a.split(":")[1] for a in ENGINE.legal_actions(state) if a.startswith("play:") and a.endswith(tail))
