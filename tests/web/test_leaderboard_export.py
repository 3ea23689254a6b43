"""The leaderboard people come back to (issue 41 item 2, in part): a CSV export beside the JSON, and the signed-in
owner's own bots marked on it with a jump to each ("my rank"); nobody else's page marks them."""

from __future__ import annotations

import contextlib
import csv
import io
import sqlite3

from tests.web.league import LADDER, Api, League
from tests.web.test_owners import Browser
from web.routes.ladders import EXPORTED


def test_the_leaderboard_exports_as_csv_with_the_apis_rows(api):
    rows = api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]
    answer = api.get(f"/api/ladders/{LADDER}/leaderboard.csv")
    assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/csv")
    assert f'filename="{LADDER}-leaderboard.csv"' in answer.headers["content-disposition"]
    read = list(csv.reader(io.StringIO(answer.text)))
    assert read[0] == list(EXPORTED)
    assert read[1:] == [["" if row[key] is None else str(row[key]) for key in EXPORTED] for row in rows]
    assert api.get("/api/ladders/nope/leaderboard.csv").status_code == 404
    page = api.get(f"/ladders/{LADDER}").text
    assert f'href="/api/ladders/{LADDER}/leaderboard.csv"' in page


def claim(league: League, owner: str, bot: str) -> None:
    """Make ``bot`` (a leaderboard bot of the seeded league) ``owner``'s, as a listed upload of theirs would."""
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        owner_id = connection.execute("SELECT id FROM owners WHERE name = ?", (owner,)).fetchone()[0]
        connection.execute("INSERT INTO bot_owners (name, name_form, owner_id, claimed_at) VALUES (?, ?, ?, ?)",
                           (bot, bot, owner_id, "2026-12-02T00:00:00+00:00"))
        connection.commit()


def test_the_signed_in_owner_sees_their_bots_marked_with_a_jump_to_each(serve, league):
    claim(league, "alice", "random_bot")
    app = serve(submissions=True).app
    board = {row["bot"]: row for row in Api(app).get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
    rank = board["random_bot"]["rank"]
    alice = Browser(app)
    alice.sign_in(league.tokens["alice"])
    for path in (f"/ladders/{LADDER}", f"/ladders/{LADDER}/leaderboard"):
        mine = alice.request("GET", path).text
        assert f'<a href="#rank-{rank}">#{rank} random_bot</a>' in mine
        assert mine.count(" mine\"") == 1 and f'<tr id="rank-{rank}" class="' in mine
    bob = Browser(app)
    bob.sign_in(league.tokens["bob"])
    for browser in (bob, Browser(app)):
        theirs = browser.request("GET", f"/ladders/{LADDER}").text
        assert "Your bots:" not in theirs and " mine\"" not in theirs



def test_each_row_gives_wins_draws_losses_and_a_score_that_sorts(api):
    """W-D-L counts the bot's rated games (first alone, first shared, not first); its score is the percent of the
    points it could have had against each other seat, at two seats (2 W + D) / 2 G; the score column sorts, high
    first, and the page shows both beside the rating."""
    rows = api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]
    played = [row for row in rows if row["games"]]
    assert played and all(row["wins"] + row["draws"] + row["losses"] == row["games"] for row in rows)
    for row in played:
        assert row["score"] == round(100 * (2 * row["wins"] + row["draws"]) / (2 * row["games"]), 1)
    assert all(row["score"] is None for row in rows if not row["games"])
    by_score = api.get(f"/api/ladders/{LADDER}", params={"sort": "score", "order": "desc"}).json()["leaderboard"]
    scored = [row["score"] for row in by_score if row["score"] is not None]
    assert scored == sorted(scored, reverse=True)
    assert [row["score"] for row in by_score[len(scored):]] == [None] * (len(rows) - len(scored))  # unplayed last
    page = api.get(f"/ladders/{LADDER}").text
    best = max(played, key=lambda row: row["score"])
    assert f'{best["score"]:.0f}% <small title="wins-draws-losses">{best["wins"]}-{best["draws"]}-{best["losses"]}' \
        in page
