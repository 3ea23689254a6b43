"""Tournament rows and the results standings are computed from (no game knowledge)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select

from ledger.models import Tournament
from ledger.store import Ledger, LedgerError, now


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
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT g.game_key, s.seat, b.name, s.rank FROM games g JOIN seats s ON s.game_id = g.id "
            "JOIN bots b ON b.id = s.bot_id WHERE g.tournament_id = ? ORDER BY g.game_key, s.seat",
            (tournament_id,),
        )
        games: dict[str, list[tuple[str, int]]] = {}
        for key, _seat, name, rank in rows:
            games.setdefault(key, []).append((name, rank))
    return list(games.values())
