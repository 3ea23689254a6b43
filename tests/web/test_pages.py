"""The pages hold what issue 22 lists for each (read as HTML through httpx's ASGI transport), every
GET of the API answers, tokens travel in the Authorization header only, no page has a form that
changes anything, and docs/web.md shows its screenshots and is linked from the README."""

from __future__ import annotations

import html
import re
import sys

import pytest

from ledger.store import Ledger
from replays import signing
from tests.web.league import LADDER, ROOT, TOURNAMENT, XSS, tourney
from tournaments.play import standings


def headers_of(page: str) -> list[list[str]]:
    """The column headings of each table of a page, in order, as text."""
    return [[html.unescape(re.sub(r'<span class="arrow".*?</span>|<[^>]+>', "", cell)).strip()
             for cell in re.findall(r"<th[^>]*>(.*?)</th>", head)]
            for head in re.findall(r"<thead>(.*?)</thead>", page, re.S)]


def first_game(api) -> str:
    return api.get(f"/api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]["game_id"]


def test_ladder_page_leaderboard_columns_and_chart(serve):
    """A ladder page's leaderboard has rank, bot, owner, version, rating with its margin, score (with W-D-L), games,
    forfeits and last played, one row per active bot, and an inline SVG rating chart."""
    api = serve()
    page = api.get(f"/ladders/{LADDER}").text
    assert headers_of(page)[0][:9] == ["#", "bot", "owner", "version", "rating", "score", "games", "forfeits",
                                       "last played"]
    for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]:
        assert f"{row['rating']:.0f} <small>± {row['margin']:.0f}</small>" in page
        assert f'href="/bots/{row["bot"]}"' in page or row["bot"] == XSS
    assert "<svg" in page and "<script src=\"http" not in page


def test_tournament_page_standings_head_to_head_los_and_games(serve, league):
    """A tournament page has the CLI's standings columns (with each bot's Elo), head-to-head, LOS and its games."""
    page = serve().get(f"/tournaments/{TOURNAMENT}").text
    tables = headers_of(page)
    assert tables[0] == ["#", "bot", "games", "first", "mean place", "score %", "Elo", "95% interval", "forfeits"]
    for heading in ("Head to head", "Likelihood of superiority", "Latest games"):
        assert f"<h2>{heading}</h2>" in page
    expected = standings.of_tournament(Ledger(str(league.path), read_only=True), TOURNAMENT).to_json()
    assert {row["bot"] for row in expected["standings"]} <= set(tables[1]) and len(tables) >= 4
    assert 'class="game" href="/games/' in page


def test_bot_page_versions_forfeit_reasons_and_filter(serve):
    """A bot page lists its versions' content hashes, its games with each forfeit's reason, and filters them."""
    api = serve()
    bot = api.get("/api/bots/raises").json()
    forfeits = api.get("/api/bots/raises/games", params={"forfeited": "true"}).json()["items"]
    page = api.get("/bots/raises", params={"forfeited": "true"}).text
    for version in bot["versions"]:
        assert version["content_hash"] in page
    for game in forfeits:
        assert html.escape(f"raises forfeited: {game['forfeit']['reason']}", quote=False) in page
    assert '<option value="true" selected>forfeited</option>' in page


def test_game_page_embeds_the_replay_verifies_and_offers_downloads(serve, league, tmp_path):
    """A game page says it verifies, frames its replay (spectator for everyone), and links the JSON log in each
    view it offers: the full one once the ladder publishes it, signed ones when the server signs."""
    api = serve()
    game_id = first_game(api)
    page = api.get(f"/games/{game_id}").text
    assert 'class="verification ok"' in page
    assert f'src="/games/{game_id}/replay?view=spectator"' in page
    assert f'href="/api/games/{game_id}/log?view=spectator" download' in page and "view=full" not in page
    tourney("ladder", "publish", LADDER, "full", "--db", league.path)
    signing.new_keys(tmp_path / "league.key", tmp_path / "league.pub")
    published = serve(signing_key=tmp_path / "league.key").get(f"/games/{game_id}").text
    assert f'href="/api/games/{game_id}/log?view=full" download' in published
    assert f'href="/api/games/{game_id}/log?view=full&amp;signed=true" download' in published


