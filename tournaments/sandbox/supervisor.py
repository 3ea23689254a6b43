"""The supervisor of a bot's process: started (in its sandbox, or in a process group of its own with
rlimits), written to and read from before deadlines, frozen between turns, killed whole.

It knows lines of bytes, not messages: tournaments.play.protocol says what the lines mean. With the
sandbox on, every bot process runs in its own sandbox (``tournaments.sandbox.sandbox``); without it,
in its own process group with memory and CPU-time rlimits and its death with its starter (prctl).
Either way it is killed whole when the game ends or the bot fails, so nothing it started outlives
the game.

Nothing a bot does can stall tourney: every write has a deadline (the pipe is non-blocking), and
every read waits for at most the time the bot has left (``MoveClock``). A bot that does not read its
input in time, does not answer in time, exits, or floods its output (a line over 1 MiB, or more than
that between two requests) fails with that reason (ruling ALL-5). Its stderr is kept, the last
``STDERR_TAIL`` bytes per game, for ``--bot-logs`` (after a line saying how many bytes before them were cut).
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
from typing import Any

from engines.driver import BotFailure
from tournaments.bots.spec import CPU, PYTHON, WALL_CAP, BotSpec, Confinement, Resources
from tournaments.sandbox import cgroups, interrupts, sandbox, warm

MAX_LINE = 1 << 20
EXIT_GRACE_SECONDS = 0.5
POLL_SECONDS = 0.05
STDERR_TAIL = 64 * 1024
"""How much of a bot's stderr is kept per game (the end of it)."""


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

    def __init__(self, allowed: float, box: cgroups.Box | None = None, allowance: str = "") -> None:
        self.allowed = allowed
        self.allowance = allowance
        """What ``allowed`` is made of, in words (``Limits.allowance``), for a forfeit's reason."""
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
            made_of = f" ({self.allowance})" if self.allowance else ""
            return f"no answer within {self.allowed:.2f} s{made_of}" if self.wall() >= self.allowed else None
        if (used := self.box.cpu_seconds() - self.cpu) >= self.allowed:
            made_of = f" ({self.allowance})" if self.allowance else ""
            return f"used {used:.2f} s of CPU without answering, with {self.allowed:.2f} s allowed{made_of}"
        if self.wall() >= self.cap:
            made_of = f": {self.allowance}" if self.allowance else ""
            return (f"no answer within {self.cap:.2f} s of wall-clock time (the CPU clock charges 1/{WALL_CAP} of "
                    f"the wall-clock time when that is more than the CPU time; {self.allowed:.2f} s allowed{made_of})")
        return None

    def wait(self) -> float:
        """How long to wait for the bot before looking at the clock again."""
        return max(min(self.cap - self.wall(), POLL_SECONDS), 0.0)



class BotProcess:
    """A running bot process: write bytes, read one line, both before a deadline; kill.

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
        self.cut = 0
        """How many bytes of its stderr were dropped from the start of ``tail``."""

    def write(self, line: bytes, seconds: float) -> None:
        """Write ``line`` within ``seconds``; BotFailure if the bot stops reading or is gone."""
        data = memoryview(line)
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

    def clock(self, allowed: float, allowance: str = "") -> MoveClock:
        """A clock for a move of ``allowed`` seconds (made of ``allowance``, in words), started now."""
        return MoveClock(allowed, self.box if self.cpu_clock else None, allowance)

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

    def read_line(self, seconds: float | MoveClock) -> bytes:
        """The next line (without its line feed), within ``seconds`` of wall-clock time or the time its
        clock allows; BotFailure naming what went wrong."""
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
        return line

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
                    self.cut += len(self.tail) - STDERR_TAIL
                    del self.tail[:-STDERR_TAIL]

    def stderr_tail(self) -> bytes:
        """The last STDERR_TAIL bytes of the bot's stderr, after ``[… N bytes cut …]`` if it wrote more."""
        cut = self.cut + max(len(self.tail) - STDERR_TAIL, 0)
        kept = bytes(self.tail[-STDERR_TAIL:])
        return f"[… {cut} bytes cut …]\n".encode() + kept if cut else kept

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
            return f"was killed by {_signal_name(-code)}{self.process_limit()}"
        if self.sandboxed and code is not None and 128 < code < 128 + signal.NSIG:
            return f"exited with code {code} (killed by {_signal_name(code - 128)}){self.process_limit()}"
        return f"exited with code {code}{self.process_limit()}"

    def process_limit(self) -> str:
        """`` (a fork refused: its processes reached N, its --max-processes)`` if its group refused one (a failure's
        likely cause, as running out of memory is named), else ""."""
        if self.box is None or not self.box.out_of_processes():
            return ""
        return f" (a fork refused: its processes reached {self.box.max_processes}, its --max-processes)"


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
