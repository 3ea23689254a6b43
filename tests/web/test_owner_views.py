"""An owner's own view of their ladder games (issue 40 items 1 and 2): each seat their bot sat in as a view of
its own (the seat-redacted log, which verifies), and why their bot forfeited (its traceback), on the game's page
and in the API, for them alone: another owner and a visitor are offered neither, and asking answers 403."""

from __future__ import annotations

import contextlib
import sqlite3

import orjson
import pytest

from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays.verify import verify_log
from tests.tournaments.test_diagnoses import CRASHY, HAS_SANDBOX, folder_of
from tests.web.league import LADDER, Api, League, tourney
from tests.web.test_api import upload
from tests.web.test_owners import Browser
from tournaments.ladder import league as ladder_league

pytestmark = [pytest.mark.sandbox, pytest.mark.slow,  # ladders play in the sandbox, whole games
              pytest.mark.skipif(not HAS_SANDBOX, reason="ladders need a working sandbox")]


def owner_id(league: League, name: str) -> int:
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        return connection.execute("SELECT id FROM owners WHERE name = ?", (name,)).fetchone()[0]


@pytest.fixture
def crashed(league: League, tmp_path, monkeypatch) -> tuple[str, int]:
    """alice's bot `crashy` (it raises at its third turn) plays on the duel ladder: one game it forfeited, and
    the seat it sat in."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    ledger = Ledger(str(league.path))
    try:
        spec, entry_point, files = ladder_league.package(folder_of(tmp_path, **{"crashy.py": CRASHY}) / "crashy.py")
        ladder = ladder_rows.get(ledger, LADDER)
        ladder_rows.submit(ledger, ladder["id"], spec.name, spec.content_hash, spec.kind, entry_point, files,
                           owner_id=owner_id(league, "alice"))
    finally:
        ledger.close()
    tourney("ladder", "play", LADDER, "--games", "6", "--jobs", "0", "--seed", "5", "--db", league.path)
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        found = connection.execute(
            "SELECT s.game_id, s.seat FROM seats s JOIN bots b ON b.id = s.bot_id JOIN games g ON g.id = s.game_id "
            "WHERE b.name = 'crashy' AND g.end_reason = 'forfeit' ORDER BY g.store_seq").fetchall()
    assert found, "crashy forfeited no game"
    return found[0]


def test_an_owner_gets_their_seats_view_and_traceback_in_the_api_and_nobody_else(serve, league, crashed):
    game_id, seat = crashed
    api = serve()
    alice, bob = league.tokens["alice"], league.tokens["bob"]
    mine = api.get(f"/api/games/{game_id}", token=alice).json()
    assert f"seat:{seat}" in mine["views"]
    (told,) = mine["diagnoses"]
    assert told["seat"] == seat and told["bot"] == "crashy" and told["kind"] == "traceback"
    assert told["game_id"] == game_id
    assert told["summary"] == "KeyError: 'no such field' at crashy.py line 6, in hand_of"
    assert "Traceback (most recent call last):" in told["detail"]
    for token in (bob, None):
        theirs = api.get(f"/api/games/{game_id}", token=token).json()
        assert theirs["diagnoses"] == [] and not any(view.startswith("seat:") for view in theirs["views"])

    answer = api.get(f"/api/games/{game_id}/log", params={"view": f"seat:{seat}"}, token=alice)
    assert answer.status_code == 200
    assert "no-store" in answer.headers["cache-control"]
    log = orjson.loads(answer.content)
    assert log["view"] == f"seat:{seat}"
    assert verify_log(log, game_id).decisions > 0  # a seat-redacted log verifies as any other
    other = 1 - seat
    assert api.get(f"/api/games/{game_id}/log", params={"view": f"seat:{other}"}, token=alice).status_code == 403
    for token in (bob, None):
        refused = api.get(f"/api/games/{game_id}/log", params={"view": f"seat:{seat}"}, token=token)
        assert refused.status_code == 403
    assert api.get(f"/api/games/{game_id}/log", params={"view": "seat:x"}).status_code == 422


def test_an_owner_sees_their_seat_and_traceback_on_the_games_page_and_nobody_else(serve, league, crashed):
    game_id, seat = crashed
    app = serve(submissions=True).app
    alice = Browser(app)
    alice.sign_in(league.tokens["alice"])
    page = alice.request("GET", f"/games/{game_id}")
    assert page.status_code == 200
    assert f"?view=seat:{seat}" in page.text and "Why crashy forfeited" in page.text
    assert "KeyError: &#39;no such field&#39;" in page.text  # escaped, as every stored text
    assert "private" in page.headers["cache-control"]
    framed = alice.request("GET", f"/games/{game_id}/replay", params={"view": f"seat:{seat}"})
    assert framed.status_code == 200 and "no-store" in framed.headers["cache-control"]
    own = alice.request("GET", f"/games/{game_id}", params={"view": f"seat:{seat}"})
    assert own.status_code == 200 and f"<strong>seat:{seat} view</strong>" in own.text

    bob = Browser(app)
    bob.sign_in(league.tokens["bob"])
    for browser in (bob, Browser(app)):
        page = browser.request("GET", f"/games/{game_id}")
        assert page.status_code == 200 and "?view=seat:" not in page.text and "forfeited</h2>" not in page.text
        assert "Traceback" not in page.text
        assert browser.request("GET", f"/games/{game_id}", params={"view": f"seat:{seat}"}).status_code == 403
        assert browser.request("GET", f"/games/{game_id}/replay", params={"view": f"seat:{seat}"}).status_code == 403


def test_validation_games_are_kept_for_their_owner_alone_and_never_counted_as_ladder_games(serve, league, tmp_path,
                                                                                           monkeypatch):
    """A refused upload (it crashes in its validation game) keeps its validation games: their owner lists them in
    the API and on the submission's page, downloads each one's log from the bot's seat (it verifies) and replays it;
    bob and a visitor get 404; no game, list or standing of the ladder holds them."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    app = serve(submissions=True).app
    api = Api(app)
    alice, bob = league.tokens["alice"], league.tokens["bob"]
    location = upload(api, alice, CRASHY.encode(), "crashy2.py").headers["location"]
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    decided = api.get(location, token=alice).json()
    assert decided["status"] == "refused" and decided["diagnosis"].startswith("Traceback (most recent call last):")
    (kept,) = decided["validation_games"]  # two seats: its first game forfeited, so its only one
    assert kept["number"] == 1 and kept["seat"] in (0, 1)

    submission = decided["id"]
    answer = api.get(f"/api/submissions/{submission}/validation/1/log", token=alice)
    assert answer.status_code == 200 and "no-store" in answer.headers["cache-control"]
    log = orjson.loads(answer.content)
    assert log["view"] == f"seat:{kept['seat']}" and log["game_id"] == kept["game_id"]
    assert log["seats"][kept["seat"]]["bot"] == "crashy2"
    assert verify_log(log, kept["game_id"]).decisions > 0
    for token in (bob, None):
        assert api.get(f"/api/submissions/{submission}/validation/1/log", token=token).status_code in (401, 404)
    assert api.get(f"/api/submissions/{submission}/validation/2/log", token=alice).status_code == 404
    assert api.get(location, token=bob).status_code == 404

    browser = Browser(app)
    browser.sign_in(alice)
    page = browser.request("GET", f"/account/submissions/{submission}")
    assert f"/account/submissions/{submission}/validation/1" in page.text and "What your bot left behind" in page.text
    replay = browser.request("GET", f"/account/submissions/{submission}/validation/1")
    assert replay.status_code == 200 and "no-store" in replay.headers["cache-control"]
    assert "script-src" in replay.headers["content-security-policy"]
    other = Browser(app)
    other.sign_in(bob)
    assert other.request("GET", f"/account/submissions/{submission}/validation/1").status_code == 404

    # Never a ladder game: not stored as a game, not listed, not in a bot's record.
    listed = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 200}).json()["items"]
    assert kept["game_id"] not in {game["game_id"] for game in listed}
    assert api.get(f"/api/games/{kept['game_id']}").status_code == 404
    assert "crashy2" not in {row["bot"] for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
