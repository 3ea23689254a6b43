"""The read models' readers and pagers (ledger/read_models.py keeps them; this reads them): a tournament's and a
bot's sums, one page of games as a list shows it (filtered and paged in the database, newest first), a page's
rating changes, a bot's battles, an owner's games, and a ladder as of one of its games. Every reader refuses
(``Behind``) read models that do not count every stored game yet."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, text
from sqlalchemy.engine import Connection

from ledger import ladder_snapshots, read_fits
from ledger.read_models import COUNTS, empty, require_current, table_rows, tournament_of


def tournament(connection: Connection, tournament_id: int) -> tuple[dict[str, dict[str, int]],
                                                                     dict[tuple[str, str], tuple[int, int, int]]]:
    """A tournament's sums per bot and its wins-draws-losses per ordered pair of bots."""
    require_current(connection)
    rows = empty()
    for table in ("tournament_standings", "tournament_pairs"):
        rows[table] = table_rows(connection, table, "WHERE tournament_id = :id", {"id": tournament_id})
    return tournament_of(rows, tournament_id)


def tournament_bots(connection: Connection, tournament_id: int) -> dict[str, dict[str, int]]:
    """A tournament's sums per bot only (none of its pairs)."""
    rows = connection.execute(text(
        f"SELECT bot, {', '.join(COUNTS['tournament_standings'])} FROM tournament_standings "
        "WHERE tournament_id = :id"), {"id": tournament_id}).fetchall()
    return {row[0]: dict(zip(COUNTS["tournament_standings"], row[1:], strict=True)) for row in rows}


def bot_record(connection: Connection, bot: str) -> tuple[dict[int, tuple[int, int, int, int]],
                                                          dict[str, tuple[int, int, int, int, float]]]:
    """A bot's record by seat (games, wins, draws, losses) and by opponent (the same and its points)."""
    require_current(connection)
    seats = {seat: values for (_, seat), values in table_rows(connection, "bot_seats", "WHERE bot = :bot",
                                                                {"bot": bot}).items()}
    opponents = {opponent: values for (_, opponent), values in table_rows(connection, "bot_opponents",
                                                                          "WHERE bot = :bot", {"bot": bot}).items()}
    return seats, opponents


@dataclass(frozen=True, slots=True)
class Where:
    """Which counted games a list shows: of a tournament or a ladder (or any), those ``bot`` sat in (by name),
    those where it had ``result`` (no bot: where some seat had it), with or without a forfeit (``forfeited``: by
    ``bot`` when one is named, by anyone otherwise). None is "any"."""

    tournament_id: int | None = None
    ladder_id: int | None = None
    bot: str | None = None
    result: str | None = None
    forfeited: bool | None = None


def game_page(connection: Connection, where: Where, offset: int, limit: int) -> tuple[list[str], int]:
    """One page of the counted games ``where`` keeps, newest (the last stored) first, and how many it keeps:
    paged in the database (an index on the bot, the tournament or the ladder, in store order); its total from the
    kept counts (``kept_total``) where there are some, not a count of its games."""
    require_current(connection)
    clauses: list[str] = []
    params: dict[str, Any] = {}

    def equal(column: str, value: Any) -> None:
        if value is not None:
            name = column.replace(".", "_")
            clauses.append(f"{column} = :{name}")
            params[name] = value

    equal("g.tournament_id", where.tournament_id)
    equal("g.ladder_id", where.ladder_id)
    if where.bot is not None:
        # Driven by the bot's seats (index on bot, store_seq): its games, newest first.
        source = "seat_results s JOIN game_results g ON g.game_id = s.game_id"
        order = "s.store_seq"
        equal("s.bot", where.bot)
        equal("s.result", where.result)
        if where.forfeited is not None:
            clauses.append(f"s.forfeited = {int(where.forfeited)}")
    else:
        source = "game_results g"
        order = "g.store_seq"
        if where.result is not None:
            clauses.append("EXISTS (SELECT 1 FROM seat_results s WHERE s.game_id = g.game_id AND s.result = :result)")
            params["result"] = where.result
        if where.forfeited is not None:
            clauses.append(f"g.forfeit_seat IS {'NOT ' if where.forfeited else ''}NULL")
    condition = f"WHERE {' AND '.join(clauses)}" if clauses else ""
    total = kept_total(connection, where)
    if total is None:
        total = connection.execute(text(f"SELECT COUNT(*) FROM {source} {condition}"), params).scalar()
    page = [row[0] for row in connection.execute(text(
        f"SELECT g.game_id FROM {source} {condition} ORDER BY {order} DESC LIMIT :limit OFFSET :offset"),
        {**params, "limit": limit, "offset": offset})]
    return page, total


