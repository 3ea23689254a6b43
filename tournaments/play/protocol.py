"""The JSON-lines bot protocol: a bot in any language, run as a separate process.

One JSON object per line each way (docs/bot-protocol.md has an example exchange):

    -> {"type": "hello", "protocol": 1, "game": ..., "seat": 0, "seats": 4, "seed": ...,
        "move_time_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "ready"}                      (or {"type": "decline", "reason": "..."})
    -> {"type": "act", "view": {...}, "legal": [...], "events": [...],
        "deadline_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "action", "action": "play:5"}
    -> {"type": "end", "ranking": [...], "reason": "finished", "seat": 0}

A Python bot is run the same way, through tourney's host (``tournaments.bots.pyhost``). The bot's
process, its deadlines, its sandbox or rlimits and its end are the supervisor's
(``tournaments.sandbox.supervisor``); this module says what the lines mean. A bot that writes
something that is not a protocol message, or a line nobody asked for, fails with that reason
(ruling ALL-5).
"""

from __future__ import annotations

import contextlib
import subprocess
import time
from dataclasses import dataclass, replace
from typing import Any

import orjson

from engines.base import Event
from engines.driver import BotFailure, Outcome, Turn
from tournaments.bots import diagnosis
from tournaments.bots.inprocess import BotCrash
from tournaments.bots.spec import BUILTIN, PYTHON, UNSANDBOXED, BotSpec, Confinement, Limits
from tournaments.sandbox.supervisor import EXIT_GRACE_SECONDS, BotProcess, MoveClock

PROTOCOL_VERSION = 1
HANDSHAKE_SECONDS = 10.0
MAX_REASON = 300
"""The longest failure reason a hosted Python bot may report (it is stored in the ledger)."""
QUOTED_CHARS = 60
"""The most of a garbage line a reason quotes."""



def event_message(event: Event) -> dict[str, Any]:
    """An event as a bot sees it (already redacted for its seat)."""
    message: dict[str, Any] = {"type": event.type, "data": event.data}
    if event.private is not None:
        message["private"] = event.private
    elif event.audience:
        message["hidden"] = True
    return message


class ProgramProcess(BotProcess):
    """A running bot process speaking the protocol: a message written, a message read, each before a
    deadline (the supervisor's ``BotProcess`` moves the bytes)."""

    def send(self, message: dict[str, Any], seconds: float) -> None:
        """Write one message within ``seconds``; BotFailure if the bot stops reading or is gone."""
        self.write(orjson.dumps(message) + b"\n", seconds)

    def receive(self, seconds: float | MoveClock) -> dict[str, Any]:
        """The next message, within ``seconds`` of wall-clock time or the time its clock allows;
        BotFailure naming what went wrong."""
        line = self.read_line(seconds)
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise BotFailure(f"answered garbage: {quoted(line)} is not JSON{NOT_ANSWERS}") from None
        if not isinstance(message, dict):
            raise BotFailure(f"answered garbage: {quoted(line)} is not a JSON object")
        return message


NOT_ANSWERS = " (its stdout is for its answers, a JSON line each: anything else goes to stderr)"
"""What a line of a program's stdout that is no JSON adds: the usual cause is a debug print on stdout."""


def quoted(line: bytes) -> str:
    """A line a bot wrote, as a reason quotes it: as JSON text (its control characters escaped), its first
    QUOTED_CHARS characters and ``[… N characters cut …]`` after them if it had more."""
    text = line.decode("utf-8", "replace")
    shown = orjson.dumps(text[:QUOTED_CHARS]).decode()
    return shown if len(text) <= QUOTED_CHARS else f"{shown} [… {len(text) - QUOTED_CHARS} characters cut …]"


def hello(spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits,
          confinement: Confinement = UNSANDBOXED) -> dict[str, Any]:
    """The hello message; ``clock`` says how its move times are counted, ``tc`` the game clock, if the run has one
    (docs/bot-protocol.md, "Time")."""
    message = {
        "type": "hello", "protocol": PROTOCOL_VERSION, "game": game, "seat": seat, "seats": seats, "seed": seed,
        "move_time_ms": round(limits.move_time * 1000), "time_bank_ms": round(limits.time_bank * 1000),
        "name": spec.name, "clock": confinement.clock,
    }
    if limits.increment is not None:  # a game clock (--tc): added to protocol 1, so older bots ignore it
        message["tc"] = {"base_ms": round(limits.time_bank * 1000), "increment_ms": round(limits.increment * 1000)}
    return message


