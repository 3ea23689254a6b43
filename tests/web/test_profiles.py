"""Owners and battles (issue 41 item 4): an owner's page and API record (their listed bots, the rank and rating of each
on every ladder, their recent results, paged); every ladder game row gives each seat's rating change (after minus
before, a version's first game from its start rating, a voided game none), read in one statement per page; a bot's
battles filter by opponent, result and seat, server-side, and its page's links keep the filters."""

from __future__ import annotations

import contextlib
import html
import re
import sqlite3
import urllib.parse

import pytest
from sqlalchemy import event

from ledger import read_pages
from ledger.rows import ladder_rows
from ledger.store import Ledger
from tests.test_read_models import ladder_games, make_ladder
from tests.web.league import LADDER, ROOT, TOURNAMENT, TRIO, TWINS, XSS, League, tourney
from tests.web.test_leaderboard_export import claim
from tests.web.test_owners import Browser
from tournaments.ladder import league as ladder_league
from tournaments.ratings import openskill
from web import lists

ELO_START = 1500.0


def rows(league: League, sql: str, *args) -> list[tuple]:
    with contextlib.closing(sqlite3.connect(league.path)) as connection:
        return connection.execute(sql, args).fetchall()


def every(api, url: str, **params) -> list[dict]:
    """Every item of a paged list, newest first."""
    out, offset = [], 0
    while offset is not None:
        page = api.get(url, params={**params, "offset": offset, "limit": 200}).json()
        out += page["items"]
        offset = page["next"]
    return out


def ordinal(rating: float, sigma: float | None) -> float:
    return rating if sigma is None else openskill.Skill(rating, sigma).ordinal


def expected_changes(league: League, ladder: str) -> dict[str, dict[str, float | None]]:
    """game id -> bot -> its rating change, worked out here from the stored history (ladder_ratings) and each
    version's start as the fold makes it: Elo's 1500; OpenSkill's new_version of the predecessor's rating when it was
    submitted (or of the predecessor's own start, when it had played nothing by then)."""
    entries = rows(league, "SELECT e.id, e.name, e.version, e.joined_after, l.rating FROM ladder_entries e "
                           "JOIN ladders l ON l.id = e.ladder_id WHERE l.name = ? ORDER BY e.name, e.version", ladder)
    starts: dict[int, tuple[float, float | None]] = {}
    previous: dict[str, int] = {}
    out: dict[str, dict[str, float | None]] = {}
    for entry, name, _version, joined_after, model in entries:
        if model == "openskill":
            before = None
            if name in previous:
                had = rows(league, "SELECT rating, sigma FROM ladder_ratings WHERE entry_id = ? AND game_seq <= ? "
                                   "ORDER BY game_seq DESC LIMIT 1", previous[name], joined_after)
                before = openskill.Skill(*had[0]) if had else openskill.Skill(*starts[previous[name]])
            skill = openskill.new_version(before)
            starts[entry] = (skill.mu, skill.sigma)
        else:
            starts[entry] = (ELO_START, None)
        previous[name] = entry
        last = starts[entry]
        for game_id, rating, sigma in rows(league, "SELECT g.game_id, r.rating, r.sigma FROM ladder_ratings r JOIN "
                                                   "ladder_games g ON g.seq = r.game_seq WHERE r.entry_id = ? "
                                                   "ORDER BY r.game_seq", entry):
            out.setdefault(game_id, {})[name] = round(ordinal(rating, sigma) - ordinal(*last), 1)
            last = (rating, sigma)
    return out


def check_changes(api, league: League, ladder: str) -> list[dict]:
    """Every game of the ladder gives each seat's change as worked out here; its games, newest first."""
    games = every(api, f"/api/ladders/{ladder}/games")
    wanted = expected_changes(league, ladder)
    assert games
    for game in games:
        changes = game["rating_changes"]
        assert [(change["seat"], change["bot"]) for change in changes] == \
            [(seat["seat"], seat["bot"]) for seat in game["seats"]]
        for change in changes:
            expected = wanted.get(game["game_id"], {}).get(change["bot"])  # none: a voided game rated nobody
            assert (change["change"] is None if expected is None
                    else change["change"] == pytest.approx(expected, abs=0.11)), (game["game_id"], change, expected)
    return games