def kept_total(connection: Connection, where: Where) -> int | None:
    """How many rows the list ``where`` keeps, from counts kept as games are stored: a bot's seats by place, result
    and forfeit (``bot_results``; a game it sat in twice counts twice, as its list shows it), or a place's games with
    a forfeit or without (``place_games``: every game, a tournament's or a ladder's, voided games too: they stay
    listed). A row or a few, however many games. None where no count is kept: both a tournament and a ladder named,
    or a result without a bot (the caller counts the games)."""
    if (where.tournament_id is not None and where.ladder_id is not None) or (where.bot is None and
                                                                             where.result is not None):
        return None
    params = {"tournament": where.tournament_id or 0, "ladder": where.ladder_id or 0, "bot": where.bot,
              "result": where.result, "forfeited": None if where.forfeited is None else int(where.forfeited)}
    table, column = ("place_games", "games") if where.bot is None else ("bot_results", "seats")
    return connection.execute(text(
        f"SELECT COALESCE(SUM({column}), 0) FROM {table} WHERE tournament_id = :tournament AND ladder_id = :ladder"
        + "".join(f" AND {name} = :{name}" for name in ("bot", "result", "forfeited") if params[name] is not None)),
        params).scalar()


RESULTS_OF = text("SELECT g.game_key, s.bot, s.rank FROM games g JOIN game_results r ON r.game_id = g.id "
                  "JOIN seat_results s ON s.game_id = g.id WHERE g.tournament_id = :id AND g.game_key IN :keys "
                  "ORDER BY g.game_key, s.seat").bindparams(bindparam("keys", expanding=True))
KEYS_AFTER = text("SELECT game_key FROM games WHERE tournament_id = :id AND game_key > :after ORDER BY game_key "
                  "LIMIT :page")


def tournament_results_of(connection: Connection, tournament_id: int, keys: Sequence[str]
                          ) -> dict[str, list[tuple[str, int]]]:
    """A tournament's counted games at ``keys`` by key: [(bot, rank) per seat] (no event read): what `tourney run`
    and the web's progress of a match read of a page of its plan, so that they never hold every game's result."""
    out: dict[str, list[tuple[str, int]]] = {}
    if keys:
        for key, bot, rank in connection.execute(RESULTS_OF, {"id": tournament_id, "keys": list(keys)}):
            out.setdefault(key, []).append((bot, rank))
    return out


def tournament_result_pages(connection: Connection, tournament_id: int, page: int
                            ) -> Iterator[dict[str, list[tuple[str, int]]]]:
    """A tournament's counted games (``tournament_results_of``) a page of ``page`` games at a time, in key order
    (keyset paging on the games' keys)."""
    after = ""
    while keys := connection.execute(KEYS_AFTER, {"id": tournament_id, "after": after, "page": page}).scalars().all():
        yield tournament_results_of(connection, tournament_id, keys)
        after = keys[-1]


def tournament_result_count(connection: Connection, tournament_id: int) -> int:
    """How many of a tournament's games are counted (its kept counts: a row or two, whatever its games)."""
    return read_fits.stamp(connection, tournament_id).games


def tournament_last_game(connection: Connection, tournament_id: int) -> str | None:
    """When the tournament's last stored game was stored (None: none is): its newest by store order, one index
    step (a MAX over the games' times read every game of the tournament: 5 ms at 10,000)."""
    return connection.execute(text("SELECT created_at FROM game_results WHERE tournament_id = :id "
                                   "ORDER BY store_seq DESC LIMIT 1"), {"id": tournament_id}).scalar()


# -- a page of games' rating changes, a bot's battles, an owner's results (issue 41 item 4) ------------------


