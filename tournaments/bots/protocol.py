"""The JSON-lines bot protocol: a bot in any language, run as a separate process.

One JSON object per line each way (docs/bot-protocol.md has an example exchange):

    -> {"type": "hello", "protocol": 1, "game": ..., "seat": 0, "seats": 4, "seed": ...,
        "move_time_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "ready"}                      (or {"type": "decline", "reason": "..."})
    -> {"type": "act", "view": {...}, "legal": [...], "events": [...],
        "deadline_ms": 1000, "time_bank_ms": 5000}
    <- {"type": "action", "action": "play:5"}
    -> {"type": "end", "ranking": [...], "reason": "finished", "seat": 0}

A Python bot is run the same way, through tourney's host (``tournaments.bots.pyhost``).
With the sandbox on, every bot process runs in its own sandbox (``tournaments.sandbox.sandbox``);
without it, in its own process group with memory and CPU-time rlimits. Either way it is
killed whole when the game ends or the bot fails, so nothing it started outlives the game.

Nothing a bot does can stall tourney: every write has a deadline (the pipe is non-blocking),
and every read waits for at most the time the bot has left. A bot that does not read its
input in time, does not answer in time, exits, writes something that is not a protocol
message, writes a line nobody asked for, or floods its output (a line over 1 MiB, or more
than that between two requests) fails with that reason (ruling ALL-5). Its stderr is kept,
the last ``STDERR_TAIL`` bytes per game, for ``--bot-logs``.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import resource
import select
import signal
import subprocess
import sys
import time
from dataclasses import replace
from typing import Any

import orjson

from engines.base import Event
from engines.driver import BotFailure, Outcome, Turn
from tournaments.bots import diagnosis
from tournaments.bots.inprocess import BotCrash
from tournaments.bots.spec import BUILTIN, CPU, PYTHON, UNSANDBOXED, WALL_CAP, BotSpec, Confinement, Limits, Resources
from tournaments.sandbox import cgroups, interrupts, sandbox, warm

PROTOCOL_VERSION = 1
HANDSHAKE_SECONDS = 10.0
MAX_LINE = 1 << 20
EXIT_GRACE_SECONDS = 0.5
POLL_SECONDS = 0.05
STDERR_TAIL = 64 * 1024
"""How much of a bot's stderr is kept per game (the end of it)."""
MAX_REASON = 300
"""The longest failure reason a hosted Python bot may report (it is stored in the ledger)."""


def event_message(event: Event) -> dict[str, Any]:
    """An event as a bot sees it (already redacted for its seat)."""
    message: dict[str, Any] = {"type": event.type, "data": event.data}
    if event.private is not None:
        message["private"] = event.private
    elif event.audience:
        message["hidden"] = True
    return message


def argv_of(spec: BotSpec) -> list[str]:
    """The command line of a bot's process: a program's own, or tourney's host for a Python file."""
    if spec.kind == PYTHON:
        return [sys.executable, "-I", "-S", "-c", _pyhost_boot(), spec.files[0]]
    return list(spec.command)


@functools.cache
def _pyhost_boot() -> str:
    """pyhost's start without the ``site`` module (half of Python's start-up here, most of it an
    editable install's import hook): sys.path gets the folders holding tourney's own packages and
    this interpreter's site-packages (what a Python bot may import), as ``site`` would give it."""
    return f"import sys; sys.path += {sandbox.pyhost_paths()!r}; from tournaments.bots.pyhost import main; main()"


