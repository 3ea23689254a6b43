"""Attack: run code in tourney's own process at discovery: creates the file "pwned" in its
working directory when imported."""

with open("pwned", "w") as _file:
    _file.write("imported")

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        return turn.legal[0]
