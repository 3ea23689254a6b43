"""A tiny learned policy: one value per action, learned by Monte Carlo in the PettingZoo environments.

The smallest honest "trained agent" for the round trip of docs/rl.md: agents play
``adapters.pettingzoo.env(game)`` with uniformly random legal actions, and each action's value
is the mean final reward of the agents that took it. The policy then takes, among the legal
actions, the one of highest value (an action never seen counts 0; ties go to the lowest index).
It knows no position, only which moves tend to belong to winning games, yet that is already
better than random. ``python -m adapters.tabular GAME EPISODES SEED OUT`` trains one and saves it
into OUT: a JSON file of tables, or a bot file's ``TABLES = {...}`` literal (bots/rl/pettingzoo_table.py
holds its tables so: a sandboxed bot reads no file but its own, docs/bot-protocol.md).
"""

from __future__ import annotations

import ast
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


def save(path: Path, game: str, values: dict[int, float]) -> None:
    """Put ``game``'s table into ``path``: a JSON file of tables, or the ``TABLES = {...}`` of a bot file (.py)."""
    values = {action: round(value, 4) for action, value in values.items()}
    if path.suffix != ".py":
        tables = json.loads(path.read_text()) if path.exists() else {}
        tables[game] = {str(action): value for action, value in values.items()}
        path.write_text(json.dumps(tables, indent=1, sort_keys=True) + "\n")
        return
    lines = path.read_text().splitlines()
    start = lines.index("TABLES = {")
    end = lines.index("}", start)
    tables = ast.literal_eval("\n".join(["{", *lines[start + 1:end], "}"]))
    tables[game] = values
    body = []
    for name in sorted(tables):
        items = [f"{action}: {value}," for action, value in sorted(tables[name].items())]
        body += [f"    {json.dumps(name)}: {{", *_packed(items, 8, 112), "    },"]
    path.write_text("\n".join([*lines[:start + 1], *body, *lines[end:]]) + "\n")


def _packed(items: list[str], indent: int, width: int) -> list[str]:
    """``items`` on as few lines of at most ``width`` characters as they fit, each indented."""
    lines = [" " * indent + items[0]]
    for item in items[1:]:
        if len(lines[-1]) + 1 + len(item) > width:
            lines.append(" " * indent + item)
        else:
            lines[-1] += " " + item
    return lines


def main(argv: list[str]) -> None:
    game, episodes, seed, out = argv[0], int(argv[1]), int(argv[2]), Path(argv[3])
    save(out, game, train(game, episodes, seed))


if __name__ == "__main__":
    main(sys.argv[1:])
