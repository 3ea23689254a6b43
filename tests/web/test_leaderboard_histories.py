"""A leaderboard's rating histories and margins read without growing with the games (issue 39 item 3): each shown
row's latest points in one statement that steps down the index on (entry, game seq) and reads no older rating
(read_pages.ladder_histories), only for the rows a page or an answer shows; an Elo ladder's margins from each
entry's information added up in the database (read_pages.ladder_information), the same as from every pair."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from ledger import read_models, read_pages
from ledger.rows import ladder_rows
from ledger.store import Ledger
from tests.test_read_models import league_db, league_db_templates  # noqa: F401 (fixtures: a tournament and a ladder)
from tests.web.league import LADDER, ROOT, League, tourney
from tournaments.ladder import league as ladder_league
from tournaments.ratings import elo
from web.routes.ladders import SPARKLINE


def long_ladder(path: Path, games: int) -> Ledger:
    """A real SQLite ledger whose ladder has ``games`` games: entry 1 rated in each, entry 2 in every other one,
    entry 3 in none (the history tables written directly: what is measured is reading them, not storing)."""
    Ledger(str(path)).close()
    with closing(sqlite3.connect(path)) as connection, connection:  # foreign keys off: no games' events here
        connection.execute("INSERT INTO ladders (id, name, game, players, created_at, rating) VALUES "
                           "(1, 'long', 'lemur-tails', 2, '2026-01-01T00:00:00+00:00', 'elo')")
        connection.executemany(
            "INSERT INTO ladder_entries (id, ladder_id, bot_id, name, version, status, rating, games, submitted_at) "
            "VALUES (?, 1, ?, ?, 1, 'active', 1500.0, 0, '2026-01-01T00:00:00+00:00')",
            [(entry, entry, f"bot{entry}") for entry in (1, 2, 3)])
        for seq in range(1, games + 1):
            game = f"g{seq:06d}"
            connection.execute("INSERT INTO ladder_games (seq, ladder_id, game_id) VALUES (?, 1, ?)", (seq, game))
            connection.execute("INSERT INTO game_results (game_id, store_seq, ladder_id, ladder_number, created_at) "
                               "VALUES (?, ?, 1, ?, '2026-01-01T00:00:00+00:00')", (game, seq, seq))
            connection.execute("INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating) VALUES (?, 1, 1, ?)",
                               (seq, 1500.0 + seq))
            if seq % 2 == 0:
                connection.execute("INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating, sigma) "
                                   "VALUES (?, 2, 2, ?, 8.0)", (seq, 25.0 + seq / 1000))
    return Ledger(str(path), read_only=True)


def old_way(connection, entry: int, latest: int, up_to: int | None) -> list[tuple]:
    """The points as the whole-ladder reader gave them, one statement per entry."""
    return [(point["number"], point["rating"], point.get("sigma"))
            for point in read_pages.ladder_history(connection, entry, latest, up_to)]


@pytest.mark.parametrize("latest", [1, 7, SPARKLINE, 5000])
@pytest.mark.parametrize("up_to", [None, 1, 301, 600])
def test_histories_read_at_once_are_each_entrys_latest_points(tmp_path, latest, up_to):
    ledger = long_ladder(tmp_path / "long.db", 600)
    with ledger.read() as connection:
        read = read_pages.ladder_histories(connection, [1, 2, 3], latest, up_to)
        expected = {entry: old_way(connection, entry, latest, up_to) for entry in (1, 2, 3)}
    assert read == {entry: points for entry, points in expected.items() if points}
    assert len(read[1]) == min(latest, up_to or 600)
    ledger.close()


def steps(ledger: Ledger, read, every: int = 100) -> int:
    """SQLite's virtual machine steps (in ``every``s) ``read(connection)`` took: what it read, not how long."""
    counted = [0]

    def tick() -> int:
        counted[0] += 1
        return 0

    with ledger.read() as connection:
        raw = connection.connection.driver_connection
        raw.set_progress_handler(tick, every)
        try:
            read(connection)
        finally:
            raw.set_progress_handler(None, every)
    return counted[0]


