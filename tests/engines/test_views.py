"""Every view's shape is pinned: docs/views/<game>.schema.json, checked along random playouts.

For each game, at every seat count (and with and without the Rogue in Tails on Fire), a random
game is folded step by step through the public engine protocol (``engines.registry.get``), and
at a sample of its states (the opening, the first state of each phase, the end, and evenly
between) the view of every seat and of a spectator must match the game's JSON Schema (every
field's type and range, no field missing, none unknown, ``hand`` only in a seat's view) and
count the seat's own hand as it shows it.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import jsonschema
import pytest

from engines import registry
from engines.driver import play

VIEWS = Path(__file__).resolve().parents[2] / "docs" / "views"
GAMES = ("tails-on-fire", "nine-tails", "lemur-tails")
SAMPLED_STATES = 40
OPENING_STATES = 8


def validator(game: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((VIEWS / f"{game}.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


class RandomAgent:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, turn):
        return self.rng.choice(turn.legal)


def tables(game: str) -> list[tuple[int, dict | None]]:
    """Every seat count the game allows, with its options (the Rogue on and off where it may play)."""
    engine = registry.get(game)
    out = []
    for seats in range(engine.min_seats, engine.max_seats + 1):
        if game == "tails-on-fire" and seats <= 3:
            out += [(seats, {"rogue": True}), (seats, {"rogue": False})]
        else:
            out.append((seats, None))
    return out


def own_hand_size(game: str, view: dict) -> int:
    """The count a view gives of its own seat's hand (Tails on Fire: cards in hand, not chosen)."""
    if game == "tails-on-fire":
        return view["players"][view["seat"]]["hand_size"]
    return view["hand_sizes"][view["seat"]]


def sampled_views(game: str, seats: int, options: dict | None, seed: int, states: int = SAMPLED_STATES):
    """The views of every seat and of a spectator at about ``states`` states of one random game: the
    opening's, the first state of each phase, the last, and the rest spread evenly over the game.

    A sample, not every state: validating one view takes milliseconds, and a random Nine Tails
    game has a thousand steps or more.
    """
    engine = registry.get(game)
    config = engine.configure(seats, options)
    played = play(engine, config, f"views-{seed}", [RandomAgent(seed * 10 + seat) for seat in range(seats)])
    after, state, phases = [], None, set()
    chosen = set(range(min(OPENING_STATES, len(played.steps))))
    for index, step in enumerate(played.steps):
        for event in step.events:
            state = engine.apply(state, event)
        after.append(state)
        phase = engine.view(state, None)["phase"]
        if phase not in phases:
            phases.add(phase)
            chosen.add(index)
    stride = max(1, len(after) // max(1, states - len(chosen)))
    chosen.update(range(len(after) - 1, -1, -stride))
    for index in sorted(chosen):
        for seat in (None, *range(seats)):
            yield engine.view(after[index], seat)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_views_along_random_games_match_the_games_schema(game):
    """Views of every seat and of a spectator, sampled along a random game at every table size (the opening,
    each phase, the end), match docs/views/<game>.schema.json, and a seat's own hand count is its hand."""
    check = validator(game)
    checked = 0
    for seats, options in tables(game):
        for view in sampled_views(game, seats, options, seats):
            errors = sorted(check.iter_errors(view), key=lambda e: list(e.absolute_path))
            assert not errors, f"{seats} seats {options}: " + "; ".join(
                f"{'/'.join(map(str, e.absolute_path)) or 'view'}: {e.message[:120]}" for e in errors[:5])
            if view["seat"] is not None and view.get("chosen", ()) is not None:
                assert own_hand_size(game, view) == len(view["hand"]), view
            checked += 1
    assert checked >= SAMPLED_STATES * len(tables(game)) * 2


@pytest.mark.parametrize("game", GAMES)
def test_the_schema_refuses_a_count_that_is_not_a_count(game):
    """The schema is strict: a per-seat hand count that is negative, a float, a bool or a bit mask, an unknown
    field, or a spectator shown a hand, are each refused."""
    check = validator(game)
    view = next(sampled_views(game, 2, None, 0, states=1))
    assert check.is_valid(view)

    def with_count(value):
        changed = json.loads(json.dumps(view))
        if game == "tails-on-fire":
            changed["players"][0]["hand_size"] = value
        else:
            changed["hand_sizes"][0] = value
        return changed

    for bad in (-1, 1.5, True, 0b1111111111, "3", None):
        assert not check.is_valid(with_count(bad)), bad
    assert not check.is_valid({**view, "colour": "red"})
    assert not check.is_valid({**view, "hand": []})  # a spectator's view never has a hand
