"""OpenSpiel's Information Set MCTS as a tourney bot: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``, unmodified
and at its default settings, searching from the seat's own information state.

Each move, the root is an OpenSpiel state of adapters/openspiel.py's game whose past is the seat's events as it
saw them (so its information-state string is the seat's); ISMCTSBot draws every world of its search with the
state's ``resample_from_infostate``, which asks the engine's determinizer (docs/rl.md says where that is exact),
and keys its tree by information-state strings (its default, ``use_observation_string=False``). Its evaluator is
``adapters.openspiel.StandingRollout``: a random playout of at most ``PLAYOUT`` steps, scored by the ranking as it
stands when the game has not ended (OpenSpiel's RandomRolloutEvaluator plays to the end, which takes a Nine Tails
game about 75 ms, and scores a cut playout 0). ISMCTSBot draws its worlds with a fresh
``pyspiel.UniformProbabilitySampler`` of its own, randomly seeded: unlike bots/ismcts.py, a move is not a function
of the tournament seed. Needs the ``tourney[rl]`` extra.
"""

from open_spiel.python.algorithms.ismcts import ISMCTSBot

from adapters.openspiel import InformationSetBot, StandingRollout

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
SIMULATIONS = {"tails-on-fire": 200, "nine-tails": 100, "lemur-tails": 100}
"""Simulations a move: about 100-150 ms of a loaded 2-core machine (docs/rl.md)."""
PLAYOUT = 100
"""Steps (decisions and chance draws) a playout makes at most."""
UCT_C = 2.0
"""UCT's exploration constant, for returns in [-1, 1]."""


class Bot(InformationSetBot):
    def __init__(self, game, seat, rng):
        super().__init__(game, seat, rng, lambda spiel_game, random_state: ISMCTSBot(
            spiel_game, StandingRollout(PLAYOUT, random_state), UCT_C, SIMULATIONS[game], random_state=random_state))
