"""The ranks a bot holds with 95% confidence, and which neighbours are statistically tied (issue 41 item 3).

A leaderboard's rank is a point estimate: with the ratings' uncertainty, a bot ranked 4th may as well be
2nd or 9th. ``rank_ranges`` says which: each bot's rating is drawn from its estimate's normal
distribution (Elo: the rating and its standard error; OpenSkill: mu and sigma), independently, ``DRAWS``
times; in each draw the bots are ranked; a bot's range is the central 95% of the ranks it got (the 2.5th
to the 97.5th percentile). The draws come from a fixed seed, so a page shows the same ranges until a
game changes the estimates: the seed's standard normal deviates are made once per process and kept
(``_Normals``), and a draw is ``value + error * deviate``, the very number ``random.gauss(value, error)``
would give; a board of 120 bots so costs ~11 ms of CPU in place of 45-58 (bench/ranks.py). What it leaves
out: the estimates' correlation (two bots rated mostly against each other move together), which widens or
narrows a range by little once a bot has met many.

Two neighbours are **tied** when their ratings' difference is within its own 95% margin:
``|a - b| < 1.96 * sqrt(se_a**2 + se_b**2)``: the data do not say which is better.
"""

from __future__ import annotations

import math
import random
import threading
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

DRAWS = 400
"""Draws of the whole leaderboard: enough for a percentile of ranks to be steady to about one rank
(the ranks are integers), few enough for 120 bots in about 11 ms of pure Python (the deviates kept)."""
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
    deviates = _normals(seed).first(draws * count)
    # held[i][r]: the draws that ranked bot i r-th (one list per bot: cheaper than 400 ranks to sort)
    held = [[0] * (count + 1) for _ in range(count)]
    order = range(count)
    for start in range(0, draws * count, count):
        # value + error * deviate is random.gauss(value, error) with this deviate: the same float
        drawn = [value + error * deviate
                 for (value, error), deviate in zip(estimates, deviates[start:start + count], strict=True)]
        for rank, index in enumerate(sorted(order, key=drawn.__getitem__, reverse=True), start=1):
            held[index][rank] += 1
    tail = (1 - level) / 2
    z = NormalDist().inv_cdf(1 - tail)
    first, last = math.floor(tail * draws), min(draws - 1, math.ceil((1 - tail) * draws) - 1)
    return [RankRange(_nth(counts, first), _nth(counts, last),
                      index > 0 and tied(estimates[index - 1], estimates[index], z))
            for index, counts in enumerate(held)]


def _nth(counts: list[int], nth: int) -> int:
    """The ``nth`` smallest (from 0) of the ranks ``counts`` holds (``counts[r]`` draws of rank r)."""
    seen = 0
    for rank, drawn in enumerate(counts):
        seen += drawn
        if seen > nth:
            return rank
    raise ValueError(f"fewer than {nth + 1} draws")


def tied(above: tuple[float, float], below: tuple[float, float], z: float = NormalDist().inv_cdf(0.975)) -> bool:
    """Whether two estimates' difference is within its ``z``-sigma margin."""
    return abs(above[0] - below[0]) < z * math.hypot(above[1], below[1])


class _Normals:
    """One seed's standard normal deviates in the order ``random.Random(seed).gauss`` gives them, made as far as
    asked and kept for the process (8 bytes each: 400 draws of 1,000 bots hold 3.2 MB). A web server's threads
    share it, hence the lock."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._kept = array("d")
        self._lock = threading.Lock()

    def first(self, count: int) -> array:
        if len(self._kept) < count:
            with self._lock:
                gauss = self._rng.gauss
                self._kept.extend(gauss(0.0, 1.0) for _ in range(count - len(self._kept)))
        return self._kept


_KEPT: dict[int, _Normals] = {}
_KEPT_LOCK = threading.Lock()


def _normals(seed: int) -> _Normals:
    with _KEPT_LOCK:
        if seed not in _KEPT:
            _KEPT[seed] = _Normals(seed)
        return _KEPT[seed]
