"""Everything that assumes SQLite lives here; PostgreSQL's counterparts are in ledger/dialect_postgres.py.

* what an SQLite file holds, read before anything may write to it (``probe``): not
  SQLite at all, another application's database, or a ledger at some revision;
* read-only connections (``read_only_engine``): the file opened with ``mode=ro``, so
  a command that only reads cannot write a byte, even through a bug; closed, they leave no
  -wal or -shm behind that no other connection uses (``leave_no_sidecars``);
* why nothing can be made beside a file (``unwritable_folder``): a new database, or the
  -wal and -shm SQLite makes beside a WAL database even to read it;
* connection pragmas: WAL, synchronous=NORMAL, foreign_keys=ON, busy_timeout (a
  read-only connection sets query_only instead of WAL: switching the journal writes);
* transactions that take the write lock at BEGIN (BEGIN IMMEDIATE), so a game is
  written whole or not at all and two writers queue instead of failing halfway;
* the raw INSERTs of the hot write path (events, game rows, seats: executemany of tuples in the
  driver's paramstyle, cheaper per row than text(); bench/ledger.py), the games columns read from
  the model (ledger.models.Game).

The rest of the ledger's SQL is written once for both backends: SQLAlchemy Core, or ``text()``
with named binds (``:id``; ``IN :ids`` with an expanding bindparam; a literal colon as ``\\:``).

The append-only and contiguity triggers are created by the Alembic migration
(migrations/versions/), which keeps its own copy of their SQL.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import URL, Connection, Engine

from ledger import dialect_postgres
from ledger.models import Game

BUSY_TIMEOUT_MS = 30_000

# The hot inserts: raw executemany of plain tuples in the driver's paramstyle (``?``; psycopg's ``%s`` from
# ``hot_insert``), not text() with named binds, which costs more per row: bench/ledger.py --text,
# docs/benchmarks.md ("Ledger write path"). Every other ledger statement is text() with named binds or Core.
INSERT_EVENT = (
    "INSERT INTO events (game_id, seq, type, audience, body, private, salt, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
)
INSERT_SEAT = "INSERT INTO seats (game_id, seat, bot_id, rank, score) VALUES (?, ?, ?, ?, ?)"
GAME_COLUMNS = tuple(column.name for column in Game.__table__.columns if column.name != "store_seq")
"""The games table's columns in the model's order (ledger.models.Game), but store_seq, which the database numbers."""
NEXT_STORE_SEQ = "(SELECT COALESCE(MAX(store_seq), 0) + 1 FROM games)"
"""The next finished game's number: read under the write lock, so writers number their games in turn."""
INSERT_GAME = (f"INSERT INTO games ({', '.join(GAME_COLUMNS)}, store_seq) "
               f"VALUES ({', '.join('?' * len(GAME_COLUMNS))}, {NEXT_STORE_SEQ})")

INSUFFICIENT_PRIVILEGE = "42501"
"""The SQLSTATE of a statement the database's role may not run (PostgreSQL's application role)."""

BEGIN_OPTION = "tourney_begin"
"""Execution option: "IMMEDIATE" (default) takes the write lock at BEGIN; "DEFERRED" for reads;
ROW_LOCKS for a write that locks only the rows it touches (PostgreSQL; SQLite has no row locks,
so there it is IMMEDIATE)."""
ROW_LOCKS = "ROWS"

CLOCK = "((julianday('now') - 2440587.5) * 86400.0)"
"""The database's clock, in seconds since 1970 (SQLite: the clock of the machine that writes the file)."""


BACKENDS = {"sqlite": None, "postgresql": dialect_postgres.EXTRA}
"""Database backends tourney can store a ledger in, each with the pip extra its driver comes in
(None: Python's own)."""

TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
VERSION = "SELECT version_num FROM alembic_version"

FOLDER_REFUSALS = ("SQLITE_CANTOPEN", "SQLITE_READONLY_DIRECTORY")
"""SQLite's errors for a file it cannot make (the database, or its -wal and -shm) in a folder."""


class NotSqlite(ValueError):
    """A file that is not an SQLite database; the message is one line."""


class CannotOpen(OSError):
    """An SQLite database that SQLite cannot open where it is; the message is one line naming the folder and why."""


@dataclass(frozen=True, slots=True)
class FileSchema:
    """What an existing SQLite file holds: its tables (SQLite's own left out) and Alembic revision."""

    tables: frozenset[str]
    revision: str | None


