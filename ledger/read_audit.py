"""What the audit says of a read model's row that differs from its rebuild (`tourney db audit`,
replays.projections): the first differing row named by its key, both sides' columns shown; and a ladder's kept
snapshots held against the sums of its counted games (``snapshot_differences``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from sqlalchemy.engine import Connection

from ledger import ladder_snapshots
from ledger.read_models import ADDED, COUNTS, KEYS

_COUNTS = {**COUNTS, **ladder_snapshots.COUNTS}
_KEYS = {**KEYS, **ladder_snapshots.KEYS}


def differences(stored: Mapping[tuple, Sequence[Any]], rebuilt: Mapping[tuple, Sequence[Any]],
                table: str) -> Iterable[str]:
    """Each row of ``table`` that differs between the stored read model and its rebuild, key order: a row absent
    on one side counts as all zeros (a void can leave a row of zeros behind)."""
    columns = _COUNTS[table]
    for key in sorted(set(stored) | set(rebuilt), key=repr):
        have, want = stored.get(key), rebuilt.get(key)
        if have is not None and want is not None and _same(have, want):
            continue
        if (have is None and _zero(table, want)) or (want is None and _zero(table, have)):
            continue
        named = ", ".join(f"{k}={v!r}" for k, v in zip(_KEYS[table], key, strict=True))
        yield (f"{table} ({named}): stored {_row(columns, have)}; the events give {_row(columns, want)}")


def snapshot_differences(connection: Connection) -> Iterable[str]:
    """Each stored ladder snapshot's row (its mark first, then its rows) that differs from what the ladder's counted
    games (game_results and seat_results, which the audit holds against the games' hashed events) add up to as of
    its game: ladder by ladder, oldest snapshot first."""
    for table, stored, rebuilt in ladder_snapshots.rebuilt(connection):
        yield from differences(stored, rebuilt, table)


def _row(columns: Sequence[str], values: Sequence[Any] | None) -> str:
    if values is None:
        return "absent"
    return ", ".join(f"{column}={_shown(value)}" for column, value in zip(columns, values, strict=True))


def _same(have: Sequence[Any], want: Sequence[Any]) -> bool:
    return all(abs(a - b) < 1e-9 if isinstance(a, float) or isinstance(b, float) else a == b
               for a, b in zip(have, want, strict=True))


def _zero(table: str, values: Sequence[Any]) -> bool:
    return table in ADDED and all(value == 0 for column, value in zip(COUNTS[table], values, strict=True)
                                  if column in ADDED[table])


def _shown(value: Any) -> str:
    return f"{value:.6g}" if isinstance(value, float) else repr(value)
