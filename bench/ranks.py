"""What a leaderboard's rank ranges cost: the standard normal deviates kept per process, beside drawing them.

tournaments/ratings/ranks.py draws each bot's rating DRAWS times from its estimate and keeps the central 95% of
the ranks it got. Every draw of a given seed is the same, so the module makes the seed's deviates once and keeps
them; before that, each call drew them afresh with ``random.gauss`` (``fresh_ranges`` here, the reference the
tests hold the kept deviates to). One run, the two alternated, each the least CPU time of the rounds, their
answers asserted equal, for a board of ``--bots`` ratings spread as a ladder's are:

    ranks: bots=120 draws=400 fresh=45.1 ms kept=11.9 ms ratio: 3.8

Usage: python bench/ranks.py [--bots N] [--rounds R]
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tournaments.ratings import ranks


def fresh_ranges(estimates: list[tuple[float, float]], draws: int = ranks.DRAWS, level: float = ranks.LEVEL,
                 seed: int = 0) -> list[tuple[int, int]]:
    """Each estimate's (low, high) ranks as drawn before the deviates were kept: a generator seeded afresh per call,
    ``random.gauss`` per rating and draw, the same percentiles."""
    rng = random.Random(seed)
    got: list[list[int]] = [[] for _ in estimates]
    for _ in range(draws):
        drawn = [rng.gauss(value, error) for value, error in estimates]
        for rank, index in enumerate(sorted(range(len(estimates)), key=drawn.__getitem__, reverse=True), start=1):
            got[index].append(rank)
    tail = (1 - level) / 2
    low, high = math.floor(tail * draws), min(draws - 1, math.ceil((1 - tail) * draws) - 1)
    return [(sorted(ranks_)[low], sorted(ranks_)[high]) for ranks_ in got]


def board(bots: int, seed: int = 7) -> list[tuple[float, float]]:
    """A ladder's board: ratings spread around 1500, standard errors of 5 to 80, best first."""
    spread = random.Random(seed)
    return sorted(((spread.gauss(1500, 150), spread.uniform(5, 80)) for _ in range(bots)), reverse=True)


def cpu_ms(call) -> float:
    start = time.process_time()
    call()
    return 1000 * (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bots", type=int, default=120)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    estimates = board(args.bots)
    kept = [(r.low, r.high) for r in ranks.rank_ranges(estimates)]  # also makes the deviates, once per process
    if kept != fresh_ranges(estimates):
        raise SystemExit("ranks: the kept deviates gave other ranges than fresh draws")
    fresh = min(cpu_ms(lambda: fresh_ranges(estimates)) for _ in range(args.rounds))
    kept_ms = min(cpu_ms(lambda: ranks.rank_ranges(estimates)) for _ in range(args.rounds))
    for _ in range(args.rounds):  # alternated, so that a change of the machine's speed touches both
        fresh = min(fresh, cpu_ms(lambda: fresh_ranges(estimates)))
        kept_ms = min(kept_ms, cpu_ms(lambda: ranks.rank_ranges(estimates)))
    print(f"ranks: bots={args.bots} draws={ranks.DRAWS} fresh={fresh:.1f} ms kept={kept_ms:.1f} ms "
          f"ratio: {fresh / kept_ms:.1f}")


if __name__ == "__main__":
    main()
