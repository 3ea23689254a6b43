"""Opening the ledger, appending events and reading them back.

The write path is SQLAlchemy Core's ``exec_driver_sql`` with executemany over plain
tuples: no ORM object per event. Every write runs in one BEGIN IMMEDIATE transaction,
so a game is stored whole or not at all, and an append whose expected seq is stale
fails instead of leaving a gap or a duplicate.
"""

from __future__ import annotations

import os
import sqlite3
import weakref
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, exc, select
from sqlalchemy.engine import Connection, Engine, make_url
from sqlmodel import Session

import migrations
from ledger import dialect, keys, read_models, sealing
from ledger.chain import Record
from ledger.errors import LedgerError
from ledger.models import Bot, Game
from ledger.sealed import Damaged, Unsealable

DEFAULT_URL = "sqlite:///tourney.db"
ENV_VAR = "TOURNEY_DB"


class StaleAppend(LedgerError):
    """An append whose expected seq is not the game's next seq (someone else wrote first)."""


class GameExists(LedgerError):
    """A game id that is already stored."""


class NoDatabase(LedgerError):
    """A read-only command named a database file that does not exist (it is never created)."""


class NotALedger(LedgerError):
    """A file that is not SQLite, or an SQLite database of another application: left untouched."""


class DamagedGame(LedgerError):
    """A sealed game whose block cannot be read back (changed outside tourney); the message names the game."""


class SchemaMismatch(LedgerError):
    """A database newer than this tourney, or (for a read-only command) one that needs an upgrade."""


def resolve_url(db: str | None = None) -> str:
    """The database URL: ``--db``, else $TOURNEY_DB, else sqlite:///tourney.db here.

    A plain path (no ``://``) means an SQLite file at that path.
    """
    url = db or os.environ.get(ENV_VAR) or DEFAULT_URL
    if "://" not in url:
        url = f"sqlite:///{url}"
    return url


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class FinishedGame:
    """A finished game as ``store_games`` stores it: its row (keys as in ledger.models.Game), every
    record from seq 0, the revealed seed, why it ended, its seats, and the seat that forfeited (read
    from its events by the caller, for the read models: the ledger never parses an event)."""

    game: dict[str, Any]
    records: Sequence[Record]
    seed: str
    end_reason: str
    seats: Sequence[SeatRow]
    salt_key: bytes | None = None
    """The key of its decisions' salts (replays.record), kept in its sealed block instead of each salt."""
    forfeit_seat: int | None = None


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    bot_id: int
    rank: int | None
    score: int | None


def _alembic_config(url: str):
    # Alembic is imported only when the schema must change: it costs most of a command's start-up.
    from alembic.config import Config as AlembicConfig

    config = AlembicConfig()
    config.set_main_option("script_location", migrations.SCRIPT_LOCATION)
    config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))  # ConfigParser interpolates %
    return config


