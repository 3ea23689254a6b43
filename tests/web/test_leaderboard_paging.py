"""The leaderboard paged and searched in the server, stable while games are stored (issue 41 item 2; issue 39 item
2, paging in the database): a page is read as of one ladder game (``at``), so page 2 read after more games continues
page 1's order; each row's rank movement over a chosen window (``since``), from the ratings as of a ladder game;
relative times; the head-to-head table read a page of rows at a time."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
import urllib.parse
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ledger import read_models, read_pages
from ledger.rows import ladder_rows
from tests import cli
from tests.test_read_models import league_db, league_db_templates  # noqa: F401 (fixtures: a tournament and a ladder)
from tests.web.league import LADDER, ROOT, TRIO, League, tourney

MORE = ("alpha", "bravo", "charlie", "delta")
"""Bots this module's ladder gains beside the seeded two, so that its leaderboard has pages."""


@pytest.fixture(scope="module")
def crowded_ledger(seeded: League, tmp_path_factory) -> Path:
    """The seeded league with four more bots on the duel ladder and eight more games, made once for the module (five
    `tourney` processes: each test made them again before), with its signing key beside it."""
    path = tmp_path_factory.mktemp("crowded") / "league.db"
    copy_ledger(seeded.path, path)
    db = ["--db", str(path)]
    for name in MORE:
        tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", name, *db)
    tourney("ladder", "play", LADDER, "--games", "8", "--jobs", "0", "--seed", "3", *db)
    return path


@pytest.fixture
def crowded(league: League, crowded_ledger: Path) -> League:
    """The test's own copy of the crowded league, in place of its copy of the seeded one (what ``serve`` and
    ``visit`` serve): a test may store more games in it."""
    copy_ledger(crowded_ledger, league.path)
    return league


def copy_ledger(source: Path, target: Path) -> None:
    """Copy a ledger's file and its signing key (``.key``, ``.pub``: which store games) beside it."""
    for suffix in ("", ".key", ".pub"):
        if source.with_name(source.name + suffix).exists():
            shutil.copy2(source.with_name(source.name + suffix), target.with_name(target.name + suffix))


def play(league: League, games: int, seed: int) -> None:
    """Store ``games`` more ladder games from another process (the ladder's own command), as a worker would."""
    subprocess.run([*cli.COMMAND, "ladder", "play", LADDER, "--games", str(games), "--jobs", "0", "--seed", str(seed),
                    "--db", str(league.path)], check=True, capture_output=True)


def keys(board: list[dict]) -> list[tuple[str, int]]:
    return [(row["bot"], row["version"]) for row in board]


def test_api_pages_continue_in_the_order_of_their_ladder_game_while_games_are_stored(serve, crowded):
    api = serve()
    whole = api.get(f"/api/ladders/{LADDER}").json()
    assert whole["at"] == whole["games"] == 12 and whole["limit"] is None and whole["next"] is None
    assert len(whole["leaderboard"]) == whole["found"] == 6
    first = api.get(f"/api/ladders/{LADDER}", params={"limit": 2}).json()
    assert first["leaderboard"] == whole["leaderboard"][:2]
    assert (first["at"], first["found"], first["offset"], first["limit"], first["next"]) == (12, 6, 0, 2, 2)
    play(crowded, 6, seed=11)
    # A bot retired and another replaced by a new version between the pages: both stay on the pages read then.
    gone, replaced = (row["bot"] for row in whole["leaderboard"][2:4])
    db = ["--db", str(crowded.path)]
    tourney("ladder", "retire", LADDER, gone, *db)
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "heuristic_tails_on_fire.py", "--as", replaced, *db)
    now = api.get(f"/api/ladders/{LADDER}").json()
    assert now["at"] == 18 and gone not in [row["bot"] for row in now["leaderboard"]]
    assert [row["version"] for row in now["leaderboard"] if row["bot"] == replaced] == [2]
    # The games moved ratings: the latest board is not the one page 1 was read from.
    assert [row["rating"] for row in now["leaderboard"]] != [row["rating"] for row in whole["leaderboard"]]
    pages = [first]
    while pages[-1]["next"] is not None:
        pages.append(api.get(f"/api/ladders/{LADDER}", params={"limit": 2, "offset": pages[-1]["next"],
                                                               "at": first["at"]}).json())
    assert [page["at"] for page in pages] == [12, 12, 12]
    read = [row for page in pages for row in page["leaderboard"]]
    assert read == whole["leaderboard"]  # every row once, in page 1's order, as it stood then
    assert len(set(keys(read))) == 6
    # At the latest game, the board read as of a game is the board itself (the SQL sums equal the read models).
    assert api.get(f"/api/ladders/{LADDER}", params={"at": 18}).json()["leaderboard"] == now["leaderboard"]
    # Past the latest game: the latest.
    assert api.get(f"/api/ladders/{LADDER}", params={"at": 10**6}).json()["at"] == 18


