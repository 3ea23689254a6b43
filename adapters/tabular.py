"""A tiny learned policy: one value per action, learned by Monte Carlo in the PettingZoo environments.

The smallest honest "trained agent" for the round trip of docs/rl.md: agents play
``adapters.pettingzoo.env(game)`` with uniformly random legal actions, and each action's value
is the mean final reward of the agents that took it. The policy then takes, among the legal
actions, the one of highest value (an action never seen counts 0; ties go to the lowest index).
It knows no position, only which moves tend to belong to winning games, yet that is already
better than random. ``python -m adapters.tabular GAME EPISODES SEED OUT.json`` trains and saves
one; bots/rl/pettingzoo_table.py plays the saved tables in tournaments.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

from adapters.pettingzoo import env


def train(game: str, episodes: int, seed: int, num_players: int | None = None) -> dict[int, float]:
    """Action index -> mean final reward of the agents that took it, over ``episodes`` random games."""
    table = env(game, num_players)
    rng = np.random.default_rng(seed)
    totals: dict[int, float] = {}
    counts: dict[int, int] = {}
    for episode in range(episodes):
        table.reset(seed=seed * 100_003 + episode)
        taken: dict[str, list[int]] = {agent: [] for agent in table.possible_agents}
        final: dict[str, float] = {}
        for agent in table.agent_iter():
            observation, reward, termination, truncation, _ = table.last()
            if termination or truncation:
                final[agent] = reward
                table.step(None)
                continue
            action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
            taken[agent].append(action)
            table.step(action)
        for agent, actions in taken.items():
            for action in actions:
                totals[action] = totals.get(action, 0.0) + final[agent]
                counts[action] = counts.get(action, 0) + 1
    return {action: totals[action] / counts[action] for action in sorted(totals)}


class TablePolicy:
    """``policy(observation) -> action index``: the legal action of highest value."""

    def __init__(self, values: dict[int, float]) -> None:
        self.values = values

    def __call__(self, observation: dict[str, np.ndarray]) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(max(legal, key=lambda action: (self.values.get(int(action), 0.0), -action)))


def load(path: str | Path, game: str) -> TablePolicy:
    """The policy of ``game`` from a JSON file of tables: {game: {action index: value}}."""
    tables = json.loads(Path(path).read_text())
    return TablePolicy({int(action): value for action, value in tables[game].items()})


def main(argv: list[str]) -> None:
    game, episodes, seed, out = argv[0], int(argv[1]), int(argv[2]), Path(argv[3])
    tables = json.loads(out.read_text()) if out.exists() else {}
    tables[game] = {str(action): round(value, 4) for action, value in train(game, episodes, seed).items()}
    out.write_text(json.dumps(tables, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
