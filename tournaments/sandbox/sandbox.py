"""The sandbox of a bot program: bubblewrap (bwrap), one sandbox per bot per game.

``command`` below is the whole setup, flag by flag; docs/security.md says why each is there,
what it leaves open, and how to check it on a machine. In short, a sandboxed bot has its own
user, PID, IPC, UTS, network and mount namespaces; a read-only root made of the system's
programs and libraries, tourney's own Python and the bot's own files (at /bot, its working
directory); a fresh empty home and /tmp for this game only; its own /proc; a cleared
environment; rlimits set inside; no terminal; a seccomp filter (tournaments.sandbox.seccomp);
and, where the machine offers cgroups, a cgroup of its own for this game (tournaments.sandbox.cgroups)
that holds every process it ever starts: its total memory and process count are the group's
limits, its clock the group's CPU time, and the end of the game kills the whole group and
removes it, so nothing the bot started outlives the game. Without cgroups, killing its process
group ends the game's PID namespace, with rlimits as the limits.

Nor does a sandbox outlive the process that starts it (a worker), however that process dies
and whenever: ``_guard`` below, and docs/security.md, "A sandbox never outlives its starter".

RLIMIT_NPROC (the process limit) is not applied to root's processes and counts per host uid:
a sandbox started by root therefore drops, before bwrap runs, to a host uid of its own
(``HOST_UID_BASE`` + the pid of its guard), after making the few host folders it binds
reachable from a private mount namespace (root's home is often mode 0700), joining its
cgroup and a fresh, empty session keyring of its own.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import shlex
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

import engines
from tournaments.bots.spec import CPU, PROGRAM, PYTHON, WALL, BotError, Confinement, Resources
from tournaments.sandbox import cgroups, interrupts, leftovers, seccomp

INSTALL = "apt-get install bubblewrap"
BOT_FILES = "/bot"
HOME = "/home/bot"
UID = 65534
"""The bot's uid and gid inside its sandbox (nobody's, by convention)."""
HOST_UID_BASE = 0x7A000000
"""Host uids of sandboxes started by root: this plus the pid of the sandbox's guard process.
Above the uids accounts and container tools hand out; below 2**31."""
ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "HOME": HOME,
    "TMPDIR": "/tmp",
    "USER": "bot",
    "LOGNAME": "bot",
    "LANG": "C.UTF-8",
}
"""The bot's whole environment (bwrap --clearenv, then these)."""
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc/alternatives", "/etc/ld.so.cache")
"""Host paths bound read-only as they are (those that exist; a symlink stays a symlink)."""
PASSWD = f"bot:x:{UID}:{UID}:bot:{HOME}:/bin/sh\n"
GROUP = f"bot:x:{UID}:\n"
MIB = 1024 * 1024


class SandboxError(BotError):
    """The sandbox itself cannot start (not the bot's fault); the message is one clear line."""


CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_NET_ADMIN", "CAP_SETPCAP")
"""What the sandbox's first process (tourney's zygote, never the bot) keeps inside the sandbox's user
namespace: mounts and namespaces for each game, its loopback, and emptying the bot's bounding set."""


