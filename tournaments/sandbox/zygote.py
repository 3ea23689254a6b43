"""A sandbox's first process: it makes each game's world new, then becomes (or forks) the bot.

tourney's own code, run inside bwrap with tourney's Python packages imported; it never runs the
bot's code itself. Two modes (its first argument):

* ``once``: a cold sandbox (one bwrap per bot per game). It makes the game new
  (tournaments.sandbox.inside.enter: namespaces, scratch, the bot's private files, an init, the
  bot's limits and filter) and runs the bot in it.
* ``serve``: a warm sandbox (tournaments.sandbox.warm: one long-lived bwrap per bot and worker).
  For each game it forks a child, which waits until the organiser has moved it into the game's
  own cgroup (a ``go`` byte: this happens while an earlier game is still being played, each bot's
  next game being prepared ahead), then does what ``once`` does, except that the bot waits for
  its game to begin (a ``start`` byte) before it runs: for a Python file, tourney's host (pyhost)
  imports it there and then, in a process forked from a zygote that never imported it; for a
  program, ``execve`` of its command.

So a game's bot shares no memory, no process, no writable file, no IPC object and no network with
any other game's: what it leaves behind dies with its cgroup (or its PID namespace) when the game
ends, and the zygote is out of its reach (another PID namespace: it cannot see, signal or trace
it; the filter denies ptrace). The zygote keeps CAP_SYS_ADMIN, CAP_NET_ADMIN and CAP_SETPCAP inside
the sandbox's user namespace for the mounts, the network and the bot's capability drop; the bot
has no capability at all, its bounding set included.

Its arguments: ``once KIND REQUEST FILTER ENTRY...`` or ``serve KIND CONTROL FILTER ENTRY...``:
KIND ``python`` or ``program``; REQUEST the game's request as JSON (below); CONTROL the control
socket's descriptor; FILTER the descriptor of the bot's strict seccomp filter (classic BPF; -1:
none); ENTRY the bot's file or command.

Messages on the control socket (SOCK_SEQPACKET), one JSON object each:
``{"spawn": N, "scratch": BYTES, "rlimits": {...}, "environment": {...}}`` with the game's five
descriptors (stdin, stdout, stderr, go, start) attached, answered ``{"spawned": N, "pid": P}`` (P:
the child's pid in the sandbox); ``{"exited": N, "status": S}`` when a child ends (S as bwrap
reports a child's: its exit code, or 128 + a signal). The zygote exits when the organiser closes
the socket.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import sys

import orjson

from tournaments.sandbox import inside

_PR_SET_DUMPABLE = 4


def main() -> None:
    """A cold sandbox's game (``once``), or a warm sandbox's spawn requests until the organiser closes
    the control socket (``serve``)."""
    mode, kind, given, filter_fd, *entry = sys.argv[1:]
    strict = b""
    if int(filter_fd) >= 0:
        strict = inside.read_all(int(filter_fd))
        os.close(int(filter_fd))
    inside.LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    if mode == "once":
        inside.enter(kind, entry, orjson.loads(given), strict, inside.mounts_below())
    serve(kind, entry, socket.socket(fileno=int(given)), strict)


def serve(kind: str, entry: list[str], control: socket.socket, strict: bytes) -> None:
    """Fork a fresh game for each spawn request on ``control``, report its end, until the socket closes."""
    # A child's end wakes the loop at once (its exit status is how the organiser learns why a bot
    # stopped answering), through a pipe the signal writes to.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    covered = inside.mounts_below()  # the sandbox's mounts a game's scratch tmpfs covers: bwrap's, fixed
    control.sendall(orjson.dumps({"ready": os.getpid()}))
    children: dict[int, int] = {}
    while True:
        ready, _, _ = select.select([control, wake_read], [], [])
        if wake_read in ready:
            while True:
                try:
                    os.read(wake_read, 512)
                except BlockingIOError:
                    break
        _reap(control, children)
        if control not in ready:
            continue
        try:
            data, fds, _, _ = socket.recv_fds(control, 65536, 5)
        except OSError:
            break
        if not data:
            break
        request = orjson.loads(data)
        pid = os.fork()
        if pid == 0:
            try:
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                for fd in (wake_read, wake_write):
                    os.close(fd)
                control.close()
                _child(kind, entry, request, fds, strict, covered)
            finally:
                os._exit(127)
        for fd in fds:
            os.close(fd)
        children[pid] = request["spawn"]
        control.sendall(orjson.dumps({"spawned": request["spawn"], "pid": pid}))
    for pid in children:  # the organiser is gone: so are its games
        _kill(pid)


def _reap(control: socket.socket, children: dict[int, int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        spawn = children.pop(pid, None)
        if spawn is not None:
            try:
                control.sendall(orjson.dumps({"exited": spawn, "status": inside.exit_code(status)}))
            except OSError:
                return


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)


def _child(kind: str, entry: list[str], request: dict, fds: list[int], strict: bytes, covered: list[str]) -> None:
    """The game's first process: in a session of its own with the game's stdin, stdout and stderr, it
    waits until it is in the game's cgroup, then makes the game (inside.enter)."""
    stdin, stdout, stderr, go, start = fds
    os.setsid()
    for target, fd in ((0, stdin), (1, stdout), (2, stderr)):
        os.dup2(fd, target)
    if os.read(go, 1) != b"!":  # the organiser gave up on this game before it began
        os._exit(1)
    os.close(go)
    for fd in (stdin, stdout, stderr):
        if fd > 2:
            os.close(fd)
    inside.enter(kind, entry, request, strict, covered, start)


if __name__ == "__main__":
    main()
