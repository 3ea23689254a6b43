"""The SPRT and Elo estimates of tournaments/ratings/sprt.py, pinned to published vectors.

Pentanomial vectors are OpenBench/fishtest's (counts worst pair first: 0, 1/2, 1, 3/2, 2 points);
trinomial and pentanomial vectors with two decimals are from fastchess's own tests
(app/tests/sprt_test.cpp and elo_test.cpp), whose Stats take (wins, losses, draws) and
(LL, LD, WL, DD, WD, WW).
"""

from __future__ import annotations

import math
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.properties import examples
from tournaments.ratings import sprt
from tournaments.ratings.sprt import H0, H1, Sprt, SprtError, estimate, llr, pentanomial, trinomial

COUNTS = examples(60)  # outcome counts: cheap arithmetic


def test_the_defaults_are_pinned():
    """Default hypotheses are elo0 = 0, elo1 = 5, alpha = beta = 0.05 (normalised Elo), bounds +-ln 19."""
    test = Sprt()
    assert (test.elo0, test.elo1, test.alpha, test.beta, test.model) == (0.0, 5.0, 0.05, 0.05, "normalized")
    lower, upper = test.bounds
    assert lower == pytest.approx(-2.944438979, abs=1e-9) and upper == pytest.approx(2.944438979, abs=1e-9)


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected_llr", "expected_elo"), [
    ([119, 945, 2292, 1024, 121], -5, 0, 3.0255, (-0.89, 3.20, 7.30)),
    ([119, 1754, 3690, 1898, 134], 0, 5, 2.9463, (0.92, 3.98, 7.04)),
])
def test_openbench_pentanomial_vectors(counts, elo0, elo1, expected_llr, expected_elo):
    """OpenBench/fishtest's normalised-Elo pentanomial SPRT gives the published LLR and logistic Elo interval."""
    assert llr(pentanomial(counts), elo0, elo1, 2) == pytest.approx(expected_llr, abs=5e-5)
    low, mid, high = estimate(pentanomial(counts), 2).elo
    assert (round(low, 2), round(mid, 2), round(high, 2)) == expected_elo


@pytest.mark.parametrize(("wins", "losses", "draws", "elo0", "elo1", "model", "expected"), [
    (36433, 36027, 68692, 0, 2, "normalized", 0.92),
    (10871, 10650, 20431, -1.75, 0.25, "normalized", 2.30),
    (21404, 21184, 40708, 0.5, 2.5, "logistic", -1.57),
    (57433, 57030, 106593, 0, 2, "logistic", -2.59),
])
def test_fastchess_trinomial_llr(wins, losses, draws, elo0, elo1, model, expected):
    """fastchess's trinomial LLR (normalised and logistic) for W/D/L counts, to its 1% tolerance."""
    assert llr(trinomial(wins, draws, losses), elo0, elo1, 1, model) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize(("penta", "elo0", "elo1", "model", "expected"), [
    ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
    ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
    ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
    ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
])
def test_fastchess_pentanomial_llr(penta, elo0, elo1, model, expected):
    """fastchess's pentanomial LLR, its WL and DD pairs both worth one point of two."""
    ll, ld, wl, dd, wd, ww = penta
    assert llr(pentanomial([ll, ld, wl + dd, wd, ww]), elo0, elo1, 2, model) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize(("wins", "losses", "draws", "nelo", "nelo_error", "los"), [
    (76, 89, 123, -20.76, 40.13, 0.1553),
    (136, 96, 111, 49.77, 36.77, 0.9960),
])
def test_fastchess_trinomial_elo_and_los(wins, losses, draws, nelo, nelo_error, los):
    """fastchess's EloWDL: normalised Elo and its 95% error, and LOS, from W/D/L counts."""
    found = estimate(trinomial(wins, draws, losses), 1)
    assert found.nelo[1] == pytest.approx(nelo, rel=0.01)
    assert (found.nelo[2] - found.nelo[0]) / 2 == pytest.approx(nelo_error, rel=0.01)
    assert round(found.los, 4) == los


def test_fastchess_trinomial_logistic_elo():
    """fastchess's EloWDL 2: logistic Elo 40.70 +- 30.43 (half the width of the 95% interval)."""
    found = estimate(trinomial(136, 111, 96), 1)
    assert found.elo[1] == pytest.approx(40.70, rel=0.01)
    assert (found.elo[2] - found.elo[0]) / 2 == pytest.approx(30.43, rel=0.01)


@pytest.mark.parametrize(("penta", "nelo", "nelo_error", "elo", "elo_error", "los"), [
    ((34, 54, 31, 32, 64, 75), 57.94, 28.28, 55.58, 27.65, 1.0000),
    ((332, 433, 457, 41, 333, 334), -9.17, 10.96, -8.64, 10.33, 0.0505),
])
def test_fastchess_pentanomial_elo_and_los(penta, nelo, nelo_error, elo, elo_error, los):
    """fastchess's EloPentanomial: normalised and logistic Elo with their 95% errors, and LOS, per pair."""
    ll, ld, wl, dd, wd, ww = penta
    found = estimate(pentanomial([ll, ld, wl + dd, wd, ww]), 2)
    assert found.nelo[1] == pytest.approx(nelo, rel=0.01)
    assert (found.nelo[2] - found.nelo[0]) / 2 == pytest.approx(nelo_error, rel=0.01)
    assert found.elo[1] == pytest.approx(elo, rel=0.01)
    assert (found.elo[2] - found.elo[0]) / 2 == pytest.approx(elo_error, rel=0.01)
    assert round(found.los, 4) == los