@dataclass(frozen=True, slots=True)
class SeatRating:
    """One seat of a ladder game as its rating change is read: the entry's rating after the game (None: the game
    is void, it rated nobody) and before it (None: the entry's first game, which starts from its version's start
    rating: ``version_starts``), as stored (``rating``, ``sigma``)."""

    seat: int
    bot: str
    ladder_id: int
    model: str
    version: int
    after: tuple[float, float | None] | None
    before: tuple[float, float | None] | None


def forfeited_by(connection: Connection, bot: str, game_ids: Sequence[str]) -> set[str]:
    """The games of ``game_ids`` that ``bot`` (a name: any version of it) forfeited, from ``seat_results`` (by its
    key, game and seat): no game's events read, so no sealed game's block opened."""
    require_current(connection)
    if not game_ids:
        return set()
    return {row[0] for row in connection.execute(text(
        "SELECT game_id FROM seat_results WHERE game_id IN :ids AND bot = :bot AND forfeited = 1").bindparams(
        bindparam("ids", expanding=True)), {"ids": list(game_ids), "bot": bot})}


def seat_ratings(connection: Connection, game_ids: Sequence[str]) -> dict[str, list[SeatRating]]:
    """Per ladder game of ``game_ids`` (a page's: tournament games have none), each seat's rating before and after
    it, in one statement: the entry's ``ladder_ratings`` row of the game and its row before (index on entry, game
    seq)."""
    out: dict[str, list[SeatRating]] = {}
    if not game_ids:
        return out
    rows = connection.execute(text(
        "SELECT lg.game_id, s.seat, e.name, e.ladder_id, l.rating, e.version, r.rating, r.sigma, p.rating, p.sigma "
        "FROM ladder_games lg JOIN ladders l ON l.id = lg.ladder_id JOIN seats s ON s.game_id = lg.game_id "
        "JOIN ladder_entries e ON e.ladder_id = lg.ladder_id AND e.bot_id = s.bot_id "
        "LEFT JOIN ladder_ratings r ON r.game_seq = lg.seq AND r.entry_id = e.id "
        "LEFT JOIN ladder_ratings p ON p.entry_id = e.id AND p.game_seq = (SELECT MAX(q.game_seq) FROM "
        "ladder_ratings q WHERE q.entry_id = e.id AND q.game_seq < lg.seq) "
        "WHERE lg.game_id IN :ids ORDER BY lg.game_id, s.seat").bindparams(bindparam("ids", expanding=True)),
        {"ids": list(game_ids)}).fetchall()
    for game_id, seat, bot, ladder_id, model, version, rating, sigma, before, before_sigma in rows:
        out.setdefault(game_id, []).append(SeatRating(
            seat, bot, ladder_id, model or "elo", version, None if rating is None else (rating, sigma),
            None if before is None else (before, before_sigma)))
    return out


def version_starts(connection: Connection, names: Iterable[tuple[int, str]]) -> dict[tuple[int, str], list[tuple[
        int, tuple[float, float | None] | None]]]:
    """Per (ladder id, bot name): each version, oldest first, with its predecessor's rating when it was submitted
    (its latest ``ladder_ratings`` row up to the version's ``joined_after``; None: a first version, or a
    predecessor that had played no game by then and still stood at its own start), what a version's start
    rating is made from, as the fold makes it."""
    wanted = sorted(set(names))
    if not wanted:
        return {}
    rows = connection.execute(text(
        "SELECT e.ladder_id, e.name, e.version, r.rating, r.sigma FROM ladder_entries e "
        "LEFT JOIN ladder_entries p ON p.ladder_id = e.ladder_id AND p.name = e.name AND p.version = e.version - 1 "
        "LEFT JOIN ladder_ratings r ON r.entry_id = p.id AND r.game_seq = (SELECT MAX(q.game_seq) FROM "
        "ladder_ratings q WHERE q.entry_id = p.id AND q.game_seq <= e.joined_after) "
        f"WHERE {' OR '.join(f'(e.ladder_id = :ladder{i} AND e.name = :name{i})' for i in range(len(wanted)))} "
        "ORDER BY e.version"), {f"{key}{i}": value for i, pair in enumerate(wanted)
                                for key, value in zip(("ladder", "name"), pair, strict=True)}).fetchall()
    out: dict[tuple[int, str], list[tuple[int, tuple[float, float | None] | None]]] = {}
    for ladder_id, name, version, rating, sigma in rows:
        out.setdefault((ladder_id, name), []).append((version, None if rating is None else (rating, sigma)))
    return out


