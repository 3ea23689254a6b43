"""A ladder's snapshots of its sums (ledger/ladder_snapshots.py, revision 0019; issue 39): the ladder read as of
any game (`?at=`) equals the sums of every game up to it, before, at and after each snapshot, through voids before
and after a snapshot and the games stored after them, and so do its Elo margins then (each entry's information
summed in the database, against matchmaking's sum over every pair); the audit names a tampered snapshot row and
--rebuild mends it; a ledger of revision 0018 is upgraded; and the reads as of a game take the same steps at ten
times the games."""

from __future__ import annotations

import math
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest
from sqlalchemy import text

import migrations
from ledger import ladder_snapshots, read_models, read_pages
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import projections
from tests.backends import Backend
from tests.tamper import fetch, tamper
from tests.test_read_models import audit_names, audited, ladder_games, make_ladder, tourney
from tests.web.test_leaderboard_histories import steps
from tournaments.ladder import matchmaking
from tournaments.ratings import elo
from web.routes import ladders as ladder_pages

SPACING = 3
"""The snapshot spacing forced here: with three bots (at most nine rows) a snapshot every 3 to 9 games."""


@pytest.fixture
def spaced(monkeypatch):
    monkeypatch.setattr(ladder_snapshots, "SPACING", SPACING)


def whole(connection, ladder_id: int, number: int) -> tuple[dict, dict]:
    """The ladder as of game ``number`` summed over every game up to it, no snapshot read (the reader before
    snapshots)."""
    records, pairs = ladder_snapshots.sums(connection, ladder_id, 0, number)
    for (entry, _opponent), (won, drawn, _lost) in pairs.items():
        records[entry]["points2"] += 2 * won + drawn
    return records, pairs


def snapshots(backend: Backend) -> list[int]:
    return [number for (number,) in fetch(backend, "SELECT number FROM ladder_snapshots ORDER BY number")]


def uncertainties(ratings: dict[int, float], pairs: dict, listed: list[int]) -> dict[int, float]:
    """Each listed entry's SE as the page computed it before (matchmaking's sum over every pair, in Python; an entry
    that had not played by then has no pair, whatever its rating)."""
    return matchmaking.uncertainties_of_pairs({entry: ratings.get(entry, elo.MEAN) for entry in listed},
                                              {pair: sum(counts) for pair, counts in pairs.items()})


def check_margins(ledger: Ledger, connection, ladder_id: int, number: int) -> None:
    """As of game ``number``: the page's reads (records without a pair, then each entry's points and information
    summed in the database) give the whole sum's records, and each entry's SE from its information equals
    matchmaking's over every pair (to 1e-12), for every entry and for all but one; the page's margins are those."""
    records, pairs = whole(connection, ladder_id, number)
    seq = read_pages.ladder_seq(connection, ladder_id, number)
    entries = sorted(ladder_rows.entry_of_bot(connection, ladder_id).values())
    ratings = {entry: rating for entry, (rating, _sigma) in read_pages.ladder_ratings_before(
        connection, ladder_id, seq).items()}
    for listed in (entries, entries[1:]):
        found = read_pages.ladder_records_at(connection, ladder_id, number)
        paired = read_pages.ladder_pair_sums_at(connection, ladder_id, number, seq, listed, elo.SCALE)
        for entry, (points2, _information) in paired.items():
            found[entry]["points2"] = points2
        assert found == records, number
        expected = uncertainties(ratings, pairs, listed)
        assert {entry for entry, (_points2, information) in paired.items() if information is not None} <= set(listed)
        for entry, se in expected.items():
            information = paired.get(entry, (0, None))[1] or 0.0
            assert elo.SCALE / math.log(10) / math.sqrt(matchmaking.PRIOR_INFORMATION + information) == \
                pytest.approx(se, rel=1e-12), (number, entry)
    ids = {(e["name"], e["version"]): e["id"] for e in ladder_rows.entries(ledger, ladder_id, active_only=False)}
    for retired in (False, True):
        board = ladder_pages.ladder_at(ledger, "duel", number, retired).leaderboard
        expected = uncertainties(ratings, pairs, [ids[(row.bot, row.version)] for row in board])
        assert [row.margin for row in board] == [round(1.96 * expected[ids[(row.bot, row.version)]], 1)
                                                 for row in board], number
        assert [row.score for row in board] == [ladder_pages.record_of(records.get(ids[(row.bot, row.version)], {}),
                                                                       2)["score"] for row in board], number


