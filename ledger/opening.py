"""Opening the ledger: the database URL, the file or server checked before anything could write to
it, the schema upgraded, and the connections every other part of the ledger reads and writes through.

``Opened`` is the base of ``ledger.store.Ledger``; the roles above it are mixins over it:
appending (ledger.appending), the ledger key and signed heads (ledger.heads), reading back
(ledger.reading).
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import create_engine, exc, text
from sqlalchemy.engine import Connection, Engine, make_url
from sqlmodel import Session

import migrations
from ledger import dialect, signing_keys
from ledger.errors import LedgerError

DEFAULT_URL = "sqlite:///tourney.db"
ENV_VAR = "TOURNEY_DB"


class NoDatabase(LedgerError):
    """A read-only command named a database file that does not exist (it is never created)."""


class NotALedger(LedgerError):
    """A file that is not SQLite, or an SQLite database of another application: left untouched."""


class DamagedGame(LedgerError):
    """A sealed game whose block cannot be read back (changed outside tourney); the message names the game."""


class SchemaMismatch(LedgerError):
    """A database newer than this tourney, one whose tourney tables record no schema revision, or (for a read-only
    command) one that needs an upgrade."""


def resolve_url(db: str | None = None) -> str:
    """The database URL: ``--db``, else $TOURNEY_DB, else sqlite:///tourney.db here.

    A plain path (no ``://``) means an SQLite file at that path, whatever characters it holds.
    """
    url = db or os.environ.get(ENV_VAR) or DEFAULT_URL
    return url if "://" in url else sqlite_url(url)


def sqlite_url(path: str | Path) -> str:
    """The URL of the SQLite file at ``path``: a ``%`` or ``?`` in it quoted, so that the URL names that file."""
    return "sqlite:///" + str(path).replace("%", "%25").replace("?", "%3F")


def now() -> str:
    """The time as every row stores it (ISO 8601, UTC, whole seconds: stored times compare as text)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _alembic_config(url: str):
    # Alembic is imported only when the schema must change: it costs most of a command's start-up.
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # ConfigParser interpolates %
    return config


class Opened:
    """A database opened (and upgraded to the newest schema) on construction, and its connections: the base
    of ledger.store.Ledger.

    ``read_only=True`` opens an existing database for reading only: no file is created,
    nothing is upgraded, and on SQLite every connection opens the file read-only. Either
    way, what the file holds is checked before anything could write to it: a file that is
    not SQLite, another application's database, or a ledger of a newer tourney is refused
    with one line and left as it was.
    """

    def __init__(self, url: str | None = None, *, upgrade: bool = True, read_only: bool = False,
                 ledger_key: str | Path | None = None) -> None:
        self._url = resolve_url(url)
        self.url = _shown(self._url)
        """The URL fit to print: a password in it is hidden."""
        self.read_only = read_only
        self.path = default_path(self._url)
        self.where = str(self.path) if self.path is not None else self.url
        self.key_path = signing_keys.key_path(ledger_key, self.path)
        self._key: signing_keys.LedgerKey | None = None
        if self.path is not None:
            self._check_file(self.path)
        self.engine: Engine = self._engine()
        # A ledger dropped without close() (a command run in-process, by a test or an embedding program) closes its
        # pooled connections when collected, instead of leaving server sessions to the driver's finaliser.
        weakref.finalize(self, self.engine.dispose)
        dialect.configure(self.engine, read_only=read_only)
        try:
            if self.path is None:
                self._check_server()
            if read_only:
                self._check_known(self.current())
            elif upgrade:
                self.upgrade()
        except BaseException:
            self.engine.dispose()  # a refused database keeps no connection open
            raise

    def reopen_url(self) -> str:
        """The URL another process opens this database with: an SQLite file by its absolute path (a worker may
        run elsewhere), a server's URL with its password (never print it: ``url`` is the one to show)."""
        return sqlite_url(self.path.resolve()) if self.path is not None else self._url

    def _engine(self) -> Engine:
        try:
            url = make_url(self._url)
            backend = url.get_backend_name()
        except exc.ArgumentError:
            raise LedgerError(f"cannot use database URL {self.url!r}: not a database URL or file path") from None
        if backend not in dialect.BACKENDS:
            raise LedgerError(f"cannot use database URL {self.where!r}: tourney does not support {backend} "
                              f"databases (supported: {', '.join(dialect.BACKENDS)}; give a file path for SQLite)")
        url = dialect.explicit_url(url)
        try:
            if self.read_only and self.path is not None:
                return dialect.read_only_engine(self._url, self.path)
            return create_engine(url, **dialect.engine_options(url, self.read_only))
        except (exc.NoSuchModuleError, ImportError):
            raise LedgerError(f"cannot use database URL {self.where!r}: its driver "
                              f"{url.get_driver_name()} is not installed{dialect.missing_driver_hint(url)}") from None
        except exc.ArgumentError as error:
            raise LedgerError(f"cannot use database URL {self.where!r}: {_first_line(error)}") from None

    def _check_file(self, path: Path) -> None:
        try:
            schema = dialect.probe(path)
        except dialect.NotSqlite as error:
            raise NotALedger(f"{error}: tourney leaves it untouched; give --db a tourney database or a new file") \
                from None
        except OSError as error:
            raise LedgerError(f"cannot read database {path}: {error.strerror or error}") from None
        if schema is None:
            in_the_way = signing_keys.file_in_the_way(path.parent)
            why = f": {in_the_way}" if in_the_way else ""
            if self.read_only:
                raise NoDatabase(f"no database at {path}{why}")
            if not path.parent.is_dir():
                raise NoDatabase(f"no folder {path.parent} for the database {path.name}{why}")
            if reason := dialect.unwritable_folder(path):
                raise LedgerError(f"cannot make the database {path}: {reason}")
            return
        self._check_schema(schema.tables, schema.revision, lambda shown: (
            f"{path} is an SQLite database of another application (tables: {shown}): tourney leaves it untouched; "
            "give --db a tourney database or a new file"))

    def _check_server(self) -> None:
        # A database server's schema may hold another application's tables: left untouched, as a file is.
        with self._guard(), self.read() as connection:
            tables = dialect.tables(connection)
            revision = self._current(connection)
        self._check_schema(tables, revision, lambda shown: (
            f"database {self.where} holds another application's tables ({shown}): tourney leaves it untouched; "
            "give --db a tourney database or an empty one"))

    def _check_schema(self, tables: frozenset[str], revision: str | None, foreign: Callable[[str], str]) -> None:
        """Refuse a database of another application (``foreign``: the message, given its tables), one whose tourney
        tables record no revision, or a ledger of a newer tourney."""
        if revision is None and "events" in tables:
            # Every upgrade records its revision in the transaction that changes the tables: never a step half-done.
            raise SchemaMismatch(f"database {self.where} holds tourney's tables but records no schema revision "
                                 "(alembic_version holds none): tourney cannot tell which schema they have and "
                                 "leaves it untouched; restore it from a backup, or write its revision into "
                                 "alembic_version if you know it")
        ours = revision is not None and ("events" in tables or revision in migrations.REVISIONS)
        at_base = revision is None and tables <= {"alembic_version"}  # new, or a ledger taken down to base
        if not (ours or at_base):
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise NotALedger(foreign(shown))
        self._check_known(revision)

    def _check_known(self, revision: str | None) -> None:
        if revision is not None and revision not in migrations.REVISIONS:
            raise SchemaMismatch(f"database {self.where} is at schema revision {revision}, newer than this tourney "
                                 f"knows (newest: {migrations.HEAD}): this tourney is older than the database; "
                                 "upgrade tourney to use it")

    def require_head(self) -> None:
        """SchemaMismatch unless the schema is at head (what a read-only command needs to read it)."""
        revision = self.current()
        self._check_known(revision)
        if revision is None:
            raise SchemaMismatch(f"database {self.where} holds no tourney tables yet: nothing is stored in it")
        if revision != migrations.HEAD:
            raise SchemaMismatch(f"database {self.where} is at schema revision {revision}, older than this "
                                 f"tourney's {migrations.HEAD}: upgrade it first with `tourney db upgrade`")

    # -- schema -------------------------------------------------------------------------

    def upgrade(self, revision: str = "head") -> None:
        """Bring the schema to ``revision`` (default: the newest), under the write lock.

        A database already at head is only read, never locked.
        """
        current = self.current()
        self._check_known(current)
        if revision == "head" and current == migrations.HEAD:
            return
        self._writable()
        if revision == "head" and current is None and self.path is not None and self._create_at_head():
            return
        from alembic import command

        config = _alembic_config(self._url)
        with self._guard(), self.engine.connect() as connection, connection.begin():
            if revision == "head" and self._current(connection) == migrations.HEAD:
                return  # another process upgraded it while we waited for the lock
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

    def _create_at_head(self) -> bool:
        """Make an empty SQLite file a ledger at head in one transaction, from the schema the revisions build
        (migrations/schema.py: what a ledger made so is held to, and why); False if it holds tables (another
        process made it while we waited for the lock, or a downgrade to base left Alembic's table): the revisions
        then take it on."""
        from migrations.schema import head_sqlite

        with self._guard(), self.engine.connect() as connection, connection.begin():
            if dialect.tables(connection):
                return False
            for statement in head_sqlite():
                connection.exec_driver_sql(statement)
        return True

    def downgrade(self, revision: str) -> None:
        """Take the schema back to ``revision`` (``base`` removes every table)."""
        self._writable()
        from alembic import command

        config = _alembic_config(self._url)
        with self._guard(), self.engine.connect() as connection, connection.begin():
            config.attributes["connection"] = connection
            command.downgrade(config, revision)

    def current(self) -> str | None:
        """The schema revision the database is at (None: empty)."""
        with self._guard(), self.read() as connection:
            return self._current(connection)

    @staticmethod
    def head() -> str:
        """The newest revision this tourney knows (migrations.HEAD, checked against Alembic by a test)."""
        return migrations.HEAD

    @staticmethod
    def _current(connection: Connection) -> str | None:
        if "alembic_version" not in dialect.tables(connection):
            return None
        return connection.execute(text(dialect.VERSION)).scalar() or None  # an empty table records no revision

    # -- connections --------------------------------------------------------------------

    @contextmanager
    def write(self, serial: bool = True) -> Iterator[Connection]:
        """A connection in one BEGIN IMMEDIATE transaction, committed on success. ``serial`` False: on
        PostgreSQL the transaction does not queue behind other writers and locks only the rows it
        touches (a work queue's claims and lease renewals); on SQLite it is the same."""
        self._writable()
        with self._guard(), self.engine.connect() as connection:
            if not serial:
                connection = connection.execution_options(**{dialect.BEGIN_OPTION: dialect.ROW_LOCKS})
            with connection.begin():
                yield connection

    def _writable(self) -> None:
        if self.read_only:
            raise LedgerError(f"database {self.where} was opened read-only: this command must not write")

    @contextmanager
    def read(self) -> Iterator[Connection]:
        """A connection for reading (deferred transaction: never blocks writers)."""
        with self._guard(), self.engine.connect() as connection:
            connection = connection.execution_options(**{dialect.BEGIN_OPTION: "DEFERRED"})
            with connection.begin():
                yield connection

    def session(self) -> Session:
        """An SQLModel session (for the ORM's convenience off the hot path)."""
        return Session(self.engine)

    @contextmanager
    def _guard(self) -> Iterator[None]:
        try:
            yield
        except exc.OperationalError as error:
            raise LedgerError(f"database {self.where}: {_first_line(error.orig or error)}") from None
        except exc.ProgrammingError as error:
            if getattr(error.orig, "sqlstate", None) != dialect.INSUFFICIENT_PRIVILEGE:
                raise
            raise LedgerError(f"database {self.where}: {_first_line(error.orig)}") from None
        except sqlite3.OperationalError as error:
            raise LedgerError(f"database {self.where}: {_first_line(error)}") from None

    def close(self) -> None:
        self.engine.dispose()


def _shown(url: str) -> str:
    """A URL fit to print: its password hidden."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except exc.ArgumentError:
        return url


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def default_path(url: str) -> Path | None:
    """The file of an SQLite URL, the one SQLAlchemy opens for it (None for memory or other databases).

    LedgerError for one with query parameters (``?mode=ro``): tourney opens the file itself, read-only for a
    command that only reads, so they would be ignored or would undo that.
    """
    if not url.startswith("sqlite:///"):
        return None
    try:
        parsed = make_url(url)
    except exc.ArgumentError:
        return None  # not a URL: said so when it is opened
    if parsed.query:
        raise LedgerError(f"cannot use database URL {_shown(url)!r}: tourney takes no query parameters "
                          f"(?{url.partition('?')[2]}) on an SQLite URL, as it opens the file itself; give "
                          "sqlite:///PATH or the path")
    return Path(parsed.database) if parsed.database not in (None, "", ":memory:") else None
