"""The page defects of issue 41 (deliverable 1), each through the API and the page: one meaning of "rating"
(OpenSkill's mu - 3 sigma) everywhere; "older" under a page's latest games pages on; bots named with "/"
answer; curl examples never carry the Host header; a tournament says whether it is finished, running or
interrupted; retiring asks first; a name only claimed (pending, refused) is its owner's alone."""

from __future__ import annotations

import html
import re
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing

import pytest

from ledger import read_pages
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tests.web.league import LADDER, ROOT, TOURNAMENT, TRIO, tourney
from tests.web.test_api import CHATTY_BOT, upload
from tests.web.test_owners import RAISES, Browser
from tournaments.ratings import openskill
from web.routes import tournaments as tournament_routes
from web.settings import Settings, SettingsError

SLASHED_BOT = "team/bot"


def games_listed(page: str) -> list[str]:
    """The game ids a page's games table links, in order."""
    return re.findall(r'<a class="game" href="/games/([0-9a-f]+)"', page)


def work(league, ladder: str) -> None:
    """`tourney ladder work` once: every waiting submission validated, listed or refused."""
    subprocess.run([sys.executable, "-m", "tournaments", "ladder", "work", ladder, "--rounds", "1", "--games", "3",
                    "--jobs", "0", "--seed", "3", "--db", str(league.path)], check=True, capture_output=True)


def alices_bots(api, league) -> None:
    """alice's chatty listed on the OpenSkill ladder, her clumsy refused there, her later still pending."""
    alice = league.tokens["alice"]
    assert upload(api, alice, CHATTY_BOT, ladder=TRIO, bot="chatty").status_code == 202
    assert upload(api, alice, RAISES, filename="clumsy.py", ladder=TRIO, bot="clumsy").status_code == 202
    work(league, TRIO)
    assert upload(api, alice, CHATTY_BOT + b"# later\n", ladder=TRIO, bot="later").status_code == 202
    statuses = {row["name"]: row["status"]
                for row in api.get("/api/me/submissions", token=alice).json()["items"]}
    assert statuses == {"chatty": "listed", "clumsy": "refused", "later": "pending"}, statuses


# -- 1. one meaning of "rating" -------------------------------------------------------------------------------


def test_a_bots_rating_is_the_leaderboards_everywhere(serve):
    """On an OpenSkill ladder, /api/bots/NAME, its history and its page give the leaderboard's rating (mu - 3 sigma),
    with mu and sigma under their own names; the page never shows mu as the rating."""
    api = serve()
    board = api.get(f"/api/ladders/{TRIO}").json()["leaderboard"]
    assert board
    for row in board:
        entry = next(e for e in api.get(f"/api/bots/{row['bot']}").json()["entries"]
                     if e["ladder"] == TRIO and e["version"] == row["version"])
        assert entry["rating"] == row["rating"] and (entry["mu"], entry["sigma"]) == (row["mu"], row["sigma"])
        assert entry["rating"] == pytest.approx(openskill.Skill(entry["mu"], entry["sigma"]).ordinal, abs=0.06)
        assert abs(entry["mu"] - entry["rating"]) > 1  # the two meanings are told apart
        history = api.get(f"/api/ladders/{TRIO}/bots/{row['bot']}/history").json()
        assert history[-1]["rating"] == pytest.approx(row["rating"], abs=0.1)
        assert history[-1]["mu"] == pytest.approx(row["mu"], abs=0.01)
        page = html.unescape(api.get(f"/bots/{row['bot']}").text)
        cell = re.search(rf'<td><a href="/ladders/{TRIO}">{TRIO}</a></td>.*?</tr>', page, re.S).group(0)
        assert f'<td class="num">{row["rating"]:.0f} <small class="skill">μ {row["mu"]:.1f}, σ {row["sigma"]:.1f}' \
               in cell, cell
    elo = next(e for e in api.get("/api/bots/random_bot").json()["entries"] if e["ladder"] == LADDER)
    assert elo["mu"] is None and elo["sigma"] is None


def test_the_account_page_shows_the_leaderboards_rating(api, league):
    """alice's account page shows her OpenSkill bot's rating as the leaderboard does (mu - 3 sigma), mu apart."""
    alices_bots(api, league)
    row = next(r for r in api.get(f"/api/ladders/{TRIO}").json()["leaderboard"] if r["bot"] == "chatty")
    browser = Browser(api.app)
    browser.sign_in(league.tokens["alice"])
    page = html.unescape(browser.request("GET", "/account").text)
    line = re.search(r'<tr><td><a class="bot" href="/bots/chatty">chatty</a></td>.*?</tr>', page, re.S).group(0)
    assert f'<td class="num">{row["rating"]:.0f} <small class="skill">μ {row["mu"]:.1f}' in line, line


