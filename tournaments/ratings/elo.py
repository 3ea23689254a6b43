"""Ratings from rankings: pure functions with visible defaults (no clock, no global RNG).

* ``pairwise``: a multiplayer ranking counts as one result per pair of seats (win, draw
  or loss by rank), as ALL-6 makes rankings the only input.
* ``mle_elo``: standings Elo by joint maximum likelihood over all pairwise results
  (Bradley-Terry on the Elo scale; a draw counts half a win for each side), mean 1500.
  A weak prior keeps a bot that never lost finite: every bot is credited with
  ``PRIOR_DRAWS`` virtual draws against a phantom at the mean (as BayesElo does).
* ``mle_elo_of_pairs``: the same fit from the wins, draws and losses of each pair of bots,
  which is all it reads (what the ledger's read models keep).
* ``curvature_ci``: 95% confidence intervals from the curvature of the likelihood at the fit
  (robust to the results of one game hanging together), with no resampling: the default.
* ``bootstrap_ci``: 95% confidence intervals by resampling whole games with a fixed
  seed, refitting each resample, and taking the 2.5th and 97.5th percentiles.
* ``los``: likelihood of superiority from head-to-head wins and losses (draws ignored):
  LOS = 1/2 (1 + erf((W - L) / sqrt(2 (W + L)))).
* ``multiplayer_update``: the ladder's incremental Elo for n seats, exactly as specified:
  E_i = sum over j != i of 1/(1 + 10^((R_j - R_i)/400)) / (n(n-1)/2);
  S_i = (n - place_i) / (n(n-1)/2) with tied seats sharing the average of their places'
  scores; R_i += K (n - 1) (S_i - E_i), K = 32. For two seats it is ordinary Elo.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from statistics import NormalDist

MEAN = 1500.0
SCALE = 400.0
K_FACTOR = 32.0
PRIOR_DRAWS = 1.0
BOOTSTRAP_SAMPLES = 200
BOOTSTRAP_SEED = 20261129
CONFIDENCE = 0.95

Game = Sequence[tuple[str, int]]
"""One game's result: (bot, rank) per seat, rank 1 = best."""


