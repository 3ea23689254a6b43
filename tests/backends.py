"""The databases a ledger test runs against: an SQLite file, and a fresh database on a PostgreSQL server.

The PostgreSQL server is the one the libpq variables name (PGHOST, PGPORT, PGUSER, PGPASSWORD):
`.ci/with-services` starts a throwaway one and sets TOURNEY_TEST_POSTGRES=1, which makes a missing
server a failure. Without that variable (a developer's plain pytest) the PostgreSQL tests are
skipped, with the reason shown by ``-ra``.
"""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

BACKENDS = ("sqlite", "postgresql")
REQUIRED = "TOURNEY_TEST_POSTGRES"
RUN_UNDER = "run the tests under .ci/with-services (it starts a throwaway PostgreSQL server)"


@dataclass
class Backend:
    """One test's database: its URL, and raw driver connections that bypass the ledger."""

    name: str
    url: str
    path: Path | None = None
    database: str | None = None
    errors: tuple[type[BaseException], ...] = field(default=())

    @contextmanager
    def raw(self) -> Iterator[Any]:
        """A plain DB-API connection (sqlite3 or psycopg), not the ledger's: what an attacker with the file or
        the role's password could do. Rolled back unless the caller commits."""
        if self.path is not None:
            connection = sqlite3.connect(self.path)
        else:
            import psycopg

            connection = psycopg.connect(dbname=self.database)
        try:
            yield connection
        finally:
            connection.rollback()
            connection.close()

    def sql(self, statement: str) -> str:
        """A statement written with ``?`` placeholders in the raw driver's own paramstyle."""
        return statement if self.path is not None else statement.replace("?", "%s")

    def blob(self, hex_digits: str) -> str:
        """A literal binary value in this backend's SQL."""
        return f"x'{hex_digits}'" if self.path is not None else f"'\\x{hex_digits}'::bytea"

    def triggers(self) -> set[str]:
        return set(self._names("SELECT name FROM sqlite_master WHERE type = 'trigger'",
                               "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"))

    def tables(self) -> set[str]:
        return set(self._names("SELECT name FROM sqlite_master WHERE type = 'table'",
                               "SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"))

    def _names(self, on_sqlite: str, on_postgres: str) -> list[str]:
        with self.raw() as connection:
            return [row[0] for row in connection.execute(on_sqlite if self.path is not None else on_postgres)]


def postgres_server() -> Any:
    """An autocommit connection to the test server's maintenance database; fails (in CI) or skips (else)."""
    required = os.environ.get(REQUIRED) == "1"
    try:
        import psycopg
    except ImportError:
        message = "psycopg is not installed: pip install -e '.[test]'"
        if required:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    if not required and not os.environ.get("PGHOST"):
        pytest.skip(f"no PostgreSQL server named ({REQUIRED} and PGHOST unset): {RUN_UNDER}")
    try:
        return psycopg.connect(dbname="postgres", autocommit=True, connect_timeout=10)
    except psycopg.OperationalError as error:
        message = f"no PostgreSQL server answers at {os.environ.get('PGHOST')}:{os.environ.get('PGPORT')}: " \
                  f"{str(error).strip().splitlines()[0]} ({RUN_UNDER})"
        if required:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


def server_url(database: str) -> str:
    """The SQLAlchemy URL of ``database`` on the test server (the password stays in PGPASSWORD)."""
    user = os.environ.get("PGUSER", "postgres")
    host = os.environ.get("PGHOST", "127.0.0.1")
    port = os.environ.get("PGPORT", "5432")
    return f"postgresql+psycopg://{user}@{host}:{port}/{database}"


@contextmanager
def fresh_postgres_database() -> Iterator[str]:
    """A new, empty database on the test server, dropped afterwards (connections and all)."""
    server = postgres_server()
    database = f"tourney_test_{uuid.uuid4().hex[:12]}"
    try:
        server.execute(f'CREATE DATABASE "{database}"')
        yield database
    finally:
        server.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        server.close()


@contextmanager
def backend_for(name: str, tmp_path: Path) -> Iterator[Backend]:
    if name == "sqlite":
        path = tmp_path / "tourney.db"
        yield Backend(name, f"sqlite:///{path}", path=path, errors=(sqlite3.DatabaseError,))
        return
    with fresh_postgres_database() as database:
        import psycopg

        yield Backend(name, server_url(database), database=database, errors=(psycopg.Error,))


def opened_ledger(backend: Backend) -> Iterator[Any]:
    """The body of a module's ``ledger`` fixture that runs on every backend (``yield from`` it)."""
    from ledger.store import Ledger

    store = Ledger(backend.url)
    yield store
    store.close()
