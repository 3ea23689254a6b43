"""A bot that thinks a fixed 40 ms before each move, then plays a legal action at random: its games last long
enough for a test to kill the worker playing them mid-match."""

import time

GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng

    def act(self, turn):
        time.sleep(0.04)
        return self.rng.choice(turn.legal)