def probe(path: Path) -> FileSchema | None:
    """What the SQLite file at ``path`` holds, read without writing a byte; None if there is no file.

    NotSqlite for a folder or a file that is not SQLite; CannotOpen for a WAL database in a folder where SQLite
    cannot make the -wal and -shm it reads it with. An empty file is an empty database.
    """
    try:
        kind = path.stat()
    except (FileNotFoundError, NotADirectoryError):  # nothing there (the caller says which folder is missing)
        return None
    if stat.S_ISDIR(kind.st_mode):
        raise NotSqlite(f"{path} is a folder, not a database file")
    if not stat.S_ISREG(kind.st_mode):  # a FIFO or a device: opening it could wait forever, or read forever
        raise NotSqlite(f"{path} is not a regular file")
    if not kind.st_size:
        return FileSchema(frozenset(), None)
    # Only SQLite opens the file: closing any other handle on it would drop every lock this process's SQLite
    # connections hold on it (POSIX locks are the process's; https://www.sqlite.org/howtocorrupt.html, 2.2).
    connection = _read_only(path)
    try:
        tables = frozenset(row[0] for row in connection.execute(TABLES))
        revision = None
        if "alembic_version" in tables:
            found = connection.execute(VERSION).fetchone()
            revision = (found[0] if found else None) or None  # an empty table (or version) records no revision
    except sqlite3.DatabaseError as error:
        if getattr(error, "sqlite_errorname", None) == "SQLITE_NOTADB":
            raise NotSqlite(f"{path} is not an SQLite database (it does not start with SQLite's header)") from None
        reason = unwritable_folder(path) if getattr(error, "sqlite_errorname", None) in FOLDER_REFUSALS else None
        if reason:
            raise CannotOpen(f"{reason}, and SQLite must make {path.name}-wal and {path.name}-shm there to read a "
                             "WAL database") from None
        raise NotSqlite(f"{path} is not a readable SQLite database ({error})") from None
    finally:
        connection.close()
    return FileSchema(tables, revision)


SQLITE_FILES = ("", "-wal", "-shm", "-journal")
"""A database file's name, and the endings of the files SQLite keeps beside it."""


def database_file(path: str | Path, database: Path | None) -> str | None:
    """What ``path`` is of the SQLite file ``database`` (``the database x.db``, ``the -wal of the database x.db``),
    or None if it is neither that file nor one SQLite keeps beside it; asked of the system by stat (a link to it
    is it), never by opening it.

    A command that has the database open reads and writes these through SQLite only: closing a handle of its own on
    one drops every lock the process's SQLite connections hold on it (POSIX locks are the process's;
    https://www.sqlite.org/howtocorrupt.html, 2.2), and writing one overwrites the ledger.
    """
    if database is None:
        return None
    try:
        found = os.stat(path)
    except OSError:
        return None  # nothing there: nothing of the database's is read or overwritten
    for end in SQLITE_FILES:
        try:
            if os.path.samestat(found, os.stat(f"{database}{end}")):
                return f"the {end} of the database {database}" if end else f"the database {database}"
        except OSError:
            continue
    return None


def unwritable_folder(path: Path) -> str | None:
    """Why nothing can be made in the folder of ``path`` (a clause naming it), or None if something can: asked of
    the system, never tried (a file made to find out could be one a writer has just begun to use)."""
    folder = path.parent
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return f"the folder {folder} is on a read-only file system"
    except OSError:
        return None
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        return f"nothing can be written in the folder {folder}"
    return None


class _ReadOnly(sqlite3.Connection):
    """A connection opened with mode=ro that, closed, leaves no sidecar behind that no connection uses."""

    path: Path

    def close(self) -> None:
        super().close()
        leave_no_sidecars(self.path)


def _read_only(path: Path) -> sqlite3.Connection:
    # mode=ro: SQLite opens the file read-only, so no statement can write it, whatever it is.
    connection = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, check_same_thread=False,
                                 factory=_ReadOnly)
    connection.path = path
    return connection


