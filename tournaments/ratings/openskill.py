"""OpenSkill ratings for ladders: a thin, pure wrapper over the ``openskill`` package.

The model is Weng and Lin's Bayesian approximation with the Plackett-Luce likelihood
("A Bayesian Approximation Method for Online Ranking", JMLR 12, 2011), as the
``openskill`` package implements it (``openskill.models.PlackettLuce``): each bot has a
skill mu with uncertainty sigma; after a game every seat's mu moves by how surprising its
place was, and its sigma shrinks. A multiplayer ranking is used whole (not as pairs), so
one 4-seat game is one observation, and ties share a rank.

* Defaults (the package's, pinned in a test): mu 25, sigma 25/3, beta 25/6 (the spread of
  one game's performance), kappa 0.0001 (the floor of sigma's shrink), tau 25/300 (added
  to sigma before each game, so that a bot's rating can still move after many games).
* The leaderboard orders by the conservative ``ordinal`` mu - 3 sigma: a bot ranks high
  only once the ladder is sure it is strong.
* ``new_version``: a new version of a bot keeps its predecessor's mu (a new version is
  most often close to the old one) with sigma widened to sqrt(sigma^2 + VERSION_SIGMA^2),
  at most the starting sigma, so it plays more and its rating moves fast until its games
  have shown where it stands.

Every function takes and returns plain (mu, sigma) records; nothing is mutated, no
random identifiers or clocks are read (the package's rating objects carry a random id:
they never leave this module).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from openskill.models import PlackettLuce

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
VERSION_SIGMA = SIGMA / 2.0
"""The uncertainty a new version adds to its predecessor's (in quadrature)."""
ORDINAL_SIGMAS = 3.0


@dataclass(frozen=True, slots=True)
class Skill:
    """A bot's OpenSkill rating: skill mu and its uncertainty sigma."""

    mu: float = MU
    sigma: float = SIGMA

    @property
    def ordinal(self) -> float:
        """The leaderboard value mu - 3 sigma."""
        return self.mu - ORDINAL_SIGMAS * self.sigma


@cache
def _model(mu: float, sigma: float, beta: float, kappa: float, tau: float) -> PlackettLuce:
    return PlackettLuce(mu=mu, sigma=sigma, beta=beta, kappa=kappa, tau=tau)


def rate_teams(teams: Sequence[Sequence[Skill]], ranks: Sequence[int], *, mu: float = MU, sigma: float = SIGMA,
               beta: float = BETA, kappa: float = KAPPA, tau: float = TAU) -> list[list[Skill]]:
    """New skills of every member of every team after one game; rank 1 is best, equal ranks tie."""
    if len(teams) < 2 or len(teams) != len(ranks):
        raise ValueError("need at least two teams, with one rank per team")
    if any(not team for team in teams):
        raise ValueError("every team needs at least one member")
    for team in teams:
        for skill in team:
            if not (math.isfinite(skill.mu) and math.isfinite(skill.sigma) and skill.sigma > 0):
                raise ValueError(f"a skill needs a finite mu and a positive sigma, not {skill}")
    model = _model(mu, sigma, beta, kappa, tau)
    rated = model.rate([[model.rating(mu=s.mu, sigma=s.sigma) for s in team] for team in teams],
                       ranks=[float(rank) for rank in ranks])
    return [[Skill(r.mu, r.sigma) for r in team] for team in rated]


def rate(seats: Sequence[Skill], ranks: Sequence[int], **parameters: float) -> list[Skill]:
    """New skills of the seats of one game (each seat its own team); rank 1 is best."""
    return [team[0] for team in rate_teams([[skill] for skill in seats], ranks, **parameters)]


def new_version(previous: Skill | None, *, widen: float = VERSION_SIGMA, sigma: float = SIGMA) -> Skill:
    """The starting skill of a bot's new version: its predecessor's mu, sigma widened (at most
    the starting sigma); a first version starts at the defaults."""
    if previous is None:
        return Skill(MU, sigma)
    return Skill(previous.mu, min(sigma, math.sqrt(previous.sigma**2 + widen**2)))
