"""The read models (ledger/read_models.py) from the games' hashed events: the catch-up that counts games
stored before the read models existed, and the audit that rebuilds every read model and names the first
row that differs from the stored one.

Both read each finished game's result as ``replays.facts`` does (ranks, seats and forfeit from its
hashed ``game_ended``, ``seat_forfeited`` and ``game_started``, its rows checked against them:
facts.Tampered names a game whose rows lie) and hand it to the same counting the writers use
(``ledger.read_models.add_game``), so a rebuild equals what games stored one by one added up to.
Games are read in store order, ``CHUNK`` at a time: memory holds one chunk of games and the sums
(per bot and per pair of bots), never every game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import closing, ladder_snapshots, read_audit
from ledger import read_models as models
from ledger.rows import ladder_rows
from ledger.store import Ledger
from replays import facts

CHUNK = 500
"""Games read (and, catching up, counted in one write transaction) at a time."""


@dataclass(frozen=True, slots=True)
class Ladders:
    """What a ladder adds to the read models: each ladder game's ladder and seq, the voided games, the entries."""

    of_game: dict[str, tuple[int, int]]
    void: frozenset[str]
    entries: dict[int, dict[int, int]]
    """Ladder -> bot version id -> entry."""

    @classmethod
    def read(cls, connection: Connection, game_ids: Sequence[str]) -> Ladders:
        """What the ladders add to ``game_ids`` (a chunk's: never every ladder game, which a chunk at a time would
        read again and again)."""
        of_game = {game_id: (ladder_id, seq) for game_id, ladder_id, seq in connection.execute(text(
            "SELECT game_id, ladder_id, seq FROM ladder_games WHERE game_id IN :ids").bindparams(
            bindparam("ids", expanding=True)), {"ids": list(game_ids)})}
        void = frozenset(row[0] for row in connection.exec_driver_sql(
            "SELECT game_id FROM ladder_events WHERE kind = 'void'"))
        entries: dict[int, dict[int, int]] = {}
        for ladder_id, bot_id, entry in connection.exec_driver_sql("SELECT ladder_id, bot_id, id FROM ladder_entries"):
            entries.setdefault(ladder_id, {})[bot_id] = entry
        return cls(of_game, void, entries)


def outcome_of(fact: facts.Fact, tournament_id: int | None) -> models.Outcome:
    """A game's result, as its hashed events state it, as the read models count it."""
    return models.Outcome(fact.game_id, fact.store_seq, tournament_id, fact.created_at,
                          tuple(models.Seated(seat.seat, seat.bot_id, seat.bot, seat.rank) for seat in fact.seats),
                          None if fact.forfeit is None else fact.forfeit.seat)


def _finished(connection: Connection, after: int, limit: int) -> list[tuple[str, int]]:
    """(id, store_seq) of the next ``limit`` finished games after store_seq ``after``."""
    return [(game_id, store_seq) for game_id, store_seq in connection.execute(text(
        "SELECT id, store_seq FROM games WHERE store_seq > :after ORDER BY store_seq LIMIT :limit"),
        {"after": after, "limit": limit})]


def _checked(connection: Connection, game_ids: list[str]) -> list[tuple[facts.Fact, int | None]]:
    """The games' results from their hashed events, in store order (facts.Tampered naming a game whose rows lie)."""
    out = []
    for stored in closing.of_games(connection, game_ids):
        fact = facts.check(stored)
        if fact is not None:
            out.append((fact, stored.game["tournament_id"]))
    return sorted(out, key=lambda found: found[0].store_seq)


