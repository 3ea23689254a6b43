"""Warm sandboxes: one long-lived sandbox per bot and process, a fresh bot in it for every game.

A cold sandbox costs a new bwrap and a new interpreter per bot per game (~100-250 ms, most of a
sandboxed game). Here each process that plays games (a worker, or tourney with ``--jobs 0``)
keeps, per bot, one bwrap sandbox whose first process is tourney's zygote
(tournaments.sandbox.zygote: tourney's packages imported once, the bot's code never). For each game
the zygote forks a child, which this module moves into the game's own cgroup (made inside the
sandbox's), and which then makes the game new exactly as a cold sandbox's first process does
(tournaments.sandbox.inside: namespaces, scratch, the bot's private files, its limits and filter) and
becomes the bot. What a game gets is what a cold sandbox gives (nothing written, started or
allocated in one game is there in the next; tests/tournaments/sandbox/test_warm.py and
test_sealed_games.py), at the price of a fork instead of a start.

Warm sandboxes need cgroups (a game's processes are found, frozen, timed and killed by its
group); without them, bots play in cold sandboxes (tournaments.sandbox.sandbox.start). A process
keeps at most ``KEEP`` of them, the least recently used ended first; they end with the process
(at exit, or, killed, with its guard: docs/security.md, "A sandbox never outlives its starter").
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import itertools
import os
import queue
import select
import socket
import subprocess
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from tournaments.bots.spec import PYTHON, BotSpec, Resources
from tournaments.sandbox import cgroups, sandbox

KEEP = 16
"""Warm sandboxes a process keeps at once (one per bot it plays; each is an idle Python of ~10 MiB)."""
START_SECONDS = 30.0
"""How long a warm sandbox may take to come up (a zygote's start), or to answer a spawn."""


class Zygote:
    """One bot's long-lived sandbox and the zygote in it; ``take`` gives the bot for a game.

    Each game's bot is prepared ahead (``prepare``, by the pool's thread while another game plays:
    forked, moved into its game's new cgroup, its namespaces and mounts made, waiting for its game
    to begin), so that a game's start costs a write. Every use of the control socket holds
    ``lock``."""

    def __init__(self, spec: BotSpec, found: cgroups.Hierarchy) -> None:
        self.spec = spec
        self.lock = threading.RLock()
        self.box = cgroups.Box(found, None, None)
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        entry = sandbox.entry_of(spec.kind, spec.files, spec.command)
        kind = "python" if spec.kind == PYTHON else "program"
        try:
            self.process = sandbox.launch(lambda strict: ["serve", kind, str(theirs.fileno()), strict], entry,
                                          spec.cwd, subprocess.PIPE, self.box, passed=[theirs.fileno()])
        except BaseException:
            self.control.close()
            self.box.remove()
            raise
        finally:
            theirs.close()
        self.guard = self.process.pid
        self.spawns = itertools.count()
        self.exits: dict[int, int] = {}
        self.watched: set[int] = set()
        """The games whose bot's exit status is still wanted (the rest are not kept)."""
        self.replies: dict[int, int] = {}
        self.prepared: dict[Resources, list[Prepared]] = {}
        self.alive = True
        self.ready_pid: int | None = None
        try:
            self.host_pid = self._ready()
        except BaseException:
            self.close()
            raise

    def _ready(self) -> int:
        """Wait for the zygote's first message; its pid on this machine."""
        deadline = time.monotonic() + START_SECONDS
        while self.ready_pid is None and self.alive and time.monotonic() < deadline:
            self._read(deadline - time.monotonic())
        if self.ready_pid is None:
            said = b""
            with contextlib.suppress(OSError, ValueError):
                self.process.end()
                said = self.process.stderr.read() or b""
            lines = said.decode(errors="replace").strip().splitlines()
            raise sandbox.SandboxError(f"the sandbox of {self.spec.name} did not start: "
                                       f"{lines[-1] if lines else 'its zygote never answered'}")
        return self._host(self.ready_pid)

    def _host(self, inner: int) -> int:
        """The pid on this machine of the sandbox's process whose pid inside it is ``inner``."""
        for pid in self.box.tasks():
            with contextlib.suppress(OSError, ValueError, IndexError, StopIteration):
                fields = next(line for line in Path(f"/proc/{pid}/status").read_text().splitlines()
                              if line.startswith("NSpid:")).split()
                if len(fields) > 2 and int(fields[-1]) == inner:
                    return pid
        raise sandbox.SandboxError(f"the sandbox of {self.spec.name}: no process {inner} in its cgroup")

    def _read(self, seconds: float) -> None:
        """Take in what the zygote has said, waiting up to ``seconds`` (at most 10 ms) for a first message
        (the wait holds no lock: another thread may take the message in)."""
        with contextlib.suppress(OSError, ValueError):
            select.select([self.control], [], [], max(min(seconds, 0.01), 0.0))
        with self.lock:
            while self.alive and select.select([self.control], [], [], 0)[0]:
                try:
                    data = self.control.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    self.alive = False
                    return
                message = orjson.loads(data)
                if "exited" in message:
                    if message["exited"] in self.watched:
                        self.exits[message["exited"]] = message["status"]
                elif "spawned" in message:
                    self.replies[message["spawned"]] = message["pid"]
                elif "ready" in message:
                    self.ready_pid = message["ready"]

    def pump(self) -> None:
        """Take in the exit reports the zygote has sent (without waiting)."""
        self._read(0)

    def prepare(self, resources: Resources) -> Prepared:
        """A fresh bot for a game to come: forked, in a new cgroup inside the sandbox's, set up, waiting."""
        stamp = _stamp(self.spec)
        with self.lock:
            number = next(self.spawns)
            box = cgroups.Box(self.box.hierarchy, resources.memory_mb, resources.max_processes, inside=self.box)
            ends: list[int] = []
            try:
                pipes = [os.pipe() for _ in range(5)]  # stdin, stdout, stderr, go, start
                theirs = [pipes[0][0], pipes[1][1], pipes[2][1], pipes[3][0], pipes[4][0]]
                ends = [pipes[0][1], pipes[1][0], pipes[2][0], pipes[3][1], pipes[4][1]]
                request = {"spawn": number, **sandbox.request(resources, grouped=True)}
                try:
                    socket.send_fds(self.control, [orjson.dumps(request)], theirs)
                finally:
                    for fd in theirs:
                        os.close(fd)
            except BaseException:
                _abandon(ends, box)
                raise
        try:
            deadline = time.monotonic() + START_SECONDS
            while number not in self.replies:
                if not self.alive or time.monotonic() > deadline:
                    raise sandbox.SandboxError(f"the sandbox of {self.spec.name} did not start a bot for its game")
                self._read(deadline - time.monotonic())
            child = self._host(self.replies.pop(number))
            box.join(child)  # then it makes itself ready (tourney's code only) and waits for its game
            os.write(ends[3], b"!")
        except BaseException:
            _abandon(ends, box)
            raise
        os.close(ends[3])
        return Prepared(self, number, child, box, *ends[:3], ends[4], stamp)

    def take(self, resources: Resources, paused: bool) -> WarmProcess:
        """The bot for a game that begins now (frozen if ``paused``): one prepared, or one made now."""
        with self.lock:
            waiting = self.prepared.get(resources)
            prepared = waiting.pop() if waiting else None
        if prepared is not None and prepared.stamp != _stamp(self.spec):
            # The bot's files changed since it was prepared (a ladder's cache mended from the ledger):
            # a Python bot's source was compiled then; prepare it again from the files as they are.
            prepared.discard()
            prepared = None
        if prepared is None:
            prepared = self.prepare(resources)
        return prepared.begin(paused)

    def stock(self, resources: Resources) -> None:
        """Keep one bot prepared for the next game with ``resources`` (called by the pool's thread)."""
        with self.lock:
            if not self.alive or self.prepared.get(resources):
                return
        made = self.prepare(resources)
        with self.lock:
            if self.alive:
                self.prepared.setdefault(resources, []).append(made)
                return
        made.discard()

    def close(self) -> None:
        """End the sandbox and everything in it."""
        with self.lock:
            self.alive = False
            waiting = [made for stock in self.prepared.values() for made in stock]
            self.prepared.clear()
            with contextlib.suppress(OSError):
                self.control.close()
        for made in waiting:
            made.discard()
        self.process.end()
        with contextlib.suppress(OSError, ValueError):
            self.process.stdout.close()
            self.process.stderr.close()
            self.process.stdin.close()
        self.process.release()


@dataclass
class Prepared:
    """A bot made ready for a game to come: its process (waiting for its game), its cgroup, our ends of its
    pipes."""

    zygote: Zygote
    number: int
    pid: int
    box: cgroups.Box
    stdin: int
    stdout: int
    stderr: int
    start: int
    stamp: tuple
    """The bot's files as they were when it was prepared (``_stamp``)."""

    def begin(self, paused: bool) -> WarmProcess:
        """Let the bot's game begin (frozen, if ``paused``, until its first turn)."""
        if paused:
            self.box.freeze()
        os.write(self.start, b"!")
        os.close(self.start)
        return WarmProcess(self.zygote, self.number, self.pid, self.box, self.stdin, self.stdout, self.stderr)

    def discard(self) -> None:
        for fd in (self.stdin, self.stdout, self.stderr, self.start):
            with contextlib.suppress(OSError):
                os.close(fd)
        with contextlib.suppress(OSError):
            self.box.remove()


class WarmProcess:
    """A game's bot in a warm sandbox, looked after as a Popen: its pipes, its exit, its cgroup."""

    def __init__(self, zygote: Zygote, number: int, pid: int, box: cgroups.Box, stdin: int, stdout: int,
                 stderr: int) -> None:
        self.zygote, self.number, self.pid, self.box = zygote, number, pid, box
        self.guard = zygote.guard
        self.stdin = os.fdopen(stdin, "wb", buffering=0)
        self.stdout = os.fdopen(stdout, "rb", buffering=0)
        self.stderr = os.fdopen(stderr, "rb", buffering=0)
        self.returncode: int | None = None
        zygote.watched.add(number)

    def poll(self) -> int | None:
        if self.returncode is None:
            self.zygote.pump()
            if self.number in self.zygote.exits:
                self.returncode = self.zygote.exits.pop(self.number)
            elif not self.zygote.alive:
                self.returncode = 128 + 9
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if deadline is not None and time.monotonic() >= deadline:
                raise subprocess.TimeoutExpired("bot", timeout or 0)
            self.zygote._read(0.01 if deadline is None else deadline - time.monotonic())
        return self.returncode  # type: ignore[return-value]

    def started(self) -> bool:
        return True

    def end(self) -> None:
        """Kill every process of the game (its cgroup, at once); the group is removed by the pool's thread."""
        if self.box is not None:
            box, self.box = self.box, None
            box.kill()
            pool.later(box.remove)
        with self.zygote.lock:
            self.zygote.watched.discard(self.number)
            self.zygote.exits.pop(self.number, None)

    def release(self) -> None:
        pass


def _abandon(ends: list[int], box: cgroups.Box) -> None:
    """Undo a bot's preparation that failed: our ends of its pipes closed (its process then exits), its group gone."""
    for fd in ends:
        os.close(fd)
    with contextlib.suppress(OSError):
        box.remove()


def _stamp(spec: BotSpec) -> tuple:
    """What changes when any of the bot's files does: each one's inode, size and modification time."""
    out = []
    for name in spec.files:
        try:
            info = os.stat(Path(spec.cwd) / name)
        except OSError:
            out.append((name, None))
            continue
        out.append((name, info.st_ino, info.st_size, info.st_mtime_ns))
    return tuple(out)


class Pool:
    """The warm sandboxes of this process, by bot (its staged files and content) and limits, and the
    thread that prepares each bot's next game and removes finished games' cgroups."""

    def __init__(self) -> None:
        self.zygotes: OrderedDict[tuple, Zygote] = OrderedDict()
        self.chores: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None

    def spawn(self, spec: BotSpec, resources: Resources, paused: bool) -> WarmProcess:
        found = cgroups.hierarchy()
        if found is None:
            raise sandbox.SandboxError(f"warm sandboxes need cgroups: {cgroups.unavailable()}")
        # The folder itself, not only its name: a sandbox binds the folder it was started with, and
        # one replaced by another (a ladder's cache unpacked again) is a new sandbox's.
        folder = os.stat(spec.cwd)
        key = (spec.cwd, folder.st_dev, folder.st_ino, spec.files, spec.command, spec.kind, spec.content_hash)
        zygote = self.zygotes.get(key)
        if zygote is not None and not zygote.alive:
            self.zygotes.pop(key).close()
            zygote = None
        if zygote is None:
            while len(self.zygotes) >= KEEP:
                self.zygotes.popitem(last=False)[1].close()
            zygote = self.zygotes[key] = Zygote(spec, found)
        self.zygotes.move_to_end(key)
        try:
            taken = zygote.take(resources, paused)
        except sandbox.SandboxError:
            self.zygotes.pop(key, None)
            zygote.close()
            raise
        self.later(functools.partial(zygote.stock, resources))
        return taken

    def later(self, chore: Any) -> None:
        """Do ``chore`` on the pool's thread (off the path of the game being played)."""
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._work, name="tourney-warm-sandboxes", daemon=True)
            self.thread.start()
        self.chores.put(chore)

    def _work(self) -> None:
        while True:
            chore = self.chores.get()
            if chore is None:
                return
            with contextlib.suppress(Exception):  # a chore that fails is done again when next needed
                chore()

    def close(self) -> None:
        if self.thread is not None and self.thread.is_alive():
            self.chores.put(None)
            self.thread.join(timeout=10)
        self.thread = None
        while self.zygotes:
            self.zygotes.popitem()[1].close()
        cgroups.release()

    def forget(self) -> None:
        """In a child process forked from this one: the parent's sandboxes are not its own."""
        self.zygotes = OrderedDict()
        self.chores = queue.SimpleQueue()
        self.thread = None


pool = Pool()
atexit.register(pool.close)
os.register_at_fork(after_in_child=pool.forget)
