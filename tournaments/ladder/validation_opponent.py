"""The validation opponent of ladder submissions: plays a uniformly random legal action.

Not imported by tourney: it is a bot file, run like any submitted bot (in its own sandbox,
through pyhost), so that nothing in a validation game, the opponent's timing included,
differs from a ladder game.
"""

GAMES = "*"


class Bot:
    """Chooses with the RNG the hello's seed gave it."""

    def __init__(self, game, seat, rng):
        self.choice = rng.choice

    def act(self, turn):
        return self.choice(turn.legal)
