"""A policy trained in PettingZoo, as a tourney bot: the action-value tables of adapters/tabular.py.

The tables beside this file (pettingzoo_table.json) were learned in ``adapters.pettingzoo.env(game)``
(``python -m adapters.tabular GAME EPISODES SEED bots/rl/pettingzoo_table.json``); the bot hands the
policy exactly what the environment would (adapters.pettingzoo.PolicyBot) and answers the action
string of the index it picks. Needs the ``tourney[rl]`` extra. docs/rl.md walks through the round trip.
"""

from pathlib import Path

from adapters.pettingzoo import PolicyBot
from adapters.tabular import load

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
TABLES = Path(__file__).with_suffix(".json")


class Bot(PolicyBot):
    def __init__(self, game, seat, rng):
        super().__init__(game, load(TABLES, game))
