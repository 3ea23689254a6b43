"""Random playouts per second: each engine beside a bare loop of the same rules, one run.

For every game and seat count it alternates short batches of full games played by
the engine (driver, random agents, every event folded) and by that game's bare loop
(plain mutable lists, no events: bench/bare_<game>.py), so both see the same noise on
a shared machine, and prints one line that scripts can read:

    tails-on-fire seats=4 engine=1234 games/s bare=4321 games/s ratio: 0.29

A game without a bare loop prints only its engine rate:

    nine-tails seats=3 engine=321 games/s

Usage: python bench/engine.py [--seconds S] [--game NAME]
"""

from __future__ import annotations

import argparse
import importlib
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engines import registry
from engines.driver import play

SEAT_COUNTS = {
    "tails-on-fire": (2, 4, 6),
    "nine-tails": (3,),
    "lemur-tails": (2,),
}


class RandomAgent:
    __slots__ = ("choice",)

    def __init__(self, rng: random.Random) -> None:
        self.choice = rng.choice

    def act(self, turn) -> str:
        return self.choice(turn.legal)


def engine_batch(engine, seats: int, rng: random.Random, games: int) -> None:
    config = engine.configure(seats)
    for _ in range(games):
        agents = [RandomAgent(rng) for _ in range(seats)]
        play(engine, config, f"{rng.getrandbits(64):016x}", agents)


def bare_batch(bare, seats: int, rng: random.Random, games: int) -> None:
    for _ in range(games):
        bare.play(seats, rng)


def bare_loop(game: str):
    """The game's bare-loop module, or None if it has none."""
    try:
        return importlib.import_module(f"bench.bare_{game.replace('-', '_')}")
    except ModuleNotFoundError:
        return None


def measure(game: str, seats: int, seconds: float) -> dict[str, float]:
    """Games per second of the engine and of the bare loop (if any), batches interleaved."""
    engine = registry.get(game)
    bare = bare_loop(game)
    rng = random.Random(1)
    runners = {"engine": lambda n: engine_batch(engine, seats, rng, n)}
    if bare is not None:
        runners["bare"] = lambda n: bare_batch(bare, seats, rng, n)
    spent = dict.fromkeys(runners, 0.0)
    played = dict.fromkeys(runners, 0)
    batch = dict.fromkeys(runners, 1)
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        for kind, run in runners.items():
            began = time.perf_counter()
            run(batch[kind])
            took = time.perf_counter() - began
            spent[kind] += took
            played[kind] += batch[kind]
            if took < 0.05:  # grow batches until each takes a measurable slice
                batch[kind] *= 2
    return {kind: played[kind] / spent[kind] for kind in runners}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="time per game and seat count")
    parser.add_argument("--game", choices=sorted(SEAT_COUNTS), help="only this game")
    args = parser.parse_args()
    for game, counts in SEAT_COUNTS.items():
        if args.game and game != args.game:
            continue
        if game not in registry.names():
            print(f"{game}: no engine yet, skipped")
            continue
        for seats in counts:
            rates = measure(game, seats, args.seconds)
            line = f"{game} seats={seats} engine={rates['engine']:.0f} games/s"
            if "bare" in rates:
                line += f" bare={rates['bare']:.0f} games/s ratio: {rates['engine'] / rates['bare']:.2f}"
            print(line, flush=True)


if __name__ == "__main__":
    main()
