"""An in-process bot that raises at its second act (plays the first legal action before)."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        if self.acts == 2:
            raise RuntimeError("the bot tripped over its tail")
        return turn.legal[0]
