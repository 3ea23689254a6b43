"""A bot that times itself: at each act it does the same fixed amount of CPU work and logs how long
that took by the wall clock and by its own CPU clock (`work wall=0.123 cpu=0.120`), then plays the
first legal action. On an idle core the two are equal; a process competing for its core makes the
wall time longer."""

import sys
import time

GAMES = "*"
WORK = 1_500_000


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        wall, cpu = time.perf_counter(), time.process_time()
        total = 0
        for i in range(WORK):
            total += i * i
        print(f"work wall={time.perf_counter() - wall:.4f} cpu={time.process_time() - cpu:.4f}", file=sys.stderr,
              flush=True)
        return turn.legal[0]
