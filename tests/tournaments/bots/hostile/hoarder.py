"""Attack: take memory that nothing counts. What it hoards is the word after ``hoarder_`` in its file's
name (``hoarder_KIND_TAG.py``): ``tmpfs`` (files in its home and /tmp), ``dev`` (a file in /dev),
``memfd`` (memfd files), ``shm`` (POSIX shared memory: files in /dev/shm), ``sysv`` (System V
shared memory), ``pipes`` (full pipe buffers) or ``tcp`` (loopback TCP buffers). At its first act it
takes all it can, up to 1 GiB in 1 MiB steps, logging `took N MiB` every 16 MiB and, when a step
fails, `stopped at N MiB: REASON`; then it keeps what it took and plays on (if it is still alive)."""

import contextlib
import ctypes
import fcntl
import os
import socket
import sys
from pathlib import Path

GAMES = "*"
KIND = Path(__file__).stem.split("_")[1]
MIB = 1 << 20
CHUNK = b"x" * MIB
LIBC = ctypes.CDLL(None, use_errno=True)
LIBC.shmat.restype = ctypes.c_void_p
HELD: list = []
F_SETPIPE_SZ = 1031


def files(folders):
    for folder in folders:
        with open(f"{folder}/hoard", "wb") as file:
            while True:
                file.write(CHUNK)
                file.flush()
                yield


def memfds():
    while True:
        fd = os.memfd_create("hoard")
        HELD.append(fd)
        for _ in range(32):
            os.write(fd, CHUNK)
            yield


def system_v():
    while True:
        segment = LIBC.shmget(0, 64 * MIB, 0o1600)
        if segment < 0:
            raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
        address = LIBC.shmat(segment, None, 0)
        for offset in range(0, 64 * MIB, MIB):
            ctypes.memset(address + offset, 1, MIB)
            yield


def pipes():
    while True:
        read, write = os.pipe()
        HELD.append((read, write))
        with contextlib.suppress(OSError):  # beyond the user's pipe budget a pipe keeps one page
            fcntl.fcntl(write, F_SETPIPE_SZ, MIB)
        os.set_blocking(write, False)
        queued = 0
        try:
            while True:
                queued += os.write(write, CHUNK)
                if queued >= MIB:
                    queued -= MIB
                    yield
        except BlockingIOError:
            pass


def tcp():
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    while True:
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        HELD.append((client, accepted))
        client.setblocking(False)
        queued = 0
        try:
            while True:
                queued += client.send(CHUNK)
                if queued >= MIB:
                    queued -= MIB
                    yield
        except BlockingIOError:
            pass


KINDS = {"tmpfs": lambda: files(["/home/bot", "/tmp"]), "dev": lambda: files(["/dev"]), "memfd": memfds,
         "shm": lambda: files(["/dev/shm"]), "sysv": system_v, "pipes": pipes, "tcp": tcp}


def hoard():
    took = 0
    steps = KINDS[KIND]()
    while took < 1024:
        try:
            next(steps)
        except OSError as error:
            print(f"stopped at {took} MiB: {error.strerror}", file=sys.stderr, flush=True)
            return
        took += 1
        if took % 16 == 0:
            print(f"took {took} MiB", file=sys.stderr, flush=True)
    print(f"stopped at {took} MiB: took all it wanted", file=sys.stderr, flush=True)


class Bot:
    def __init__(self, game, seat, rng):
        self.first = True

    def act(self, turn):
        if self.first:
            self.first = False
            hoard()
        return turn.legal[0]
