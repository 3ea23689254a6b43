"""Attack: end the tournament by killing its parent (the worker playing the game) and every
other process it may signal, then play on."""

import os
import signal
import sys

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        parent = os.getppid()
        print(f"my parent is {parent}", file=sys.stderr)
        for target in (parent, -1):
            try:
                os.kill(target, signal.SIGKILL)
                print(f"sent SIGKILL to {target}", file=sys.stderr)
            except OSError as error:
                print(f"cannot kill {target}: {error}", file=sys.stderr)
        print(f"processes left: {sorted(int(p) for p in os.listdir('/proc') if p.isdigit())}", file=sys.stderr)

    def act(self, turn):
        return turn.legal[0]
