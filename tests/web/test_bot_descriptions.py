"""A description, a language and a last-submission date per bot (issue 41: what a Kaggle or CodinGame player
misses): the author's line given with an upload or `ladder submit --description`, what the bot is written in (told
by tourney when it is listed), when the version was submitted; on the leaderboard's API, page and CSV, and the bot's
page and API."""

from __future__ import annotations

import csv
import io

import pytest

from tests.cli import invoke
from tests.web.league import LADDER, ROOT, tourney
from tests.web.test_api import RANDOM_BOT, upload

LINE = "plays a random legal <move> & hopes"


@pytest.mark.slow
def test_an_uploads_description_and_language_are_listed_with_it(api, league):
    """An upload's description is its submission's; once `ladder work` lists it, its leaderboard row (API, CSV,
    page) and its bot page carry the description (escaped), the language told from its file (Python) and when it
    was submitted."""
    response = upload(api, league.tokens["alice"], RANDOM_BOT, bot="described", description=LINE)
    assert response.status_code == 202 and response.json()["description"] == LINE
    assert api.get(response.headers["location"], token=league.tokens["alice"]).json()["description"] == LINE
    tourney("ladder", "work", LADDER, "--rounds", "1", "--games", "1", "--jobs", "0", "--db", league.path)
    board = {row["bot"]: row for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
    row = board["described"]
    assert (row["language"], row["description"]) == ("Python", LINE) and row["submitted_at"] > "2026"
    assert {row["description"] for name, row in board.items() if name != "described"} == {None}
    exported = {line["bot"]: line for line in csv.DictReader(io.StringIO(
        api.get(f"/api/ladders/{LADDER}/leaderboard.csv").text))}
    assert (exported["described"]["language"], exported["described"]["description"]) == ("Python", LINE)
    page = api.get(f"/ladders/{LADDER}").text
    assert 'title="plays a random legal &lt;move&gt; &amp; hopes">v1</span>' in page
    assert '<small class="mark" title="what it is written in">Python</small>' in page
    entry = api.get("/api/bots/described").json()["entries"][0]
    assert (entry["language"], entry["description"]) == ("Python", LINE)
    assert '<small class="description">plays a random legal &lt;move&gt; &amp; hopes</small>' in \
        api.get("/bots/described").text


def test_a_description_over_200_characters_is_refused(serve, league):
    """An upload with a description of 201 characters is a 422 saying so; nothing is queued."""
    api = serve(submissions=True)
    response = upload(api, league.tokens["alice"], RANDOM_BOT, bot="wordy", description="x" * 201)
    assert response.status_code == 422 and "200" in response.text
    assert api.get(f"/api/ladders/{LADDER}").json()["waiting"] == 0


@pytest.mark.slow
def test_ladder_submit_takes_a_description_and_tells_the_language(api, league):
    """`ladder submit --description` lists the program with it and its language (a #!/bin/sh program: shell); a
    description over 200 characters is one line and exit 2 (a bad option value), and lists nothing."""
    tourney("ladder", "submit", LADDER, str(ROOT / "bots" / "first_legal.sh"), "--as", "shelly", "--description",
            "first legal move, in sh", "--db", league.path)
    refused = invoke("ladder", "submit", LADDER, str(ROOT / "bots" / "first_legal.sh"), "--as", "shelly-2",
                     "--description", "y" * 201, "--db", str(league.path))
    assert refused.exit_code == 2 and refused.output.strip().splitlines() == [
        "error: Invalid value: --description is at most 200 characters, not 201 (see `tourney ladder submit --help`)"]
    board = {row["bot"]: row for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]}
    assert (board["shelly"]["language"], board["shelly"]["description"]) == ("shell", "first legal move, in sh")
    assert "shelly-2" not in board
