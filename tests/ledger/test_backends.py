"""The same recorder on every backend: concurrent writers in real processes, byte-exact read-back, and
(on PostgreSQL) the roles: an application role that may append but not undo the append-only rule."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys

import pytest

from ledger.chain import seal, verify_chain
from ledger.store import Ledger, LedgerError, NotALedger, SeatRow, StaleAppend
from tests.backends import opened_ledger, server_url, two_roles

WRITERS = 3
GAMES_EACH = 6


@pytest.fixture
def ledger(backend):
    """This module's tests run on every backend (tests/backends.py)."""
    yield from opened_ledger(backend)


def sealed(game_id: str, n: int, start: int = 0, prev: str | None = None):
    """A chain of ``n`` events whose bodies and private parts use every byte value and non-ASCII text."""
    records = []
    for seq in range(start, start + n):
        private = {"cards": list(range(seq % 7)), "note": "ünïcødé ✓"} if seq % 3 == 0 else None
        record = seal(game_id, seq, prev, "played", {"seat": seq % 4, "text": f"tail {seq} 🦊", "zero": "\x00"},
                      private, (seq % 4,), bytes(range(256))[seq % 240:][:16] if private else None)
        records.append(record)
        prev = record.hash
    return records


def game_row(game_id: str) -> dict:
    return {"id": game_id, "game": "high-cards", "engine_version": 1, "config": '{"seats":2}',
            "seed_commitment": "c" * 64}


def store_games(url: str, writer: int) -> list[str]:
    """One writer process: opens the ledger itself and stores its games one transaction each."""
    ledger = Ledger(url)
    bot = ledger.ensure_bot(f"writer-{writer}", "h" * 64, "python")
    stored = []
    for number in range(GAMES_EACH):
        game_id = f"w{writer}-g{number}"
        ledger.store_game(game_row(game_id), sealed(game_id, 40), "seed", "finished",
                          [SeatRow(0, bot, 1, 2), SeatRow(1, bot, 2, 0)])
        stored.append(game_id)
    ledger.close()
    return stored


def append_race(url: str, writer: int) -> tuple[int, int]:
    """One of several processes appending to the same game from a stale view half the time: (appended, stale)."""
    ledger = Ledger(url)
    appended = stale = 0
    for _ in range(12):
        at = ledger.game("shared")["events"]
        prev = ledger.records("shared")[-1].hash if at else None
        try:
            ledger.append("shared", at, sealed("shared", 2, at, prev))
            appended += 1
        except StaleAppend:
            stale += 1
    ledger.close()
    return appended, stale


def spawned():
    return multiprocessing.get_context("spawn").Pool(WRITERS)


@pytest.mark.slow
def test_concurrent_writers_store_every_game_whole(ledger, backend):
    """Writers in separate processes store games at the same time: every game whole, every chain intact."""
    with spawned() as pool:
        results = pool.starmap(store_games, [(backend.url, writer) for writer in range(WRITERS)])
    every = sorted(game_id for stored in results for game_id in stored)
    assert len(every) == WRITERS * GAMES_EACH
    with ledger.read() as connection:
        assert sorted(row[0] for row in connection.exec_driver_sql("SELECT id FROM games")) == every
    for game_id in every:
        assert verify_chain(game_id, ledger.records(game_id)) == ledger.game(game_id)["head"]
        assert [seat["rank"] for seat in ledger.seats(game_id)] == [1, 2]


@pytest.mark.slow
def test_concurrent_appends_to_one_game_leave_no_gap_and_no_duplicate(ledger, backend):
    """Processes racing to append to one game: each append lands whole at the next seq or is refused as stale."""
    ledger.create_game(game_row("shared"))
    with spawned() as pool:
        results = pool.starmap(append_race, [(backend.url, writer) for writer in range(WRITERS)])
    appended = sum(done for done, _ in results)
    assert sum(done + stale for done, stale in results) == WRITERS * 12
    records = ledger.records("shared")
    assert [r.seq for r in records] == list(range(2 * appended))
    assert verify_chain("shared", records) == ledger.game("shared")["head"]


def test_read_back_is_byte_for_byte(ledger):
    """Events, the game row and its seats come back exactly as written: every byte value, NULLs, non-ASCII."""
    records = sealed("g1", 30)
    bot = ledger.ensure_bot("rôle-ünïcode", "f" * 64, "program")
    head = ledger.store_game(game_row("g1"), records, "the-seed", "finished", [SeatRow(0, bot, 2, -3),
                                                                              SeatRow(1, bot, 1, None)])
    assert ledger.records("g1") == records
    assert all(isinstance(r.body, bytes) and (r.private is None or isinstance(r.private, bytes))
               for r in ledger.records("g1"))
    game = ledger.game("g1")
    assert {k: game[k] for k in (*game_row("g1"), "status", "events", "head", "seed", "end_reason")} == {
        **game_row("g1"), "status": "finished", "events": 30, "head": head, "seed": "the-seed",
        "end_reason": "finished"}
    assert [(s["seat"], s["bot"], s["rank"], s["score"]) for s in ledger.seats("g1")] == [
        (0, "rôle-ünïcode", 2, -3), (1, "rôle-ünïcode", 1, None)]


def test_a_database_of_another_application_is_left_untouched(backend):
    """A database holding another application's tables (and no tourney schema) is refused, and not migrated."""
    with backend.raw() as raw:
        raw.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)")
        raw.commit()
    with pytest.raises(NotALedger, match=r"another application.*notes"):
        Ledger(backend.url)
    assert backend.tables() == {"notes"}


# -- PostgreSQL's two roles (docs/scaling.md) ---------------------------------------------------------