class MoveClock:
    """The time a bot takes for one answer: wall-clock seconds, or (``--clock cpu``) by the CPU clock:
    the CPU seconds of its cgroup, every thread of every process it has, or 1/WALL_CAP of the move's
    wall-clock seconds when that is more. So a bot that sleeps or waits pays for it too, and cannot
    stretch a game past WALL_CAP times its allowance; a CPU-bound bot slowed by a busy machine pays
    nothing more until it is WALL_CAP times slower (docs/bot-protocol.md, "Time")."""

    def __init__(self, allowed: float, box: cgroups.Box | None = None) -> None:
        self.allowed = allowed
        self.box = box
        self.cap = allowed * WALL_CAP if box is not None else allowed
        self.began = time.perf_counter()
        self.cpu = box.cpu_seconds() if box is not None else 0.0

    def wall(self) -> float:
        return time.perf_counter() - self.began

    def used(self) -> float:
        """The time the move has taken so far, as the clock counts it."""
        if self.box is None:
            return self.wall()
        return max(self.box.cpu_seconds() - self.cpu, self.wall() / WALL_CAP)

    def unit(self) -> str:
        """What ``used`` counts, for a forfeit reason."""
        if self.box is None:
            return ""
        return f"by the CPU clock (its CPU time, or 1/{WALL_CAP} of its wall-clock time when more)"

    def late(self) -> str | None:
        """Why the answer is too late now (None: it is not)."""
        if self.box is None:
            return f"no answer within {self.allowed:.2f} s" if self.wall() >= self.allowed else None
        if (used := self.box.cpu_seconds() - self.cpu) >= self.allowed:
            return f"used {used:.2f} s of CPU without answering, with {self.allowed:.2f} s allowed"
        if self.wall() >= self.cap:
            return (f"no answer within {self.cap:.2f} s of wall-clock time (the CPU clock charges 1/{WALL_CAP} of "
                    f"the wall-clock time when that is more than the CPU time; {self.allowed:.2f} s allowed)")
        return None

    def wait(self) -> float:
        """How long to wait for the bot before looking at the clock again."""
        return max(min(self.cap - self.wall(), POLL_SECONDS), 0.0)