def test_a_ladder_as_of_a_game_counts_what_its_read_models_counted_then(serve, crowded):
    """The SQL sums as of a game equal the read models at that game (read before more games were stored)."""
    api = serve()
    app = api.app
    ledger = app.state.site.ledger
    ladder_id = ladder_rows.get(ledger, LADDER)["id"]
    with ledger.read() as connection:
        records, pairs = read_models.ladder(connection, ladder_id)
        at = read_pages.ladder_count(connection, ladder_id)
    play(crowded, 4, seed=12)
    with ledger.read() as connection:
        assert read_models.ladder(connection, ladder_id)[1] != pairs
        then, then_pairs = read_pages.ladder_at(connection, ladder_id, at)
    assert then_pairs == pairs
    assert then == counted(records)


def test_an_api_page_as_of_an_earlier_game_reads_that_board_alone(serve, crowded, monkeypatch):
    """`/api/ladders/NAME?at=N` below the latest game, cold, reads the board as of game N and not the latest board
    too (it only needs the latest game's number, read alone): its rows are the same; at or past the latest game it
    reads the latest board."""
    from web.routes import ladders

    api = serve()
    whole = api.get(f"/api/ladders/{LADDER}").json()
    before = api.get(f"/api/ladders/{LADDER}", params={"at": whole["at"] - 3, "limit": 3, "offset": 1}).json()
    boards = []
    latest = ladders.ladder
    monkeypatch.setattr(ladders, "ladder", lambda *args: boards.append(args) or latest(*args))
    for cache in api.app.state.site.caches.values():
        cache.clear()
    assert api.get(f"/api/ladders/{LADDER}", params={"at": whole["at"] - 3, "limit": 3, "offset": 1}).json() == before
    assert boards == []
    assert api.get(f"/api/ladders/{LADDER}", params={"at": whole["at"]}).json()["leaderboard"] == whole["leaderboard"]
    assert len(boards) == 1


def test_a_page_as_of_an_earlier_game_draws_its_chart_and_table_without_the_latest_board(serve, crowded, monkeypatch):
    """`/ladders/NAME?at=N` shows the leaderboard as of game N, and the chart and head-to-head table as they are now,
    ranked as the latest board ranks: cold, it draws the board as of game N alone (the chart and table take the
    latest order from the entries, without the board's margins and rank ranges); both parts are the latest page's."""
    from web.routes import ladders

    api = serve()
    whole = api.get(f"/api/ladders/{LADDER}").json()
    latest = api.get(f"/ladders/{LADDER}").text
    boards = []
    board = ladders.ladder
    monkeypatch.setattr(ladders, "ladder", lambda *args: boards.append(args) or board(*args))
    for cache in api.app.state.site.caches.values():
        cache.clear()
    earlier = api.get(f"/ladders/{LADDER}", params={"at": whole["at"] - 3}).text
    assert boards == []
    assert f"As of the ladder's game {whole['at'] - 3} of {whole['at']}" in earlier
    chart = re.compile(r'<svg class="chart".*?</ul>', re.S)
    table = re.compile(r'<table class="matrix h2h">.*?</table>', re.S)
    for part in (chart, table):
        assert part.search(earlier).group(0) == part.search(latest).group(0)
    def names(pattern: str, part: re.Pattern) -> list[str]:
        return [html.unescape(name) for name in re.findall(pattern, part.search(earlier).group(0))]

    legend = names(r'<li><span class="swatch series-\d+"></span>([^<]+)</li>', chart)
    assert legend == [row["bot"] for row in whole["leaderboard"] if row["games"]][:8] and len(legend) > 1
    heads = names(r'<th scope="col">([^<]+)</th>', table)
    assert heads == [row["bot"] for row in whole["leaderboard"]]


