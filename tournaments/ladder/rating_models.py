"""Ratings: how a ladder rates (Elo for two seats, OpenSkill for more), fixed for its life.

A model is the update after a game (ledger.rows.ladder_rows.store_games runs it in the game's transaction), a new
version's first rating, and the matchmaking spread; the pure maths are tournaments.ratings'.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ledger.rows import ladder_rows
from tournaments.ladder import matchmaking
from tournaments.ratings import elo, openskill

ELO = "elo"
OPENSKILL = "openskill"
RATINGS = (ELO, OPENSKILL)


def default_rating(players: int) -> str:
    """OpenSkill for 3 or more seats (a ranking is one observation, not pairs), Elo for two."""
    return OPENSKILL if players >= 3 else ELO


def _elo_update(ratings: list[ladder_rows.Rating], ranks: list[int]) -> list[ladder_rows.Rating]:
    return [(rating, None) for rating in elo.multiplayer_update([r for r, _ in ratings], ranks)]


def _openskill_update(ratings: list[ladder_rows.Rating], ranks: list[int]) -> list[ladder_rows.Rating]:
    rated = openskill.rate([openskill.Skill(mu, sigma) for mu, sigma in ratings], ranks)
    return [(skill.mu, skill.sigma) for skill in rated]


def _openskill_start(previous: ladder_rows.Rating | None) -> ladder_rows.Rating:
    skill = openskill.new_version(None if previous is None else openskill.Skill(*previous))
    return (skill.mu, skill.sigma)


@dataclass(frozen=True, slots=True)
class Model:
    """How a ladder rates: the update after a game, a new version's start, the matchmaking spread."""

    update: ladder_rows.Update
    start: ladder_rows.Start
    spread: float


MODELS = {
    ELO: Model(_elo_update, ladder_rows.elo_start, matchmaking.SPREAD),
    # OpenSkill's beta is one game's performance spread: a mu gap of beta is about a 76% favourite,
    # as 200 Elo points are, so it plays the part of Elo's spread.
    OPENSKILL: Model(_openskill_update, _openskill_start, openskill.BETA),
}


def model(ladder: dict[str, Any]) -> Model:
    return MODELS[ladder.get("rating") or ELO]


def leaderboard_rating(point: dict[str, Any]) -> float:
    """A stored rating (an entry, a history point: ``rating`` and ``sigma``) as the leaderboard ranks and every page,
    answer and command calls "rating": Elo, or OpenSkill's conservative mu - 3 sigma (its mu and sigma go by those
    names)."""
    sigma = point.get("sigma")
    return point["rating"] if sigma is None else openskill.Skill(point["rating"], sigma).ordinal
