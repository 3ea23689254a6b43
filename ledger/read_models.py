"""Read models: what pages and commands read, kept as games land, never refolded per view.

Counted per finished game, in the transaction that stores it (``Ledger.store_games`` calls
``count``), from the game's rows and the seat that forfeited (which its caller read from the
game's events: the ledger never parses an event):

* ``game_results`` and ``seat_results``: each game's number (``store_seq``), where it was
  played (its tournament; its ladder and its number there) and who forfeited; each seat's
  bot, rank, result and forfeit: the lists page and filter these in the database, newest
  (highest ``store_seq``) first;
* ``tournament_standings`` and ``tournament_pairs``: a tournament's sums per bot and its
  wins-draws-losses per ordered pair of bots (per pair of seats), which are all that its Elo
  fit, the fit's interval, the likelihood of superiority and the head-to-head read;
* ``bot_seats``, ``bot_opponents`` and ``bot_results``: a bot's record (by name, over every finished
  game it sat in) by seat, by opponent, and by result and forfeit (in every game, a tournament's, a
  ladder's: a list of its games counts its total from these few rows, ``read_pages.game_page``);
* ``place_games``: the games in each place (every game, a tournament's, a ladder's), with a forfeit or
  without: the other lists' totals, the list of tournaments and a kept fit's stamp read these rows.

Counted per rated ladder game, when ``ledger.rows.ladder_rows`` numbers it (``count_ladder``; a void
takes it out again, ``uncount_ladder``): ``ladder_records`` (per entry: wins, draws, losses,
forfeits, points, when it last played) and ``ladder_pairs`` (per ordered pair of entries); now and then
their sums as of a game (``ledger.ladder_snapshots``). The ratings themselves are the ladder's own
projection (``ladder_entries``, ``ladder_ratings``).

A game's **result** for a seat: ``win`` first alone, ``draw`` first and shared, ``loss`` any
other place. Between two seats the better place scores a win, the same place a draw; points
are counted in halves (``points2``: 2 a win, 1 a draw) so that every sum is an integer.

One position (``read_model_positions``, ``games``) says up to which ``store_seq`` every finished
game is counted. A game is counted only when every game before it is, so the read models are
always the fold of a prefix of the games: a ledger upgraded from a tourney before them holds
games never counted, which ``replays.projections.catch_up`` counts from the position, in store
order, reading their results from the hashed events (`tourney db upgrade` runs it, and so does
every command that writes). Until then readers are refused (``Behind``) rather than shown a
partial count.

This module counts and writes them, and reads a ladder's and a table's whole rows; by role the rest is
``ledger.read_pages`` (the readers and pagers the pages and lists use), ``ledger.read_audit`` (how the audit
names a row that differs) and ``ledger.read_fits`` (a tournament's kept Elo fit, made from these sums).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import ladder_snapshots, read_fits
from ledger.errors import LedgerError

POSITION = "games"
WIN, DRAW, LOSS = "win", "draw", "loss"
RESULTS = (WIN, DRAW, LOSS)

TABLES = ("game_results", "seat_results", "tournament_standings", "tournament_pairs", "bot_seats", "bot_opponents",
          "bot_results", "place_games", "ladder_records", "ladder_pairs")
KEYS = {
    "game_results": ("game_id",),
    "seat_results": ("game_id", "seat"),
    "tournament_standings": ("tournament_id", "bot"),
    "tournament_pairs": ("tournament_id", "bot", "opponent"),
    "bot_seats": ("bot", "seat"),
    "bot_opponents": ("bot", "opponent"),
    "bot_results": ("bot", "tournament_id", "ladder_id", "result", "forfeited"),
    "place_games": ("tournament_id", "ladder_id", "forfeited"),
    "ladder_records": ("entry_id",),
    "ladder_pairs": ("entry_id", "opponent_id"),
}
"""Each table's key columns (what a row is named by when the audit finds it differs)."""
COUNTS = {
    "game_results": ("store_seq", "tournament_id", "ladder_id", "ladder_number", "created_at", "forfeit_seat"),
    "seat_results": ("store_seq", "bot_id", "bot", "rank", "result", "forfeited"),
    "tournament_standings": ("games", "firsts", "places", "forfeits", "points2", "points2_sq"),
    "tournament_pairs": ("wins", "draws", "losses"),
    "bot_seats": ("games", "wins", "draws", "losses"),
    "bot_opponents": ("games", "wins", "draws", "losses", "points"),
    "bot_results": ("seats",),
    "place_games": ("games",),
    "ladder_records": ("ladder_id", "wins", "draws", "losses", "forfeits", "points2", "points2_sq", "last_played"),
    "ladder_pairs": ("ladder_id", "wins", "draws", "losses"),
}
"""Each table's other columns, in the order the rows below carry them."""
ADDED = {**{table: COUNTS[table] for table in ("tournament_standings", "tournament_pairs", "bot_seats", "bot_opponents",
                                               "bot_results", "place_games")},
         "ladder_records": ("wins", "draws", "losses", "forfeits", "points2", "points2_sq"),
         "ladder_pairs": COUNTS["ladder_pairs"][1:]}
