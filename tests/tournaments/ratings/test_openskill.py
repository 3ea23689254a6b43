"""OpenSkill ladder ratings (tournaments/ratings/openskill.py): defaults, the published example, versions."""

from __future__ import annotations

import math

import pytest

from tournaments.ratings import openskill
from tournaments.ratings.openskill import Skill, new_version, rate, rate_teams


def test_the_defaults_are_pinned():
    """mu 25, sigma 25/3, beta 25/6, kappa 0.0001, tau 25/300; the ordinal is mu - 3 sigma (0 for a new bot)."""
    assert (openskill.MU, openskill.SIGMA, openskill.BETA, openskill.KAPPA, openskill.TAU) == (
        25.0, 25.0 / 3.0, 25.0 / 6.0, 0.0001, 25.0 / 300.0)
    assert Skill() == Skill(25.0, 25.0 / 3.0)
    assert Skill().ordinal == pytest.approx(0.0, abs=1e-12)


def test_the_packages_published_example():
    """Two teams of two new players, the first winning: winners mu 26.964294621803063, sigma 8.177962604389991."""
    winners, losers = rate_teams([[Skill(), Skill()], [Skill(), Skill()]], [1, 2])
    for skill in winners:
        assert skill.mu == pytest.approx(26.964294621803063, abs=1e-12)
        assert skill.sigma == pytest.approx(8.177962604389991, abs=1e-12)
    for skill in losers:
        assert skill.mu == pytest.approx(25.0 - (26.964294621803063 - 25.0), abs=1e-12)
        assert skill.sigma == pytest.approx(8.177962604389991, abs=1e-12)


def test_a_multiplayer_game_orders_the_new_skills_by_place_and_ties_share():
    """Four seats ranked 1, 2, 2, 4: mu falls with place, the tied seats move alike, every sigma shrinks."""
    before = [Skill()] * 4
    after = rate(before, [1, 2, 2, 4])
    assert after[0].mu > after[1].mu == after[2].mu > after[3].mu
    assert all(s.sigma < openskill.SIGMA for s in after)
    assert before == [Skill()] * 4  # nothing mutated


def test_an_upset_moves_ratings_more_than_an_expected_result():
    """A weak bot beating a strong one gains more than the strong one would for beating it."""
    strong, weak = Skill(30.0, 3.0), Skill(20.0, 3.0)
    upset = rate([weak, strong], [1, 2])[0].mu - weak.mu
    expected = rate([strong, weak], [1, 2])[0].mu - strong.mu
    assert upset > expected > 0


def test_a_new_version_keeps_mu_and_widens_sigma():
    """A new version starts at its predecessor's mu with sigma sqrt(sigma^2 + (25/6)^2), never above 25/3."""
    settled = Skill(31.0, 1.5)
    fresh = new_version(settled)
    assert fresh.mu == 31.0
    assert fresh.sigma == pytest.approx(math.sqrt(1.5**2 + (25.0 / 6.0) ** 2))
    assert new_version(Skill(31.0, 8.0)).sigma == openskill.SIGMA
    assert new_version(None) == Skill()


def test_bad_games_are_refused():
    """One team, a missing rank or a non-positive sigma is refused before the package sees it."""
    with pytest.raises(ValueError, match="two teams"):
        rate([Skill()], [1])
    with pytest.raises(ValueError, match="one rank per team"):
        rate([Skill(), Skill()], [1])
    with pytest.raises(ValueError, match="positive sigma"):
        rate([Skill(), Skill(25.0, 0.0)], [1, 2])