def command(argv: Sequence[str], files: str, runtime: Sequence[tuple[str, str]], data: dict[str, int],
            info_fd: int, filter_fd: int | None = None) -> list[str]:
    """The bwrap command line that runs ``argv`` (tourney's zygote) in a new sandbox (docs/security.md,
    "The sandbox").

    ``files`` is the host folder of the bot's own files, ``runtime`` the (host, sandbox) folders
    of tourney's Python, ``data`` open descriptors of the files written into /etc, ``info_fd``
    where bwrap reports that the sandbox is up (so that its own failures are not the bot's),
    ``filter_fd`` where bwrap reads the zygote's seccomp filter from (None: no filter).

    The sandbox's first process is tourney's zygote (tournaments.sandbox.zygote), which makes each
    game's namespaces, scratch mounts, private copy of the bot's files and limits itself
    (tournaments.sandbox.inside) before the bot runs: bwrap only leaves the folders it mounts on.
    """
    return [
        bwrap() or "bwrap",
        # Its own user (one unprivileged uid), PID, IPC, UTS, network (only a loopback of its own),
        # cgroup and mount namespaces; no user namespace nested inside.
        "--unshare-all", "--unshare-user", "--disable-userns",
        "--uid", str(UID), "--gid", str(UID), "--hostname", "bot",
        *[part for capability in CAPABILITIES for part in ("--cap-add", capability)],
        # Killed when bwrap's parent dies. No --new-session: the sandbox stays in its guard's
        # session (without a controlling terminal) and process group, which is killed whole.
        "--die-with-parent",
        "--clearenv", *[part for name, value in ENVIRONMENT.items() for part in ("--setenv", name, value)],
        # A read-only root: the system's programs and libraries, a user entry of its own.
        *_system(),
        *[part for path, fd in data.items() for part in ("--ro-bind-data", str(fd), path)],
        "--proc", "/proc", "--dev", "/dev",
        # Where each game's scratch tmpfs goes (tournaments.sandbox.inside mounts them).
        "--dir", HOME, "--dir", "/tmp",
        # tourney's Python, then the bot's own files, read-only; the bot starts in its files.
        *[part for host, inside in runtime for part in ("--ro-bind", host, inside)],
        "--ro-bind", files, BOT_FILES, "--chdir", BOT_FILES,
        # Nothing writable but each game's own mounts: not even /dev (its /dev/shm is the game's).
        "--remount-ro", "/dev", "--remount-ro", "/",
        "--info-fd", str(info_fd),
        # The zygote's seccomp filter; the bot's own, stricter one it loads itself.
        *(["--seccomp", str(filter_fd)] if filter_fd is not None else []),
        "--",
        *argv,
    ]


def request(resources: Resources, grouped: bool) -> dict[str, Any]:
    """What a game's bot gets (tournaments.sandbox.inside.enter): its scratch mounts' size, its rlimits
    (``grouped``: its cgroup counts its memory and processes, else rlimits do) and its environment."""
    cpu = resources.cpu_seconds
    limits: dict[str, Any] = {"cpu": [cpu, cpu + 1], "fsize": resources.file_mb * MIB,
                              "nofile": resources.open_files, "core": 0}
    if not grouped:
        # RLIMIT_NPROC counts per user namespace: this sandbox's processes only.
        limits |= {"as": resources.memory_mb * MIB, "nproc": resources.max_processes}
    return {"scratch": resources.scratch_bytes(), "rlimits": limits,
            "environment": ENVIRONMENT | {"PWD": BOT_FILES}}


def entry_of(spec_kind: str, files: Sequence[str], command_line: Sequence[str]) -> list[str]:
    """What the zygote runs for a bot: a Python bot's file (pyhost imports it), or a program's command."""
    return list(files[:1]) if spec_kind == PYTHON else list(command_line)


@functools.cache
def boot() -> str:
    """The zygote's start: as pyhost's (tournaments.sandbox.supervisor), then the zygote's main."""
    return f"import sys; sys.path += {pyhost_paths()!r}; from tournaments.sandbox.zygote import main; main()"


