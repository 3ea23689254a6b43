"""A game in progress as OpenSpiel sees it, in plain Python: adapters/openspiel.py wraps it in a pyspiel.State.

``Core`` holds the engine's state, the draws of the chance step now open, the events so far and, per action
applied, what undoes it. It is built for the ways OpenSpiel's algorithms use a state:

* **Cloning is O(1).** Engine states and events are immutable, so a copy shares them. The events and the undo
  records live in ``Log``s that clones share: each state knows how many entries are its own, and one that
  appends where another has gone on first copies its own part (copy on write).
* **Chance steps are announced, not replayed.** An engine's chance step draws uniform numbers one at a time
  (``below(n)``), and each draw is one OpenSpiel chance node of ``n`` outcomes. Before the first draw the step is
  run twice on probes (every draw 0, every draw its largest value): when both ask for the same bounds, the
  bounds do not depend on the outcomes (true of every shuffle, sample and choice in the three games), so each
  node's ``n`` is known at once and the step runs for real once, when its last draw is in, checking that it asks
  for exactly those bounds. Otherwise the step is replayed from its first draw at every node, as before.
* **Strings are made when read.** The information-state strings (one JSON event a line) are rendered per event
  the first time a player's string needs it and kept in the log, so applying an action never pays for them.
* **Serialisation is linear.** A pickled core is where it started (the initial state, or a determinization and
  the events before it) and the list of actions since; loading replays them. Nothing nests with the history.
* **Undo** restores the record of the last action: exact. A record keeps the engine state from before its action
  only for every CHECKPOINT-th action; undoing another refolds, from the nearest kept state before it, the events
  since (fewer than CHECKPOINT actions' worth). Keeping every state made the engines run at half speed in long
  games: thousands of live states per game, each surviving object work for Python's cyclic garbage collector
  and memory the allocator cannot reuse while it is still hot in the CPU's caches (docs/rl.md, "Speed").
* **Resampling** draws a full state from what a player has seen, with the engine's determinizer
  (``engine.determinizer(player)``, fed the events as that player sees them). The new core starts at the
  sample; its ``past`` keeps the events before it (read only as the resampling player saw them), so that
  player's information-state string is the very one of the state it came from. Another player's information
  state there is the public events before the sample, then a line with what that player privately holds in the
  sample (its view less the spectator's), then everything since as it sees it: what it knows in that world,
  though not a perfect recall of how it came to know it (its past private events are not part of the sample).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from itertools import islice
from typing import Any

from adapters.actions import SPACES, ActionSpace
from adapters.rewards import rewards
from engines import registry
from engines.base import CHANCE, TERMINAL, EngineError, Event
from engines.chance import Prng

CHANCE_PLAYER = -1
TERMINAL_PLAYER = -4
"""pyspiel.PlayerId.CHANCE and .TERMINAL (this module imports no pyspiel)."""

CHECKPOINT = 16
"""An undo record keeps the engine state before its action when its index is a multiple of this (the module
docstring): undo then folds at most the events of CHECKPOINT - 1 actions."""

KINDS = ("seat", "public", "all", "seat-secret", "all-secret")
"""What an information-state string holds: a player's view of each event (public part, and the private part if
it may see it), the public parts only, every part, the private parts the player may see, every private part."""


class NeedDraw(Exception):
    """The chance step needs one more uniform draw below ``n`` than it was given."""

    def __init__(self, n: int) -> None:
        super().__init__(n)
        self.n = n


class Draws(Prng):
    """A Prng whose ``below`` hands out given outcomes, checking each bound against ``bounds`` when given."""

    __slots__ = ("bounds", "outcomes", "used")

    def __init__(self, outcomes: tuple[int, ...], bounds: tuple[int, ...] | None = None) -> None:
        self.outcomes = outcomes  # no seed: nothing is hashed
        self.bounds = bounds
        self.used = 0

    def below(self, n: int) -> int:
        used = self.used
        if used == len(self.outcomes):
            raise NeedDraw(n)
        if self.bounds is not None and self.bounds[used] != n:
            raise EngineError(f"chance draw {used} asked for a number below {n}, announced below {self.bounds[used]}")
        self.used = used + 1
        return self.outcomes[used]


class Probe(Prng):
    """A Prng that answers every ``below(n)`` with 0 (``top=False``) or n - 1 and records the bounds asked."""

    __slots__ = ("bounds", "top")

    def __init__(self, top: bool) -> None:
        self.top = top
        self.bounds: list[int] = []

    def below(self, n: int) -> int:
        self.bounds.append(n)
        return n - 1 if self.top else 0


def probe(engine: Any, state: Any) -> tuple[tuple[int, ...] | None, list[Event] | None]:
    """A chance step's bounds, if they do not depend on its outcomes (else None), and its events if it draws nothing."""
    low = Probe(False)
    events = engine.chance(state, low)
    if not low.bounds:
        return (), events
    high = Probe(True)
    engine.chance(state, high)
    return (tuple(low.bounds), None) if high.bounds == low.bounds else (None, None)


