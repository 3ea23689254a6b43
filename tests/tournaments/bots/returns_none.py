"""An in-process bot whose act forgets its return at its second act: it answers None."""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.acts = 0

    def act(self, turn):
        self.acts += 1
        if self.acts == 2:
            choice = turn.legal[0]  # noqa: F841 (the mistake this bot is for: no return)
            return
        return turn.legal[0]