def test_a_leaderboards_history_read_does_not_grow_with_the_games(tmp_path):
    """Ten times the games, the same steps for the latest 50 points of each entry, and for those up to a game (as a
    page as of a game reads them: here its last, whose seq is its number); a read of whole histories (what a sampled
    or unbounded read would scan) takes about ten times as many, so the count does see rows read."""
    sizes = (400, 4000)
    small, large = long_ladder(tmp_path / "small.db", sizes[0]), long_ladder(tmp_path / "large.db", sizes[1])
    bounded = [steps(ledger, lambda c: read_pages.ladder_histories(c, [1, 2, 3], SPARKLINE)) for ledger in
               (small, large)]
    # Bounded above too: SQLite's planner once took the bound on game seq for the index's range, from each entry's
    # first rating up to the game, with the latest points' lower bound evaluated per rating read (it grew tenfold).
    up_to = [steps(ledger, lambda c, last=last: read_pages.ladder_histories(c, [1, 2, 3], SPARKLINE, last))
             for ledger, last in zip((small, large), sizes, strict=True)]
    whole = [steps(ledger, lambda c: [read_pages.ladder_history(c, entry) for entry in (1, 2, 3)])
             for ledger in (small, large)]
    assert bounded[0] > 0 and bounded[1] <= 1.1 * bounded[0] + 2
    assert up_to[0] > 0 and up_to[1] <= 1.1 * up_to[0] + 2
    assert whole[1] > 5 * whole[0]
    for ledger in (small, large):
        ledger.close()


def test_the_margins_from_the_databases_sums_equal_those_from_every_pair(league: League):
    """On the seeded duel ladder (with two more bots and more games), each entry's information from the database's
    sums equals the one from every pair as matchmaking adds it up, and so the standings do, retired versions too."""
    db = ["--db", str(league.path)]
    for name in ("alpha", "bravo"):
        tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", name, *db)
    tourney("ladder", "play", LADDER, "--games", "6", "--jobs", "0", "--seed", "5", *db)
    ledger = Ledger(str(league.path), read_only=True)
    ladder = ladder_rows.get(ledger, LADDER)
    listed = ladder_rows.entries(ledger, ladder["id"], active_only=False)
    with ledger.read() as connection:
        records, pairs = read_models.ladder(connection, ladder["id"])
        information = read_pages.ladder_information(connection, ladder["id"], [e["id"] for e in listed], elo.SCALE)
    assert pairs and set(information) == {entry for entry, _opponent in pairs}
    for entry in listed:
        ratings = {e["id"]: e["rating"] for e in listed}
        by_pairs = sum(sum(counts) * (p := elo.expected(ratings[a], ratings[b])) * (1 - p)
                       for (a, b), counts in pairs.items() if a == entry["id"])
        assert information.get(entry["id"], 0.0) == pytest.approx(by_pairs, rel=1e-12, abs=1e-12)
    for retired in (False, True):
        assert [(s.name, s.version, round(s.margin, 6), s.rank_low, s.rank_high, s.tied) for s in
                ladder_league.standings(ledger, LADDER, retired, (records, None))] == \
            [(s.name, s.version, round(s.margin, 6), s.rank_low, s.rank_high, s.tied) for s in
             ladder_league.standings(ledger, LADDER, retired, (records, pairs))]
    ledger.close()


