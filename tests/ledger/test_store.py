"""The ledger on each backend (a real SQLite file, a real PostgreSQL database): append, read back,
append-only, stale appends, atomic games."""

from __future__ import annotations

import pytest

from ledger.chain import seal, verify_chain
from ledger.store import GameExists, Ledger, LedgerError, SeatRow, StaleAppend, resolve_url
from tests.backends import opened_ledger

SALT = b"s" * 16


@pytest.fixture
def ledger(backend):
    """This module's tests run on every backend (tests/backends.py)."""
    yield from opened_ledger(backend)


def game_row(game_id="g1"):
    return {"id": game_id, "game": "high-cards", "engine_version": 1, "config": '{"seats":2}',
            "seed_commitment": "c" * 64}


def chain(game_id="g1", n=4, start=0, prev=None):
    out = []
    for seq in range(start, start + n):
        private = {"card": seq} if seq % 2 else None
        record = seal(game_id, seq, prev, "moved", {"seat": seq % 2}, private, (seq % 2,), SALT if private else None)
        out.append(record)
        prev = record.hash
    return out


def test_append_and_read_back(ledger):
    """Appended events come back byte for byte, in order, and still verify."""
    records = chain()
    ledger.create_game(game_row())
    head = ledger.append("g1", 0, records)
    assert ledger.records("g1") == records
    assert verify_chain("g1", ledger.records("g1")) == head == records[-1].hash
    assert ledger.game("g1")["events"] == 4


def test_appends_continue_a_log(ledger):
    """A second append at the next seq extends the log."""
    first = chain(n=2)
    second = chain(n=2, start=2, prev=first[-1].hash)
    ledger.create_game(game_row())
    ledger.append("g1", 0, first)
    ledger.append("g1", 2, second)
    assert [r.seq for r in ledger.records("g1")] == [0, 1, 2, 3]


def test_stale_append_is_refused_and_changes_nothing(ledger):
    """Appending with an expected seq the log has moved past fails clearly: no duplicate, no gap."""
    ledger.create_game(game_row())
    ledger.append("g1", 0, chain(n=3))
    with pytest.raises(StaleAppend, match="expected the log at seq 0, but it is at seq 3"):
        ledger.append("g1", 0, chain(n=3))
    with pytest.raises(StaleAppend):
        ledger.append("g1", 5, chain(n=1, start=5))
    assert [r.seq for r in ledger.records("g1")] == [0, 1, 2]
    row = ledger.game("g1")
    assert (row["events"], row["head"]) == (3, ledger.records("g1")[-1].hash)
    with pytest.raises(LedgerError, match="no game g2 to append to"):
        ledger.append("g2", 0, chain(n=1))


UPDATES_AND_DELETES = [
    "UPDATE events SET type = 'forged' WHERE seq = 1",
    "UPDATE events SET body = {blob}",
    "DELETE FROM events WHERE seq = 3",
    "DELETE FROM events",
]


@pytest.mark.parametrize("statement", UPDATES_AND_DELETES)
def test_database_rejects_update_and_delete_of_events(ledger, backend, statement):
    """Raw SQL through the driver (not the ledger) cannot change or remove an event: triggers abort it."""
    ledger.create_game(game_row())
    ledger.append("g1", 0, chain())
    with backend.raw() as raw:
        with pytest.raises(backend.errors, match="append-only"):
            raw.execute(statement.format(blob=backend.blob("00")))
        raw.rollback()
        assert tuple(raw.execute("SELECT COUNT(*), MIN(type) FROM events").fetchone()) == (4, "moved")


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
@pytest.mark.parametrize("statement", ["TRUNCATE events CASCADE", "UPDATE events SET type = 'forged' WHERE seq = 99"],
                         ids=["truncate", "update-no-row"])
def test_postgres_statement_triggers_refuse_truncate_and_empty_updates(ledger, backend, statement):
    """On PostgreSQL the refusal is per statement: TRUNCATE (which fires no row trigger) and an UPDATE
    matching no row abort too (SQLite has no TRUNCATE; its DELETE is covered above)."""
    ledger.create_game(game_row())
    ledger.append("g1", 0, chain())
    with backend.raw() as raw, pytest.raises(backend.errors, match=r"append-only: (TRUNCATE|UPDATE)"):
        raw.execute(statement)
    assert len(ledger.records("g1")) == 4


