"""The RL adapters' speed: uniformly random steps a second through PettingZoo and OpenSpiel, beside OpenSpiel's hearts.

For each game at its usual table (Tails on Fire 4 seats, Nine Tails 3, Lemur Tails 2), whole random games are
played in a loop through the PettingZoo environment (``adapters.pettingzoo.env``: ``last()``, which builds the
acting agent's observation and mask, then ``step`` of a random legal action; a step is a decision, chance is
dealt inside it) and through the OpenSpiel game (``is_terminal``, ``is_chance_node``, ``chance_outcomes`` or
``legal_actions``, ``apply_action`` of a random one; a step is any node, a chance draw included, as OpenSpiel
counts them). The very same OpenSpiel loop runs over ``pyspiel.load_game("hearts")`` (C++). Every loop runs in
slices, taking turns, so the load of a shared machine falls on all alike. One line per game, then hearts:

    rl: tails-on-fire pettingzoo=N openspiel=N steps/s ratio: X
    rl: hearts openspiel=N steps/s

``ratio`` is the game's OpenSpiel steps a second over hearts'; the goal (issue 33) is 0.2 or more. A last line
is the floor of any game written in Python, through the same loop: a Python game that does nothing (a fixed
list of ten legal actions, a chance node every fourth step, 300 steps a game), its steps a second over hearts':

    rl: floor python-game=N steps/s ratio: X

What separates a game's ratio from the floor's is that game's own Python work (its engine and adapter), not
pyspiel's bridge between C++ and Python. A line per game then splits that work: the engine alone, played at
random with no adapter and no pyspiel (``actor``, ``legal_actions``, ``decide`` or ``chance``, the folds; a step
is a decision or one uniform draw of a chance step, as the adapter announces them to OpenSpiel), and ``bound``,
the ratio the OpenSpiel adapter would reach if its own work were free: a step costing the engine's time plus
the floor's (both loops pick a random action, so the bound counts that twice: it errs low by ~0.1 us a step):

    rl: nine-tails engine-alone=N steps/s ratio: X bound: Y

Usage: python bench/rl.py [--seconds S] [--game G]...
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402 (after the sys.path line)
import pyspiel  # noqa: E402

import adapters.openspiel  # noqa: E402, F401 (registers the games)
from adapters.openspiel import short_name  # noqa: E402
from adapters.pettingzoo import env  # noqa: E402
from engines import registry  # noqa: E402
from engines.base import CHANCE, TERMINAL, fold  # noqa: E402
from engines.chance import Prng  # noqa: E402

TABLES = {"tails-on-fire": 4, "nine-tails": 3, "lemur-tails": 2}
SLICES = 8


class OpenSpielLoop:
    """Random games of an OpenSpiel game, played a slice at a time; counts every node's step."""

    def __init__(self, game: pyspiel.Game, seed: int) -> None:
        self.game = game
        self.rng = random.Random(seed)
        self.state = game.new_initial_state()
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        random_ = self.rng.random
        state, steps = self.state, 0
        began = time.perf_counter()
        ends = began + seconds
        while True:
            for _ in range(200):
                if state.is_terminal():
                    state = self.game.new_initial_state()
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    state.apply_action(outcomes[int(random_() * len(outcomes))][0])
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[int(random_() * len(legal))])
                steps += 1
            if time.perf_counter() >= ends:
                break
        self.seconds += time.perf_counter() - began
        self.state, self.steps = state, self.steps + steps

    def rate(self) -> float:
        return self.steps / self.seconds


class Floor(pyspiel.Game):
    """A game in Python that does nothing a step: the fastest any Python game runs through the loop."""

    TYPE = pyspiel.GameType(
        short_name="python_bench_floor", long_name="a game that does nothing",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL, chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION, utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL, max_num_players=3, min_num_players=3,
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=False, provides_observation_tensor=False, parameter_specification={})
    LENGTH = 300

    def __init__(self, params=None) -> None:
        info = pyspiel.GameInfo(num_distinct_actions=10, max_chance_outcomes=10, num_players=3, min_utility=-1.0,
                                max_utility=1.0, utility_sum=None, max_game_length=self.LENGTH)
        super().__init__(self.TYPE, info, params or {})

    def new_initial_state(self) -> FloorState:
        return FloorState(self)


FLOOR_LEGAL = list(range(10))
FLOOR_OUTCOMES = [(action, 0.1) for action in range(10)]


class FloorState(pyspiel.State):
    def __init__(self, game: Floor) -> None:
        super().__init__(game)
        self.steps = 0
        self.player = pyspiel.PlayerId.CHANCE

    def current_player(self) -> int:
        return pyspiel.PlayerId.TERMINAL if self.steps >= Floor.LENGTH else self.player

    def is_terminal(self) -> bool:
        return self.steps >= Floor.LENGTH

    def is_chance_node(self) -> bool:
        return self.player == pyspiel.PlayerId.CHANCE

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return FLOOR_OUTCOMES

    def legal_actions(self, player: int | None = None) -> list[int]:
        return FLOOR_LEGAL

    def _apply_action(self, action: int) -> None:
        self.steps += 1
        self.player = pyspiel.PlayerId.CHANCE if self.steps % 4 == 0 else self.steps % 3

    def returns(self) -> list[float]:
        return [0.0, 0.0, 0.0]

    def __str__(self) -> str:
        return str(self.steps)


