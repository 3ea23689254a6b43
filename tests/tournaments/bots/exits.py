"""An in-process bot that calls sys.exit() at its second act."""

import sys

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        if self.acts == 2:
            sys.exit(0)
        return turn.legal[0]