@pytest.mark.parametrize(("game_id", "seq"), [
    ("g1", 0), ("g1", 1),  # repeats
    ("g1", 3), ("g1", 4), ("g1", 7),  # gaps of one, two and five seqs after seq 1
    ("g2", 1), ("g2", 2),  # gaps in a game with no events yet
], ids=["repeat-0", "repeat-1", "gap-1", "gap-2", "gap-5", "first-gap-1", "first-gap-2"])
def test_database_rejects_a_gap_or_a_duplicate_seq(ledger, backend, game_id, seq):
    """Raw inserts must land at the game's next seq: a repeat, or a gap of any size (one seq too), aborts."""
    ledger.create_game(game_row())
    ledger.append("g1", 0, chain(n=2))
    ledger.create_game(game_row("g2"))
    with backend.raw() as raw, pytest.raises(backend.errors, match="next seq"):
        raw.execute(backend.sql(f"INSERT INTO events VALUES (?, ?, 't', 'public', {backend.blob('00')}, NULL, "
                                "NULL, 'h')"), (game_id, seq))
    assert [r.seq for r in ledger.records("g1")] == [0, 1]
    assert ledger.records("g2") == []


def test_database_accepts_the_next_seq_by_raw_insert(ledger, backend):
    """The contiguity trigger lets the very next seq through (so the gap tests above fail for the gap alone)."""
    ledger.create_game(game_row())
    ledger.append("g1", 0, chain(n=2))
    with backend.raw() as raw:
        raw.execute(f"INSERT INTO events VALUES ('g1', 2, 't', 'public', {backend.blob('00')}, NULL, NULL, 'h')")
        raw.commit()
    assert [r.seq for r in ledger.records("g1")] == [0, 1, 2]


def test_whole_game_write_is_atomic(ledger):
    """A failure mid-game (here a seat naming an unknown bot) stores nothing of that game."""
    bot = ledger.ensure_bot("random", "h" * 64, "python")
    seats = [SeatRow(0, bot, 1, None), SeatRow(1, 999_999, 2, None)]
    with pytest.raises(Exception, match=r"(?i)FOREIGN KEY"):
        ledger.store_game(game_row(), chain(), "seed", "finished", seats)
    assert ledger.game("g1") is None
    assert ledger.records("g1") == []


def test_whole_game_write_stores_row_events_and_seats(ledger):
    """A finished game is stored with its seed, head, events and ranked seats."""
    bot = ledger.ensure_bot("random", "h" * 64, "python")
    records = chain()
    ledger.store_game(game_row(), records, "the-seed", "finished", [SeatRow(0, bot, 1, 3), SeatRow(1, bot, 2, 1)])
    game = ledger.game("g1")
    assert (game["status"], game["seed"], game["head"], game["events"]) == ("finished", "the-seed",
                                                                             records[-1].hash, 4)
    assert [(s["seat"], s["bot"], s["rank"], s["score"]) for s in ledger.seats("g1")] == [
        (0, "random", 1, 3), (1, "random", 2, 1)]


def test_same_game_id_twice_is_refused(ledger):
    """A game id is stored once."""
    ledger.create_game(game_row())
    with pytest.raises(GameExists):
        ledger.create_game(game_row())


def test_ensure_bot_is_idempotent(ledger):
    """The same name and content hash is one bot; new content is a new version."""
    first = ledger.ensure_bot("alpha", "a" * 64, "python")
    assert ledger.ensure_bot("alpha", "a" * 64, "python") == first
    assert ledger.ensure_bot("alpha", "b" * 64, "python") != first


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
def test_pragmas_are_set_on_every_connection(ledger):
    """WAL, synchronous=NORMAL, foreign keys on, a busy timeout."""
    from ledger.dialect import pragma

    with ledger.read() as connection:
        assert pragma(connection, "journal_mode") == "wal"
        assert pragma(connection, "synchronous") == 1
        assert pragma(connection, "foreign_keys") == 1
        assert pragma(connection, "busy_timeout") >= 1000


def test_url_resolution(monkeypatch):
    """--db wins over TOURNEY_DB, which wins over sqlite:///tourney.db; a bare path is an SQLite file."""
    monkeypatch.delenv("TOURNEY_DB", raising=False)
    assert resolve_url(None) == "sqlite:///tourney.db"
    monkeypatch.setenv("TOURNEY_DB", "sqlite:////tmp/env.db")
    assert resolve_url(None) == "sqlite:////tmp/env.db"
    assert resolve_url("league.db") == "sqlite:///league.db"


def test_unopenable_database_is_a_clear_error(tmp_path):
    """A path in a directory that does not exist gives one clear LedgerError line."""
    with pytest.raises(LedgerError, match=r"no folder .*missing for the database x\.db"):
        Ledger(str(tmp_path / "missing" / "x.db"))


def test_find_games_by_prefix(ledger):
    """Commands accept a unique prefix of a game id."""
    for game_id in ("abc123", "abd456"):
        ledger.create_game(game_row(game_id))
    assert ledger.find_games("abc") == ["abc123"]
    assert ledger.find_games("ab") == ["abc123", "abd456"]
    assert ledger.find_games("zz") == []
