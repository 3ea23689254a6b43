"""Attack: starve the opponent of CPU. As soon as it is imported it starts twice as many spinning
processes as the machine has cores (each burning CPU forever), then answers every request at once,
so that its spinners run while its opponent thinks (on a machine with spare cores there would be
nothing to starve, so it takes all of them)."""

import os
import sys

GAMES = "*"


def spin() -> None:
    if os.fork() == 0:
        while True:
            pass


COUNT = 2 * len(os.sched_getaffinity(0))
for _ in range(COUNT):
    spin()
print(f"started {COUNT} spinners", file=sys.stderr, flush=True)


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        return turn.legal[0]