def expected(rating: float, opponent: float) -> float:
    """The expected score of ``rating`` against ``opponent`` (ordinary Elo)."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / SCALE))


def pairwise(game: Game) -> list[tuple[str, str, float]]:
    """One (a, b, score of a) per pair of seats: 1 if a ranked better, 0.5 if tied, 0 if worse."""
    out = []
    for i in range(len(game)):
        for j in range(i + 1, len(game)):
            (a, rank_a), (b, rank_b) = game[i], game[j]
            score = 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
            out.append((a, b, score))
    return out


def mle_elo(games: Sequence[Game], *, prior_draws: float = PRIOR_DRAWS, iterations: int = 10_000,
            tolerance: float = 1e-10, start: dict[str, float] | None = None) -> dict[str, float]:
    """Elo ratings maximizing the likelihood of every pairwise result; mean 1500.

    Solved with the minorization-maximization iteration for Bradley-Terry strengths
    (Hunter 2004), which converges monotonically; the strengths map to Elo as
    400 log10(strength). ``start`` (ratings near the answer) only saves iterations: the
    maximum is unique, so the result does not depend on it.
    """
    bots, outcomes, per_game = _outcomes(games)
    if not bots:
        return {}
    counts = [0] * len(outcomes)
    for outcome in per_game:
        counts[outcome] += 1
    begin = _strengths(bots, start)
    strength = _fit(len(bots), outcomes, counts, prior_draws, begin, iterations, tolerance)
    return _to_elo(bots, strength)


def mle_elo_of_pairs(pairs: Mapping[tuple[str, str], tuple[int, int, int]], bots: Sequence[str] = (), *,
                     prior_draws: float = PRIOR_DRAWS, iterations: int = 10_000, tolerance: float = 1e-10,
                     start: Mapping[str, float] | None = None) -> dict[str, float]:
    """``mle_elo`` from the wins, draws and losses of each ordered pair of bots (both orders, as
    ``head_to_head`` gives them), which are all the fit reads: so a count of them kept as games are
    stored (the ledger's read models) is refitted without reading a game. ``bots``: others to rate too
    (a bot whose every pair was against itself). Equal to ``mle_elo`` of the same games up to the
    order of floating-point sums."""
    named = sorted({*bots, *(bot for pair in pairs for bot in pair)})
    if not named:
        return {}
    index = {bot: i for i, bot in enumerate(named)}
    wins = [prior_draws * 0.5] * len(named)
    pair_games: dict[tuple[int, int], float] = {}
    for (a, b), (won, drawn, lost) in pairs.items():
        i, j = index[a], index[b]
        wins[i] += won + 0.5 * drawn
        if i < j:
            pair_games[(i, j)] = pair_games.get((i, j), 0.0) + won + drawn + lost
    strength = _solve(wins, pair_games, prior_draws, _strengths(named, start), iterations, tolerance)
    return _to_elo(named, strength)


def _strengths(bots: Sequence[str], start: Mapping[str, float] | None) -> list[float] | None:
    return [10.0 ** ((start.get(bot, MEAN) - MEAN) / SCALE) for bot in bots] if start else None


def _outcomes(games: Sequence[Game]) -> tuple[list[str], list[tuple[tuple[int, int, float], ...]], list[int]]:
    """The bots, each distinct game outcome as pairwise (i, j, score of i) with i < j, and each
    game's outcome number: identical outcomes are counted, not repeated (bootstraps resample counts)."""
    bots = sorted({bot for game in games for bot, _ in game})
    index = {bot: i for i, bot in enumerate(bots)}
    distinct: dict[tuple[tuple[int, int, float], ...], int] = {}
    per_game = []
    for game in games:
        pairs = []
        for a, b, score in pairwise(game):
            ia, ib = index[a], index[b]
            if ia == ib:
                continue
            pairs.append((ia, ib, score) if ia < ib else (ib, ia, 1.0 - score))
        per_game.append(distinct.setdefault(tuple(sorted(pairs)), len(distinct)))
    return bots, list(distinct), per_game


def _fit(n: int, outcomes: Sequence[tuple[tuple[int, int, float], ...]], counts: Sequence[int], prior_draws: float,
         start: list[float] | None, iterations: int, tolerance: float) -> list[float]:
    wins = [prior_draws * 0.5] * n
    pair_games: dict[tuple[int, int], float] = {}
    for outcome, count in zip(outcomes, counts, strict=True):
        if not count:
            continue
        for i, j, score in outcome:
            wins[i] += count * score
            wins[j] += count * (1.0 - score)
            pair_games[(i, j)] = pair_games.get((i, j), 0.0) + count
    return _solve(wins, pair_games, prior_draws, start, iterations, tolerance)


def _solve(wins: list[float], pair_games: dict[tuple[int, int], float], prior_draws: float,
           start: list[float] | None, iterations: int, tolerance: float) -> list[float]:
    """The MM iteration over each bot's points (``wins``, the prior's half draws included) and the number of
    pairwise results of each pair (i < j)."""
    n = len(wins)
    strength = list(start) if start else [1.0] * n
    phantom = 1.0
    for _ in range(iterations):
        denominators = [prior_draws / (s + phantom) for s in strength]
        for (i, j), count in pair_games.items():
            share = count / (strength[i] + strength[j])
            denominators[i] += share
            denominators[j] += share
        updated = [wins[i] / denominators[i] if denominators[i] > 0 else strength[i] for i in range(n)]
        geometric = math.exp(sum(math.log(s) for s in updated) / n)
        updated = [s / geometric for s in updated]
        change = max(abs(math.log(u / s)) for u, s in zip(updated, strength, strict=True))
        strength = updated
        if change < tolerance:
            break
    return strength


def _to_elo(bots: list[str], strength: list[float]) -> dict[str, float]:
    ratings = [SCALE * math.log10(s) for s in strength]
    shift = MEAN - sum(ratings) / len(bots)
    return {bot: rating + shift for bot, rating in zip(bots, ratings, strict=True)}


def bootstrap_ci(games: Sequence[Game], *, samples: int = BOOTSTRAP_SAMPLES, seed: int = BOOTSTRAP_SEED,
                 confidence: float = CONFIDENCE) -> dict[str, tuple[float, float]]:
    """Percentile confidence intervals of ``mle_elo`` by resampling games with a fixed seed.

    Each resample draws len(games) games with replacement and refits from the full
    sample's answer; games with identical outcomes are counted rather than repeated.
    """
    if not games:
        return {}
    bots, outcomes, per_game = _outcomes(games)
    rng = random.Random(seed)
    full = [0] * len(outcomes)
    for outcome in per_game:
        full[outcome] += 1
    center = _fit(len(bots), outcomes, full, PRIOR_DRAWS, None, 10_000, 1e-10)
    draws: dict[str, list[float]] = {bot: [] for bot in bots}
    size = len(per_game)
    for _ in range(samples):
        counts = [0] * len(outcomes)
        for outcome in rng.choices(per_game, k=size):
            counts[outcome] += 1
        fitted = _to_elo(bots, _fit(len(bots), outcomes, counts, PRIOR_DRAWS, center, 10_000, 1e-9))
        for bot, rating in fitted.items():
            draws[bot].append(rating)
    tail = (1.0 - confidence) / 2.0
    out = {}
    for bot, values in draws.items():
        values.sort()
        low = values[math.floor(tail * (len(values) - 1))]
        high = values[math.ceil((1.0 - tail) * (len(values) - 1))]
        out[bot] = (low, high)
    return out


Spread = tuple[int, int, int]
"""A bot's games, and the sum and the sum of squares of its points per game counted in halves (2 a win over
a seat, 1 a draw): what the curvature interval reads of how a bot's results vary from game to game."""


def curvature_ci(ratings: Mapping[str, float], pairs: Mapping[tuple[str, str], tuple[int, int, int]],
                 spread: Mapping[str, Spread], *, prior_draws: float = PRIOR_DRAWS,
                 confidence: float = CONFIDENCE) -> dict[str, tuple[float, float]]:
    """Confidence intervals of ``mle_elo`` from the curvature of its likelihood, with no resampling.

    The default of `tourney standings` (``bootstrap_ci`` is the `--interval bootstrap` option);
    docs/tournaments.md, "Standings", says how far the two may differ. On the natural scale
    (theta = rating / (400 / ln 10)), for each bot, with p the fitted expected score of each
    pairwise result:

    * H = sum of p (1 - p) over its pairwise results, plus the prior's virtual draws: the
      likelihood's curvature along its own rating;
    * J = sum of (s - p)^2 over its pairwise results (s: 1, 1/2 or 0), plus, for tables of more
      than two seats, the covariance of its results within a game (a bot dealt a good hand beats
      every other seat at once): the variance of its points per game less the variance of its
      pairwise scores, both about their means (``spread``), which the bootstrap over games
      captures too;
    * SE = sqrt(J) / H (the robust "sandwich" variance, clustered by game; J equals H when results are
      as the fit expects), times (n - 1) / n for the ratings' mean being held at 1500 (exact for
      a round robin: a bot's share of the mean moves with it);
    * the interval is the rating +- z SE, z = 1.96 for 95%.
    """
    if not ratings:
        return {}
    scale = SCALE / math.log(10)
    theta = {bot: (rating - MEAN) / scale for bot, rating in ratings.items()}
    curvature: dict[str, float] = {}
    residual: dict[str, float] = {}
    scores: dict[str, list[float]] = {}
    for bot, value in theta.items():
        p = 1.0 / (1.0 + math.exp(-value))  # against the prior's phantom at the mean
        curvature[bot] = prior_draws * p * (1.0 - p)
        residual[bot] = 0.0
        scores[bot] = [0.0, 0.0, 0.0]  # pairwise results, sum of scores, sum of squared scores
    for (a, b), (won, drawn, lost) in pairs.items():
        if a not in theta or b not in theta:
            continue
        p = 1.0 / (1.0 + math.exp(theta[b] - theta[a]))
        curvature[a] += (won + drawn + lost) * p * (1.0 - p)
        residual[a] += won * (1.0 - p) ** 2 + drawn * (0.5 - p) ** 2 + lost * p * p
        found = scores[a]
        found[0] += won + drawn + lost
        found[1] += won + 0.5 * drawn
        found[2] += won + 0.25 * drawn
    z = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0)
    centred = (len(ratings) - 1) / len(ratings) if len(ratings) > 1 else 1.0
    out = {}
    for bot, rating in ratings.items():
        variance = residual[bot]
        games, points2, points2_sq = spread.get(bot, (0, 0, 0))
        count, total, squares = scores[bot]
        if games and count:
            within = (points2_sq / 4.0 - (points2 / 2.0) ** 2 / games) - (squares - total * total / count)
            if variance + within > 0.0:
                variance += within
        half = z * scale * centred * math.sqrt(variance) / curvature[bot] if curvature[bot] > 0 else 0.0
        out[bot] = (rating - half, rating + half)
    return out


