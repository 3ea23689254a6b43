"""The databases a ledger test runs against: an SQLite file, and a fresh database on a PostgreSQL server.

The PostgreSQL server is the one the libpq variables name (PGHOST, PGPORT, PGUSER, PGPASSWORD):
`.ci/with-services` starts a throwaway one and sets TOURNEY_TEST_POSTGRES=1, which makes a missing
server a failure. Without that variable (a developer's plain pytest) the PostgreSQL tests are
skipped, with the reason shown by ``-ra``.

Also here: what an attacker with the owner's rights can do to either backend (``Backend.raw``,
``Backend.lift_append_only``), a ledger built once per backend and copied into each test's database
(``copied_ledger``), and PostgreSQL's owner and application roles (``two_roles``).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, closing, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tests import tiers

BACKENDS = ("sqlite", pytest.param("postgresql", marks=pytest.mark.postgres))
"""The ``backend`` fixture's parameters: a test on PostgreSQL is in the postgres tier (tests/tiers.py)."""
REQUIRED = "TOURNEY_TEST_POSTGRES"
RUN_UNDER = "run the tests under .ci/with-services (it starts a throwaway PostgreSQL server)"


@dataclass
class Backend:
    """One test's database: its URL, and raw driver connections that bypass the ledger."""

    name: str
    url: str
    key: Path
    """Where the ledger key is: beside the SQLite file, else what TOURNEY_LEDGER_KEY names (conftest's fixture)."""
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

    def lift_append_only(self, *tables: str) -> None:
        """What the database's owner can do and the application role cannot (docs/scaling.md): drop the
        append-only triggers of ``tables`` (SQLite), or disable them (PostgreSQL)."""
        with self.raw() as connection:
            for table in tables:
                if self.path is not None:
                    triggers = connection.execute("SELECT name FROM sqlite_master WHERE type = 'trigger' AND "
                                                  "tbl_name = ?", (table,)).fetchall()
                    for (trigger,) in triggers:
                        connection.execute(f"DROP TRIGGER {trigger}")
                else:
                    connection.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
            connection.commit()

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
    tiers.require("postgres", "the PostgreSQL server")
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
        yield Backend(name, f"sqlite:///{path}", path.with_name(path.name + ".key"), path=path,
                      errors=(sqlite3.DatabaseError,))
        return
    with fresh_postgres_database() as database:
        import psycopg

        yield Backend(name, server_url(database), tmp_path / "ledger.key", database=database, errors=(psycopg.Error,))


def copy_database(source: Backend, target: Backend) -> None:
    """Make ``target`` (a fresh database of the same backend) a copy of ``source``, ledger key files included."""
    if source.path is not None and target.path is not None:
        with closing(sqlite3.connect(source.path)) as original, closing(sqlite3.connect(target.path)) as copy:
            original.backup(copy)  # WAL included
    else:
        server = postgres_server()
        try:  # a template may have no other session while it is copied
            server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s AND "
                           "pid <> pg_backend_pid()", (source.database,))
            server.execute(f'DROP DATABASE "{target.database}" WITH (FORCE)')
            server.execute(f'CREATE DATABASE "{target.database}" TEMPLATE "{source.database}"')
        finally:
            server.close()
    for suffix in (".key", ".pub"):
        shutil.copy(source.key.with_suffix(suffix), target.key.with_suffix(suffix))


class Templates:
    """Ledgers built once per backend (for a module, say), copied into each test's fresh database: a copy costs
    a fraction of a build (a tournament played, a ladder's games). ``build`` fills a template on first use."""

    def __init__(self, folder: Path, build: Callable[[Backend], None]) -> None:
        self.folder, self.build = folder, build
        self.built: dict[str, Backend] = {}
        self.stack = ExitStack()

    def copy_into(self, backend: Backend) -> Backend:
        template = self.built.get(backend.name)
        if template is None:
            folder = self.folder / backend.name
            folder.mkdir()
            template = self.stack.enter_context(backend_for(backend.name, folder))
            self.build(template)
            self.built[backend.name] = template
        copy_database(template, backend)
        return backend

    def __enter__(self) -> Templates:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stack.close()


def opened_ledger(backend: Backend) -> Iterator[Any]:
    """The body of a module's ``ledger`` fixture that runs on every backend (``yield from`` it)."""
    from ledger.store import Ledger

    store = Ledger(backend.url)
    yield store
    store.close()


# -- PostgreSQL's two roles (docs/scaling.md) ---------------------------------------------------------

APPLICATION_GRANTS = (
    "GRANT CONNECT ON DATABASE {database} TO {app}",
    "GRANT USAGE ON SCHEMA public TO {app}",
    "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {app}",
    "REVOKE UPDATE, DELETE ON events, ladder_events, checkpoints, sealed_games, sealed_dictionaries FROM {app}",
    "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app}",
)


@dataclass(frozen=True)
class Roles:
    """The owner role that migrated a PostgreSQL ledger, and the application role with only the grants of
    docs/scaling.md; each logs in with its password."""

    backend: Backend
    owner: str
    app: str

    def url(self, role: str) -> str:
        return self.backend.url.replace(f"//{os.environ.get('PGUSER', 'postgres')}@", f"//{role}:{role}-pw@", 1)

    def connect(self, role: str, autocommit: bool = False) -> Any:
        """A raw psycopg connection as ``role`` (the caller closes it)."""
        import psycopg

        return psycopg.connect(dbname=self.backend.database, user=role, password=f"{role}-pw", autocommit=autocommit)


@contextmanager
def two_roles(backend: Backend) -> Iterator[Roles]:
    """The two roles on ``backend`` (PostgreSQL): the owner migrates the ledger, then grants the application role
    what docs/scaling.md lists; both roles are dropped afterwards. The ledger must not exist yet."""
    from ledger.store import Ledger

    suffix = uuid.uuid4().hex[:8]
    made = Roles(backend, f"tourney_owner_{suffix}", f"tourney_app_{suffix}")
    with backend.raw() as raw:
        raw.autocommit = True
        for role in (made.owner, made.app):
            raw.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{role}-pw'")
        raw.execute(f"GRANT CREATE ON SCHEMA public TO {made.owner}")
        raw.execute(f"GRANT ALL ON DATABASE {backend.database} TO {made.owner}")
    Ledger(made.url(made.owner)).close()
    with closing(made.connect(made.owner, autocommit=True)) as connection:
        for grant in APPLICATION_GRANTS:
            connection.execute(grant.format(database=backend.database, app=made.app))
    try:
        yield made
    finally:
        with backend.raw() as raw:
            raw.autocommit = True
            for role in (made.owner, made.app):
                raw.execute(f"DROP OWNED BY {role} CASCADE")
            for role in (made.owner, made.app):
                raw.execute(f"DROP ROLE {role}")


def copied_ledger(name: str, build: Callable[[Backend], None]) -> tuple[Any, Any]:
    """Two fixtures for a test module: ``<name>_templates`` (module scope) builds the ledger once per backend with
    ``build``, and ``<name>`` gives each test its own copy of it on its backend. Unpack both into the module."""

    @pytest.fixture(scope="module", name=f"{name}_templates")
    def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
        with Templates(tmp_path_factory.mktemp(name), build) as built:
            yield built

    @pytest.fixture(name=name)
    def copy(backend: Backend, request: pytest.FixtureRequest) -> Backend:
        return request.getfixturevalue(f"{name}_templates").copy_into(backend)

    copy.__doc__ = f"This test's own copy, on its backend, of: {build.__doc__}"
    return templates, copy