def battle_page(connection: Connection, where: Where, opponent: str | None, seat: int | None, offset: int,
                limit: int) -> tuple[list[str], int]:
    """One page of the games of ``where.bot`` (required) that ``where`` keeps, narrowed to those where it sat in
    ``seat`` and where ``opponent`` sat in another seat (None: any), newest first, and how many there are."""
    clauses = ["s.bot = :bot"]
    params: dict[str, Any] = {"bot": where.bot}
    for column, value in (("g.tournament_id", where.tournament_id), ("g.ladder_id", where.ladder_id),
                          ("s.result", where.result), ("s.seat", seat)):
        if value is not None:
            name = column.replace(".", "_")
            clauses.append(f"{column} = :{name}")
            params[name] = value
    if where.forfeited is not None:
        clauses.append(f"s.forfeited = {int(where.forfeited)}")
    if opponent is not None:
        clauses.append("EXISTS (SELECT 1 FROM seat_results o WHERE o.game_id = s.game_id AND o.seat <> s.seat "
                       "AND o.bot = :opponent)")
        params["opponent"] = opponent
    return _paged(connection, "seat_results s JOIN game_results g ON g.game_id = s.game_id",
                  " AND ".join(clauses), params, "s.store_seq", offset, limit)


def owner_game_page(connection: Connection, bots: Sequence[str], offset: int, limit: int) -> tuple[list[str], int]:
    """One page of the games any of ``bots`` (an owner's) sat in, newest first (a game of two of them once), and
    how many there are."""
    if not bots:
        return [], 0
    return _paged(connection, "(SELECT DISTINCT s.game_id, s.store_seq FROM seat_results s WHERE "
                  "s.bot IN :bots) s", "1 = 1", {"bots": list(bots)}, "s.store_seq", offset, limit)


def _paged(connection: Connection, source: str, condition: str, params: dict[str, Any], order: str, offset: int,
           limit: int) -> tuple[list[str], int]:
    require_current(connection)
    expand = [bindparam(name, expanding=True) for name, value in params.items() if isinstance(value, list)]
    total = connection.execute(text(f"SELECT COUNT(*) FROM {source} WHERE {condition}").bindparams(*expand),
                               params).scalar()
    page = [row[0] for row in connection.execute(text(
        f"SELECT s.game_id FROM {source} WHERE {condition} ORDER BY {order} DESC LIMIT :limit OFFSET :offset"
    ).bindparams(*expand), {**params, "limit": limit, "offset": offset})]
    return page, total


# -- a ladder as of one of its games (stable pages, rank movement, a page of head-to-head) -------------------


def ladder_count(connection: Connection, ladder_id: int) -> int:
    """How many games the ladder has numbered (voided ones too: a void keeps its number), as the read models count
    them: its latest game's number, one index step however many games (a reader needs them current)."""
    return ladder_snapshots.latest_counted(connection, ladder_id)


def ladder_seq(connection: Connection, ladder_id: int, number: int) -> int:
    """The ``ladder_games.seq`` of the ladder's game ``number`` (1 its first); 0 for 0 (before its first game) and
    past its latest. Found by its number (the index on game_results' ladder and number: one step, however many
    games), or, for a game the read models do not count yet, by its place among the ladder's games."""
    if number <= 0:
        return 0
    found = connection.execute(text(
        "SELECT l.seq FROM game_results g JOIN ladder_games l ON l.game_id = g.game_id WHERE g.ladder_id = :ladder "
        "AND g.ladder_number = :number"), {"ladder": ladder_id, "number": number}).scalar()
    if found is not None:
        return found
    return connection.execute(text("SELECT seq FROM ladder_games WHERE ladder_id = :ladder ORDER BY seq LIMIT 1 "
                                   "OFFSET :skip"), {"ladder": ladder_id, "skip": number - 1}).scalar() or 0


def ladder_number_before(connection: Connection, ladder_id: int, stamp: str) -> int:
    """The number of the ladder's latest game stored at or before ``stamp`` (ISO 8601, UTC); 0 if none was."""
    return connection.execute(text("SELECT COALESCE(MAX(ladder_number), 0) FROM game_results WHERE ladder_id = "
                                   ":ladder AND created_at <= :stamp"), {"ladder": ladder_id, "stamp": stamp}).scalar()


