"""What a bot is, for every process that handles one: its spec, its kind, its limits.

This module imports no sibling of tournaments/bots/: discovery, the in-process host, the
JSON-lines protocol, the sandbox and the runner all build on it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from engines import registry
from engines.driver import BotFailure

PYTHON = "python"
PROGRAM = "program"
BUILTIN = "builtin"
"""A bot that ships inside tourney (the ladder's validation opponent): BuiltinRandom."""
MANIFEST_SUFFIX = ".bot.json"
NAMED_GAMES = 5
"""The most of a bot's declared games a notice names (a bot may declare thousands)."""


class BotError(ValueError):
    """A bots folder or bot file that cannot be used; the message is one clear line."""


@dataclass(frozen=True, slots=True)
class BotSpec:
    """Everything needed to start a bot in any process: picklable, no live objects."""

    name: str
    kind: str
    path: str
    content_hash: str
    games: tuple[str, ...] | None = None
    """Games the bot declares ("*" as a one-item tuple means all); None: ask at the handshake."""
    command: tuple[str, ...] = ()
    """A program's command line, run in ``cwd``; a Python bot's is tourney's own host (pyhost)."""
    cwd: str = "."
    """The bot's folder: the command runs there, and ``files`` are relative to it."""
    files: tuple[str, ...] = ()
    """The bot's own files (what its content hash covers): all a sandboxed bot sees of its folder."""

    def plays(self, game: str) -> bool | None:
        if self.games is None:
            return None
        return "*" in self.games or game in self.games

    def not_playing(self, game: str) -> str | None:
        """Why the bot is left out of ``game`` (``plays chess, not lemur-tails``), naming the game a name it declares
        was likely meant for when no game has that name (``plays lemur-tail, not lemur-tails (no game is named
        lemur-tail: did you mean lemur-tails?)``); None when it plays it, or says at its handshake."""
        if self.plays(game) is not False:
            return None
        declared = list(dict.fromkeys(self.games or ()))  # the bot's own words: each once, the first few named
        shown = ", ".join(declared[:NAMED_GAMES]) + (f" and {len(declared) - NAMED_GAMES} more"
                                                     if len(declared) > NAMED_GAMES else "")
        known = registry.names()
        meant = [(name, difflib.get_close_matches(name, known, 1)) for name in declared[:NAMED_GAMES]
                 if name not in known]
        hints = [f"no game is named {name}: did you mean {close[0]}?" for name, close in meant if close]
        return f"plays {shown}, not {game}" + (f" ({'; '.join(hints)})" if hints else "")


@dataclass(frozen=True, slots=True)
class Resources:
    """What one bot may use in one game, beyond time (rlimits and scratch space; docs/security.md).

    Without cgroups every limit but the process count is per process: a bot's processes
    together may hold up to ``max_processes`` times ``memory_mb``.
    """

    memory_mb: int = 1024
    """MiB: with cgroups, what the bot's processes hold together (its scratch files, shared memory,
    pipe and socket buffers included); without, RLIMIT_AS of each process."""
    cpu_seconds: int = 60
    """RLIMIT_CPU of each process, per game."""
    max_processes: int = 64
    """RLIMIT_NPROC inside the sandbox: processes and threads, the sandbox's own init included."""
    file_mb: int = 64
    """RLIMIT_FSIZE: the largest file a bot may write."""
    open_files: int = 256
    """RLIMIT_NOFILE."""
    scratch_mb: int = 64
    """Size of each of the sandbox's private tmpfs mounts (the home, /tmp, /dev/shm), at most a quarter
    of ``memory_mb`` each (``scratch_bytes``)."""

    def scratch_bytes(self) -> int:
        """The size of each scratch mount: ``scratch_mb``, but at most a quarter of ``memory_mb``, so
        that the three together fit under the bot's memory even where nothing else counts them."""
        return min(self.scratch_mb, max(self.memory_mb // 4, 1)) * 1024 * 1024

    def to_json(self) -> dict[str, int]:
        return {"memory_mb": self.memory_mb, "cpu_seconds": self.cpu_seconds, "max_processes": self.max_processes}


WALL = "wall"
CPU = "cpu"
CLOCKS = (CPU, WALL)
WALL_CAP = 3
"""The CPU clock charges a move its CPU time, or 1/WALL_CAP of its wall-clock time when that is more:
a bot that sleeps or waits uses no CPU and must not stall the game, so a move takes at most this many
times its allowance in wall-clock seconds, and a game at most this many times its time."""


@dataclass(frozen=True, slots=True)
class Confinement:
    """How the bot programs of a run are started: in the sandbox or not, with which limits, how their
    moves are timed, and whether they may run between their turns (docs/bot-protocol.md, "Time")."""

    sandbox: bool
    resources: Resources = field(default_factory=Resources)
    clock: str = WALL
    """How a move's time is measured: CPU, the CPU time of the bot's cgroup (every thread of every
    process it has), or 1/WALL_CAP of the wall-clock time when that is more; or WALL, the wall clock."""
    ponder: bool = True
    """Whether the bot's processes keep running between its turns (False: its cgroup is frozen from
    its answer to its next request, so it cannot use its opponents' time)."""


UNSANDBOXED = Confinement(False)
"""Bots started as plain processes (no sandbox), with the default limits."""


@dataclass(slots=True)
class Limits:
    """Time limits: each move may take ``move_time``; overage is paid from a per-game bank.

    Or a game clock (``--tc BASE+INC``, fastchess's meaning), when ``increment`` is set: the game's
    clock starts at BASE (``time_bank``; ``bank_left`` is what is left of it), a move may take all
    that is left, its time is taken off, and ``increment`` is added after each move; a move that takes
    more than the clock holds forfeits. ``move_time`` is then the increment: what a bot that reads
    only ``move_time_ms`` may spend a move and keep its clock."""

    move_time: float = 1.0
    time_bank: float = 5.0
    bank_left: float = field(default=-1.0)
    increment: float | None = None

    def __post_init__(self) -> None:
        if self.bank_left < 0:
            self.bank_left = self.time_bank

    @classmethod
    def game_clock(cls, base: float, increment: float) -> Limits:
        """``--tc BASE+INC``: BASE seconds on a game's clock, INC added after each move."""
        return cls(increment, base, increment=increment)

    @property
    def tc(self) -> str | None:
        """The game clock as fastchess writes it (``10+0.1``), or None for move time and bank."""
        return None if self.increment is None else f"{self.time_bank:g}+{self.increment:g}"

    @property
    def allowed(self) -> float:
        """The longest the next move may take before the bot forfeits."""
        if self.increment is not None:
            return self.bank_left
        return self.move_time + self.bank_left

    def allowance(self) -> str:
        """What ``allowed`` is made of, for a forfeit's reason: ``move time 1 s and 0.49 s left of its time bank``
        ("" with a game clock: ``told`` says it)."""
        if self.increment is not None:
            return ""
        return f"move time {self.move_time:g} s and {self.bank_left:.2f} s left of its time bank"

    def told(self) -> str:
        """What a forfeit for taking too long adds, with a game clock: whose time ran out."""
        return "" if self.increment is None else f" (all that was left on its game clock, --tc {self.tc})"

    def request(self) -> dict[str, int]:
        """The times an ``act`` request carries: ``deadline_ms`` (the move time) and ``time_bank_ms`` (what is
        left of the bank), which add up to what the move may take; with a game clock, ``clock_ms`` (all of it,
        what UCI calls wtime) and ``increment_ms`` too, the increment being the deadline while the clock holds
        it and the rest of the clock its bank."""
        if self.increment is None:
            return {"deadline_ms": round(self.move_time * 1000), "time_bank_ms": round(self.bank_left * 1000)}
        deadline = min(self.increment, self.bank_left)
        return {"deadline_ms": round(deadline * 1000), "time_bank_ms": round((self.bank_left - deadline) * 1000),
                "clock_ms": round(self.bank_left * 1000), "increment_ms": round(self.increment * 1000)}

    def charge(self, took: float, unit: str = "") -> None:
        """Take a move's overage from the bank (with a game clock: the move's time from the clock, then add the
        increment); BotFailure when it runs out. ``unit`` says what the seconds were ("of CPU" with the CPU
        clock)."""
        measured = f"{took:.2f} s{' ' + unit if unit else ''}"
        if self.increment is not None:
            left = self.bank_left
            self.bank_left -= took
            if self.bank_left < 0:
                raise BotFailure(f"timed out: took {measured}, more than the {left:.2f} s left on its game clock "
                                 f"(--tc {self.tc})")
            self.bank_left += self.increment
            return
        if took > self.move_time:
            self.bank_left -= took - self.move_time
        if self.bank_left < 0:
            raise BotFailure(f"timed out: took {measured} with move time {self.move_time:g} s and the time bank "
                             "spent")
