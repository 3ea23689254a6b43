"""Sealed games: a finished game's events in one compressed block (ledger.sealed), with a zstd dictionary per
game and rules version (ledger.sealing). Both tables are append-only, as events are.

Every finished game already stored is sealed here, oldest first, and its event rows removed (the append-only
trigger on DELETE is lifted for that alone and put back): a game whose rows do not chain to the hashes they
store (a ledger changed outside tourney) keeps its rows, so `replay verify --db` still names it. The
downgrade writes every sealed game back as rows.

On SQLite the file keeps its size (the freed pages hold the next games); `VACUUM` gives the space back.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

CHUNK = 200
"""Games converted per step: memory stays bounded whatever the ledger's size."""

TABLES = ("sealed_games", "sealed_dictionaries")

# Like the events of 0001: the database itself refuses to change or remove a sealed game or a dictionary.
SEALED_TRIGGERS = tuple(
    f"""
    CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table}
    BEGIN SELECT RAISE(ABORT, '{table.replace('_', ' ')} are append-only: {operation} is not allowed'); END
    """
    for table in TABLES for operation in ("UPDATE", "DELETE")
)
POSTGRES_SEALED_FUNCTION = """
    CREATE FUNCTION sealed_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION USING ERRCODE = '23000',
            MESSAGE = replace(TG_TABLE_NAME, '_', ' ') || ' are append-only: ' || TG_OP || ' is not allowed';
    END $$
"""
POSTGRES_SEALED_TRIGGERS = tuple(
    f"CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table} FOR EACH STATEMENT "
    "EXECUTE FUNCTION sealed_append_only()"
    for table in TABLES for operation in ("UPDATE", "DELETE", "TRUNCATE")
)

# 0001's trigger on DELETE of events (its own copy, as every revision keeps), lifted while converted rows go.
EVENTS_NO_DELETE = """
    CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    BEGIN SELECT RAISE(ABORT, 'events are append-only: DELETE is not allowed'); END
"""
INSERT_EVENT = (
    "INSERT INTO events (game_id, seq, type, audience, body, private, salt, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)


def upgrade() -> None:
    op.create_table(
        "sealed_dictionaries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game", sa.String(), nullable=False),
        sa.Column("engine_version", sa.Integer(), nullable=False),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game", "engine_version", name="uq_sealed_dictionaries_game"),
    )
    op.create_table(
        "sealed_games",
        sa.Column("store_seq", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("dictionary_id", sa.Integer(), nullable=True),
        sa.Column("block", sa.LargeBinary(), nullable=False),
        # A game renumbered takes its block along (and meets the block's UPDATE trigger: tourney never renumbers).
        sa.ForeignKeyConstraint(["store_seq"], ["games.store_seq"], onupdate="CASCADE"),
        sa.ForeignKeyConstraint(["dictionary_id"], ["sealed_dictionaries.id"]),
        sa.PrimaryKeyConstraint("store_seq"),
    )
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        for statement in SEALED_TRIGGERS:
            op.execute(statement)
    elif bind.dialect.name == "postgresql":
        # A block is compressed already: TOAST stores it out of line without trying to compress it again.
        op.execute("ALTER TABLE sealed_games ALTER COLUMN block SET STORAGE EXTERNAL")
        for statement in (POSTGRES_SEALED_FUNCTION, *POSTGRES_SEALED_TRIGGERS):
            op.execute(statement)
    _seal_stored_games(bind)


def _seal_stored_games(bind) -> None:
    from ledger import sealing
    from ledger.chain import Record
    from ledger.sealed import Unsealable

    connection = bind  # Alembic hands over the ledger's own connection
    finished = connection.exec_driver_sql(
        "SELECT id, game, engine_version, seed, created_at FROM games WHERE status = 'finished' "
        "AND store_seq IS NOT NULL ORDER BY store_seq").fetchall()
    _lift_events_delete(connection)
    for start in range(0, len(finished), CHUNK):
        chunk = finished[start:start + CHUNK]
        rows: dict[str, list[Record]] = {game_id: [] for game_id, *_ in chunk}
        for game_id, *record in connection.execute(sa.text(
                "SELECT game_id, seq, type, audience, body, private, salt, hash FROM events WHERE game_id IN :ids "
                "ORDER BY game_id, seq").bindparams(sa.bindparam("ids", expanding=True)),
                {"ids": list(rows)}).fetchall():
            seq, type_, audience, body, private, salt, hash_ = record
            rows[game_id].append(Record(seq, type_, audience, bytes(body), None if private is None else bytes(private),
                                        None if salt is None else bytes(salt), hash_))
        sealed = []
        for game_id, game, version, seed, created_at in chunk:
            try:
                sealing.store(connection, [sealing.Sealable(game_id, game, version, seed, rows[game_id])], created_at)
            except Unsealable:
                continue  # its rows stay, for `replay verify --db` to name
            sealed.append(game_id)
        if sealed:
            connection.execute(sa.text("DELETE FROM events WHERE game_id IN :ids").bindparams(
                sa.bindparam("ids", expanding=True)), {"ids": sealed})
    _restore_events_delete(connection)


def _lift_events_delete(connection) -> None:
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql("DROP TRIGGER IF EXISTS events_no_delete")
    else:
        connection.exec_driver_sql("ALTER TABLE events DISABLE TRIGGER events_no_delete")


def _restore_events_delete(connection) -> None:
    if connection.dialect.name == "sqlite":
        connection.exec_driver_sql(EVENTS_NO_DELETE)
    else:
        connection.exec_driver_sql("ALTER TABLE events ENABLE TRIGGER events_no_delete")


def downgrade() -> None:
    from ledger import sealing
    from ledger.dialect import hot_insert

    connection = op.get_bind()
    numbers = [row[0] for row in connection.exec_driver_sql("SELECT store_seq FROM sealed_games ORDER BY store_seq")]
    opener = sealing.Opener(connection)
    for start in range(0, len(numbers), CHUNK):
        chunk = tuple(numbers[start:start + CHUNK])
        for game_id, dictionary_id, frame in connection.execute(sa.text(
                "SELECT g.id, s.dictionary_id, s.block FROM sealed_games s JOIN games g ON g.store_seq = s.store_seq "
                "WHERE s.store_seq IN :numbers ORDER BY s.store_seq").bindparams(
                    sa.bindparam("numbers", expanding=True)), {"numbers": list(chunk)}).fetchall():
            records = opener.block(game_id, dictionary_id, bytes(frame)).records()
            connection.exec_driver_sql(hot_insert(connection, INSERT_EVENT),
                                       [(game_id, *record) for record in records])
    op.drop_table("sealed_games")
    op.drop_table("sealed_dictionaries")
    if connection.dialect.name == "postgresql":
        op.execute("DROP FUNCTION sealed_append_only()")