def catch_up(ledger: Ledger) -> int:
    """Count every stored game the read models do not count yet, from their position on, in store order,
    CHUNK games per write transaction; how many were counted. (A ledger written before the read models;
    after that, writers count each game as they store it, and this finds nothing.)"""
    counted = 0
    numbers = Numbers()
    while True:
        with ledger.write() as connection:
            numbered = _finished(connection, models.position(connection), CHUNK)
            if not numbered:
                ladder_snapshots.keep_all(connection)  # every ladder's sums as of its games, where one is due
                return counted
            ladders = Ladders.read(connection, [game_id for game_id, _ in numbered])
            found = _checked(connection, [game_id for game_id, _ in numbered])
            rows = models.empty()
            number = partial(numbers.of, connection, ladders)
            _add(rows, found, ladders, number)
            models.write(connection, rows)
            models.advance(connection, numbered[-1][1])
            counted += len(found)


class Numbers:
    """Ladder games numbered in store order (the catch-up's): a ladder's first by counting its games up to it, each
    next one by counting those since the last numbered (a range of the index on ladder and seq), not every game from
    the first again (which made a rebuild's time grow with the square of the games)."""

    def __init__(self) -> None:
        self.last: dict[int, tuple[int, int]] = {}
        """Ladder -> (seq, number) of its last game numbered."""

    def of(self, connection: Connection, ladders: Ladders, ladder_id: int, game_id: str) -> int:
        seq = ladders.of_game[game_id][1]
        if ladder_id in self.last:
            before, number = self.last[ladder_id]
            number += connection.execute(text(
                "SELECT COUNT(*) FROM ladder_games WHERE ladder_id = :ladder AND seq > :before AND seq <= :seq"),
                {"ladder": ladder_id, "before": before, "seq": seq}).scalar()
        else:
            number = models.ladder_number(connection, ladder_id, game_id)
        self.last[ladder_id] = (seq, number)
        return number


def rebuild(ledger: Ledger) -> int:
    """Empty every read model and count every stored game again, from its hashed events (``catch_up`` from 0):
    what mends read models the audit found wrong. Readers are refused (Behind) until it is done."""
    with ledger.write() as connection:
        models.clear(connection)
    return catch_up(ledger)


def behind(ledger: Ledger) -> bool:
    """Whether some stored game is not counted in the read models yet."""
    with ledger.read() as connection:
        return models.position(connection) < models.newest(connection)


@dataclass(slots=True)
class Audit:
    """What the audit found: every difference (the first first), and how many games it read."""

    games: int = 0
    differences: list[str] = field(default_factory=list)


def audit(ledger: Ledger, limit: int = 20) -> Audit:
    """Rebuild every read model from the games' hashed events and compare it with the stored rows: up to
    ``limit`` differences, in order (per-game rows in store order, then the sums table by table, by key).
    Behind (one line) if the read models do not count every game yet."""
    found = Audit()
    with ledger.read() as connection:
        models.require_current(connection)
        sums = models.empty()
        numbers: dict[int, int] = {}
        def number(ladder_id: int, _game_id: str) -> int:
            numbers[ladder_id] = numbers.get(ladder_id, 0) + 1  # games come in store order: the ladder's too
            return numbers[ladder_id]

        for chunk in _chunks(connection):
            rows = models.empty()
            ids = tuple(fact.game_id for fact, _ in chunk)
            _add(rows, chunk, Ladders.read(connection, ids), number)
            found.games += len(chunk)
            for table in ("game_results", "seat_results"):
                stored = models.table_rows(connection, table, "WHERE game_id IN :ids", {"ids": list(ids)})
                found.differences += read_audit.differences(stored, rows.pop(table), table)
                rows[table] = {}
            _merge(sums, rows)
            if len(found.differences) >= limit:
                return _cut(found, limit)
        for table in ("game_results", "seat_results"):
            extra = connection.exec_driver_sql(
                f"SELECT game_id FROM {table} WHERE game_id NOT IN (SELECT id FROM games WHERE store_seq IS NOT NULL) "
                "ORDER BY game_id LIMIT 1").scalar()
            if extra is not None:
                found.differences.append(f"{table} (game_id={extra!r}): stored, but no such game is finished")
        for table in models.TABLES[2:]:
            found.differences += read_audit.differences(models.table_rows(connection, table), sums[table], table)
        found.differences += read_audit.snapshot_differences(connection)
    return _cut(found, limit)