"""The columns a game adds to (the others are set: a name, a ladder, the latest time)."""


class Behind(LedgerError):
    """The read models do not count every stored game yet (a ledger upgraded from before them)."""


@dataclass(frozen=True, slots=True)
class Seated:
    """One seat of a finished game as the read models count it."""

    seat: int
    bot_id: int
    bot: str
    rank: int


@dataclass(frozen=True, slots=True)
class Outcome:
    """A finished game as the read models count it: its number, where it was played, its seats, who forfeited."""

    game_id: str
    store_seq: int
    tournament_id: int | None
    created_at: str
    seats: tuple[Seated, ...]
    forfeit_seat: int | None


# -- what one game adds ------------------------------------------------------------------------------


def result(ranks: Sequence[int], rank: int) -> str:
    """win, draw or loss of a seat at ``rank`` among ``ranks``."""
    if rank != 1:
        return LOSS
    return WIN if sum(1 for other in ranks if other == 1) == 1 else DRAW


def halves(mine: int, theirs: int) -> int:
    """A pair of seats in half points for the first: 2 the better place, 1 the same, 0 the worse."""
    return 2 if mine < theirs else 1 if mine == theirs else 0


Rows = dict[str, dict[tuple, list]]
"""Table -> key -> the other columns (COUNTS' order): what a set of games adds up to."""


def empty() -> Rows:
    return {table: {} for table in TABLES}


def merge_row(rows: Rows, table: str, key: tuple, values: Sequence[Any]) -> None:
    """Add one row's ``values`` (COUNTS' order) to ``rows``: counts (ADDED's columns) add up, names are set, the
    latest time kept."""
    found = rows[table].get(key)
    columns = COUNTS[table]
    added = ADDED.get(table, ())
    if found is None:
        rows[table][key] = list(values)
        return
    for index, (column, value) in enumerate(zip(columns, values, strict=True)):
        if column in added:
            found[index] += value
        elif column == "last_played":
            found[index] = max(found[index], value)
        else:
            found[index] = value


def add_game(rows: Rows, outcome: Outcome) -> None:
    """What one finished game adds to every table but the ladder's."""
    ranks = [seat.rank for seat in outcome.seats]
    merge_row(rows, "game_results", (outcome.game_id,), (outcome.store_seq, outcome.tournament_id, None, None,
                                                         outcome.created_at, outcome.forfeit_seat))
    for seat in outcome.seats:
        placed = result(ranks, seat.rank)
        merge_row(rows, "seat_results", (outcome.game_id, seat.seat),
                  (outcome.store_seq, seat.bot_id, seat.bot, seat.rank, placed, int(seat.seat == outcome.forfeit_seat)))
        merge_row(rows, "bot_seats", (seat.bot, seat.seat), (1, *(int(placed == r) for r in RESULTS)))
    for tournament_id in {0, outcome.tournament_id or 0}:  # every game, and its tournament's
        add_results(rows, outcome, tournament_id, 0)
    add_tournament_game(rows, outcome)
    for bot in dict.fromkeys(seat.bot for seat in outcome.seats):
        # Against each opponent the game's score is the mean over the pairs of their seats (one each, unless a
        # bot sat twice): 1 a win, 0 a loss, anything between a draw.
        scores: dict[str, list[int]] = defaultdict(list)
        for mine in outcome.seats:
            if mine.bot == bot:
                for theirs in outcome.seats:
                    if theirs.bot != bot:
                        scores[theirs.bot].append(halves(mine.rank, theirs.rank))
        for opponent, each in scores.items():
            mean = sum(each) / (2 * len(each))
            merge_row(rows, "bot_opponents", (bot, opponent),
                      (1, int(mean == 1.0), int(0.0 < mean < 1.0), int(mean == 0.0), mean))