class Log:
    """A list that states with a common past share (see the module docstring), with the lines rendered from it."""

    __slots__ = ("items", "joined", "lines")

    def __init__(self, items: list | None = None) -> None:
        self.items: list = items if items is not None else []
        self.lines: dict[str, list] = {}  # rendering -> its line for each of the first items
        self.joined: dict[tuple[str, int | None], tuple[int, str]] = {}  # (kind, player) -> (items read, string)

    def at(self, n: int) -> Log:
        """A log of this one's first ``n`` items to append to: itself, or a copy when another state went on past n."""
        if len(self.items) == n:
            return self
        log = Log(self.items[:n])
        log.lines = {name: lines[:n] for name, lines in self.lines.items()}
        return log

    def add(self, n: int, item: Any) -> Log:
        """This log with ``item`` after its first ``n`` items (itself, or a copy: see ``at``)."""
        log = self.at(n)
        log.items.append(item)
        return log


def _public(event: Event) -> str:
    return json.dumps({"type": event.type, "data": event.data}, sort_keys=True)


def _full(event: Event) -> str:
    if event.private is None:
        return _public(event)
    return json.dumps({"type": event.type, "data": event.data, "private": event.private}, sort_keys=True)


def _secret(event: Event) -> str | None:
    if event.private is None:
        return None
    return json.dumps({"type": event.type, "private": event.private}, sort_keys=True)


RENDER = {"public": _public, "full": _full, "secret": _secret}


def _rendered(log: Log, name: str, n: int) -> list:
    lines = log.lines.setdefault(name, [])
    if len(lines) < n:
        render = RENDER[name]
        lines.extend(render(event) for event in log.items[len(lines):n])
    return lines


def text(log: Log, n: int, kind: str, player: int | None) -> str:
    """The first ``n`` events of ``log`` as one string of the given kind (see KINDS), one JSON event a line."""
    key = (kind, player)
    cached = log.joined.get(key)
    if cached is not None and cached[0] == n:
        return cached[1]
    start, head = (cached if cached is not None and cached[0] < n else (0, ""))
    events = log.items
    if kind == "public":
        lines = _rendered(log, "public", n)[start:n]
    elif kind == "all":
        lines = _rendered(log, "full", n)[start:n]
    elif kind == "seat":
        public, full = _rendered(log, "public", n), _rendered(log, "full", n)
        lines = [full[i] if events[i].private is not None and player in events[i].audience else public[i]
                 for i in range(start, n)]
    else:
        secret = _rendered(log, "secret", n)
        lines = [secret[i] for i in range(start, n)
                 if secret[i] is not None and (kind == "all-secret" or player in events[i].audience)]
    out = joined(head, "\n".join(lines))
    log.joined[key] = (n, out)
    return out


def joined(*parts: str) -> str:
    """Non-empty strings, one a line."""
    return "\n".join(part for part in parts if part)


def private_view(engine: Any, state: Any, seat: int) -> dict[str, Any]:
    """What ``seat`` sees that a spectator does not: the entries of its view that differ from the spectator's."""
    public = engine.view(state, None)
    return {key: value for key, value in engine.view(state, seat).items() if key not in public or public[key] != value}