# -- 2. "older" pages on --------------------------------------------------------------------------------------


@pytest.mark.parametrize("scope", ["ladder", "tournament"])
def test_older_under_latest_games_shows_the_next_older_games(serve, league, scope):
    """The ladder's and the tournament's "older" link leads to a page whose games are the next ten older ones (the
    API's second page), none of the first page's."""
    if scope == "ladder":
        tourney("ladder", "play", LADDER, "--games", "8", "--jobs", "0", "--seed", "9", "--db", league.path)
    api = serve()
    path = f"/ladders/{LADDER}" if scope == "ladder" else f"/tournaments/{TOURNAMENT}"
    games_api = (f"/api/ladders/{LADDER}/games" if scope == "ladder"
                 else f"/api/tournaments/{TOURNAMENT}/games")
    first = api.get(path).text
    assert api.get(games_api).json()["total"] > 10
    older = html.unescape(re.search(r'<a rel="next" href="([^"]+)">older', first).group(1))
    assert older == "?offset=10#latest"
    second = api.get(path + older.split("#")[0]).text
    expected = [game["game_id"] for game in api.get(games_api, params={"offset": 10, "limit": 10}).json()["items"]]
    shown = games_listed(second)
    assert shown and expected == shown
    assert not set(shown) & set(games_listed(first))
    assert '<a rel="prev" href="?offset=0#latest">' in html.unescape(second)


# -- 4. names holding "/" -------------------------------------------------------------------------------------


def test_a_bot_named_with_a_slash_has_its_page_and_api_records(serve, league):
    """A bot listed by the operator as team/bot answers at /bots/team%2Fbot and /api/bots/team%2Fbot (and its games,
    results and history), as links on the leaderboard name it."""
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", SLASHED_BOT, "--db", league.path)
    tourney("ladder", "play", LADDER, "--games", "4", "--jobs", "0", "--seed", "4", "--db", league.path)
    api = serve()
    assert 'href="/bots/team%2Fbot"' in api.get(f"/ladders/{LADDER}").text
    record = api.get("/api/bots/team%2Fbot")
    assert record.status_code == 200 and record.json()["name"] == SLASHED_BOT
    assert [entry["ladder"] for entry in record.json()["entries"]] == [LADDER]
    games = api.get("/api/bots/team%2Fbot/games").json()
    assert games["total"] > 0 and all(SLASHED_BOT in [seat["bot"] for seat in game["seats"]]
                                      for game in games["items"])
    assert api.get("/api/bots/team%2Fbot/results").json()["by_seat"]
    assert api.get(f"/api/ladders/{LADDER}/bots/team%2Fbot/history").json()
    page = api.get("/bots/team%2Fbot")
    assert page.status_code == 200 and "<h1>team/bot" in page.text
    assert api.get("/bots/team%2Fnobody").status_code == 404


def test_a_bot_named_like_a_sub_resource_is_that_bot(serve, league):
    """A bot named team/games is /api/bots/team%2Fgames itself (the "/" sent encoded), not the games of a bot team;
    its own games are /api/bots/team%2Fgames/games."""
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", "team/games", "--db", league.path)
    api = serve()
    record = api.get("/api/bots/team%2Fgames")
    assert record.status_code == 200 and record.json()["name"] == "team/games", record.text
    assert api.get("/api/bots/team%2Fgames/games").json()["total"] == 0
    assert api.get("/api/bots/team%2Fresults").status_code == 404  # no bot team/results: not the record of "team"
    assert api.get("/api/bots/random_bot/games").json()["total"] > 0


# -- 5. the Host header ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("public", [None, "https://league.example"])
def test_curl_examples_never_carry_the_host_header(serve, public):
    """With a hostile Host header, the bot page's and the ladder page's curl examples name the configured public
    address, or $SERVER without one: never the Host sent."""
    api = serve(submissions=True, public_url=public)
    start = public or "$SERVER"
    for path, example in (("/bots/random_bot", f'"{start}/api/bots/random_bot/logs"'),
                          (f"/ladders/{LADDER}", f'"{start}/api/ladders/{LADDER}/submissions"')):
        page = api.get(path, headers={"Host": "evil.example"})
        assert page.status_code == 200 and "evil.example" not in page.text, path
        assert example in html.unescape(page.text), path


