"""adapters/pettingzoo.py: each game as a PettingZoo AEC environment (api_test, seed_test, rewards, forfeits)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test, state_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from adapters.actions import SPACES
from adapters.pettingzoo import PolicyBot, env, observation_of, raw_env
from adapters.rewards import rewards
from engines import registry
from engines.driver import play
from tests import fourth_game

fourth_game.register()  # a game defined only in tests passes these suites too (docs/games/adding-a-game.md)
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails", fourth_game.NAME)

# Observations are {"observation", "action_mask"} dicts in a Dict space, PettingZoo's own convention for its
# classic card games, which api_test exempts by name only: its two warnings about that say no more.
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.parametrize(("game", "players"), [("tails-on-fire", 2), ("tails-on-fire", 4), ("nine-tails", 3),
                                               ("lemur-tails", 2), (fourth_game.NAME, 3)])
def test_api_test_passes(game, players):
    """PettingZoo's api_test passes for each game (a whole game played through the API)."""
    api_test(env(game, players), num_cycles=1500)


@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("game", GAMES)
def test_parallel_api_test_passes_on_the_turn_based_parallel_form(game):
    """PettingZoo's parallel_api_test on turn_based_aec_to_parallel of each game (only the acting agent's action
    counts, as that wrapper does for every turn-based environment)."""
    parallel_api_test(turn_based_aec_to_parallel(env(game)), num_cycles=300)


@pytest.mark.parametrize("game", GAMES)
def test_seed_test_passes(game):
    """PettingZoo's seed_test: two environments reset with the same seed play the same game."""
    seed_test(lambda: env(game), num_cycles=200)


@pytest.mark.parametrize("game", GAMES)
def test_render_test_passes(game, capsys):
    """PettingZoo's render_test: every render mode listed works (ansi returns the spectator's view as text, human
    prints it and returns None)."""
    render_test(lambda render_mode=None: env(game, render_mode=render_mode))
    printed = capsys.readouterr().out.splitlines()
    assert printed and all(json.loads(line)["seat"] is None for line in printed)


@pytest.mark.parametrize(("game", "players"), [("tails-on-fire", 3), ("nine-tails", 3), ("lemur-tails", 2),
                                               (fourth_game.NAME, 2)])
def test_state_test_passes(game, players):
    """PettingZoo's state_test on the environment and its turn-based parallel form: state_space is a Box and
    state() lies in it at every step (here with unmasked random actions: the first illegal one forfeits)."""
    state_test(env(game, players), turn_based_aec_to_parallel(raw_env(game, players)), num_cycles=10)


@pytest.mark.parametrize("game", GAMES)
def test_the_global_state_is_every_seats_observation(game):
    """state() is each agent's observation vector in seat order, at every step of a masked-random game: all a
    seat may know, nothing of what no seat knows."""
    table = raw_env(game)
    table.reset(seed=4)
    rng = np.random.default_rng(4)
    steps = 0
    for _ in table.agent_iter():
        expected = np.concatenate([table.observe(other)["observation"] for other in table.possible_agents])
        assert np.array_equal(table.state(), expected) and table.state_space.contains(table.state())
        observation, _, termination, truncation, _ = table.last()
        steps += 1
        table.step(None if termination or truncation else int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    assert steps > 20


def finish(table, seed: int, choose) -> dict[str, float]:
    """Play ``table`` to the end from reset(seed) with ``choose(agent, observation)``; the final rewards."""
    table.reset(seed=seed)
    final = {}
    for agent in table.agent_iter():
        observation, reward, termination, truncation, _ = table.last()
        if termination or truncation:
            final[agent] = reward
            table.step(None)
        else:
            table.step(choose(agent, observation))
    return final


@pytest.mark.parametrize("game", GAMES)
def test_rewards_come_from_the_ranking_and_sum_to_zero(game):
    """At the end each agent's reward is (seats below - seats above) / (n - 1) of the engine's ranking."""
    table = raw_env(game)
    rng = np.random.default_rng(3)
    final = finish(table, 11, lambda agent, observation: int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    ranking = table.engine.ranking(table.game_state)
    assert [final[agent] for agent in table.possible_agents] == rewards(ranking)
    assert abs(sum(final.values())) < 1e-9 and table.ranking == list(ranking)


def test_an_illegal_action_forfeits():
    """ALL-5: an index that is not legal now ends the game with the offender ranked last alone."""
    table = raw_env("lemur-tails")
    table.reset(seed=5)
    agent = table.agent_selection
    illegal = int(np.flatnonzero(table.observe(agent)["action_mask"] == 0)[0])
    table.step(illegal)
    seat = table.possible_agents.index(agent)
    assert table.ranking[seat] == 2 and all(table.terminations.values())
    assert table.rewards[agent] == -1.0 and "illegal action" in table.infos[agent]["forfeit"]


def test_only_the_agent_to_act_has_legal_actions():
    """The action mask marks the acting agent's legal actions; every other agent's mask is empty."""
    table = raw_env("tails-on-fire", 3)
    table.reset(seed=1)
    acting = table.agent_selection
    for agent in table.possible_agents:
        mask = table.observe(agent)["action_mask"]
        legal = table.engine.legal_actions(table.game_state)
        assert mask.sum() == (len(legal) if agent == acting else 0)


def test_a_policy_sees_in_a_tournament_what_it_saw_in_the_environment():
    """PolicyBot hands its policy the very observation the environment gives the agent to act."""
    table = raw_env("nine-tails", 3)
    table.reset(seed=2)
    seat = table.possible_agents.index(table.agent_selection)

    class Turn:
        view = table.engine.view(table.game_state, seat)
        legal = table.engine.legal_actions(table.game_state)

    expected = table.observe(table.agent_selection)
    seen = observation_of("nine-tails", Turn)
    assert np.array_equal(seen["observation"], expected["observation"])
    assert np.array_equal(seen["action_mask"], expected["action_mask"])


def test_a_policy_bot_plays_a_whole_game():
    """A masked-random policy wrapped as a tourney bot plays the driver's game to its end."""
    engine = registry.get("tails-on-fire")
    rng = np.random.default_rng(0)
    bots = [PolicyBot("tails-on-fire", lambda observation: rng.choice(np.flatnonzero(observation["action_mask"])))
            for _ in range(2)]
    played = play(engine, engine.configure(2), "policy", bots)
    assert played.outcome.reason == "finished"
    assert all(step.action in SPACES["tails-on-fire"].index for step in played.steps if step.actor >= 0)