def ladder_ratings_at(connection: Connection, ladder_id: int, seq: int,
                      records: dict[int, dict[str, Any]] | None = None) -> dict[int, tuple[float, float | None, int]]:
    """Each entry's rating after its latest rated ladder game at ``ladder_games.seq`` <= ``seq``, as ladder_ratings
    holds them (a void refolds them): entry -> (rating, sigma, its rated games by then). Entries that had not played
    by then are absent. The rating is ``ladder_ratings_before``'s (one index step an entry); the games are its wins,
    draws and losses by then, from ``records`` (``ladder_at``'s as of the ladder's game at ``seq``, when the caller
    has them; else read): never a count of every rating row."""
    if records is None:
        number = connection.execute(text(
            "SELECT g.ladder_number FROM ladder_games l JOIN game_results g ON g.game_id = l.game_id "
            "WHERE l.ladder_id = :ladder AND l.seq <= :seq ORDER BY l.seq DESC LIMIT 1"),
            {"ladder": ladder_id, "seq": seq}).scalar() or 0
        records = ladder_records_at(connection, ladder_id, number)
    return {entry: (rating, sigma, sum(records.get(entry, {}).get(key, 0) for key in ("wins", "draws", "losses")))
            for entry, (rating, sigma) in ladder_ratings_before(connection, ladder_id, seq).items()}


def ladder_ratings_before(connection: Connection, ladder_id: int, seq: int) -> dict[int, tuple[float, float | None]]:
    """What ``ladder_ratings_at`` gives but each entry's count of games: its rating after its latest rated ladder
    game at ``ladder_games.seq`` <= ``seq`` (rank movement's ratings then), one step down the index on (entry, game
    seq) per entry, however many games each had played. Entries that had not played by then are absent."""
    rows = connection.execute(text(
        "SELECT e.id, r.rating, r.sigma FROM ladder_entries e JOIN ladder_ratings r ON r.entry_id = e.id AND "
        "r.game_seq = (SELECT MAX(q.game_seq) FROM ladder_ratings q WHERE q.entry_id = e.id AND q.game_seq <= :seq) "
        "WHERE e.ladder_id = :ladder"), {"ladder": ladder_id, "seq": seq}).fetchall()
    return {entry: (rating, sigma) for entry, rating, sigma in rows}


def ladder_at(connection: Connection, ladder_id: int, number: int
              ) -> tuple[dict[int, dict[str, Any]], dict[tuple[int, int], tuple[int, int, int]]]:
    """What ``ladder`` reads, counting only the rated games numbered up to ``number``: each entry's wins, draws,
    losses, forfeits, points2 and last_played, and each ordered pair's wins-draws-losses (a page read as of an
    earlier game, no event read): the ladder's latest snapshot at or before that game plus the sums over the games
    since (ledger.ladder_snapshots), so the cost is the league's bots and pairs, not its games."""
    require_current(connection)
    return ladder_snapshots.at(connection, ladder_id, number)


def ladder_records_at(connection: Connection, ladder_id: int, number: int) -> dict[int, dict[str, Any]]:
    """``ladder_at``'s records (its first half) but their points2, left 0 (``ladder_pair_sums_at`` adds them up),
    without reading a pair: its latest snapshot's record rows and the sums over the games since, a row an entry."""
    require_current(connection)
    return ladder_snapshots.since(connection, ladder_id, ladder_snapshots.latest(connection, ladder_id, number)[0],
                                  number, pairs=False)[0]


def ladder_pairs_of(connection: Connection, ladder_id: int, entries: Sequence[int],
                    opponents: Sequence[int] | None = None) -> dict[tuple[int, int], tuple[int, int, int]]:
    """The wins-draws-losses of ``entries`` against ``opponents`` (every entry, for None) from ladder_pairs: only
    the rows of a page of bots, never every pair of the ladder."""
    if not entries:
        return {}
    clause = "entry_id IN :entries"
    params: dict[str, Any] = {"ladder": ladder_id, "entries": list(entries)}
    if opponents is not None:
        if not opponents:
            return {}
        clause += " AND opponent_id IN :opponents"
        params["opponents"] = list(opponents)
    require_current(connection)
    return {(entry, opponent): tuple(values[1:]) for (entry, opponent), values in table_rows(
        connection, "ladder_pairs", f"WHERE ladder_id = :ladder AND {clause}", params).items()}