def add_results(rows: Rows, outcome: Outcome, tournament_id: int, ladder_id: int) -> None:
    """What a game adds to its seats' ``bot_results`` rows of one place (0 and 0: every game), and to the place's
    count of games (``place_games``)."""
    merge_row(rows, "place_games", (tournament_id, ladder_id, int(outcome.forfeit_seat is not None)), (1,))
    ranks = [seat.rank for seat in outcome.seats]
    for seat in outcome.seats:
        merge_row(rows, "bot_results", (seat.bot, tournament_id, ladder_id, result(ranks, seat.rank),
                                        int(seat.seat == outcome.forfeit_seat)), (1,))


def add_tournament_game(rows: Rows, outcome: Outcome) -> None:
    """What one game of a tournament adds to its standings and pairs (nothing, for a game of none): what
    `tourney run` also adds up in memory for its running reports."""
    if outcome.tournament_id is None:
        return
    for seat in outcome.seats:
        others = [other for other in outcome.seats if other.seat != seat.seat]
        points2 = sum(halves(seat.rank, other.rank) for other in others)
        merge_row(rows, "tournament_standings", (outcome.tournament_id, seat.bot), (
            1, int(seat.rank == 1), seat.rank, int(seat.seat == outcome.forfeit_seat), points2, points2 * points2))
        for other in others:
            if other.bot != seat.bot:
                merge_row(rows, "tournament_pairs", (outcome.tournament_id, seat.bot, other.bot),
                          _wdl(halves(seat.rank, other.rank)))


def tournament_of(rows: Rows, tournament_id: int) -> tuple[dict[str, dict[str, int]],
                                                          dict[tuple[str, str], tuple[int, int, int]]]:
    """A tournament's sums per bot and pairs, as ``tournament`` reads them, from rows added up in memory."""
    bots = {bot: dict(zip(COUNTS["tournament_standings"], values, strict=True))
            for (tournament, bot), values in rows["tournament_standings"].items() if tournament == tournament_id}
    pairs = {(bot, opponent): tuple(values) for (tournament, bot, opponent), values
             in rows["tournament_pairs"].items() if tournament == tournament_id}
    return bots, pairs


def add_ladder_game(rows: Rows, ladder_id: int, number: int, outcome: Outcome, entries: Mapping[int, int],
                    rated: bool = True) -> None:
    """What one ladder game adds: its number on the ladder, and, rated (not void), what it adds to the ladder's
    tables; ``entries``: bot version id -> its entry."""
    rows["game_results"][(outcome.game_id,)] = [outcome.store_seq, outcome.tournament_id, ladder_id, number,
                                                outcome.created_at, outcome.forfeit_seat]
    add_results(rows, outcome, 0, ladder_id)  # a voided game stays in the ladder's lists
    if not rated:
        return
    ranks = [seat.rank for seat in outcome.seats]
    for seat in outcome.seats:
        entry = entries[seat.bot_id]
        placed = result(ranks, seat.rank)
        others = [other for other in outcome.seats if other.seat != seat.seat]
        points2 = sum(halves(seat.rank, other.rank) for other in others)
        merge_row(rows, "ladder_records", (entry,),
                  (ladder_id, *(int(placed == r) for r in RESULTS), int(seat.seat == outcome.forfeit_seat), points2,
                   points2 * points2, outcome.created_at))
        for other in others:
            merge_row(rows, "ladder_pairs", (entry, entries[other.bot_id]),
                      (ladder_id, *_wdl(halves(seat.rank, other.rank))))


