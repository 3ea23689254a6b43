"""PettingZoo AEC environments for the three games (install with the ``tourney[rl]`` extra).

    from adapters.pettingzoo import env
    table = env("lemur-tails")                  # or "tails-on-fire", "nine-tails"; num_players=...
    table.reset(seed=7)
    for agent in table.agent_iter():
        observation, reward, termination, truncation, info = table.last()
        action = None if termination or truncation else table.action_space(agent).sample(observation["action_mask"])
        table.step(action)

Agents are ``player_0`` .. ``player_{n-1}``, one per seat. The action space is ``Discrete(N)``
over the game's actions in a fixed order (adapters/actions.py; docs/rl.md has the index layout);
an observation is ``{"observation": float32 vector, "action_mask": int8 vector}``
(adapters/observations.py), the mask marking the legal actions of the agent to act (all zero for
the others). Chance steps (shuffles, draws) happen inside ``step``, drawn from the game's PRNG
with a game seed made from ``reset``'s seed, so a seed replays the same deals. Rewards come at
the end, from the ranking (ALL-6): each agent gets (seats ranked below it - seats ranked above
it) / (n - 1), in [-1, 1] and summing to zero. An illegal action forfeits, as in a tournament
(ALL-5): the game ends, the offender ranks last. Games end by the rules or their move cap, never
by truncation. ``state()`` is the global state, every seat's observation vector in seat order
(``state_space``); the engine's own state is ``game_state``. Render modes: ``ansi`` returns the
spectator's view (JSON), ``human`` prints it.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from adapters.actions import SPACES
from adapters.observations import ENCODINGS
from adapters.rewards import rewards
from engines import registry
from engines.base import TERMINAL
from engines.driver import chance_steps, forfeit_ranking


class raw_env(AECEnv):  # PettingZoo's own name for the unwrapped environment class
    """One game of tourney as a PettingZoo AEC environment (see the module's docstring)."""

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["human", "ansi"], "is_parallelizable": False,
                                          "name": "tourney_v0"}

    def __init__(self, game: str, num_players: int | None = None, options: dict | None = None,
                 render_mode: str | None = None) -> None:
        super().__init__()
        self.engine = registry.get(game)
        self.config = self.engine.configure(num_players or self.engine.default_seats, options)
        self.actions = SPACES[game]
        self.encoding = ENCODINGS[game]
        self.metadata = {**raw_env.metadata, "name": f"tourney_{game.replace('-', '_')}_v0"}
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(self.config.seats)]
        observation = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (self.encoding.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (len(self.actions),), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, observation)
        self.action_spaces = {agent: spaces.Discrete(len(self.actions)) for agent in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (self.config.seats * self.encoding.size,), np.float32)
        self._seeds = np.random.default_rng()
        self.game_state: Any = None  # the engine's state (AECEnv.state() is the global state vector below)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        self.game_seed = f"pettingzoo-{int(self._seeds.integers(2**63))}"
        self._stream = 0
        engine = self.engine
        self.game_state = None
        for event in engine.start(self.config):
            self.game_state = engine.apply(self.game_state, event)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos = {agent: {} for agent in self.agents}
        self.ranking: list[int] | None = None
        self._settle()

    def _settle(self) -> None:
        """Chance steps as the driver deals them, until a seat decides or the game ends; then select or end."""
        engine = self.engine
        self.game_state, _, self._stream = chance_steps(engine, self.game_state, self.game_seed, self._stream)
        actor = engine.actor(self.game_state)
        if actor == TERMINAL:
            self._end(list(engine.ranking(self.game_state)))
        else:
            self.agent_selection = self.possible_agents[actor]

    def _end(self, ranking: list[int]) -> None:
        self.ranking = ranking
        for agent, reward in zip(self.possible_agents, rewards(ranking), strict=True):
            self.rewards[agent] = reward
            self.terminations[agent] = True

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.possible_agents.index(agent)
        mask = np.zeros(len(self.actions), np.int8)
        if self.ranking is None and self.possible_agents[self.engine.actor(self.game_state)] == agent:
            mask[self.actions.indices(self.engine.legal_actions(self.game_state))] = 1
        return {"observation": self.encoding.encode(self.engine.view(self.game_state, seat)), "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.possible_agents.index(agent)
        self._cumulative_rewards[agent] = 0.0
        engine = self.engine
        name = self.actions.names[action] if action is not None and 0 <= int(action) < len(self.actions) else None
        if name is None or name not in engine.legal_actions(self.game_state):
            self._end(list(forfeit_ranking(engine.ranking(self.game_state), seat)))
            self.infos[agent] = {"forfeit": f"illegal action {action!r} ({name or 'no such index'})"}
        else:
            for event in engine.decide(self.game_state, name):
                self.game_state = engine.apply(self.game_state, event)
            self._settle()
        self._accumulate_rewards()

    def state(self) -> np.ndarray:
        """The global state (for a centralised critic): every seat's observation vector, seat 0 first.

        It holds everything some seat knows (every hand, every chosen card), not what no seat knows (the
        order of a face-down deck); ``state_space`` is its Box.
        """
        encode, view, now = self.encoding.encode, self.engine.view, self.game_state
        return np.concatenate([encode(view(now, seat)) for seat in range(self.config.seats)])

    def render(self) -> str | None:
        """The table as a spectator sees it (JSON): returned in ``ansi`` mode, printed in ``human`` mode."""
        if self.render_mode is None:
            return None
        text = json.dumps(self.engine.view(self.game_state, None), sort_keys=True)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def observation_of(game: str, turn) -> dict[str, np.ndarray]:
    """What this game's environment would show the agent to act, from a tourney Turn (its view and legal actions)."""
    actions = SPACES[game]
    mask = np.zeros(len(actions), np.int8)
    mask[actions.indices(turn.legal)] = 1
    return {"observation": ENCODINGS[game].encode(turn.view), "action_mask": mask}


class PolicyBot:
    """A tourney bot (docs/bot-protocol.md) that plays a PettingZoo policy: ``policy(observation) -> action index``.

    The policy gets exactly what the environment gives an agent (``observation_of``), so an agent trained in
    ``env(game)`` plays in a tournament unchanged.
    """

    def __init__(self, game: str, policy) -> None:
        self.game = game
        self.policy = policy

    def act(self, turn) -> str:
        index = int(self.policy(observation_of(self.game, turn)))
        return SPACES[self.game].names[index]


def env(game: str, num_players: int | None = None, options: dict | None = None,
        render_mode: str | None = None) -> AECEnv:
    """A game's environment with PettingZoo's order-enforcing wrapper (the usual entry point)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, num_players, options, render_mode))
