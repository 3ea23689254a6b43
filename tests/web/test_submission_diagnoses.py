"""A refused submission's diagnosis in the shape every other diagnosis has (docs/web.md, "Your games from your
seat"): `/api/submissions/ID` gives its owner `validation_diagnosis` (seat, bot, kind, summary, detail and the
validation game it was left in) beside the `diagnosis` string, which stays as it was; nobody else gets either."""

from __future__ import annotations

import pytest

from tests.tournaments.test_diagnoses import CRASHY, HAS_SANDBOX, PROGRAM
from tests.web.league import LADDER, Api, League, tourney
from tests.web.test_api import upload

WORDY = '''"""Gives up at its first turn, in two lines."""
GAMES = "*"


class Bot:
    def __init__(self, game, seat, rng):
        pass

    def act(self, turn):
        raise ValueError("no card worth playing\\nthe fire stack is too high")
'''

pytestmark = [pytest.mark.sandbox, pytest.mark.slow,  # validation games play in the sandbox, whole games
              pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")]


@pytest.fixture
def refused(serve, league: League, tmp_path, monkeypatch) -> tuple[Api, dict[str, str]]:
    """alice's uploads, validated by `tourney ladder work`: a Python bot that raises at its third turn, one that
    raises a two-line message, and a program that writes on stderr and exits; the app and {bot: its URL}."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    api = serve(submissions=True)
    urls = {name: upload(api, league.tokens["alice"], text.encode(), filename).headers["location"]
            for name, filename, text in (("crashy2", "crashy2.py", CRASHY), ("wordy", "wordy.py", WORDY),
                                         ("bookish", "bookish", PROGRAM))}
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    return api, urls


def test_an_owner_reads_a_python_bots_refusal_as_a_diagnosis_of_its_validation_game(refused, league):
    """The crashing Python bot's diagnosis is a traceback summed up as its game's forfeit summed it up (its
    exception's line and where in its file), its detail the `diagnosis` string itself, its seat and game the last
    of its validation games (the one it forfeited)."""
    api, urls = refused
    mine = api.get(urls["crashy2"], token=league.tokens["alice"]).json()
    assert mine["status"] == "refused" and mine["diagnosis"].startswith("Traceback (most recent call last):\n")
    told, last = mine["validation_diagnosis"], mine["validation_games"][-1]
    assert told == {"seat": last["seat"], "bot": "crashy2", "kind": "traceback",
                    "summary": "KeyError: 'no such field' at crashy2.py line 6, in hand_of",
                    "detail": mine["diagnosis"], "game_id": last["game_id"]}


def test_a_many_line_exception_is_summed_up_by_its_first_line(refused, league):
    """A traceback's summary is its exception's first line (and how many more), not the last line of its message."""
    api, urls = refused
    mine = api.get(urls["wordy"], token=league.tokens["alice"]).json()
    assert mine["diagnosis"].rstrip().endswith("the fire stack is too high")
    told = mine["validation_diagnosis"]
    assert told["kind"] == "traceback" and told["summary"] == ("ValueError: no card worth playing (and 1 more "
                                                                 "line) at wordy.py line 10, in act")


def test_an_owner_reads_a_programs_refusal_by_its_last_stderr_line(refused, league):
    """The program's diagnosis is its stderr, summed up by its last line as a game's diagnosis is."""
    api, urls = refused
    mine = api.get(urls["bookish"], token=league.tokens["alice"]).json()
    assert mine["status"] == "refused" and mine["diagnosis"].endswith("fatal: book.bin not found")
    told = mine["validation_diagnosis"]
    assert told["kind"] == "stderr" and told["summary"] == "last on its stderr: fatal: book.bin not found"
    assert told["detail"] == mine["diagnosis"] and told["bot"] == "bookish"
    assert told["game_id"] == mine["validation_games"][-1]["game_id"]


def test_nobody_but_the_owner_reads_a_submissions_diagnosis_in_any_shape(refused, league):
    """Another owner's token gets 404 and no token 401, as for the submission itself; the owner's list of
    submissions carries neither shape (the submission's own answer does)."""
    api, urls = refused
    for url in urls.values():
        assert api.get(url, token=league.tokens["bob"]).status_code == 404
        assert api.get(url).status_code == 401
    listed = api.get("/api/me/submissions", token=league.tokens["alice"]).json()["items"]
    assert {row["name"] for row in listed} >= set(urls)
    assert all(row["diagnosis"] is None and row["validation_diagnosis"] is None for row in listed)
    theirs = api.get("/api/me/submissions", token=league.tokens["bob"]).json()["items"]
    assert not {row["name"] for row in theirs} & set(urls)
