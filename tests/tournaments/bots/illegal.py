"""An in-process bot that answers an action that is not legal at its second act."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        return "teleport:moon" if self.acts == 2 else turn.legal[0]