def check_tournament(connection: Connection, tournament_id: int, found: Iterable[facts.Fact]) -> None:
    """A tournament's read models must be what its games' results (``found``, read from their hashed events)
    add up to: facts.Tampered naming the first row that is not (what `tourney standings --check` adds).
    ``found`` is read once and kept nowhere (facts.pages' pages, one at a time): memory holds the sums."""
    rows = models.empty()
    for fact in found:
        models.add_tournament_game(rows, outcome_of(fact, tournament_id))
    _compare(connection, rows, ("tournament_standings", "tournament_pairs"), "WHERE tournament_id = :id",
             {"id": tournament_id})


def check_ladder(connection: Connection, ladder_id: int, found: Iterable[facts.Fact]) -> None:
    """A ladder's read models must be what its games (``found``, from their hashed events, in ladder order) add
    up to, voided ones left out: facts.Tampered naming the first row that is not (`ladder standings --check`).
    ``found`` is read once and kept nowhere (``LadderSums`` takes it in parts)."""
    sums = LadderSums(connection, ladder_id)
    sums.add(found)
    sums.check()


class LadderSums:
    """``check_ladder`` fed in parts (each page of facts.pages as it is read, beside the ratings' fold): the sums
    per entry and pair of entries, never a game."""

    def __init__(self, connection: Connection, ladder_id: int) -> None:
        self.connection, self.ladder_id = connection, ladder_id
        self.entries, self.void = ladder_rows.entry_of_bot(connection, ladder_id), ladder_rows.voided(connection,
                                                                                                     ladder_id)
        self.rows = models.empty()
        self.number = 0

    def add(self, found: Iterable[facts.Fact]) -> None:
        """The next games, in ladder order (each numbered on the ladder as it comes)."""
        for fact in found:
            self.number += 1
            models.add_ladder_game(self.rows, self.ladder_id, self.number, outcome_of(fact, None), self.entries,
                                   fact.game_id not in self.void)
            self.rows["game_results"].clear()  # a row per game, not compared here: not kept

    def check(self) -> None:
        """The stored rows must be the sums: facts.Tampered naming the first that is not."""
        _compare(self.connection, self.rows, ("ladder_records", "ladder_pairs"), "WHERE ladder_id = :id",
                 {"id": self.ladder_id})


def _compare(connection: Connection, rows: models.Rows, tables: tuple[str, ...], where: str, params: dict) -> None:
    for table in tables:
        for line in read_audit.differences(models.table_rows(connection, table, where, params), rows[table], table):
            raise facts.Tampered(None, f"a read model differs from the games' hashed results: {line} "
                                       "(`tourney db audit --rebuild` counts every game again)")


def _add(rows: models.Rows, found: list[tuple[facts.Fact, int | None]], ladders: Ladders,
         number: Callable[[int, str], int]) -> None:
    """What ``found`` games add to every read model, a ladder game numbered by ``number(ladder, game)``."""
    for fact, tournament_id in found:
        outcome = outcome_of(fact, tournament_id)
        models.add_game(rows, outcome)
        if fact.game_id in ladders.of_game:
            ladder_id, _seq = ladders.of_game[fact.game_id]
            models.add_ladder_game(rows, ladder_id, number(ladder_id, fact.game_id), outcome,
                                   ladders.entries.get(ladder_id, {}), fact.game_id not in ladders.void)


def _chunks(connection: Connection) -> Iterator[list[tuple[facts.Fact, int | None]]]:
    """Every finished game's result from its hashed events, in store order, CHUNK at a time."""
    after = 0
    while numbered := _finished(connection, after, CHUNK):
        after = numbered[-1][1]
        yield _checked(connection, [game_id for game_id, _ in numbered])


def _merge(into: models.Rows, rows: models.Rows) -> None:
    for table, found in rows.items():
        for key, values in found.items():
            models.merge_row(into, table, key, values)


def _cut(found: Audit, limit: int) -> Audit:
    found.differences = found.differences[:limit]
    return found