def check_every_game(ledger: Ledger, ladder_id: int) -> int:
    """At every game of the ladder (and 0): the snapshot read equals the whole sum, so do the page's Elo margins
    (``check_margins``), and each entry's rating as of it counts its rating rows up to it (the count before
    snapshots). How many games the ladder has."""
    with ledger.read() as connection:
        count = read_pages.ladder_count(connection, ladder_id)
        for number in range(count + 1):
            assert read_pages.ladder_at(connection, ladder_id, number) == whole(connection, ladder_id, number), number
            check_margins(ledger, connection, ladder_id, number)
            seq = read_pages.ladder_seq(connection, ladder_id, number)
            assert seq == (connection.execute(text(
                "SELECT seq FROM ladder_games WHERE ladder_id = :ladder ORDER BY seq LIMIT 1 OFFSET :skip"),
                {"ladder": ladder_id, "skip": number - 1}).scalar() if number else 0)
            assert {entry: games for entry, (_rating, _sigma, games) in read_pages.ladder_ratings_at(
                connection, ladder_id, seq).items()} == {
                entry: len(read_pages.ladder_history(connection, entry, None, seq)) for entry in
                ladder_rows.entry_of_bot(connection, ladder_id).values()
                if read_pages.ladder_history(connection, entry, None, seq)}
    return count


def test_the_ladder_as_of_any_game_is_the_sum_of_its_games_through_voids_and_new_games(backend, spaced):
    """Snapshots are taken as games are stored; at every game the ladder read from the latest snapshot and the
    games since equals the sum of every game. A void before the second snapshot deletes it and those after (the
    first stays), a void after the last deletes none; the games stored next take them again; the audit passes."""
    ledger = Ledger(backend.url, ledger_key=backend.key)
    try:
        make_ladder(ledger)
        ladder_id = ladder_rows.get(ledger, "duel")["id"]
        ladder_games(ledger, "duel", 9)
        taken = snapshots(backend)
        assert len(taken) >= 2 and taken[0] == SPACING, taken
        assert check_every_game(ledger, ladder_id) == 18
        games = ladder_rows.game_ids(ledger, ladder_id)
        voided = taken[1] - 1  # between the first and the second snapshot
        assert tourney("ladder", "void", "duel", games[voided - 1], "--reason", "a test", "--db",
                       backend.url).exit_code == 0
        assert snapshots(backend) == taken[:1]
        check_every_game(ledger, ladder_id)
        assert taken[-1] < 18, taken  # the last game is after the last snapshot: its void deletes none
        assert tourney("ladder", "void", "duel", games[17], "--reason", "a test", "--db", backend.url).exit_code == 0
        assert snapshots(backend) == taken[:1]
        ladder_games(ledger, "duel", 6, seed="later")  # each stored match takes the next snapshot due
        again = snapshots(backend)
        assert len(again) >= 3 and again[:1] == taken[:1], again
        assert check_every_game(ledger, ladder_id) == 30
        with ledger.read() as connection:
            assert ladder_snapshots.latest(connection, ladder_id, 30)[0] == again[-1] > voided
    finally:
        ledger.close()
    assert audited(backend.url).differences == []


def test_the_audit_names_a_tampered_snapshot_row_and_rebuild_mends_it(backend, spaced):
    """A snapshot's row changed by hand: `tourney db audit` fails naming it (stored and rebuilt values); a mark's
    row count too; `db audit --rebuild` clears the snapshots and takes them again, after which the audit passes."""
    ledger = Ledger(backend.url, ledger_key=backend.key)
    make_ladder(ledger)
    ladder_games(ledger, "duel", 5)
    ledger.close()
    number, entry = fetch(backend, "SELECT number, entry_id FROM ladder_snapshot_rows WHERE opponent_id = 0 "
                                   "ORDER BY number DESC, entry_id LIMIT 1")[0]
    tamper(backend, ("UPDATE ladder_snapshot_rows SET wins = wins + 1 WHERE number = ? AND entry_id = ? AND "
                     "opponent_id = 0", (number, entry)))
    audit_names(backend.url, f"ladder_snapshot_rows (ladder_id=1, number={number}, entry_id={entry}, opponent_id=0)",
                "wins")
    mended = tourney("db", "audit", "--rebuild", "--db", backend.url)
    assert mended.exit_code == 0, mended.output
    assert number in snapshots(backend)
    tamper(backend, ("UPDATE ladder_snapshots SET row_count = row_count + 1 WHERE number = ?", (number,)))
    failed = tourney("db", "audit", "--db", backend.url)
    assert failed.exit_code == 1 and f"ladder_snapshots (ladder_id=1, number={number}): stored row_count=" \
        in failed.output, failed.output


