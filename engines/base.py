"""The engine protocol: what every game module gives, and the records it speaks in.

A game is a fold: ``state = apply(state, event)`` over the events of its log. The
other functions read a state and say who acts next (a seat, CHANCE or TERMINAL),
what that seat may do, which events a decision causes, which events a chance step
draws, what a seat may see, and how the seats rank.

Actions are short strings ("pass", "play:5", ...), so a legal-action list is small,
hashable, and travels unchanged through JSON to bots in any language (ruling ALL-3).
Event data holds only ints, strings, booleans, lists and dicts: no floats, so that
its canonical bytes are the same on every machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, runtime_checkable

CHANCE = -1
"""``actor(state)`` says the next step is a chance step (ruling ALL-2)."""

TERMINAL = -2
"""``actor(state)`` says the game is over."""

SETUP = -3
"""The actor of a game's opening step: the events ``start(config)`` lays out."""

PUBLIC: tuple[int, ...] = ()
"""The audience of an event with no private part."""


class EngineError(Exception):
    """Base of every error an engine raises."""


class IllegalAction(EngineError):
    """A seat asked for an action the rules do not allow; the message says why."""


class ConfigError(EngineError):
    """A game configuration the engine cannot play (seat count, unknown option)."""


class Event(NamedTuple):
    """One fact of a game, named in the game's own words.

    The names ``game_started``, ``seat_forfeited`` and ``game_ended`` are the log's own
    (replays.record); an engine never uses them. Events are shared, never mutated.

    ``data`` is the public part, seen by everyone. ``private`` is the hidden part,
    seen only by the seats in ``audience`` (everyone else sees a salted commitment
    to it). An event with ``private is None`` is public.

    A NamedTuple (immutable, and cheaper to make than a frozen dataclass: engines make
    one or more per decision, and verification as many again).
    """

    type: str
    data: Mapping[str, Any]
    private: Mapping[str, Any] | None = None
    audience: tuple[int, ...] = PUBLIC

    def visible_to(self, seat: int | None) -> bool:
        """Whether ``seat`` (None: a spectator) may see the private part."""
        return self.private is None or (seat is not None and seat in self.audience)


@dataclass(frozen=True, slots=True)
class Config:
    """A validated game configuration: seat count and game options (JSON-able)."""

    seats: int
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"seats": self.seats, "options": dict(self.options)}