def test_an_openskill_board_ranks_by_mu_minus_three_sigma_and_its_order_says_so(serve, league):
    """The order a page's chart and table take (ladders.ranked) is the leaderboard's, retired versions or not: on an
    OpenSkill ladder by mu - 3 sigma, not by mu (the order its entries are stored in)."""
    from tournaments.ladder import leaderboard
    from web.routes import ladders

    api = serve()
    site = api.app.state.site
    for retired in (False, True):
        board = api.get(f"/api/ladders/{TRIO}", params={"retired": str(retired).lower()}).json()["leaderboard"]
        assert ladders.ranked(site, TRIO, "tag", retired) == [(r["bot"], r["version"], r["games"]) for r in board]
    sure, unsure = ({"name": "sure", "version": 1, "rating": 25.0, "sigma": 1.0},
                    {"name": "unsure", "version": 1, "rating": 30.0, "sigma": 8.0})  # mu - 3 sigma: 22 and 6
    assert leaderboard.ordered([unsure, sure]) == [sure, unsure]


def counted(records: dict[int, dict]) -> dict[int, dict]:
    """The read model's records as ``ladder_at`` sums them (what a page shows of them)."""
    return {entry: {key: record[key] for key in ("wins", "draws", "losses", "forfeits", "points2", "last_played")}
            for entry, record in records.items()}


def test_an_openskill_ladder_reads_as_of_a_game_too(serve, league):
    api = serve()
    whole = api.get(f"/api/ladders/{TRIO}").json()
    assert api.get(f"/api/ladders/{TRIO}", params={"at": whole["at"]}).json()["leaderboard"] == whole["leaderboard"]
    earlier = api.get(f"/api/ladders/{TRIO}", params={"at": 1}).json()
    assert earlier["at"] == 1
    assert sum(row["games"] for row in earlier["leaderboard"]) == 3  # one game of three seats
    assert sorted(row["rating"] for row in earlier["leaderboard"]) != sorted(row["rating"]
                                                                             for row in whole["leaderboard"])


def test_search_and_paging_together(serve, crowded):
    api = serve()
    found = api.get(f"/api/ladders/{LADDER}", params={"q": "L", "limit": 2}).json()
    everyone = api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]
    wanted = [row for row in everyone if "l" in row["bot"].casefold() or "l" in (row["owner"] or "").casefold()]
    assert found["found"] == len(wanted) == 4  # alpha, charlie, delta and the one whose name says alert
    assert found["leaderboard"] == wanted[:2] and found["next"] == 2
    rest = api.get(f"/api/ladders/{LADDER}", params={"q": "L", "limit": 2, "offset": 2, "at": found["at"]}).json()
    assert rest["leaderboard"] == wanted[2:] and rest["next"] is None
    ranks = [row["rank"] for row in found["leaderboard"] + rest["leaderboard"]]
    assert ranks == sorted(ranks)  # the ladder's ranks, not ranks among those found
    for bad in ({"limit": 0}, {"limit": 201}, {"offset": -1}, {"at": -1}, {"since": "1y"}, {"since": "x"}):
        answer = api.get(f"/api/ladders/{LADDER}", params=bad)
        assert answer.status_code == 422, bad
        assert next(iter(bad)) in answer.text


def leaderboard_names(html: str) -> list[str]:
    table = html[html.index('<table class="leaderboard">'):]
    table = table[:table.index("</table>")]
    return [urllib.parse.unquote(name) for name in re.findall(r'<a class="bot" href="/bots/([^"]+)"', table)]


def test_the_page_and_its_fragment_page_on_as_of_the_first_pages_game(serve, crowded):
    api = serve()
    whole = [row["bot"] for row in api.get(f"/api/ladders/{LADDER}").json()["leaderboard"]]
    page = api.get(f"/ladders/{LADDER}", params={"limit": 4}).text
    assert leaderboard_names(page) == whole[:4]
    assert "1–4 of 6" in page
    link = re.search(r'<a rel="next" href="(\?[^"]+)#leaderboard">', page).group(1).replace("&amp;", "&")
    assert dict(urllib.parse.parse_qsl(link[1:])) == {"limit": "4", "start": "4", "at": "12"}
    assert "As of the ladder's game" not in page
    play(crowded, 6, seed=13)
    second = api.get(f"/ladders/{LADDER}{link}").text
    assert leaderboard_names(second) == whole[4:]
    assert "As of the ladder's game 12 of 18" in second and "5–6 of 6" in second
    back = re.search(r'<a rel="prev" href="(\?[^"]+)#leaderboard">', second).group(1).replace("&amp;", "&")
    assert dict(urllib.parse.parse_qsl(back[1:])) == {"limit": "4", "start": "0", "at": "12"}
    fragment = api.get(f"/ladders/{LADDER}/leaderboard{link}")
    assert fragment.status_code == 200 and leaderboard_names(fragment.text) == whole[4:]
    latest = api.get(f"/ladders/{LADDER}/leaderboard", params={"limit": 4}).text
    assert "1–4 of 6" in latest and "As of" not in latest


