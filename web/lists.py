"""What the lists show, read from the ledger's read models (ledger/read_models.py) and paged in the database:
game filters (bot, result, forfeits; a bot's battles by opponent and seat), each ladder game's rating change per
seat, an owner's results, leaderboard sort orders and search, a ladder's head-to-head table, a bot's record by
seat and by opponent.

A page of games is chosen by a query on ``game_results`` and ``seat_results`` (newest, the last stored,
first; LIMIT and OFFSET), and only its games are read (``tournaments.play.results.of_games``: the stored
seats and the hashed ``seat_forfeited`` events). A result, for a bot in a game: **win** first alone,
**draw** first shared, **loss** any other place. Between two seats of one game (head-to-head, by
opponent) the better place scores 1, the same place 1/2, each pair of seats counted once, as `tourney
standings` counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import HTTPException
from sqlalchemy import text
from sqlalchemy.engine import Connection

from ledger import read_models, read_pages
from ledger.store import Ledger
from tournaments.ladder import league
from tournaments.play import results
from web import schemas

T = TypeVar("T")
CHUNK = 500
RESULTS = read_models.RESULTS


# -- game filters ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filter:
    """Which games a list shows: those ``bot`` sat in; those where it had ``result`` (with no bot named:
    where some seat had it, so ``draw`` is a shared first place); with or without a forfeit (``forfeited``:
    by ``bot`` when one is named, by anyone otherwise). None is "any"."""

    bot: str | None = None
    result: str | None = None
    forfeited: bool | None = None
    opponent: str | None = None
    """A bot's battles (``bot`` named): only games where this bot sat in another seat."""
    seat: int | None = None
    """A bot's battles (``bot`` named): only games where it sat in this seat."""

    @classmethod
    def of(cls, bot: str | None, result: str | None, forfeited: str | bool | None, opponent: str | None = None,
           seat: str | int | None = None) -> Filter:
        """From a form or a query, where an empty value means "any"; a 422 names what is wrong."""
        bot = bot or None
        result = result or None
        if result is not None and result not in RESULTS:
            raise HTTPException(422, f"result is win, draw or loss, not {result!r}")
        if isinstance(forfeited, str):
            if forfeited not in ("", "true", "false"):
                raise HTTPException(422, f"forfeited is true or false, not {forfeited!r}")
            forfeited = None if forfeited == "" else forfeited == "true"
        if isinstance(seat, str):
            if seat and not seat.isdigit():
                raise HTTPException(422, f"seat is a seat's number, not {seat!r}")
            seat = int(seat) if seat else None
        return cls(bot, result, forfeited, opponent or None, seat)

    @property
    def narrowed(self) -> bool:
        """Anything chosen but the bot (a bot page's battles are narrowed by its form)."""
        return any(value is not None for value in (self.result, self.forfeited, self.opponent, self.seat))

    @property
    def any(self) -> bool:
        return all(value is None for value in (self.bot, self.result, self.forfeited, self.opponent, self.seat))

    def where(self, tournament_id: int | None = None, ladder_id: int | None = None) -> read_pages.Where:
        """The query of these games in a tournament, a ladder, or anywhere."""
        return read_pages.Where(tournament_id, ladder_id, self.bot, self.result, self.forfeited)


def games_page(ledger: Ledger, where: read_pages.Where, offset: int, limit: int,
               battles: Filter | None = None) -> schemas.Page[schemas.GameSummary]:
    """One page of the games ``where`` keeps, newest first: chosen in the database, then only those read, each with
    its seats' rating changes. ``battles``: a bot's games (``where.bot``) narrowed to an opponent and a seat."""
    with ledger.read() as connection:
        if battles is not None and (battles.opponent is not None or battles.seat is not None):
            page, total = read_pages.battle_page(connection, where, battles.opponent, battles.seat, offset, limit)
        else:
            page, total = read_pages.game_page(connection, where, offset, limit)
    return schemas.Page[schemas.GameSummary].of(summaries(ledger, page), total, offset, limit)


