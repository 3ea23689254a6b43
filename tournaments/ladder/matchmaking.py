"""Ladder matchmaking: more games for new and uncertain bots, tables of similar ratings.

The rule (docs/ladders.md explains it with its sources):

1. Each active bot's uncertainty is the standard error of its rating from the Fisher
   information of its pairwise results at the current ratings,
   SE = (400 / ln 10) / sqrt(PRIOR_INFORMATION + sum over its pairwise games of p (1 - p)),
   so a new bot (no games) has the largest SE and every game shrinks it.
2. The anchor of the next table is drawn with probability proportional to SE squared (its
   rating variance): uncertain bots are chosen more, but none is starved. This follows the
   active-sampling rule of Chatbot Arena (Chiang et al., 2024), which spends comparisons
   where they shrink the confidence intervals most.
3. The other k - 1 seats are drawn without replacement with weights
   exp(-(R_j - R_anchor)^2 / (2 * SPREAD^2)): opponents of similar rating, whose games are the
   most informative and the closest, as in TrueSkill's match quality (Herbrich, Minka and
   Graepel, 2006) and Swiss pairing.
4. On a ladder with divisions (tournaments.ladder.divisions) the other seats come from the anchor's
   division; with probability CHALLENGE, when the anchor is below the top division, from the division
   above instead (a challenge: by the weights of 3, its likeliest opponents are the bottom of the division
   above, which keeps the divisions' ratings on one scale). A pool with fewer than k - 1 bots takes in the
   nearest divisions (the closer first, the lower of two as close) until it has enough.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from tournaments.ratings.elo import SCALE, expected, pairwise

SPREAD = 200.0
PRIOR_INFORMATION = 0.25
"""One virtual even game: the information of a single 50% result, so a new bot's SE is finite."""
PROVISIONAL_GAMES = 20
"""A bot is provisional until it has played this many ladder games."""
CHALLENGE = 0.1
"""On a ladder with divisions, the chance that a table whose anchor is below the top division is a challenge."""


@dataclass(frozen=True, slots=True)
class Candidate:
    name: str
    rating: float
    games: int
    uncertainty: float
    division: int | None = None
    """Its division's index on a ladder with divisions (0: the lowest); None: the ladder has none."""


def uncertainties(ratings: dict[str, float], games: Sequence[Sequence[tuple[str, int]]]) -> dict[str, float]:
    """SE of each rating (Elo points) from the Fisher information of its pairwise results."""
    information = dict.fromkeys(ratings, PRIOR_INFORMATION)
    for game in games:
        for a, b, _score in pairwise(game):
            if a in ratings and b in ratings and a != b:
                p = expected(ratings[a], ratings[b])
                information[a] += p * (1 - p)
                information[b] += p * (1 - p)
    return {name: standard_error(value) for name, value in information.items()}


def standard_error(information: float) -> float:
    """A rating's SE in Elo points from its Fisher information (PRIOR_INFORMATION included): the one formula
    behind every margin, whether the information is summed here or in the database."""
    return SCALE / math.log(10) / math.sqrt(information)


def uncertainties_of_pairs(ratings: Mapping[str, float], met: Mapping[tuple[str, str], int]) -> dict[str, float]:
    """The same SE from the number of pairwise results of each ordered pair of bots (``met[(a, b)]``; each pair
    in both orders): what the ladder's read models keep, so no game is read again."""
    information = dict.fromkeys(ratings, PRIOR_INFORMATION)
    for (a, b), count in met.items():
        if a in ratings and b in ratings and a != b:
            p = expected(ratings[a], ratings[b])
            information[a] += count * p * (1 - p)
    return {name: standard_error(value) for name, value in information.items()}


def next_table(candidates: Sequence[Candidate], k: int, rng: random.Random, *, spread: float = SPREAD) -> list[str]:
    """The bots of the next table (k of them), by the rule above (``spread`` in the rating's units)."""
    if len(candidates) < k:
        raise ValueError(f"a table of {k} needs {k} active bots, the ladder has {len(candidates)}")
    pool = sorted(candidates, key=lambda c: c.name)
    anchor = rng.choices(pool, weights=[c.uncertainty**2 for c in pool])[0]
    table = [anchor]
    rest = [c for c in pool if c is not anchor]
    if anchor.division is not None:
        rest = _division_pool(anchor.division, rest, k, rng)
    for _ in range(k - 1):
        weights = [math.exp(-((c.rating - anchor.rating) ** 2) / (2 * spread**2)) + 1e-12 for c in rest]
        chosen = rng.choices(rest, weights=weights)[0]
        table.append(chosen)
        rest.remove(chosen)
    return [c.name for c in table]


def _division_pool(division: int, rest: list[Candidate], k: int, rng: random.Random) -> list[Candidate]:
    """The bots the other seats are drawn from on a ladder with divisions (rule 4)."""
    present = sorted({c.division for c in rest if c.division is not None})
    target = division
    if present and division < present[-1] and rng.random() < CHALLENGE:
        target = division + 1 if division + 1 in present else min(d for d in present if d > division)
    pool: list[Candidate] = []
    for nearest in sorted(present, key=lambda d: (abs(d - target), d)):
        if len(pool) >= k - 1:
            break
        pool += [c for c in rest if c.division == nearest]
    return pool