@pytest.fixture
def roles(backend):
    """The owner role migrated the database; the application role got only the grants of docs/scaling.md."""
    with two_roles(backend) as made:
        yield made


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
@pytest.mark.parametrize("statement", [
    "DROP TRIGGER events_no_update ON events",
    "ALTER TABLE events DISABLE TRIGGER ALL",
    "DROP TABLE events CASCADE",
    "TRUNCATE events CASCADE",
    "UPDATE events SET type = 'forged'",
    "DELETE FROM events",
    "SET session_replication_role = replica",
    "CREATE OR REPLACE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NULL; END'",
])
def test_application_role_appends_but_cannot_undo_the_append_only_rule(backend, roles, statement):
    """The application role stores games, yet may not drop, disable or replace the triggers, nor edit events."""
    ledger = Ledger(roles.url(roles.app))
    bot = ledger.ensure_bot("alpha", "a" * 64, "python")
    ledger.store_game(game_row("g1"), sealed("g1", 5), "seed", "finished", [SeatRow(0, bot, 1, None)])
    with roles.connect(roles.app) as connection, \
            pytest.raises(backend.errors, match=r"must be owner|permission denied|append-only"):
        connection.execute(statement)
    assert ledger.records("g1") == sealed("g1", 5)
    assert len(backend.triggers()) >= 4
    ledger.close()


@pytest.mark.postgres
@pytest.mark.parametrize("backend", ["postgresql"], indirect=True)
def test_application_role_cannot_migrate_and_says_so(backend, roles):
    """The application role opening a database the owner has not yet upgraded gets one line, not a traceback."""
    owner_ledger = Ledger(roles.url(roles.owner))
    owner_ledger.downgrade("0003")
    owner_ledger.close()
    with pytest.raises(LedgerError, match=r"permission denied|must be owner"):
        Ledger(roles.url(roles.app))


@pytest.mark.slow
def test_missing_driver_names_the_extra(tmp_path):
    """A PostgreSQL URL without psycopg installed is one `error:` line naming `tourney[postgres]`."""
    code = ("import sys; sys.modules['psycopg'] = None; sys.argv = ['tourney', 'db', 'current', '--db', "
            f"{server_url('league')!r}]; from tournaments.__main__ import main; main()")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert result.returncode == 1
    assert result.stderr == ("error: cannot use database URL "
                             f"'{server_url('league')}': its driver psycopg is not installed: "
                             "pip install 'tourney[postgres]'\n")


def test_diagnoses_round_trip_and_stay_with_their_owner(ledger):
    """On every backend: a forfeit's diagnosis (revision 0014) stored in its game's transaction reads back whole, by
    game (with its seat's kept stderr once there is one) and by bot, text of any character included; a refused
    submission's is read by its owner alone."""
    from ledger.rows import game_rows, ladder_rows, owner_rows, submission_rows

    bot = ledger.ensure_bot("crashy", "h" * 64, "python")
    other = ledger.ensure_bot("steady", "i" * 64, "python")
    detail = 'Traceback (most recent call last):\n  File "/bot/crashy.py", line 4, in act\nKeyError: \'ü ✓\'\n'
    with ledger.write() as connection:
        ledger.store_game(game_row("g-1"), sealed("g-1", 3), "seed", "forfeit",
                          [SeatRow(0, other, 1, None), SeatRow(1, bot, 2, None)], connection)
        game_rows.store_diagnoses(connection, [("g-1", 1, "traceback", "KeyError: 'ü ✓' at crashy.py line 4, in act",
                                                detail, "/logs/crashy/t0-d0-r0-seat1.log")])
    found = game_rows.diagnoses(ledger, ["g-1"])
    assert found == {("g-1", 1): {"game_id": "g-1", "seat": 1, "kind": "traceback",
                                  "summary": "KeyError: 'ü ✓' at crashy.py line 4, in act", "detail": detail,
                                  "log": "/logs/crashy/t0-d0-r0-seat1.log", "stderr_kept": False}}
    assert game_rows.diagnoses(ledger, ["g-1"], stderr=True)[("g-1", 1)]["stderr"] is None
    game_rows.store_logs(ledger, "g-1", [(0, b"steady's own print\n"), (1, detail.encode())])
    assert game_rows.diagnoses(ledger, ["g-1"])[("g-1", 1)]["stderr_kept"] is True
    kept = game_rows.diagnoses(ledger, ["g-1"], stderr=True)[("g-1", 1)]
    assert kept["stderr"] == detail.encode() and kept["stderr_kept"] is True  # its seat's, not seat 0's
    page, total = game_rows.diagnoses_of_bot(ledger, "crashy", 10, 0)
    assert total == 1 and page[0]["detail"] == detail and page[0]["content_hash"] == "h" * 64
    assert game_rows.diagnoses_of_bot(ledger, "steady", 10, 0) == ([], 0)
    ladder = ladder_rows.create(ledger, "spring", "lemur-tails", 2)
    alice = owner_rows.add(ledger, "alice", "a" * 64)
    bob = owner_rows.add(ledger, "bob", "b" * 64)
    submitted = submission_rows.add(ledger, ladder, alice, "crashy2", "crashy2.py", "crashy2.py", b"x")
    told = submission_rows.Told("traceback", "KeyError: 'ü ✓' at crashy.py line 4, in act", detail)
    submission_rows.decide(ledger, submitted, submission_rows.REFUSED, "crashy2 refused: ...", None, told)
    assert submission_rows.diagnosis_of(ledger, submitted, alice) == told
    assert submission_rows.diagnosis_of(ledger, submitted, bob) is None
