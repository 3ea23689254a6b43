"""Attack: read the opponent's hidden hand from its stdin through /proc/<pid>/fd/0, and stop it
with SIGSTOP, for every process it can find; then play on."""

import os
import signal
import sys

GAMES = "*"


def spy() -> None:
    me = os.getpid()
    for pid in sorted(int(p) for p in os.listdir("/proc") if p.isdigit()):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ")
        except OSError:
            continue
        print(f"saw {pid}: {command!r}", file=sys.stderr)
        if pid in (me, 1):
            continue
        try:
            os.set_blocking(fd := os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NONBLOCK), False)
            print(f"read from {pid}: {os.read(fd, 4096)[:60]!r}", file=sys.stderr)
        except OSError as error:
            print(f"cannot read {pid}'s input: {error}", file=sys.stderr)
        try:
            os.kill(pid, signal.SIGSTOP)
            print(f"stopped {pid}", file=sys.stderr)
        except OSError as error:
            print(f"cannot stop {pid}: {error}", file=sys.stderr)


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        if self.acts == 1:
            spy()
        return turn.legal[-1]