# -- rating changes -------------------------------------------------------------------------------------------


def test_each_ladder_game_gives_every_seats_rating_change(api, league):
    """On the Elo duel each game's two changes are the stored ratings' steps (the first from 1500), the winner's up
    and the loser's down by as much; on the OpenSkill trio, mu - 3 sigma's steps (the first from 0); a tournament's
    games have none (null)."""
    for game in check_changes(api, league, LADDER):
        changes = {change["bot"]: change["change"] for change in game["rating_changes"]}
        assert sum(changes.values()) == pytest.approx(0, abs=0.11)
        for seat in game["seats"]:
            assert (changes[seat["bot"]] > 0) == (seat["rank"] == 1), game
    firsts = rows(league, "SELECT g.game_id, e.name, r.rating FROM ladder_ratings r JOIN ladder_games g ON "
                          "g.seq = r.game_seq JOIN ladder_entries e ON e.id = r.entry_id WHERE r.game_seq = (SELECT "
                          "MIN(game_seq) FROM ladder_ratings WHERE entry_id = r.entry_id) AND e.ladder_id = (SELECT "
                          "id FROM ladders WHERE name = ?)", LADDER)
    by_id = {game["game_id"]: game for game in every(api, f"/api/ladders/{LADDER}/games")}
    for game_id, bot, rating in firsts:
        change = next(c["change"] for c in by_id[game_id]["rating_changes"] if c["bot"] == bot)
        assert change == pytest.approx(rating - ELO_START, abs=0.051)
    trio = check_changes(api, league, TRIO)
    assert all(len(game["rating_changes"]) == 3 for game in trio)
    tournament = api.get(f"/api/tournaments/{TOURNAMENT}/games").json()["items"]
    assert tournament and all(game["rating_changes"] is None for game in tournament)
    assert all(game["rating_changes"] is None for game in api.get("/api/bots/raises/games").json()["items"])


def test_the_game_lists_show_each_seats_change_signed(api):
    """The ladder page's latest games, its games page and a bot's page show each seat's change beside its place,
    signed (+12.1 up, -12.1 down); a tournament's games page shows none."""
    game = api.get(f"/api/ladders/{LADDER}/games", params={"limit": 1}).json()["items"][0]
    for url in (f"/ladders/{LADDER}", f"/ladders/{LADDER}/games", "/bots/random_bot"):
        page = api.get(url).text
        page = page[page.index('id="battles"'):] if url.startswith("/bots/") else page
        row = re.search(rf'href="/games/{game["game_id"]}".*?</tr>', page, re.S).group(0)
        for change in game["rating_changes"]:
            sign = "up" if change["change"] > 0 else "down"
            assert f'<small class="change {sign}" title="rating change from this game">{change["change"]:+.1f}' \
                   '</small>' in row, url
    assert 'class="change' not in api.get(f"/tournaments/{TOURNAMENT}/games").text


@pytest.mark.slow  # plays three ladder games
def test_a_new_versions_first_game_counts_from_its_start(serve, league, tmp_path):
    """On the OpenSkill trio a new version starts from its predecessor's mu with a wider sigma; a version submitted
    over one that never played starts from that one's start: each first game's change counts from those."""
    for name, versions in ((TWINS[0], 1), (TWINS[1], 2)):
        for number in range(versions):
            source = tmp_path / f"{name}-{number}.py"
            source.write_bytes((ROOT / "bots" / "random_bot.py").read_bytes() + f"\n# {name} {number}\n".encode())
            tourney("ladder", "submit", TRIO, source, "--as", name, "--db", league.path)
    tourney("ladder", "play", TRIO, "--games", "3", "--jobs", "0", "--seed", "5", "--db", league.path)
    played = rows(league, "SELECT e.name, e.version FROM ladder_ratings r JOIN ladder_entries e ON e.id = r.entry_id "
                          "WHERE e.version > 1")
    assert {(TWINS[0], 2), (TWINS[1], 3)} <= set(played)
    check_changes(serve(), league, TRIO)