def handshake(process: ProgramProcess, message: dict[str, Any]) -> None:
    """Send hello and require ready, all within the handshake time; BotFailure with the reason otherwise
    (a BotCrash, with its traceback, for a Python bot that failed to import or construct)."""
    began = time.monotonic()
    process.send(message, HANDSHAKE_SECONDS)
    try:
        answer = process.receive(max(HANDSHAKE_SECONDS - (time.monotonic() - began), 0.001))
    except BotFailure as failure:
        if str(failure).startswith("timed out: no answer within") and not process.buffer:
            if process.spec.kind == PYTHON:  # tourney's host answers at once: the bot's import and Bot() took it
                raise BotFailure(f"{failure} to hello: importing its file and constructing its Bot took longer (the "
                                 "handshake's time: docs/bot-protocol.md)") from None
            raise BotFailure(f"{failure} to hello (a bot must answer each line at once and flush its output: "
                             "docs/bot-protocol.md)") from None
        raise
    if answer.get("type") == "decline":
        raise BotFailure(f"declined: {answer.get('reason', 'no reason given')}")
    if answer.get("type") == "failed" and process.spec.kind == PYTHON:
        raise hosted_failure(answer)
    if answer.get("type") != "ready":
        raise BotFailure(f"failed its handshake: expected {{\"type\": \"ready\"}}, got {str(answer)[:60]}")


def hosted_failure(answer: dict[str, Any], cause: str = "") -> BotFailure:
    """What pyhost reported as a Python bot's failure: its reason (bounded) and the ``cause`` tourney knows (its
    process limit reached), with its traceback if it sent one."""
    reason = str(answer.get("reason"))[:MAX_REASON] + cause
    told = answer.get("diagnosis")
    if not isinstance(told, dict):
        return BotFailure(reason)
    summary, where = str(told.get("summary", "")), str(told.get("where", ""))
    if where and summary.endswith(where):
        summary = summary[: -len(where)]
    return BotCrash(reason, diagnosis.bounded(diagnosis.TRACEBACK, summary, str(told.get("detail", "")),
                                              where=where))


@dataclass(frozen=True, slots=True)
class Handshake:
    """How a bot's handshake went: why it failed, in its own account too (None: it is ready), and the end of what it
    wrote on stderr meanwhile (None: no process of it ran)."""

    failure: str | None
    stderr: bytes | None = None


def told(failure: BotFailure, stderr: bytes | None) -> str:
    """A failure's reason with the bot's own account (``Diagnosis.told``): where in its Python file (``crashed while
    starting: ModuleNotFoundError: No module named 'numpyy' at mybot.py line 1, in <module>``), or the last line
    it wrote on stderr (``crashed: exited with code 3 before answering; last on its stderr: bad usage``)."""
    found = failure.diagnosis if isinstance(failure, BotCrash) else diagnosis.of_stderr(stderr)
    return str(failure) if found is None else found.told(str(failure))


def check_handshake(spec: BotSpec, game: str, seats: int, limits: Limits,
                    confinement: Confinement = UNSANDBOXED) -> str | None:
    """Start one bot and shake hands: the reason it failed, or None if it is ready."""
    return check_handshakes([spec], game, seats, limits, confinement)[0].failure


def check_handshakes(specs: list[BotSpec], game: str, seats: int, limits: Limits, confinement: Confinement
                     ) -> list[Handshake]:
    """Start every bot once (all at once, so that their start-ups overlap) and shake hands with
    each: per bot, how it went (``Handshake``). Builtin bots need no handshake."""
    processes: list[ProgramProcess | str | None] = []
    try:
        for spec in specs:
            if spec.kind == BUILTIN:
                processes.append(None)
                continue
            try:
                processes.append(ProgramProcess(spec, confinement))
            except BotFailure as failure:
                processes.append(str(failure))
        out: list[Handshake] = []
        for spec, process in zip(specs, processes, strict=True):
            if not isinstance(process, ProgramProcess):
                out.append(Handshake(process))
                continue
            failure: BotFailure | None = None
            try:
                handshake(process, hello(spec, game, 0, seats, 0, limits, confinement))
            except BotFailure as error:
                failure = error
            process.kill()  # its stderr is then all read
            stderr = process.stderr_tail()
            out.append(Handshake(None if failure is None else told(failure, stderr), stderr))
        return out
    finally:
        for process in processes:
            if isinstance(process, ProgramProcess):
                process.kill()