class Sandboxed(subprocess.Popen):
    """A bot's bwrap process; ``started()`` tells whether the sandbox came up; its cgroup, if it has one."""

    info: int
    up = False
    box: cgroups.Box | None = None

    @property
    def guard(self) -> int:
        """The pid of the sandbox's guard (SIGTERM to it ends the sandbox, frozen or not)."""
        return self.pid

    def started(self) -> bool:
        """Whether bwrap reported the sandbox up (False: bwrap failed before running the bot)."""
        if not self.up and self.info >= 0:
            with contextlib.suppress(BlockingIOError):
                self.up = bool(os.read(self.info, 4096))
        return self.up

    def end(self) -> None:
        """Kill every process of the sandbox and reap its guard: the whole cgroup where there is one
        (whatever its processes did to their process group or session), else the process group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.pid, signal.SIGKILL)
        if self.box is not None:
            self.box.remove()
            self.box = None
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.wait(timeout=5)

    def release(self) -> None:
        if self.info >= 0:
            os.close(self.info)
            self.info = -1


def start(entry: Sequence[str], files: str, resources: Resources, stderr: int | None, paused: bool = False,
          kind: str = PROGRAM) -> Sandboxed:
    """Start a bot in a cold sandbox of its own (one game): ``entry`` is a program's command line
    (``kind`` PROGRAM) or a Python bot's file (PYTHON), ``files`` the host folder of its own files;
    pipes on its stdin and stdout.

    With cgroups the sandbox gets a group of its own, joined by its first process before bwrap
    starts, so that every process of the sandbox is in it from the first; ``paused``: the group
    is frozen from the start (until ``box.thaw()``)."""
    found = cgroups.hierarchy()
    box = cgroups.Box(found, resources.memory_mb, resources.max_processes) if found is not None else None
    if paused and box is not None:
        box.freeze()  # the sandbox's first process joins a frozen group, and stops there
    game = orjson.dumps(request(resources, box is not None)).decode()
    try:
        return launch(lambda strict: ["once", kind, game, strict], list(entry), files, stderr, box)
    except SandboxError:
        if box is not None:
            with contextlib.suppress(OSError):
                box.remove()
        raise


def launch(arguments: Callable[[str], list[str]], entry: list[str], files: str, stderr: int | None,
           box: cgroups.Box | None, passed: Sequence[int] = ()) -> Sandboxed:
    """bwrap running tourney's zygote with ``arguments(strict filter's descriptor)`` then ``entry``, the
    bot's ``files`` at /bot, in ``box`` (if any), behind its guard; the descriptors ``passed`` left
    open for the zygote."""
    runtime = [(path, path) for path in python_runtime()]
    preexec = None
    if os.geteuid() == 0:
        sources = [host for host, _ in runtime] + [files]
        stage = _stage_for(sources)
        staged = [f"{stage}/{i}" for i in range(len(sources))]
        runtime = list(zip(staged[:-1], [inside for _, inside in runtime], strict=True))
        files = staged[-1]
        preexec = _private_view(stage, sources)
    data = {"/etc/passwd": _memfd(PASSWD), "/etc/group": _memfd(GROUP)}
    info_read, info_write = os.pipe()
    os.set_blocking(info_read, False)
    ours = [*data.values(), info_write]
    filter_fd = strict = None
    try:
        if seccomp.program() is not None:
            filter_fd = seccomp.descriptor(seccomp.ZYGOTE)
            strict = seccomp.descriptor(seccomp.STRICT if box is not None else seccomp.UNGROUPED)
            ours += [filter_fd, strict]
        argv = [sys.executable, "-I", "-S", "-c", boot(), *arguments(str(strict if strict is not None else -1)),
                *entry]
        bwrap_command = command(argv, files, runtime, data, info_write, filter_fd)
        with interrupts.ctrl_c_held():  # root's preexec_fn runs Python's at-fork hooks, which drop a KeyboardInterrupt
            process = Sandboxed(
                _guard(bwrap_command, [*ours, *passed], box), stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=stderr, env={}, cwd="/", start_new_session=True, bufsize=0,
                pass_fds=[*ours, *passed], preexec_fn=preexec,
            )
    except (OSError, subprocess.SubprocessError, BotError) as error:
        os.close(info_read)
        raise SandboxError(f"could not start the sandbox: {error}") from None
    finally:
        for fd in ours:
            os.close(fd)
    process.info = info_read
    process.box = box
    return process


JOIN = ('unset PWD; u=$1; s=$2; n=$3; shift 3; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 1; n=$((n - 1)); '
        'shift; done; [ "$u" = - ] || set -- "$s" --reuid="$u" --regid="$u" --clear-groups -- "$@"; exec "$@"')
"""The sandbox's first process: it joins the cgroup (its pid to each ``cgroup.procs``), as root drops to
the sandbox's own host uid ``u`` (``-``: it is not root) with setpriv ``s``, then becomes bwrap."""


