"""The ranks a bot holds with 95% confidence, and which neighbours are statistically tied (issue 41 item 3).

A leaderboard's rank is a point estimate: with the ratings' uncertainty, a bot ranked 4th may as well be
2nd or 9th. ``rank_ranges`` says which: each bot's rating is drawn from its estimate's normal
distribution (Elo: the rating and its standard error; OpenSkill: mu and sigma), independently, ``DRAWS``
times; in each draw the bots are ranked; a bot's range is the central 95% of the ranks it got (the 2.5th
to the 97.5th percentile). The draws come from a fixed seed, so a page shows the same ranges until a
game changes the estimates. What it leaves out: the estimates' correlation (two bots rated mostly
against each other move together), which widens or narrows a range by little once a bot has met many.

Two neighbours are **tied** when their ratings' difference is within its own 95% margin:
``|a - b| < 1.96 * sqrt(se_a**2 + se_b**2)``: the data do not say which is better.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

DRAWS = 400
"""Draws of the whole leaderboard: enough for a percentile of ranks to be steady to about one rank
(the ranks are integers), few enough for 120 bots in about 50 ms of pure Python."""
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class RankRange:
    low: int
    """The best rank (the smallest number) the bot holds at the confidence level."""
    high: int
    """The worst."""
    tied_above: bool
    """Statistically tied with the bot listed just above it (always False for the first)."""


def rank_ranges(estimates: Sequence[tuple[float, float]], level: float = LEVEL, draws: int = DRAWS, seed: int = 0
                ) -> list[RankRange]:
    """For each (value, standard error) of a leaderboard, in its order, the range of ranks it holds with
    ``level`` confidence and whether it is tied with the one above (the module docstring says how)."""
    count = len(estimates)
    if count == 0:
        return []
    rng = random.Random(seed)
    ranks: list[list[int]] = [[] for _ in range(count)]
    order = range(count)
    for _ in range(draws):
        drawn = [rng.gauss(value, error) for value, error in estimates]
        for rank, index in enumerate(sorted(order, key=drawn.__getitem__, reverse=True), start=1):
            ranks[index].append(rank)
    tail = (1 - level) / 2
    z = NormalDist().inv_cdf(1 - tail)
    out = []
    for index, got in enumerate(ranks):
        got.sort()
        low = got[math.floor(tail * draws)]
        high = got[min(draws - 1, math.ceil((1 - tail) * draws) - 1)]
        out.append(RankRange(low, high, index > 0 and tied(estimates[index - 1], estimates[index], z)))
    return out


def tied(above: tuple[float, float], below: tuple[float, float], z: float = NormalDist().inv_cdf(0.975)) -> bool:
    """Whether two estimates' difference is within its ``z``-sigma margin."""
    return abs(above[0] - below[0]) < z * math.hypot(above[1], below[1])
