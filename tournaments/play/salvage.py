"""What is left of a game whose worker process died: its flight record, and the game rebuilt from it.

With ``--sandbox off`` Python bots play inside worker processes, and one can end its worker
(``os._exit``, a segfault in an extension). The worker keeps a flight record of each game in
memory its parent can read afterwards (``workers.box``): which seat is acting, every action
answered so far, and the process groups of the game's bot programs. From it the parent

* kills what the game's programs left running (without the sandbox nothing else would);
* when an in-process bot was acting, rebuilds the game exactly as it went, action by action
  with the engine, and ends it there as that seat's forfeit (ruling ALL-5), with the reason
  ``crashed: ended its worker process (exit code 7)``.

When the death cannot be pinned on a seat, the runner plays the game again from its seed.

The record, after the pool's job serial: acting seat + 1 (0: nobody), bytes of actions used,
an overflow flag, ``PROGRAM_SLOTS`` process-group ids, then each action as a 2-byte length and
its UTF-8 bytes.
"""

from __future__ import annotations

import contextlib
import os
import signal
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engines import registry
from engines.base import Config, Engine
from engines.driver import BotFailure, Played, Turn, play
from replays.record import SeatInfo, record
from tournaments.bots.spec import PROGRAM, PYTHON
from tournaments.play.jobs import Job, Result

PROGRAM_SLOTS = 16
_HEADER = struct.Struct(f"<III{PROGRAM_SLOTS}i")
_LENGTH = struct.Struct("<H")


class FlightRecorder:
    """Writes a game's flight record into a worker's shared memory (a memoryview)."""

    __slots__ = ("memory", "used")

    def __init__(self, memory: memoryview) -> None:
        self.memory = memory
        self.used = 0
        _HEADER.pack_into(memory, 0, 0, 0, 0, *[0] * PROGRAM_SLOTS)

    def programs(self, groups: Sequence[int]) -> None:
        """The process groups of the game's bot programs (killed by the parent if the worker dies); a
        sandbox's is its guard's pid negated (the guard is told to end its sandbox, SIGTERM)."""
        slots = [*groups[:PROGRAM_SLOTS], *[0] * (PROGRAM_SLOTS - len(groups))]
        struct.pack_into(f"<{PROGRAM_SLOTS}i", self.memory, 12, *slots)

    def acting(self, seat: int) -> None:
        struct.pack_into("<I", self.memory, 0, seat + 1)

    def answered(self, action: Any) -> None:
        if isinstance(action, str):
            data = action.encode("utf-8", "surrogatepass")
            start = _HEADER.size + self.used
            end = start + _LENGTH.size + len(data)
            if len(data) > 0xFFFF or end > len(self.memory):
                struct.pack_into("<I", self.memory, 8, 1)
            else:
                _LENGTH.pack_into(self.memory, start, len(data))
                self.memory[start + _LENGTH.size:end] = data
                self.used = end - _HEADER.size
                struct.pack_into("<I", self.memory, 4, self.used)
        struct.pack_into("<I", self.memory, 0, 0)


@dataclass(frozen=True, slots=True)
class FlightRecord:
    """A flight record as the parent reads it after the worker died."""

    acting: int | None
    actions: tuple[str, ...] | None
    """Every action answered, in order; None when they did not fit."""
    programs: tuple[int, ...]

    @classmethod
    def read(cls, data: bytes) -> FlightRecord:
        acting, used, overflow, *groups = _HEADER.unpack_from(data, 0)
        actions: list[str] = []
        at, end = _HEADER.size, _HEADER.size + used
        while at < end:
            (length,) = _LENGTH.unpack_from(data, at)
            at += _LENGTH.size
            actions.append(data[at:at + length].decode("utf-8", "surrogatepass"))
            at += length
        return cls(acting - 1 if acting else None, None if overflow else tuple(actions),
                   tuple(group for group in groups if group != 0))

    def kill_programs(self) -> None:
        """SIGKILL each program's process group; SIGTERM each sandbox's guard, which thaws the sandbox's
        cgroup (a frozen process cannot die) and kills it whole (tournaments.sandbox.sandbox._guard)."""
        for group in self.programs:
            with contextlib.suppress(OSError):
                if group < 0:
                    os.kill(-group, signal.SIGTERM)
                else:
                    os.killpg(group, signal.SIGKILL)