def test_each_shown_rows_history_is_its_latest_ratings_as_of_the_pages_game(serve, league: League):
    """A page of the API's rows, now and as of an earlier game: each row's history is the bot's history endpoint's
    points (that version's) numbered up to that game, the latest SPARKLINE of them; every row of a page has it."""
    db = ["--db", str(league.path)]
    for name in ("alpha", "bravo", "charlie"):
        tourney("ladder", "submit", LADDER, ROOT / "bots" / "random_bot.py", "--as", name, *db)
    tourney("ladder", "play", LADDER, "--games", "8", "--jobs", "0", "--seed", "7", *db)
    api = serve()
    whole = api.get(f"/api/ladders/{LADDER}").json()
    for at in (whole["at"], whole["at"] - 5):
        for offset in (0, 2, 4):
            page = api.get(f"/api/ladders/{LADDER}?at={at}&offset={offset}&limit=2").json()
            assert page["leaderboard"]
            for row in page["leaderboard"]:
                points = [point for point in api.get(f"/api/ladders/{LADDER}/bots/{row['bot']}/history").json()
                          if point["version"] == row["version"] and point["number"] <= at][-SPARKLINE:]
                assert row["history_games"] == [point["number"] for point in points]
                assert row["history"] == [point["rating"] for point in points]
                assert bool(points) == (row["games"] > 0)


def test_the_histories_and_the_information_on_both_backends(league_db):  # noqa: F811 (the fixture, imported)
    """The one-statement histories (now and up to an earlier game) and the database's information sums on SQLite
    and PostgreSQL: equal to the per-entry reader and to matchmaking's sum over every pair."""
    ledger = Ledger(league_db.url, ledger_key=league_db.key)
    try:
        ladder = ladder_rows.get(ledger, "duel")
        listed = ladder_rows.entries(ledger, ladder["id"], active_only=False)
        ids = [e["id"] for e in listed]
        ratings = {e["id"]: e["rating"] for e in listed}
        with ledger.read() as connection:
            seq = read_pages.ladder_seq(connection, ladder["id"], 5)
            for latest, up_to in ((SPARKLINE, None), (2, None), (3, seq)):
                expected = {entry: old_way(connection, entry, latest, up_to) for entry in ids}
                assert read_pages.ladder_histories(connection, ids, latest, up_to) == {
                    entry: points for entry, points in expected.items() if points}
            _records, pairs = read_models.ladder(connection, ladder["id"])
            information = read_pages.ladder_information(connection, ladder["id"], ids, elo.SCALE)
        assert pairs
        for entry in ids:
            by_pairs = sum(sum(counts) * (p := elo.expected(ratings[a], ratings[b])) * (1 - p)
                           for (a, b), counts in pairs.items() if a == entry)
            assert information.get(entry, 0.0) == pytest.approx(by_pairs, rel=1e-12, abs=1e-12)
    finally:
        ledger.close()


def test_the_ratings_rank_movement_compares_with_are_one_step_an_entry(tmp_path):
    """Each entry's rating as of a game, for rank movement: the same as the read that also counts each one's games,
    and the same steps at 400 and at 4,000 games (the counting read's steps grow with them here: this ladder's rows
    are written directly, with no snapshot of its sums; tests/ledger/test_ladder_snapshots.py measures it with)."""
    small, large = long_ladder(tmp_path / "small.db", 400), long_ladder(tmp_path / "large.db", 4000)
    for ledger, seq in ((small, 1), (small, 399), (large, 3001)):
        with ledger.read() as connection:
            assert read_pages.ladder_ratings_before(connection, 1, seq) == {
                entry: (rating, sigma) for entry, (rating, sigma, _games)
                in read_pages.ladder_ratings_at(connection, 1, seq).items()}
    one = [steps(ledger, lambda c, seq=seq: read_pages.ladder_ratings_before(c, 1, seq), every=5)
           for ledger, seq in ((small, 399), (large, 3999))]
    counting = [steps(ledger, lambda c, seq=seq: read_pages.ladder_ratings_at(c, 1, seq))
                for ledger, seq in ((small, 399), (large, 3999))]
    assert one[0] > 0 and one[1] <= 1.1 * one[0] + 2 and counting[1] > 5 * counting[0]
    for ledger in (small, large):
        ledger.close()


def test_the_app_keeps_what_it_built_out_of_the_collectors_generations(league: League):
    """Once built, the app's objects are frozen (gc.freeze): a full collection does not walk them on each answer."""
    import gc

    from web.app import create_app
    from web.settings import Settings

    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    app = create_app(Settings(db=str(league.path)))
    assert gc.get_freeze_count() > 0 and app.state.site is not None