def owner_games(ledger: Ledger, bots: Sequence[str], offset: int, limit: int) -> schemas.Page[schemas.GameSummary]:
    """One page of the games any of ``bots`` (an owner's) sat in, newest first, with their rating changes."""
    with ledger.read() as connection:
        page, total = read_pages.owner_game_page(connection, bots, offset, limit)
    return schemas.Page[schemas.GameSummary].of(summaries(ledger, page), total, offset, limit)


def summaries(ledger: Ledger, game_ids: Sequence[str]) -> list[schemas.GameSummary]:
    """The games ``game_ids`` as lists show them, in that order: a ladder game's with each seat's rating change."""
    with ledger.read() as connection:
        changes = rating_changes(connection, game_ids)
    return [schemas.game_summary(game).model_copy(update={"rating_changes": changes.get(game.game_id)})
            for game in results.of_games(ledger, game_ids)]


def rating_changes(connection: Connection, game_ids: Sequence[str]) -> dict[str, list[schemas.RatingChange]]:
    """Per ladder game of ``game_ids``, each seat's change of the leaderboard's rating (league.leaderboard_rating:
    Elo, or OpenSkill's mu - 3 sigma) from before the game to after it: the entry's rating history, read for the
    whole page in one statement; a version's first game counts from its start rating (the ladder model's start
    from its predecessor's rating when it was submitted, read in one more statement when the page holds one)."""
    seated = read_pages.seat_ratings(connection, game_ids)
    firsts = {(seat.ladder_id, seat.bot) for seats in seated.values() for seat in seats
              if seat.after is not None and seat.before is None and seat.version > 1}
    chains = read_pages.version_starts(connection, firsts) if firsts else {}
    out = {}
    for game_id, seats in seated.items():
        out[game_id] = [schemas.RatingChange(seat=seat.seat, bot=seat.bot, change=None if seat.after is None else round(
            _shown(seat.after) - _shown(seat.before or _start(seat, chains)), 1)) for seat in seats]
    return out


def _shown(rating: tuple[float, float | None]) -> float:
    return league.leaderboard_rating({"rating": rating[0], "sigma": rating[1]})


def _start(seat: read_pages.SeatRating, chains: dict) -> tuple[float, float | None]:
    """The start rating of the seat's version, as the fold gives it: the model's start from its predecessor's
    rating at submission, or from the predecessor's own start when it had played no game by then."""
    start = league.model({"rating": seat.model}).start
    rating = start(None)
    for version, predecessor in chains.get((seat.ladder_id, seat.bot), []):
        rating = start(predecessor if predecessor is not None else (rating if version > 1 else None))
        if version == seat.version:
            break
    return rating


# -- sort orders and search -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Order:
    """A table's order: a column (``sort``) and its direction (``descending``); rank ascending by default."""

    sort: str = "rank"
    descending: bool = False

    @classmethod
    def of(cls, sort: str | None, order: str | None, columns: Sequence[str]) -> Order:
        sort = sort or "rank"
        if sort not in columns:
            raise HTTPException(422, f"sort is one of {', '.join(columns)}, not {sort!r}")
        if order not in (None, "", "asc", "desc"):
            raise HTTPException(422, f"order is asc or desc, not {order!r}")
        return cls(sort, order == "desc")

    def link(self, column: str) -> tuple[str, str]:
        """(sort, order) of the link a column's heading makes: the other direction if it is the one sorted
        by, else its natural one (names and rank ascending, numbers descending)."""
        if column == self.sort:
            return column, "asc" if self.descending else "desc"
        return column, "asc" if column in ASCENDING else "desc"

    def aria(self, column: str) -> str | None:
        if column != self.sort:
            return None
        return "descending" if self.descending else "ascending"


ASCENDING = {"rank", "bot", "owner", "mean_place"}
"""Columns a first click sorts upwards (a place, a name); the rest (ratings, counts) downwards."""


def ordered(rows: Sequence[T], order: Order, key: Callable[[T, str], Any]) -> list[T]:
    """``rows`` in ``order``; rows whose value is missing (no owner, never played) come last either way,
    and ties keep rank order."""
    present = [row for row in rows if key(row, order.sort) is not None]
    missing = [row for row in rows if key(row, order.sort) is None]
    present.sort(key=lambda row: _comparable(key(row, order.sort)), reverse=order.descending)
    return present + missing


