"""An in-process bot that answers a list instead of an action string at its second act."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        return turn.legal[:1] if self.acts == 2 else turn.legal[0]