def test_every_get_of_the_api_answers_for_what_exists(serve, league):
    """Every GET route of the API in /openapi.json, its parameters filled with things the league holds, answers 200 with
    JSON (with a token where it needs one): no endpoint is left untried."""
    api = serve(submissions=True)
    alice = league.tokens["alice"]
    submission = api.post(f"/api/ladders/{LADDER}/submissions", token=alice,
                          files={"file": ("mine.py", (ROOT / "bots" / "random_bot.py").read_bytes() + b"\n# mine\n")},
                          data={"bot": "alices"}).json()["id"]
    known = {"name": LADDER, "bot": "random_bot", "ref": TOURNAMENT, "game_id": first_game(api),
             "submission_id": str(submission), "number": "1"}
    paths = api.get("/openapi.json").json()["paths"]
    tried = 0
    for path, operations in paths.items():
        if "get" not in operations or not path.startswith("/api/"):
            continue
        url = re.sub(r"\{(\w+)\}", lambda m: known[m.group(1)], path)
        if path.startswith("/api/bots/{name}"):
            url = url.replace(LADDER, "alices" if path.endswith("/logs") else "random_bot")
        if path.startswith("/api/owners/{name}"):  # alice asks for her own profile (her bot only pending: hers alone)
            url = url.replace(LADDER, "alice")
        response = api.get(url, token=alice)
        if "{number}" in path:  # a pending submission has played no validation game yet (test_owner_views: the 200)
            assert response.status_code == 404, f"GET {url}: {response.status_code}"
            tried += 1
            continue
        assert response.status_code == 200, f"GET {url}: {response.status_code} {response.text[:200]}"
        if path.endswith(".csv"):  # the leaderboard's export (tests/web/test_leaderboard_export.py)
            assert response.headers["content-type"].startswith("text/csv") and response.text.startswith("rank,")
        else:
            response.json()
        tried += 1
    assert tried >= 12


@pytest.mark.parametrize("how", ["query", "cookie", "form"])
def test_a_token_counts_only_in_the_authorization_header(api, league, how):
    """A valid token in the query string, a cookie or a form field is ignored: 401, as with none."""
    token = league.tokens["alice"]
    if how == "query":
        response = api.get("/api/me", params={"token": token, "access_token": token})
    elif how == "cookie":
        response = api.get("/api/me", headers={"Cookie": f"token={token}; access_token={token}"})
    else:
        response = api.post(f"/api/ladders/{LADDER}/submissions", data={"token": token, "access_token": token},
                            files={"file": ("b.py", b"GAMES = '*'\n")})
    assert response.status_code == 401


def test_no_page_has_a_form_that_changes_anything(serve):
    """Every form of every page anyone sees is a GET: only a signed-in owner's pages hold forms that change
    something, each with its CSRF token (tests/web/test_owners.py)."""
    api = serve()
    for url in ("/", f"/ladders/{LADDER}", f"/tournaments/{TOURNAMENT}", "/bots/random_bot",
                f"/games/{first_game(api)}"):
        page = api.get(url).text
        for form in re.findall(r"<form[^>]*>", page):
            assert 'method="get"' in form, f"{url}: {form}"


PROCESS_EVENTS = {"subprocess.Popen", "os.posix_spawn", "os.exec", "os.fork", "os.forkpty", "os.system",
                  "os.spawn", "os.startfile", "pty.spawn"}
"""Audit events (PEP 578) of starting a program or a process."""
started: list[str] | None = None
"""While a test watches: the process events seen; None otherwise (audit hooks cannot be removed)."""


def _watch(event: str, args: tuple) -> None:
    if started is not None and event in PROCESS_EVENTS:
        started.append(f"{event} {args[:2]!r}")


sys.addaudithook(_watch)


def test_the_server_starts_no_process(api, league):
    """Taking uploads (a Python file, a program, a zip) and serving every page and API answer starts no
    process at all: bot code runs in `ladder work` only, never in the web process."""
    global started
    program = b"#!/bin/sh\necho never run\n"
    started = []
    try:
        for filename, content in (("mine.py", b"import os\nos.system('touch /tmp/pwned')\nGAMES = '*'\n"),
                                  ("mine.sh", program)):
            response = api.post(f"/api/ladders/{LADDER}/submissions", token=league.tokens["alice"],
                                files={"file": (filename, content)}, data={"bot": filename.replace(".", "-")})
            assert response.status_code == 202
        game_id = first_game(api)
        for url in ("/", f"/ladders/{LADDER}", f"/tournaments/{TOURNAMENT}", "/bots/random_bot",
                    f"/games/{game_id}", f"/games/{game_id}/replay", f"/api/games/{game_id}/log",
                    "/api/me/submissions"):
            assert api.get(url, token=league.tokens["alice"]).status_code == 200, url
    finally:
        seen, started = started, None
    assert seen == []
    pending = api.get("/api/me/submissions", token=league.tokens["alice"]).json()["items"]
    assert [item["status"] for item in pending] == ["pending", "pending"]


def test_docs_show_the_screenshots_and_the_readme_links_them():
    """docs/web.md shows the committed screenshots of each page at 1280 and 390 px (PNG files), walks the owner's
    path in the browser, covers serve, the worker, the sandbox and a TLS proxy, and the README links it."""
    from tests.web.screenshots import PAGES, WIDTHS, name

    doc = (ROOT / "docs" / "web.md").read_text()
    for page in PAGES:
        for width in WIDTHS:
            image = f"img/{name(page, width)}"
            assert f"]({image})" in doc, image
            assert (ROOT / "docs" / image).read_bytes().startswith(b"\x89PNG\r\n\x1a\n"), image
    for needed in ("tourney serve", "tourney ladder work", "bwrap", "reverse_proxy", "proxy_pass",
                   "## Owners in the browser", "1. **Sign in.**", "6. **Sign out.**", "CSRF", "--checks all"):
        assert needed in doc, needed
    assert "(docs/web.md)" in (ROOT / "README.md").read_text()
