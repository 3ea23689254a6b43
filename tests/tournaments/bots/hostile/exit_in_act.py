"""Attack: end the process it plays in with os._exit(7) at its second act (after one move)."""

import os

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.moves_before_exit = iter(["one move"])

    def act(self, turn):
        if next(self.moves_before_exit, None) is None:
            os._exit(7)
        return turn.legal[0]
