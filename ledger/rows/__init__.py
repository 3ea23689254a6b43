"""The ledger's row modules, one per table (or family of tables): each reads and writes its rows and nothing else."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from sqlalchemy import text

from ledger import read_models

if TYPE_CHECKING:
    from ledger.store import Ledger


def named(keys: Sequence[str], rows: Iterable[Sequence[Any]]) -> list[dict[str, Any]]:
    """Each of ``rows`` as a dict of ``keys`` (as many as its columns): how the row modules hand rows to callers."""
    return [dict(zip(keys, row, strict=True)) for row in rows]


def listed(ledger: Ledger, query: str, keys: Sequence[str], params: dict[str, Any] | None = None,
           counted: bool = False) -> list[dict[str, Any]]:
    """Every row ``query`` selects (in one read), each as a dict of ``keys``. ``counted``: the rows hold the read
    models' counts, so refuse (``read_models.Behind``) unless those count every stored game (after a ``db audit
    --rebuild`` stopped half-way they would be a part's)."""
    with ledger.read() as connection:
        if counted:
            read_models.require_current(connection)
        return named(keys, connection.execute(text(query), params or {}))
