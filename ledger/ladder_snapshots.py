"""A ladder's sums kept as of some of its games (revision 0019), so that the ladder as of any game is read in time
bounded by its bots and pairs, never by its games (`/ladders/NAME?at=N`, the API's `?at=`, stable paging).

A snapshot at the ladder's game ``number`` holds what its rated games numbered up to ``number`` add up to: each
entry's wins, draws, losses, forfeits and last game (its record row: ``opponent_id`` 0) and each ordered pair's
wins, draws and losses (``ladder_snapshot_rows``), with a mark saying the snapshot is whole and how many rows it
has (``ladder_snapshots``). The ladder as of game N (``at``) is the latest snapshot at or before N plus the sums
over the games numbered after it, up to N (``sums``: the SQL that summed every game before snapshots). A reader
that needs only a sum per entry over the pairs (a page's points and Elo information as of N:
``ledger.read_pages.ladder_pair_sums_at``) adds them up in the database over the same rows (``AS_OF``), and reads
a row an entry: the information is taken at the ratings as of N, which every later game moves, so it is each
pair's count that a snapshot keeps, never a sum taken at some ratings.

Taken where games are counted (``keep``: ``ledger.read_models.count_ladder`` as each match is stored, and
``replays.projections.catch_up``), each from the previous snapshot and the sums over the games since, for
numbers already counted only. The spacing adapts so that storage stays about a row a game or less: the next
snapshot comes ``max(SPACING, rows of the last)`` games after the last. A void changes the sums from the voided
game on: ``drop`` deletes the snapshots at or after its number in the void's transaction, and the next ``keep``
takes them again (a missing snapshot costs a reader time, never a wrong sum). The read models' rebuild clears them
(``clear``), and `tourney db audit` holds every stored snapshot against the sums of the games' counted rows
(``rebuilt``; ledger.read_audit names the first row that differs).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

SPACING = 1000
"""The fewest games between two snapshots of a ladder (more when the last had more rows: ``keep``)."""

KEYS = {"ladder_snapshots": ("ladder_id", "number"),
        "ladder_snapshot_rows": ("ladder_id", "number", "entry_id", "opponent_id")}
COUNTS = {"ladder_snapshots": ("row_count",),
          "ladder_snapshot_rows": ("wins", "draws", "losses", "forfeits", "last_played")}
"""Each table's key and other columns (what the audit names a differing row by, and shows of it)."""
RECORD = 0
"""The ``opponent_id`` of an entry's record row (entries are numbered from 1)."""

Records = dict[int, dict[str, Any]]
"""Entry -> wins, draws, losses, forfeits, points2, last_played (what ``read_pages.ladder_at`` gives)."""
Pairs = dict[tuple[int, int], tuple[int, int, int]]
"""(entry, opponent) -> wins, draws, losses."""

RATED = ("g.ladder_id = :ladder AND g.ladder_number > :after AND g.ladder_number <= :number AND g.game_id NOT IN "
         "(SELECT game_id FROM ladder_events WHERE ladder_id = :ladder AND kind = 'void')")
PAIRS = ("SELECT e.id AS entry, f.id AS opponent, SUM(CASE WHEN s.rank < o.rank THEN 1 ELSE 0 END) AS wins, "
         "SUM(CASE WHEN s.rank = o.rank THEN 1 ELSE 0 END) AS draws, SUM(CASE WHEN s.rank > o.rank THEN 1 ELSE 0 END) "
         "AS losses FROM game_results g JOIN seat_results s ON s.game_id = g.game_id "
         "JOIN seat_results o ON o.game_id = g.game_id AND o.seat <> s.seat "
         "JOIN ladder_entries e ON e.bot_id = s.bot_id AND e.ladder_id = g.ladder_id JOIN ladder_entries f "
         f"ON f.bot_id = o.bot_id AND f.ladder_id = g.ladder_id WHERE {RATED} GROUP BY e.id, f.id")
"""Each ordered pair's wins, draws and losses over the ladder's rated games numbered in (``:after``, ``:number``]."""
AS_OF = ("SELECT entry_id AS entry, opponent_id AS opponent, wins, draws, losses FROM ladder_snapshot_rows WHERE "
         f"ladder_id = :ladder AND number = :after AND opponent_id <> {RECORD} UNION ALL {PAIRS}")
"""The same as of the ladder's game ``:number``: the pairs of its snapshot at ``:after`` (none: 0, or past the latest
snapshot at or before ``:number``) and the sums over the games since (what a reader adds up in the database, so
that it reads a row an entry rather than a row a pair)."""