def test_revision_0019_upgrades_a_ledger_of_0018_and_db_upgrade_takes_its_snapshots(backend, spaced):
    """A ladder's games at revision 0018 (no snapshot table, no index by number): the upgrade adds them, `tourney db
    upgrade` takes the snapshots due, and the ladder as of each game is what it was; down to 0018 they go again."""
    ledger = Ledger(backend.url, ledger_key=backend.key)
    make_ladder(ledger)
    ladder_games(ledger, "duel", 4)
    ladder_id = ladder_rows.get(ledger, "duel")["id"]
    with ledger.read() as connection:
        before = [read_pages.ladder_at(connection, ladder_id, number) for number in range(9)]
    taken = snapshots(backend)
    assert taken
    ledger.downgrade("0018")
    assert {"ladder_snapshots", "ladder_snapshot_rows"}.isdisjoint(tables(ledger))
    ledger.close()
    upgraded = tourney("db", "upgrade", "--db", backend.url)
    assert upgraded.exit_code == 0 and f"at revision {migrations.HEAD}" in upgraded.output, upgraded.output
    assert snapshots(backend) == taken  # those the games took as they were stored
    ledger = Ledger(backend.url, ledger_key=backend.key)
    try:
        assert "ix_game_results_ladder_number" in indexes(ledger, "game_results")
        with ledger.read() as connection:
            assert [read_pages.ladder_at(connection, ladder_id, number) for number in range(9)] == before
        check_every_game(ledger, ladder_id)
    finally:
        ledger.close()
    assert audited(backend.url).differences == []


def tables(ledger: Ledger) -> set[str]:
    from sqlalchemy import inspect

    return set(inspect(ledger.engine).get_table_names())


def indexes(ledger: Ledger, table: str) -> set[str]:
    from sqlalchemy import inspect

    return {index["name"] for index in inspect(ledger.engine).get_indexes(table)}


# -- the reads as of a game do not grow with the games ------------------------------------------------------------


def long_ladder(path: Path, games: int) -> Ledger:
    """A real SQLite ledger whose ladder has ``games`` counted games of three entries (bots 1-3; entry 3 sits out
    every third game), their rating rows and their snapshots (the rows written directly: what is measured is
    reading them, not storing)."""
    Ledger(str(path)).close()
    stamp = "2026-01-01T00:00:00+00:00"
    with closing(sqlite3.connect(path)) as connection, connection:  # foreign keys off: no games' events here
        connection.execute("INSERT INTO ladders (id, name, game, players, created_at, rating) VALUES "
                           f"(1, 'long', 'lemur-tails', 2, '{stamp}', 'elo')")
        connection.executemany(
            "INSERT INTO ladder_entries (id, ladder_id, bot_id, name, version, status, rating, games, submitted_at) "
            f"VALUES (?, 1, ?, ?, 1, 'active', 1500.0, 0, '{stamp}')", [(e, e, f"bot{e}") for e in (1, 2, 3)])
        for seq in range(1, games + 1):
            game = f"g{seq:06d}"
            seated = (1, 2) if seq % 3 else (2, 3)
            connection.execute("INSERT INTO ladder_games (seq, ladder_id, game_id) VALUES (?, 1, ?)", (seq, game))
            connection.execute("INSERT INTO game_results (game_id, store_seq, ladder_id, ladder_number, created_at) "
                               "VALUES (?, ?, 1, ?, ?)", (game, seq, seq, stamp))
            for seat, bot in enumerate(seated):
                connection.execute(
                    "INSERT INTO seat_results (game_id, seat, store_seq, bot_id, bot, rank, result, forfeited) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, 0)", (game, seat, seq, bot, f"bot{bot}", seat + 1,
                                                        "win" if seat == 0 else "loss"))
                connection.execute("INSERT INTO ladder_ratings (game_seq, entry_id, rank, rating) VALUES (?, ?, ?, ?)",
                                   (seq, bot, seat + 1, 1500.0 + seq))
    ledger = Ledger(str(path))
    with ledger.write() as connection:
        ladder_snapshots.keep_all(connection)
    return ledger


