"""Attack: take 2 GiB of memory (and touch it) at its first act."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.hoard = None

    def act(self, turn):
        self.hoard = bytearray(2 << 30)
        return turn.legal[0]
