"""bench/peer_schemas.py's candidate schemas hold what the ledger holds and refuse what they claim to refuse."""

from __future__ import annotations

import sqlite3

import pytest

from bench.peer_schemas import BY_NAME, SCHEMAS, SHIFT, Schema, Writer, connect, create
from tests.ledger.test_store import chain

GAMES = ("g1", "g2")


@pytest.fixture(params=[schema.name for schema in SCHEMAS])
def written(request, tmp_path):
    """A file of each schema holding g1 (4 events, through the schema's prototype writer) and g2 (none)."""
    schema = BY_NAME[request.param]
    connection = connect(tmp_path / "events.db", schema.page_size)
    create(connection, schema, GAMES)
    Writer(connection, schema).write("g1", 1, chain("g1"))
    yield schema, connection
    connection.close()


def raw_insert(connection: sqlite3.Connection, schema: Schema, game: int, seq: int) -> None:
    """One event inserted by plain SQL, as a program other than the writer could."""
    ref = GAMES[game - 1] if schema.game == "id" else game
    row = (ref, seq, "t", "public", b"{}", None, None, bytes(32) if schema.hash_blob else "0" * 64)
    if schema.layout == "rowid":
        row = (game * SHIFT + seq, *row)
    connection.execute(f"INSERT INTO events ({schema.columns()}) VALUES ({', '.join('?' * len(row))})", row)


def test_the_writer_stores_the_exact_records(written):
    """Each prototype stores every field of each record: the canonical bytes, the private part, salt and hash."""
    schema, connection = written
    rows = connection.execute(f"SELECT seq, type, audience, body, private, salt, hash FROM events WHERE "
                              f"{'game_id' if schema.game == 'id' else 'game_key'} = ? ORDER BY seq",
                              ("g1" if schema.game == "id" else 1,)).fetchall()
    stored = [(*row[:6], row[6].hex() if schema.hash_blob else row[6]) for row in rows]
    assert stored == [tuple(record) for record in chain("g1")]


@pytest.mark.parametrize("statement", ["UPDATE events SET type = 'forged' WHERE seq = 1", "DELETE FROM events"])
def test_updates_and_deletes_are_refused(written, statement):
    """Every candidate keeps the triggers that abort UPDATE and DELETE."""
    _, connection = written
    with pytest.raises(sqlite3.IntegrityError, match="append-only"):
        connection.execute(statement)


@pytest.mark.parametrize(("game", "seq"), [(1, 0), (1, 3)], ids=["seq-0", "seq-3"])
def test_a_repeated_seq_is_refused(written, game, seq):
    """UNIQUE (game, seq) holds in every candidate (the rowid layout's through its CHECK and the rowid)."""
    schema, connection = written
    with pytest.raises(sqlite3.IntegrityError):
        raw_insert(connection, schema, game, seq)


@pytest.mark.parametrize(("game", "seq"), [(1, 5), (1, 9), (2, 1)], ids=["gap-1", "gap-5", "first-gap"])
def test_a_gap_is_refused_where_the_schema_checks_contiguity(written, game, seq):
    """A raw insert past the next seq fails in every schema that checks contiguity, and passes in those that do not
    (the table's upper bounds), on a connection with foreign_keys=ON as every tourney connection."""
    schema, connection = written
    if schema.refuses_gaps:
        with pytest.raises(sqlite3.IntegrityError, match=r"next seq|FOREIGN KEY"):
            raw_insert(connection, schema, game, seq)
    else:
        raw_insert(connection, schema, game, seq)


def test_the_next_seq_is_accepted(written):
    """The next seq of a game, and seq 0 of a game with no events, go in (so a refusal above is for the gap)."""
    schema, connection = written
    raw_insert(connection, schema, 1, 4)
    raw_insert(connection, schema, 2, 0)


@pytest.mark.parametrize("name", [schema.name for schema in SCHEMAS if schema.contiguity == "fk"])
def test_a_foreign_key_checks_contiguity_only_where_foreign_keys_are_on(tmp_path, name):
    """The price of the foreign-key schemas: SQLite applies a foreign key only on connections that turn
    foreign_keys on (tourney's all do; sqlite3's default is off), where a trigger fires on every connection."""
    schema = BY_NAME[name]
    connection = connect(tmp_path / "events.db", schema.page_size)
    create(connection, schema, GAMES)
    connection.execute("PRAGMA foreign_keys = OFF")
    raw_insert(connection, schema, 1, 7)
    assert connection.execute("SELECT COUNT(*) FROM events").fetchone() == (1,)
    connection.close()
