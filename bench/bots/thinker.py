"""Thinker: the shipped random player (bots/programs/random_player.py), thinking 2 ms per move.

A stand-in for a real engine with a time budget (bench/scale.py): it sleeps ``THINK`` seconds
before each choice of a legal action, and otherwise is the random player, seeded by its hello.
The bench's manifest names random_player.py after this file, so it is one of the bot's own
files (what a sandboxed bot sees of its folder) and can be imported from here.
"""

import random
import time

import random_player

THINK = 0.002


class Thinking(random.Random):
    def choice(self, seq):
        time.sleep(THINK)
        return super().choice(seq)


random_player.random = type("ThinkingRandom", (), {"Random": Thinking})

if __name__ == "__main__":
    random_player.main()