class Uniform(Prng):
    """Uniform draws from a random.Random, counted (one OpenSpiel chance node each, as the adapter announces them)."""

    __slots__ = ("draws", "random")

    def __init__(self, rng: random.Random) -> None:  # no seed: nothing is hashed
        self.random = rng.random
        self.draws = 0

    def below(self, n: int) -> int:
        self.draws += 1
        return int(self.random() * n)


class EngineLoop:
    """Random games of an engine alone, played a slice at a time; counts decisions and chance draws."""

    def __init__(self, game: str, seats: int, seed: int) -> None:
        self.engine = registry.get(game)
        self.config = self.engine.configure(seats)
        self.rng = random.Random(seed)
        self.draws = Uniform(self.rng)
        self.state = self.laid()
        self.steps = 0
        self.seconds = 0.0

    def laid(self):
        return fold(self.engine, self.engine.start(self.config))

    def run(self, seconds: float) -> None:
        engine, draws, random_ = self.engine, self.draws, self.rng.random
        actor, legal_actions, decide, chance, apply = (engine.actor, engine.legal_actions, engine.decide,
                                                       engine.chance, engine.apply)
        state, decisions, drawn = self.state, 0, draws.draws
        began = time.perf_counter()
        ends = began + seconds
        while True:
            for _ in range(100):
                seat = actor(state)
                if seat == TERMINAL:
                    state = self.laid()
                    continue
                if seat == CHANCE:
                    events = chance(state, draws)
                else:
                    legal = legal_actions(state)
                    events = decide(state, legal[int(random_() * len(legal))])
                    decisions += 1
                for event in events:
                    state = apply(state, event)
            if time.perf_counter() >= ends:
                break
        self.seconds += time.perf_counter() - began
        self.state, self.steps = state, self.steps + decisions + draws.draws - drawn

    def rate(self) -> float:
        return self.steps / self.seconds


class PettingZooLoop:
    """Random games of a PettingZoo environment, played a slice at a time; counts every decision's step."""

    def __init__(self, game: str, seats: int, seed: int) -> None:
        self.table = env(game, seats)
        self.rng = random.Random(seed)
        self.seed = seed
        self.table.reset(seed=seed)
        self.steps = 0
        self.seconds = 0.0

    def run(self, seconds: float) -> None:
        table, random_ = self.table, self.rng.random
        steps = 0
        began = time.perf_counter()
        ends = began + seconds
        while True:
            for _ in range(100):
                if not table.agents:
                    self.seed += 1
                    table.reset(seed=self.seed)
                observation, _, termination, truncation, _ = table.last()
                if termination or truncation:
                    table.step(None)
                    continue
                legal = np.flatnonzero(observation["action_mask"])
                table.step(int(legal[int(random_() * len(legal))]))
                steps += 1
            if time.perf_counter() >= ends:
                break
        self.seconds += time.perf_counter() - began
        self.steps += steps

    def rate(self) -> float:
        return self.steps / self.seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="seconds of each loop in all")
    parser.add_argument("--game", action="append", choices=TABLES, help="a game (repeat; default all three)")
    args = parser.parse_args()
    games = args.game or list(TABLES)
    hearts = OpenSpielLoop(pyspiel.load_game("hearts"), 1)
    pyspiel.register_game(Floor.TYPE, Floor)
    floor = OpenSpielLoop(pyspiel.load_game(Floor.TYPE.short_name), 1)
    loops = {game: (PettingZooLoop(game, TABLES[game], 1),
                    OpenSpielLoop(pyspiel.load_game(short_name(game), {"players": TABLES[game]}), 1),
                    EngineLoop(game, TABLES[game], 1))
             for game in games}
    piece = args.seconds / SLICES
    for _ in range(SLICES):
        hearts.run(piece)
        for pettingzoo, openspiel, alone in loops.values():
            pettingzoo.run(piece)
            openspiel.run(piece)
            alone.run(piece / 2)
            hearts.run(piece / len(loops))
        floor.run(piece)
        hearts.run(piece)
    for game, (pettingzoo, openspiel, _) in loops.items():
        print(f"rl: {game} pettingzoo={pettingzoo.rate():.0f} openspiel={openspiel.rate():.0f} steps/s "
              f"ratio: {openspiel.rate() / hearts.rate():.2f}", flush=True)
    print(f"rl: hearts openspiel={hearts.rate():.0f} steps/s", flush=True)
    print(f"rl: floor python-game={floor.rate():.0f} steps/s ratio: {floor.rate() / hearts.rate():.2f}", flush=True)
    for game, (_, _, alone) in loops.items():
        bound = 1 / (1 / alone.rate() + 1 / floor.rate())
        print(f"rl: {game} engine-alone={alone.rate():.0f} steps/s ratio: {alone.rate() / hearts.rate():.2f} "
              f"bound: {bound / hearts.rate():.2f}", flush=True)


if __name__ == "__main__":
    main()