class ProgramProcess:
    """A running bot process: write a message, read one line, both before a deadline; kill.

    In a sandbox with a cgroup, ``pause`` freezes every process of the bot until ``resume``
    (unless the run lets bots ponder), and ``clock`` times a move by the group's CPU time when
    the run asks for the CPU clock."""

    def __init__(self, spec: BotSpec, confinement: Confinement, paused: bool = False) -> None:
        self.spec = spec
        self.sandboxed = confinement.sandbox
        self.box: cgroups.Box | None = None
        self.ponder = confinement.ponder
        self.cpu_clock = confinement.clock == CPU
        argv = argv_of(spec)
        if self.sandboxed:
            # Warm where there are cgroups (a fresh bot forked in a sandbox kept for the bot), else cold.
            if cgroups.hierarchy() is not None:
                self.process: Any = warm.pool.spawn(spec, confinement.resources, paused and not self.ponder)
            else:
                self.process = sandbox.start(sandbox.entry_of(spec.kind, spec.files, spec.command), spec.cwd,
                                             confinement.resources, subprocess.PIPE, paused and not self.ponder,
                                             kind=spec.kind)
            self.box = self.process.box
            if self.box is None and (self.cpu_clock or not self.ponder):
                self.process.end()
                self.process.release()
                raise sandbox.SandboxError(f"--clock cpu and freezing bots between turns need cgroups, and this "
                                           f"machine has none for tourney ({cgroups.unavailable()})")
        else:
            try:
                with interrupts.ctrl_c_held():  # the preexec_fn runs the at-fork hooks, which drop a KeyboardInterrupt
                    self.process = subprocess.Popen(
                        argv, cwd=spec.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        start_new_session=True, bufsize=0, preexec_fn=_limiter(confinement.resources),
                    )
            except OSError as error:
                raise BotFailure(f"could not start {' '.join(argv)}: {error.strerror or error}") from None
        self.stdin = self.process.stdin.fileno()
        self.stdout = self.process.stdout.fileno()
        self.stderr = self.process.stderr.fileno()
        for fd in (self.stdin, self.stdout, self.stderr):
            os.set_blocking(fd, False)
        self.buffer = b""
        self.tail = bytearray()

    def send(self, message: dict[str, Any], seconds: float) -> None:
        """Write one message within ``seconds``; BotFailure if the bot stops reading or is gone."""
        data = memoryview(orjson.dumps(message) + b"\n")
        deadline = time.monotonic() + seconds
        while data:
            try:
                data = data[os.write(self.stdin, data):]
                continue
            except BlockingIOError:
                pass
            except OSError:  # EPIPE: it closed its input or exited
                self._wait_briefly()
                if self.process.returncode is None:
                    raise BotFailure("crashed: closed its input") from None
                raise BotFailure(f"crashed: {self._ended()} before reading its input") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise BotFailure(f"stopped reading its input: {len(data)} bytes still unread after {seconds:.2f} s")
            ready, _, _ = select.select([self.stderr], [self.stdin], [], min(left, POLL_SECONDS))
            if ready:
                self._drain_stderr()

    def clock(self, allowed: float) -> MoveClock:
        """A clock for a move of ``allowed`` seconds, started now."""
        return MoveClock(allowed, self.box if self.cpu_clock else None)

    def pause(self) -> None:
        """Freeze the bot's processes until ``resume`` (with a cgroup, unless the run lets bots ponder)."""
        if self.box is not None and not self.ponder:
            try:
                self.box.freeze()
            except cgroups.CgroupError as error:
                raise BotFailure(f"could not be stopped between its turns: {error.strerror}") from None

    def resume(self) -> None:
        if self.box is not None:
            try:
                self.box.thaw()
            except cgroups.CgroupError as error:
                raise BotFailure(f"could not be started again for its turn: {error.strerror}") from None

    def receive(self, seconds: float | MoveClock) -> dict[str, Any]:
        """The next message, within ``seconds`` of wall-clock time or the time its clock allows;
        BotFailure naming what went wrong."""
        clock = seconds if isinstance(seconds, MoveClock) else MoveClock(seconds)
        received = 0
        waited = False  # the clock was just read: the first look at it would find nothing late
        while b"\n" not in self.buffer:
            late = clock.late() if waited else None
            waited = True
            if late is not None:
                raise BotFailure(f"timed out: {late}{self._unfinished()}")
            ready, _, _ = select.select([self.stdout, self.stderr], [], [], clock.wait())
            if self.stderr in ready:
                self._drain_stderr()
            if self.stdout not in ready:
                # A bot that exited is not waited for until its deadline, even when something it
                # started still holds its output open (so that no end of file comes).
                if self.process.poll() is not None and not select.select([self.stdout], [], [], 0)[0]:
                    self._check_started()
                    raise BotFailure(f"crashed: {self._ended()} before answering")
                continue
            try:
                chunk = os.read(self.stdout, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                self._wait_briefly()
                self._check_started()
                if self.process.returncode is None:
                    raise BotFailure("crashed: closed its output before answering")
                raise BotFailure(f"crashed: {self._ended()} before answering")
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

    def _unfinished(self) -> str:
        """What to tell a bot that wrote part of a line: the rest, and the line feed, never came."""
        if not self.buffer:
            return ""
        return (f" ({len(self.buffer)} bytes came without a line feed: end every message with \\n and flush "
                "its output; docs/bot-protocol.md)")

    def unasked(self) -> bool:
        """Whether the bot wrote anything since its last answer (protocol: one line per request)."""
        if self.buffer:
            return True
        with contextlib.suppress(BlockingIOError):
            chunk = os.read(self.stdout, 65536)
            self.buffer += chunk
            return bool(chunk)
        return False

    def kill(self) -> None:
        """Kill every process of the bot and reap it: with the sandbox, its whole cgroup (or, without
        cgroups, its PID namespace); without, its process group."""
        if self.process.stdout.closed:
            return
        with contextlib.suppress(OSError):
            self.process.stdin.close()
        if self.sandboxed:
            self.process.end()
        else:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self._drain_stderr()
        self.process.stdout.close()
        self.process.stderr.close()
        if self.sandboxed:
            self.process.release()

    def _drain_stderr(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError, ValueError):
            while chunk := os.read(self.stderr, 65536):
                self.tail += chunk
                if len(self.tail) > 2 * STDERR_TAIL:
                    del self.tail[:-STDERR_TAIL]

    def stderr_tail(self) -> bytes:
        return bytes(self.tail[-STDERR_TAIL:])

    def _wait_briefly(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=EXIT_GRACE_SECONDS)

    def _check_started(self) -> None:
        """A sandbox that never came up is tourney's failure, not the bot's: SandboxError."""
        if self.sandboxed and not self.process.started():
            self._drain_stderr()
            said = bytes(self.tail).decode(errors="replace").strip().splitlines()
            raise sandbox.SandboxError(f"the sandbox of {self.spec.name} did not start: "
                                       f"{said[-1] if said else f'bwrap exited with code {self.process.returncode}'}")

    def _ended(self) -> str:
        if self.box is not None and self.box.out_of_memory():
            return (f"ran out of memory (its processes together held {self.box.memory_mb} MiB, its --memory-mb) "
                    "and was killed")
        code = self.process.returncode
        if code is not None and code < 0:
            return f"was killed by {_signal_name(-code)}"
        if self.sandboxed and code is not None and 128 < code < 128 + signal.NSIG:
            return f"exited with code {code} (killed by {_signal_name(code - 128)})"
        return f"exited with code {code}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _limiter(resources: Resources):
    """Without the sandbox: the memory and CPU-time rlimits a bot's process sets on itself, and
    (on Linux) its death with the process starting it.

    RLIMIT_NPROC is left alone here: outside a user namespace of its own it would count every
    process of the user running tourney, and root's not at all (docs/security.md).
    PR_SET_PDEATHSIG (SIGKILL) fires when the starting thread dies, here the main thread of a
    worker or of tourney; a starter that died before it was armed is caught by the parent
    check. A preexec_fn was already needed for the rlimits, so this adds no new risk in a
    process with threads (the sandbox avoids one: tournaments.sandbox.sandbox._guard).
    """
    starter = os.getpid()
    prctl = _prctl()

    def limit() -> None:
        cpu = resources.cpu_seconds
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        size = resources.memory_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (size, size))
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
            if os.getppid() != starter:
                os._exit(1)

    return limit


