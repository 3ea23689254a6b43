"""The one generic driver: plays any engine with given agents and a seed.

While the game is not over, it asks CHANCE (a Prng on the step's own stream) or the
deciding seat's agent, turns the answer into events with ``decide``, folds them with
``apply`` and records them. Tournaments, tests, benchmarks and verification all use it.

It is the hot loop, so it pays only for what an agent reads: a seat's view and the
events it missed are built when the agent asks for them (``Turn.view``,
``Turn.events``), never before, and no state is ever copied.

An agent that fails (raises BotFailure, answers something that is not a string, or
answers an illegal action) forfeits under ruling ALL-5: the game ends at once, the
offender ranks last alone, the others rank by the game's scoring as it stands. The reason
is kept (in the log's ``seat_forfeited``) to at most ``MAX_REASON_BYTES``: whatever a bot
sent (a megabyte of illegal action, a long decline) is cut there, with a marker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

from engines.base import (
    CHANCE,
    SETUP,
    TERMINAL,
    Config,
    Engine,
    EngineError,
    Event,
    IllegalAction,
    competition_ranks,
    fold,
)
from engines.chance import Prng

MAX_REASON_BYTES = 1024
"""The longest forfeit reason a game records, in UTF-8 bytes, the cut marker included."""


class BotFailure(Exception):
    """An agent could not give an answer (crash, timeout, garbage); the message says which."""


def not_an_action(answer: object) -> str:
    """Why an answer that is no string is no action: its type and the start of its repr, and for None the usual
    cause (an ``act`` without its ``return``)."""
    told = f"answered {type(answer).__name__} {answer!r:.80}, not one of its legal actions"
    return f"{told}: its act returned nothing (a missing return?)" if answer is None else told


class Agent(Protocol):
    """Anything that can answer a Turn with one of its legal actions."""

    def act(self, turn: Turn) -> str: ...


class Step(NamedTuple):
    """One step of a game: who acted (a seat, CHANCE or SETUP), the action, and its events.

    A NamedTuple rather than a frozen dataclass: the driver makes one per decision.
    """

    actor: int
    action: str | None
    events: Sequence[Event]


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: the ranking per seat and why (finished or forfeit)."""

    ranking: tuple[int, ...]
    reason: str
    forfeit_seat: int | None = None
    forfeit_reason: str | None = None


@dataclass(slots=True)
class Played:
    """A finished game: every step in order, the outcome, and the last state."""

    steps: list[Step]
    outcome: Outcome
    state: Any = None

    @property
    def events(self) -> list[Event]:
        return [event for step in self.steps for event in step.events]


