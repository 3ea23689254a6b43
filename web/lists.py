"""What the lists show, worked out from the games' results: game filters (bot, result, forfeits),
leaderboard sort orders and search, a ladder's head-to-head table, a bot's record by seat and by
opponent.

Results are those of ``tournaments.play.results.of_games`` (the stored seats and the hashed
``seat_forfeited`` events), read in chunks so that a long ladder never makes one huge query.
A result, for a bot in a game: **win** first alone, **draw** first shared, **loss** any other
place. Between two seats of one game (head-to-head, by opponent) the better place scores 1,
the same place 1/2, each pair of seats counted once, as `tourney standings` counts them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import HTTPException

from ledger.store import Ledger
from tournaments.play import results
from tournaments.play.results import GameResult
from web import models

T = TypeVar("T")
CHUNK = 500
RESULTS = ("win", "draw", "loss")


def of_games(ledger: Ledger, game_ids: Sequence[str]) -> list[GameResult]:
    """The results of ``game_ids``, in that order (games without a stored seat are left out)."""
    out: list[GameResult] = []
    for start in range(0, len(game_ids), CHUNK):
        out += results.of_games(ledger, game_ids[start:start + CHUNK])
    return out


def placed(game: GameResult, rank: int) -> str:
    """win, draw or loss for a seat of ``game`` at ``rank``."""
    if rank != 1:
        return "loss"
    return "win" if sum(1 for seat in game.seats if seat.rank == 1) == 1 else "draw"


def result_of(game: GameResult, bot: str) -> str | None:
    """win, draw or loss for ``bot`` (its best seat, if it sat twice), or None if it did not play."""
    ranks = [seat.rank for seat in game.seats if seat.bot == bot and seat.rank is not None]
    return placed(game, min(ranks)) if ranks else None


# -- game filters ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Filter:
    """Which games a list shows: those ``bot`` sat in; those where it had ``result`` (with no bot named:
    where some seat had it, so ``draw`` is a shared first place); with or without a forfeit (``forfeited``:
    by ``bot`` when one is named, by anyone otherwise). None is "any"."""

    bot: str | None = None
    result: str | None = None
    forfeited: bool | None = None

    @classmethod
    def of(cls, bot: str | None, result: str | None, forfeited: str | bool | None) -> Filter:
        """From a form or a query, where an empty value means "any"; a 422 names what is wrong."""
        bot = bot or None
        result = result or None
        if result is not None and result not in RESULTS:
            raise HTTPException(422, f"result is win, draw or loss, not {result!r}")
        if isinstance(forfeited, str):
            if forfeited not in ("", "true", "false"):
                raise HTTPException(422, f"forfeited is true or false, not {forfeited!r}")
            forfeited = None if forfeited == "" else forfeited == "true"
        return cls(bot, result, forfeited)

    def keeps(self, game: GameResult) -> bool:
        if self.bot is not None and result_of(game, self.bot) is None:
            return False
        if self.result is not None:
            bots = [self.bot] if self.bot is not None else {seat.bot for seat in game.seats}
            if self.result not in {result_of(game, bot) for bot in bots}:
                return False
        if self.forfeited is not None:
            by = game.forfeit is not None and (self.bot is None or game.forfeited_by == self.bot)
            if by != self.forfeited:
                return False
        return True

    @property
    def any(self) -> bool:
        return self.bot is None and self.result is None and self.forfeited is None


def games_page(games: Sequence[GameResult], chosen: Filter, offset: int, limit: int) -> models.Page[models.GameSummary]:
    """One page of the games ``chosen`` keeps, in the order given (lists give them newest first)."""
    kept = [game for game in games if chosen.keeps(game)] if not chosen.any else list(games)
    return models.Page[models.GameSummary].of([models.game_summary(game) for game in kept[offset:offset + limit]],
                                              len(kept), offset, limit)


def bots_in(games: Iterable[GameResult]) -> list[str]:
    """Every bot that sat in ``games``, by name (what a list's bot filter offers)."""
    return sorted({seat.bot for game in games for seat in game.seats})


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


def pairs(game: GameResult) -> Iterable[tuple[str, str, float]]:
    """(bot, opponent, bot's score) for every ordered pair of seats of a ranked game."""
    ranked = [seat for seat in game.seats if seat.rank is not None]
    for mine in ranked:
        for theirs in ranked:
            if theirs.seat != mine.seat:
                yield mine.bot, theirs.bot, 1.0 if mine.rank < theirs.rank else 0.5 if mine.rank == theirs.rank else 0.0


def head_to_head(games: Iterable[GameResult], bots: Sequence[str]) -> models.HeadToHead:
    """The score of every pair of bots over ``games``: points of the row's bot against the column's, as a
    percentage, and how many games they met in."""
    points: dict[tuple[str, str], float] = {}
    met: dict[tuple[str, str], int] = {}
    for game in games:
        seen: set[tuple[str, str]] = set()
        for bot, opponent, score in pairs(game):
            if bot == opponent:
                continue  # two versions of one bot in a game: not a meeting of two bots
            points[(bot, opponent)] = points.get((bot, opponent), 0.0) + score
            met[(bot, opponent)] = met.get((bot, opponent), 0) + (0 if (bot, opponent) in seen else 1)
            seen.add((bot, opponent))
    named = list(bots) + sorted({bot for bot, _ in met} - set(bots))
    table: dict[str, dict[str, models.PairScore]] = {}
    for bot in named:
        for opponent in named:
            if (bot, opponent) in met:
                # Each pair of seats shares one point: the row's share of all the points the two played for.
                played = points[(bot, opponent)] + points[(opponent, bot)]
                table.setdefault(bot, {})[opponent] = models.PairScore(
                    games=met[(bot, opponent)], score=round(100 * points[(bot, opponent)] / played, 1))
    return models.HeadToHead(bots=named, pairs=table)


def record(games: Iterable[GameResult], bot: str, losses: int) -> models.BotRecord:
    """A bot's results by seat and by opponent, and its latest ``losses`` losses (``games`` newest first)."""
    by_seat: dict[int, list[str]] = {}
    against: dict[str, list[float]] = {}
    lost: list[models.GameSummary] = []
    for game in games:
        for seat in game.seats:
            if seat.bot == bot and seat.rank is not None:
                by_seat.setdefault(seat.seat, []).append(placed(game, seat.rank))
        scores: dict[str, list[float]] = {}
        for mine, opponent, score in pairs(game):
            if mine == bot and opponent != bot:
                scores.setdefault(opponent, []).append(score)
        for opponent, each in scores.items():
            against.setdefault(opponent, []).append(sum(each) / len(each))
        if len(lost) < losses and result_of(game, bot) == "loss":
            lost.append(models.game_summary(game))
    return models.BotRecord(
        by_seat=[models.SeatRecord(seat=seat, **_tally(found)) for seat, found in sorted(by_seat.items())],
        by_opponent=[models.OpponentRecord(opponent=opponent, **_scored(found))
                     for opponent, found in sorted(against.items(), key=lambda item: (-len(item[1]), item[0]))],
        latest_losses=lost)


def _tally(found: list[str]) -> dict[str, Any]:
    wins, draws, losses = (found.count(result) for result in RESULTS)
    return {"games": len(found), "wins": wins, "draws": draws, "losses": losses,
            "score": round(100 * (wins + draws / 2) / len(found), 1)}


def _scored(found: list[float]) -> dict[str, Any]:
    """A bot's games against one opponent: each game's score against it (1, 1/2, 0; averaged over the
    opponent's seats when it sat more than once)."""
    wins = sum(1 for score in found if score == 1.0)
    losses = sum(1 for score in found if score == 0.0)
    return {"games": len(found), "wins": wins, "draws": len(found) - wins - losses, "losses": losses,
            "score": round(100 * sum(found) / len(found), 1)}
