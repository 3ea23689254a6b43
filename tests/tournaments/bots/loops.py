"""An in-process bot that loops forever (pure Python, no sleep) at its second act."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        while self.acts == 2:
            pass
        return turn.legal[0]