def seeded(rng: Any) -> Any:
    """An rng the determinizers can use (``shuffle``, ``choice``): ``rng`` itself, or one seeded from a sampler.

    OpenSpiel hands ``resample_from_infostate`` a ``pyspiel.UniformProbabilitySampler`` (a callable giving floats
    in [0, 1)); two of its numbers seed a ``random.Random``.
    """
    if hasattr(rng, "shuffle") and hasattr(rng, "choice"):
        return rng
    if callable(rng):
        return random.Random(int(rng() * 2**53) << 53 | int(rng() * 2**53))
    raise TypeError(f"resample_from_infostate needs a sampler (a callable giving floats in [0, 1)) or an rng, "
                    f"not {type(rng).__name__}")


class Rules:
    """What every state of one table shares: the game, its engine, action space and seat count."""

    __slots__ = ("engine", "name", "players", "space")

    def __init__(self, name: str, players: int) -> None:
        self.name = name
        self.players = players
        self.engine = registry.get(name)
        self.space: ActionSpace = SPACES[name]

    def __reduce__(self):
        return Rules, (self.name, self.players)


class Past:
    """The events before a resampled state (read only as ``seat`` saw them) and the sample it starts from."""

    __slots__ = ("log", "n", "sample", "seat")

    def __init__(self, log: Log, n: int, seat: int, sample: Any) -> None:
        self.log = log
        self.n = n
        self.seat = seat
        self.sample = sample

    def __reduce__(self):
        return _past, (self.log.items[:self.n], self.seat, self.sample)

    def head(self, rules: Rules, kind: str, player: int) -> str:
        """What ``player``'s information state of ``kind`` holds of the time before the sample."""
        if player == self.seat and kind in ("seat", "seat-secret"):
            return text(self.log, self.n, kind, player)
        public = text(self.log, self.n, "public", None) if kind in ("public", "seat", "all") else ""
        if kind == "public":
            return public
        engine, sample = rules.engine, self.sample
        seats = [player] if kind.startswith("seat") else range(rules.players)
        line = json.dumps({"type": "resampled", "private": {str(seat): private_view(engine, sample, seat)
                                                            for seat in seats}}, sort_keys=True)
        return joined(public, line)


def _past(events: list, seat: int, sample: Any) -> Past:
    return Past(Log(events), len(events), seat, sample)