def leave_no_sidecars(path: Path) -> None:
    """Remove an empty -wal and its -shm that no connection uses, as SQLite's last connection to a WAL database does
    when it closes; a read-only one cannot, so each reader would leave them (https://www.sqlite.org/wal.html,
    "Read-Only Databases").

    SQLite removes them: a connection that opens the file but only reads, then closes, and SQLite takes them away
    only if its lock on the database shows that no other connection, in any process, has it open (a live writer's
    -wal is never touched). A -wal holding frames is left for a writer to checkpoint: a reader writes nothing into
    the database.
    """
    try:
        if Path(f"{path}-wal").stat().st_size:
            return
    except OSError:
        return  # no -wal: nothing left
    try:
        # timeout 0: a database another connection holds busy is in use, and its sidecars are left to it.
        last = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True, timeout=0)
    except sqlite3.Error:
        return
    try:
        last.execute("PRAGMA query_only = ON")
        last.execute(TABLES).fetchall()  # opens the WAL, so that closing it is SQLite's last-connection check
    except sqlite3.Error:
        pass  # whatever stops it reading, the sidecars are left as they are
    finally:
        last.close()


def read_only_engine(url: str, path: Path) -> Engine:
    """An engine whose every connection opens ``path`` read-only (the URL only picks the pool)."""
    return create_engine(url, creator=lambda: _read_only(path))


def is_sqlite(engine: Engine) -> bool:
    return engine.dialect.name == "sqlite"


def explicit_url(url: URL) -> URL:
    """The URL with its backend's driver made explicit (``postgresql://`` is psycopg 3)."""
    return dialect_postgres.explicit_url(url) if url.get_backend_name() == "postgresql" else url


def missing_driver_hint(url: URL) -> str:
    """What to do when the driver ``url`` names is not installed (the end of a one-line error)."""
    backend = url.get_backend_name()
    if backend == "postgresql" and url.get_driver_name() != dialect_postgres.DRIVER:
        return (f" (tourney[{BACKENDS[backend]}] installs psycopg 3: write postgresql+{dialect_postgres.DRIVER}://"
                "... or postgresql://...)")
    if BACKENDS[backend]:
        return f": pip install 'tourney[{BACKENDS[backend]}]'"
    return " (Python's own sqlite3 needs none: use sqlite:///PATH)"


def engine_options(url: URL, read_only: bool) -> dict:
    """create_engine's keyword arguments for the backend of ``url``."""
    return dialect_postgres.engine_options(read_only) if url.get_backend_name() == "postgresql" else {}


def configure(engine: Engine, read_only: bool = False) -> None:
    """Install the SQLite pragmas and BEGIN IMMEDIATE on every connection of ``engine``
    (on PostgreSQL: the writers' lock at BEGIN)."""
    if engine.dialect.name == "postgresql":
        dialect_postgres.configure(engine, BEGIN_OPTION)
        return
    if not is_sqlite(engine):
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record) -> None:
        # Let SQLAlchemy's "begin" event issue BEGIN itself (pysqlite would defer it).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        if read_only:
            cursor.execute("PRAGMA query_only = ON")
        else:
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        mode = connection.get_execution_options().get(BEGIN_OPTION, "IMMEDIATE")
        connection.exec_driver_sql(f"BEGIN {'IMMEDIATE' if mode == ROW_LOCKS else mode}")


def hot_insert(connection: Connection, statement: str) -> str:
    """One of the hot inserts (INSERT_EVENT, INSERT_GAME, INSERT_SEAT) in the paramstyle of ``connection``'s
    driver: as written (``?``) for sqlite3, with psycopg's ``%s`` on PostgreSQL (ledger.dialect_postgres)."""
    return dialect_postgres.placeholders(statement) if connection.dialect.name == "postgresql" else statement


def tables(connection: Connection) -> frozenset[str]:
    """The tables the database holds (SQLite's own left out)."""
    if connection.dialect.name == "postgresql":
        return dialect_postgres.tables(connection)
    return frozenset(row[0] for row in connection.execute(text(TABLES)))


def clock(connection: Connection) -> str:
    """SQL for the database's clock in seconds since 1970: leases are measured on it, so the clocks of
    the machines that hold them need not agree."""
    return dialect_postgres.CLOCK if connection.dialect.name == "postgresql" else CLOCK


def skip_locked(connection: Connection) -> str:
    """The end of a SELECT that claims rows: on PostgreSQL it locks them and skips rows another
    transaction has locked (so claimers never wait for each other); on SQLite nothing, since the
    claim's BEGIN IMMEDIATE already makes it the only writer."""
    return dialect_postgres.SKIP_LOCKED if connection.dialect.name == "postgresql" else ""


def pragma(connection: Connection, name: str):
    """Read one PRAGMA (tests and `tourney db current` show them)."""
    return connection.exec_driver_sql(f"PRAGMA {name}").scalar()