def ladder_retired_by(connection: Connection, ladder_id: int, number: int) -> set[int]:
    """The entries a retire event had retired by the time the ladder's game ``number`` was stored (by the times
    of the event and the game, to the second; a newer version retires an older one as it joins, which its
    ``joined_after`` says)."""
    return {entry for (entry,) in connection.execute(text(
        "SELECT entry_id FROM ladder_events WHERE ladder_id = :ladder AND kind = 'retire' AND created_at <= "
        "(SELECT created_at FROM game_results WHERE ladder_id = :ladder AND ladder_number = :number)"),
        {"ladder": ladder_id, "number": number})}


def ladder_histories(connection: Connection, entries: Sequence[int], latest: int, up_to: int | None = None
                     ) -> dict[int, list[tuple[int | None, float, float | None]]]:
    """For each of ``entries`` (a shown page's), the points ``ladder_history(connection, entry, latest,
    up_to)`` gives, as (the game's number on the ladder, rating, sigma), oldest first: in one statement whose reads
    do not grow with the games (per entry, the ``game_seq`` of its ``latest``-th newest rating, one step down the
    index on entry and game seq, then its ratings from there on, a range of that index; never the older ones).
    Entries with no rating are absent."""
    wanted = sorted(set(entries))
    if not wanted or latest <= 0:
        return {}
    params: dict[str, Any] = {"ids": wanted, "skip": int(latest) - 1}
    before = after = ""
    if up_to is not None:
        before = " AND q.game_seq <= :up_to"
        # Unary plus: the outer bound is a filter, not the index's range. SQLite's planner otherwise reads each
        # entry's ratings from its first up to the game, the latest points' lower bound evaluated per rating read
        # (ten times the games, ten times the steps: tests/web/test_leaderboard_histories.py).
        after = " AND +r.game_seq <= :up_to"
        params["up_to"] = int(up_to)
    rows = connection.execute(text(
        "SELECT r.entry_id, g.ladder_number, r.rating, r.sigma FROM ladder_entries e JOIN ladder_ratings r ON "
        "r.entry_id = e.id AND r.game_seq >= COALESCE((SELECT q.game_seq FROM ladder_ratings q WHERE q.entry_id = e.id"
        f"{before} ORDER BY q.game_seq DESC LIMIT 1 OFFSET :skip), 0){after} "
        "JOIN ladder_games l ON l.seq = r.game_seq LEFT JOIN game_results g ON g.game_id = l.game_id "
        "WHERE e.id IN :ids ORDER BY r.entry_id, r.game_seq").bindparams(bindparam("ids", expanding=True)),
        params).fetchall()
    out: dict[int, list[tuple[int | None, float, float | None]]] = {}
    for entry, number, rating, sigma in rows:
        out.setdefault(entry, []).append((number, rating, sigma))
    return out


def ladder_records(connection: Connection, ladder_id: int) -> dict[int, dict[str, Any]]:
    """A ladder's records per entry (``read_models.ladder``'s first half: none of its pairs)."""
    require_current(connection)
    return {entry: dict(zip(COUNTS["ladder_records"], values, strict=True)) for (entry,), values in table_rows(
        connection, "ladder_records", "WHERE ladder_id = :ladder", {"ladder": ladder_id}).items()}


