"""Ladder divisions in the ledger: the divisions a ladder has, its bosses and membership moves as ladder events.

The ledger stores and reads; the rules (who is promoted, who relegated) are tournaments.ladder.divisions',
handed in as a keeper: ``store_games`` calls its ``settle`` (``ledger.rows.ladder_rows.Keeper``) after each game
is rated, in the game's transaction, and a refold (rebuild, void: tournaments.ladder.rating_fold) folds membership
beside the ratings with its ``observer`` and makes the stored membership the fold's with ``written``
(``tournaments.ladder.rating_fold.Keeper``), in the refold's write transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger.rows import ladder_rows
from ledger.store import Ledger, LedgerError, now

BOSS = "boss"
MEMBERSHIP_KINDS = (BOSS, "promote", "relegate")
"""The ladder events that place an entry in a division (revision 0016)."""
_MEMBERSHIP = text(
    "SELECT seq, kind, entry_id, division, after_seq FROM ladder_events WHERE ladder_id = :ladder_id "
    "AND kind IN :kinds ORDER BY seq").bindparams(bindparam("kinds", expanding=True))


def membership_events(connection: Connection, ladder_id: int) -> list[tuple[int, str, int, str, int | None]]:
    """(seq, kind, entry, division, after_seq) of the ladder's boss, promote and relegate events, oldest first."""
    return [tuple(row) for row in connection.execute(_MEMBERSHIP, {"ladder_id": ladder_id, "kinds": MEMBERSHIP_KINDS})]


def append(connection: Connection, ladder_id: int, kind: str, entry_id: int, division: str, reason: str,
           game_id: str | None = None) -> None:
    """Append a membership event, with the ladder's last game seq (where the membership fold applies it)."""
    after = connection.execute(text("SELECT COALESCE(MAX(seq), 0) FROM ladder_games WHERE ladder_id = :ladder_id"),
                               {"ladder_id": ladder_id}).scalar()
    connection.execute(text(
        "INSERT INTO ladder_events (ladder_id, kind, game_id, entry_id, reason, created_at, division, after_seq) "
        "VALUES (:ladder_id, :kind, :game_id, :entry_id, :reason, :created_at, :division, :after_seq)"),
        {"ladder_id": ladder_id, "kind": kind, "game_id": game_id, "entry_id": entry_id, "reason": reason,
         "created_at": now(), "division": division, "after_seq": after})


def pair_counts(connection: Connection, entries: Sequence[int]) -> dict[int, dict[int, int]]:
    """Entry -> opponent -> rated games they met in (their rating history rows: voided games have none)."""
    out: dict[int, dict[int, int]] = {}
    for entry in dict.fromkeys(entries):
        out[entry] = {opponent: count for opponent, count in connection.execute(text(
            "SELECT b.entry_id, COUNT(*) FROM ladder_ratings a JOIN ladder_ratings b ON b.game_seq = a.game_seq "
            "AND b.entry_id != a.entry_id WHERE a.entry_id = :entry_id GROUP BY b.entry_id"), {"entry_id": entry})}
    return out


def set_boss(ledger: Ledger, ladder_id: int, name: str, division: str, divisions: Sequence[str], reason: str
             ) -> tuple[int, int]:
    """Append a boss event: the active version of ``name`` guards ``division`` (any division but the top) from
    now on. (entry, version); LedgerError if it cannot."""
    if division not in divisions:
        raise LedgerError(f"no division {division!r} on this ladder (its divisions: {', '.join(divisions)})")
    if division == divisions[-1]:
        raise LedgerError(f"{division!r} is the top division: it has no boss, nobody is promoted past it")
    with ledger.write() as connection:
        found = ladder_rows.active_version(connection, ladder_id, name)
        guarding: dict[str, int] = {}
        for _seq, kind, entry, guarded, _after in membership_events(connection, ladder_id):
            if kind == BOSS:
                guarding = {d: e for d, e in guarding.items() if e != entry} | {guarded: entry}
        held = next((d for d, e in guarding.items() if e == found[0]), None)
        if held is not None:
            raise LedgerError(f"{name} v{found[1]} is already the boss of {held!r}" + (
                "" if held == division else ": a bot guards one division at most"))
        append(connection, ladder_id, BOSS, found[0], division, reason)
        return found[0], found[1]
