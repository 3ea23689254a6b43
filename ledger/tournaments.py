"""Tournament rows and the results standings are computed from (no game knowledge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.engine import Connection

from ledger.canonical import canonical, loads
from ledger.models import Tournament
from ledger.store import Ledger, LedgerError, now

IMPORTED = "imported"
"""The kind (in its spec) of a tournament that collects imported games rather than playing them."""


class UnknownTournament(LedgerError):
    """No tournament with that id or name."""


def create(ledger: Ledger, name: str, game: str, spec: str, seed: str, bot_ids: Sequence[int]) -> int:
    """Store a tournament and its entrants; LedgerError if the name is taken."""
    with ledger.write() as connection:
        if connection.execute(select(Tournament.id).where(Tournament.name == name)).first() is not None:
            raise LedgerError(f"a tournament named {name!r} already exists")
        cursor = connection.exec_driver_sql(
            "INSERT INTO tournaments (name, game, spec, seed, created_at) VALUES (?, ?, ?, ?, ?)",
            (name, game, spec, seed, now()),
        )
        tournament_id = cursor.lastrowid
        connection.exec_driver_sql(
            "INSERT INTO tournament_bots (tournament_id, bot_id) VALUES (?, ?)",
            [(tournament_id, bot_id) for bot_id in sorted(set(bot_ids))],
        )
        return tournament_id


def collecting_imports(connection: Connection, name: str, game: str, bot_ids: Sequence[int]) -> int:
    """The id of the tournament ``name`` that imported games of ``game`` are recorded in (made if
    new), with ``bot_ids`` among its entrants; LedgerError for a played tournament or another game."""
    row = connection.exec_driver_sql("SELECT id, game, spec FROM tournaments WHERE name = ?", (name,)).first()
    if row is None:
        tournament_id = connection.exec_driver_sql(
            "INSERT INTO tournaments (name, game, spec, seed, created_at) VALUES (?, ?, ?, ?, ?)",
            (name, game, canonical({"kind": IMPORTED, "game": game}).decode(), "", now())).lastrowid
    else:
        tournament_id, stored_game, spec = row
        if loads(spec).get("kind") != IMPORTED:
            raise LedgerError(f"tournament {name!r} was played in this database: imported games go to another "
                              "--tournament")
        if stored_game != game:
            raise LedgerError(f"tournament {name!r} holds {stored_game} games, not {game}")
    connection.exec_driver_sql(
        "INSERT INTO tournament_bots (tournament_id, bot_id) VALUES (?, ?) ON CONFLICT DO NOTHING",
        [(tournament_id, bot_id) for bot_id in sorted(set(bot_ids))])
    return tournament_id


def kind(row: dict[str, Any]) -> str:
    """"played" for a tournament run here, IMPORTED for one that collects imported games."""
    return loads(row["spec"]).get("kind", "played")


def find(ledger: Ledger, ref: str) -> dict[str, Any] | None:
    """A tournament by id (digits) or by name, as a dict; None if there is none."""
    table = Tournament.__table__
    with ledger.read() as connection:
        row = None
        if ref.isdigit():
            row = connection.execute(select(table).where(table.c.id == int(ref))).mappings().first()
        if row is None:
            row = connection.execute(select(table).where(table.c.name == ref)).mappings().first()
        return dict(row) if row is not None else None


def get(ledger: Ledger, ref: str) -> dict[str, Any]:
    """Like ``find``, but UnknownTournament (listing what exists) when absent."""
    found = find(ledger, ref)
    if found is None:
        with ledger.read() as connection:
            names = [r[0] for r in connection.exec_driver_sql("SELECT name FROM tournaments ORDER BY id DESC LIMIT 5")]
        hint = f" (recent: {', '.join(names)})" if names else " (the database has none)"
        raise UnknownTournament(f"no tournament {ref!r} in {ledger.url}{hint}")
    return found


def latest(ledger: Ledger) -> dict[str, Any] | None:
    with ledger.read() as connection:
        row = connection.exec_driver_sql("SELECT id FROM tournaments ORDER BY id DESC LIMIT 1").first()
    return find(ledger, str(row[0])) if row else None


def game_keys(ledger: Ledger, tournament_id: int) -> set[str]:
    """Keys of the games of a tournament already stored (each stored whole, so finished)."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql("SELECT game_key FROM games WHERE tournament_id = ?", (tournament_id,))
        return {row[0] for row in rows}


def game_ids(ledger: Ledger, tournament_id: int) -> list[str]:
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT id FROM games WHERE tournament_id = ? ORDER BY game_key", (tournament_id,))
        return [row[0] for row in rows]


def results(ledger: Ledger, tournament_id: int) -> list[list[tuple[str, int]]]:
    """Every stored game of a tournament as [(bot name, rank) per seat], in key order."""
    return list(results_by_key(ledger, tournament_id).values())


def results_by_key(ledger: Ledger, tournament_id: int) -> dict[str, list[tuple[str, int]]]:
    """Every stored game of a tournament by its key: [(bot name, rank) per seat], in key order."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT g.game_key, s.seat, b.name, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
            "JOIN bots b ON b.id = s.bot_id WHERE g.tournament_id = ? ORDER BY g.game_key, s.seat",
            (tournament_id,),
        )
        games: dict[str, list[tuple[str, int]]] = {}
        for key, _seat, name, rank in rows:
            games.setdefault(key, []).append((name, rank))
    return games


def all_tournaments(ledger: Ledger) -> list[dict[str, Any]]:
    """Every tournament with its entrants and stored games counted, oldest first."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT t.id, t.name, t.game, t.spec, t.created_at, "
            "(SELECT COUNT(*) FROM tournament_bots b WHERE b.tournament_id = t.id), "
            "(SELECT COUNT(*) FROM games g WHERE g.tournament_id = t.id) FROM tournaments t ORDER BY t.id")
        keys = ("id", "name", "game", "spec", "created_at", "bots", "games")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def game_seats(ledger: Ledger, tournament_id: int) -> list[dict[str, Any]]:
    """Every seat of every stored game of a tournament, in key and seat order."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT g.game_key, g.id, g.end_reason, g.created_at, s.seat, b.name, s.rank, s.score FROM games g "
            "JOIN seats s ON s.game_id = g.id JOIN bots b ON b.id = s.bot_id WHERE g.tournament_id = ? "
            "ORDER BY g.game_key, s.seat", (tournament_id,))
        keys = ("key", "game_id", "end_reason", "created_at", "seat", "bot", "rank", "score")
        return [dict(zip(keys, row, strict=True)) for row in rows]


def event_bodies(ledger: Ledger, tournament_id: int, event_type: str) -> list[tuple[str, bytes]]:
    """(game id, hashed body) of every event of one type in a tournament's games (the ledger does not parse them)."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT e.game_id, e.body FROM events e JOIN games g ON g.id = e.game_id "
            "WHERE g.tournament_id = ? AND e.type = ?", (tournament_id, event_type))
        return [(game_id, bytes(body)) for game_id, body in rows]
