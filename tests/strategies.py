"""Hypothesis strategies shared by the test modules."""

from __future__ import annotations

from typing import NamedTuple

from hypothesis import assume
from hypothesis import strategies as st

from engines import registry
from engines.base import Config, Engine
from tests.engines import twins

seeds = st.text(alphabet="0123456789abcdef", min_size=1, max_size=16)

json_scalars = st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=20)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
"""Any JSON value (floats included in the wild ones below)."""

wild_json = st.recursive(
    json_scalars | st.floats(allow_nan=False),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


class Twins(NamedTuple):
    """Two games that differ only in what ``observers`` cannot know (see tests/engines/twins.py)."""

    engine: Engine
    config: Config
    seed: str
    symmetry: twins.Symmetry
    a: list[twins.Step]
    b: list[twins.Step]
    observers: tuple[int | None, ...]

    def __repr__(self) -> str:  # the games themselves are long; a failure names how to make them again
        return (f"Twins({self.engine.name} v{self.engine.version}, {self.config.seats} seats, seed {self.seed!r}, "
                f"{self.symmetry.name!r}, {len(self.a)} steps, observers {self.observers})")


@st.composite
def twin_games(draw: st.DrawFn, game: str, version: int | None = None, seats: int | None = None) -> Twins:
    """A random playout of ``game`` cut at a random step, and its twin under one of the game's symmetries.

    The symmetry's positions are permuted by a drawn permutation; the twin replays the same decisions.
    """
    engine = registry.get(game, version)
    count = seats or draw(st.integers(engine.min_seats, engine.max_seats))
    config = engine.configure(count)
    seed = draw(seeds)
    a = twins.random_playout(engine, config, seed, draw(st.integers(0, 2**32 - 1)))
    opening = next((index for index, step in enumerate(a) if step.actor >= 0), len(a) - 1)
    a = a[: draw(st.integers(opening + 1, len(a)))]  # the table is laid out: every setup shuffle is done
    symmetries = twins.SYMMETRIES[game](a, config)
    assume(symmetries)
    kind = draw(st.sampled_from(sorted({symmetry.kind for symmetry in symmetries})))
    symmetry = draw(st.sampled_from([symmetry for symmetry in symmetries if symmetry.kind == kind]))
    orders = {(shuffle.stream, shuffle.call): tuple(position for group in shuffle.groups
                                                    for position in draw(st.permutations(group)))
              for shuffle in symmetry.shuffles}
    picks = tuple(draw(st.permutations(symmetry.picks)))
    swapped = tuple(draw(st.sampled_from(others)) for _, others in symmetry.swaps)
    b = twins.replay(engine, config, seed, a, symmetry, orders, picks, swapped)
    observers = (*(seat for seat in range(count) if seat not in symmetry.seen_by), None)
    return Twins(engine, config, seed, symmetry, a, b, observers)