def test_a_voided_game_changes_no_rating_and_the_next_counts_from_before_it(serve, league):
    """A voided game gives every seat a null change (the page says "void"); the ratings are refolded without it and
    every other game's change follows the refolded history."""
    api = serve()
    games = every(api, f"/api/ladders/{LADDER}/games")
    voided = games[1]["game_id"]
    tourney("ladder", "void", LADDER, voided, "--reason", "a test", "--db", league.path)
    api = serve()
    after = check_changes(api, league, LADDER)
    void = next(game for game in after if game["game_id"] == voided)
    assert [change["change"] for change in void["rating_changes"]] == [None, None]
    row = re.search(rf'href="/games/{voided}".*?</tr>', api.get(f"/ladders/{LADDER}/games").text, re.S).group(0)
    assert row.count(">void</small>") == 2


def test_a_page_reads_its_rating_changes_in_one_statement(serve):
    """However many games a page lists, their rating changes cost one statement on ladder_ratings (no query per row):
    a page of 1 and a page of 50 the same."""
    api = serve()
    statements: list[str] = []
    engine = api.app.state.site.ledger.engine

    def seen(_connection, _cursor, statement, *_args) -> None:
        statements.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        counts = []
        for url in (f"/api/ladders/{LADDER}/games?limit=1", f"/api/ladders/{LADDER}/games?limit=50",
                    f"/api/ladders/{TRIO}/games?limit=50", "/api/bots/random_bot/games?limit=50"):
            statements.clear()
            assert api.get(url).status_code == 200
            counts.append(sum("ladder_ratings" in statement for statement in statements))
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert counts == [1, 1, 1, 1]


# -- a bot's battles ------------------------------------------------------------------------------------------


def test_a_bots_battles_filter_by_opponent_result_and_seat(api):
    """/api/bots/NAME/games keeps exactly the games where the opponent sat in another seat, the bot had the result and
    sat in the seat, newest first, as filtering all its games here finds them; the totals agree with its record."""
    games = every(api, "/api/bots/random_bot/games")
    record = api.get("/api/bots/random_bot/results").json()
    opponents = [row["opponent"] for row in record["by_opponent"]]
    assert len(opponents) >= 3 and len(record["by_seat"]) >= 2

    def result(game: dict) -> str:
        mine = next(seat for seat in game["seats"] if seat["bot"] == "random_bot")
        firsts = sum(seat["rank"] == 1 for seat in game["seats"])
        return "loss" if mine["rank"] != 1 else "win" if firsts == 1 else "draw"

    def keeps(game: dict, opponent: str | None, outcome: str | None, seat: int | None) -> bool:
        mine = next(s for s in game["seats"] if s["bot"] == "random_bot")
        return ((opponent is None or any(s["bot"] == opponent for s in game["seats"] if s["seat"] != mine["seat"]))
                and (outcome is None or result(game) == outcome) and (seat is None or mine["seat"] == seat))

    for opponent in (None, *opponents):
        for outcome in (None, "win", "loss"):
            for seat in (None, 0, 1):
                params = {key: value for key, value in (("opponent", opponent), ("result", outcome), ("seat", seat))
                          if value is not None}
                found = every(api, "/api/bots/random_bot/games", **params)
                assert [g["game_id"] for g in found] == [g["game_id"] for g in games if keeps(g, opponent, outcome,
                                                                                             seat)], params
    for row in record["by_opponent"]:
        assert api.get("/api/bots/random_bot/games", params={"opponent": row["opponent"]}).json()["total"] == \
            row["games"]
    for row in record["by_seat"]:
        assert api.get("/api/bots/random_bot/games", params={"seat": row["seat"]}).json()["total"] == row["games"]
    assert api.get("/api/bots/random_bot/games", params={"opponent": "nobody"}).json()["total"] == 0
    for bad in ({"seat": "first"}, {"seat": -1}, {"result": "maybe"}):
        answer = api.get("/api/bots/random_bot/games", params=bad)
        assert answer.status_code == 422 and answer.json()["detail"], bad
    assert api.get("/bots/random_bot", params={"seat": "first"}).status_code == 422


