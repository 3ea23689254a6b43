"""The ladder match queue: the deals a session will play, claimed by workers with a lease.

A session plans its games (``ladder_sessions.planned``) and queues them ``batch`` deals at a
time (``top_up``), each deal one match: a table of ladder entries that plays the deal once from
every seat rotation. Workers, on any number of machines, ``claim`` matches, renew their lease
while they play (``renew``), and store a match's games in the one transaction that marks it
stored (``finish``), which only succeeds while the worker still holds it. So:

* two workers never play the same match at once: on PostgreSQL a claim is
  ``SELECT ... FOR UPDATE SKIP LOCKED`` (claimers lock the rows they take and step over the
  rows another claimer is taking, never waiting for each other or for the writers of games); on
  SQLite a claim is a BEGIN IMMEDIATE transaction, alone by construction;
* a worker that dies (killed, its machine lost) stops renewing; once its lease has run out the
  match is claimed again and played from the start, and since the dead worker stored nothing of
  it, every match is stored exactly once;
* a worker that was only slow (paused past its lease while another took its match over) finds
  out when it tries to store: ``finish`` raises ``Lost`` and its games are dropped;
* leases are measured on the database's clock (ledger.dialect.clock), so the clocks of the
  workers' machines need not agree.

The ledger queues and hands out; which tables a session plays (matchmaking) is the caller's,
passed to ``top_up`` as a function run inside its transaction.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import orjson
from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import dialect
from ledger.store import Ledger, LedgerError, now

QUEUED = "queued"
PLAYING = "playing"
STORED = "stored"
CANCELLED = "cancelled"

Plan = Callable[[Connection, int, int], list[list[int]]]
"""(connection, first deal, deals) -> the table of each deal, as ladder entry ids in seat order."""


class Lost(LedgerError):
    """The match is no longer this worker's: its lease ran out and another worker claimed it."""


@dataclass(frozen=True, slots=True)
class Match:
    id: int
    ladder_id: int
    session_id: int
    deal: int
    entries: tuple[int, ...]
    attempts: int


@dataclass(frozen=True, slots=True)
class Session:
    """What a worker needs of an open session to queue its next deals."""

    id: int
    ladder_id: int
    planned: int
    batch: int
    deals: int
    players: int

    @property
    def deals_planned(self) -> int:
        return math.ceil(self.planned / self.players)


_MATCH = "SELECT id, ladder_id, session_id, deal, entries, attempts FROM ladder_matches"
_IDS = bindparam("ids", expanding=True)


def _claimable(connection: Connection, table: str = "") -> str:
    """The condition of a match any worker may claim now: queued, or its worker's lease run out."""
    return (f"({table}status = 'queued' OR ({table}status = 'playing' AND {table}lease_until < "
            f"{dialect.clock(connection)}))")


def top_up(ledger: Ledger, session_id: int, plan: Plan) -> int:
    """Queue the session's next deals (up to its batch) when none of it is waiting in the queue and it has
    deals left to queue; ``plan`` draws their tables inside this transaction, at the ratings as they stand.
    Returns how many deals were queued (0: none needed, or the session is over)."""
    with ledger.write() as connection:
        session = _open_session(connection, session_id)
        if session is None or session.deals >= session.deals_planned:
            return 0
        waiting = connection.execute(text(
            "SELECT COUNT(*) FROM ladder_matches WHERE session_id = :session_id AND status = 'queued'"),
            {"session_id": session_id}).scalar()
        if waiting:
            return 0
        count = min(session.batch, session.deals_planned - session.deals)
        tables = plan(connection, session.deals, count)
        if len(tables) != count:
            raise ValueError(f"a plan of {count} deals gave {len(tables)} tables")
        stamp = now()
        connection.execute(text(
            "INSERT INTO ladder_matches (ladder_id, session_id, deal, entries, status, attempts, created_at) "
            "VALUES (:ladder_id, :session_id, :deal, :entries, 'queued', 0, :created_at)"),
            [{"ladder_id": session.ladder_id, "session_id": session_id, "deal": session.deals + i,
              "entries": orjson.dumps(table).decode(), "created_at": stamp} for i, table in enumerate(tables)])
        connection.execute(text("UPDATE ladder_sessions SET deals = deals + :count WHERE id = :id"),
                           {"count": count, "id": session_id})
        return count


def _open_session(connection: Connection, session_id: int) -> Session | None:
    row = connection.execute(text(
        "SELECT s.id, s.ladder_id, s.planned, s.batch, s.deals, l.players FROM ladder_sessions s "
        "JOIN ladders l ON l.id = s.ladder_id WHERE s.id = :id AND s.ended_at IS NULL AND s.planned IS NOT NULL"),
        {"id": session_id}).first()
    return None if row is None else Session(*row)


def claim(ledger: Ledger, ladder_id: int, worker: str, lease: float, limit: int,
          session_id: int | None = None) -> list[Match]:
    """Take up to ``limit`` matches of the ladder (of one session, if given), oldest first: queued ones, and
    ones whose worker's lease has run out. They are ``worker``'s for ``lease`` seconds, renewed by ``renew``."""
    with ledger.write(serial=False) as connection:
        only = "" if session_id is None else " AND session_id = :session_id"
        ids = [row[0] for row in connection.execute(text(
            f"SELECT id FROM ladder_matches WHERE ladder_id = :ladder_id AND {_claimable(connection)}{only} "
            f"ORDER BY id LIMIT :limit{dialect.skip_locked(connection)}"),
            {"ladder_id": ladder_id, "session_id": session_id, "limit": limit})]
        if not ids:
            return []
        connection.execute(text(
            f"UPDATE ladder_matches SET status = 'playing', worker = :worker, attempts = attempts + 1, "
            f"lease_until = {dialect.clock(connection)} + :lease, claimed_at = :claimed_at WHERE id IN :ids"
        ).bindparams(_IDS), {"worker": worker, "lease": lease, "claimed_at": now(), "ids": ids})
        return [_match(row) for row in connection.execute(
            text(f"{_MATCH} WHERE id IN :ids ORDER BY id").bindparams(_IDS), {"ids": ids})]


