"""High Cards: a tiny game used to test the machinery, not one of the three games.

Each seat is dealt three cards of a shuffled deck (a private chance event). Three
tricks follow; in each, every seat in turn secretly commits a card (a private
decision), and when the last seat has committed, the cards are revealed and the
highest takes the trick. Seats rank by tricks taken.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engines.base import CHANCE, TERMINAL, Config, ConfigError, Engine, Event, IllegalAction, competition_ranks

HAND_SIZE = 3


class State(NamedTuple):
    seats: int
    hands: tuple[tuple[int, ...], ...] | None  # None until dealt
    committed: tuple[int | None, ...]
    tricks: tuple[int, ...]
    turn: int
    decisions: int


class HighCards(Engine):
    name = "high-cards"
    version = 1
    min_seats = 2
    max_seats = 4
    default_seats = 2
    move_cap = 100

    def configure(self, seats: int, options=None) -> Config:
        if not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"high-cards takes 2-4 seats, not {seats}")
        if options:
            raise ConfigError(f"high-cards has no options, got {sorted(options)}")
        return Config(seats, {})

    def start(self, config: Config) -> list[Event]:
        return [Event("table_laid", {"seats": config.seats})]

    def apply(self, state: Any, event: Event) -> State:
        data = event.data
        if event.type == "table_laid":
            n = data["seats"]
            return State(n, None, (None,) * n, (0,) * n, 0, 0)
        if event.type == "hand_dealt":
            cards = tuple(event.private["cards"]) if event.private is not None else ()
            hands = list(state.hands or ((),) * state.seats)
            hands[data["seat"]] = cards
            return state._replace(hands=tuple(hands))
        if event.type == "card_committed":
            seat = data["seat"]
            committed = list(state.committed)
            committed[seat] = event.private["card"] if event.private is not None else -1
            return state._replace(committed=tuple(committed), turn=seat + 1, decisions=state.decisions + 1)
        if event.type == "trick_taken":
            hands = tuple(
                tuple(c for c in hand if c != card) for hand, card in zip(state.hands, data["cards"], strict=True)
            )
            tricks = list(state.tricks)
            tricks[data["winner"]] += 1
            return state._replace(hands=hands, committed=(None,) * state.seats, tricks=tuple(tricks), turn=0)
        raise ValueError(f"high-cards has no event {event.type!r}")

    def actor(self, state: State) -> int:
        if state.hands is None:
            return CHANCE
        if sum(state.tricks) == HAND_SIZE:
            return TERMINAL
        return state.turn

    def legal_actions(self, state: State) -> list[str]:
        return [f"commit:{card}" for card in state.hands[state.turn]]

    def decide(self, state: State, action: str) -> list[Event]:
        seat = state.turn
        kind, _, number = action.partition(":")
        if kind != "commit" or not number.isdigit():
            raise IllegalAction(f"seat {seat} must commit a card, e.g. 'commit:5', not {action!r}")
        card = int(number)
        if card not in state.hands[seat]:
            raise IllegalAction(f"seat {seat} cannot commit {card}: it is not in its hand")
        events = [Event("card_committed", {"seat": seat}, {"card": card}, (seat,))]
        if seat == state.seats - 1:
            cards = [*state.committed[:-1], card]
            winner = max(range(state.seats), key=lambda s: cards[s])
            events.append(Event("trick_taken", {"cards": cards, "winner": winner}))
        return events

    def chance(self, state: State, rng) -> list[Event]:
        deck = rng.shuffled(range(1, 4 * state.seats + 1))
        return [
            Event("hand_dealt", {"seat": seat}, {"cards": sorted(deck[seat * 3 : seat * 3 + 3])}, (seat,))
            for seat in range(state.seats)
        ]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {"tricks": list(state.tricks), "turn": state.turn}
        if seat is not None and state.hands is not None:
            out["hand"] = list(state.hands[seat])
            out["committed"] = state.committed[seat]
        return out

    def ranking(self, state: State) -> list[int]:
        return competition_ranks(state.tricks)

    def action_of(self, event: Event) -> str | None:
        if event.type == "card_committed" and event.private is not None:
            return f"commit:{event.private['card']}"
        return None


ENGINE = HighCards()