def test_a_ladder_read_as_of_a_game_takes_the_same_steps_at_ten_times_the_games(tmp_path, monkeypatch):
    """The same distance past a snapshot, 400 and 4,000 games in: the ladder as of that game as its page reads it
    (records, each entry's points and Elo information summed from the pairs then, the ratings with their games, the
    game's seq) takes the same SQLite steps; the sum of every game up to it takes about ten times as many, so the
    count does see the rows read."""
    monkeypatch.setattr(ladder_snapshots, "SPACING", 100)
    small, large = long_ladder(tmp_path / "small.db", 400), long_ladder(tmp_path / "large.db", 4000)

    def as_of(connection, number: int) -> None:  # what the page as of a game reads (web.routes.ladders.ladder_at)
        seq = read_pages.ladder_seq(connection, 1, number)
        records = read_pages.ladder_records_at(connection, 1, number)
        read_pages.ladder_ratings_at(connection, 1, seq, records)
        read_pages.ladder_pair_sums_at(connection, 1, number, seq, [1, 2, 3], elo.SCALE)

    try:
        for ledger, number in ((small, 350), (large, 3950)):
            with ledger.read() as connection:
                assert ladder_snapshots.latest(connection, 1, number)[0] == number - 50
                assert read_pages.ladder_at(connection, 1, number) == whole(connection, 1, number)
        snapped = [steps(ledger, lambda c, n=number: as_of(c, n), every=5) for ledger, number in
                   ((small, 350), (large, 3950))]
        summed = [steps(ledger, lambda c, n=number: whole(c, 1, n), every=5) for ledger, number in
                  ((small, 350), (large, 3950))]
        assert snapped[0] > 0 and snapped[1] <= 1.1 * snapped[0] + 2, snapped
        assert summed[1] > 5 * summed[0], summed
    finally:
        small.close()
        large.close()


def test_a_ladders_latest_number_takes_the_same_steps_at_ten_times_the_games(tmp_path):
    """How many games a ladder has numbered (every page's latest game, the list of ladders, and the number the next
    stored game takes) is one step down the index on game_results' ladder and number: the same steps at 400 and
    4,000 games, equal to the count of its games, which reads each of them (about ten times the steps, so the count
    does see rows)."""
    small, large = long_ladder(tmp_path / "small.db", 400), long_ladder(tmp_path / "large.db", 4000)

    def counted(connection) -> int:
        return connection.execute(text("SELECT COUNT(*) FROM ladder_games WHERE ladder_id = 1")).scalar()

    try:
        for ledger, games in ((small, 400), (large, 4000)):
            with ledger.read() as connection:
                assert read_pages.ladder_count(connection, 1) == counted(connection) == games
        latest = [steps(ledger, lambda c: read_pages.ladder_count(c, 1), every=1) for ledger in (small, large)]
        whole = [steps(ledger, counted, every=1) for ledger in (small, large)]
        assert latest[0] > 0 and latest[1] <= latest[0] + 2, latest
        assert whole[1] > 5 * whole[0], whole
    finally:
        small.close()
        large.close()


def test_the_catch_up_numbers_a_ladders_games_in_steps_that_grow_with_them_not_their_square(tmp_path):
    """A rebuild (the catch-up from 0) numbers each ladder game, a chunk at a time: the ladder's games up to its
    first counted once, then only those since the last numbered, and a chunk reads its own games' ladder rows. Every
    number is the count of the ladder's games up to it; numbering ten times the games takes about ten times the
    steps (counting each from the first took about a hundred; reading every ladder game each chunk, about 80)."""
    small, large = long_ladder(tmp_path / "small.db", 400), long_ladder(tmp_path / "large.db", 4000)

    def numbered(connection, games: int) -> list[int]:  # long_ladder's games, in store order, a chunk at a time
        ids, numbers, out = [f"g{seq:06d}" for seq in range(1, games + 1)], projections.Numbers(), []
        for start in range(0, games, projections.CHUNK):
            chunk = ids[start:start + projections.CHUNK]
            ladders = projections.Ladders.read(connection, chunk)
            out += [numbers.of(connection, ladders, 1, game) for game in chunk]
        return out

    try:
        for ledger, games in ((small, 400), (large, 4000)):
            with ledger.read() as connection:
                assert numbered(connection, games) == list(range(1, games + 1))
                assert read_models.ladder_number(connection, 1, f"g{games // 2:06d}") == games // 2
        counted = [steps(ledger, lambda c, n=games: numbered(c, n)) for ledger, games in ((small, 400), (large, 4000))]
        assert counted[0] > 0 and counted[1] <= 15 * counted[0], counted
    finally:
        small.close()
        large.close()
