"""The ranks a bot holds with 95% confidence, and ties (tournaments/ratings/ranks.py, issue 41 item 3)."""

from __future__ import annotations

import itertools
import math
import random
from statistics import NormalDist

from bench.ranks import fresh_ranges
from tournaments.ratings.ranks import DRAWS, RankRange, rank_ranges, tied


def test_bots_far_apart_hold_their_own_rank_and_are_not_tied():
    ranges = rank_ranges([(2000.0, 10.0), (1000.0, 10.0), (0.0, 10.0)])
    assert ranges == [RankRange(1, 1, False), RankRange(2, 2, False), RankRange(3, 3, False)]


def test_bots_alike_may_hold_any_rank_and_are_all_tied():
    ranges = rank_ranges([(1500.0, 50.0)] * 6)
    assert all(r.low <= 2 and r.high >= 5 for r in ranges)
    assert [r.tied_above for r in ranges] == [False] + [True] * 5


def test_two_bots_range_follows_the_probability_that_one_is_better():
    """Two bots: the first holds rank 1 alone exactly when it is better with more than 97.5% probability
    (P = Phi(d / sqrt(se_a^2 + se_b^2))), within the simulation's resolution around the boundary."""
    se = 40.0
    for probability in (0.6, 0.9, 0.95, 0.995, 0.9999):
        difference = NormalDist().inv_cdf(probability) * math.hypot(se, se)
        first, second = rank_ranges([(difference, se), (0.0, se)])
        alone = probability > 0.975
        assert (first.low, first.high) == ((1, 1) if alone else (1, 2)), probability
        assert (second.low, second.high) == ((2, 2) if alone else (1, 2)), probability
        assert second.tied_above is not alone


def test_ranges_are_steady_and_well_formed():
    """The same estimates give the same ranges (a fixed seed); every range lies in 1..n, low <= high, and a
    leaderboard sorted by value with equal errors has ranges that never go backwards by more than the draws'
    resolution (one rank, between two bots almost alike)."""
    rng = random.Random(7)
    for _ in range(20):
        n = rng.randint(1, 30)
        estimates = sorted(((rng.uniform(0, 400), 30.0) for _ in range(n)), reverse=True)
        ranges = rank_ranges(estimates)
        assert ranges == rank_ranges(estimates)
        assert all(1 <= r.low <= r.high <= n for r in ranges)
        assert all(a.low <= b.low + 1 and a.high <= b.high + 1 for a, b in itertools.pairwise(ranges))
        assert [r.tied_above for r in ranges] == [False] + [tied(a, b) for a, b in itertools.pairwise(estimates)]


def test_the_rank_shown_lies_in_its_range_for_most_bots_of_a_real_spread():
    """120 bots as a ladder holds them (ratings spread over 600 points, errors 20-120): each range is short for a
    bot that is sure and long for one that is not, and the point rank lies in it."""
    rng = random.Random(3)
    estimates = sorted(((rng.gauss(1500, 150), rng.uniform(20, 120)) for _ in range(120)), reverse=True)
    ranges = rank_ranges(estimates)
    assert sum(r.low <= rank <= r.high for rank, r in enumerate(ranges, start=1)) >= 114
    sure, unsure = min(range(120), key=lambda i: estimates[i][1]), max(range(120), key=lambda i: estimates[i][1])
    assert ranges[sure].high - ranges[sure].low < ranges[unsure].high - ranges[unsure].low
    assert rank_ranges([]) == [] and DRAWS >= 400


def test_the_kept_deviates_give_the_ranges_fresh_draws_give_whatever_was_asked_before():
    """The standard normals kept per process (ranks._Normals) give the very draws a generator seeded afresh
    gives (bench/ranks.py's fresh_ranges, the code before they were kept): boards of growing and shrinking
    sizes, asked in turn (the kept table grows between them), ties of equal ratings with no error, and another
    seed, each equal to its fresh draws, rank for rank."""
    spread = random.Random(7)
    for count, draws, seed in ((5, 40, 0), (120, DRAWS, 0), (30, 100, 0), (200, 60, 0), (12, 50, 3)):
        estimates = sorted(((spread.gauss(1500, 150), spread.uniform(5, 80)) for _ in range(count)), reverse=True)
        estimates[1:1] = [(1600.0, 0.0), (1600.0, 0.0)]  # two alike and certain: a tie every draw
        kept = [(r.low, r.high) for r in rank_ranges(estimates, draws=draws, seed=seed)]
        assert kept == fresh_ranges(estimates, draws, seed=seed), (count, draws, seed)
