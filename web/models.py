"""The API's shapes (pydantic): what every JSON endpoint returns, and what the pages are drawn from.

A page and its API endpoint show the same model, so the two never disagree. Keys only grow.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, Field

from ledger.store import Ledger
from tournaments.play import results, standings

T = TypeVar("T")


class Page(BaseModel, Generic[T]):
    """One page of a longer list: ``next`` is the offset of the next page, or null on the last."""

    items: list[T]
    total: int
    offset: int
    limit: int
    next: int | None = None

    @classmethod
    def of(cls, items: list[T], total: int, offset: int, limit: int) -> Page[T]:
        return cls(items=items, total=total, offset=offset, limit=limit,
                   next=offset + limit if offset + limit < total else None)

    @classmethod
    def cut(cls, items: list[T], offset: int, limit: int) -> Page[T]:
        """The page of a whole list at ``offset``."""
        return cls.of(items[offset:offset + limit], len(items), offset, limit)


class LadderSummary(BaseModel):
    name: str
    game: str
    players: int
    active: int = Field(description="active bots")
    games: int
    publish: str = Field(description="spectator or full: the view anyone may see of its finished games")
    rating: str = Field(description="its rating model: elo or openskill")
    created_at: str


class LeaderRow(BaseModel):
    rank: int
    bot: str
    owner: str | None
    version: int
    rating: float = Field(description="Elo, or OpenSkill's leaderboard value mu - 3 sigma")
    margin: float = Field(description="95% margin of the rating (± this many points)")
    mu: float | None = Field(default=None, description="OpenSkill's mean (openskill ladders only)")
    sigma: float | None = Field(default=None, description="OpenSkill's uncertainty (openskill ladders only)")
    games: int
    forfeits: int
    last_played: str | None
    provisional: bool
    status: str
    history: list[float] = Field(default_factory=list, description="its rating after each of its ladder games")
    history_games: list[int] = Field(default_factory=list, description="the ladder game number of each")


class Ladder(LadderSummary):
    waiting: int = Field(description="submissions not yet validated")
    leaderboard: list[LeaderRow]


class Seat(BaseModel):
    seat: int
    bot: str
    rank: int | None
    score: int | None


class Forfeit(BaseModel):
    seat: int
    bot: str
    reason: str


class GameSummary(BaseModel):
    game_id: str
    key: str | None
    end: str | None
    created_at: str
    seats: list[Seat]
    forfeit: Forfeit | None


class TournamentSummary(BaseModel):
    id: int
    name: str
    kind: str
    game: str
    bots: int
    games: int
    created_at: str


class Record(BaseModel):
    wins: int
    draws: int
    losses: int


class Tournament(TournamentSummary):
    standings: list[standings.Row]
    los: dict[str, dict[str, float | None]] = Field(description="likelihood of superiority of row over column")
    head_to_head: dict[str, dict[str, Record]]


class Version(BaseModel):
    content_hash: str
    kind: str
    created_at: str


class Entry(BaseModel):
    ladder: str
    version: int
    content_hash: str
    status: str
    rating: float
    games: int
    submitted_at: str


class Bot(BaseModel):
    name: str
    owner: str | None
    versions: list[Version]
    entries: list[Entry]


class HistoryPoint(BaseModel):
    seq: int
    game: str
    version: int
    rank: int
    rating: float
    sigma: float | None = None


class Verification(BaseModel):
    ok: bool
    detail: str


class Game(BaseModel):
    game_id: str
    game: str
    title: str
    engine_version: int
    status: str
    created_at: str
    end: str | None
    head: str | None
    seats: list[Seat]
    forfeit: Forfeit | None
    ladder: str | None
    tournament: str | None
    views: list[str] = Field(description="the views anyone may see of it: spectator, and full once published")
    signed: bool = Field(description="whether signed logs can be downloaded")
    verification: Verification


class Submission(BaseModel):
    id: int
    ladder: str
    name: str
    owner: str
    filename: str
    entry_point: str
    status: str = Field(description="pending, validating, listed or refused")
    reason: str | None
    created_at: str
    decided_at: str | None


class Owner(BaseModel):
    name: str
    created_at: str
    bots: list[str]


class Retired(BaseModel):
    ladder: str
    bot: str
    version: int


class LogExcerpt(BaseModel):
    game_id: str
    seat: int
    content_hash: str
    created_at: str
    stderr: str = Field(description="the end of what the bot's process wrote on stderr in that game")


def game_summary(result) -> GameSummary:
    """A game as lists show it, from tournaments.play.results.GameResult."""
    forfeit = None
    if result.forfeit is not None:
        forfeit = Forfeit(seat=result.forfeit.seat, bot=result.forfeited_by, reason=result.forfeit.reason)
    return GameSummary(game_id=result.game_id, key=result.key, end=result.end, created_at=result.created_at,
                       seats=[Seat(seat=s.seat, bot=s.bot, rank=s.rank, score=s.score) for s in result.seats],
                       forfeit=forfeit)


def games_page(ledger: Ledger, game_ids: list[str], offset: int, limit: int) -> Page[GameSummary]:
    """One page of the games ``game_ids`` (a ladder's, a tournament's, a bot's), in that order."""
    found = results.of_games(ledger, game_ids[offset:offset + limit])
    return Page[GameSummary].of([game_summary(game) for game in found], len(game_ids), offset, limit)
