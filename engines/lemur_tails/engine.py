"""Lemur Tails: two seats grow two lemur tails each; the longest shortest tail wins.

Each seat owns two tails (a start card ending with a white ring, one with a black ring). Cards
added to a tail alternate colours and step the number by -1, 0 or +1 on a ring of ten; jokers
stand in for any number. A seat may add cards to its own tails or to the opponent's (drawing two
per card there), exchange jokers in any tail for fitting hand cards, and spend present Sun lemurs
on four special actions; three cards in a row on one own tail earn a Sun lemur back. The End card
hides among the deck's bottom ten cards; once drawn, the round is completed and the seats compare
their shortest tails (LT-9).

A turn is a sequence of small decisions ending with "end" (ALL-3, LT-5); every draw from the deck,
the blind draw from the opponent's hand and every setup shuffle is a chance step (ALL-2). This
module is the engine: it ties the game's modules together and draws the chance steps. Card data
lives in cards.py, the state in state.py, the fold in fold.py, the turn rules (legal actions,
decide, ranking) in rules.py, the views in view.py, determinization in determinize.py (all in
engines/lemur_tails/). Rules as implemented, rulings LT-1..LT-9 and the new ones (LT-10..)
are in docs/games/lemur-tails.md.

Two rules versions, one class: version 1 named the physical copy of a card in its events, which
told an opponent which copies a hand did not hold; version 2 names only kinds (LT-21). A log names
its version and is folded by that one, so every version-1 log still verifies (``VERSIONS``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import CHANCE, TERMINAL, Config, ConfigError, Engine, Event, determinize
from engines.lemur_tails.cards import (
    BOTTOM,
    END,
    HAND_SIZE,
    IDS,
    MARKET_SIZE,
    NAMES,
    SUN_LEMURS_ASIDE,
    SUN_LEMURS_START,
    TAIL_CARDS,
    TAILS,
)
from engines.lemur_tails.determinize import Sighting
from engines.lemur_tails.fold import NAME_OF_NAME, Fold
from engines.lemur_tails.rules import MOVE_CAP, _event, decide, game_over, legal_actions, ranking
from engines.lemur_tails.state import State
from engines.lemur_tails.view import view

CURRENT = 2
"""The rules version new games are played with (LT-21)."""


class LemurTails(Engine):
    name = "lemur-tails"
    min_seats = 2
    max_seats = 2
    default_seats = 2
    move_cap = MOVE_CAP

    def __init__(self, version: int = CURRENT) -> None:
        if version not in (1, 2):
            raise ValueError(f"lemur-tails has rules versions 1 and 2, not {version}")
        self.version = version
        # How events name a card: a physical id, or its kind (LT-21); fold.py finds the card they name.
        self._label = IDS if version == 1 else NAMES
        self._name = NAMES if version == 1 else NAME_OF_NAME
        self._fold = Fold(version).steps

    # ------------------------------------------------------------------ protocol

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        if seats != 2:
            raise ConfigError(f"lemur-tails is played by exactly 2 seats, not {seats}")
        if options:
            raise ConfigError(f"lemur-tails has no options, got {sorted(options)}")
        return Config(2, {})

    def start(self, config: Config) -> list[Event]:
        return [
            Event(
                "table_laid",
                {
                    "seats": 2,
                    "tails": list(TAILS),
                    "sun_lemurs": SUN_LEMURS_START,
                    "sun_lemurs_aside": SUN_LEMURS_ASIDE,
                },
            )
        ]

    def apply(self, state: State | None, event: Event) -> State:
        try:
            fold = self._fold[event.type]
        except KeyError:
            raise ValueError(f"lemur-tails has no event {event.type!r}") from None
        return fold(state, event)

    def actor(self, state: State) -> int:
        if state.over:
            return TERMINAL
        if state.pending:
            return CHANCE
        return state.turn

    legal_actions = staticmethod(legal_actions)  # (state) -> list[str]: none when over or at a chance step

    def decide(self, state: State, action: str) -> list[Event]:
        return decide(state, action, self._label)

    def chance(self, state: State, rng) -> list[Event]:
        kind = state.pending[0]
        label = self._label
        if kind == "draw":
            _, seat, count = state.pending
            events: list[Event] = []
            deck = _draw_into(events, seat, state.deck, count, "cards_drawn", label)
            if not deck and state.deck:
                events.append(Event("deck_emptied", {}))
            return events
        if kind == "shuffle":
            order = list(map(label.__getitem__, rng.shuffled(range(TAIL_CARDS))))
            return [Event("deck_shuffled", {"cards": TAIL_CARDS}, {"order": order}, ())]
        if kind == "deal":
            deck = state.deck
            return [
                Event("hand_dealt", {"seat": 0, "count": HAND_SIZE}, {"cards": _named(deck[:HAND_SIZE], label)}, (0,)),
                Event(
                    "hand_dealt",
                    {"seat": 1, "count": HAND_SIZE},
                    {"cards": _named(deck[HAND_SIZE : 2 * HAND_SIZE], label)},
                    (1,),
                ),
                Event("market_laid", {"cards": _named(deck[2 * HAND_SIZE : 2 * HAND_SIZE + MARKET_SIZE], label)}),
            ]
        if kind == "end":
            below = rng.below(min(BOTTOM, len(state.deck)) + 1)
            return [Event("end_card_shuffled_in", {"among_bottom": BOTTOM}, {"cards_below": below}, ())]
        if kind == "blind":
            seat = state.pending[1]
            victim = 1 - seat
            card = rng.choice(state.hands[victim])
            return [Event("card_drawn_blind", {"seat": seat, "from": victim}, {"card": label[card]}, (0, 1))]
        # "refill" (LT-8): the hand up to eight, then the market up to eight.
        seat = state.pending[1]
        events = []
        deck = _draw_into(events, seat, state.deck, HAND_SIZE - len(state.hands[seat]), "cards_drawn", label)
        deck = _draw_into(events, seat, deck, MARKET_SIZE - len(state.market), "market_refilled", label)
        if not deck and state.deck:
            events.append(Event("deck_emptied", {}))
        if seat == 1 and not state.ending and _ends(events):
            # LT-17: the End card came up in the refill closing the round, which is complete already.
            end_drawn = any(event.type == "end_card_revealed" for event in events)
            events.append(game_over(state, "end card" if end_drawn else "deck empty"))
        return events

    view = staticmethod(view)  # (state, seat) -> dict: view.py

    def ranking(self, state: State) -> list[int]:
        return ranking(state)

    def determinizer(self, seat: int) -> Sighting:
        """What ``seat`` has seen, and full tables drawn from it (engines/lemur_tails/determinize.py)."""
        return Sighting(self, seat)

    def determinize(self, events_for_seat: Sequence[Event], seat: int, rng: Any) -> State:
        return determinize(self, events_for_seat, seat, rng)

    def action_of(self, event: Event) -> str | None:
        kind = event.type
        data = event.data
        name = self._name
        if kind == "tail_card_played":
            if data["taken"]:
                return f"place:{data['tail']}"
            return f"play:{name[data['card']]}:{data['tail']}"
        if kind == "joker_exchanged":
            return f"exchange:{data['tail']}:{data['position']}:{name[data['card']]}"
        if kind == "sun_lemur_used":
            what = data["action"]
            if what == "market":
                return f"lemur:market:{name[data['card']]}"
            if what == "tail":
                return f"lemur:tail:{data['tail']}"
            return f"lemur:{what}"
        if kind == "taken_card_kept":
            return "keep"
        if kind == "card_discarded":
            return f"discard:{name[data['card']]}"
        if kind == "swap_finished":
            return "draw"
        if kind == "turn_ended":
            return "end"
        return None

def _ends(events: list[Event]) -> bool:
    return any(e.type in ("end_card_revealed", "deck_emptied") for e in events)


def _draw_into(
    events: list[Event], seat: int, deck: tuple[int, ...], count: int, kind: str, label: tuple
) -> tuple[int, ...]:
    """Draw ``count`` cards off ``deck`` into ``events``; the End card is set aside and replaced (LT-8)."""
    if count <= 0 or not deck:
        return deck
    cards = deck[:count]
    index = len(cards)
    end_seen = END in cards
    if end_seen:  # the End card is set aside and the card under it drawn instead
        cards = [card for card in deck[: count + 1] if card != END]
        index = min(count + 1, len(deck))
    if deck[index:] == (END,):
        # LT-15: with no tail card left under it, the End card comes up with the last draw.
        index += 1
        end_seen = True
    if end_seen:
        events.append(Event("end_card_revealed", {"seat": seat}))
    if cards:
        if kind == "cards_drawn":
            events.append(_event((kind, {"seat": seat, "count": len(cards)}, {"cards": _named(cards, label)}, (seat,))))
        else:
            events.append(Event(kind, {"cards": _named(cards, label)}))
    return deck[index:]


def _named(cards, label: tuple) -> list:
    """Cards as an event lists them: ascending ids (so by kind), each named by ``label``."""
    return list(map(label.__getitem__, sorted(cards)))


ENGINE = LemurTails()
"""The current rules (version 2)."""
VERSION_1 = LemurTails(1)
"""The first rules (events named physical copies); kept so that every log written with them still verifies."""