def _wdl(points2: int) -> tuple[int, int, int]:
    return (int(points2 == 2), int(points2 == 1), int(points2 == 0))


# -- writing ------------------------------------------------------------------------------------------


def position(connection: Connection) -> int:
    """The store_seq up to which every finished game is counted."""
    return connection.execute(text("SELECT position FROM read_model_positions WHERE name = :name"),
                              {"name": POSITION}).scalar() or 0


def newest(connection: Connection) -> int:
    """The store_seq of the newest finished game (0: none)."""
    return connection.execute(text("SELECT COALESCE(MAX(store_seq), 0) FROM games")).scalar()


def require_current(connection: Connection) -> None:
    """Behind, in one line saying what to do, unless every stored game is counted."""
    counted, stored = position(connection), newest(connection)
    if counted < stored:
        raise Behind(f"the read models count {counted:,} of the {stored:,} stored games (a ledger an older tourney "
                     "wrote, or a `db audit --rebuild` stopped before its end): run `tourney db upgrade` to count the "
                     "rest")


def outcomes(connection: Connection, forfeits: Mapping[str, int | None]) -> list[Outcome]:
    """The stored games of ``forfeits`` (game id -> the seat that forfeited, or None) as the read models count
    them, in store order."""
    return _outcomes(connection, (
        "SELECT g.id, g.store_seq, g.tournament_id, g.created_at, s.seat, s.bot_id, b.name, s.rank, 0 FROM games g "
        "JOIN seats s ON s.game_id = g.id JOIN bots b ON b.id = s.bot_id "
        "WHERE g.id IN :ids AND g.store_seq IS NOT NULL AND s.rank IS NOT NULL ORDER BY g.id, s.seat"),
        list(forfeits), forfeits)


def _outcomes(connection: Connection, statement: str, game_ids: Sequence[str],
              forfeits: Mapping[str, int | None] | None) -> list[Outcome]:
    """The games ``statement`` reads (a row a seat), in store order; who forfeited from ``forfeits`` by game id, or
    (None) from each seat's counted flag."""
    found: dict[str, Outcome] = {}
    for start in range(0, len(game_ids), 500):  # bound the parameters of one statement
        for game_id, store_seq, tournament_id, created_at, seat, bot_id, bot, rank, forfeited in connection.execute(
                text(statement).bindparams(bindparam("ids", expanding=True)),
                {"ids": list(game_ids[start:start + 500])}).fetchall():
            before = found.get(game_id)
            seated = Seated(seat, bot_id, bot, rank)
            forfeit = (forfeits[game_id] if forfeits is not None
                       else seat if forfeited else before.forfeit_seat if before else None)
            found[game_id] = Outcome(game_id, store_seq, tournament_id, created_at,
                                     (*before.seats, seated) if before else (seated,), forfeit)
    return sorted(found.values(), key=lambda outcome: outcome.store_seq)


COUNTED = "tourney.read_models.counted"
"""The key, in a connection's ``info``, of the games ``count`` counted last (their Outcome, by game id)."""
DEFERRED = "tourney.read_models.deferred"
"""The key, in a connection's ``info``, of the games stored in a ``deferred`` block and not counted yet."""


@contextmanager
def deferred(connection: Connection) -> Iterator[None]:
    """Within the block, ``count`` only notes the games stored; they are counted together when it ends (on
    PostgreSQL each statement is a round trip: a ladder match's games, stored one by one, cost the read models
    one set of statements instead of one a game). Nothing is counted if the block fails: its transaction rolls
    back."""
    connection.info[DEFERRED] = {}
    try:
        yield
        pending = connection.info[DEFERRED]
    finally:
        connection.info.pop(DEFERRED, None)
    count(connection, pending)


