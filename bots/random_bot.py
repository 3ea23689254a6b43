"""Random: plays any registered game by choosing one legal action uniformly at random.

The entry point every in-process Python bot shares (docs/bot-protocol.md):
``GAMES`` names the games it plays ("*" for all), and ``Bot(game, seat, rng)`` is
asked ``act(turn)`` for one of ``turn.legal``. ``rng`` is the bot's own seeded
``random.Random``, so a tournament seed reproduces its every choice.
"""

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng

    def act(self, turn):
        return self.rng.choice(turn.legal)