def test_my_rank_jumps_to_the_page_my_bot_is_on(serve, crowded):
    from tests.web.test_leaderboard_export import claim
    from tests.web.test_owners import Browser

    whole = [row["bot"] for row in serve().get(f"/api/ladders/{LADDER}").json()["leaderboard"]]
    claim(crowded, "alice", whole[-1])
    browser = Browser(serve(submissions=True).app)
    browser.sign_in(crowded.tokens["alice"])
    page = browser.request("GET", f"/ladders/{LADDER}", params={"limit": 2}).text
    mine = re.search(r'<p class="my-rank">Your bots: <a href="([^"]+)">#6 ', page)
    assert mine is not None, page[:2000]
    assert mine.group(1).replace("&amp;", "&") == "?limit=2&start=4&at=12#rank-6"


def history_ranks(api, bots: list[tuple[str, int]], then: int) -> dict[tuple[str, int], int]:
    """Each bot's rank as of the ladder's game ``then``, from its rating history (the API's), independently."""
    latest = {}
    for bot, version in bots:
        points = [p for p in api.get(f"/api/ladders/{LADDER}/bots/{bot}/history").json()
                  if p["version"] == version and p["number"] <= then]
        if points:
            latest[(bot, version)] = points[-1]["rating"]
    ordered = sorted(latest, key=lambda key: (-latest[key], key))
    return {key: rank for rank, key in enumerate(ordered, start=1)}


def test_rank_movement_over_a_number_of_games(serve, crowded):
    api = serve()
    # A bot submitted now has no rank 6 games ago: it is new.
    tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", "echo", "--db", str(crowded.path))
    play(crowded, 6, seed=14)
    shown = api.get(f"/api/ladders/{LADDER}", params={"since": "6"}).json()
    assert shown["at"] == 18 and shown["moved_since"] == 12
    then = history_ranks(api, keys(shown["leaderboard"]), 12)
    assert len(then) == 6
    for row in shown["leaderboard"]:
        key = (row["bot"], row["version"])
        assert row["rank_change"] == (then[key] - row["rank"] if key in then else None), row
    assert next(row for row in shown["leaderboard"] if row["bot"] == "echo")["rank_change"] is None
    # No window: no movement; a window of no games: no place moved for those that had played.
    plain = api.get(f"/api/ladders/{LADDER}").json()
    assert plain["moved_since"] is None and all(row["rank_change"] is None for row in plain["leaderboard"])
    still = api.get(f"/api/ladders/{LADDER}", params={"since": "0"}).json()
    assert {row["rank_change"] for row in still["leaderboard"] if row["games"]} == {0}
    # As of an earlier game, the window counts back from it.
    earlier = api.get(f"/api/ladders/{LADDER}", params={"since": "2", "at": 14}).json()
    assert earlier["moved_since"] == 12
    then = history_ranks(api, keys(earlier["leaderboard"]), 12)
    assert [row["rank_change"] for row in earlier["leaderboard"]] == [
        then[key] - row["rank"] if key in then else None
        for key, row in zip(keys(earlier["leaderboard"]), earlier["leaderboard"], strict=True)]


def test_rank_movement_over_a_time_window(serve, crowded):
    """Every game of the league was stored just now: a week ago is before them all (every row new); a window that
    ends now (0 minutes) compares with the latest game."""
    api = serve()
    week = api.get(f"/api/ladders/{LADDER}", params={"since": "1w"}).json()
    assert week["moved_since"] == 0 and all(row["rank_change"] is None for row in week["leaderboard"])
    now = api.get(f"/api/ladders/{LADDER}", params={"since": "0m"}).json()
    assert now["moved_since"] == 12 and {row["rank_change"] for row in now["leaderboard"]} == {0}
    huge = api.get(f"/api/ladders/{LADDER}", params={"since": "999999w"})
    assert huge.status_code == 200 and huge.json()["moved_since"] == 0
    # The page's default window is 24 hours: every bot is new; "since=" (empty) shows no column.
    page = api.get(f"/ladders/{LADDER}").text
    assert page.count('<span class="new"') == 6 and '<option value="24h" selected>' in page
    assert '<span class="new"' not in api.get(f"/ladders/{LADDER}", params={"since": ""}).text
    moved = api.get(f"/ladders/{LADDER}", params={"since": "0"}).text
    assert moved.count('<span class="same"') == 6