def _guard(bwrap_command: list[str], passed: Sequence[int], box: cgroups.Box | None = None) -> list[str]:
    """``bwrap_command`` run by a guard that kills the whole sandbox when its starter dies.

    bwrap's own --die-with-parent leaves two windows (docs/security.md, "A sandbox never outlives
    its starter"): bwrap arms it only after creating the sandbox's init, and the init arms its
    own only after its setup; a starter dying in between leaves the init (and then the bot)
    running, reparented to pid 1. So the process tourney starts is a guard: ``setpriv`` arms
    PR_SET_PDEATHSIG (SIGTERM) and execs ``sh``, which traps SIGTERM to thaw the sandbox's
    cgroup and the groups inside it (a frozen task cannot die) and SIGKILL its whole process group
    (itself, bwrap, the sandbox's init: the PID namespace dies with the init), exits at once if
    its parent is no longer the starter (it died before the signal was armed), then starts a child
    that joins the cgroup (``JOIN``: bwrap and all it starts inherit the group; the guard itself
    stays out of it, so that it still runs while the bot is frozen) and becomes bwrap, in the
    background (with the empty environment tourney gave it: sh would export PWD), and waits for
    it, its exit status being bwrap's.

    As root, the guard stays root (so that no cgroup file need belong to the uid the bot runs as)
    and its child drops to the sandbox's own host uid, HOST_UID_BASE + the guard's pid, just before
    it becomes bwrap.

    No Python runs between fork and exec (a preexec_fn is unsafe in a process with threads, as
    a Ray worker is; root's ``_private_view`` is the exception), so Popen may even use vfork.
    PR_SET_PDEATHSIG fires when the *thread* that forked dies: sandboxes are started by the
    thread that plays the game, the main thread of a worker process or of tourney, which lives
    as long as its process. dash puts stdin on /dev/null for a background command: the guard
    keeps it on a spare descriptor (one of 3-9 not passed to bwrap) to hand it on.
    """
    spare = next(fd for fd in range(3, 10) if fd not in passed)
    joins = box.procs if box is not None else ()
    thaw, thawed = box.thaw_control if box is not None else ("", "")
    base = str(HOST_UID_BASE) if os.geteuid() == 0 else ""
    # The trap thaws the group and the groups inside it (a warm sandbox's games), then kills.
    script = (f'trap \'[ -n "$f" ] && for x in "$f" "${{f%/*}}"/*/"${{f##*/}}"; do echo "$v" > "$x"; done; '
              f'kill -KILL 0\' TERM; [ "$PPID" = "$1" ] || exit 1; '
              f'f=$2; v=$3; j=$4; b=$5; n=$6; shift 6; u=-; [ -z "$b" ] || u=$((b + $$)); unset PWD; '
              f'exec {spare}<&0; /bin/sh -c "$j" tourney-join "$u" {shlex.quote(_setpriv())} "$n" "$@" <&{spare} '
              f'{spare}<&- & exec {spare}<&- 0<&- 1>&- 2>&-; wait $!')
    return [_setpriv(), "--pdeathsig", "TERM", "--", "/bin/sh", "-c", script, "tourney-guard", str(os.getpid()),
            thaw, thawed, JOIN, base, str(len(joins)), *joins, *bwrap_command]


def timing(clock: str | None = None, ponder: bool | None = None) -> tuple[str, bool]:
    """How sandboxed moves are timed here, and whether bots run between their turns: what was asked
    (None: not asked), else the strictest this machine offers (with cgroups: the CPU clock, bots
    frozen between turns; without: the wall clock, bots running). SandboxError for what it cannot."""
    grouped = cgroups.hierarchy() is not None
    if not grouped and (clock == CPU or ponder is False):
        asked = "--clock cpu" if clock == CPU else "--no-ponder"
        raise SandboxError(f"{asked} needs a cgroup per sandbox, and there is none here: {cgroups.unavailable()}")
    return clock or (CPU if grouped else WALL), (not grouped) if ponder is None else ponder


