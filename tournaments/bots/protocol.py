"""The JSON-lines bot protocol: a bot in any language, run as a separate process.

One JSON object per line each way (docs/bot-protocol.md has an example exchange):

    -> {"type": "hello", "protocol": 1, "game": ..., "seat": 0, "seats": 4, "seed": ...,
        "move_time_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "ready"}                      (or {"type": "decline", "reason": "..."})
    -> {"type": "act", "view": {...}, "legal": [...], "events": [...],
        "deadline_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "action", "action": "play:5"}
    -> {"type": "end", "ranking": [...], "reason": "finished", "seat": 0}

The bot runs in its own process group (a new session) and is killed with the whole
group when the game ends or the bot fails, so no grandchild outlives it. A bot that
does not answer in time, exits, writes something that is not a protocol message, or
floods its output (a line over 1 MiB, or more than that between two requests) fails
with that reason (ruling ALL-5).
"""

from __future__ import annotations

import contextlib
import os
import resource
import select
import signal
import subprocess
import time
from typing import Any

import orjson

from engines.base import Event
from engines.driver import BotFailure, Outcome, Turn
from tournaments.bots.spec import BotSpec, Limits

PROTOCOL_VERSION = 1
HANDSHAKE_SECONDS = 10.0
MAX_LINE = 1 << 20
EXIT_GRACE_SECONDS = 0.5
EXIT_POLL_SECONDS = 0.05


def event_message(event: Event) -> dict[str, Any]:
    """An event as a bot sees it (already redacted for its seat)."""
    message: dict[str, Any] = {"type": event.type, "data": event.data}
    if event.private is not None:
        message["private"] = event.private
    elif event.audience:
        message["hidden"] = True
    return message


class ProgramProcess:
    """A running bot program: write a message, read one line before a deadline, kill."""

    def __init__(self, spec: BotSpec) -> None:
        self.spec = spec
        try:
            self.process = subprocess.Popen(
                list(spec.command), cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, start_new_session=True, bufsize=0,
                preexec_fn=_limiter(spec.cpu_seconds, spec.memory_mb),
            )
        except OSError as error:
            raise BotFailure(f"could not start {' '.join(spec.command)}: {error.strerror or error}") from None
        self.buffer = b""

    def send(self, message: dict[str, Any]) -> None:
        try:
            self.process.stdin.write(orjson.dumps(message) + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            raise BotFailure(f"crashed: exited with code {self.process.poll()}") from None

    def receive(self, seconds: float) -> dict[str, Any]:
        """The next message, within ``seconds``; BotFailure naming what went wrong."""
        deadline = time.monotonic() + seconds
        fd = self.process.stdout.fileno()
        received = 0
        while b"\n" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(f"timed out: no answer within {seconds:.2f} s")
            ready, _, _ = select.select([fd], [], [], min(left, EXIT_POLL_SECONDS))
            if not ready:
                # A bot that exited is not waited for until its deadline, even when something it
                # started still holds its output open (so that no end of file comes).
                if self.process.poll() is not None and not select.select([fd], [], [], 0)[0]:
                    raise BotFailure(f"crashed: exited with code {self.process.returncode} before answering")
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.process.wait(timeout=EXIT_GRACE_SECONDS)
                if self.process.returncode is None:
                    raise BotFailure("crashed: closed its output before answering")
                raise BotFailure(f"crashed: exited with code {self.process.returncode} before answering")
            received += len(chunk)
            self.buffer += chunk
            if received > MAX_LINE or len(self.buffer) > MAX_LINE:
                raise BotFailure(f"flooded its output: more than {MAX_LINE} bytes without a complete answer")
        line, _, self.buffer = self.buffer.partition(b"\n")
        if len(self.buffer) > MAX_LINE:
            raise BotFailure(f"flooded its output: more than {MAX_LINE} bytes pending")
        try:
            message = orjson.loads(line)
        except orjson.JSONDecodeError:
            raise BotFailure(f"answered garbage: {line[:60]!r} is not JSON") from None
        if not isinstance(message, dict):
            raise BotFailure(f"answered garbage: {line[:60]!r} is not a JSON object")
        return message

    def unasked(self) -> bool:
        """Whether the bot wrote anything since its last answer (protocol: one line per request)."""
        if self.buffer:
            return True
        fd = self.process.stdout.fileno()
        if select.select([fd], [], [], 0)[0]:
            chunk = os.read(fd, 65536)
            self.buffer += chunk
            return bool(chunk)
        return False

    def kill(self) -> None:
        """Kill the bot's whole process group and reap it."""
        if self.process.stdin and not self.process.stdin.closed:
            with contextlib.suppress(OSError):
                self.process.stdin.close()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        if self.process.stdout:
            self.process.stdout.close()


def _limiter(cpu_seconds: int | None, memory_mb: int | None):
    """The resource limits a bot's process sets on itself before it runs (None: no limits)."""
    if cpu_seconds is None and memory_mb is None:
        return None

    def limit() -> None:
        if cpu_seconds is not None:
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 1))
        if memory_mb is not None:
            size = memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (size, size))

    return limit