def test_the_live_refresh_answers_304_until_a_game_moves_the_window(serve, crowded):
    """The page's fragment (its default 24-hour window) and the API with a window: their ETag names the game the
    window starts after, a 304 until a game is stored."""
    api = serve()
    for path in (f"/ladders/{LADDER}/leaderboard?limit=2", f"/api/ladders/{LADDER}?since=3&limit=2"):
        first = api.get(path)
        tag = first.headers["etag"]
        assert first.status_code == 200 and "-since-" in tag
        assert api.get(path, headers={"If-None-Match": tag}).status_code == 304
        play(crowded, 1, seed=15)
        again = api.get(path, headers={"If-None-Match": tag})
        assert again.status_code == 200 and again.headers["etag"] != tag


def test_the_pages_show_relative_times_with_the_exact_time_beside(serve, crowded):
    from web.pages import ago

    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)

    def before(**delta) -> str:
        return (now - timedelta(**delta)).isoformat(timespec="seconds")

    assert [ago(before(seconds=s), now) for s in (0, 59, 60, 3599, 3600, 86399, 86400, 2 * 86400)] == [
        "just now", "just now", "1 min ago", "59 min ago", "1 h ago", "23 h ago", "1 day ago", "2 days ago"]
    assert ago(before(days=40), now) == "2026-10-23" and ago(None, now) == ""
    assert ago(before(seconds=-30), now) == "just now"  # a clock a little ahead
    api = serve()
    shown = api.get(f"/api/ladders/{LADDER}").json()
    page = api.get(f"/ladders/{LADDER}").text
    row = shown["leaderboard"][0]
    stamp = row["last_played"]
    exact = stamp[:16].replace("T", " ") + " UTC"
    assert f'<time datetime="{stamp}" title="{exact}">just now</time>' in page \
        or re.search(rf'<time datetime="{re.escape(stamp)}" title="{exact}">\d+ min ago</time>', page)
    latest = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]["created_at"]
    assert re.search(rf'<td class="opt"><time datetime="{re.escape(latest)}" title="[^"]+ UTC">(just now|\d+ min ago)'
                     r"</time></td>", page)


def test_head_to_head_pages_of_rows_each_against_every_opponent(serve, crowded):
    api = serve()
    everything = api.get(f"/api/ladders/{LADDER}/head-to-head").json()
    assert everything["total"] == len(everything["bots"]) == 6 and everything["next"] is None
    seen: dict = {}
    offset = 0
    while offset is not None:
        page = api.get(f"/api/ladders/{LADDER}/head-to-head", params={"offset": offset, "limit": 4}).json()
        assert page["bots"] == everything["bots"][offset:offset + 4] and page["total"] == 6
        assert set(page["pairs"]) <= set(page["bots"])
        seen.update(page["pairs"])
        offset = page["next"]
    assert seen == everything["pairs"]


def test_head_to_head_reads_only_the_rows_asked_for(serve, crowded):
    """The statements a page of head-to-head runs name its rows' entries: never every pair of the ladder (the
    leaderboard, read first, is cached per ETag)."""
    from sqlalchemy import event

    api = serve()
    for path in (f"/api/ladders/{LADDER}", f"/api/ladders/{LADDER}/head-to-head?limit=1"):
        api.get(path)  # the leaderboards (the page's, the API's with retired versions) that order the bots
    engine = api.app.state.site.ledger.engine
    statements: list[tuple[str, tuple]] = []

    def seen(_connection, _cursor, statement, parameters, _context, _many):
        if "ladder_pairs" in statement:
            statements.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", seen)
    try:
        page = api.get(f"/api/ladders/{LADDER}/head-to-head", params={"offset": 1, "limit": 1}).json()
        table = api.get(f"/ladders/{LADDER}").text
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert len(page["bots"]) == 1 and 'class="matrix h2h"' in table
    assert len(statements) == 2, statements
    (one, one_parameters), (best, best_parameters) = statements
    # The page of one bot: its one entry, against every opponent; the page's table: its bots among themselves.
    assert one.endswith("entry_id IN (?)") and "opponent_id IN" not in one and len(one_parameters) == 2
    assert "entry_id IN (" in best and "opponent_id IN (" in best and len(best_parameters) == 1 + 2 * 6


