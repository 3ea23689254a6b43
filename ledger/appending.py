"""Appending to the ledger: bots and game rows, events appended at an expected seq, and whole finished
games stored in one transaction (their events sealed, their heads signed, the read models counted).

The hot inserts (events, game rows, seats: ledger.dialect's INSERT_EVENT, INSERT_GAME, INSERT_SEAT) are
SQLAlchemy Core's ``exec_driver_sql`` with executemany over plain tuples, no ORM object nor parameter dict
per row (bench/ledger.py measured text() with named binds slower there); every other statement is
``text()`` with named binds. Every write runs in one BEGIN IMMEDIATE transaction,
so a game is stored whole or not at all, and an append whose expected seq is stale
fails instead of leaving a gap or a duplicate.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import exc, select, text
from sqlalchemy.engine import Connection

from ledger import dialect, read_models, sealing, signing_keys
from ledger.chain import Record
from ledger.errors import LedgerError
from ledger.heads import HeadSigning
from ledger.models import Bot, Game
from ledger.opening import now
from ledger.sealed import Unsealable


class StaleAppend(LedgerError):
    """An append whose expected seq is not the game's next seq (someone else wrote first)."""


class GameExists(LedgerError):
    """A game id that is already stored."""


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


class Appending(HeadSigning):
    """What a ledger writes (a mixin of ledger.store.Ledger, over its connections and its key)."""

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
        return connection.execute(text(
            "INSERT INTO bots (name, content_hash, kind, created_at) "
            "VALUES (:name, :content_hash, :kind, :created_at) RETURNING id"),
            {"name": name, "content_hash": content_hash, "kind": kind, "created_at": now()},
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
            moved = connection.execute(text(
                "UPDATE games SET events = :events, head = :head WHERE id = :id AND events = :expected"),
                {"events": expected_seq + len(records), "head": head, "id": game_id, "expected": expected_seq},
            ).rowcount
            if moved == 1:
                # Raw executemany of tuples: the hot path bench/ledger.py measures (ledger.dialect.INSERT_EVENT).
                connection.exec_driver_sql(dialect.hot_insert(connection, dialect.INSERT_EVENT),
                                           [(game_id, *record) for record in records])
                return head
        stored = connection.execute(text("SELECT events, head FROM games WHERE id = :id"), {"id": game_id}).first()
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
        head = connection.execute(text("SELECT head FROM games WHERE id = :id"), {"id": game_id}).scalar()
        signature = self.signing_key(connection).sign(signing_keys.log_message(game_id, head or ""))
        connection.execute(text(
            "UPDATE games SET status = 'finished', seed = :seed, end_reason = :end_reason, signature = :signature, "
            f"store_seq = {dialect.NEXT_STORE_SEQ} WHERE id = :id"),
            {"seed": seed, "end_reason": end_reason, "signature": signature, "id": game_id},
        )
        # Raw executemany of tuples (ledger.dialect.INSERT_SEAT): the hot path bench/ledger.py measures.
        connection.exec_driver_sql(dialect.hot_insert(connection, dialect.INSERT_SEAT),
                                   [(game_id, s.seat, s.bot_id, s.rank, s.score) for s in seats])
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
                   "signature": key.sign(signing_keys.log_message(game_id, head))}
            game_rows.append(tuple(row.get(column) for column in dialect.GAME_COLUMNS))
            sealable.append(sealing.Sealable(game_id, finished.game["game"], finished.game["engine_version"],
                                             finished.seed, records, finished.salt_key))
            seat_rows.extend((game_id, s.seat, s.bot_id, s.rank, s.score) for s in finished.seats)
            heads.append(head)
        try:
            # Raw executemany of tuples in GAME_COLUMNS' order (the model's): the hot path bench/ledger.py measures.
            connection.exec_driver_sql(dialect.hot_insert(connection, dialect.INSERT_GAME), game_rows)
        except exc.IntegrityError:
            taken = [g.game["id"] for g in games if self.game(g.game["id"]) is not None] if len(games) > 1 \
                else [games[0].game["id"]]
            raise GameExists(f"game {', '.join(taken) or games[0].game['id']} is already stored") from None
        try:
            sealing.store(connection, sealable, created)
        except Unsealable as error:
            raise LedgerError(f"game {error.game_id}: its records cannot be sealed: {error}") from None
        if seat_rows:
            connection.exec_driver_sql(dialect.hot_insert(connection, dialect.INSERT_SEAT), seat_rows)
        # The read models count the games in this same transaction (ledger/read_models.py).
        read_models.count(connection, {finished.game["id"]: finished.forfeit_seat for finished in games})
        return heads