def spread_of(games: Sequence[Game]) -> dict[str, Spread]:
    """Each bot's ``Spread`` over ``games`` (what the ledger's read models keep per tournament bot)."""
    out: dict[str, list[int]] = {}
    for game in games:
        for seat, (bot, rank) in enumerate(game):
            points2 = sum(2 if rank < other else 1 if rank == other else 0
                          for position, (_, other) in enumerate(game) if position != seat)
            found = out.setdefault(bot, [0, 0, 0])
            found[0] += 1
            found[1] += points2
            found[2] += points2 * points2
    return {bot: (games_, total, squares) for bot, (games_, total, squares) in out.items()}


def head_to_head(games: Sequence[Game]) -> dict[tuple[str, str], tuple[int, int, int]]:
    """(wins, draws, losses) of a against b for every ordered pair that met."""
    table: dict[tuple[str, str], list[int]] = {}
    for game in games:
        for a, b, score in pairwise(game):
            if a == b:
                continue
            forward = table.setdefault((a, b), [0, 0, 0])
            backward = table.setdefault((b, a), [0, 0, 0])
            slot = 0 if score == 1.0 else 1 if score == 0.5 else 2
            forward[slot] += 1
            backward[2 - slot] += 1
    return {pair: (won, drawn, lost) for pair, (won, drawn, lost) in table.items()}