def sums(connection: Connection, ladder_id: int, after: int, number: int, pairs: bool = True
         ) -> tuple[Records, Pairs]:
    """What the ladder's rated games numbered in (``after``, ``number``] add up to, in SQL from game_results and
    seat_results (a range of the index on ladder and number; no event read): records (points2 left 0) and, with
    ``pairs``, pairs."""
    params = {"ladder": ladder_id, "after": after, "number": number}
    found: Pairs = {(entry, opponent): (won, drawn, lost) for entry, opponent, won, drawn, lost
                    in connection.execute(text(PAIRS), params).fetchall()} if pairs else {}
    records: Records = {}
    for entry, wins, draws, losses, forfeits, last in connection.execute(text(
            "SELECT e.id, SUM(CASE WHEN s.result = 'win' THEN 1 ELSE 0 END), "
            "SUM(CASE WHEN s.result = 'draw' THEN 1 ELSE 0 END), SUM(CASE WHEN s.result = 'loss' THEN 1 ELSE 0 END), "
            "SUM(s.forfeited), MAX(g.created_at) FROM game_results g JOIN seat_results s ON s.game_id = g.game_id "
            f"JOIN ladder_entries e ON e.bot_id = s.bot_id AND e.ladder_id = g.ladder_id WHERE {RATED} GROUP BY e.id"),
            params).fetchall():
        records[entry] = {"wins": wins, "draws": draws, "losses": losses, "forfeits": forfeits, "points2": 0,
                          "last_played": last}
    return records, found


def at(connection: Connection, ladder_id: int, number: int) -> tuple[Records, Pairs]:
    """The ladder's records (with points2, from the pairs) and pairs as of its game ``number``: the latest snapshot
    at or before it plus the sums over the games since."""
    records, pairs = since(connection, ladder_id, latest(connection, ladder_id, number)[0], number)
    for (entry, _opponent), (won, drawn, _lost) in pairs.items():
        records[entry]["points2"] += 2 * won + drawn
    return records, pairs


def since(connection: Connection, ladder_id: int, base: int, number: int, pairs: bool = True
          ) -> tuple[Records, Pairs]:
    """The ladder as of its game ``number`` from its stored snapshot at ``base`` (0: none) and the sums over the
    games numbered after it (points2 left 0; without ``pairs``, the records only: a row an entry)."""
    records, found = stored(connection, ladder_id, base, pairs)
    if number > base:
        add(records, found, *sums(connection, ladder_id, base, number, pairs))
    return records, found


def add(records: Records, pairs: Pairs, more: Records, more_pairs: Pairs) -> None:
    """Add ``more`` and ``more_pairs`` (sums over later games) to ``records`` and ``pairs``."""
    for entry, record in more.items():
        found = records.get(entry)
        if found is None:
            records[entry] = dict(record)
            continue
        for column in ("wins", "draws", "losses", "forfeits", "points2"):
            found[column] += record[column]
        found["last_played"] = max(found["last_played"], record["last_played"])
    for pair, counts in more_pairs.items():
        before = pairs.get(pair, (0, 0, 0))
        pairs[pair] = tuple(a + b for a, b in zip(before, counts, strict=True))


def latest_counted(connection: Connection, ladder_id: int) -> int:
    """The number of the ladder's latest game the read models count (0: none): one step down the index on
    game_results' ladder and number, where a count of its games would read every one of them. Once the read
    models are current it is how many games the ladder has numbered (voided ones too: a void keeps its number)."""
    return connection.execute(text("SELECT COALESCE(MAX(ladder_number), 0) FROM game_results WHERE ladder_id = "
                                   ":ladder"), {"ladder": ladder_id}).scalar()


def latest(connection: Connection, ladder_id: int, number: int | None = None) -> tuple[int, int]:
    """(number, rows) of the ladder's latest snapshot at or before its game ``number`` (None: any); (0, 0) if
    none (one step down the snapshots' key)."""
    found = connection.execute(text(
        "SELECT number, row_count FROM ladder_snapshots WHERE ladder_id = :ladder"
        + ("" if number is None else " AND number <= :number") + " ORDER BY number DESC LIMIT 1"),
        {"ladder": ladder_id} if number is None else {"ladder": ladder_id, "number": number}).first()
    return (0, 0) if found is None else (found[0], found[1])


def stored(connection: Connection, ladder_id: int, number: int, pairs: bool = True) -> tuple[Records, Pairs]:
    """The ladder's snapshot at ``number`` as sums (points2 left 0; its record rows only, without ``pairs``); empty
    for 0."""
    records: Records = {}
    found: Pairs = {}
    if number <= 0:
        return records, found
    for entry, opponent, wins, draws, losses, forfeits, last in connection.execute(text(
            "SELECT entry_id, opponent_id, wins, draws, losses, forfeits, last_played FROM ladder_snapshot_rows "
            "WHERE ladder_id = :ladder AND number = :number" + ("" if pairs else f" AND opponent_id = {RECORD}")),
            {"ladder": ladder_id, "number": number}):
        if opponent == RECORD:
            records[entry] = {"wins": wins, "draws": draws, "losses": losses, "forfeits": forfeits, "points2": 0,
                              "last_played": last}
        else:
            found[(entry, opponent)] = (wins, draws, losses)
    return records, found


def rows_of(records: Records, pairs: Pairs) -> dict[tuple[int, int], tuple]:
    """Sums as a snapshot's rows: (entry, opponent, RECORD for its record) -> COUNTS' columns."""
    out: dict[tuple[int, int], tuple] = {
        (entry, RECORD): (r["wins"], r["draws"], r["losses"], r["forfeits"], r["last_played"])
        for entry, r in records.items()}
    out.update({pair: (*counts, 0, None) for pair, counts in pairs.items()})
    return out


