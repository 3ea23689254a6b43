"""Nine Tails: help foxes grow nine tails and ascend (2-5 seats).

On its turn a seat VENTUREs (reveals up to three Wilds cards and takes at most one: a
wild fox to claim, a study to tuck under a fox, or a tail card a fox pays for with
exhaustion counters), SNEAKs (takes one card from the Village) or RESTs (clears its
foxes' counters and draws trickery cards). After each turn the other seats may play one
trick, which may itself be cancelled. A fox at exactly nine tails ascends; the first
seat with three ascended foxes (two in the fast game) wins. Rulings NT-1..NT-9 and
ALL-1..ALL-6, and this engine's own NT-10 onwards, are in docs/games/nine-tails.md.

The card list is data (cards.py), the state and the rules' questions of it in state.py, the fold
in fold.py and the flow of a turn in turn.py; the active seat's decisions in rules.py, the trick
and cancel windows and the tricks' effects in tricks.py; views in view.py, determinization in
determinize.py (all in engines/nine_tails/). This module holds the engine: it ties them together
and draws the chance steps.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.base import (
    CHANCE,
    TERMINAL,
    Config,
    ConfigError,
    Engine,
    EngineError,
    Event,
    IllegalAction,
    competition_ranks,
    determinize,
)
from engines.nine_tails.cards import (
    FAST_GOAL,
    GOAL,
    HAND_AT_START,
    KIND,
    MOVE_CAP,
    STARTING_FOX,
)
from engines.nine_tails.determinize import Sighting
from engines.nine_tails.fold import apply
from engines.nine_tails.rules import ACTION_OF, DECIDE, LAST_TURN, LEGAL, OPTIONS, cap_event, close
from engines.nine_tails.state import (
    ASCEND,
    CAP,
    CHANCE_PHASES,
    OVER,
    PICKPOCKET,
    RESHUFFLE,
    SETUP,
    State,
    ascension_cards,
    locate,
)
from engines.nine_tails.view import view


class NineTails(Engine):
    """The Nine Tails engine (see engines.base.Engine)."""

    name = "nine-tails"
    version = 1
    min_seats = 2
    max_seats = 5
    default_seats = 3
    move_cap = MOVE_CAP  # turns, not decisions (NT-9)

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        if not isinstance(seats, int) or not self.min_seats <= seats <= self.max_seats:
            raise ConfigError(f"nine-tails takes 2-5 seats, not {seats!r}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise ConfigError(f"nine-tails has no option {', '.join(unknown)} (options: fast)")
        if "fast" in options and not isinstance(options["fast"], bool):
            raise ConfigError(f"nine-tails option fast must be true or false, not {options['fast']!r}")
        return Config(seats, options)

    def start(self, config: Config) -> list[Event]:
        goal = FAST_GOAL if config.options.get("fast") else GOAL
        return [Event("table_laid", {"seats": config.seats, "goal": goal})]

    apply = staticmethod(apply)  # the fold step (engines/nine_tails/fold.py)

    def actor(self, state: State) -> int:
        phase = state.phase
        if phase in CHANCE_PHASES:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return state.decider

    def legal_actions(self, state: State) -> list[str]:
        legal = LEGAL.get(state.phase)
        return legal(state, state.decider) if legal is not None else []

    def decide(self, state: State, action: str) -> list[Event]:
        decide = DECIDE.get(state.phase)
        if decide is None:
            raise IllegalAction(f"no seat decides now: the game is at its {state.phase} step")
        if not isinstance(action, str):
            raise IllegalAction(f"an action is a string such as 'venture', not {action!r}")
        events = decide(state, state.decider, action)
        return events if state.turns < LAST_TURN else close(state, events)

    def chance(self, state: State, rng: Any) -> list[Event]:
        events = self._chance(state, rng)
        return events if state.turns < LAST_TURN else close(state, events)

    def _chance(self, state: State, rng: Any) -> list[Event]:
        phase = state.phase
        if phase == SETUP:
            return self._setup(state, rng)
        if phase == RESHUFFLE:  # NT-8: the discard pile becomes the Trickery Deck
            order = rng.shuffled(state.discard)
            seat, count = state.decider, min(state.owed, len(order))
            return [
                Event("trickery_reshuffled", {"size": len(order)}, {"order": order}, ()),
                Event("trickery_drawn", {"seat": seat, "count": count, "owed": 0}, {"cards": order[:count]}, (seat,)),
            ]
        if phase == ASCEND:
            return self._ascend(state, rng)
        if phase == PICKPOCKET:  # NT-6 7: a blind draw from the victim's hand
            seat, victim = state.trick_seat, state.victim
            trick = rng.choice(state.hands[victim])
            data = {"seat": seat, "target": victim}
            return [Event("card_pickpocketed", data, {"trick": trick}, tuple(sorted((seat, victim))))]
        if phase == CAP:  # never left pending by close; kept so that no state is ever stuck
            return [cap_event(state)]
        raise EngineError(f"nine-tails has no chance step pending (phase {state.phase})")

    def _setup(self, state: State, rng: Any) -> list[Event]:
        """Rulebook "Setup" 3-5 (ALL-1: seat 0 is the most mischievous and starts)."""
        starting = rng.shuffled(state.starting)
        events = [Event("starting_foxes_shuffled", {"size": len(starting)}, {"order": starting}, ())]
        events += [Event("starting_fox_dealt", {"seat": seat, "fox": starting[seat]}) for seat in range(state.seats)]
        wilds = rng.shuffled(state.wilds)
        events.append(Event("wilds_shuffled", {"size": len(wilds)}, {"order": wilds}, ()))
        trickery = rng.shuffled(state.trickery)
        events.append(Event("trickery_shuffled", {"size": len(trickery)}, {"order": trickery}, ()))
        for seat in range(state.seats):
            cards = trickery[seat * HAND_AT_START : (seat + 1) * HAND_AT_START]
            events.append(Event("trickery_dealt", {"seat": seat, "count": len(cards)}, {"cards": cards}, (seat,)))
        return events

    def _ascend(self, state: State, rng: Any) -> list[Event]:
        """Rulebook "Fox Ascension": the fox's cards are shuffled to the bottom of the Wilds Deck."""
        seat, _, fox = locate(state, state.ascending)
        order = rng.shuffled(ascension_cards(fox))
        starting = state.starting + ((fox.card,) if KIND[fox.card] == STARTING_FOX else ())
        count = state.ascended[seat] + 1
        data = {"seat": seat, "fox": fox.card, "new_fox": starting[0] if starting else "", "ascended": count}
        events = [Event("fox_ascended", data, {"order": order}, ())]
        if count >= state.goal:
            events.append(Event("game_won", {"seat": seat, "ascended": count}))
        return events

    view = staticmethod(view)  # (state, seat) -> dict: view.py

    def ranking(self, state: State) -> list[int]:
        """NT-9: ascended foxes, then the most tails on one fox, then shared."""
        most = [max((fox.count for fox in foxes), default=0) for foxes in state.foxes]
        return competition_ranks(list(zip(state.ascended, most, strict=True)))

    def determinizer(self, seat: int) -> Sighting:
        """What ``seat`` has seen, and full tables drawn from it (engines/nine_tails/determinize.py)."""
        return Sighting(seat)

    def determinize(self, events_for_seat: Sequence[Event], seat: int, rng: Any) -> State:
        return determinize(self, events_for_seat, seat, rng)

    def action_of(self, event: Event) -> str | None:
        action = ACTION_OF.get(event.type)
        return action(event.data) if action is not None else None


ENGINE = NineTails()