class Ledger:
    """One database: opened (and upgraded to the newest schema) on construction.

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
        self.key_path = keys.key_path(ledger_key, self.path)
        self._key: keys.LedgerKey | None = None
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
        return f"sqlite:///{self.path.resolve()}" if self.path is not None else self._url

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
            if self.read_only:
                raise NoDatabase(f"no database at {path}")
            if not path.parent.is_dir():
                raise NoDatabase(f"no folder {path.parent} for the database {path.name}")
            return
        ours = schema.revision is not None and ("events" in schema.tables or schema.revision in migrations.REVISIONS)
        if schema.tables and not ours:
            shown = ", ".join(sorted(schema.tables)[:5]) + (", ..." if len(schema.tables) > 5 else "")
            raise NotALedger(f"{path} is an SQLite database of another application (tables: {shown}): tourney "
                             "leaves it untouched; give --db a tourney database or a new file")
        self._check_known(schema.revision)

    def _check_server(self) -> None:
        # A database server's schema may hold another application's tables: left untouched, as a file is.
        with self._guard(), self.read() as connection:
            tables = dialect.tables(connection)
            revision = self._current(connection)
        ours = revision is not None and ("events" in tables or revision in migrations.REVISIONS)
        if tables and not ours:
            shown = ", ".join(sorted(tables)[:5]) + (", ..." if len(tables) > 5 else "")
            raise NotALedger(f"database {self.where} holds another application's tables ({shown}): tourney "
                             "leaves it untouched; give --db a tourney database or an empty one")

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
        from alembic import command

        config = _alembic_config(self._url)
        with self._guard(), self.engine.connect() as connection, connection.begin():
            if revision == "head" and self._current(connection) == migrations.HEAD:
                return  # another process upgraded it while we waited for the lock
            config.attributes["connection"] = connection
            command.upgrade(config, revision)

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
        return connection.exec_driver_sql("SELECT version_num FROM alembic_version").scalar()

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

    # -- writing ------------------------------------------------------------------------

    def ensure_bot(self, name: str, content_hash: str, kind: str, connection: Connection | None = None) -> int:
        """The id of bot version (name, content hash), stored if new."""
        if connection is None:
            with self.write() as connection:
                return self.ensure_bot(name, content_hash, kind, connection)
        found = connection.execute(
            select(Bot.id).where(Bot.name == name, Bot.content_hash == content_hash)
        ).scalar()
        if found is not None:
            return found
        return connection.exec_driver_sql(
            "INSERT INTO bots (name, content_hash, kind, created_at) VALUES (?, ?, ?, ?) RETURNING id",
            (name, content_hash, kind, now()),
        ).scalar_one()

    def create_game(self, game: dict[str, Any], connection: Connection | None = None) -> None:
        """Insert a game row (keys as in ledger.models.Game); GameExists if its id is taken."""
        if connection is None:
            with self.write() as connection:
                return self.create_game(game, connection)
        row = {"status": "playing", "events": 0, "head": None, "seed": None, "tournament_id": None,
               "game_key": None, "end_reason": None, "created_at": now(), **game}
        try:
            connection.execute(Game.__table__.insert(), row)
        except exc.IntegrityError:
            raise GameExists(f"game {game['id']} is already stored") from None
        return None

    def append(self, game_id: str, expected_seq: int, records: Sequence[Record],
               connection: Connection | None = None) -> str:
        """Append events at ``expected_seq`` onwards; StaleAppend if the log moved. Returns the head."""
        if connection is None:
            with self.write() as connection:
                return self.append(game_id, expected_seq, records, connection)
        for offset, record in enumerate(records):
            if record.seq != expected_seq + offset:
                raise LedgerError(f"game {game_id}: records must run from seq {expected_seq} without gaps")
        if records:
            # The game row moves first, only if its log is where the caller expects (one statement
            # where a read and a write were two); the events follow in the same transaction.
            head = records[-1].hash
            moved = connection.exec_driver_sql(
                "UPDATE games SET events = ?, head = ? WHERE id = ? AND events = ?",
                (expected_seq + len(records), head, game_id, expected_seq),
            ).rowcount
            if moved == 1:
                connection.exec_driver_sql(dialect.INSERT_EVENT, [(game_id, *record) for record in records])
                return head
        stored = connection.exec_driver_sql("SELECT events, head FROM games WHERE id = ?", (game_id,)).first()
        if stored is None:
            raise LedgerError(f"no game {game_id} to append to")
        if stored[0] != expected_seq:
            raise StaleAppend(
                f"game {game_id}: append expected the log at seq {expected_seq}, but it is at seq {stored[0]}"
            )
        return stored[1]

    def finish_game(self, game_id: str, seed: str, end_reason: str, seats: Sequence[SeatRow],
                    connection: Connection, forfeit_seat: int | None = None) -> None:
        """Reveal the seed, mark the game finished (numbered, its head signed), store its seats; the read models
        count it (``forfeit_seat``: the seat that forfeited, read from its events by the caller)."""
        head = connection.exec_driver_sql("SELECT head FROM games WHERE id = ?", (game_id,)).scalar()
        signature = self.signing_key(connection).sign(keys.log_message(game_id, head or ""))
        connection.exec_driver_sql(
            "UPDATE games SET status = 'finished', seed = ?, end_reason = ?, signature = ?, "
            f"store_seq = {dialect.NEXT_STORE_SEQ} WHERE id = ?",
            (seed, end_reason, signature, game_id),
        )
        connection.exec_driver_sql(
            dialect.INSERT_SEAT, [(game_id, s.seat, s.bot_id, s.rank, s.score) for s in seats]
        )
        read_models.count(connection, {game_id: forfeit_seat})

    def store_game(self, game: dict[str, Any], records: Sequence[Record], seed: str, end_reason: str,
                   seats: Sequence[SeatRow], connection: Connection | None = None,
                   forfeit_seat: int | None = None) -> str:
        """Store one whole finished game in one transaction: row (its head signed), events, seats.

        Returns the head.
        """
        finished = FinishedGame(game, records, seed, end_reason, seats, forfeit_seat=forfeit_seat)
        return self.store_games([finished], connection)[0]

    def store_games(self, games: Sequence[FinishedGame], connection: Connection | None = None) -> list[str]:
        """Store whole finished games in one transaction, all or none; returns their heads.

        Three executemany in all, however many games (the tournament writer's hot path):
        the game rows written finished, numbered in turn and their heads signed, each game's
        events sealed into one block (ledger.sealed: LedgerError if its records do not chain),
        every seat; then the read models count them (a read of the seats and one executemany
        per read model).
        """
        if not games:
            return []
        if connection is None:
            self.signing_key()
            with self.write() as connection:
                return self.store_games(games, connection)
        key = self.signing_key(connection)
        game_rows, sealable, seat_rows, heads = [], [], [], []
        created = now()
        for finished in games:
            game_id, records = finished.game["id"], finished.records
            if not records or records[0][0] != 0 or records[-1][0] != len(records) - 1:
                raise LedgerError(f"game {game_id}: a whole game's records run from seq 0 without gaps")
            head = records[-1][-1]
            row = {**finished.game, "status": "finished", "events": len(records), "head": head,
                   "seed": finished.seed, "end_reason": finished.end_reason, "created_at": created,
                   "signature": key.sign(keys.log_message(game_id, head))}
            game_rows.append(tuple(row.get(column) for column in dialect.GAME_COLUMNS))
            sealable.append(sealing.Sealable(game_id, finished.game["game"], finished.game["engine_version"],
                                             finished.seed, records, finished.salt_key))
            seat_rows.extend((game_id, s.seat, s.bot_id, s.rank, s.score) for s in finished.seats)
            heads.append(head)
        try:
            connection.exec_driver_sql(dialect.INSERT_GAME, game_rows)
        except exc.IntegrityError:
            taken = [g.game["id"] for g in games if self.game(g.game["id"]) is not None] if len(games) > 1 \
                else [games[0].game["id"]]
            raise GameExists(f"game {', '.join(taken) or games[0].game['id']} is already stored") from None
        try:
            sealing.store(connection, sealable, created)
        except Unsealable as error:
            raise LedgerError(f"game {error.game_id}: its records cannot be sealed: {error}") from None
        if seat_rows:
            connection.exec_driver_sql(dialect.INSERT_SEAT, seat_rows)
        # The read models count the games in this same transaction (ledger/read_models.py).
        read_models.count(connection, {finished.game["id"]: finished.forfeit_seat for finished in games})
        return heads

    # -- the ledger key -----------------------------------------------------------------

    def public_key(self, connection: Connection | None = None) -> bytes | None:
        """The ledger's public key as stored in the database (None: written before ledger keys)."""
        found = self.key_row(connection)
        return None if found is None else found[0]

    def key_row(self, connection: Connection | None = None) -> tuple[bytes, int] | None:
        """(the ledger's public key, the first store_seq it signed), or None before ledger keys."""
        if connection is None:
            with self.read() as connection:
                return self.key_row(connection)
        rows = connection.exec_driver_sql("SELECT public_key, signs_from FROM ledger_keys ORDER BY id").fetchall()
        if len(rows) > 1:
            raise LedgerError(f"database {self.where} names {len(rows)} ledger keys; a ledger has one")
        return (bytes.fromhex(rows[0][0]), rows[0][1]) if rows else None

    def signing_key(self, connection: Connection | None = None) -> keys.LedgerKey:
        """The ledger's private key, checked against the public key the database holds.

        The first time a ledger needs it, the key is made at ``key_path`` (or the file found
        there is adopted) and its public half stored. LedgerError, before anything is written,
        if there is no place for a key, or the file there is not this ledger's. Writers call it
        once before they store anything; inside a caller's transaction (``connection``) the
        check is not remembered, since that transaction may yet roll back.
        """
        if self._key is not None:
            return self._key
        if connection is not None:
            return self._checked_key(connection)
        with self.write() as connection:
            key = self._checked_key(connection)
        self._key = key
        return key

    def _checked_key(self, connection: Connection) -> keys.LedgerKey:
        self._writable()
        if self.key_path is None:
            raise LedgerError(f"database {self.where} is not a file, so it has no default ledger key: give "
                              f"--ledger-key PATH (or ${keys.ENV_VAR})")
        stored = self.public_key(connection)
        if stored is not None and not self.key_path.exists():
            raise LedgerError(f"the ledger key of {self.where} (fingerprint {keys.fingerprint(stored)}) is not at "
                              f"{self.key_path}: give its path with --ledger-key (or ${keys.ENV_VAR})")
        try:
            key, _made = keys.open_or_create(self.key_path)
        except keys.KeyFileError as error:
            raise LedgerError(f"ledger key: {error}") from None
        if stored is None:
            connection.exec_driver_sql(
                f"INSERT INTO ledger_keys (public_key, signs_from, created_at) VALUES (?, {dialect.NEXT_STORE_SEQ}, ?)",
                (key.public.hex(), now()))
        elif stored != key.public:
            raise LedgerError(f"the ledger key at {self.key_path} (fingerprint {key.fingerprint}) is not the key of "
                              f"{self.where} (fingerprint {keys.fingerprint(stored)})")
        return key

    def sign_stored_heads(self) -> int:
        """Sign the head of every finished game that has no signature (written before ledger keys); how many.

        Only `tourney db sign` calls it, after verifying every game: a signature vouches for a
        game as it is when signed.
        """
        key = self.signing_key()
        with self.write() as connection:
            unsigned = connection.exec_driver_sql(
                "SELECT id, head FROM games WHERE status = 'finished' AND signature IS NULL").fetchall()
            if unsigned:
                connection.exec_driver_sql("UPDATE games SET signature = ? WHERE id = ?",
                                           [(key.sign(keys.log_message(game_id, head)), game_id)
                                            for game_id, head in unsigned])
        return len(unsigned)

    # -- reading ------------------------------------------------------------------------

    def records(self, game_id: str, connection: Connection | None = None) -> list[Record]:
        """Every event of a game in seq order: a finished game's rebuilt from its sealed block (each hash
        recomputed from seq 0: DamagedGame if the block cannot be read), a live game's as appended."""
        if connection is None:
            with self.read() as connection:
                return self.records(game_id, connection)
        try:
            sealed = sealing.records(connection, game_id)
        except Damaged as error:
            raise DamagedGame(f"game {game_id}: {error}") from None
        if sealed is not None:
            return sealed
        rows = connection.exec_driver_sql(
            "SELECT seq, type, audience, body, private, salt, hash FROM events WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            Record(seq, type_, audience, bytes(body),
                   None if private is None else bytes(private), None if salt is None else bytes(salt), hash_)
            for seq, type_, audience, body, private, salt, hash_ in rows
        ]

    def game(self, game_id: str, connection: Connection | None = None) -> dict[str, Any] | None:
        """The game row as a dict, or None."""
        if connection is None:
            with self.read() as connection:
                return self.game(game_id, connection)
        row = connection.execute(select(Game.__table__).where(Game.__table__.c.id == game_id)).mappings().first()
        return dict(row) if row is not None else None

    def seats(self, game_id: str, connection: Connection | None = None) -> list[dict[str, Any]]:
        """The seats of a game with bot name and content hash, in seat order."""
        if connection is None:
            with self.read() as connection:
                return self.seats(game_id, connection)
        rows = connection.exec_driver_sql(
            "SELECT s.seat, b.name, b.content_hash, s.rank, s.score, b.id FROM seats s "
            "JOIN bots b ON b.id = s.bot_id WHERE s.game_id = ? ORDER BY s.seat",
            (game_id,),
        )
        return [
            {"seat": seat, "bot": name, "hash": content_hash, "rank": rank, "score": score, "bot_id": bot_id}
            for seat, name, content_hash, rank, score, bot_id in rows
        ]

    def game_ids(self) -> list[str]:
        """Every stored game's id, whatever its status, oldest first."""
        with self.read() as connection:
            return [row[0] for row in connection.exec_driver_sql("SELECT id FROM games ORDER BY created_at, id")]

    def find_games(self, prefix: str) -> list[str]:
        """Ids of stored games that start with ``prefix`` (commands accept a unique prefix)."""
        with self.read() as connection:
            # substr, not a range up to prefix + U+10FFFF: a PostgreSQL database's collation may sort
            # that code point anywhere (a scan of the ids costs milliseconds, once per command).
            rows = connection.exec_driver_sql(
                "SELECT id FROM games WHERE substr(id, 1, ?) = ? ORDER BY id LIMIT 2", (len(prefix), prefix)
            )
            return [row[0] for row in rows]


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
    """The file of an SQLite URL (None for memory or other databases)."""
    prefix = "sqlite:///"
    if url.startswith(prefix) and url[len(prefix):] not in ("", ":memory:"):
        return Path(url[len(prefix):])
    return None
