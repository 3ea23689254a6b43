"""Reading the ledger back: a game's records (rebuilt from its sealed block, or as appended), its row,
its seats, and game ids by prefix.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select, text
from sqlalchemy.engine import Connection

from ledger import sealing
from ledger.chain import Record
from ledger.errors import LedgerError
from ledger.models import Game
from ledger.opening import Opened
from ledger.sealed import Damaged


class DamagedGame(LedgerError):
    """A sealed game whose block cannot be read back (changed outside tourney); the message names the game."""



class Reading(Opened):
    """What a ledger reads (a mixin of ledger.store.Ledger, over its connections)."""

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
        rows = connection.execute(text(
            "SELECT seq, type, audience, body, private, salt, hash FROM events WHERE game_id = :game_id ORDER BY seq"),
            {"game_id": game_id},
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
        rows = connection.execute(text(
            "SELECT s.seat, b.name, b.content_hash, s.rank, s.score, b.id FROM seats s "
            "JOIN bots b ON b.id = s.bot_id WHERE s.game_id = :game_id ORDER BY s.seat"),
            {"game_id": game_id},
        )
        return [
            {"seat": seat, "bot": name, "hash": content_hash, "rank": rank, "score": score, "bot_id": bot_id}
            for seat, name, content_hash, rank, score, bot_id in rows
        ]

    def game_ids(self) -> list[str]:
        """Every stored game's id, whatever its status, oldest first."""
        with self.read() as connection:
            return [row[0] for row in connection.execute(text("SELECT id FROM games ORDER BY created_at, id"))]

    def find_games(self, prefix: str) -> list[str]:
        """Ids of stored games that start with ``prefix`` (commands accept a unique prefix)."""
        with self.read() as connection:
            # substr, not a range up to prefix + U+10FFFF: a PostgreSQL database's collation may sort
            # that code point anywhere (a scan of the ids costs milliseconds, once per command).
            rows = connection.execute(text(
                "SELECT id FROM games WHERE substr(id, 1, :length) = :prefix ORDER BY id LIMIT 2"),
                {"length": len(prefix), "prefix": prefix},
            )
            return [row[0] for row in rows]
