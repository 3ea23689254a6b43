"""The ledger: one database, opened, appended to and read back (``Ledger``).

``Ledger`` is one class made of its roles, each in its own module: opening the database, checking
and upgrading it, its connections (ledger.opening); appending bots, games and events, and storing
whole finished games (ledger.appending); the ledger key and the heads it signs (ledger.heads);
reading games back (ledger.reading). The names callers import from here are those modules'.
"""

from __future__ import annotations

from ledger.appending import Appending, FinishedGame, GameExists, SeatRow, StaleAppend
from ledger.errors import LedgerError
from ledger.opening import (
    DEFAULT_URL,
    ENV_VAR,
    NoDatabase,
    NotALedger,
    SchemaMismatch,
    default_path,
    now,
    resolve_url,
)
from ledger.reading import DamagedGame, Reading

__all__ = [
    "DEFAULT_URL", "ENV_VAR", "DamagedGame", "FinishedGame", "GameExists", "Ledger", "LedgerError", "NoDatabase",
    "NotALedger", "SchemaMismatch", "SeatRow", "StaleAppend", "default_path", "now", "resolve_url",
]


class Ledger(Appending, Reading):
    """One database: opened (and upgraded to the newest schema) on construction.

    ``read_only=True`` opens an existing database for reading only: no file is created,
    nothing is upgraded, and on SQLite every connection opens the file read-only. Either
    way, what the file holds is checked before anything could write to it: a file that is
    not SQLite, another application's database, or a ledger of a newer tourney is refused
    with one line and left as it was.
    """
