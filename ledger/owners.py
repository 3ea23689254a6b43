"""Owners (who submits through the HTTP API) and the bot names they own.

A token is never stored: only its SHA-256 (``token_hash``), computed by the caller. A bot name
belongs to the owner who first submitted it through the API; a name the ledger already holds
without an owner (the operator's bots, tournament entrants) belongs to nobody who can claim it.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

from ledger.store import Ledger, LedgerError, now


class UnknownOwner(LedgerError):
    """No owner with that name."""


class NameTaken(LedgerError):
    """A bot name that belongs to someone else (another owner, or the operator)."""


def add(ledger: Ledger, name: str, token_hash: str) -> int:
    """Store a new owner; LedgerError if the name is taken."""
    with ledger.write() as connection:
        if connection.exec_driver_sql("SELECT 1 FROM owners WHERE name = ?", (name,)).first() is not None:
            raise LedgerError(f"an owner named {name!r} already exists (a new token: `tourney users token {name}`)")
        return connection.exec_driver_sql(
            "INSERT INTO owners (name, token_hash, created_at) VALUES (?, ?, ?) RETURNING id",
            (name, token_hash, now())).scalar_one()


def replace_token(ledger: Ledger, name: str, token_hash: str) -> None:
    """Give an owner a new token hash (the old token stops working at once)."""
    with ledger.write() as connection:
        if connection.exec_driver_sql(
                "UPDATE owners SET token_hash = ? WHERE name = ?", (token_hash, name)).rowcount == 0:
            raise UnknownOwner(f"no owner {name!r} (add one with `tourney users add {name}`)")


def by_token_hash(ledger: Ledger, token_hash: str) -> dict[str, Any] | None:
    with ledger.read() as connection:
        row = connection.exec_driver_sql(
            "SELECT id, name, created_at FROM owners WHERE token_hash = ?", (token_hash,)).first()
    return None if row is None else {"id": row[0], "name": row[1], "created_at": row[2]}


def all_owners(ledger: Ledger) -> list[dict[str, Any]]:
    """Every owner with the bot names they own, oldest first."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql("SELECT id, name, created_at FROM owners ORDER BY id").all()
        names = connection.exec_driver_sql("SELECT owner_id, name FROM bot_owners ORDER BY name").all()
    bots: dict[int, list[str]] = {}
    for owner_id, bot in names:
        bots.setdefault(owner_id, []).append(bot)
    return [{"id": id_, "name": name, "created_at": created, "bots": bots.get(id_, [])} for id_, name, created in rows]


def owners_of(ledger: Ledger, names: list[str] | None = None) -> dict[str, str]:
    """Bot name -> its owner's name (every owned name, or those of ``names``)."""
    with ledger.read() as connection:
        rows = connection.exec_driver_sql(
            "SELECT b.name, o.name FROM bot_owners b JOIN owners o ON o.id = b.owner_id").all()
    wanted = None if names is None else set(names)
    return {bot: owner for bot, owner in rows if wanted is None or bot in wanted}


def bots_of(ledger: Ledger, owner_id: int) -> list[str]:
    with ledger.read() as connection:
        return [row[0] for row in connection.exec_driver_sql(
            "SELECT name FROM bot_owners WHERE owner_id = ? ORDER BY name", (owner_id,))]


def claim(connection: Connection, name: str, owner_id: int) -> bool:
    """Make ``name`` the owner's (True if newly claimed, False if already theirs); NameTaken if it is
    another owner's, or a name the ledger holds from elsewhere (run by the operator, never claimable)."""
    found = connection.exec_driver_sql(
        "SELECT o.id, o.name FROM bot_owners b JOIN owners o ON o.id = b.owner_id WHERE b.name = ?", (name,)).first()
    if found is not None:
        if found[0] != owner_id:
            raise NameTaken(f"the bot name {name!r} belongs to another owner: submit under a name of your own")
        return False
    if connection.exec_driver_sql("SELECT 1 FROM bots WHERE name = ? LIMIT 1", (name,)).first() is not None:
        raise NameTaken(f"the bot name {name!r} is taken by a bot this league runs itself: pick another name")
    connection.exec_driver_sql(
        "INSERT INTO bot_owners (name, owner_id, claimed_at) VALUES (?, ?, ?)", (name, owner_id, now()))
    return True
