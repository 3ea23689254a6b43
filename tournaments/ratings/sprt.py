"""The sequential probability ratio test on paired deals, and Elo estimates with intervals.

Pure functions over explicit parameters, after the chess-engine testers: fishtest and
OpenBench (normalised-Elo pentanomial SPRT, logistic Elo with a normal 95% interval) and
fastchess (the same SPRT over win/draw/loss counts, normalised Elo, LOS).

A *tally* is the distribution of one sample's score: ``[(score, count), ...]`` with every
score in [0, 1]. A sample is one game (the trinomial tally: 0, 1/2, 1), one pair of games
playing the same deal from both seats (the pentanomial tally: 0, 1/4, 1/2, 3/4, 1), or a
block of n games playing one deal from every seat rotation of an n-seat table.
``games_per_sample`` is how many games one sample holds; normalised Elo is per game, so
it divides the variance of a sample back to one game's (Van den Bergh, "Comments on
Normalized Elo", section 4).

* ``llr``: the generalized SPRT's log-likelihood ratio. For each hypothesis the maximum
  likelihood distribution on the tally's scores with the hypothesis' expected score
  (``logistic``: E = 1 / (1 + 10^(-elo/400))) or normalised t-value (``normalized``:
  t = (E - 1/2) / sigma = sqrt(games_per_sample) * elo / (800 / ln 10)) is found, and
  LLR = N * sum_i p^_i (ln p1_i - ln p0_i). Counts of 0 count as 0.001, so that an
  outcome not seen yet is not impossible (as fishtest, OpenBench and fastchess do).
* ``hypothesis_limit``: how far from 0 a hypothesis may lie for that maximum to be found. Logistic: the
  expected score must lie inside the scores shown, [0.001, 0.999], so |elo| < 1199.8. Normalised: the
  iteration starts from the uniform distribution, where phi_i = d_i - t sigma (1 + d_i^2 / sigma^2) / 2
  (d_i = a_i - 1/2) must take both signs, i.e. |t| < max_i 2 d_i sigma / (sigma^2 + d_i^2); that is
  2 sqrt(2) / 3 for pairs, the least over every tally's scores (up to 1 for finer ones), so
  |t| < 2 sqrt(2) / 3 per sample: |elo| < 231.6 for pairs, 163.8 for blocks of 4.
* ``Sprt.bounds``: stop when LLR <= ln(beta / (1 - alpha)) (H0 accepted) or
  LLR >= ln((1 - beta) / alpha) (H1 accepted).
* ``estimate``: mean score and its 95% interval mu +- 1.96 sqrt(var / N), shown as logistic
  Elo -400 log10(1/mu - 1) (mu held in [0.001, 0.999]) and as normalised Elo
  (mu - 1/2) / sqrt(games_per_sample * var) * 800 / ln 10; LOS = 1/2 (1 + erf((mu - 1/2) /
  sqrt(2 var / N))).
* ``one_sided``: a tally in which every sample won (or every one lost) has no spread, so its
  interval is a point and its normalised Elo infinite. What can be said is a one-sided bound:
  the exact (Clopper-Pearson) 95% bound on the chance p that a sample wins, p = 0.025^(1/N)
  (the lower end of the two-sided 95% interval of N wins in N), shown as the logistic Elo of p and
  the normalised Elo of a sample that scores 1 with chance p and 0 otherwise: of all the score
  distributions that win with chance at least p, that one has the smallest mean and the smallest
  t-value (mu - 1/2) / sigma (its t-value rises with p and with any score put in place of the 0).
  Both are LOWER bounds, which the true values exceed with 95% confidence, whatever their sign: below
  6 samples p is under 1/2 and the bounds are negative. For every sample lost the same reasoning
  on the chance of a loss gives UPPER bounds, the negation of those (``Estimate.bound_side``).
* ``expected_samples``: how many samples the test takes in all if the LLR keeps the mean slope it
  has had so far (Wald's approximation: the bound it heads for over its drift per sample).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

NORMALIZED = "normalized"
LOGISTIC = "logistic"
MODELS = (NORMALIZED, LOGISTIC)
NELO_PER_T = 800.0 / math.log(10.0)
"""Normalised Elo of a t-value of 1: the slope of logistic Elo at an even score, times 2."""
Z95 = 1.959963984540054
"""The 97.5th percentile of the standard normal: a 95% two-sided interval."""
UNSEEN = 1e-3
"""The count an outcome not seen yet gets in the LLR, so that it stays possible."""
SCORE_CLAMP = 1e-3
"""Logistic Elo of a mean score below 0.001 or above 0.999 is that of 0.001 or 0.999."""

H0 = "H0"
H1 = "H1"
LOWER = "lower"
UPPER = "upper"
T_LIMIT = 2.0 * math.sqrt(2.0) / 3.0
"""A normalised hypothesis' t-value per sample stays below this (``hypothesis_limit``)."""

