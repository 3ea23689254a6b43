"""Attack: starve the opponent of CPU. At its first act it starts twice as many spinning processes
as the machine has cores (each burning CPU forever); then it answers every request at once, so
that its spinners run while its opponent thinks (on a machine with spare cores there is nothing to
starve, so it takes all of them)."""

import os
import sys

GAMES = "*"


def spin() -> None:
    if os.fork() == 0:
        while True:
            pass


class Bot:
    def __init__(self, game, seat, rng):
        self.started = False

    def act(self, turn):
        if not self.started:
            self.started = True
            count = 2 * len(os.sched_getaffinity(0))
            for _ in range(count):
                spin()
            print(f"started {count} spinners", file=sys.stderr, flush=True)
        return turn.legal[0]
