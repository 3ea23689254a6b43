"""Everything that assumes SQLite lives here, so that a PostgreSQL URL can work later.

* connection pragmas: WAL, synchronous=NORMAL, foreign_keys=ON, busy_timeout;
* transactions that take the write lock at BEGIN (BEGIN IMMEDIATE), so a game is
  written whole or not at all and two writers queue instead of failing halfway;
* the raw INSERT used on the hot write path (executemany in the driver's paramstyle).

The append-only and contiguity triggers are created by the Alembic migration
(migrations/versions/), which keeps its own copy of their SQL.
"""

from __future__ import annotations

from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

BUSY_TIMEOUT_MS = 30_000

INSERT_EVENT = (
    "INSERT INTO events (game_id, seq, type, audience, body, private, salt, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SEAT = "INSERT INTO seats (game_id, seat, bot_id, rank, score) VALUES (?, ?, ?, ?, ?)"
GAME_COLUMNS = ("id", "game", "engine_version", "config", "seed_commitment", "seed", "tournament_id", "game_key",
                "status", "events", "head", "end_reason", "created_at")
INSERT_GAME = f"INSERT INTO games ({', '.join(GAME_COLUMNS)}) VALUES ({', '.join('?' * len(GAME_COLUMNS))})"

BEGIN_OPTION = "tourney_begin"
"""Execution option: "IMMEDIATE" (default) takes the write lock at BEGIN; "DEFERRED" for reads."""


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def configure(engine: Engine) -> None:
    """Install the SQLite pragmas and BEGIN IMMEDIATE on every connection of ``engine``."""
    if not is_sqlite(engine):
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite would defer it).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION, "IMMEDIATE")
        connection.exec_driver_sql(f"BEGIN {mode}")


def pragma(connection: Connection, name: str):
    """Read one PRAGMA (tests and `tourney db current` show them)."""
    return connection.exec_driver_sql(f"PRAGMA {name}").scalar()
