"""Attack: take longer to import than the handshake allows (a minute)."""

import time

time.sleep(60)

GAMES = "*"


class Bot:
    def act(self, turn):
        return turn.legal[0]