def test_decisions_at_the_bounds():
    """LLR at or above the upper bound accepts H1, at or below the lower bound H0, between them plays on."""
    test = Sprt(0, 5, 0.05, 0.1)
    lower, upper = test.bounds
    assert lower == pytest.approx(math.log(0.1 / 0.95)) and upper == pytest.approx(math.log(0.9 / 0.05))
    assert test.decide(upper) == H1 and test.decide(lower) == H0
    assert test.decide((lower + upper) / 2) is None


@pytest.mark.parametrize(("arguments", "message"), [
    ({"elo0": 5, "elo1": 5}, "elo0 (5) must be less than elo1 (5)"),
    ({"alpha": 0}, "alpha must be between 0 and 1, not 0"),
    ({"beta": 1.5}, "beta must be between 0 and 1"),
    ({"alpha": 0.6, "beta": 0.5}, "alpha + beta must be less than 1"),
    ({"model": "bayesian"}, "normalized or logistic, not 'bayesian'"),
])
def test_bad_parameters_are_refused(arguments, message):
    """Hypotheses that make no test are refused with a sentence saying why."""
    with pytest.raises(SprtError, match=re.escape(message)):
        Sprt(**arguments)


def test_bad_tallies_are_refused():
    """A tally with scores off [0, 1], negative counts, or no score on one side of 1/2 is refused."""
    with pytest.raises(SprtError, match="lie in"):
        llr([(0.0, 1), (1.5, 1)], 0, 5, 1)
    with pytest.raises(SprtError, match="negative"):
        llr([(0.0, -1), (1.0, 1)], 0, 5, 1)
    with pytest.raises(SprtError, match="below and some above"):
        llr([(0.5, 3), (1.0, 1)], 0, 5, 1)
    with pytest.raises(SprtError, match="5 counts"):
        pentanomial([1, 2, 3])


def test_a_sample_of_identical_outcomes_has_infinite_normalised_elo():
    """Only won pairs: LOS 1, normalised Elo infinite, logistic Elo held at that of a 99.9% score."""
    found = estimate(pentanomial([0, 0, 0, 0, 40]), 2)
    assert found.los == 1.0 and found.nelo[1] == math.inf
    assert found.elo[1] == pytest.approx(sprt.logistic_elo(0.999))
    assert found.to_json()["nelo"] == [None, None, None]


@COUNTS
@given(counts=st.lists(st.integers(0, 400), min_size=5, max_size=5).filter(lambda c: sum(c) > 0),
       t=st.floats(-0.2, 0.2))
def test_the_normalised_mle_has_the_hypothesis_t_value(counts, t):
    """The maximum-likelihood distribution under a hypothesis is a distribution whose t-value is the hypothesis'."""
    tally = pentanomial(counts)
    total = sum(max(c, sprt.UNSEEN) for c in counts)
    observed = [max(c, sprt.UNSEEN) / total for c in counts]
    scores = [a for a, _ in tally]
    p = sprt._mle_normalized(scores, observed, t)
    assert sum(p) == pytest.approx(1.0, abs=1e-9) and min(p) > 0
    mu = sum(a * q for a, q in zip(scores, p, strict=True))
    sigma = math.sqrt(sum(q * (a - mu) ** 2 for a, q in zip(scores, p, strict=True)))
    assert (mu - 0.5) / sigma == pytest.approx(t, abs=1e-7)


@COUNTS
@given(counts=st.lists(st.integers(0, 400), min_size=3, max_size=3).filter(lambda c: sum(c) > 0),
       elo=st.floats(-300, 300))
def test_the_logistic_mle_has_the_hypothesis_score(counts, elo):
    """The maximum-likelihood distribution under a logistic hypothesis has the hypothesis' expected score."""
    total = sum(max(c, sprt.UNSEEN) for c in counts)
    observed = [max(c, sprt.UNSEEN) / total for c in counts]
    p = sprt._mle_mean([0.0, 0.5, 1.0], observed, sprt.logistic_score(elo))
    assert sum(p) == pytest.approx(1.0, abs=1e-9)
    assert 0.5 * p[1] + p[2] == pytest.approx(sprt.logistic_score(elo), abs=1e-9)


def test_mirrored_results_mirror_the_llr():
    """Swapping the two bots mirrors the tally: the LLR of [elo0, elo1] becomes that of [-elo1, -elo0]."""
    counts = [30, 120, 260, 140, 25]
    forward = llr(pentanomial(counts), 0, 5, 2)
    backward = llr(pentanomial(counts[::-1]), -5, 0, 2)
    assert forward == pytest.approx(-backward, abs=1e-9)