def test_a_bots_page_filters_its_battles_and_its_pager_keeps_the_filters(api):
    """The bot page's battle form (opponent, result, seat, forfeit: no script) shows what is chosen; the list holds
    the API's games for those filters; its "older" link keeps them."""
    opponent = api.get("/api/bots/random_bot/results").json()["by_opponent"][0]["opponent"]
    wanted = every(api, "/api/bots/random_bot/games", opponent=opponent, seat=0)
    assert len(wanted) >= 2
    page = api.get("/bots/random_bot", params={"opponent": opponent, "seat": "0", "result": "", "limit": 1}).text
    battles = page[page.index('id="battles"'):page.index('id="stderr"')]
    assert '<form class="filter" method="get" action="/bots/random_bot#battles">' in battles
    assert f'<option value="{html.escape(opponent)}" selected>' in battles
    assert '<option value="0" selected>0</option>' in battles
    assert f'href="/games/{wanted[0]["game_id"]}"' in battles and f'href="/games/{wanted[1]["game_id"]}"' not in battles
    older = html.unescape(re.search(r'<a rel="next" href="([^"]+)#battles">', battles).group(1))
    assert urllib.parse.parse_qs(older.lstrip("?")) == {"opponent": [opponent], "seat": ["0"], "limit": ["1"],
                                                         "offset": ["1"]}
    second = api.get("/bots/random_bot" + older).text
    assert f'href="/games/{wanted[1]["game_id"]}"' in second[second.index('id="battles"'):]
    assert 'href="/bots/random_bot#battles">show all</a>' in battles
    assert "show all</a>" not in api.get("/bots/random_bot").text


# -- owners ---------------------------------------------------------------------------------------------------


def test_an_owners_profile_lists_their_bots_ladders_and_results(serve, league):
    """alice owns random_bot (on both ladders) and only claimed another name: her record names random_bot alone,
    with the leaderboard's rank and rating on each ladder, and its games newest first, paged, with their rating
    changes; her page shows the same and her name links to it from the leaderboard and the bot page."""
    claim(league, "alice", "random_bot")
    claim(league, "alice", "secret-plan")  # a name only claimed: a pending submission's
    api = serve()
    answer = api.get("/api/owners/alice", params={"limit": 3})
    assert answer.status_code == 200 and "private" not in answer.headers.get("cache-control", "")
    shown = answer.json()
    assert shown["name"] == "alice" and shown["bots"] == ["random_bot"] and "secret-plan" not in answer.text
    assert [ladder["ladder"] for ladder in shown["ladders"]] == sorted([LADDER, TRIO])
    for ladder in shown["ladders"]:
        board = {row["bot"]: row for row in api.get(f"/api/ladders/{ladder['ladder']}").json()["leaderboard"]}
        [entry] = ladder["bots"]
        assert entry["bot"] == "random_bot"
        assert (entry["rank"], entry["rating"], entry["games"]) == (board["random_bot"]["rank"],
                                                                   board["random_bot"]["rating"],
                                                                   board["random_bot"]["games"])
    games = every(api, "/api/bots/random_bot/games")
    results = shown["results"]
    assert results["total"] == len(games) and results["next"] == 3
    assert [game["game_id"] for game in results["items"]] == [game["game_id"] for game in games[:3]]
    assert results["items"] == games[:3]  # the same rows, rating changes included
    rest = api.get("/api/owners/alice", params={"offset": 3, "limit": 200}).json()["results"]["items"]
    assert [g["game_id"] for g in rest] == [g["game_id"] for g in games[3:]]

    page = api.get("/owners/alice", params={"limit": 2})
    assert page.status_code == 200 and "secret-plan" not in page.text
    text = page.text
    for ladder in shown["ladders"]:
        entry = ladder["bots"][0]
        assert re.search(rf'<a href="/ladders/{ladder["ladder"]}">{ladder["ladder"]}</a></td><td>{entry["rank"]}</td>'
                         rf'<td><a class="bot" href="/bots/random_bot">random_bot</a></td>\s*<td class="num">'
                         rf'{entry["rating"]:.0f}', text), ladder
    assert f'href="/games/{games[0]["game_id"]}"' in text and f'href="/games/{games[2]["game_id"]}"' not in text
    assert re.search(r'<a rel="next" href="\?limit=2&amp;offset=2#results">older', text)
    assert '<a class="owner" href="/owners/alice">alice</a>' in api.get(f"/ladders/{LADDER}").text
    assert '<a class="owner" href="/owners/alice">by alice</a>' in api.get("/bots/random_bot").text


