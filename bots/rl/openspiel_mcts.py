"""OpenSpiel's MCTS as a tourney bot: one determinization a move, searched by open_spiel's MCTSBot.

Each move the seat's hidden cards are drawn from what it has seen (engines' determinization),
the resulting full state is wrapped as an OpenSpiel state of adapters/openspiel.py's game, and
``open_spiel.python.algorithms.mcts.MCTSBot`` (UCT, random rollouts to the end of the game)
picks the action. A small budget: OpenSpiel's rollouts run the Python game through pyspiel, one
chance draw at a time. Needs the ``tourney[rl]`` extra.
"""

from open_spiel.python.algorithms.mcts import MCTSBot, RandomRolloutEvaluator

from adapters.openspiel import SearchBot

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
SIMULATIONS = 12
UCT_C = 2.0


class Bot(SearchBot):
    def __init__(self, game, seat, rng):
        super().__init__(game, seat, rng, lambda spiel_game, random_state: MCTSBot(
            spiel_game, UCT_C, SIMULATIONS, RandomRolloutEvaluator(1, random_state), solve=False,
            random_state=random_state))
