"""Game lists paged in the database (issue 39): every list of the API pages through all its games once, newest
(last stored) first, with the right total; each filter keeps exactly the games a filter over every game keeps;
answers over 1 KiB go gzip-compressed to a client that accepts it."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest

from ledger.store import Ledger
from tests.web.league import LADDER, TOURNAMENT
from tournaments.play import results

BOT = "random_bot"


def scopes(league) -> dict[str, tuple[str, list[str]]]:
    """Each list's API path and its games, newest first, read from the ledger's own rows (not the read models)."""
    with closing(sqlite3.connect(league.path)) as connection:
        cup = connection.execute("SELECT id FROM tournaments WHERE name = ?", (TOURNAMENT,)).fetchone()[0]
        of_cup = [row[0] for row in connection.execute(
            "SELECT id FROM games WHERE tournament_id = ? ORDER BY store_seq DESC", (cup,))]
        of_ladder = [row[0] for row in connection.execute(
            "SELECT g.game_id FROM ladder_games g JOIN ladders l ON l.id = g.ladder_id WHERE l.name = ? "
            "ORDER BY g.seq DESC", (LADDER,))]
        of_bot = [row[0] for row in connection.execute(
            "SELECT g.id FROM games g WHERE g.store_seq IS NOT NULL AND EXISTS (SELECT 1 FROM seats s JOIN bots b "
            "ON b.id = s.bot_id WHERE s.game_id = g.id AND b.name = ?) ORDER BY g.store_seq DESC", (BOT,))]
    return {"tournament": (f"/api/tournaments/{cup}/games", of_cup),
            "ladder": (f"/api/ladders/{LADDER}/games", of_ladder),
            "bot": (f"/api/bots/{BOT}/games", of_bot)}


def every_page(api, path: str, limit: int, **query) -> tuple[list[str], list[int]]:
    ids, totals, offset = [], [], 0
    while True:
        answer = api.get(path, params={**query, "offset": offset, "limit": limit})
        assert answer.status_code == 200, answer.text
        page = answer.json()
        ids += [game["game_id"] for game in page["items"]]
        totals.append(page["total"])
        if page["next"] is None:
            return ids, totals
        assert page["next"] == offset + limit
        offset = page["next"]


@pytest.mark.parametrize("scope", ["tournament", "ladder", "bot"])
def test_a_list_pages_through_every_game_once_newest_first(api, league, scope):
    """Three at a time, a list gives each of its games once, the last stored first, every page saying the same
    total; one page of 200 gives the same."""
    path, expected = scopes(league)[scope]
    assert len(expected) >= 4
    ids, totals = every_page(api, path, 3)
    assert ids == expected and set(totals) == {len(expected)}
    assert every_page(api, path, 200)[0] == expected


def kept(game: results.GameResult, bot: str | None, result: str | None, forfeited: bool | None) -> bool:
    """The filter, worked out on a game's result (docs/web.md): win first alone, draw first shared, loss else."""
    def placed(rank: int) -> str:
        if rank != 1:
            return "loss"
        return "win" if sum(1 for seat in game.seats if seat.rank == 1) == 1 else "draw"

    seats = [seat for seat in game.seats if bot is None or seat.bot == bot]
    if not seats:
        return False
    if result is not None and result not in {placed(seat.rank) for seat in seats}:
        return False
    if forfeited is not None:
        by = game.forfeit is not None and (bot is None or game.forfeited_by == bot)
        if by != forfeited:
            return False
    return True


@pytest.mark.parametrize("bot", [None, BOT])
@pytest.mark.parametrize("result", [None, "win", "draw", "loss"])
@pytest.mark.parametrize("forfeited", [None, True, False])
def test_a_filtered_list_keeps_what_a_filter_over_every_game_keeps(api, league, bot, result, forfeited):
    """A tournament's games filtered by bot, result and forfeit in the database are the games a filter over
    every game's result keeps, in the same order, with that total."""
    path, every = scopes(league)["tournament"]
    ledger = Ledger(str(league.path), read_only=True)
    expected = [game.game_id for game in results.of_games(ledger, every) if kept(game, bot, result, forfeited)]
    ledger.close()
    query = {key: value for key, value in (("bot", bot), ("result", result),
                                           ("forfeited", None if forfeited is None else str(forfeited).lower()))
             if value is not None}
    ids, totals = every_page(api, path, 2, **query)
    assert ids == expected and set(totals) <= {len(expected)}


def test_answers_over_a_kibibyte_are_gzipped(api):
    """A ladder's page (many KiB) comes gzip-compressed when the client accepts it, and says it varies by
    Accept-Encoding; a small answer comes as it is; a client that accepts no gzip gets plain bytes."""
    page = api.get(f"/ladders/{LADDER}", headers={"Accept-Encoding": "gzip"})
    assert page.status_code == 200 and page.headers["content-encoding"] == "gzip"
    assert "accept-encoding" in page.headers["vary"].lower() and "<table" in page.text
    small = api.get("/api/me", headers={"Accept-Encoding": "gzip"})
    assert len(small.content) < 1024 and "content-encoding" not in small.headers
    plain = api.get(f"/ladders/{LADDER}", headers={"Accept-Encoding": "identity"})
    assert plain.status_code == 200 and "content-encoding" not in plain.headers
