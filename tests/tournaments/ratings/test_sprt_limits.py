"""The edges of tournaments/ratings/sprt.py: one-sided bounds for a tally at an extreme (their side from the tally,
never from the bound's sign), and the hypotheses the LLR can weigh (``hypothesis_limit``)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from tournaments.play.candidate_match import tally
from tournaments.ratings import sprt
from tournaments.ratings.sprt import LOWER, UPPER, Sprt, SprtError, check_hypotheses, estimate, pentanomial


@pytest.mark.parametrize("n", range(1, 9))
def test_every_pair_won_is_a_lower_bound_and_every_pair_lost_its_negation(n):
    """n pairs all won: lower bounds (negative below 6 pairs: 0.025^(1/n) < 1/2), never labelled by their sign; n
    pairs all lost: upper bounds, the same numbers negated; --json's side says which."""
    won, lost = estimate(pentanomial([0, 0, 0, 0, n]), 2), estimate(pentanomial([n, 0, 0, 0, 0]), 2)
    p = 0.025 ** (1 / n)
    expected = (400 * math.log10(p / (1 - p)), (p - 0.5) / math.sqrt(2 * p * (1 - p)) * 800 / math.log(10))
    assert won.bound == pytest.approx(expected)
    assert lost.bound == pytest.approx(tuple(-x for x in expected))
    assert (won.bound_side, lost.bound_side) == (LOWER, UPPER)
    assert won.to_json()["bound"]["side"] == "lower" and lost.to_json()["bound"]["side"] == "upper"
    assert (won.bound[0] < 0) == (n < 6)  # the 1-, 3- and 5-pair bounds are negative and still lower bounds


@pytest.mark.parametrize("p", [0.1, 0.29, 0.5, 0.7, 0.95])
def test_the_nelo_bound_is_the_least_t_value_of_a_sample_that_wins_with_chance_p(p):
    """The bound's t-value, that of scoring 1 with chance p and 0 otherwise, is the least of every pair-score
    distribution that scores 1 with chance p or more (checked on a grid): so it is a lower bound for any p."""
    bound = (p - 0.5) / math.sqrt(p * (1 - p))
    steps = 12
    rest = 1 - p
    for a in range(steps + 1):
        for b in range(steps + 1 - a):
            for c in range(steps + 1 - a - b):
                d = steps - a - b - c  # the rest of the chance spread over the scores 0, 1/4, 1/2, 3/4
                dist = [rest * x / steps for x in (a, b, c, d)] + [p]
                mu = sum(i / 4 * q for i, q in enumerate(dist))
                sigma = math.sqrt(sum(q * (i / 4 - mu) ** 2 for i, q in enumerate(dist)))
                assert (mu - 0.5) / sigma >= bound - 1e-12


def test_the_limits_are_those_of_the_maths():
    """Normalised: |t| < 2 sqrt(2) / 3 per sample (231.62 for pairs, 163.78 for blocks of 4); logistic: the Elo of a
    99.9% score, 1199.83."""
    assert sprt.hypothesis_limit("normalized", 2) == pytest.approx(231.6237, abs=1e-4)
    assert sprt.hypothesis_limit("normalized", 4) == pytest.approx(163.7827, abs=1e-4)
    assert sprt.hypothesis_limit("logistic", 2) == pytest.approx(1199.8262, abs=1e-4)


SEATS = [(players, baselines) for players in range(2, 7) for baselines in range(1, players)]


@pytest.mark.parametrize(("players", "baselines"), SEATS)
@pytest.mark.parametrize("model", ["normalized", "logistic"])
def test_the_llr_is_finite_for_every_hypothesis_inside_the_limit(players, baselines, model):
    """Just inside the limit, for every seat count and baseline seats (each a tally's scores), the LLR of all-won,
    all-lost and mixed tallies is a finite number; just outside it the hypothesis is refused, as are infinities."""
    edge = sprt.hypothesis_limit(model, players) * (1 - 1e-9)
    step = 2 * baselines * players
    blocks = [[], [1] * 7, [0] * 7, [k / step for k in range(step + 1)], [1] * 50 + [0.5]]
    for scores in blocks:
        counts = tally([Fraction(s).limit_denominator(step) for s in scores], players, baselines)
        if not sum(c for _, c in counts):
            continue
        for elo0, elo1 in ((0.0, edge), (-edge, 0.0), (-edge, edge)):
            test = Sprt(elo0, elo1, model=model)
            check_hypotheses(test, players)
            assert math.isfinite(test.llr(counts, players))
    for elo1 in (sprt.hypothesis_limit(model, players), 1e6, math.inf):
        with pytest.raises(SprtError, match="must lie strictly between"):
            check_hypotheses(Sprt(-1.0, elo1, model=model), players)


def test_beyond_the_limit_the_llr_itself_fails():
    """The limit is where the maths stops, not a guess: just past 2 sqrt(2) / 3 per pair the LLR has no answer."""
    past = sprt.hypothesis_limit("normalized", 2) * 1.001
    with pytest.raises(SprtError, match="outside the range"):
        Sprt(0.0, past).llr(pentanomial([1, 2, 3, 2, 1]), 2)
