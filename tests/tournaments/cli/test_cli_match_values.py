"""`tourney match`'s --sprt and --batch values: refused when parsed (one line, exit 2, nothing written) where the
test's maths has no answer or the option would change nothing; the side of an all-won match's bounds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli import invoke as tourney
from tournaments.cli import match

BOTS = Path(__file__).resolve().parents[3] / "bots"


def refused(tmp_path: Path, *args: str, game: str = "lemur-tails") -> str:
    """The one error line of `tourney match random_bot random_bot ARGS`, checked to exit 2 and write no ledger."""
    db = tmp_path / "m.db"
    result = tourney("match", "random_bot", "random_bot", "--bots", BOTS, "--game", game, "--seed", "1", "--jobs",
                     "0", "--sandbox", "off", "--db", db, *args)
    assert result.exit_code == 2, result.output
    assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in result.output and not db.exists()
    return result.stderr


@pytest.mark.parametrize(("values", "said"), [
    (["elo1=inf"], "elo1 must be a finite number, not 'inf'"),
    (["elo0=-inf"], "elo0 must be a finite number, not '-inf'"),
    (["elo1=1e308"], "elo1 (1e+308) must lie strictly between -231.62 and +231.62"),
    (["elo0=-1e308", "elo1=1e308"], "elo0 (-1e+308) must lie strictly between"),
    (["elo1=1000000"], "elo1 (1e+06) must lie strictly between -231.62 and +231.62 for the normalized test with 2 "
                       "games a sample"),
    (["model=logistic", "elo1=1200"], "elo1 (1200) must lie strictly between -1199.83 and +1199.83 for the logistic"),
])
def test_sprt_values_beyond_the_maths_are_refused_when_parsed(tmp_path, values, said):
    """Infinite or huge hypotheses (a traceback and a 0-game match before) are a bad option value."""
    assert said in refused(tmp_path, "--games", "1", "--sprt", *values)


def test_the_limit_follows_the_seats(tmp_path):
    """Four seats make a sample of 4 games: the normalised limit is 163.78 there, so elo1=170 is refused."""
    assert "163.78" in refused(tmp_path, "--games", "1", "--sprt", "elo1=170", game="tails-on-fire")


def test_batch_needs_an_sprt_and_at_most_the_match_s_deals(tmp_path):
    """--batch is the SPRT's step: without --sprt it is refused; above --games (or the 20,000 an SPRT plays at
    most) too, naming the cap."""
    assert "needs --sprt" in refused(tmp_path, "--batch", "5", "--games", "1")
    assert "at most the match's deals (--games 3), not 4" in refused(tmp_path, "--sprt", "default", "--games", "3",
                                                                      "--batch", "4")
    assert "20,000), not 99,999,999,999" in refused(tmp_path, "--sprt", "default", "--batch", "99999999999")


def test_an_sprt_error_during_the_match_is_one_line(tmp_path, monkeypatch):
    """A test the parse-time checks let through (here: with the check removed) fails at its first look as one line,
    exit 1, not a traceback."""
    monkeypatch.setattr(match, "check_hypotheses", lambda test, seats: None)
    result = tourney("match", "random_bot", "random_bot", "--bots", BOTS, "--game", "lemur-tails", "--seed", "1",
                     "--jobs", "0", "--sandbox", "off", "--db", tmp_path / "m.db", "--games", "1", "--batch", "1",
                     "--sprt", "elo1=1000000", "--progress", "none")
    assert result.exit_code == 1, result.output
    assert result.stderr.splitlines()[-1:] == ["error: the match's SPRT: the hypothesis lies outside the range of "
                                               "the tally's scores"]
    assert "Traceback" not in result.output


def test_every_pair_won_is_a_lower_bound_even_when_negative(tmp_path):
    """Heuristic against random, 3 pairs all won: `Elo: >= -153.52` (every pair won), side lower in --json; it
    printed `<= -153.52 ... every pair lost` for the winner."""
    args = ["match", "heuristic_lemur_tails", "random_bot", "--bots", BOTS, "--game", "lemur-tails", "--games", "3",
            "--seed", "1", "--jobs", "0", "--sandbox", "off", "--db", tmp_path / "m.db"]
    result = tourney(*args, "--progress", "none")
    assert result.exit_code == 0, result.output
    assert "Ptnml(0-2): [0, 0, 0, 0, 3]" in result.stdout
    assert "Elo: >= -153.52, nElo: >= -112.12 (every pair won: one-sided 95% bounds)" in result.stdout
    again = tourney(*args, "--resume", "--json")
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["estimate"]["bound"] == {"side": "lower", "elo": -153.52, "nelo": -112.12}