def test_the_public_address_setting_is_checked():
    """TOURNEY_PUBLIC_URL is an http(s) address (its trailing "/" dropped); anything else is refused, named."""
    assert Settings.from_env({"TOURNEY_PUBLIC_URL": "https://league.example/"}).public_url == "https://league.example"
    assert Settings.from_env({}).public_url is None
    for bad in ("league.example", "javascript:alert(1)", 'https://a.example/"><script>', "https://x.example/?q=1"):
        with pytest.raises(SettingsError, match="TOURNEY_PUBLIC_URL"):
            Settings.from_env({"TOURNEY_PUBLIC_URL": bad})


# -- 6. a tournament's state ----------------------------------------------------------------------------------


def interrupted_run(league, tmp_path) -> str:
    """A `tourney run` killed (SIGKILL, a real process) once it has stored a game; the tournament's name."""
    bots = tmp_path / "pair"
    bots.mkdir()
    for name in ("random_bot.py", "heuristic_tails_on_fire.py"):
        (bots / name).write_bytes((ROOT / "bots" / name).read_bytes())
    name = "cut-short"
    process = subprocess.Popen([sys.executable, "-m", "tournaments", "run", str(bots), "--game", "tails-on-fire",
                                "--players", "2", "--games", "200", "--jobs", "0", "--seed", "5", "--name", name,
                                "--db", str(league.path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and process.poll() is None:
            with closing(sqlite3.connect(league.path)) as connection:
                stored = connection.execute("SELECT COUNT(*) FROM games g JOIN tournaments t ON t.id = g.tournament_id "
                                            "WHERE t.name = ?", (name,)).fetchone()[0]
            if stored:
                break
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert stored, "the run stored no game before its deadline"
    return name


def test_an_interrupted_tournament_does_not_look_finished(serve, league, tmp_path, monkeypatch):
    """A finished tournament says so with all its games; one whose run was killed says running while its last game
    is recent, then interrupted, with the games stored of those scheduled, on its page, the home page's list and in
    the API."""
    api = serve()
    done = api.get(f"/api/tournaments/{TOURNAMENT}").json()
    assert done["progress"] == {**done["progress"], "state": "finished", "stored": done["games"],
                                "scheduled": done["games"]}
    assert '<span class="state state-finished">finished</span>' in api.get(f"/tournaments/{TOURNAMENT}").text

    name = interrupted_run(league, tmp_path)
    api = serve()
    found = api.get(f"/api/tournaments/{name}").json()
    progress = found["progress"]
    assert progress["state"] == "running" and 0 < progress["stored"] == found["games"] < progress["scheduled"]
    assert progress["scheduled"] == 200 * 2  # 200 deals, each from both seats
    monkeypatch.setattr(tournament_routes, "STALLED_AFTER", tournament_routes.STALLED_AFTER * 0)
    progress = api.get(f"/api/tournaments/{name}").json()["progress"]
    assert progress["state"] == "interrupted"
    page = html.unescape(api.get(f"/tournaments/{found['id']}").text)
    assert '<span class="state state-interrupted">interrupted</span>' in page
    assert f"{progress['stored']} of 400 games stored, none since" in page and "--resume" in page
    listed = next(t for t in api.get("/api/tournaments").json()["items"] if t["name"] == name)
    assert listed["progress"] == progress
    home = api.get("/").text
    row = re.search(rf'<tr><td><a href="/tournaments/{found["id"]}">{name}</a>.*?</tr>', home, re.S).group(0)
    assert '<span class="state state-interrupted">interrupted</span>' in row and "<small>of 400</small>" in row


def test_an_sprt_match_is_finished_once_the_walk_of_its_results_reaches_its_end(serve, league):
    """A match whose length its SPRT decides is finished when the walk of its stored results (a page at a time)
    reaches the end of its plan, in the API; the same walk with one of its games not found is not at the end."""
    tourney("match", "random_bot", "first_legal", "--bots", str(ROOT / "bots"), "--game", "lemur-tails", "--sprt",
            "elo0=-50", "elo1=50", "--batch", "2", "--games", "6", "--seed", "3", "--sandbox", "off", "--jobs", "0",
            "--name", "sprt-cup", "--db", str(league.path))
    found = serve().get("/api/tournaments/sprt-cup").json()
    assert found["progress"] == {**found["progress"], "state": "finished", "stored": found["games"]}
    assert found["games"] > 0 and found["progress"]["scheduled"] is None
    ledger = Ledger(str(league.path), read_only=True)
    try:
        row = tournament_rows.get(ledger, "sprt-cup")

        def stored(keys):
            with ledger.read() as connection:
                return read_pages.tournament_results_of(connection, row["id"], keys)

        missing = max(stored([f"t0-d{deal}-r{r}" for deal in range(6) for r in range(2)]))

        def all_but_one(keys):
            return {key: seats for key, seats in stored(keys).items() if key != missing}

        assert tournament_routes._planned(row, found["games"], stored) == (None, True)
        assert tournament_routes._planned(row, found["games"], all_but_one) == (None, False)
    finally:
        ledger.close()


# -- 7. retiring asks first -----------------------------------------------------------------------------------


def status_on(api, ladder: str, bot: str) -> str:
    return next(e["status"] for e in api.get(f"/api/bots/{bot}").json()["entries"] if e["ladder"] == ladder)


def test_retiring_asks_for_a_confirmation_that_keeps_its_csrf_token(api, league):
    """The account page's retire button only asks (a GET form); a POST without the confirmation's "yes" is that
    confirmation page and retires nothing; the confirmation's form carries the CSRF token, without which it is a
    403; with both, the bot is retired. bob can neither see the confirmation of alice's bot nor retire it."""
    alices_bots(api, league)
    alice = Browser(api.app)
    alice.sign_in(league.tokens["alice"])
    account = alice.request("GET", "/account").text
    assert re.search(r'<form class="inline" method="get" action="/account/retire">', account)
    csrf = alice.csrf()
    asked = alice.request("POST", "/account/retire", data={"ladder": TRIO, "bot": "chatty", "csrf": csrf})
    assert asked.status_code == 200 and "yes, retire chatty" in asked.text
    assert status_on(api, TRIO, "chatty") == "active"
    page = alice.request("GET", "/account/retire", params={"ladder": TRIO, "bot": "chatty"})
    form = re.search(r'<form class="stacked" method="post" action="/account/retire">.*?</form>', page.text,
                     re.S).group(0)
    sent = dict(re.findall(r'name="(\w+)" value="([^"]*)"', form))
    assert sent == {"csrf": csrf, "ladder": TRIO, "bot": "chatty", "confirm": "yes"}
    refused = alice.request("POST", "/account/retire", data={**sent, "csrf": "forged"})
    assert refused.status_code == 403 and status_on(api, TRIO, "chatty") == "active"

    bob = Browser(api.app)
    bob.sign_in(league.tokens["bob"])
    assert bob.request("GET", "/account/retire", params={"ladder": TRIO, "bot": "chatty"}).status_code == 403
    forged = bob.request("POST", "/account/retire", data={**sent, "csrf": bob.csrf()})
    assert forged.status_code == 403 and status_on(api, TRIO, "chatty") == "active"

    done = alice.request("POST", "/account/retire", data=sent)
    assert done.status_code == 303 and done.headers["location"] == "/account#bots"
    assert status_on(api, TRIO, "chatty") == "retired"


# -- 8. names only claimed are private ------------------------------------------------------------------------


def test_pending_and_refused_names_are_their_owners_alone(api, league):
    """alice's refused and pending names (nothing of them listed) are a 404, as a name nobody holds, for anyone
    else: anonymous, or bob with his token or signed in; alice sees them, hers, in the API and on their pages.
    Her listed bot stays public, with her as its owner."""
    alices_bots(api, league)
    bob = Browser(api.app)
    bob.sign_in(league.tokens["bob"])
    alice = Browser(api.app)
    alice.sign_in(league.tokens["alice"])
    for name in ("clumsy", "later"):
        assert api.get(f"/api/bots/{name}").status_code == 404, name
        assert api.get(f"/api/bots/{name}", token=league.tokens["bob"]).status_code == 404, name
        anonymous = api.get(f"/bots/{name}")
        assert anonymous.status_code == 404 and "alice" not in anonymous.text, name
        assert bob.request("GET", f"/bots/{name}").status_code == 404, name
        mine = api.get(f"/api/bots/{name}", token=league.tokens["alice"])
        assert mine.status_code == 200 and mine.json()["owner"] == "alice", name
        page = alice.request("GET", f"/bots/{name}")
        assert page.status_code == 200 and "by alice" in page.text and "only you, its owner" in page.text, name
        assert page.headers["cache-control"] == "private, no-store"
    listed = api.get("/api/bots/chatty")
    assert listed.status_code == 200 and listed.json()["owner"] == "alice"
    assert "authorization" in listed.headers["vary"].lower()
