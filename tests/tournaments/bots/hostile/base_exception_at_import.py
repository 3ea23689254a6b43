"""Attack: stop the tournament by raising a bare BaseException when imported."""

raise BaseException("no tournament today")

GAMES = "*"


class Bot:
    def act(self, turn):
        return turn.legal[0]