class Core:
    """One state of a game as OpenSpiel sees it (see the module docstring)."""

    __slots__ = ("actor", "bounds", "draws", "events", "legal", "memo", "moves", "n_events", "n_moves", "now",
                 "origin", "past", "pending", "ready", "rules", "steps")

    def __init__(self, rules: Rules, now: Any, past: Past | None = None, steps: int = 0) -> None:
        self.rules = rules
        self.now = now
        self.past = past
        self.origin: tuple[Any, Past | None, int] | None = None  # where a core not built by initial() started
        self.events = Log()
        self.n_events = 0
        self.moves = Log()  # per action applied: (player, action, then the position before it, as undo restores it)
        self.n_moves = 0
        self.draws: tuple[int, ...] = ()  # outcomes drawn so far in the open chance step
        self.bounds: tuple[int, ...] | None = None  # the open chance step's bounds, when announced (module docstring)
        self.ready: list[Event] | None = None  # a chance step's events known before it runs (it draws nothing)
        self.pending = 0  # outcomes of the chance node now open (0: none)
        self.steps = steps  # chance steps completed: the k-th draws from the game's PRNG stream k
        self.actor = CHANCE
        self.legal: tuple[int, ...] | None = None  # a tuple: the collector stops looking at it (a list it walks)
        self.memo: dict[int, tuple[int, Any]] = {}  # player -> (events it has seen, its determinizer)

    @classmethod
    def initial(cls, rules: Rules) -> Core:
        """The game as laid out, up to its first chance node or decision."""
        engine = rules.engine
        core = cls(rules, None)
        core._fold(engine.start(engine.configure(rules.players)))
        core.settle()
        return core

    @classmethod
    def at(cls, rules: Rules, now: Any, past: Past | None = None, steps: int = 0) -> Core:
        """A game from the engine state ``now`` on (a determinization), its events before it in ``past``."""
        core = cls(rules, now, past, steps)
        core.origin = (now, past, steps)
        core.settle()
        return core

    # --- copying and pickling ---------------------------------------------------------------------------------

    def __copy__(self) -> Core:
        copy = Core.__new__(Core)
        for name in Core.__slots__:
            setattr(copy, name, getattr(self, name))
        copy.memo = {}  # a determinizer is fed as its state moves on: each state has its own
        return copy

    def __deepcopy__(self, memo) -> Core:  # pyspiel clones a Python state with copy.deepcopy of its attributes
        return self.__copy__()

    def __reduce__(self):
        return _rebuild, (self.rules, self.origin, [move[1] for move in self.moves.items[:self.n_moves]])

    # --- reading --------------------------------------------------------------------------------------------

    def current_player(self) -> int:
        if self.pending:
            return CHANCE_PLAYER
        return TERMINAL_PLAYER if self.actor == TERMINAL else self.actor

    def is_terminal(self) -> bool:
        return not self.pending and self.actor == TERMINAL

    def legal_actions(self) -> list[int]:
        """The legal actions of the player to act (the chance outcomes at a chance node), sorted."""
        if self.pending:
            return list(range(self.pending))
        if self.actor < 0:
            return []
        legal = self.legal
        if legal is None:
            index = self.rules.space.index
            legal = self.legal = tuple(sorted(map(index.__getitem__, self.rules.engine.legal_actions(self.now))))
        return list(legal)

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.rules.players
        return rewards(self.rules.engine.ranking(self.now))

    def text(self, kind: str, player: int) -> str:
        """``player``'s information state of ``kind`` (KINDS): every event so far, one JSON event a line."""
        own = text(self.events, self.n_events, kind, player) if self.n_events else ""
        if self.past is None:
            return own
        return joined(self.past.head(self.rules, kind, player), own)

    def seen(self, player: int) -> Iterator[Event]:
        """Every event so far (from before the sample too, for a resampled state); for ``player``'s determinizer."""
        past = self.past
        if past is not None:
            if past.seat != player:
                raise ValueError(f"this state was resampled for player {past.seat}: only that player can resample "
                                 f"it again (player {player}'s past events are not part of the sample)")
            yield from past.log.items[:past.n]
        yield from self.events.items[:self.n_events]

    def history(self) -> list[tuple[int, int]]:
        """(player, action) of every action applied since this core's origin."""
        return [(move[0], move[1]) for move in self.moves.items[:self.n_moves]]

    # --- moving on ------------------------------------------------------------------------------------------

    def apply(self, action: int) -> None:
        """Apply a decision's action index, or a chance outcome at a chance node (ValueError, IllegalAction if bad)."""
        action = int(action)
        if self.pending:
            if not 0 <= action < self.pending:
                raise ValueError(f"chance outcome {action} is not one of 0..{self.pending - 1}")
            self._remember(CHANCE_PLAYER, action)
            draws = self.draws = (*self.draws, action)
            bounds = self.bounds
            if bounds is not None and len(draws) < len(bounds):
                self.pending = bounds[len(draws)]
                return
            self.settle()
            return
        if self.actor < 0:
            raise ValueError("the game is over: no action can be applied")
        names = self.rules.space.names
        if not 0 <= action < len(names):
            raise ValueError(f"action {action} is not an action of {self.rules.name} (0..{len(names) - 1})")
        events = self.rules.engine.decide(self.now, names[action])  # IllegalAction, with the reason
        self._remember(self.actor, action)
        self._fold(events)
        self.settle()

    def _remember(self, player: int, action: int) -> None:
        # One flat tuple a move (this runs at every step, chance draws included): player, action, then what undo()
        # restores, in its order; the engine state only at a checkpoint (CHECKPOINT), None elsewhere.
        n = self.n_moves
        moves = self.moves = self.moves.at(n)
        moves.items.append((player, action, None if n % CHECKPOINT else self.now, self.actor, self.draws, self.bounds,
                            self.ready, self.pending, self.steps, self.n_events, self.legal))
        self.n_moves = n + 1

    def undo(self, player: int, action: int) -> None:
        """Take back the last action, which must be ``action`` by ``player`` (ValueError otherwise)."""
        if not self.n_moves:
            raise ValueError("no action to undo: this state is where it started")
        index = self.n_moves - 1
        records = self.moves.items
        last, taken, now, *position = records[index]
        if (last, taken) != (player, action):
            raise ValueError(f"the last action was {taken} by player {last}, not {action} by player {player}")
        if now is None:  # refold from the checkpoint before it: its state, then the events since (the same fold)
            checkpoint = records[index - index % CHECKPOINT]
            now, apply = checkpoint[2], self.rules.engine.apply
            # [9] of a record and [6] of its position: n_events, the events folded before that record's action.
            for event in self.events.items[checkpoint[9]:position[6]]:
                now = apply(now, event)
        self.now = now
        (self.actor, self.draws, self.bounds, self.ready, self.pending, self.steps, self.n_events,
         self.legal) = position
        self.n_moves = index
        self.memo = {}

    def _fold(self, events) -> None:
        apply = self.rules.engine.apply
        state = self.now
        for event in events:
            state = apply(state, event)
        log = self.events = self.events.at(self.n_events)
        log.items.extend(events)
        self.now, self.n_events = state, len(log.items)
        self.legal = None

    def settle(self) -> None:
        """Run chance steps as far as the draws given allow: stop at a draw still to make, a seat, or the end."""
        engine = self.rules.engine
        while True:
            actor = engine.actor(self.now)
            if actor != CHANCE:
                self.actor, self.pending, self.draws, self.bounds, self.ready = actor, 0, (), None, None
                self.legal = None
                return
            self.actor = CHANCE
            draws = self.draws
            if not draws:  # a chance step begins
                self.bounds, self.ready = probe(engine, self.now)
            bounds = self.bounds
            if bounds is None:  # bounds that depend on the outcomes: replay the step with the draws so far
                try:
                    events = engine.chance(self.now, Draws(draws))
                except NeedDraw as need:
                    self.pending = need.n
                    return
            elif len(draws) < len(bounds):
                self.pending = bounds[len(draws)]
                return
            elif self.ready is not None:
                events = self.ready
            else:
                events = engine.chance(self.now, Draws(draws, bounds))
            self.draws, self.bounds, self.ready, self.pending = (), None, None, 0
            self.steps += 1
            self._fold(events)

    # --- determinizing --------------------------------------------------------------------------------------

    def resample(self, player: int, rng: Any) -> Core:
        """A core at a full state drawn from what ``player`` has seen (the module docstring says what it keeps)."""
        sighting = self.sighting(player)
        sample = sighting.sample(seeded(rng))
        past = self.past
        if past is None:
            past = Past(self.events, self.n_events, player, sample)
        elif not self.n_events:
            past = Past(past.log, past.n, player, sample)
        else:  # resampled twice: the events before the first sample and since, as one past
            seen = list(self.seen(player))
            past = Past(Log(seen), len(seen), player, sample)
        return Core.at(self.rules, sample, past, self.steps)

    def sighting(self, player: int) -> Any:
        """The engine's determinizer for ``player``, fed every event so far (kept, and fed only what is new)."""
        total = self.n_events + (self.past.n if self.past is not None else 0)
        had, sighting = self.memo.get(player, (0, None))
        if sighting is None:
            sighting = self.rules.engine.determinizer(player)
        if had < total:
            sighting.see(list(islice(self.seen(player), had, None)))
            self.memo[player] = (total, sighting)
        return sighting


def _rebuild(rules: Rules, origin: tuple[Any, Past | None, int] | None, actions: list[int]) -> Core:
    core = Core.initial(rules) if origin is None else Core.at(rules, *origin)
    for action in actions:
        core.apply(action)
    return core
