"""A random bot that waits 0.25 s (wall clock, no CPU) before its first move of each game, then plays a legal
action at random like bots/random_bot.py.

Tests that interrupt a run once some but not all of its games are stored play it: the tournament's writer
stores finished games in groups (tournaments.play.writer, up to half a second apart), so a run of fast
games can end before anything of it is committed. With this bot at every table a run of N games lasts at
least N / jobs quarter seconds, which leaves a window of seconds between the first group and the last.
"""

import time

GAMES = "*"
DAWDLE = 0.25


class Bot:
    def __init__(self, game, seat, rng):
        self.rng = rng
        self.moved = False

    def act(self, turn):
        if not self.moved:
            self.moved = True
            time.sleep(DAWDLE)
        return self.rng.choice(turn.legal)
