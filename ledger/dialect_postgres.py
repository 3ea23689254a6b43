"""Everything that assumes PostgreSQL (psycopg 3), the sibling of ledger/dialect.py.

* the driver: ``postgresql://`` means psycopg 3 (SQLAlchemy's default would be psycopg2,
  which tourney does not ship); it comes in the ``tourney[postgres]`` extra;
* the ledger's SQL is written once for both backends, as SQLAlchemy Core or ``text()`` with
  named binds, which SQLAlchemy compiles to psycopg's paramstyle itself; the hot inserts, raw
  driver SQL written with SQLite's ``?``, are given to psycopg with ``%s`` by
  ``ledger.dialect.hot_insert`` (``placeholders``); no other statement is rewritten
  (tests/ledger/test_dialects.py fails on driver SQL with ``?`` anywhere else);
* writers queue as on SQLite: a write transaction takes one transaction-scoped advisory
  lock at BEGIN (what BEGIN IMMEDIATE is on SQLite), so a read-check-write sequence
  (the stale-append check, a ladder's next version) sees no other writer in between;
  reads take no lock and never wait for writers;
* read-only connections: ``default_transaction_read_only``, so a command that only reads
  cannot write, even through a bug.

The append-only and contiguity triggers are created by the Alembic revisions
(migrations/versions/), which keep their own copy of their SQL for each backend.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.engine import URL, Connection, Engine

DRIVER = "psycopg"
EXTRA = "postgres"

WRITE_LOCK = 0x746F75726E6579  # "tourney": the advisory lock every write transaction holds
"""The key of the advisory lock that serialises writers (any bigint; other applications sharing the
database would only collide by choosing the same number)."""

CLOCK = "EXTRACT(EPOCH FROM clock_timestamp())::double precision"
"""The server's clock in seconds since 1970 (clock_timestamp: the time now, not the transaction's start)."""
SKIP_LOCKED = " FOR UPDATE SKIP LOCKED"


def explicit_url(url: URL) -> URL:
    """``postgresql://`` made explicit as psycopg 3; another named driver is kept (and refused if missing)."""
    return url.set(drivername=f"postgresql+{DRIVER}") if url.drivername == "postgresql" else url


def engine_options(read_only: bool) -> dict[str, Any]:
    """Keyword arguments for create_engine."""
    options: dict[str, Any] = {"pool_pre_ping": True}
    if read_only:
        options["connect_args"] = {"options": "-c default_transaction_read_only=on"}
    return options


@lru_cache(maxsize=512)
def placeholders(statement: str) -> str:
    """SQLite's ``?`` placeholders as psycopg's ``%s`` (a literal ``%`` doubled)."""
    return statement.replace("%", "%%").replace("?", "%s")


def configure(engine: Engine, begin_option: str) -> None:
    """Take the writers' lock at BEGIN."""

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        if connection.get_execution_options().get(begin_option, "IMMEDIATE") == "IMMEDIATE":
            connection.exec_driver_sql(f"SELECT pg_advisory_xact_lock({WRITE_LOCK})")


def tables(connection: Connection) -> frozenset[str]:
    """The tables of the current schema (what ``probe`` reads from an SQLite file)."""
    return frozenset(row[0] for row in connection.execute(text(
        "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()")))
