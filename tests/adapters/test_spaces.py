"""adapters/actions.py and adapters/observations.py: every action has one index; observations are fixed and bounded."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from adapters.actions import MAX_FOX_SLOTS, SPACES, exchange_color
from adapters.actions import markdown as actions_markdown
from adapters.observations import ENCODINGS, segments
from adapters.observations import markdown as observations_markdown
from engines import registry
from engines.base import CHANCE, TERMINAL
from engines.chance import Prng
from engines.lemur_tails.cards import COLOR
from tests import fourth_game

fourth_game.register()  # a game defined only in tests passes these suites too (docs/games/adding-a-game.md)
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
EVERY_GAME = (*GAMES, fourth_game.NAME)


def random_positions(game: str, seats: int, seed: str, most: int = 4000):
    """(state, actor) at every decision of a random playout."""
    engine = registry.get(game)
    state = None
    for event in engine.start(engine.configure(seats)):
        state = engine.apply(state, event)
    rng = random.Random(seed)
    for stream in range(most):
        actor = engine.actor(state)
        if actor == TERMINAL:
            return
        if actor == CHANCE:
            events = engine.chance(state, Prng(seed, stream))
        else:
            yield state, actor
            events = engine.decide(state, rng.choice(engine.legal_actions(state)))
        for event in events:
            state = engine.apply(state, event)


@pytest.mark.parametrize("game", EVERY_GAME)
def test_every_legal_action_has_one_fixed_index(game):
    """Along random games at every table size, each legal action string is listed once in the game's space."""
    engine, space = registry.get(game), SPACES[game]
    assert len(set(space.names)) == len(space.names)
    seen = set()
    for seats in range(engine.min_seats, engine.max_seats + 1):
        for state, _ in random_positions(game, seats, f"space-{seats}"):
            legal = engine.legal_actions(state)
            indices = space.indices(legal)
            assert [space.names[i] for i in indices] == list(legal)
            seen.update(legal)
    assert len(seen) > 10


def test_the_documented_index_layouts():
    """The first indices of each space are pinned (docs/rl.md): a trained agent's outputs keep their meaning."""
    tails = SPACES["tails-on-fire"].names
    assert (tails[0], tails[9], tails[10], tails[11], tails[19], tails[20]) == (
        "choose:trickster", "choose:9", "pass", "play:1", "play:9", "trickster")
    nine = SPACES["nine-tails"]
    assert (nine.names[0], nine.index["take:W-AA*"], nine.index["none"], nine.index[f"slot:{MAX_FOX_SLOTS - 1}"]) == (
        "venture", 3, 48, len(nine) - 1)
    lemur = SPACES["lemur-tails"]
    assert (lemur.names[0], lemur.index["keep"], lemur.names[93], len(lemur)) == ("play:W0:0w", 92, "exchange:0w:0:B0",
                                                                                   3665)
    with pytest.raises(KeyError, match="has no index"):
        lemur.indices(["dance"])


def test_an_exchange_place_has_one_colour():
    """LT-2: along random games every card at a tail's position has the colour the action space gives that place."""
    checked = 0
    for seed in ("colour-1", "colour-2"):
        for state, _ in random_positions("lemur-tails", 2, seed):
            for tail, cards in enumerate(state.tails):
                for position, card in enumerate(cards):
                    assert COLOR[card] == exchange_color(tail, position)
                    checked += 1
    assert checked > 100


@pytest.mark.parametrize("game", EVERY_GAME)
def test_observations_have_one_size_and_stay_in_bounds(game):
    """Every seat's view at every table size encodes to the same float32 size, with values in [0, 1]."""
    engine, encoding = registry.get(game), ENCODINGS[game]
    assert sum(size for _, _, size, _ in segments(game)) == encoding.size
    for seats in range(engine.min_seats, engine.max_seats + 1):
        for index, (state, actor) in enumerate(random_positions(game, seats, f"obs-{seats}")):
            if index % 7:
                continue
            vector = encoding.encode(engine.view(state, actor))
            assert vector.shape == (encoding.size,) and vector.dtype == np.float32
            assert vector.min() >= 0.0 and vector.max() <= 1.0 and vector.any()


def test_seats_are_relative_to_the_observer():
    """Tails on Fire: the observer's own bonfire is always in slot 0, whichever seat it is."""
    engine, encoding = registry.get("tails-on-fire"), ENCODINGS["tails-on-fire"]
    state, _ = next(random_positions("tails-on-fire", 3, "relative"))
    for seat in range(3):
        vector = encoding.encode(engine.view(state, seat))
        bonfire = state.table.bonfire[seat]
        assert vector[encoding.at["player 0 bonfire"] + bonfire] == 1.0


@pytest.mark.parametrize("game", GAMES)
def test_docs_show_the_layouts_the_code_uses(game):
    """docs/rl.md holds each game's action index layout and observation layout exactly as the code builds them."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "rl.md").read_text()
    assert actions_markdown(game) in docs
    assert observations_markdown(game) in docs
