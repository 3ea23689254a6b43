"""The few rows a reader needs to check a game's results without refolding it.

For each game of a tournament, a ladder, or a list of ids: the game row, its seats (with
each bot's name and content hash), its first event and its last three. replays.facts
checks them against each other; the ledger only reads them (it never parses an event's data).
A sealed game's events come from its block (ledger.sealed: those four rebuilt, hashed from the
hash the block keeps before its tail, without walking its chain); a live game's from its rows.
Five queries per read, whatever the number of games, each on an index (rows fetched in large
batches: SQLAlchemy's row-by-row iteration costs more than SQLite's reading them).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import sealing
from ledger.checkpoints import LADDER, TOURNAMENT, Scope
from ledger.models import Game
from ledger.sealed import TAIL, Damaged, StoredEvent

GAME_COLUMNS = tuple(column.name for column in Game.__table__.columns)
"""Every column of the games table, in the model's order (ledger.models.Game)."""
BATCH = 500
"""Rows fetched at a time: a scope's blocks are never all in memory at once."""
__all__ = ["GAME_COLUMNS", "TAIL", "Closing", "SeatRow", "StoredEvent", "of_games", "of_scope", "unnumbered"]


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    bot_id: int
    bot: str
    hash: str
    rank: int | None
    score: int | None


@dataclass(slots=True)
class Closing:
    """One game as stored: its row (a dict of GAME_COLUMNS), seats, first event and last events (seq order)."""

    game: dict
    seats: list[SeatRow] = field(default_factory=list)
    first: StoredEvent | None = None
    last: list[StoredEvent] = field(default_factory=list)
    sealed: bool = False
    damage: str | None = None
    """Why its events cannot be read (a sealed block that does not open, events both sealed and in rows)."""

    @property
    def game_id(self) -> str:
        return self.game["id"]


def _where(scope: Scope | None) -> str:
    if scope is None:
        return "1 = 1"
    if scope.kind == TOURNAMENT:
        return "g.tournament_id = :scope"
    if scope.kind == LADDER:
        return "g.id IN (SELECT game_id FROM ladder_games WHERE ladder_id = :scope)"
    raise ValueError(f"unknown scope {scope.kind!r}")


def _params(scope: Scope | None) -> dict:
    return {} if scope is None else {"scope": scope.id}


def _sql(statement: str, params: dict):
    """``statement`` as text(), its ``:ids`` (when the games are named) an expanding IN list."""
    return text(statement).bindparams(bindparam("ids", expanding=True)) if "ids" in params else text(statement)


def of_scope(connection: Connection, scope: Scope | None) -> list[Closing]:
    """Every game of a tournament or a ladder (None: of the whole ledger), by game id."""
    return _read(connection, _where(scope), _params(scope))


def in_chunks(connection: Connection, scope: Scope | None, size: int = 500) -> Iterator[list[Closing]]:
    """Every game of a scope (None: of the whole ledger), by game id, ``size`` games at a time: what a reader
    of many games holds at once is one chunk of their rows and events, never them all."""
    ids = [row[0] for row in connection.execute(
        text(f"SELECT g.id FROM games g WHERE {_where(scope)} ORDER BY g.id"), _params(scope)).fetchall()]
    for start in range(0, len(ids), size):
        yield of_games(connection, ids[start:start + size])


def unnumbered(connection: Connection, scope: Scope) -> list[Closing]:
    """The scope's games not numbered among its stored ones (no store_seq): games still playing, unless a row was
    changed (facts.check says which)."""
    return _read(connection, f"{_where(scope)} AND g.store_seq IS NULL", _params(scope))


def of_games(connection: Connection, game_ids: Sequence[str]) -> list[Closing]:
    """The games named, by game id (ids not stored are left out)."""
    out: list[Closing] = []
    for start in range(0, len(game_ids), 500):  # bound the number of parameters of one statement
        out += _read(connection, "g.id IN :ids", {"ids": list(game_ids[start:start + 500])})
    return out


def _read(connection: Connection, where: str, params: dict) -> list[Closing]:
    games: dict[str, Closing] = {}
    for row in connection.execute(
            _sql(f"SELECT {', '.join('g.' + c for c in GAME_COLUMNS)} FROM games g WHERE {where} ORDER BY g.id",
                 params), params).fetchall():
        games[row[0]] = Closing(dict(zip(GAME_COLUMNS, row, strict=True)))
    for game_id, *seat in connection.execute(_sql(
            "SELECT s.game_id, s.seat, s.bot_id, b.name, b.content_hash, s.rank, s.score FROM seats s "
            f"JOIN games g ON g.id = s.game_id JOIN bots b ON b.id = s.bot_id WHERE {where} "
            "ORDER BY s.game_id, s.seat", params), params).fetchall():
        games[game_id].seats.append(SeatRow(*seat))
    opener = sealing.Opener(connection)
    for game_id, dictionary_id, frame in _batches(connection.execute(_sql(
            f"SELECT g.id, s.dictionary_id, s.block FROM games g JOIN sealed_games s ON s.store_seq = g.store_seq "
            f"WHERE {where}", params), params)):
        stored = games[game_id]
        stored.sealed = True
        try:
            stored.first, stored.last = opener.block(game_id, dictionary_id, bytes(frame)).closing()
        except Damaged as error:
            stored.damage = str(error)
    # games.events (a derived count) only says where to seek: every event from there on is read, so a
    # count that lies shows as a last seq that is not count - 1 (replays.facts checks it).
    for game_id, seq, body, hash_ in connection.execute(_sql(
            f"SELECT e.game_id, e.seq, e.body, e.hash FROM games g JOIN events e ON e.game_id = g.id "
            f"AND e.seq >= g.events - {TAIL} WHERE {where} ORDER BY e.game_id, e.seq", params), params).fetchall():
        stored = games[game_id]
        if stored.sealed:
            stored.damage = "its events are both sealed and stored as rows"
            continue
        stored.last.append(StoredEvent(seq, bytes(body), hash_))
        if len(stored.last) > TAIL:
            del stored.last[0]
    for game_id, seq, body, hash_ in connection.execute(_sql(
            f"SELECT e.game_id, e.seq, e.body, e.hash FROM games g JOIN events e ON e.game_id = g.id "
            f"WHERE {where} AND e.seq = 0", params), params).fetchall():
        if not games[game_id].sealed:
            games[game_id].first = StoredEvent(seq, bytes(body), hash_)
    return list(games.values())


def _batches(result) -> Iterator[tuple]:
    while rows := result.fetchmany(BATCH):
        yield from rows
