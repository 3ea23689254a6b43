"""What a bot is, for every process that handles one: its spec, its kind, its time limits.

This module imports no sibling of tournaments/bots/: discovery, the in-process host, the
JSON-lines protocol and the runner all build on it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engines.driver import BotFailure

PYTHON = "python"
PROGRAM = "program"
BUILTIN = "builtin"
"""A bot that ships inside tourney (the ladder's validation opponent): BuiltinRandom."""
MANIFEST_SUFFIX = ".bot.json"


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
    cwd: str = "."
    cpu_seconds: int | None = None
    """A program's CPU-time limit (RLIMIT_CPU) per game process; None: no limit (ladders set one)."""
    memory_mb: int | None = None
    """A program's address-space limit (RLIMIT_AS) in MiB; None: no limit."""

    def plays(self, game: str) -> bool | None:
        if self.games is None:
            return None
        return "*" in self.games or game in self.games


@dataclass(slots=True)
class Limits:
    """Time limits: each move may take ``move_time``; overage is paid from a per-game bank."""

    move_time: float = 1.0
    time_bank: float = 5.0
    bank_left: float = field(default=-1.0)

    def __post_init__(self) -> None:
        if self.bank_left < 0:
            self.bank_left = self.time_bank

    @property
    def allowed(self) -> float:
        """The longest the next move may take before the bot forfeits."""
        return self.move_time + self.bank_left

    def charge(self, took: float) -> None:
        """Take a move's overage from the bank; BotFailure when it runs out."""
        if took > self.move_time:
            self.bank_left -= took - self.move_time
        if self.bank_left < 0:
            raise BotFailure(
                f"timed out: took {took:.2f} s with move time {self.move_time:g} s and the time bank spent"
            )