def redact(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` (None: a spectator) sees it: private part dropped if not theirs."""
    if event.visible_to(seat):
        return event
    return Event(event.type, event.data, None, event.audience)


class Turn:
    """The question put to a seat's agent; the costly parts are built on demand.

    The driver keeps one Turn per seat and refreshes it for each of the seat's decisions,
    so a Turn is valid only while ``act`` runs: an agent must not keep it.
    """

    __slots__ = ("_determinizer", "_engine", "_history", "_seen", "_since", "_state", "_view", "legal", "seat")

    def __init__(
        self, engine: Engine, state: Any, seat: int, legal: list[str], history: list[Event], since: int
    ) -> None:
        # The state stays private: an in-process bot reads only what its seat may see.
        self._engine = engine
        self._state = state
        self.seat = seat
        self.legal = legal
        self._history = history
        self._since = since
        self._view: dict[str, Any] | None = None
        # The seat's determinizer and how much of the history it has seen: made on the first
        # determinize() and kept across the seat's decisions (the driver itself never touches them).
        self._determinizer: Any = None
        self._seen = 0

    @property
    def view(self) -> dict[str, Any]:
        """What this seat may know now (built once, on first use)."""
        if self._view is None:
            self._view = self._engine.view(self._state, self.seat)
        return self._view

    @property
    def events(self) -> list[Event]:
        """The events since this seat was last asked (its own last decision's events first), redacted for it.

        Over a game, a seat's turn.events add up to every event before its current turn, once each.
        """
        seat = self.seat
        return [redact(event, seat) for event in self._history[self._since :]]

    def determinize(self, rng: Any) -> Any:
        """A full state consistent with everything this seat has seen, its hidden parts drawn with ``rng``.

        For search bots (ISMCTS): the state comes from the seat's own redacted event stream over
        the whole game, never from the true state (engines.base.Determinizer). The events are
        folded once, on demand, so many samples in one move cost one fold of what is new.
        ``rng`` is the bot's: an engines.chance.Prng or a random.Random. EngineError if the game
        has no determinizer.
        """
        determinizer = self._determinizer
        if determinizer is None:
            determinizer = self._determinizer = self._engine.determinizer(self.seat)
            if determinizer is None:
                raise EngineError(f"{self._engine.name} cannot determinize (no determinizer in its engine)")
        history, seat = self._history, self.seat
        if self._seen < len(history):
            determinizer.see([redact(event, seat) for event in history[self._seen :]])
            self._seen = len(history)
        return determinizer.sample(rng)


def forfeit_ranking(ranking: Sequence[int], offender: int) -> tuple[int, ...]:
    """ALL-5: the offender ranks last alone; the others keep their order as it stands."""
    others = [seat for seat in range(len(ranking)) if seat != offender]
    ranks = competition_ranks([-ranking[seat] for seat in others])
    out = [0] * len(ranking)
    for seat, rank in zip(others, ranks, strict=True):
        out[seat] = rank
    out[offender] = len(ranking)
    return tuple(out)


def opening(engine: Engine, config: Config, seed: str) -> tuple[Any, list[Step], int]:
    """Lay out the table: the engine's start events, then chance steps until a seat acts.

    Returns the state, the steps taken and the next chance stream.
    """
    start = tuple(engine.start(config))
    state, steps, stream = chance_steps(engine, fold(engine, start), seed, 0)
    return state, [Step(SETUP, None, start), *steps], stream


def chance_steps(engine: Engine, state: Any, seed: str, stream: int) -> tuple[Any, list[Step], int]:
    """Chance steps from ``state`` until a seat acts or the game is over; the state then, the steps, the next stream.

    The k-th chance step of a game draws from stream k of its seed, so whatever plays a game by
    this (the driver, adapters.pettingzoo) deals what the driver deals for that seed.
    """
    steps = []
    while engine.actor(state) == CHANCE:
        events = tuple(engine.chance(state, Prng(seed, stream)))
        state = fold(engine, events, state)
        steps.append(Step(CHANCE, None, events))
        stream += 1
    return state, steps, stream


def setup(engine: Engine, config: Config, seed: str) -> list[Event]:
    """The first events of a game (the setup's chance outcomes included)."""
    return [event for step in opening(engine, config, seed)[1] for event in step.events]


def play(engine: Engine, config: Config, seed: str, agents: Sequence[Agent]) -> Played:
    """Play one game to the end; never raises for an agent's fault (ALL-5)."""
    if len(agents) != config.seats:
        raise ValueError(f"{engine.name} with {config.seats} seats needs {config.seats} agents, got {len(agents)}")
    apply, actor, decide, legal_actions = engine.apply, engine.actor, engine.decide, engine.legal_actions
    state, steps, stream = opening(engine, config, seed)
    history: list[Event] = [event for step in steps for event in step.events]
    turns = [Turn(engine, state, seat, [], history, 0) for seat in range(config.seats)]
    add_step, remember = steps.append, history.extend
    while True:
        seat = actor(state)
        if seat >= 0:
            turn = turns[seat]
            turn._state = state
            turn.legal = legal_actions(state)
            turn._view = None
            try:
                action = agents[seat].act(turn)
                if action.__class__ is not str and not isinstance(action, str):
                    raise BotFailure(not_an_action(action))
                events = decide(state, action)
            except (BotFailure, IllegalAction) as failure:
                return _forfeit(engine, state, steps, agents, seat, failure)
            for event in events:
                state = apply(state, event)
            # The seat's next turn.events start with this decision's own events: what its action
            # set off (a Rogue's turn, a win) is news to it, and its events then add up to the game.
            turn._since = len(history)
            remember(events)
            add_step(Step(seat, action, events))
        elif seat == CHANCE:
            state, dealt, stream = chance_steps(engine, state, seed, stream)
            for step in dealt:
                remember(step.events)
                add_step(step)
        elif seat == TERMINAL:
            break
        else:
            raise EngineError(f"{engine.name}: actor() returned {seat}, not a seat, CHANCE or TERMINAL")
    outcome = Outcome(tuple(engine.ranking(state)), "finished")
    _tell_end(agents, outcome)
    return Played(steps, outcome, state)


def _forfeit(
    engine: Engine, state: Any, steps: list[Step], agents: Sequence[Agent], seat: int, failure: Exception
) -> Played:
    kind = "illegal action" if isinstance(failure, IllegalAction) else "bot failure"
    reason = bounded_reason(f"{kind}: {failure}")
    outcome = Outcome(forfeit_ranking(engine.ranking(state), seat), "forfeit", seat, reason)
    _tell_end(agents, outcome)
    return Played(steps, outcome, state)


def bounded_reason(reason: str) -> str:
    """``reason`` if it fits MAX_REASON_BYTES; else its start, cut on a character boundary, and a marker
    saying how long it was."""
    encoded = reason.encode("utf-8", "replace")
    if len(encoded) <= MAX_REASON_BYTES:
        return reason
    marker = f" ... [cut: {len(encoded)} bytes in all]"
    return encoded[: MAX_REASON_BYTES - len(marker)].decode("utf-8", "ignore") + marker


def _tell_end(agents: Sequence[Agent], outcome: Outcome) -> None:
    for agent in agents:
        end = getattr(agent, "end", None)
        if end is not None:
            end(outcome)


@dataclass(slots=True)
class FirstLegal:
    """The simplest agent: always the first legal action (tests and smoke runs)."""

    calls: int = field(default=0)

    def act(self, turn: Turn) -> str:
        self.calls += 1
        return turn.legal[0]
