"""A tournament's Elo fit, kept (``tournament_fits``, revision 0018; issue 39 item 3): per bot its fitted rating,
95% interval and score, stamped by the tournament's games it counts.

The fit reads every pair of bots that met (``tournament_pairs``): refitted per view, a tournament's page grows
until every pair has met. Kept, it is read per bot. It is a memo of the pairs, not a fold of the games: a reader
uses it while its ``Stamp`` is the tournament's (no game of it stored since), and refits when it is not; a
writer (`tourney run` at each checkpoint and at its end, a command or a server that may write) stores the new
fit, compare-and-set on the stamp. The ledger only stores and reads fits: tournaments.play.standings makes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

COLUMNS = ("elo", "ci_low", "ci_high", "score")
"""What a fit holds per bot, in this order."""
KEPT = text("SELECT DISTINCT tournament_id FROM tournament_fits ORDER BY tournament_id")
"""The tournaments a fit is kept for."""


@dataclass(frozen=True, slots=True)
class Stamp:
    """The tournament's games a fit counts: how many, and the newest's store_seq (0: none)."""

    games: int
    store_seq: int


Fitted = tuple[float, float, float, float]
"""A bot's elo, ci_low, ci_high and score (percent)."""


def kept_games(tournament: str) -> str:
    """SQL for the games the read models count in the tournament whose id is the SQL ``tournament`` (a parameter or a
    column): its kept counts (``place_games``), a row or two, never a count of its games."""
    return (f"COALESCE((SELECT SUM(c.games) FROM place_games c WHERE c.tournament_id = {tournament} "
            "AND c.ladder_id = 0), 0)")


def stamp(connection: Connection, tournament_id: int) -> Stamp:
    """The tournament's games now, as the read models count them: its kept count and its newest game's store_seq
    (a row, and a step down the index on tournament and store_seq: never a count of its games)."""
    games, newest = connection.execute(text(
        f"SELECT {kept_games(':id')}, "
        "COALESCE((SELECT MAX(store_seq) FROM game_results WHERE tournament_id = :id), 0)"),
        {"id": tournament_id}).one()
    return Stamp(games, newest)


def read(connection: Connection, tournament_id: int) -> tuple[Stamp | None, dict[str, Fitted]]:
    """The stored fit (bot -> Fitted) and its stamp (None: no fit stored)."""
    rows = connection.execute(text(
        "SELECT bot, elo, ci_low, ci_high, score, games, store_seq FROM tournament_fits "
        "WHERE tournament_id = :id ORDER BY bot"), {"id": tournament_id}).fetchall()
    if not rows:
        return None, {}
    stamps = {Stamp(row[5], row[6]) for row in rows}
    found = {row[0]: (row[1], row[2], row[3], row[4]) for row in rows}
    # Rows written together share a stamp: mixed ones (written by hand) are no fit.
    return (stamps.pop() if len(stamps) == 1 else Stamp(-1, -1)), found


def fresh(connection: Connection, tournament_id: int, now: Stamp) -> dict[str, Fitted] | None:
    """The stored fit if it counts exactly the games ``now`` says, else None."""
    stored, found = read(connection, tournament_id)
    return found if stored == now else None


def write(connection: Connection, tournament_id: int, now: Stamp, fit: Mapping[str, Fitted], fitted_at: str) -> bool:
    """Store ``fit`` stamped ``now`` unless the stored one is as new or newer (another writer got there first):
    True if stored."""
    stored, _found = read(connection, tournament_id)
    if stored is not None and stored.store_seq >= now.store_seq and stored.games >= now.games:
        return False
    connection.execute(text("DELETE FROM tournament_fits WHERE tournament_id = :id"), {"id": tournament_id})
    if fit:
        connection.execute(text(
            "INSERT INTO tournament_fits (tournament_id, bot, elo, ci_low, ci_high, score, games, store_seq, "
            "fitted_at) VALUES (:id, :bot, :elo, :ci_low, :ci_high, :score, :games, :store_seq, :fitted_at)"),
            [{"id": tournament_id, "bot": bot, **dict(zip(COLUMNS, values, strict=True)), "games": now.games,
              "store_seq": now.store_seq, "fitted_at": fitted_at} for bot, values in fit.items()])
    return True


def clear(connection: Connection) -> None:
    """Forget every fit (a rebuild of the read models: each is refitted by its next reader)."""
    connection.execute(text("DELETE FROM tournament_fits"))


def pairs_of(connection: Connection, tournament_id: int, bots: list[str]) -> dict[tuple[str, str], tuple[int, int,
                                                                                                     int]]:
    """The wins-draws-losses of ``bots`` (a page of rows) against every opponent they met: only those rows."""
    if not bots:
        return {}
    rows = connection.execute(text(
        "SELECT bot, opponent, wins, draws, losses FROM tournament_pairs WHERE tournament_id = :id "
        "AND bot IN :bots").bindparams(bindparam("bots", expanding=True)),
        {"id": tournament_id, "bots": list(bots)}).fetchall()
    return {(bot, opponent): (wins, draws, losses) for bot, opponent, wins, draws, losses in rows}
