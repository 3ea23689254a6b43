"""A warm sandbox's first process: it starts each game's bot fresh, without a new sandbox or interpreter.

tourney's own code, run inside one long-lived bwrap sandbox per bot and worker
(tournaments.bots.warm starts it), with tourney's Python packages imported once. It never runs
the bot's code itself: for each game it forks a child that is made as new as a cold sandbox
would make it, and only then becomes the bot:

1. the child waits until the organiser has moved it into the game's own cgroup (a ``go`` byte);
   this happens while an earlier game is still being played (each bot's next game is prepared
   ahead of time);
2. it makes a mount, IPC and PID namespace of its own and mounts a fresh, empty tmpfs on the
   home, /tmp and /dev/shm (nothing any earlier game wrote is there), then binds again what the
   sandbox had bound below them (tourney's Python when it lives under /tmp: a clone there and its
   tox environment), read-only as before;
3. its first child is pid 1 of the new PID namespace (an init that reaps, with a /proc of its
   own, not dumpable); its child in turn closes every descriptor but the game's stdin, stdout and
   stderr, drops every capability, sets its rlimits, loads the strict seccomp filter
   (tournaments.bots.seccomp), waits for its game to begin (a ``start`` byte) and runs the bot:
   for a Python file, tourney's host (pyhost) imports it there and then, in a process forked from
   a zygote that never imported it; for a program, ``execve`` of its command.

So a game's bot shares no memory, no process, no writable file and no IPC object with any other
game's: what it leaves behind dies with its cgroup when the game ends, and the zygote is out of
its reach (another PID namespace: it cannot see, signal or trace it; the filter denies ptrace).
The zygote keeps CAP_SYS_ADMIN inside the sandbox's user namespace for the mounts; the bot has no
capability at all.

Its arguments: ``python`` or ``program``, the control socket's descriptor, the descriptor of the
strict seccomp filter (classic BPF; -1: none), then the bot's file or command.

Messages on the control socket (SOCK_SEQPACKET), one JSON object each:
``{"spawn": N, ...}`` with the game's five descriptors (stdin, stdout, stderr, go, start) attached,
answered ``{"spawned": N, "pid": P}`` (P: the child's pid in the sandbox); ``{"exited": N,
"status": S}`` when a child ends (S as bwrap reports a child's: its exit code, or 128 + a signal).
The zygote exits when the organiser closes the socket.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import resource
import select
import signal
import socket
import sys

import orjson

from tournaments.bots import inprocess, pyhost

HOME = "/home/bot"
SCRATCH = (HOME, "/tmp", "/dev/shm")

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWPID = 0x00020000, 0x08000000, 0x20000000
_MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 8, 4096, 16384, 1 << 18
_PR_SET_DUMPABLE, _PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS, _PR_SET_SECCOMP, _PR_CAP_AMBIENT = 4, 24, 38, 22, 47
_PR_CAP_AMBIENT_CLEAR_ALL, _SECCOMP_MODE_FILTER, _CAPABILITY_VERSION_3 = 4, 2, 0x20080522
_LIBC = ctypes.CDLL(None, use_errno=True)
_LIMITS = {"cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE,
           "core": resource.RLIMIT_CORE}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def _check(result: int, what: str) -> None:
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def main() -> None:
    """Serve spawn requests until the organiser closes the control socket."""
    kind, control_fd, filter_fd, *entry = sys.argv[1:]
    strict = b""
    if int(filter_fd) >= 0:
        strict = _read_all(int(filter_fd))
        os.close(int(filter_fd))
    _LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    control = socket.socket(fileno=int(control_fd))
    # A child's end wakes the loop at once (its exit status is how the organiser learns why a bot
    # stopped answering), through a pipe the signal writes to.
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_read, False)
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    covered = _mounts_below(SCRATCH)  # the sandbox's mounts a game's scratch tmpfs covers: bwrap's, fixed
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
                control.sendall(orjson.dumps({"exited": spawn, "status": _code(status)}))
            except OSError:
                return


def _code(status: int) -> int:
    """An exit status as bwrap reports its child's: the exit code, or 128 + the signal that killed it."""
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _kill(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 9)


