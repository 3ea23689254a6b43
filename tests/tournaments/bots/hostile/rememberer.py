"""Attack: remember one game in the next (a duplicate deal replays the same cards from every seat
rotation, so a note from one rotation tells the next the opponent's hand). At its first act in a
game it looks for what an earlier game of its own left, through every channel it can write:
files in its home, /tmp, /dev/shm and /dev; a process still running (``sleep 300.TAG``), which
also holds an abstract unix socket open; System V shared memory, message queues and semaphores;
a POSIX message queue; a loopback connection left in TIME_WAIT and the loopback's packet
counters; the host name; a module global. It logs what it found (`found: [...]`), leaves all of
these behind (logging why it could not, `could not leave NAME: ...`), logs what it then sees
(`left: [...]`), logs when it was imported and when it first acted (wall clock), and plays on."""

import contextlib
import ctypes
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

GAMES = "*"
TAG = Path(__file__).stem.rpartition("_")[2]
IMPORTED = time.time()
MEMORY: list[str] = []
KEY = 0x7A0B0B
NOTE = f"note-{TAG}"
ABSTRACT = f"\0{NOTE}"
LIBC = ctypes.CDLL(None, use_errno=True)
FOLDERS = {"home": "/home/bot", "tmp": "/tmp", "dev-shm": "/dev/shm", "dev": "/dev"}


def loopback_packets() -> int:
    for line in Path("/proc/self/net/dev").read_text().splitlines():
        name, _, counters = line.partition(":")
        if name.strip() == "lo":
            return int(counters.split()[1])
    return -1


def connections() -> list[str]:
    rows = []
    for table in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with contextlib.suppress(OSError):
            rows += Path(table).read_text().splitlines()[1:]
    return rows


def abstract_socket_answers() -> bool:
    with socket.socket(socket.AF_UNIX) as probe:
        try:
            probe.connect(ABSTRACT)
        except OSError:
            return False
    return True


def found() -> list[str]:
    seen = [name for name, folder in FOLDERS.items() if (Path(folder) / NOTE).exists()]
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if f"300.{TAG}" in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    seen.append("process")
    if LIBC.shmget(KEY, 4096, 0) >= 0:
        seen.append("sysv-shm")
    if LIBC.msgget(KEY, 0) >= 0:
        seen.append("sysv-msg")
    if LIBC.semget(KEY, 1, 0) >= 0:
        seen.append("sysv-sem")
    queue = LIBC.mq_open(f"/{NOTE}".encode(), os.O_RDONLY)
    if queue >= 0:
        seen.append("posix-mq")
        LIBC.mq_close(queue)
    if abstract_socket_answers():
        seen.append("abstract-socket")
    if connections():
        seen.append("loopback-connection")
    if loopback_packets() > 0:
        seen.append("loopback-counter")
    if socket.gethostname() != "bot":
        seen.append("hostname")
    if MEMORY:
        seen.append("global")
    return seen


def could_not(name: str, error: str) -> None:
    print(f"could not leave {name}: {error}", file=sys.stderr)


def leave() -> None:
    for name, folder in FOLDERS.items():
        try:
            (Path(folder) / NOTE).write_text("the opponent holds ...")
        except OSError as error:
            could_not(name, error.strerror)
    holder = socket.socket(socket.AF_UNIX)
    holder.bind(ABSTRACT)
    holder.listen()
    subprocess.Popen(["sleep", f"300.{TAG}"], start_new_session=True, pass_fds=[holder.fileno()])
    holder.close()
    for name, result in (("sysv-shm", LIBC.shmget(KEY, 4096, 0o1600)), ("sysv-msg", LIBC.msgget(KEY, 0o1600)),
                         ("sysv-sem", LIBC.semget(KEY, 1, 0o1600)),
                         ("posix-mq", LIBC.mq_open(f"/{NOTE}".encode(), os.O_CREAT | os.O_RDWR, 0o600, None))):
        if result < 0:
            could_not(name, os.strerror(ctypes.get_errno()))
    # A connection closed by its client first stays in TIME_WAIT for a minute; its port could be a byte.
    try:
        with socket.socket() as server:
            server.bind(("127.0.0.1", 0))
            server.listen()
            client = socket.create_connection(server.getsockname())
            accepted, _ = server.accept()
            client.close()
            accepted.close()
    except OSError as error:
        could_not("loopback-connection", error.strerror)
        could_not("loopback-counter", error.strerror)
    try:
        socket.sethostname(f"note-{TAG}")
    except OSError as error:
        could_not("hostname", error.strerror)
    MEMORY.append("a note")


class Bot:
    def __init__(self, game, seat, rng):
        self.first = True

    def act(self, turn):
        if self.first:
            self.first = False
            print(f"found: {found()}", file=sys.stderr)
            leave()
            deadline = time.monotonic() + 5
            while "process" not in found() and time.monotonic() < deadline:  # until the sleep has started
                time.sleep(0.01)
            print(f"left: {found()}", file=sys.stderr)
            print(f"imported {IMPORTED:.6f} first act {time.time():.6f}", file=sys.stderr, flush=True)
        print(f"acted {time.time():.6f}", file=sys.stderr, flush=True)
        return turn.legal[0]
