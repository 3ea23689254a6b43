"""Owners signed in in a browser (`tourney serve`): their sessions, by the hash of the cookie's secret.

The secret itself is never stored, only its SHA-256 (computed by the caller, as for API tokens).
A session holds until it expires, its owner signs out (of it, or everywhere), a new sign-in in
the same browser replaces it, or the owner's API token is replaced: it
keeps the hash of the token it was opened with, and a lookup finds it only while that is still
the owner's token. Times are stored as ``ledger.store.now()`` writes them, so they compare as text.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from ledger.store import Ledger, now


def start(ledger: Ledger, secret_hash: str, owner_id: int, token_hash: str, expires_at: datetime) -> None:
    """Store a new session (and forget every expired one)."""
    with ledger.write() as connection:
        connection.execute(text("DELETE FROM web_sessions WHERE expires_at <= :now"), {"now": now()})
        connection.execute(text(
            "INSERT INTO web_sessions (secret_hash, owner_id, token_hash, created_at, expires_at) "
            "VALUES (:secret_hash, :owner_id, :token_hash, :created_at, :expires_at)"),
            {"secret_hash": secret_hash, "owner_id": owner_id, "token_hash": token_hash, "created_at": now(),
             "expires_at": _stamp(expires_at)})


def owner(ledger: Ledger, secret_hash: str) -> dict[str, Any] | None:
    """The owner of an open session (id, name, created_at, and the session's expires_at), or None."""
    with ledger.read() as connection:
        row = connection.execute(text(
            "SELECT o.id, o.name, o.created_at, s.expires_at FROM web_sessions s JOIN owners o ON o.id = s.owner_id "
            "WHERE s.secret_hash = :secret_hash AND s.expires_at > :now AND o.token_hash = s.token_hash"),
            {"secret_hash": secret_hash, "now": now()}).first()
    return None if row is None else {"id": row[0], "name": row[1], "created_at": row[2], "expires_at": row[3]}


def end(ledger: Ledger, secret_hash: str) -> None:
    """Sign a session out (nothing happens for one already gone)."""
    with ledger.write() as connection:
        connection.execute(text("DELETE FROM web_sessions WHERE secret_hash = :secret_hash"),
                           {"secret_hash": secret_hash})


def end_all(ledger: Ledger, owner_id: int) -> int:
    """Sign out every session of an owner ("sign out everywhere"); how many there were."""
    with ledger.write() as connection:
        return connection.execute(text("DELETE FROM web_sessions WHERE owner_id = :owner_id"),
                                  {"owner_id": owner_id}).rowcount


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")