@pytest.mark.browser
@pytest.mark.parametrize("width", (1280, 390))
def test_a_paged_leaderboard_keeps_rank_name_and_rating_on_screen(crowded, visit, width):
    """At 1280 and 390 px: rank, name and rating on screen on every page; the movement column collapses on a phone
    (back with "all columns"); the pager pages on as of the first page's game; no sideways scroll."""
    from tests.browser import expect
    from tests.web.test_phone import check_fits

    page = visit(f"/ladders/{LADDER}?limit=4&since=0", width=width, height=900)
    check_fits(page, width, {"table.leaderboard": ["#", "bot", "rating"]})
    moved = page.locator("table.leaderboard thead th", has_text="moved")
    if width == 390:
        expect(moved).to_be_hidden()
        page.locator("#leaderboard label.columns input").check()
    expect(moved).to_be_visible()
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(4)
    page.locator("#leaderboard nav.pager a[rel=next]").click()
    expect(page.locator("table.leaderboard tbody tr")).to_have_count(2)
    assert "at=12" in page.url and "start=4" in page.url
    expect(page.locator("#leaderboard nav.pager")).to_contain_text("5–6 of 6")
    check_fits(page, width, {"table.leaderboard": ["#", "bot", "rating"]})


@pytest.mark.slow
def test_a_ladder_as_of_a_game_on_both_backends(league_db):  # noqa: F811 (the fixture, imported)
    """The reads as of a game (ratings, records, pairs, the game before a time, a page of pairs) on SQLite and
    PostgreSQL: equal to the read models as they were at that game, after more games and a void of a later one."""
    from ledger.store import Ledger
    from tests.test_read_models import ladder_games, tourney

    ledger = Ledger(league_db.url, ledger_key=league_db.key)
    try:
        ladder_id = ladder_rows.get(ledger, "duel")["id"]
        with ledger.read() as connection:
            at = read_pages.ladder_count(connection, ladder_id)
            records, pairs = read_models.ladder(connection, ladder_id)
            seq = read_pages.ladder_seq(connection, ladder_id, at)
            ratings = read_pages.ladder_ratings_at(connection, ladder_id, seq)
        assert at == 12 and ratings == {e["id"]: (e["rating"], e["sigma"], e["games"])
                                        for e in ladder_rows.entries(ledger, ladder_id)}
        ladder_games(ledger, "duel", 2, seed="later")
        later = ladder_rows.game_ids(ledger, ladder_id)[-1]
        assert tourney("ladder", "void", "duel", later, "--reason", "a test", "--db", league_db.url).exit_code == 0
        with ledger.read() as connection:
            assert read_pages.ladder_count(connection, ladder_id) == 16
            assert read_pages.ladder_at(connection, ladder_id, at) == (counted(records), pairs)
            assert read_pages.ladder_ratings_at(connection, ladder_id, seq) == ratings
            now_records, now_pairs = read_models.ladder(connection, ladder_id)
            assert now_pairs != pairs
            # The latest, with a voided game left out: the read models (which the void took it out of).
            assert read_pages.ladder_at(connection, ladder_id, 16) == (counted(now_records), now_pairs)
            assert read_pages.ladder_number_before(connection, ladder_id, "9999") == 16
            assert read_pages.ladder_number_before(connection, ladder_id, "2000") == 0
            one = sorted({entry for entry, _ in now_pairs})[0]
            assert read_pages.ladder_pairs_of(connection, ladder_id, [one]) == {
                key: value for key, value in now_pairs.items() if key[0] == one}
            assert read_pages.ladder_pairs_of(connection, ladder_id, [one], [one]) == {}
            assert len(read_pages.ladder_history(connection, one, None, seq)) == ratings[one][2]
            assert read_pages.ladder_retired_by(connection, ladder_id, 16) == set()
        assert tourney("ladder", "retire", "duel", "b2", "--db", league_db.url).exit_code == 0
        ladder_games(ledger, "duel", 1, seed="last")
        b2 = next(e["id"] for e in ladder_rows.entries(ledger, ladder_id, active_only=False) if e["name"] == "b2")
        with ledger.read() as connection:
            # Game 18 came after the retire event (the time of game 16 may share its second: docs/web.md).
            assert read_pages.ladder_retired_by(connection, ladder_id, 18) == {b2}
            assert read_pages.ladder_retired_by(connection, ladder_id, 0) == set()
    finally:
        ledger.close()
