"""How long an SPRT is expected to run before it plays a game: Wald's approximation.

A pure function over the test's visible parameters (tournaments.ratings.sprt.Sprt), so that
`tourney match` can say, before it starts, what its elo0 and elo1 cost.

In the normalised model a sample (a pair of games, or a block of n) has a t-value
t = sqrt(g) * elo / (800 / ln 10) (g games per sample: sprt.py's module docstring), and each
sample moves the log-likelihood ratio by about d * (x - (t0 + t1) / 2), where d = t1 - t0 and x is
the sample's standardised score: a drift mu = d * (t - (t0 + t1) / 2) and a variance d^2 per sample
when the candidate's true t-value is t. For such a random walk between the bounds a < 0 < b
(Wald, "Sequential Analysis", 1947, and the Brownian approximation fishtest's sprt_elo uses),
the upper bound is reached first with probability P = (1 - e^(-h a)) / (e^(-h b) - e^(-h a)),
h = 2 mu / d^2, and the expected number of samples is (P b + (1 - P) a) / mu, or -a b / d^2 when
mu = 0 (the worst case, a true Elo halfway between elo0 and elo1).

So near its hypotheses the test's length grows as 1 / (elo1 - elo0)^2: four times the gap is about a
sixteenth of the games; and a candidate far better than elo1 ends it in about b / mu samples, which
a larger elo1 shortens too. These are expectations; a test's own length varies around them.

The logistic model fixes mean scores rather than t-values: its length depends on the spread of the
samples' scores (how drawish the game is), which is not known before games are played, so it is
not estimated here (None).
"""

from __future__ import annotations

import math

from tournaments.ratings.sprt import NELO_PER_T, NORMALIZED, Sprt


def expected_samples(test: Sprt, games_per_sample: int, elo: float) -> float | None:
    """Samples (pairs, or blocks of ``games_per_sample``) the test is expected to take when the candidate is truly
    ``elo`` normalised Elo better than the baseline; None for the logistic model."""
    if test.model != NORMALIZED:
        return None
    scale = math.sqrt(games_per_sample) / NELO_PER_T
    t0, t1, t = test.elo0 * scale, test.elo1 * scale, elo * scale
    gap = t1 - t0
    lower, upper = test.bounds
    drift = gap * (t - (t0 + t1) / 2)
    if abs(drift) < 1e-12 * gap * gap:
        return -lower * upper / (gap * gap)
    h = 2 * drift / (gap * gap)
    exponent_a, exponent_b = -h * lower, -h * upper
    if max(abs(exponent_a), abs(exponent_b)) > 700:  # far beyond elo1 (or below elo0): one bound is certain
        reached = 1.0 if drift > 0 else 0.0
    else:
        reached = (1 - math.exp(exponent_a)) / (math.exp(exponent_b) - math.exp(exponent_a))
    return (reached * upper + (1 - reached) * lower) / drift