def describe(confinement: Confinement) -> str:
    """How bots play, for a run's first line: "sandboxed, cgroup v1, seccomp, cpu clock, no pondering"."""
    if not confinement.sandbox:
        return "not sandboxed, wall clock"
    found = cgroups.hierarchy()
    parts = ["sandboxed", found.describe() if found is not None else "no cgroups: rlimits only",
             "seccomp" if seccomp.program() is not None else "no seccomp filter", f"{confinement.clock} clock"]
    if found is not None:
        parts.append("pondering" if confinement.ponder else "no pondering")
    return ", ".join(parts)


def resolve(mode: str) -> tuple[bool, str | None]:
    """Whether bots play in the sandbox for ``--sandbox`` on, off or auto, and a notice to show.

    ``on`` without a working sandbox is a SandboxError; ``auto`` then plays without one, with a
    notice saying why and how to get it.
    """
    if mode == "off":
        return False, None
    problem = unavailable()
    if problem is None:
        return True, None
    if mode == "on":
        raise SandboxError(problem)
    return False, f"notice: bots play without a sandbox: {problem}"


@functools.cache
def unavailable() -> str | None:
    """Why bots cannot be sandboxed on this machine (None: they can), found by starting one sandbox."""
    if bwrap() is None:
        return f"bwrap (bubblewrap) is not installed; install it with `{INSTALL}`"
    if os.geteuid() == 0 and not _uids_mapped():
        return (f"tourney runs as root in a user namespace without the host uids {HOST_UID_BASE:#x} and up, "
                "which each sandbox runs as; run tourney as an ordinary user instead")
    empty = leftovers.temporary_folder("tourney-probe-")
    try:
        os.chmod(empty.name, 0o755)
        process = start(["/bin/true"], empty.name, Resources(), subprocess.PIPE)
        try:
            _, said = process.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            process.end()
            process.communicate()
            return "bwrap cannot make a sandbox here (a sandbox running /bin/true did not end within 30 s)"
        finally:
            process.end()
            process.release()
    except SandboxError as error:
        return f"bwrap cannot make a sandbox here ({error})"
    finally:
        empty.cleanup()
    if process.returncode != 0:
        lines = said.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot make a sandbox here ({lines[-1] if lines else f'exit code {process.returncode}'})"
    return None


def _uids_mapped() -> bool:
    """Whether this (root) process may become every uid HOST_UID_BASE + pid (its user namespace maps them)."""
    try:
        top = HOST_UID_BASE + int(Path("/proc/sys/kernel/pid_max").read_text())
        ranges = [tuple(map(int, line.split())) for line in Path("/proc/self/uid_map").read_text().splitlines()]
    except (OSError, ValueError):
        return True  # not Linux's /proc: let the probe sandbox tell
    return any(inside <= HOST_UID_BASE and top <= inside + count for inside, _outside, count in ranges)


@functools.cache
def bwrap() -> str | None:
    """The bwrap program, or None if it is not installed."""
    return shutil.which("bwrap")


@functools.cache
def _prlimit() -> str:
    return shutil.which("prlimit") or "/usr/bin/prlimit"


@functools.cache
def _setpriv() -> str:
    return shutil.which("setpriv") or "/usr/bin/setpriv"