class ProgramAgent:
    """A seat played by a bot process: started with the game, greeted at its first turn, killed at the end.

    A Python bot hosted by pyhost may also answer ``{"type": "failed", "reason": ...}`` (its
    exception, in the words an in-process bot's would get) and any JSON value as its action (the
    driver then says what was wrong with it, as for an in-process bot).
    """

    def __init__(self, spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits,
                 confinement: Confinement) -> None:
        self.spec = spec
        self.limits = limits
        self.hosted = spec.kind == PYTHON
        self.hello = hello(spec, game, seat, seats, seed, limits, confinement)
        self.greeted = False
        self.ended: float | None = None
        self.failure: str | None = None
        self.process: ProgramProcess | None = None
        self.tail = b""
        self.crash: BotCrash | None = None
        """A Python bot's exception, as pyhost reported it (with its traceback)."""
        try:  # started now (frozen, unless bots may ponder, until its first turn)
            self.process = self._start(spec, confinement)
        except BotFailure as failure:
            self.failure = str(failure)

    def _start(self, spec: BotSpec, confinement: Confinement) -> ProgramProcess:
        """The seat's process (bench/sandbox.py's floor keeps one for every game instead)."""
        return ProgramProcess(spec, confinement, paused=True)

    def act(self, turn: Turn) -> Any:
        try:
            return self._act(turn)
        except BotFailure as failure:
            if isinstance(failure, BotCrash):
                self.crash = failure
            self.close()  # a bot that failed is killed at once, not told the end and waited for
            raise

    def _act(self, turn: Turn) -> Any:
        if self.failure or self.process is None:
            raise BotFailure(self.failure or "crashed: its process is gone")
        limits = self.limits
        self.process.resume()
        # The CPU clock of a first move starts at the bot's first thaw: its start-up and handshake
        # are paid from that move's allowance (the wall clock's 10 s handshake is apart, as before).
        first = self.process.clock(limits.allowed, limits.allowance()) if not self.greeted else None
        if not self.greeted:
            handshake(self.process, self.hello)
            self.greeted = True
        if self.process.unasked():
            raise BotFailure("answered garbage: it wrote a line nobody asked for (one answer per request)")
        clock = (first if first is not None and first.box is not None
                 else self.process.clock(limits.allowed, limits.allowance()))
        self.process.send({
            "type": "act", "view": turn.view, "legal": turn.legal,
            "events": [event_message(e) for e in turn.events], **limits.request(),
        }, clock.cap)
        try:
            answer = self.process.receive(clock)
        except BotFailure as failure:
            if limits.increment is not None and str(failure).startswith("timed out: "):
                raise BotFailure(f"{failure}{limits.told()}") from None
            raise
        took = clock.used()
        self.process.pause()  # from its answer to its next request, it does not run
        limits.charge(took, clock.unit())
        kind = answer.get("type")
        if self.hosted and kind == "failed":
            raise hosted_failure(answer, self.process.process_limit())
        if kind != "action" or "action" not in answer or not (self.hosted or isinstance(answer["action"], str)):
            raise BotFailure(f"answered garbage: expected {{\"type\": \"action\", \"action\": ...}}, got "
                             f"{str(answer)[:60]}")
        return answer["action"]

    def end(self, outcome: Outcome) -> None:
        """Tell the bot the game is over; ``close`` then gives it until EXIT_GRACE_SECONDS after
        this to exit (so that every seat's grace runs at once, not one after another)."""
        if self.process is None or not self.greeted:
            return
        try:
            self.process.resume()
            self.process.send({"type": "end", "ranking": list(outcome.ranking), "reason": outcome.reason,
                               "seat": self.hello["seat"]}, EXIT_GRACE_SECONDS)
            self.ended = time.monotonic()
        except BotFailure:
            pass

    def close(self) -> None:
        if self.process is not None:
            if self.ended is not None:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.process.wait(timeout=max(self.ended + EXIT_GRACE_SECONDS - time.monotonic(), 0))
            self.process.kill()
            self.tail = self.process.stderr_tail()
            self.process = None

    def stderr(self) -> bytes:
        """The end of what the bot wrote to stderr in this game (after close)."""
        return self.tail

    def diagnosed(self, seat: int) -> diagnosis.Diagnosis | None:
        """Why the seat's bot failed, in its terms (after close): a Python bot's traceback, else the last lines
        of its stderr (None: it wrote none)."""
        if self.crash is not None:
            return replace(self.crash.diagnosis, seat=seat)
        return diagnosis.of_stderr(self.tail, seat)