Tally = Sequence[tuple[float, float]]
"""One sample's score distribution: (score in [0, 1], count) per possible score."""


class SprtError(ValueError):
    """SPRT parameters or a tally that cannot be used; the message is one clear line."""


@dataclass(frozen=True, slots=True)
class Sprt:
    """The test's hypotheses (H0: elo = elo0, H1: elo = elo1) and its error rates."""

    elo0: float = 0.0
    elo1: float = 5.0
    alpha: float = 0.05
    beta: float = 0.05
    model: str = NORMALIZED

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise SprtError(f"elo0 ({self.elo0:g}) must be less than elo1 ({self.elo1:g})")
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0.0 < value < 1.0:
                raise SprtError(f"{name} must be between 0 and 1, not {value:g}")
        if self.alpha + self.beta >= 1.0:
            raise SprtError(f"alpha + beta must be less than 1, not {self.alpha + self.beta:g}")
        if self.model not in MODELS:
            raise SprtError(f"the SPRT model is {' or '.join(MODELS)}, not {self.model!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """(lower, upper): LLR at or below lower accepts H0, at or above upper accepts H1."""
        return math.log(self.beta / (1.0 - self.alpha)), math.log((1.0 - self.beta) / self.alpha)

    def llr(self, tally: Tally, games_per_sample: int) -> float:
        return llr(tally, self.elo0, self.elo1, games_per_sample, self.model)

    def decide(self, llr_value: float) -> str | None:
        """H0 or H1 once the LLR has left the bounds, else None (play on)."""
        lower, upper = self.bounds
        if llr_value >= upper:
            return H1
        if llr_value <= lower:
            return H0
        return None

    def to_json(self) -> dict[str, float | str]:
        return {"elo0": self.elo0, "elo1": self.elo1, "alpha": self.alpha, "beta": self.beta, "model": self.model}


def pentanomial(counts: Sequence[int]) -> list[tuple[float, float]]:
    """The tally of pairs from counts of pair scores (0, 1/2, 1, 3/2, 2 points of 2), worst first."""
    if len(counts) != 5:
        raise SprtError(f"a pentanomial tally has 5 counts, not {len(counts)}")
    return [(i / 4.0, count) for i, count in enumerate(counts)]


def trinomial(wins: int, draws: int, losses: int) -> list[tuple[float, float]]:
    """The tally of single games from wins, draws and losses."""
    return [(0.0, losses), (0.5, draws), (1.0, wins)]


def logistic_score(elo: float) -> float:
    """The expected score of an Elo difference: 1 / (1 + 10^(-elo/400))."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The Elo difference of a mean score, the score held in [0.001, 0.999]."""
    score = min(max(score, SCORE_CLAMP), 1.0 - SCORE_CLAMP)
    return -400.0 * math.log10(1.0 / score - 1.0)


def hypothesis_limit(model: str, games_per_sample: int) -> float:
    """The |elo| a hypothesis of the test must stay below (see the module docstring)."""
    if model == LOGISTIC:
        return logistic_elo(1.0 - SCORE_CLAMP)
    return T_LIMIT * NELO_PER_T / math.sqrt(games_per_sample)


def check_hypotheses(test: Sprt, games_per_sample: int) -> None:
    """SprtError unless elo0 and elo1 are finite and inside ``hypothesis_limit``, where the LLR is defined."""
    limit = hypothesis_limit(test.model, games_per_sample)
    for name, value in (("elo0", test.elo0), ("elo1", test.elo1)):
        if not -limit < value < limit:  # NaN and infinities fail too
            per = f" with {games_per_sample} games a sample" if test.model == NORMALIZED else ""
            raise SprtError(f"{name} ({value:g}) must lie strictly between {-limit:+.2f} and {limit:+.2f} for the "
                            f"{test.model} test{per}: beyond that its likelihood ratio is not defined")


def llr(tally: Tally, elo0: float, elo1: float, games_per_sample: int, model: str = NORMALIZED) -> float:
    """The generalized SPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0)."""
    scores, counts = _checked(tally, games_per_sample)
    counts = [count if count > 0 else UNSEEN for count in counts]
    total = sum(counts)
    observed = [count / total for count in counts]
    if model == NORMALIZED:
        scale = math.sqrt(games_per_sample) / NELO_PER_T
        p0 = _mle_normalized(scores, observed, elo0 * scale)
        p1 = _mle_normalized(scores, observed, elo1 * scale)
    elif model == LOGISTIC:
        p0 = _mle_mean(scores, observed, logistic_score(elo0))
        p1 = _mle_mean(scores, observed, logistic_score(elo1))
    else:
        raise SprtError(f"the SPRT model is {' or '.join(MODELS)}, not {model!r}")
    return total * sum(p * (math.log(b) - math.log(a)) for p, a, b in zip(observed, p0, p1, strict=True))


@dataclass(frozen=True, slots=True)
class Estimate:
    """What a tally says: samples, mean score, and Elo with 95% intervals (low, mid, high)."""

    samples: float
    score: float
    variance: float
    elo: tuple[float, float, float]
    nelo: tuple[float, float, float]
    los: float
    bound: tuple[float, float] | None = None
    """Every sample won (or lost): the one-sided 95% bounds (logistic Elo, normalised Elo), ``one_sided``."""
    bound_side: str | None = None
    """LOWER when every sample won (the true Elo is at least ``bound``), UPPER when every one lost."""

    def to_json(self) -> dict[str, object]:
        finite = [None if not math.isfinite(x) else round(x, 2) for x in self.nelo]
        out: dict[str, object] = {"samples": self.samples, "score": round(self.score, 6), "los": round(self.los, 6),
                                  "elo": [round(x, 2) for x in self.elo], "nelo": finite}
        if self.bound is not None:
            out["bound"] = {"side": self.bound_side, "elo": round(self.bound[0], 2),
                            "nelo": round(self.bound[1], 2)}
        return out


def estimate(tally: Tally, games_per_sample: int) -> Estimate:
    """Mean score, logistic and normalised Elo with 95% intervals, and LOS, of a tally."""
    scores, counts = _checked(tally, games_per_sample)
    n = sum(counts)
    if n == 0:
        return Estimate(0, 0.5, 0.0, (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.5)
    mu = sum(a * c for a, c in zip(scores, counts, strict=True)) / n
    var = sum(c * (a - mu) ** 2 for a, c in zip(scores, counts, strict=True)) / n
    half = Z95 * math.sqrt(var / n)
    elo = (logistic_elo(mu - half), logistic_elo(mu), logistic_elo(mu + half))
    nelo = tuple(_nelo(x, var, games_per_sample) for x in (mu - half, mu, mu + half))
    if var > 0:
        los = 0.5 * (1.0 + math.erf((mu - 0.5) / math.sqrt(2.0 * var / n)))
    else:
        los = 1.0 if mu > 0.5 else 0.0 if mu < 0.5 else 0.5
    if var == 0 and mu in (0.0, 1.0):  # the side is the extreme the tally is at, never the bound's sign
        won = mu == 1.0
        return Estimate(n, mu, var, elo, nelo, los, one_sided(n, games_per_sample, won),  # type: ignore[arg-type]
                        LOWER if won else UPPER)
    return Estimate(n, mu, var, elo, nelo, los)  # type: ignore[arg-type]


ONE_SIDED_TAIL = (1.0 - 0.95) / 2
"""The tail of a one-sided bound: that of either end of a two-sided 95% interval."""


def one_sided(samples: float, games_per_sample: int, won: bool) -> tuple[float, float]:
    """(logistic Elo, normalised Elo) bounds of ``samples`` samples that all won (lower bounds, negative below 6
    samples) or all lost (upper bounds, their negation), at 95% (see the module docstring)."""
    if samples <= 0:
        raise SprtError("a one-sided bound needs at least one sample")
    p = ONE_SIDED_TAIL ** (1.0 / samples)  # the chance of a win that N wins in N leave at the 95% edge
    nelo = (p - 0.5) / math.sqrt(games_per_sample * p * (1.0 - p)) * NELO_PER_T
    elo = logistic_elo(p)
    return (elo, nelo) if won else (-elo, -nelo)


def expected_samples(llr_value: float, samples: int, bounds: tuple[float, float]) -> float | None:
    """Samples the test should take in all, at the LLR's mean slope so far; None before it has moved."""
    if samples <= 0 or llr_value == 0.0:
        return None
    target = bounds[1] if llr_value > 0 else bounds[0]
    return max(float(samples), samples * target / llr_value)


def _nelo(score: float, variance: float, games_per_sample: int) -> float:
    if variance > 0:
        return (score - 0.5) / math.sqrt(games_per_sample * variance) * NELO_PER_T
    return math.copysign(math.inf, score - 0.5) if score != 0.5 else 0.0


def _checked(tally: Tally, games_per_sample: int) -> tuple[list[float], list[float]]:
    if games_per_sample < 1:
        raise SprtError(f"a sample holds at least one game, not {games_per_sample}")
    if not tally:
        raise SprtError("an empty tally: no possible scores")
    scores = [float(score) for score, _ in tally]
    counts = [float(count) for _, count in tally]
    if any(not 0.0 <= score <= 1.0 for score in scores):
        raise SprtError("tally scores must lie in [0, 1]")
    if len(set(scores)) != len(scores):
        raise SprtError("a tally lists each score once")
    if any(count < 0 for count in counts):
        raise SprtError("tally counts cannot be negative")
    if min(scores) >= 0.5 or max(scores) <= 0.5:
        raise SprtError("a tally's scores must include some below and some above 1/2")
    return scores, counts


def _mle_mean(scores: list[float], observed: list[float], mean: float) -> list[float]:
    """The distribution on ``scores`` nearest (in likelihood) to ``observed`` with the given mean
    (Van den Bergh, proposition 1.1): p_i = p^_i / (1 + x (a_i - mean)) with sum p^_i (a_i - mean) /
    (1 + x (a_i - mean)) = 0."""
    shifted = [a - mean for a in scores]
    x = _secular_root(observed, shifted)
    return [p / (1.0 + x * v) for p, v in zip(observed, shifted, strict=True)]


def _mle_normalized(scores: list[float], observed: list[float], t: float, tolerance: float = 1e-11) -> list[float]:
    """The distribution on ``scores`` nearest to ``observed`` with (mu - 1/2) / sigma = t, by the
    fixed-point iteration of Van den Bergh's section 4.1, started from the uniform distribution."""
    if t == 0.0:  # t = 0 is mu = 1/2: solved directly (the iteration crawls there on lopsided tallies)
        return _mle_mean(scores, observed, 0.5)
    p = [1.0 / len(scores)] * len(scores)
    x = 0.0
    for _ in range(100):
        mu = sum(a * q for a, q in zip(scores, p, strict=True))
        sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
        phi = [a - 0.5 - 0.5 * t * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        x = _secular_root(observed, phi, x)  # the last step's root: the next one is near it
        updated = [q / (1.0 + x * v) for q, v in zip(observed, phi, strict=True)]
        change = max(abs(u - q) for u, q in zip(updated, p, strict=True))
        p = updated
        if change < tolerance:
            break
    return p


def _secular_root(weights: list[float], values: list[float], start: float = 0.0) -> float:
    """The x in (-1/max v, -1/min v) with sum w_i v_i / (1 + x v_i) = 0: Newton's method from
    ``start``, kept inside a shrinking bracket (the sum falls strictly as x grows)."""
    low, high = -1.0 / max(values), -1.0 / min(values)
    if not low < 0.0 < high:
        raise SprtError("the hypothesis lies outside the range of the tally's scores")
    x = start if low < start < high else 0.0
    for _ in range(200):
        f = slope = 0.0
        for w, v in zip(weights, values, strict=True):
            share = v / (1.0 + x * v)
            f += w * share
            slope -= w * share * share
        if f > 0:
            low = x
        else:
            high = x
        step = x - f / slope if slope < 0 else (low + high) / 2.0
        if not low < step < high:
            step = (low + high) / 2.0
        if abs(step - x) <= 1e-15 * max(1.0, abs(x)):
            return step
        x = step
    return x
