"""The API's shapes (pydantic): what every JSON endpoint returns, and what the pages are drawn from.

A page and its API endpoint show the same model, so the two never disagree. Keys only grow.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from pydantic import BaseModel, Field

from tournaments.play import standings

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
    wins: int = Field(default=0, description="rated games where it placed first alone")
    draws: int = Field(default=0, description="rated games where it shared first place")
    losses: int = Field(default=0, description="rated games where it did not place first")
    score: float | None = Field(default=None, description="percent of the points it could have had against each "
                                "other seat (a better place 1, the same place 1/2); None before its first game")
    rank_low: int = Field(description="the best rank it holds with 95% confidence (docs/ladders.md, rank ranges)")
    rank_high: int = Field(description="the worst rank it holds with 95% confidence")
    tied: bool = Field(description="statistically tied with the row above (their ratings' difference within its "
                                   "95% margin)")
    margin: float = Field(description="95% margin of the rating (± this many points)")
    mu: float | None = Field(default=None, description="OpenSkill's mean (openskill ladders only)")
    sigma: float | None = Field(default=None, description="OpenSkill's uncertainty (openskill ladders only)")
    games: int
    forfeits: int
    last_played: str | None
    provisional: bool
    status: str
    division: str | None = Field(default=None, description="its division, on a ladder with divisions (docs/ladders.md, "
                                 "divisions); None on a ladder without")
    boss: bool = Field(default=False, description="it guards its division: to leave it upwards a bot must pass it")
    language: str | None = Field(default=None, description="what this version is written in, as tourney told it when "
                                 "it was listed (Python, JavaScript, shell, compiled, ...; null: listed before tourney "
                                 "told)")
    description: str | None = Field(default=None, description="its author's line on this version")
    submitted_at: str | None = Field(default=None, description="when this version was submitted: the bot's last "
                                     "submission (UTC, ISO 8601)")
    history: list[float] = Field(default_factory=list, description="its rating after each of its ladder games")
    history_games: list[int] = Field(default_factory=list, description="the number of each of those games on this "
                                                                       "ladder (1 is the ladder's first game)")
    rank_change: int | None = Field(default=None, description="how many places it moved up (down: negative) since "
                                    "the ladder's game `moved_since`; null when it had no rank then (new) or no "
                                    "window was asked for (docs/web.md, rank movement)")


class Ladder(LadderSummary):
    waiting: int = Field(description="submissions not yet validated")
    divisions: list[str] = Field(default_factory=list, description="its divisions, lowest first ([]: none)")
    leaderboard: list[LeaderRow]
    at: int = Field(default=0, description="the ladder game the leaderboard is read as of (its number; its latest "
                                           "unless `at` was asked for): pass it back to page on in the same order")
    found: int = Field(default=0, description="rows the search keeps, before paging")
    offset: int = Field(default=0, description="rows skipped")
    limit: int | None = Field(default=None, description="rows asked for (null: every row)")
    next: int | None = Field(default=None, description="the offset of the next page, or null on the last")
    moved_since: int | None = Field(default=None, description="the ladder game `rank_change` compares with (null: "
                                                              "no window asked for)")


class Seat(BaseModel):
    seat: int
    bot: str
    rank: int | None
    score: int | None


class Forfeit(BaseModel):
    seat: int
    bot: str
    reason: str


class Diagnosis(BaseModel):
    """Why an owner's bot forfeited, in its own terms: its traceback, or its program's last stderr lines
    (shown to the bot's owner alone)."""
    seat: int
    bot: str
    kind: str = Field(description="traceback or stderr")
    summary: str = Field(description="one line")
    detail: str = Field(description="size-bounded, as the bot wrote it (escaped where shown)")
    game_id: str | None = Field(default=None, description="the game it forfeited (a submission's: its validation "
                                                          "game, one of `validation_games`)")


class RatingChange(BaseModel):
    seat: int
    bot: str
    change: float | None = Field(description="the bot's rating (the leaderboard's: Elo, or OpenSkill's mu - 3 sigma) "
                                 "after this game minus before it, to 0.1; a version's first game counts from its "
                                 "start rating; null for a voided game (it rated nobody)")


class GameSummary(BaseModel):
    game_id: str
    key: str | None
    end: str | None
    created_at: str
    seats: list[Seat]
    forfeit: Forfeit | None
    rating_changes: list[RatingChange] | None = Field(default=None, description="a ladder game's change of each "
                                                      "seat's rating, by seat; null for a tournament game")

    @property
    def changes_by_seat(self) -> dict[int, float | None]:
        """Seat -> its rating change (what a page shows beside each seat); empty for a tournament game."""
        return {change.seat: change.change for change in self.rating_changes or []}


class Progress(BaseModel):
    state: str = Field(description="finished; running (a game stored in the last 10 minutes); interrupted (none "
                                   "since: `tourney run --resume` continues it); imported (a collection of imported "
                                   "games, never scheduled)")
    stored: int = Field(description="games stored")
    scheduled: int | None = Field(description="games it has when over (null: not known in advance, a match that "
                                               "stops when its test decides, or imported games)")
    last_game_at: str | None = Field(description="when its latest stored game was played")


class TournamentSummary(BaseModel):
    id: int
    name: str
    kind: str
    game: str
    bots: int
    games: int
    created_at: str
    progress: Progress | None = Field(default=None, description="finished, running or interrupted, and how far")


class Record(BaseModel):
    wins: int
    draws: int
    losses: int


class Tournament(TournamentSummary):
    standings: list[standings.Row]
    los: dict[str, dict[str, float | None]] = Field(description="likelihood of superiority of row over column "
                                                                "(rows: `table_bots`, a page of the bots)")
    head_to_head: dict[str, dict[str, Record]] = Field(description="row bot -> column bot -> the row's wins, draws "
                                                                   "and losses (rows: `table_bots`; pairs that never "
                                                                   "met are left out)")
    table_bots: list[str] = Field(default_factory=list, description="the rows of `los` and `head_to_head`: a page "
                                                                    "of the bots in rank order, each against every "
                                                                    "opponent (`offset`, `limit` page them)")
    table_offset: int = Field(default=0, description="bots (rows) skipped")
    table_total: int = Field(default=0, description="every bot of the tournament (the rows there are)")
    table_next: int | None = Field(default=None, description="the offset of the next page of rows, or null on the "
                                                             "last")


class Version(BaseModel):
    content_hash: str
    kind: str
    created_at: str


class Entry(BaseModel):
    ladder: str
    version: int
    content_hash: str
    status: str
    rating: float = Field(description="as the leaderboard ranks: Elo, or OpenSkill's conservative mu - 3 sigma")
    games: int
    submitted_at: str
    mu: float | None = Field(default=None, description="OpenSkill's mean (openskill ladders only)")
    sigma: float | None = Field(default=None, description="OpenSkill's uncertainty (openskill ladders only)")
    language: str | None = Field(default=None, description="what this version is written in (null: listed before "
                                 "tourney told)")
    description: str | None = Field(default=None, description="its author's line on this version")


class Bot(BaseModel):
    name: str
    owner: str | None
    versions: list[Version]
    entries: list[Entry]


class HistoryPoint(BaseModel):
    seq: int
    number: int = Field(description="the number of this game on the ladder (1 is the ladder's first game)")
    game: str
    version: int
    rank: int
    rating: float = Field(description="as the leaderboard ranks: Elo, or OpenSkill's conservative mu - 3 sigma")
    sigma: float | None = Field(default=None, description="OpenSkill's uncertainty (openskill ladders only)")
    mu: float | None = Field(default=None, description="OpenSkill's mean (openskill ladders only)")


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
    tournament_id: int | None = Field(default=None, description="its tournament's id (a name may hold any character)")
    views: list[str] = Field(description="the views anyone may see of it: spectator, and full once published; "
                                         "for the owner of a bot that sat in it, seat:N (its seat) too")
    signed: bool = Field(description="whether signed logs can be downloaded")
    verification: Verification
    diagnoses: list[Diagnosis] = Field(default_factory=list, description="why the asking owner's bot forfeited "
                                                                         "(empty for anyone else)")


class ValidationGame(BaseModel):
    """A game a submission played to be validated, kept for its owner: its log from the submitted bot's seat
    at ``/api/submissions/ID/validation/NUMBER/log``."""
    number: int
    game_id: str
    seat: int = Field(description="the seat the submitted bot sat in")
    created_at: str


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
    diagnosis: str | None = Field(default=None, description="what a refused submission's bot left behind (its "
                                  "traceback or last stderr lines): in the answer to its owner's token only")
    validation_diagnosis: Diagnosis | None = Field(default=None, description="`diagnosis` in the shape of "
                                                   "`/api/games`' `diagnoses`, with the validation game it was left "
                                                   "in: in the answer to its owner's token only (null: none, or "
                                                   "refused before its validation games were kept)")
    validation_games: list[ValidationGame] = Field(default_factory=list, description="the games it played to be "
                                                   "validated, kept for its owner (never ladder games)")
    description: str | None = Field(default=None, description="its author's words on the bot, listed with it")


class Owner(BaseModel):
    name: str
    created_at: str
    bots: list[str]


class OwnerEntry(BaseModel):
    bot: str
    version: int
    rank: int = Field(description="its rank on the ladder's leaderboard")
    rating: float = Field(description="the leaderboard's: Elo, or OpenSkill's mu - 3 sigma")
    games: int
    provisional: bool


class OwnerLadder(BaseModel):
    ladder: str
    game: str
    bots: list[OwnerEntry] = Field(description="the owner's active bots on it, best ranked first")


class OwnerProfile(BaseModel):
    """An owner as anyone sees them: their listed bots (active on a ladder), each ladder's rank and rating of
    each, and their bots' games, newest first (paged by offset and limit)."""
    name: str
    created_at: str
    bots: list[str] = Field(description="their bots with an active ladder entry (names only claimed stay private)")
    ladders: list[OwnerLadder]
    results: Page[GameSummary] = Field(description="games any of their listed bots played, newest first")


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


class Error(BaseModel):
    """Every error of the API: one line (a 422 names each bad parameter or field, and what is wrong with it)."""

    detail: str


class PairScore(BaseModel):
    games: int = Field(description="games the two bots met in")
    score: float = Field(description="the row bot's share of the points between them, in percent (a better place "
                                     "scores 1, the same place 1/2, per pair of seats)")


class HeadToHead(BaseModel):
    bots: list[str] = Field(description="in leaderboard order, then any bot no longer on it")
    pairs: dict[str, dict[str, PairScore]] = Field(description="row bot -> column bot -> their score (pairs that "
                                                               "never met are left out)")
    total: int | None = Field(default=None, description="every bot there is (paged: rows are `bots`, a page of them, "
                                                        "against every opponent)")
    offset: int = Field(default=0, description="bots skipped")
    next: int | None = Field(default=None, description="the offset of the next page of bots, or null on the last")


class SeatRecord(BaseModel):
    seat: int
    games: int
    wins: int
    draws: int
    losses: int
    score: float = Field(description="wins and half the draws, in percent of games")


class OpponentRecord(BaseModel):
    opponent: str
    games: int
    wins: int = Field(description="games it placed above this opponent")
    draws: int
    losses: int
    score: float = Field(description="its score against this opponent, in percent")


class BotRecord(BaseModel):
    by_seat: list[SeatRecord]
    by_opponent: list[OpponentRecord] = Field(description="most games first")
    latest_losses: list[GameSummary] = Field(description="its newest losses, newest first")


def game_summary(result) -> GameSummary:
    """A game as lists show it, from tournaments.play.results.GameResult."""
    forfeit = None
    if result.forfeit is not None:
        forfeit = Forfeit(seat=result.forfeit.seat, bot=result.forfeited_by, reason=result.forfeit.reason)
    return GameSummary(game_id=result.game_id, key=result.key, end=result.end, created_at=result.created_at,
                       seats=[Seat(seat=s.seat, bot=s.bot, rank=s.rank, score=s.score) for s in result.seats],
                       forfeit=forfeit)