def hello(spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits) -> dict[str, Any]:
    return {
        "type": "hello", "protocol": PROTOCOL_VERSION, "game": game, "seat": seat, "seats": seats, "seed": seed,
        "move_time_ms": round(limits.move_time * 1000), "time_bank_ms": round(limits.time_bank * 1000),
        "name": spec.name,
    }


def handshake(process: ProgramProcess, message: dict[str, Any]) -> None:
    """Send hello and require ready; BotFailure with the reason otherwise."""
    process.send(message)
    answer = process.receive(HANDSHAKE_SECONDS)
    if answer.get("type") == "decline":
        raise BotFailure(f"declined: {answer.get('reason', 'no reason given')}")
    if answer.get("type") != "ready":
        raise BotFailure(f"failed its handshake: expected {{\"type\": \"ready\"}}, got {str(answer)[:60]}")


def check_handshake(spec: BotSpec, game: str, seats: int, limits: Limits) -> str | None:
    """Start the bot once and shake hands; the reason it failed, or None if it is ready."""
    process = None
    try:
        process = ProgramProcess(spec)
        handshake(process, hello(spec, game, 0, seats, 0, limits))
        return None
    except BotFailure as failure:
        return str(failure)
    finally:
        if process is not None:
            process.kill()


class ProgramAgent:
    """A seat played by a bot program: started at its first turn, killed at the end."""

    def __init__(self, spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits) -> None:
        self.spec = spec
        self.limits = limits
        self.hello = hello(spec, game, seat, seats, seed, limits)
        self.process: ProgramProcess | None = None

    def act(self, turn: Turn) -> str:
        try:
            return self._act(turn)
        except BotFailure:
            self.close()  # a bot that failed is killed at once, not told the end and waited for
            raise

    def _act(self, turn: Turn) -> str:
        if self.process is None:
            self.process = ProgramProcess(self.spec)
            handshake(self.process, self.hello)
        elif self.process.unasked():
            raise BotFailure("answered garbage: it wrote a line nobody asked for (one answer per request)")
        limits = self.limits
        began = time.perf_counter()
        self.process.send({
            "type": "act", "view": turn.view, "legal": turn.legal,
            "events": [event_message(e) for e in turn.events],
            "deadline_ms": round(limits.move_time * 1000), "time_bank_ms": round(limits.bank_left * 1000),
        })
        answer = self.process.receive(limits.allowed)
        limits.charge(time.perf_counter() - began)
        action = answer.get("action")
        if answer.get("type") != "action" or not isinstance(action, str):
            raise BotFailure(f"answered garbage: expected {{\"type\": \"action\", \"action\": ...}}, got "
                             f"{str(answer)[:60]}")
        return action

    def end(self, outcome: Outcome) -> None:
        if self.process is None:
            return
        try:
            self.process.send({"type": "end", "ranking": list(outcome.ranking), "reason": outcome.reason,
                               "seat": self.hello["seat"]})
            self.process.process.wait(timeout=EXIT_GRACE_SECONDS)
        except (BotFailure, subprocess.TimeoutExpired):
            pass
        self.close()

    def close(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process = None