# -- writing -------------------------------------------------------------------------------------------------


def keep(connection: Connection, ladder_id: int, most: int | None = 1) -> int:
    """Take the ladder's snapshots that are due (``most`` of them at most; None: all), each the previous one plus
    the sums over the games since, for games the read models count already; how many were taken. One is due
    ``max(SPACING, rows of the last)`` games after the last (the first SPACING games in)."""
    last, rows = latest(connection, ladder_id)
    counted = latest_counted(connection, ladder_id)
    taken = 0
    while most is None or taken < most:
        number = last + max(SPACING, rows)
        if number > counted or connection.execute(text(
                "SELECT COUNT(*) FROM game_results WHERE ladder_id = :ladder AND ladder_number > :after AND "
                "ladder_number <= :number"), {"ladder": ladder_id, "after": last, "number": number}
                ).scalar() != number - last:
            break  # a game numbered up to it is not counted yet: the catch-up takes it later
        found = rows_of(*since(connection, ladder_id, last, number))
        if found:
            connection.execute(text(
                "INSERT INTO ladder_snapshot_rows (ladder_id, number, entry_id, opponent_id, wins, draws, losses, "
                "forfeits, last_played) VALUES (:ladder, :number, :entry, :opponent, :wins, :draws, :losses, "
                ":forfeits, :last_played)"),
                [{"ladder": ladder_id, "number": number, "entry": entry, "opponent": opponent,
                  **dict(zip(COUNTS["ladder_snapshot_rows"], values, strict=True))}
                 for (entry, opponent), values in found.items()])
        connection.execute(text("INSERT INTO ladder_snapshots (ladder_id, number, row_count) VALUES (:ladder, "
                                ":number, :rows)"), {"ladder": ladder_id, "number": number, "rows": len(found)})
        last, rows, taken = number, len(found), taken + 1
    return taken


def keep_all(connection: Connection) -> int:
    """Every ladder's due snapshots (``keep``, all of them): what the catch-up takes once every game is counted (a
    ledger upgraded to revision 0019, a void's snapshots taken again, a rebuild)."""
    ladders = connection.execute(text("SELECT id FROM ladders ORDER BY id")).scalars().all()
    return sum(keep(connection, ladder_id, None) for ladder_id in ladders)


def drop(connection: Connection, ladder_id: int, number: int) -> None:
    """Delete the ladder's snapshots at or after its game ``number`` (a void there changes their sums)."""
    for table in ("ladder_snapshot_rows", "ladder_snapshots"):
        connection.execute(text(f"DELETE FROM {table} WHERE ladder_id = :ladder AND number >= :number"),
                           {"ladder": ladder_id, "number": number})


def clear(connection: Connection) -> None:
    """Delete every snapshot (the read models are counted again)."""
    for table in ("ladder_snapshot_rows", "ladder_snapshots"):
        connection.execute(text(f"DELETE FROM {table}"))


# -- the audit -----------------------------------------------------------------------------------------------


def rebuilt(connection: Connection) -> Iterator[tuple[str, dict[tuple, tuple], dict[tuple, tuple]]]:
    """Every stored snapshot, ladder by ladder and oldest first, beside what the counted games give there (summed
    from the previous stored snapshot's rebuild, never from a stored one): (table, stored rows, rebuilt rows), keyed
    by KEYS, the mark and then the rows of each snapshot."""
    marks = connection.execute(text("SELECT ladder_id, number, row_count FROM ladder_snapshots ORDER BY ladder_id, "
                                    "number")).fetchall()
    state: dict[int, tuple[int, Records, Pairs]] = {}
    for ladder_id, number, rows in marks:
        last, records, pairs = state.get(ladder_id, (0, {}, {}))
        add(records, pairs, *sums(connection, ladder_id, last, number))
        state[ladder_id] = (number, records, pairs)
        want = {(ladder_id, number, *key): values for key, values in rows_of(records, pairs).items()}
        have = {tuple(row[:4]): tuple(row[4:]) for row in connection.execute(text(
            "SELECT ladder_id, number, entry_id, opponent_id, wins, draws, losses, forfeits, last_played FROM "
            "ladder_snapshot_rows WHERE ladder_id = :ladder AND number = :number"),
            {"ladder": ladder_id, "number": number})}
        yield "ladder_snapshots", {(ladder_id, number): (rows,)}, {(ladder_id, number): (len(want),)}
        yield "ladder_snapshot_rows", have, want
    orphans = connection.execute(text(
        "SELECT r.ladder_id, r.number, r.entry_id, r.opponent_id, r.wins, r.draws, r.losses, r.forfeits, "
        "r.last_played FROM ladder_snapshot_rows r WHERE NOT EXISTS (SELECT 1 FROM ladder_snapshots m WHERE "
        "m.ladder_id = r.ladder_id AND m.number = r.number) ORDER BY r.ladder_id, r.number LIMIT 1")).fetchall()
    yield "ladder_snapshot_rows", {tuple(row[:4]): tuple(row[4:]) for row in orphans}, {}
