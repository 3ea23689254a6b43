"""Attack: fork 200 processes, each sleeping 300 s, at its first act; then play on."""

import os
import sys
from pathlib import Path

GAMES = "*"
TAG = Path(__file__).stem.rpartition("_")[2]


def bomb() -> None:
    started = 0
    for _ in range(200):
        try:
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", f"300.{TAG}"])
        except OSError as error:
            print(f"fork failed after {started}: {error}", file=sys.stderr)
            break
        started += 1
    print(f"forked {started} of 200", file=sys.stderr)


class Bot:
    def __init__(self, game, seat, rng):
        self.bombed = False

    def act(self, turn):
        if not self.bombed:
            self.bombed = True
            bomb()
        return turn.legal[0]