def test_unknown_owners_and_owners_with_nothing_listed_answer_404(serve, league):
    """A name no owner holds is a 404 (JSON in the API, the error page on the site); so is an owner with nothing
    listed yet (bob), to anyone but bob himself (his token, or signed in), whose answer is his alone."""
    api = serve(submissions=True)
    for name in ("nobody", "bob"):
        answer = api.get(f"/api/owners/{name}")
        assert answer.status_code == 404 and answer.json() == {"detail": f"no owner '{name}'"}
        page = api.get(f"/owners/{name}")
        assert page.status_code == 404 and '<p class="error">no owner &#39;' in page.text
    assert api.get("/api/owners/bob", token=league.tokens["alice"]).status_code == 404
    mine = api.get("/api/owners/bob", token=league.tokens["bob"])
    assert mine.status_code == 200 and mine.json()["bots"] == [] and mine.json()["results"]["total"] == 0
    assert mine.headers["cache-control"] == "private, no-store"
    bob = Browser(api.app)
    bob.sign_in(league.tokens["bob"])
    page = bob.request("GET", "/owners/bob")
    assert page.status_code == 200 and "only you see this page" in page.text
    assert page.headers["cache-control"] == "private, no-store"
    alice = Browser(api.app)
    alice.sign_in(league.tokens["alice"])
    assert alice.request("GET", "/owners/bob").status_code == 404


def test_owner_links_escape_and_games_of_an_xss_named_bot_stay_text(serve, league):
    """The owner of the bot named like an HTML injection: their page shows its name as text, never markup."""
    claim(league, "bob", XSS)
    api = serve()
    page = api.get("/owners/bob").text
    assert XSS not in page and html.escape(XSS) in page
    assert api.get("/api/owners/bob").json()["bots"] == [XSS]


# -- both backends ------------------------------------------------------------------------------------------------


def test_the_read_functions_answer_alike_on_both_backends(backend):
    """The statements of a page's rating changes, a bot's battles and an owner's results, on SQLite and PostgreSQL: an
    Elo ladder of builtin bots whose every game's changes are its stored ratings' steps (the first from 1500), whose
    battles by opponent and seat are its games filtered here, and whose owner's page holds each game once."""
    ledger = Ledger(backend.url, ledger_key=backend.key)
    try:
        make_ladder(ledger, bots=3)
        ladder_games(ledger, "duel", 3)
        ladder = ladder_rows.get(ledger, "duel")
        with ledger.read() as connection:
            ids, total = read_pages.game_page(connection, read_pages.Where(ladder_id=ladder["id"]), 0, 50)
            changes = lists.rating_changes(connection, ids)
            starts = read_pages.version_starts(connection, [(ladder["id"], "b0"), (ladder["id"], "b1")])
            mine, mine_total = read_pages.owner_game_page(connection, ["b0", "b1"], 0, 50)
            seated = {game_id: {s.bot: s.seat for s in seats}
                      for game_id, seats in read_pages.seat_ratings(connection, ids).items()}
            battles = {(opponent, seat): read_pages.battle_page(connection, read_pages.Where(bot="b0"), opponent,
                                                                 seat, 0, 50)[0]
                       for opponent in ("b1", "b2") for seat in (0, 1)}
        assert total == 6 and set(changes) == set(ids)
        history: dict[str, list[float]] = {}
        for game_id in reversed(ids):  # oldest first
            for change in changes[game_id]:
                steps = history.setdefault(change.bot, [ELO_START])
                after = [p["rating"] for p in ladder_league.history(ledger, "duel", change.bot)][len(steps) - 1]
                assert change.change == pytest.approx(after - steps[-1], abs=0.051), (game_id, change)
                steps.append(after)
        assert starts == {(ladder["id"], "b0"): [(1, None)], (ladder["id"], "b1"): [(1, None)]}
        assert mine == [game_id for game_id in ids if {"b0", "b1"} & set(seated[game_id])] and mine_total == len(mine)
        for (opponent, seat), found in battles.items():
            assert found == [game_id for game_id in ids if seated[game_id].get("b0") == seat
                             and opponent in seated[game_id]], (opponent, seat)
    finally:
        ledger.close()