def renew(ledger: Ledger, worker: str, ids: Sequence[int], lease: float) -> set[int]:
    """Extend ``worker``'s lease on the matches ``ids`` by ``lease`` seconds from now; the ids it still holds."""
    if not ids:
        return set()
    with ledger.write(serial=False) as connection:
        return {row[0] for row in connection.execute(text(
            f"UPDATE ladder_matches SET lease_until = {dialect.clock(connection)} + :lease WHERE worker = :worker "
            "AND status = 'playing' AND id IN :ids RETURNING id").bindparams(_IDS),
            {"lease": lease, "worker": worker, "ids": list(ids)})}


def finish(connection: Connection, match_id: int, worker: str) -> None:
    """Mark the match stored, inside the transaction that stores its games; Lost (roll it all back) if
    ``worker`` no longer holds it."""
    if connection.execute(text(
            "UPDATE ladder_matches SET status = 'stored', stored_at = :stored_at, lease_until = NULL WHERE id = :id "
            "AND worker = :worker AND status = 'playing'"),
            {"stored_at": now(), "id": match_id, "worker": worker}).rowcount != 1:
        raise Lost(f"match {match_id} is no longer this worker's: its lease ran out and another worker claimed it")


def release(ledger: Ledger, worker: str, ids: Sequence[int]) -> int:
    """Give matches back to the queue unplayed (a worker told to stop), for any worker to claim at once."""
    return _give_up(ledger, worker, ids, QUEUED)


def cancel(ledger: Ledger, worker: str, ids: Sequence[int]) -> int:
    """Cancel matches ``worker`` holds and will not play (a seat's bot retired since they were queued)."""
    return _give_up(ledger, worker, ids, CANCELLED)


def _give_up(ledger: Ledger, worker: str, ids: Sequence[int], status: str) -> int:
    if not ids:
        return 0
    with ledger.write(serial=False) as connection:
        return connection.execute(text(
            "UPDATE ladder_matches SET status = :status, worker = NULL, lease_until = NULL WHERE worker = :worker "
            "AND status = 'playing' AND id IN :ids").bindparams(_IDS),
            {"status": status, "worker": worker, "ids": list(ids)}).rowcount


def stop_queueing(ledger: Ledger, session_id: int) -> None:
    """Plan no more of the session: its waiting matches are cancelled and it queues no new deal (the
    matches being played are stored as they end)."""
    with ledger.write() as connection:
        connection.execute(text("UPDATE ladder_matches SET status = 'cancelled' WHERE session_id = :session_id AND "
                                "status = 'queued'"), {"session_id": session_id})
        connection.execute(text(
            "UPDATE ladder_sessions SET planned = deals * (SELECT players FROM ladders l WHERE l.id = "
            "ladder_sessions.ladder_id) WHERE id = :id AND planned IS NOT NULL"), {"id": session_id})


def done(connection: Connection, session_id: int) -> bool:
    """Whether every deal of the open session is queued and none is waiting or being played."""
    session = _open_session(connection, session_id)
    if session is None or session.deals < session.deals_planned:
        return False
    return not connection.execute(text(
        "SELECT COUNT(*) FROM ladder_matches WHERE session_id = :session_id AND status IN ('queued', 'playing')"),
        {"session_id": session_id}).scalar()


def open_sessions(ledger: Ledger, ladder_id: int, with_work: bool = False) -> list[int]:
    """The ladder's open sessions that play from the queue, oldest first; ``with_work``: only those with a
    match to claim now or a deal left to queue."""
    with ledger.read() as connection:
        work = ("" if not with_work else
                " AND (s.deals < (s.planned + l.players - 1) / l.players OR EXISTS (SELECT 1 FROM ladder_matches m "
                f"WHERE m.session_id = s.id AND {_claimable(connection, 'm.')}))")
        return [row[0] for row in connection.execute(text(
            "SELECT s.id FROM ladder_sessions s JOIN ladders l ON l.id = s.ladder_id WHERE s.ladder_id = :ladder_id "
            f"AND s.ended_at IS NULL AND s.planned IS NOT NULL{work} ORDER BY s.id"), {"ladder_id": ladder_id})]


def matches(ledger: Ledger, ladder_id: int) -> list[dict]:
    """Every match of the ladder with its state, oldest first (what `ladder queue` shows)."""
    keys = ("id", "session", "deal", "entries", "status", "worker", "attempts", "claimed_at", "stored_at")
    with ledger.read() as connection:
        rows = connection.execute(text(
            "SELECT id, session_id, deal, entries, status, worker, attempts, claimed_at, stored_at FROM "
            "ladder_matches WHERE ladder_id = :ladder_id ORDER BY id"), {"ladder_id": ladder_id}).all()
    return [dict(zip(keys, (*row[:3], orjson.loads(row[3]), *row[4:]), strict=True)) for row in rows]


def _match(row) -> Match:
    return Match(row[0], row[1], row[2], row[3], tuple(orjson.loads(row[4])), row[5])
