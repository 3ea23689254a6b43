"""Attack: outlive the game. At its first act it starts two daemons that leave its process
group and session (double fork + setsid), one of them ignoring SIGHUP and SIGTERM, each
sleeping 300 s; then it plays on."""

import os
import signal
import sys
from pathlib import Path

GAMES = "*"
TAG = Path(__file__).stem.rpartition("_")[2]


def daemon(ignore_signals: bool) -> None:
    if os.fork():
        return
    os.setsid()
    if os.fork():
        os._exit(0)
    if ignore_signals:
        signal.signal(signal.SIGHUP, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.execvp("sleep", ["sleep", f"300.{TAG}"])


class Bot:
    def __init__(self, game, seat, rng):
        self.started = False

    def act(self, turn):
        if not self.started:
            self.started = True
            daemon(False)
            daemon(True)
            print("started two daemons", file=sys.stderr)
        return turn.legal[0]