def _child(kind: str, entry: list[str], request: dict, fds: list[int], strict: bytes, covered: list[str]) -> None:
    """The game's first process: waits to be in the game's cgroup, makes its namespaces and
    scratch mounts (binding ``covered`` again over them), and starts the game's init (pid 1),
    whose status becomes its own."""
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
    _check(_LIBC.unshare(_CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWPID), "unshare")
    _check(_LIBC.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    size = b"size=%d" % request["scratch"]
    kept = [(target, os.open(target, os.O_PATH | os.O_CLOEXEC)) for target in covered]
    for folder, mode in zip(SCRATCH, (b"0755", b"1777", b"1777"), strict=True):
        _check(_LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, size + b",mode=" + mode),
               f"mount {folder}")
    for target, fd in kept:
        _rebind(target, fd)
    init = _forked(_init, kind, entry, request, strict, start)
    os.close(start)
    _, status = os.waitpid(init, 0)
    os._exit(_code(status))


def _mounts_below(folders: tuple[str, ...]) -> list[str]:
    """The mount points strictly inside ``folders`` (outermost only: a bind with its mounts inside it
    brings those along), from this mount namespace's /proc/self/mountinfo."""
    points = []
    with open("/proc/self/mountinfo", "rb") as table:
        for line in table:
            # The fifth field, with the kernel's octal escapes of space, tab, newline and backslash.
            point = line.split(b" ")[4].decode("unicode_escape").encode("latin-1").decode(errors="surrogateescape")
            if any(point.startswith(folder + "/") for folder in folders):
                points.append(point)
    return [point for point in points if not any(point.startswith(other + "/") for other in points)]


def _rebind(target: str, fd: int) -> None:
    """Bind the mount held open as ``fd`` (hidden by a scratch tmpfs mounted over its parent) at
    ``target`` again: a bind keeps its source's flags, so what was read-only stays read-only."""
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
    _check(_LIBC.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None, _MS_BIND | _MS_REC, None),
           f"bind {target} again")
    os.close(fd)


def _forked(run, *arguments) -> int:
    """Fork a child that runs ``run(*arguments)`` and never returns into the caller's code; its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            run(*arguments)
        finally:
            os._exit(127)
    return pid


def _init(kind: str, entry: list[str], request: dict, strict: bytes, start: int) -> None:
    """pid 1 of the game's PID namespace: a /proc of its own, then the bot, whose status it exits with."""
    _check(_LIBC.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None), "mount /proc")
    _LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    bot = _forked(_bot, kind, entry, request, strict, start)
    os.close(start)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == bot:
            os._exit(_code(status))


def _bot(kind: str, entry: list[str], request: dict, strict: bytes, start: int) -> None:
    """The bot's own process: nothing of tourney's left open, no capability, its limits, the filter;
    then, when its game begins, the bot."""
    if start != 3:
        os.dup2(start, 3)
    os.closerange(4, 1 << 16)
    os.chdir("/bot")
    _LIBC.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    _drop_capabilities()
    for name, value in request["rlimits"].items():
        soft, hard = value if isinstance(value, list) else (value, value)
        resource.setrlimit(_LIMITS[name], (soft, hard))
    _check(_LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if strict:
        _load_filter(strict)
    if kind == "python":
        inprocess.compile_module(entry[0])  # its source read and compiled, none of it run
    if os.read(3, 1) != b"!":  # prepared for a game that never came
        os._exit(0)
    os.close(3)
    if kind == "python":
        sys.argv = [entry[0]]
        os._exit(pyhost.serve(entry[0], *pyhost._protocol_streams()))
    os.execve(_which(entry[0]), entry, request["environment"])


def _drop_capabilities() -> None:
    _LIBC.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    for capability in range(64):
        if _LIBC.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0) != 0 and ctypes.get_errno() == errno.EINVAL:
            break
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    _check(_LIBC.capset(header, data), "capset")


def _load_filter(program: bytes) -> None:
    count = len(program) // ctypes.sizeof(_SockFilter)
    filters = (_SockFilter * count).from_buffer_copy(program)
    fprog = _SockFprog(count, filters)
    _check(_LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def _which(command: str) -> str:
    if "/" in command:
        return command
    for folder in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        candidate = os.path.join(folder, command)
        if os.access(candidate, os.X_OK):
            return candidate
    return command


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


if __name__ == "__main__":
    main()