_PR_SET_PDEATHSIG = 1


@functools.cache
def _prctl() -> Any:
    """libc's prctl, or None where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    return ctypes.CDLL(None).prctl



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
            raise BotFailure(f"{failure} to hello (a bot must answer each line at once and flush its output: "
                             "docs/bot-protocol.md)") from None
        raise
    if answer.get("type") == "decline":
        raise BotFailure(f"declined: {answer.get('reason', 'no reason given')}")
    if answer.get("type") == "failed" and process.spec.kind == PYTHON:
        raise hosted_failure(answer)
    if answer.get("type") != "ready":
        raise BotFailure(f"failed its handshake: expected {{\"type\": \"ready\"}}, got {str(answer)[:60]}")


def hosted_failure(answer: dict[str, Any]) -> BotFailure:
    """What pyhost reported as a Python bot's failure: its reason (bounded), with its traceback if it sent one."""
    reason = str(answer.get("reason"))[:MAX_REASON]
    told = answer.get("diagnosis")
    if not isinstance(told, dict):
        return BotFailure(reason)
    summary, where = str(told.get("summary", "")), str(told.get("where", ""))
    if where and summary.endswith(where):
        summary = summary[: -len(where)]
    return BotCrash(reason, diagnosis.bounded(diagnosis.TRACEBACK, summary, str(told.get("detail", "")),
                                              where=where))


def placed(failure: BotFailure) -> str:
    """A failure's reason, and for a Python bot's exception where in its file it came from: ``crashed while
    starting: ModuleNotFoundError: No module named 'numpyy' at mybot.py line 1, in <module>``."""
    reason = str(failure)
    return failure.diagnosis.placed(reason) if isinstance(failure, BotCrash) else reason


def check_handshake(spec: BotSpec, game: str, seats: int, limits: Limits,
                    confinement: Confinement = UNSANDBOXED) -> str | None:
    """Start one bot and shake hands: the reason it failed, or None if it is ready."""
    return check_handshakes([spec], game, seats, limits, confinement)[0]


def check_handshakes(specs: list[BotSpec], game: str, seats: int, limits: Limits, confinement: Confinement
                     ) -> list[str | None]:
    """Start every bot once (all at once, so that their start-ups overlap) and shake hands with
    each: per bot, the reason it failed, or None if it is ready. Builtin bots need no handshake."""
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
        out: list[str | None] = []
        for spec, process in zip(specs, processes, strict=True):
            if not isinstance(process, ProgramProcess):
                out.append(process)
                continue
            try:
                handshake(process, hello(spec, game, 0, seats, 0, limits, confinement))
                out.append(None)
            except BotFailure as failure:
                out.append(placed(failure))
            process.kill()
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
        first = self.process.clock(limits.allowed) if not self.greeted else None
        if not self.greeted:
            handshake(self.process, self.hello)
            self.greeted = True
        if self.process.unasked():
            raise BotFailure("answered garbage: it wrote a line nobody asked for (one answer per request)")
        clock = first if first is not None and first.box is not None else self.process.clock(limits.allowed)
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
            raise hosted_failure(answer)
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
