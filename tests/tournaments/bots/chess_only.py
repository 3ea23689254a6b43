"""An in-process bot for another game only: tourney skips it with a notice."""

GAMES = ("chess",)


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        return turn.legal[0]