@runtime_checkable
class Engine(Protocol):
    """The interface every game engine implements (see docs/architecture.md).

    Engines are pure: no I/O, no clock, no global RNG. Randomness enters only through
    ``chance(state, rng)``, whose ``rng`` the caller derives from the game seed.
    """

    name: str
    """Registry name, e.g. ``"tails-on-fire"``."""
    version: int
    """Rules version; a log names it and verification folds with that version."""
    min_seats: int
    max_seats: int
    default_seats: int
    move_cap: int
    """The game's hard cap (ruling ALL-4), in the unit its rulings name (turns); see docs/games/."""

    def configure(self, seats: int, options: Mapping[str, Any] | None = None) -> Config:
        """Validate a seat count and options; raise ConfigError with a clear reason."""
        ...

    def start(self, config: Config) -> list[Event]:
        """The opening events before any chance step (the table as laid out)."""
        ...

    def apply(self, state: Any, event: Event) -> Any:
        """The fold step: the state after ``event``. ``state`` is None for the first event.

        Total and cheap, never random, never validating strategy: it trusts events
        that ``decide`` or ``chance`` produced (or that verification checked).
        """
        ...

    def actor(self, state: Any) -> int:
        """The seat to decide, CHANCE, or TERMINAL."""
        ...

    def legal_actions(self, state: Any) -> Sequence[str]:
        """The actions the deciding seat may take now: a small, enumerable list (or tuple).

        The caller must not mutate it: an engine may hand out a shared, precomputed tuple.
        """
        ...

    def decide(self, state: Any, action: str) -> list[Event]:
        """The events ``action`` causes; IllegalAction (with the reason) if not allowed."""
        ...

    def chance(self, state: Any, rng: Any) -> list[Event]:
        """Draw the pending chance outcome from ``rng`` (an engines.chance.Prng)."""
        ...

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) may know; nothing hidden leaks."""
        ...

    def ranking(self, state: Any) -> list[int]:
        """Rank per seat, 1 = best, ties share a rank (ALL-6); scoring as it stands."""
        ...

    def action_of(self, event: Event) -> str | None:
        """The action a decision's first event records, or None if ``event`` opens no decision.

        Verification uses it to re-decide every recorded decision.
        """
        ...

    # Declared with a default here: an engine that subclasses Engine inherits them, and overrides them
    # when its game keeps scores or supports search bots.

    def scores(self, state: Any) -> Sequence[int] | None:
        """Each seat's score as it stands, for a game that keeps scores (the log's game_ended records
        them); None for a game that only ranks (the default)."""
        return None

    def determinizer(self, seat: int) -> Determinizer | None:
        """A Determinizer for ``seat`` (search bots: ISMCTS), or None when the game cannot determinize
        (the default). ``determinize(engine, events_for_seat, seat, rng)`` below is the one-call form."""
        return None


class Determinizer(Protocol):
    """What one seat has seen of a game, folded event by event, and full states drawn from it.

    An engine that supports search bots (ISMCTS) gives ``determinizer(seat)`` (see
    ``determinize`` below). ``see`` folds the seat's redacted events (public events, its own
    private parts; a private part the seat may not see is never read, whatever the event
    carries); ``sample(rng)`` returns a full state consistent with everything seen, its hidden
    parts (other hands, deck orders, unseen picks) drawn uniformly among the assignments
    consistent with those facts, with ``rng`` (an engines.chance.Prng or a random.Random given
    by the caller: only its ``shuffle`` and ``choice`` are used). Pure: no state is shared with
    the engine, and the true state is never read.
    """

    def see(self, events: Sequence[Event]) -> None: ...

    def sample(self, rng: Any) -> Any: ...


def determinize(engine: Engine, events_for_seat: Sequence[Event], seat: int, rng: Any) -> Any:
    """The optional engine function ``determinize(events_for_seat, seat, rng) -> state`` in one call.

    Engines that support it expose ``determinizer(seat) -> Determinizer`` (incremental: a bot
    that samples many states per move folds each event once) and ``determinize`` built on
    this helper. EngineError for an engine without it.
    """
    determinizer = engine.determinizer(seat)
    if determinizer is None:
        raise EngineError(f"{engine.name} cannot determinize (no determinizer in its engine)")
    determinizer.see(events_for_seat)
    return determinizer.sample(rng)


def fold(engine: Engine, events: Sequence[Event], state: Any = None) -> Any:
    """Rebuild a state from events: ``for event in events: state = apply(state, event)``."""
    apply = engine.apply
    for event in events:
        state = apply(state, event)
    return state


# A decision that must fold its own events to know what follows may keep the states it folded
# for apply() to hand back when the driver or the verifier then folds the very same events. The
# states travel as a chain of links (state, event, the state after it, the next link); an engine's
# apply() serves a link only for the very state and event objects it came from (``is``, not
# ``==``), so it is a pure cache: what it returns is their fold, and anything else folds as usual.
NO_LINK: tuple[Any, Any, Any, Any] = (None, None, None, None)
"""Ends a chain of folded steps (no event is None, so it serves nothing)."""


def chain_of(steps: Sequence[tuple[Any, Event, Any]]) -> tuple[Any, Any, Any, Any]:
    """The chain of links of ``steps`` (state, event, the state after it), in order."""
    link = NO_LINK
    for before, event, after in reversed(steps):
        link = (before, event, after, link)
    return link


def competition_ranks(scores: Sequence[Any]) -> list[int]:
    """Rank per seat by descending score, ties sharing the best rank ("1224", ALL-6)."""
    ordered = sorted(scores, reverse=True)
    first_index: dict[Any, int] = {}
    for index, score in enumerate(ordered):
        first_index.setdefault(score, index)
    return [first_index[score] + 1 for score in scores]