def count(connection: Connection, forfeits: Mapping[str, int | None]) -> bool:
    """Count games just stored in this transaction (game id -> the seat that forfeited, or None), if every game
    stored before them is counted; False (nothing written) if the read models are behind. In a ``deferred``
    block, only note them."""
    pending = connection.info.get(DEFERRED)
    if pending is not None:
        pending.update(forfeits)
        return True
    connection.info.pop(COUNTED, None)
    found = outcomes(connection, forfeits)
    if not found or position(connection) != found[0].store_seq - 1:
        return False
    rows = empty()
    for outcome in found:
        add_game(rows, outcome)
    write(connection, rows)
    advance(connection, found[-1].store_seq)
    # A ladder numbers these games next, in this transaction: what they are need not be read back.
    connection.info[COUNTED] = {outcome.game_id: outcome for outcome in found}
    return True


def advance(connection: Connection, store_seq: int) -> None:
    connection.execute(text("UPDATE read_model_positions SET position = :position WHERE name = :name"),
                       {"position": store_seq, "name": POSITION})


def count_ladder(connection: Connection, ladder_id: int, game_ids: Sequence[str],
                 void: frozenset[str] = frozenset()) -> None:
    """Count ladder games just numbered in this transaction (``ladder_games``, one after the other, in their
    order): their number on the ladder, and what those not ``void`` add to its tables. Games the read models
    do not count yet are left to the catch-up, which counts their ladder part too."""
    counted = connection.info.pop(COUNTED, {})
    found = ([counted[game_id] for game_id in game_ids] if all(game_id in counted for game_id in game_ids)
             else stored_outcomes(connection, game_ids))
    if not found:
        return
    entries = ladder_entries(connection, ladder_id)
    rows = empty()
    # Games numbered in this transaction follow each other on the ladder: the first's number, then one more each.
    # A writer counts its games only when every game stored before them is counted (else the catch-up counts and
    # numbers them), so the first is one after the latest counted: an index step, not a count.
    first = ladder_snapshots.latest_counted(connection, ladder_id) + 1
    for number, outcome in enumerate(found, start=first):
        add_ladder_game(rows, ladder_id, number, outcome, entries, outcome.game_id not in void)
    write(connection, rows)
    ladder_snapshots.keep(connection, ladder_id)  # the ladder's sums as of a game, when one is due


def uncount_ladder(connection: Connection, ladder_id: int, game_id: str) -> None:
    """Take a voided game out of the ladder's tables (it keeps its number: it is still the ladder's game)."""
    rows = empty()
    found = stored_outcomes(connection, [game_id])
    if not found:
        return  # not counted yet: the catch-up will see the void
    entries, number = ladder_entries(connection, ladder_id), ladder_number(connection, ladder_id, game_id)
    ladder_snapshots.drop(connection, ladder_id, number)  # they count it: taken again without it
    add_ladder_game(rows, ladder_id, number, found[0], entries)
    rated = ("ladder_records", "ladder_pairs")  # its number and its seats' results stay: it is still listed
    for table in rated:
        for values in rows[table].values():
            for index, column in enumerate(COUNTS[table]):
                if column in ADDED[table]:
                    values[index] = -values[index]
    write(connection, {table: rows[table] if table in rated else {} for table in TABLES})
    # When an entry last played counts its rated games only: the voided game may have been its latest.
    for (entry,) in rows["ladder_records"]:
        connection.execute(text(
            "UPDATE ladder_records SET last_played = (SELECT MAX(g.created_at) FROM game_results g "
            "JOIN seat_results s ON s.game_id = g.game_id JOIN ladder_entries e ON e.bot_id = s.bot_id "
            "AND e.ladder_id = g.ladder_id WHERE g.ladder_id = :ladder AND e.id = :entry AND g.game_id NOT IN "
            "(SELECT game_id FROM ladder_events WHERE ladder_id = :ladder AND kind = 'void')) WHERE entry_id = :entry"),
            {"ladder": ladder_id, "entry": entry})


def ladder_entries(connection: Connection, ladder_id: int) -> dict[int, int]:
    """Bot version id -> its entry on the ladder."""
    return dict(connection.execute(text("SELECT bot_id, id FROM ladder_entries WHERE ladder_id = :ladder"),
                                   {"ladder": ladder_id}).fetchall())