class RecordingAgent:
    """An agent whose every turn goes into the flight record (the seat first, then its answer)."""

    __slots__ = ("agent", "recorder", "seat")

    def __init__(self, agent: Any, seat: int, recorder: FlightRecorder) -> None:
        self.agent, self.seat, self.recorder = agent, seat, recorder

    def act(self, turn: Turn) -> Any:
        self.recorder.acting(self.seat)
        try:
            action = self.agent.act(turn)
        except BaseException:
            self.recorder.acting(-1)
            raise
        self.recorder.answered(action)
        return action

    def end(self, outcome) -> None:
        end = getattr(self.agent, "end", None)
        if end is not None:
            end(outcome)


class _Mismatch(Exception):
    """The record does not fit the game (it cannot be rebuilt from it)."""


class _Script:
    """Every seat of the rebuilt game: answers the recorded actions, then fails the acting seat."""

    def __init__(self, actions: Sequence[str], seat: int, reason: str) -> None:
        self.actions = iter(actions)
        self.seat = seat
        self.reason = reason
        self.failed = False

    def act(self, turn: Turn) -> str:
        action = next(self.actions, None)
        if action is not None:
            return action
        if turn.seat != self.seat or self.failed:
            raise _Mismatch
        self.failed = True
        raise BotFailure(self.reason)


def rebuild(engine: Engine, config: Config, seed: str, record: FlightRecord, reason: str) -> Played | None:
    """The game as it went until the acting seat ended its worker, forfeited there; None if the
    record does not fit (then the game is played again instead)."""
    if record.acting is None or record.actions is None:
        return None
    script = _Script(record.actions, record.acting, reason)
    try:
        played = play(engine, config, seed, [script] * config.seats)
    except _Mismatch:
        return None
    if not script.failed or next(script.actions, None) is not None or played.outcome.forfeit_seat != record.acting:
        return None
    return played


def death(exitcode: int) -> str:
    """How a worker process ended, in words: ``exit code 7``, ``killed by SIGKILL``."""
    if exitcode >= 0:
        return f"exit code {exitcode}"
    try:
        return f"killed by {signal.Signals(-exitcode).name}"
    except ValueError:
        return f"killed by signal {-exitcode}"


def after_death(job: Job, memory: bytes, exitcode: int) -> Result | None:
    """The result of a game whose worker died: that seat's forfeit when an in-process bot was acting
    (and nothing else at the table could have killed the worker); None to play it again."""
    flight = FlightRecord.read(memory)
    flight.kill_programs()
    spec, scheduled = job.spec, job.scheduled
    by_name = {bot.name: bot for bot in spec.bots}
    seated = [by_name[name] for name in scheduled.bots]
    if flight.acting is None or spec.sandbox or seated[flight.acting].kind != PYTHON:
        return None
    if exitcode < 0 and any(bot.kind == PROGRAM for bot in seated):
        return None  # a signal may have come from a program bot outside any sandbox
    engine = registry.get(spec.game)
    config = engine.configure(spec.players, spec.options)
    reason = f"crashed: ended its worker process ({death(exitcode)})"
    played = rebuild(engine, config, scheduled.seed, flight, reason)
    if played is None:
        return None
    recorded = record(engine, config, scheduled.seed, played, [SeatInfo(b.name, b.content_hash) for b in seated])
    scores = engine.scores(played.state)
    return Result(scheduled.key, recorded, None if scores is None else list(scores),
                  (None,) * len(seated) if job.keep_logs else None)


def abandon(memory: memoryview) -> None:
    """A worker that stops mid-game kills the bot programs it started (sandboxed ones die with it)."""
    FlightRecord.read(bytes(memory)).kill_programs()
