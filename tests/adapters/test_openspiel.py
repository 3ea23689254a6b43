"""adapters/openspiel.py: each game as a registered OpenSpiel Python game (random_sim_test, chance, strings)."""

from __future__ import annotations

import json
import random

import pyspiel
import pytest

import adapters.openspiel  # noqa: F401 (registers the games with pyspiel)
from adapters.actions import SPACES
from adapters.openspiel import short_name
from engines import registry
from engines.chance import Prng
from engines.driver import play

GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")


@pytest.mark.parametrize(("game", "players"), [("tails-on-fire", 2), ("tails-on-fire", 4), ("nine-tails", 2),
                                               ("lemur-tails", 2)])
def test_random_sim_test_passes(game, players):
    """pyspiel's random_sim_test plays whole random games through the registered game and checks the API."""
    spiel_game = pyspiel.load_game(short_name(game), {"players": players})
    pyspiel.random_sim_test(spiel_game, num_sims=1, serialize=False, verbose=False)


@pytest.mark.slow
def test_random_sim_test_passes_at_nine_tails_usual_table():
    """random_sim_test at Nine Tails' usual three seats."""
    pyspiel.random_sim_test(pyspiel.load_game(short_name("nine-tails")), num_sims=1, serialize=False, verbose=False)


def test_every_game_is_registered_with_its_table_sizes():
    """The three games are registered, take a players parameter, and say what they are."""
    for game in GAMES:
        engine = registry.get(game)
        spiel_game = pyspiel.load_game(short_name(game))
        kind = spiel_game.get_type()
        assert short_name(game) in pyspiel.registered_names()
        assert (kind.min_num_players, kind.max_num_players) == (engine.min_seats, engine.max_seats)
        assert spiel_game.num_players() == engine.default_seats
        assert spiel_game.num_distinct_actions() == len(SPACES[game])
        assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC


class Chooser:
    """A driver agent that picks at random with a seeded rng, recording its answers."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, turn) -> str:
        return self.rng.choice(turn.legal)


@pytest.mark.parametrize("game", GAMES)
def test_chance_nodes_are_the_engines_own_draws(game):
    """Choosing each chance outcome as the game's PRNG would (stream by stream) and the same decisions as a
    driver game gives the very same events: chance nodes are the engine's draws, one uniform number each."""
    engine = registry.get(game)
    seats = engine.min_seats
    played = play(engine, engine.configure(seats), "spiel", [Chooser(seat) for seat in range(seats)])
    decisions = [step.action for step in played.steps if step.actor >= 0]
    state = pyspiel.load_game(short_name(game), {"players": seats}).new_initial_state()
    prng = None
    while not state.is_terminal():
        if state.is_chance_node():
            if not state.draws:  # a new chance step: its draws come from the stream of its place in the game
                prng = Prng("spiel", state.chance_steps)
            outcomes = state.chance_outcomes()
            assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
            state.apply_action(prng.below(len(outcomes)))
        else:
            state.apply_action(SPACES[game].index[decisions.pop(0)])
    assert not decisions
    assert state.lines(0) == [json.dumps(
        {"type": event.type, "data": event.data, **({"private": event.private} if event.visible_to(0) and
                                                      event.private is not None else {})}, sort_keys=True)
        for event in played.events]
    assert state.returns() == pytest.approx([
        sum((mine < theirs) - (mine > theirs) for theirs in played.outcome.ranking) / (seats - 1)
        for mine in played.outcome.ranking])


def test_a_players_strings_never_show_another_players_hidden_cards():
    """Lemur Tails: a player's information state holds its own dealt hand and not the other's; its observation
    string is its view."""
    state = pyspiel.load_game(short_name("lemur-tails")).new_initial_state()
    while state.is_chance_node():
        state.apply_action(0)
    for player in (0, 1):
        info = state.information_state_string(player)
        dealt = [line for line in info.splitlines() if '"hand_dealt"' in line]
        assert len(dealt) == 2
        mine = [line for line in dealt if f'"seat": {player}' in line]
        theirs = [line for line in dealt if f'"seat": {1 - player}' in line]
        assert '"private"' in mine[0] and '"private"' not in theirs[0]
        assert '"hand": [' in state.observation_string(player)
