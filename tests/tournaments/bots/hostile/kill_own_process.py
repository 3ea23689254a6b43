"""Attack: end the process it plays in with SIGKILL (to itself) at its second act, so that no
exit code tells what happened."""

import os
import signal

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.moves_before_kill = iter(["one move"])

    def act(self, turn):
        if next(self.moves_before_kill, None) is None:
            os.kill(os.getpid(), signal.SIGKILL)
        return turn.legal[0]
