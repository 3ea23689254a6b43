"""Inside a sandbox: the world one game's bot gets, made new for every game, cold or warm alike.

tourney's own code, run as the sandbox's first process (a cold sandbox: ``enter`` once, then the
bot) or in a child the zygote forks for each game (a warm sandbox: tournaments.sandbox.zygote). The
bot's code never runs before ``enter`` has made everything the bot can write or observe its own
(docs/security.md, "What a game shares with no other"):

1. new mount, IPC, UTS, network and PID namespaces: no System V or POSIX IPC object, no abstract
   socket, no loopback connection, counter or TIME_WAIT, no host name of an earlier game;
   the new network has its loopback up;
2. a fresh, empty tmpfs on the home, /tmp and /dev/shm, each of the size tourney asked for (so
   that together they fit under the bot's memory), with what the sandbox had bound below them
   (tourney's Python, when it lives under /tmp) bound again, read-only as before; a fresh
   /dev/pts; /dev itself is read-only (bwrap ``--remount-ro /dev``);
3. a private, read-only copy of the bot's own files at /bot, in a tmpfs of the game's: the bot
   never touches the pages of a file another game of it touched (a page-cache channel);
4. pid 1 of the new PID namespace, an init with a /proc of its own that shows the game's
   processes and nothing of the machine (``subset=pid``: no /proc/stat, loadavg, meminfo, sys);
5. the bot's process: every descriptor of tourney's closed, every capability dropped (the
   bounding set checked empty), its rlimits, no_new_privs, the strict seccomp filter; then, when
   its game begins, the bot itself.

Nothing here imports the bot's code or anything that runs it but pyhost, in the bot's own
process, after the filter is on.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import resource
import socket
import stat
import struct
import sys
from collections.abc import Callable
from typing import Any, NoReturn

from tournaments.bots.inprocess import compile_module
from tournaments.bots.pyhost import _protocol_streams, serve

HOME = "/home/bot"
BOT_FILES = "/bot"
SCRATCH = (HOME, "/tmp", "/dev/shm")
SCRATCH_MODES = (b"0755", b"1777", b"1777")
HOSTNAME = b"bot"
PAGE = 4096

_CLONE_NEWNS, _CLONE_NEWUTS, _CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
_CLONE_NEWPID, _CLONE_NEWNET = 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_PR_SET_DUMPABLE, _PR_CAPBSET_READ, _PR_CAPBSET_DROP = 4, 23, 24
_PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS, _PR_CAP_AMBIENT = 22, 38, 47
_PR_CAP_AMBIENT_CLEAR_ALL, _SECCOMP_MODE_FILTER, _CAPABILITY_VERSION_3 = 4, 2, 0x20080522
_SIOCGIFFLAGS, _SIOCSIFFLAGS, _IFF_UP = 0x8913, 0x8914, 0x1
LIBC = ctypes.CDLL(None, use_errno=True)
_LIMITS = {"cpu": resource.RLIMIT_CPU, "fsize": resource.RLIMIT_FSIZE, "nofile": resource.RLIMIT_NOFILE,
           "core": resource.RLIMIT_CORE, "as": resource.RLIMIT_AS, "nproc": resource.RLIMIT_NPROC}


class _SockFilter(ctypes.Structure):
    _fields_ = [("code", ctypes.c_ushort), ("jt", ctypes.c_ubyte), ("jf", ctypes.c_ubyte), ("k", ctypes.c_uint)]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def check(result: int, what: str) -> None:
    """Raise OSError naming ``what`` when a libc call returned non-zero."""
    if result != 0:
        error = ctypes.get_errno()
        raise OSError(error, f"{what}: {os.strerror(error)}")


def enter(kind: str, entry: list[str], request: dict[str, Any], strict: bytes, covered: list[str],
          start: int | None = None) -> NoReturn:
    """Make this process's game new (namespaces, scratch, the bot's files), start the game's init and
    the bot under it, and exit with the bot's status. ``covered``: the sandbox's mounts below the
    scratch folders (``mounts_below``); ``start``: a pipe the bot waits on for its game to begin
    (None: at once); ``strict``: the bot's seccomp filter (classic BPF; empty: none)."""
    check(LIBC.unshare(_CLONE_NEWNS | _CLONE_NEWIPC | _CLONE_NEWPID | _CLONE_NEWNET | _CLONE_NEWUTS), "unshare")
    check(LIBC.sethostname(HOSTNAME, len(HOSTNAME)), "sethostname")
    _loopback_up()
    check(LIBC.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None), "mount --make-rprivate /")
    kept = [(target, os.open(target, os.O_PATH | os.O_CLOEXEC)) for target in covered]
    files = os.open(BOT_FILES, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for folder, mode in zip(SCRATCH, SCRATCH_MODES, strict=True):
        _tmpfs(folder, request["scratch"], mode)
    for target, fd in kept:
        _rebind(target, fd)
    check(LIBC.mount(b"devpts", b"/dev/pts", b"devpts", _MS_NOSUID | _MS_NOEXEC,
                      b"newinstance,ptmxmode=0666,mode=0620"), "mount /dev/pts")
    _private_copy(files)
    init = _forked(_init, kind, entry, request, strict, start)
    if start is not None:
        os.close(start)
    _, status = os.waitpid(init, 0)
    os._exit(exit_code(status))


def exit_code(status: int) -> int:
    """An exit status as bwrap reports its child's: the exit code, or 128 + the signal that killed it."""
    return os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def mounts_below(folders: tuple[str, ...] = SCRATCH) -> list[str]:
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


def _loopback_up() -> None:
    """Bring the new network namespace's loopback up (bwrap does so for its own; a warm sandbox's game
    makes a namespace of its own, whose loopback starts down)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH14x", b"lo", 0)
        flags = struct.unpack("16sH14x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH14x", b"lo", flags | _IFF_UP))


def _tmpfs(folder: str, size: int, mode: bytes, flags: int = _MS_NOSUID | _MS_NODEV) -> None:
    check(LIBC.mount(b"tmpfs", folder.encode(), b"tmpfs", flags, b"size=%d,mode=%s" % (size, mode)),
          f"mount {folder}")


def _rebind(target: str, fd: int) -> None:
    """Bind the mount held open as ``fd`` (hidden by a scratch tmpfs mounted over its parent) at
    ``target`` again: a bind keeps its source's flags, so what was read-only stays read-only."""
    if os.path.isdir(f"/proc/self/fd/{fd}"):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        os.close(os.open(target, os.O_CREAT | os.O_WRONLY | os.O_CLOEXEC, 0o644))
    check(LIBC.mount(f"/proc/self/fd/{fd}".encode(), target.encode(), None, _MS_BIND | _MS_REC, None),
          f"bind {target} again")
    os.close(fd)


def _private_copy(source: int) -> None:
    """Cover /bot with a tmpfs of the game's own holding a copy of the bot's files (the folder open as
    ``source``), then make it read-only: the pages the bot reads are this game's only, and what it
    pays for them is counted in the game's memory."""
    tree = list(_walk(source, ""))
    size = sum(PAGE + -(-length // PAGE) * PAGE for _, length, _ in tree) + 16 * PAGE
    _tmpfs(BOT_FILES, size, b"0755")
    for name, length, mode in tree:
        target = f"{BOT_FILES}/{name}"
        if length < 0:
            os.mkdir(target, 0o755)
            continue
        reading = os.open(name, os.O_RDONLY | os.O_CLOEXEC, dir_fd=source)
        writing = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
        try:
            while os.sendfile(writing, reading, None, 1 << 20):
                pass
        finally:
            os.close(reading)
            os.close(writing)
        os.chmod(target, 0o555 if mode & 0o111 else 0o444)
    os.close(source)
    check(LIBC.mount(None, BOT_FILES.encode(), None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | _MS_NOSUID | _MS_NODEV,
                      None), "make the bot's files read-only")


def _walk(folder: int, prefix: str):
    """(relative name, size or -1 for a folder, mode) of everything under the folder open as ``folder``,
    folders before what they hold; the staged copy holds folders and regular files only."""
    opened = os.open(prefix, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=folder) if prefix else folder
    try:
        with os.scandir(opened) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    finally:
        if prefix:
            os.close(opened)
    for entry in entries:
        name = f"{prefix}{entry.name}"
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        if stat.S_ISDIR(info.st_mode):
            yield name, -1, info.st_mode
            yield from _walk(folder, name + "/")
        elif stat.S_ISREG(info.st_mode):
            yield name, info.st_size, info.st_mode


def _forked(run: Callable[..., Any], *arguments: Any) -> int:
    """Fork a child that runs ``run(*arguments)`` and never returns into the caller's code; its pid."""
    pid = os.fork()
    if pid == 0:
        try:
            run(*arguments)
        finally:
            os._exit(127)
    return pid


def _init(kind: str, entry: list[str], request: dict[str, Any], strict: bytes, start: int | None) -> None:
    """pid 1 of the game's PID namespace: a /proc of its own, then the bot, whose status it exits with."""
    _mount_proc()
    LIBC.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    bot = _forked(_bot, kind, entry, request, strict, start)
    if start is not None:
        os.close(start)
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == bot:
            os._exit(exit_code(status))


def _mount_proc() -> None:
    """A /proc of the game's PID namespace that shows its processes only (``subset=pid``, Linux 5.8):
    none of the machine's counters, which move with what other sandboxes do. An older kernel gets
    the whole /proc (docs/security.md says what that leaves open)."""
    flags = _MS_NOSUID | _MS_NODEV | _MS_NOEXEC
    if LIBC.mount(b"proc", b"/proc", b"proc", flags, b"subset=pid") == 0:
        return
    if ctypes.get_errno() != errno.EINVAL:
        check(-1, "mount /proc")
    check(LIBC.mount(b"proc", b"/proc", b"proc", flags, None), "mount /proc")


def _bot(kind: str, entry: list[str], request: dict[str, Any], strict: bytes, start: int | None) -> None:
    """The bot's own process: nothing of tourney's left open, no capability, its limits, the filter;
    then, when its game begins, the bot."""
    if start is not None and start != 3:
        os.dup2(start, 3)
    os.closerange(4 if start is not None else 3, 1 << 16)
    os.chdir(BOT_FILES)
    LIBC.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
    drop_capabilities()
    for name, value in request["rlimits"].items():
        soft, hard = value if isinstance(value, list) else (value, value)
        resource.setrlimit(_LIMITS[name], (soft, hard))
    check(LIBC.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
    if strict:
        _load_filter(strict)
    if kind == "python":
        compile_module(entry[0])  # its source read and compiled, none of it run
    if start is not None:
        if os.read(3, 1) != b"!":  # prepared for a game that never came
            os._exit(0)
        os.close(3)
    if kind == "python":
        sys.argv = [entry[0]]
        os._exit(serve(entry[0], *_protocol_streams()))
    os.execve(_which(entry[0]), entry, request["environment"])


def drop_capabilities() -> None:
    """Drop every capability: ambient, bounding (checked empty afterwards), effective, permitted,
    inheritable. Dropping from the bounding set needs CAP_SETPCAP, which the sandbox's first process
    is given for this (bwrap --cap-add); a bounding set left non-empty is an error, never silent."""
    LIBC.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    last = 0
    while LIBC.prctl(_PR_CAPBSET_READ, last, 0, 0, 0) >= 0:
        last += 1
    for capability in range(last):
        if LIBC.prctl(_PR_CAPBSET_READ, capability, 0, 0, 0) == 1:
            check(LIBC.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0), f"drop capability {capability}")
    header = (ctypes.c_uint32 * 2)(_CAPABILITY_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)()
    check(LIBC.capset(header, data), "capset")


def _load_filter(program: bytes) -> None:
    count = len(program) // ctypes.sizeof(_SockFilter)
    filters = (_SockFilter * count).from_buffer_copy(program)
    fprog = _SockFprog(count, filters)
    check(LIBC.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0), "seccomp")


def _which(command: str) -> str:
    if "/" in command:
        return command
    for folder in os.environ.get("PATH", "/usr/bin:/bin").split(":"):
        candidate = os.path.join(folder, command)
        if os.access(candidate, os.X_OK):
            return candidate
    return command


def read_all(fd: int) -> bytes:
    """Everything left to read from ``fd``."""
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)