def ladder_information(connection: Connection, ladder_id: int, entries: Sequence[int], scale: float
                       ) -> dict[int, float]:
    """Per entry of ``entries``: the Fisher information of its pairwise results against the others of
    ``entries`` at their current ratings (``ladder_entries.rating``), the sum over its ladder_pairs rows of
    games * p * (1 - p) with p = 1 / (1 + 10 ** ((opponent - rating) / scale)): added up in the database, so a
    leaderboard's margins take one row per entry whatever the pairs and the games. Entries with no pair are
    absent."""
    if not entries:
        return {}
    require_current(connection)
    rows = connection.execute(text(
        "SELECT t.entry_id, SUM(t.games * t.p * (1 - t.p)) FROM (SELECT p.entry_id, p.wins + p.draws + p.losses AS "
        "games, 1.0 / (1.0 + POWER(10.0, (b.rating - a.rating) / :scale)) AS p FROM ladder_pairs p "
        "JOIN ladder_entries a ON a.id = p.entry_id JOIN ladder_entries b ON b.id = p.opponent_id "
        "WHERE p.ladder_id = :ladder AND p.entry_id IN :ids AND p.opponent_id IN :ids) t GROUP BY t.entry_id"
    ).bindparams(bindparam("ids", expanding=True)), {"ladder": ladder_id, "ids": sorted(set(entries)),
                                                     "scale": float(scale)}).fetchall()
    return {entry: float(value) for entry, value in rows}


def ladder_pair_sums_at(connection: Connection, ladder_id: int, number: int, seq: int, entries: Sequence[int],
                        scale: float) -> dict[int, tuple[int, float | None]]:
    """Per entry, as of the ladder's game ``number`` (``seq`` its ``ladder_games.seq``): its points2 over every
    pair (what ``ladder_at`` adds to its record) and, for one of ``entries``, its information as
    ``ladder_information`` adds it up, against the others of ``entries`` at their ratings then
    (``ladder_ratings_before``'s; None: no such pair). Summed in the database over the pairs' results then (the
    latest snapshot's pairs and the sums over the games since: ledger.ladder_snapshots ``AS_OF``), in one
    statement: a row an entry comes back, never a pair."""
    require_current(connection)
    params = {"ladder": ladder_id, "after": ladder_snapshots.latest(connection, ladder_id, number)[0],
              "number": number, "seq": seq, "ids": sorted(set(entries)), "scale": float(scale)}
    rows = connection.execute(text(
        "WITH r (entry, rating) AS (SELECT e.id, x.rating FROM ladder_entries e JOIN ladder_ratings x ON x.entry_id "
        "= e.id AND x.game_seq = (SELECT MAX(q.game_seq) FROM ladder_ratings q WHERE q.entry_id = e.id AND "
        "q.game_seq <= :seq) WHERE e.id IN :ids) SELECT t.entry, SUM(t.points2), SUM(t.games * t.p * (1 - t.p)) "
        "FROM (SELECT m.entry, 2 * m.wins + m.draws AS points2, CASE WHEN m.entry <> m.opponent THEN m.wins + "
        "m.draws + m.losses END AS games, 1.0 / (1.0 + POWER(10.0, (b.rating - a.rating) / :scale)) AS p FROM "
        f"({ladder_snapshots.AS_OF}) m LEFT JOIN r a ON a.entry = m.entry LEFT JOIN r b ON b.entry = m.opponent) t "
        "GROUP BY t.entry").bindparams(bindparam("ids", expanding=True)), params).fetchall()
    return {entry: (int(points2), None if information is None else float(information))
            for entry, points2, information in rows}


def ladder_history(connection: Connection, entry_id: int, latest: int | None = None, up_to: int | None = None
                   ) -> list[dict[str, Any]]:
    """An entry's rating after each of its ladder games (the latest ``latest`` only, when given; those at
    ``ladder_games.seq`` <= ``up_to`` only, when given), oldest first, each with the game's number on its ladder
    (None for a game not counted yet: callers check ``require_current`` once)."""
    params: dict[str, Any] = {"entry": entry_id}
    limit = "" if latest is None else " LIMIT :latest"
    before = "" if up_to is None else " AND r.game_seq <= :up_to"
    if latest is not None:
        params["latest"] = int(latest)
    if up_to is not None:
        params["up_to"] = int(up_to)
    rows = connection.execute(text(
        "SELECT r.game_seq, l.game_id, g.ladder_number, r.rank, r.rating, r.sigma FROM ladder_ratings r "
        "JOIN ladder_games l ON l.seq = r.game_seq LEFT JOIN game_results g ON g.game_id = l.game_id "
        f"WHERE r.entry_id = :entry{before} ORDER BY r.game_seq DESC{limit}"), params).fetchall()
    return [{"seq": seq, "game": game, "number": number, "rank": rank, "rating": rating,
             **({} if sigma is None else {"sigma": sigma})}
            for seq, game, number, rank, rating, sigma in reversed(rows)]