def ladder_number(connection: Connection, ladder_id: int, game_id: str) -> int:
    """A ladder game's number on its ladder: 1 for its first game (``ladder_games.seq`` counts every ladder's)."""
    return connection.execute(text(
        "SELECT COUNT(*) FROM ladder_games WHERE ladder_id = :ladder AND seq <= (SELECT seq FROM ladder_games "
        "WHERE game_id = :game)"), {"ladder": ladder_id, "game": game_id}).scalar()


def stored_outcomes(connection: Connection, game_ids: Sequence[str]) -> list[Outcome]:
    """Counted games as ``seat_results`` holds them, in store order."""
    return _outcomes(connection, (
        "SELECT r.game_id, r.store_seq, g.tournament_id, g.created_at, r.seat, r.bot_id, r.bot, r.rank, r.forfeited "
        "FROM seat_results r JOIN games g ON g.id = r.game_id WHERE r.game_id IN :ids ORDER BY r.game_id, r.seat"),
        game_ids, None)


def write(connection: Connection, rows: Rows) -> None:
    """Add ``rows`` to the tables (one executemany per table): counts add up, names and times are set."""
    for table in TABLES:
        found = rows[table]
        if not found:
            continue
        keys, columns = KEYS[table], COUNTS[table]
        added = ADDED.get(table)
        names = (*keys, *columns)
        if added is None:  # one row per game or seat: set (a ladder numbers its games after they are counted)
            updates = ", ".join(f"{c} = excluded.{c}" for c in columns)
        else:
            updates = ", ".join(f"{c} = {table}.{c} + excluded.{c}" if c in added
                                else f"{c} = {_latest(table, c)}" for c in columns)
        statement = (f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join(':' + n for n in names)}) "
                     f"ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {updates}")
        connection.execute(text(statement), [dict(zip(names, (*key, *values), strict=True))
                                             for key, values in found.items()])


def _latest(table: str, column: str) -> str:
    if column == "last_played":
        return f"CASE WHEN excluded.{column} > {table}.{column} THEN excluded.{column} ELSE {table}.{column} END"
    return f"excluded.{column}"


def clear(connection: Connection) -> None:
    """Empty every read model and set the position back to 0 (a rebuild counts everything again), and forget every
    kept fit (made from the sums emptied: each is refitted by its next reader)."""
    for table in TABLES:
        connection.execute(text(f"DELETE FROM {table}"))
    read_fits.clear(connection)
    ladder_snapshots.clear(connection)
    advance(connection, 0)


# -- reading ------------------------------------------------------------------------------------------


def table_rows(connection: Connection, table: str, where: str = "", params: Mapping[str, Any] | None = None
               ) -> dict[tuple, tuple]:
    """A table as key -> the other columns (COUNTS' order), the rows ``where`` keeps (named binds from ``params``;
    a list or tuple value is expanded for ``IN :name``)."""
    keys, columns = KEYS[table], COUNTS[table]
    width = len(keys)
    params = dict(params or {})
    statement = text(f"SELECT {', '.join((*keys, *columns))} FROM {table} {where}").bindparams(
        *(bindparam(name, expanding=True) for name, value in params.items() if isinstance(value, list | tuple)))
    rows = connection.execute(statement, params).fetchall()  # at once: SQLAlchemy's row-by-row fetch costs more
    return {tuple(row[:width]): tuple(row[width:]) for row in map(tuple, rows)}


def ladder(connection: Connection, ladder_id: int) -> tuple[dict[int, dict[str, Any]],
                                                             dict[tuple[int, int], tuple[int, int, int]]]:
    """A ladder's records per entry and its wins-draws-losses per ordered pair of entries (rated games only)."""
    require_current(connection)
    records = {entry: dict(zip(COUNTS["ladder_records"], values, strict=True)) for (entry,), values in table_rows(
        connection, "ladder_records", "WHERE ladder_id = :ladder", {"ladder": ladder_id}).items()}
    pairs = {(entry, opponent): tuple(values[1:]) for (entry, opponent), values in table_rows(
        connection, "ladder_pairs", "WHERE ladder_id = :ladder", {"ladder": ladder_id}).items()}
    return records, pairs

