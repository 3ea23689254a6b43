"""Tiny Tails: a fourth game defined only in tests, to prove that a game needs nothing but the places
docs/games/adding-a-game.md lists (here: this engine, narration.py and encoding.py, registered by
``tests.fourth_game.register``).

Each seat is dealt three cards of a deck of 1 .. 3 x seats + 3 (private). A hundred rounds follow
(long enough for the RL suites' checks); in each, every seat in turn from the round's leader plays
a card face up, and the highest card wins the round: its seat scores the sum of the round's cards
and leads the next. Then every seat draws a card (private) from the cards in no hand: the played
cards go back to the deck. Seats rank by points (a game that keeps scores: ``scores`` is declared
by the protocol and given here).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from engines.base import CHANCE, TERMINAL, Config, ConfigError, Engine, Event, IllegalAction, competition_ranks

NAME = "tiny-tails"
HAND = 3
ROUNDS = 100


def deck(seats: int) -> tuple[int, ...]:
    return tuple(range(1, HAND * seats + 4))


class State(NamedTuple):
    seats: int
    hands: tuple[tuple[int, ...], ...] | None
    """Each seat's cards, ascending (None until dealt; () for a hand this fold may not see)."""
    sizes: tuple[int, ...]
    """Cards in each hand (what every seat may count)."""
    played: tuple[tuple[int, int], ...]
    """This round's (seat, card) in play order."""
    leader: int
    points: tuple[int, ...]
    rounds: int
    """Rounds completed."""
    drawing: bool
    """A round was won: every seat draws a card (a chance step)."""


class TinyTails(Engine):
    name = NAME
    version = 1
    min_seats = 2
    max_seats = 3
    default_seats = 2
    move_cap = ROUNDS * 3
    """Every game ends after a hundred rounds; the cap (in decisions) is never reached."""

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        if not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"{NAME} takes 2-3 seats, not {seats}")
        if options:
            raise ConfigError(f"{NAME} has no options, got {sorted(options)}")
        return Config(seats, {})

    def start(self, config: Config) -> list[Event]:
        return [Event("table_laid", {"seats": config.seats})]

    def apply(self, state: Any, event: Event) -> State:
        data, kind = event.data, event.type
        if kind == "table_laid":
            n = data["seats"]
            return State(n, None, (0,) * n, (), 0, (0,) * n, 0, False)
        if kind == "hand_dealt":
            seat = data["seat"]
            hands, sizes = list(state.hands or ((),) * state.seats), list(state.sizes)
            if event.private is not None:
                hands[seat] = tuple(sorted((*hands[seat], *event.private["cards"])))
            sizes[seat] += data["count"]
            return state._replace(hands=tuple(hands), sizes=tuple(sizes), drawing=False)
        if kind == "card_played":
            seat, card = data["seat"], data["card"]
            hands, sizes = list(state.hands), list(state.sizes)
            hands[seat] = tuple(c for c in hands[seat] if c != card)
            sizes[seat] -= 1
            return state._replace(hands=tuple(hands), sizes=tuple(sizes), played=(*state.played, (seat, card)))
        if kind == "round_won":
            points = list(state.points)
            points[data["seat"]] += data["points"]
            rounds = state.rounds + 1
            return state._replace(played=(), leader=data["seat"], points=tuple(points), rounds=rounds,
                                  drawing=rounds < ROUNDS)
        raise ValueError(f"{NAME} has no event {kind!r}")

    def actor(self, state: State) -> int:
        if state.hands is None or state.drawing:
            return CHANCE
        if state.rounds == ROUNDS:
            return TERMINAL
        return (state.leader + len(state.played)) % state.seats

    def legal_actions(self, state: State) -> list[str]:
        if self.actor(state) < 0:
            return []
        return [f"play:{card}" for card in state.hands[self.actor(state)]]

    def decide(self, state: State, action: str) -> list[Event]:
        seat = self.actor(state)
        if seat < 0:
            raise IllegalAction(f"nobody may act now in {NAME}")
        kind, _, number = action.partition(":") if isinstance(action, str) else ("", "", "")
        if kind != "play" or not number.isdigit():
            raise IllegalAction(f"seat {seat} must play a card, e.g. 'play:5', not {action!r}")
        card = int(number)
        if card not in state.hands[seat]:
            raise IllegalAction(f"seat {seat} cannot play {card}: it is not in its hand")
        events = [Event("card_played", {"seat": seat, "card": card})]
        played = (*state.played, (seat, card))
        if len(played) == state.seats:
            winner, best = max(played, key=lambda pair: pair[1])
            events.append(Event("round_won", {"seat": winner, "card": best, "points": sum(c for _, c in played)}))
        return events

    def chance(self, state: State, rng) -> list[Event]:
        held = {card for hand in state.hands or () for card in hand}
        cards = rng.shuffled([card for card in deck(state.seats) if card not in held])
        each = HAND if state.hands is None else 1
        return [Event("hand_dealt", {"seat": seat, "count": each},
                      {"cards": sorted(cards[seat * each:(seat + 1) * each])}, (seat,)) for seat in range(state.seats)]

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seats": state.seats, "seat": seat, "round": state.rounds, "leader": state.leader,
            "turn": self.actor(state), "points": list(state.points),
            "played": [{"seat": s, "card": c} for s, c in state.played],
            "hand_sizes": list(state.sizes),
        }
        if seat is not None and state.hands is not None:
            out["hand"] = list(state.hands[seat])
        return out

    def ranking(self, state: State) -> list[int]:
        return competition_ranks(state.points)

    def scores(self, state: State) -> list[int]:
        return list(state.points)

    def determinizer(self, seat: int) -> Sighting:
        return Sighting(self, seat)

    def action_of(self, event: Event) -> str | None:
        return f"play:{event.data['card']}" if event.type == "card_played" else None


class Sighting:
    """What one seat has seen (engines.base.Determinizer): the other hands are drawn from the unseen cards."""

    def __init__(self, engine: TinyTails, seat: int) -> None:
        self.engine, self.seat, self.state = engine, seat, None

    def see(self, events: Sequence[Event]) -> None:
        for event in events:
            if event.private is not None and not event.visible_to(self.seat):
                event = Event(event.type, event.data, None, event.audience)
            self.state = self.engine.apply(self.state, event)

    def sample(self, rng: Any) -> State:
        state = self.state
        if state is None or state.hands is None:
            return state
        own = state.hands[self.seat]
        seen = {*own, *(card for _, card in state.played)}
        unseen = [card for card in deck(state.seats) if card not in seen]
        rng.shuffle(unseen)
        hands = []
        for seat in range(state.seats):
            if seat == self.seat:
                hands.append(own)
                continue
            size = state.sizes[seat]
            hands.append(tuple(sorted(unseen[:size])))
            unseen = unseen[size:]
        return state._replace(hands=tuple(hands))


ENGINE = TinyTails()