@functools.cache
def python_runtime() -> tuple[str, ...]:
    """Host folders of tourney's own Python, bound read-only at the same paths.

    The interpreter's prefix, the virtual environment's (its site-packages: what in-process
    bots could import), every other site-packages on this interpreter's path (a .pth or
    PYTHONPATH may add one: a Python bot's process puts them all on its path, ``pyhost_paths``),
    and the folders of the ``engines`` and ``tournaments`` packages, and of ``adapters`` when
    installed (the RL bots' bridge, docs/rl.md): an editable install keeps them outside
    site-packages. The rest of tourney is not bound.
    """
    found = {sys.base_prefix, sys.prefix, str(Path(engines.__file__).parent), str(Path(__file__).parents[1]),
             *_site_packages()}
    adapters = Path(engines.__file__).parents[1] / "adapters"  # its folder only: tournaments never imports it
    if (adapters / "__init__.py").is_file():
        found.add(str(adapters))
    system = tuple(path for path in SYSTEM if os.path.isdir(path) and not os.path.islink(path))
    paths = sorted(path for path in found if not _inside(path, system))
    return tuple(path for path in paths if not _inside(path, tuple(p for p in paths if p != path)))


@functools.cache
def pyhost_paths() -> list[str]:
    """What a Python bot's process puts on sys.path (it starts without ``site``): the folders holding
    tourney's own packages, and this interpreter's site-packages (what a Python bot may import)."""
    packages = [str(Path(engines.__file__).parents[1]), str(Path(__file__).parents[2])]
    return list(dict.fromkeys([*packages, *_site_packages()]))


def _site_packages() -> list[str]:
    return [path for path in sys.path if path.endswith(("site-packages", "dist-packages")) and os.path.isdir(path)]


def _inside(path: str, folders: Sequence[str]) -> bool:
    return any(path == folder or path.startswith(folder.rstrip("/") + "/") for folder in folders)


@functools.cache
def _system() -> tuple[str, ...]:
    out: list[str] = []
    for path in SYSTEM:
        if os.path.islink(path):
            out += ["--symlink", os.readlink(path), path]
        elif os.path.exists(path):
            out += ["--ro-bind", path, path]
    return tuple(out)


def _memfd(text: str) -> int:
    fd = os.memfd_create("tourney-sandbox-data")
    os.write(fd, text.encode())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


_CLONE_NEWNS = 0x00020000
_SYS_KEYCTL = {"x86_64": 250, "aarch64": 219}.get(os.uname().machine, 250)
_KEYCTL_JOIN_SESSION_KEYRING = 1
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 2, 4, 4096, 16384, 1 << 18


STAGES = ("/mnt", "/srv", "/media", "/opt", "/var/tmp", "/tmp")
"""Folders one of which root's sandbox start covers, in its private mount namespace only, with
a small tmpfs holding the folders it binds (the first that exists and holds none of them)."""


def _stage_for(sources: Sequence[str]) -> str:
    for stage in STAGES:
        if os.path.isdir(stage) and not os.path.islink(stage) and not any(_inside(s, (stage,)) for s in sources):
            return stage
    raise SandboxError(f"no folder to stage the sandbox's binds in: none of {', '.join(STAGES)} is free")


def _private_view(stage: str, sources: Sequence[str]) -> Callable[[], None]:
    """For root: a child (the guard to be) that binds ``sources`` at STAGE/0, STAGE/1, ... in a private
    mount namespace (so that the unprivileged bwrap its child becomes reaches them whatever their
    parents' modes) and joins a new, empty session keyring (so that nothing of the organiser's
    session keyring is even attached to the sandbox's processes)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    root = os.fsencode(stage)
    paths = [os.fsencode(source) for source in sources]

    def check(result: int) -> None:
        if result != 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))

    def enter() -> None:
        check(libc.unshare(_CLONE_NEWNS))
        check(libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None))
        check(libc.mount(b"tourney", root, b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0755,size=64k"))
        for i, path in enumerate(paths):
            target = b"%s/%d" % (root, i)
            os.mkdir(target)
            check(libc.mount(path, target, None, _MS_BIND | _MS_REC, None))
        if libc.syscall(_SYS_KEYCTL, _KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
            raise OSError(ctypes.get_errno(), f"a fresh session keyring: {os.strerror(ctypes.get_errno())}")

    return enter
