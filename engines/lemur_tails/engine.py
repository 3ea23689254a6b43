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
module is the engine: the fold, the chance steps, views and ranking. Card data lives in
engines/lemur_tails/cards.py, the state and the turn rules (legal actions, decide) in
engines/lemur_tails/rules.py. Rules as implemented, rulings LT-1..LT-9 and the new ones (LT-10..)
are in docs/games/lemur-tails.md.

Two rules versions, one class: version 1 named the physical copy of a card in its events, which
told an opponent which copies a hand did not hold; version 2 names only kinds (LT-21). A log names
its version and is folded by that one, so every version-1 log still verifies (``VERSIONS``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import CHANCE, TERMINAL, Config, ConfigError, Engine, Event, determinize, replacer
from engines.lemur_tails.cards import (
    BOTTOM,
    END,
    HAND_SIZE,
    IDS,
    MARKET_SIZE,
    NAME_RANGE,
    NAMES,
    SUN_LEMURS_ASIDE,
    SUN_LEMURS_START,
    TAIL_CARDS,
    TAIL_INDEX,
    TAILS,
    canonical_ids,
)
from engines.lemur_tails.determinize import Sighting
from engines.lemur_tails.rules import (
    END_BOXED,
    END_DRAWN,
    END_IN_DECK,
    MOVE_CAP,
    PASS,
    PLAY,
    SWAP,
    TAKEN,
    State,
    _event,
    decide,
    drawable,
    game_over,
    legal_actions,
    ranking,
)

# How every turn begins: no card added yet, no series, nothing held, nothing discarded.
TURN_START = {
    "added": 0, "series_tail": -1, "series_len": 0, "phase": PLAY, "held": -1, "held_public": False, "discards": 0,
}  # fmt: skip


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
        # How events name a card (a physical id, or its kind), and how the fold finds (the index of)
        # a card an event names among the cards it leaves (a hand, the market): the id itself, or
        # the lowest copy of that kind there, as decide() picked it (LT-16).
        self._label = IDS if version == 1 else NAMES
        self._find = _find_id if version == 1 else _find_lowest
        self._deck = tuple if version == 1 else canonical_ids
        self._name = NAMES if version == 1 else _NAME_OF_NAME
        self._fold = {
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

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": seat,
            "turn": state.turn,
            "phase": "over" if state.over else ("chance" if state.pending else state.phase),
            "hand_sizes": [len(state.hands[0]), len(state.hands[1])],
            "tails": {name: [NAMES[c] for c in tail] for name, tail in zip(TAILS, state.tails, strict=True)},
            "market": [NAMES[c] for c in state.market],
            "sun_lemurs": [{"present": state.present[s], "empty": state.empty[s]} for s in (0, 1)],
            "sun_lemurs_aside": state.aside,
            "deck_size": len(state.deck),
            "discard_pile": [NAMES[c] for c in state.discard],
            "end_card_drawn": state.end_card == END_DRAWN,
            "game_ending": state.ending,
            "turns_played": list(state.turns),
            "added_this_turn": state.added,
            "series": {
                "tail": TAILS[state.series_tail] if state.series_tail >= 0 else None,
                "length": state.series_len,
            },
            "discards_made": state.discards,
            "taken": None,
            "over": state.over or None,
        }
        if seat is not None:
            out["hand"] = [NAMES[c] for c in state.hands[seat]]
        # A blind-drawn card is known to both seats (it left one hand for the other), not to spectators.
        if state.held >= 0 and (state.held_public or seat is not None):
            out["taken"] = NAMES[state.held]
        return out

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

    # ------------------------------------------------------------------ the fold

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


_NAME_OF_NAME = {name: name for name in NAMES}
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


# The fold's commonest steps, each a State.replace of its fields at once (engines.base.replacer).
_PLAYED = replacer(
    State, "tails", "hands", "added", "series_tail", "series_len", "pending", phase=PLAY, held=-1, held_public=False
)
_DISCARDED = replacer(State, "hands", "discard", "discards", "phase")
_TURN_ENDED = replacer(State, "turns", "turn", "pending", **TURN_START)
_DREW = replacer(State, "hands", "deck", pending=())


ENGINE = LemurTails()
"""The current rules (version 2)."""
VERSION_1 = LemurTails(1)
"""The first rules (events named physical copies); kept so that every log written with them still verifies."""