def _comparable(value: Any) -> Any:
    return value.casefold() if isinstance(value, str) else value


def matching(rows: Sequence[T], words: str | None, *fields: Callable[[T], str | None]) -> list[T]:
    """The rows one of whose ``fields`` holds ``words`` (case aside); all rows for no words."""
    wanted = (words or "").strip().casefold()
    if not wanted:
        return list(rows)
    return [row for row in rows if any(wanted in (field(row) or "").casefold() for field in fields)]


# -- head to head and a bot's record --------------------------------------------------------------


def head_to_head(ledger: Ledger, ladder_id: int, bots: Sequence[str], only: bool = False, offset: int = 0,
                 limit: int | None = None) -> schemas.HeadToHead:
    """The score of pairs of a ladder's bots over its rated games (its read models: voided games are not counted):
    the row's share of the points they played for, as a percentage, and how many games they met in (two versions
    of one bot count as that bot; a table seats each entry once). ``only``: among ``bots`` alone (a page's table),
    else ``bots`` first and then every other bot that played, of which the rows are those from ``offset``
    (``limit`` of them; None: all), each against every opponent. Only those rows are read from ladder_pairs."""
    with ledger.read() as connection:
        names = dict(connection.execute(text("SELECT id, name FROM ladder_entries WHERE ladder_id = :ladder_id"),
                                        {"ladder_id": ladder_id}).fetchall())
        named = list(bots)
        if not only:
            played = {names[entry] for (entry,) in connection.execute(
                text("SELECT entry_id FROM ladder_records WHERE ladder_id = :ladder_id"), {"ladder_id": ladder_id})}
            named += sorted(played - set(bots))
        shown = named[offset:] if limit is None else named[offset:offset + limit]
        ids = {name: [entry for entry, entry_name in names.items() if entry_name == name] for name in named}
        rows = [entry for bot in shown for entry in ids[bot]]
        pairs = read_pages.ladder_pairs_of(connection, ladder_id, rows,
                                            [entry for bot in named for entry in ids[bot]] if only else None)
    counted: dict[tuple[str, str], list[float]] = {}
    for (entry, opponent), (won, drawn, lost) in pairs.items():
        key = (names[entry], names[opponent])
        if key[0] != key[1]:
            sums = counted.setdefault(key, [0.0, 0])
            sums[0] += won + 0.5 * drawn
            sums[1] += won + drawn + lost
    table: dict[str, dict[str, schemas.PairScore]] = {}
    for bot in shown:
        for opponent in named:
            points, met = counted.get((bot, opponent), (0.0, 0))
            if met:
                # Each pair of seats shares one point: the row's share of all the points the two played for.
                table.setdefault(bot, {})[opponent] = schemas.PairScore(games=met, score=round(100 * points / met, 1))
    end = len(named) if limit is None else offset + limit
    return schemas.HeadToHead(bots=shown, pairs=table,
                             total=len(named), offset=offset, next=end if end < len(named) else None)


def record(ledger: Ledger, bot: str, losses: int) -> schemas.BotRecord:
    """A bot's results by seat and by opponent (its read models), and its latest ``losses`` losses."""
    with ledger.read() as connection:
        seats, opponents = read_pages.bot_record(connection, bot)
        lost, _total = read_pages.game_page(connection, read_pages.Where(bot=bot, result=read_models.LOSS), 0,
                                             losses)
    return schemas.BotRecord(
        by_seat=[schemas.SeatRecord(seat=seat, games=games, wins=wins, draws=draws, losses=lost_,
                                   score=round(100 * (wins + draws / 2) / games, 1))
                 for seat, (games, wins, draws, lost_) in sorted(seats.items()) if games],
        by_opponent=[schemas.OpponentRecord(opponent=opponent, games=games, wins=wins, draws=draws, losses=lost_,
                                           score=round(100 * points / games, 1))
                     for opponent, (games, wins, draws, lost_, points)
                     in sorted(opponents.items(), key=lambda item: (-item[1][0], item[0])) if games],
        latest_losses=summaries(ledger, lost))