def los(wins: int, losses: int) -> float:
    """Likelihood of superiority: the chance the first is stronger, from wins and losses."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def los_matrix(games: Sequence[Game]) -> dict[str, dict[str, float | None]]:
    """LOS of every bot (row) over every other (column); None where they never met."""
    bots = sorted({bot for game in games for bot, _ in game})
    h2h = head_to_head(games)
    return {
        a: {b: (los(h2h[(a, b)][0], h2h[(a, b)][2]) if (a, b) in h2h else None) for b in bots if b != a}
        for a in bots
    }


def place_scores(ranks: Sequence[int]) -> list[float]:
    """S_i = (n - place) / (n(n-1)/2), tied seats sharing the average of their places' scores."""
    n = len(ranks)
    pairs = n * (n - 1) / 2
    order = sorted(range(n), key=lambda i: ranks[i])
    by_place = [(n - place) / pairs for place in range(1, n + 1)]
    out = [0.0] * n
    position = 0
    while position < n:
        tied = [i for i in order if ranks[i] == ranks[order[position]]]
        share = sum(by_place[position : position + len(tied)]) / len(tied)
        for i in tied:
            out[i] = share
        position += len(tied)
    return out


def multiplayer_update(ratings: Sequence[float], ranks: Sequence[int], k: float = K_FACTOR) -> list[float]:
    """New ratings after one game of n seats (ladders' incremental Elo, see the module docstring)."""
    n = len(ratings)
    if n != len(ranks) or n < 2:
        raise ValueError("need at least two seats, with one rank per rating")
    pairs = n * (n - 1) / 2
    scores = place_scores(ranks)
    out = []
    for i in range(n):
        e = sum(expected(ratings[i], ratings[j]) for j in range(n) if j != i) / pairs
        out.append(ratings[i] + k * (n - 1) * (scores[i] - e))
    return out


def summary(games: Sequence[Game]) -> dict[str, Mapping[str, float]]:
    """Games, first places, mean place and score % (pairwise, draws half) per bot."""
    stats: dict[str, dict[str, float]] = {}
    for game in games:
        for bot, rank in game:
            entry = stats.setdefault(bot, {"games": 0, "first": 0, "places": 0, "points": 0.0, "pairs": 0})
            entry["games"] += 1
            entry["first"] += rank == 1
            entry["places"] += rank
        for a, b, score in pairwise(game):
            stats[a]["points"] += score
            stats[b]["points"] += 1.0 - score
            stats[a]["pairs"] += 1
            stats[b]["pairs"] += 1
    return {
        bot: {
            "games": s["games"],
            "first": s["first"],
            "mean_place": s["places"] / s["games"],
            "score": 100.0 * s["points"] / s["pairs"] if s["pairs"] else 50.0,
        }
        for bot, s in stats.items()
    }
