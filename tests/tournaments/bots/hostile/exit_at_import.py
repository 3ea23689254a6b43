"""Attack: stop the tournament with sys.exit(3) when imported."""

import sys

sys.exit(3)

GAMES = "*"


class Bot:
    def act(self, turn):
        return turn.legal[0]
