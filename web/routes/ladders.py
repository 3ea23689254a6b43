"""Ladders: the list, one ladder's leaderboard (sortable, searchable, with ETags for the page's live
refresh), its games (paged, newest first, filtered), its head-to-head table, a bot's rating history."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse

from ledger import read_pages
from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tournaments.ladder import divisions, league, matchmaking
from tournaments.ratings import elo
from web import charts, lists, schemas
from web.deps import MAX_PAGE, LedgerDep, PagingDep, Site, SiteDep
from web.pages import query, render, unchanged

api = APIRouter(prefix="/api/ladders", tags=["ladders"])
pages = APIRouter(tags=["pages"])

COLUMNS = ("rank", "bot", "owner", "version", "rating", "score", "games", "forfeits", "last")
Sort = Annotated[Literal[COLUMNS] | None, Query(description="the column to sort by (rank by default)")]
Direction = Annotated[Literal["asc", "desc"] | None, Query(description="asc or desc (each column has its own "
                                                                       "natural one)")]
Search = Annotated[str | None, Query(max_length=100, description="only bots whose name or owner holds this")]
BotQuery = Annotated[str | None, Query(max_length=200, description="only games this bot sat in")]
ResultQuery = Annotated[Literal["win", "draw", "loss"] | None, Query(
    description="only games where the bot had this result (win: first alone; draw: first, shared; loss: any other "
                "place); with no bot, where some seat had it")]
ForfeitQuery = Annotated[bool | None, Query(description="true: only games with a forfeit (the bot's, if one is "
                                                        "named); false: only games without")]
# The pages' forms send an empty value for "any".
PageResult = Annotated[Literal["", "win", "draw", "loss"] | None, Query(description="win, draw, loss, or empty for "
                                                                                     "any (as for the API)")]
PageForfeit = Annotated[Literal["", "true", "false"] | None, Query(description="true, false, or empty for any")]
PageSort = Annotated[Literal[("", *COLUMNS)] | None, Query(description="the column to sort by (rank by default)")]
PageOrder = Annotated[Literal["", "asc", "desc"] | None, Query(description="asc or desc")]
RECENT_GAMES = 10
"""The newest games a ladder's page lists at a time (its "older" link pages on; its games page filters them all)."""
LatestOffset = Annotated[int, Query(ge=0, le=10**9, description="how many of the latest games to skip (the page's "
                                                                 "\"older\" link)")]
At = Annotated[int | None, Query(ge=0, le=10**9, description="read the leaderboard as of the ladder's game with this "
                                                        "number (the `at` an earlier page answered): its order then, "
                                                        "so that paging on neither repeats nor skips a row while "
                                                        "games are stored; past the latest game, the latest")]
Since = Annotated[str | None, Query(max_length=7, pattern=r"^(\d{1,6}[mhdw]?)?$", description=(
    "rank movement since N ladder games before `at` (`100`), or since a time ago: minutes, hours, days or weeks "
    "(`90m`, `24h`, `7d`, `2w`); each row's `rank_change`"))]
RowOffset = Annotated[int, Query(ge=0, le=10**9, description="leaderboard rows to skip")]
RowLimit = Annotated[int | None, Query(ge=1, le=MAX_PAGE, description="leaderboard rows to give (none: every row)")]
PageStart = Annotated[int, Query(ge=0, le=10**9, description="leaderboard rows to skip (the page's own `offset` pages "
                                                              "its latest games)")]
PageLimit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="leaderboard rows a page shows")]
PAGE_ROWS = 50
"""The leaderboard rows a ladder's page shows at a time (its pager pages on, as of one ladder game)."""
PAGE_SINCE = "24h"
"""The window of a page's rank movement when none is chosen (the API's: none)."""
H2hLimit = Annotated[int | None, Query(ge=1, le=MAX_PAGE, description="rows (bots) to give, each against every "
                                                                       "opponent (none: every bot)")]
DivisionQuery = Annotated[str | None, Query(max_length=200, description="only the bots of this division (a ladder "
                                                                     "with divisions)")]
MATRIX_BOTS = 20
"""The best-ranked bots a page's head-to-head table shows (the API gives every pair): a page's size never grows
past them, however many bots play."""


def summaries(ledger: Ledger) -> list[schemas.LadderSummary]:
    return [schemas.LadderSummary(**{k: row[k] for k in schemas.LadderSummary.model_fields})
            for row in ladder_rows.all_ladders(ledger, counted=True)]


def shown_rating(point: dict) -> float:
    """A stored rating as every page and answer calls "rating" (league.leaderboard_rating), to 0.1."""
    return round(league.leaderboard_rating(point), 1)


def history_point(point: dict) -> schemas.HistoryPoint:
    """A stored history point as the API gives it: ``rating`` as the leaderboard's, OpenSkill's mu as ``mu``."""
    sigma = point.get("sigma")
    return schemas.HistoryPoint(**{**point, "rating": shown_rating(point),
                                  "mu": None if sigma is None else round(point["rating"], 2),
                                  "sigma": None if sigma is None else round(sigma, 2)})


def etag(ledger: Ledger, name: str) -> str:
    """Changes whenever the leaderboard may: a game stored, a ladder event, a new entry, a submission decided."""
    ladder = ladder_rows.get(ledger, name)
    version = (*ladder_rows.version_of(ledger, ladder["id"]), submission_rows.waiting(ledger, ladder["id"]))
    digest = hashlib.sha256(repr(version).encode()).hexdigest()[:20]
    return f'W/"ladder-{ladder["id"]}-{digest}"'


SPARKLINE = 50
"""The latest games of each bot a leaderboard row's history holds (its sparkline, and the page's chart): the
whole history is `/api/ladders/NAME/bots/BOT/history`; a page's size never grows with the ladder's."""


def ladder(ledger: Ledger, name: str, retired: bool = False) -> schemas.Ladder:
    """A ladder with its leaderboard: the CLI's standings, plus owner and last game (all from the ladder's rows and
    read models: no game is read). The rows' rating histories are left empty: ``with_histories`` reads them for
    the rows a page or an answer shows, never for every bot."""
    row = ladder_rows.get(ledger, name)
    with ledger.read() as connection:
        at = read_pages.ladder_count(connection, row["id"])
        records = read_pages.ladder_records(connection, row["id"])
    standings = league.standings(ledger, name, retired, (records, None))
    entries = {(e["name"], e["version"]): e for e in ladder_rows.entries(ledger, row["id"], active_only=not retired)}
    return summarized(ledger, row, at, leader_rows(ledger, row, standings, entries, records))


def histories(site: Site, name: str, tag: str, at: int, keys: tuple[tuple[str, int], ...]
              ) -> dict[tuple[str, int], list[tuple[int, float]]]:
    """The entries ``keys`` (bot, version) with each one's latest ``SPARKLINE`` ratings up to the ladder's game
    ``at`` ((game number, rating) each): read for these entries only, in one statement whose reads do not grow
    with the games (read_pages.ladder_histories), once per ETag, game and entries."""
    def work() -> dict[tuple[str, int], list[tuple[int, float]]]:
        ladder_id = ladder_rows.get(site.ledger, name)["id"]
        ids = {(e["name"], e["version"]): e["id"] for e in ladder_rows.entries(site.ledger, ladder_id,
                                                                                 active_only=False)}
        latest = latest_number(site, name, tag)
        with site.ledger.read() as connection:
            seq = None if at >= latest else read_pages.ladder_seq(connection, ladder_id, at)
            read = read_pages.ladder_histories(connection, [ids[key] for key in keys], SPARKLINE, seq)
        return {key: [(number, round(rating if sigma is None else league.leaderboard_rating(
            {"rating": rating, "sigma": sigma}), 1)) for number, rating, sigma in read.get(ids[key], [])]
            for key in keys}

    return site.caches["standings"].get(("histories", name, tag, at, keys), work) if keys else {}


def with_histories(site: Site, name: str, tag: str, shown: schemas.Ladder, rows: list[schemas.LeaderRow]
                   ) -> list[schemas.LeaderRow]:
    """``rows`` (of ``shown``, the ladder as of its game ``shown.at``) with their rating histories (``histories``)."""
    points = histories(site, name, tag, shown.at, tuple(dict.fromkeys((r.bot, r.version) for r in rows)))
    return [r.model_copy(update={"history": [rating for _number, rating in points[(r.bot, r.version)]],
                                 "history_games": [number for number, _rating in points[(r.bot, r.version)]]})
            for r in rows]


def page_with_histories(site: Site, name: str, tag: str, shown: schemas.Ladder) -> schemas.Ladder:
    """``shown`` (a page of rows) with its rows' rating histories."""
    return shown.model_copy(update={"leaderboard": with_histories(site, name, tag, shown, shown.leaderboard)})


def summarized(ledger: Ledger, row: dict, at: int, board: list[schemas.LeaderRow]) -> schemas.Ladder:
    summary = next(s for s in summaries(ledger) if s.name == row["name"])
    return schemas.Ladder(**summary.model_dump(), waiting=submission_rows.waiting(ledger, row["id"]),
                          leaderboard=board, at=at,
                         found=len(board), divisions=divisions.names_of(row))


def leader_rows(ledger: Ledger, row: dict, standings: list[league.Standing], entries: dict[tuple[str, int], dict],
                records: dict[int, dict]) -> list[schemas.LeaderRow]:
    """The leaderboard's rows: each standing with its entry's record and owner (its rating history is read for
    the rows shown: ``with_histories``)."""
    owned = owner_rows.owners_of(ledger, [s.name for s in standings])
    board = []
    for standing in standings:
        key = (standing.name, standing.version)
        record = records.get(entries[key]["id"], {})
        board.append(schemas.LeaderRow(
            **record_of(record, row["players"]),
            rank=standing.rank, bot=standing.name, owner=owned.get(standing.name), version=standing.version,
            rank_low=standing.rank_low, rank_high=standing.rank_high, tied=standing.tied,
            rating=round(standing.rating, 1), margin=round(standing.margin, 1), games=standing.games,
            forfeits=standing.forfeits, last_played=record.get("last_played"),
            provisional=standing.provisional, mu=None if standing.mu is None else round(standing.mu, 2),
            sigma=None if standing.sigma is None else round(standing.sigma, 2),
            status=standing.status, division=standing.division, boss=standing.boss,
            language=entries[key].get("language"), description=entries[key].get("description"),
            submitted_at=entries[key].get("submitted_at")))
    return board


def ladder_at(ledger: Ledger, name: str, at: int, retired: bool = False) -> schemas.Ladder:
    """The ladder as it stood after its game ``at``: every entry listed then, with its rating, record, rank and
    latest ratings then (ladder_ratings and the read models counted up to that game, in SQL: no game is read or
    refolded, and no pair: an Elo margin is from each entry's information then, summed in the database)."""
    row = ladder_rows.get(ledger, name)
    with ledger.read() as connection:
        seq = read_pages.ladder_seq(connection, row["id"], at)
        records = read_pages.ladder_records_at(connection, row["id"], at)  # points2: ladder_pair_sums_at's, below
        rated = read_pages.ladder_ratings_at(connection, row["id"], seq, records)
        gone = read_pages.ladder_retired_by(connection, row["id"], at)
    rating = league.model(row)
    # The versions there were then (submitted before that game), each active then unless a retire event or a newer
    # version of its name had come by then: what the leaderboard listed then, whatever was submitted or retired since.
    present = [e for e in ladder_rows.entries(ledger, row["id"], active_only=False)
               if e["id"] in rated or e["joined_after"] < seq or e["joined_after"] == 0]
    newest = {e["name"]: e["version"] for e in sorted(present, key=lambda e: e["version"])}
    listed = []
    for entry in present:
        status = "active" if entry["version"] == newest[entry["name"]] and entry["id"] not in gone else "retired"
        if status != "active" and not retired:
            continue
        then = rated.get(entry["id"])
        if then is None:  # it had not played yet: its first rating (its rating now, if it still has not)
            then = (entry["rating"], entry["sigma"], 0) if entry["games"] == 0 else (*rating.start(None), 0)
        listed.append({**entry, "status": status, "rating": then[0], "sigma": then[1], "games": then[2]})
    listed = league.ordered(listed)
    with ledger.read() as connection:
        paired = read_pages.ladder_pair_sums_at(connection, row["id"], at, seq, [e["id"] for e in listed], elo.SCALE)
    for entry, (points2, _information) in paired.items():
        records[entry]["points2"] = points2
    openskill = row["rating"] == league.OPENSKILL
    # An Elo margin as matchmaking.uncertainties_of_pairs gives it from the pairs then at the ratings then (among the
    # rows listed), from each one's information summed in the database (equal to 1e-12).
    margins = {e["id"]: 1.96 * (e["sigma"] if openskill else matchmaking.standard_error(
        matchmaking.PRIOR_INFORMATION + (paired.get(e["id"], (0, None))[1] or 0.0))) for e in listed}
    # A ladder with divisions labels each row with the division its bot holds now: membership as of an earlier game
    # is not rebuilt here (docs/web.md).
    standings = league.placed(ledger, row, league._ranged([
        league.Standing(position, e["name"], e["version"], league.leaderboard_rating(e), margins[e["id"]], e["games"],
                        e["games"] < matchmaking.PROVISIONAL_GAMES, e["status"],
                        records.get(e["id"], {}).get("forfeits", 0), e["rating"] if openskill else None,
                        e["sigma"] if openskill else None)
        for position, e in enumerate(listed, start=1)]), {(e["name"], e["version"]): e["id"] for e in listed})
    board = leader_rows(ledger, row, standings, {(e["name"], e["version"]): e for e in listed}, records)
    return summarized(ledger, row, at, board)


def record_of(record: dict, players: int) -> dict:
    """An entry's rated games as a row shows them: wins, draws and losses (a game's result for the seat: the only
    first, a shared first, or not first) and its score, the percent of the points it could have had against
    each other seat (a better place 1, the same place 1/2): (2 W + D) / 2 G at two seats. None before a game."""
    wins, draws, losses = (record.get(key, 0) for key in ("wins", "draws", "losses"))
    games = wins + draws + losses
    score = round(100 * record.get("points2", 0) / (2 * games * (players - 1)), 1) if games else None
    return {"wins": wins, "draws": draws, "losses": losses, "score": score}


def cached(site: Site, name: str, tag: str, retired: bool = False) -> schemas.Ladder:
    """The ladder as of its ETag: computed once per change however many pages poll it."""
    return site.caches["standings"].get(("ladder", name, tag, retired), lambda: ladder(site.ledger, name, retired))


def _value(row: schemas.LeaderRow, column: str):
    return row.last_played if column == "last" else getattr(row, column)


def board(shown: schemas.Ladder, order: lists.Order, words: str | None, division: str | None = None) -> schemas.Ladder:
    """The ladder with its leaderboard in ``order``, only the rows ``words`` finds, of ``division`` if given (404 if
    the ladder has no such division; ranks stay the ladder's)."""
    found = lists.matching(shown.leaderboard, words, lambda row: row.bot, lambda row: row.owner)
    if division:
        if division not in shown.divisions:
            raise HTTPException(404, f"no division {division!r} on ladder {shown.name!r}" + (
                f" (its divisions: {', '.join(shown.divisions)})" if shown.divisions else " (it has no divisions)"))
        found = [row for row in found if row.division == division]
    return shown.model_copy(update={"leaderboard": lists.ordered(found, order, _value)})


def as_of(site: Site, name: str, tag: str, at: int | None, retired: bool = False) -> schemas.Ladder:
    """The ladder as of its game ``at`` (None, or past its latest: as it is), once per ETag and game. The board as
    of an earlier game is read without the latest board (an API page of rows as of a game costs one board)."""
    if at is None or at >= latest_number(site, name, tag):
        return cached(site, name, tag, retired)
    return site.caches["standings"].get(("ladder-at", name, tag, at, retired),
                                        lambda: ladder_at(site.ledger, name, at, retired))


def ranked(site: Site, name: str, tag: str, retired: bool = False) -> list[tuple[str, int, int]]:
    """The ladder's entries now in its leaderboard's order, (bot, version, games) each (``retired``: retired
    versions too): what its chart and head-to-head rank, without the board's margins and rank ranges (so a page as
    of an earlier game draws no latest board for them), once per ETag."""
    return site.caches["standings"].get(("ranked", name, tag, retired), lambda: [
        (e["name"], e["version"], e["games"]) for e in league.order(site.ledger, name, retired)])


def latest_number(site: Site, name: str, tag: str) -> int:
    """The number of the ladder's latest game, as of its ETag (``tag``; with or without its retired rows): the
    latest board's ``at``, read without the board, once per ETag."""
    def count() -> int:
        with site.ledger.read() as connection:
            return read_pages.ladder_count(connection, ladder_rows.get(site.ledger, name)["id"])

    return site.caches["standings"].get(("latest-number", name, tag.removesuffix("-all")), count)


UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def window(ledger: Ledger, name: str, at: int, since: str | None) -> int | None:
    """The ladder game rank movement compares with: ``since`` (N) games before ``at``, or the latest game stored
    at least ``since`` (90m, 24h, 7d, 2w) ago, never after ``at``; None for no window."""
    if not since:
        return None
    count, unit = re.fullmatch(r"(\d+)([mhdw]?)", since).groups()
    if not unit:
        return max(0, at - int(count))
    try:
        cutoff = (datetime.now(UTC) - timedelta(**{UNITS[unit]: int(count)})).isoformat(timespec="seconds")
    except OverflowError:  # before the year 1: before every game
        return 0
    with ledger.read() as connection:
        return min(at, read_pages.ladder_number_before(connection, ladder_rows.get(ledger, name)["id"], cutoff))


def moved(ledger: Ledger, name: str, shown: schemas.Ladder, then: int) -> schemas.Ladder:
    """``shown`` with each row's rank_change since the ladder's game ``then``: its rank then among the rows that
    had a rating then (ladder_ratings: each entry's latest rating at a game numbered <= ``then``), ordered as the
    leaderboard orders, minus its rank now; None for a row that had not played by then. Each entry's rating then is
    one index step (read_pages.ladder_ratings_before), not a sum over the games before."""
    ladder_id = ladder_rows.get(ledger, name)["id"]
    ids = {(e["name"], e["version"]): e["id"] for e in ladder_rows.entries(ledger, ladder_id, active_only=False)}
    with ledger.read() as connection:
        seq = read_pages.ladder_seq(connection, ladder_id, then)
        rated = read_pages.ladder_ratings_before(connection, ladder_id, seq)
    value = {key: league.leaderboard_rating({"rating": rated[entry][0], "sigma": rated[entry][1]})
             for key, entry in ids.items() if entry in rated}
    before = sorted((key for key in ((r.bot, r.version) for r in shown.leaderboard) if key in value),
                    key=lambda key: (-value[key], key[0], key[1]))
    ranks = {key: rank for rank, key in enumerate(before, start=1)}
    return shown.model_copy(update={"moved_since": then, "leaderboard": [
        r.model_copy(update={"rank_change": ranks[(r.bot, r.version)] - r.rank if (r.bot, r.version) in ranks
                             else None}) for r in shown.leaderboard]})


def view(site: Site, name: str, tag: str, at: int | None, since: str | None, retired: bool = False
         ) -> tuple[schemas.Ladder, str]:
    """The ladder as of ``at`` with its rank movement over ``since``, and its ETag (``tag``, and the game a
    time window starts after: it moves with the clock, not only with games)."""
    shown = as_of(site, name, tag, at, retired)
    then = window(site.ledger, name, shown.at, since)
    if then is None:
        return shown, tag
    return (site.caches["standings"].get(("moved", name, tag, shown.at, then, retired),
                                         lambda: moved(site.ledger, name, shown, then)),
            f"{tag}-since-{then}")


def paged(shown: schemas.Ladder, offset: int, limit: int | None) -> schemas.Ladder:
    """The page of ``shown``'s (ordered, searched) rows at ``offset``: ``limit`` of them (None: all)."""
    found = len(shown.leaderboard)
    end = found if limit is None else offset + limit
    return shown.model_copy(update={"leaderboard": shown.leaderboard[offset:end], "found": found, "offset": offset,
                                    "limit": limit, "next": end if end < found else None})


def head_to_head(site: Site, name: str, tag: str, best: int | None = None, offset: int = 0,
                 limit: int | None = None) -> schemas.HeadToHead:
    """Pairs of the ladder's bots (``best``: among its best-ranked only, a page's table; else the rows from
    ``offset``, ``limit`` of them, against every opponent): their score against each other over its rated games
    (voids left out), from its read models, reading only those rows, once per ETag."""
    def work() -> schemas.HeadToHead:
        # A page's table ranks the active bots; the API's names every bot that played, retired versions too.
        bots = list(dict.fromkeys(bot for bot, _version, _games in ranked(site, name, tag, retired=best is None)))
        return lists.head_to_head(site.ledger, ladder_rows.get(site.ledger, name)["id"], bots[:best], best is not None,
                                  offset, limit)

    return site.caches["standings"].get(("head-to-head", name, tag, best, offset, limit), work)


def games(site: Site, name: str, chosen: lists.Filter, offset: int, limit: int) -> schemas.Page[schemas.GameSummary]:
    """The ladder's games, newest first, filtered (a page chosen in the database)."""
    return lists.games_page(site.ledger, chosen.where(ladder_id=ladder_rows.get(site.ledger, name)["id"]), offset,
                            limit)


def bot_names(ledger: Ledger, name: str) -> list[str]:
    """Every bot that played on the ladder, or may (its entries' names): what its games' bot filter offers."""
    return sorted({entry["name"] for entry in ladder_rows.entries(ledger, ladder_rows.get(ledger, name)["id"],
                                                                  active_only=False)})


@api.get("", response_model=schemas.Page[schemas.LadderSummary], summary="Every ladder")
def list_ladders(ledger: LedgerDep, paging: PagingDep) -> schemas.Page[schemas.LadderSummary]:
    return schemas.Page[schemas.LadderSummary].cut(summaries(ledger), paging.offset, paging.limit)


@api.get("/{name}", response_model=schemas.Ladder, summary="A ladder and its leaderboard",
         responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def get_ladder(name: str, request: Request, response: Response, site: SiteDep, retired: bool = False,
               sort: Sort = None, order: Direction = None, q: Search = None, at: At = None, since: Since = None,
               offset: RowOffset = 0, limit: RowLimit = None, division: DivisionQuery = None):
    chosen = lists.Order.of(sort, order, COLUMNS)
    base = etag(site.ledger, name) + ("-all" if retired else "")
    shown, tag = view(site, name, base, at, since, retired)
    if (same := unchanged(request, tag)) is not None:
        return same
    response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "no-cache"
    return page_with_histories(site, name, base, paged(board(shown, chosen, q, division), offset, limit))


EXPORTED = ("rank", "rank_low", "rank_high", "tied", "bot", "owner", "version", "rating", "margin", "mu", "sigma",
            "score", "wins", "draws", "losses", "games", "forfeits", "last_played", "provisional", "status", "language",
            "description", "submitted_at")
"""The columns of a leaderboard's CSV export, in order: the API's row fields but its rating histories."""


@api.get("/{name}/leaderboard.csv", summary="A ladder's leaderboard as CSV (its JSON: GET /api/ladders/NAME)",
         responses={200: {"content": {"text/csv": {}}}})
def leaderboard_csv(name: str, site: SiteDep, retired: bool = False) -> Response:
    shown = cached(site, name, etag(site.ledger, name) + ("-all" if retired else ""), retired)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(EXPORTED)
    for row in shown.leaderboard:
        writer.writerow(["" if value is None else value for value in (getattr(row, key) for key in EXPORTED)])
    filename = f"{re.sub(r'[^A-Za-z0-9._-]', '_', shown.name)}-leaderboard.csv"
    return Response(out.getvalue(), media_type="text/csv; charset=utf-8",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


@api.get("/{name}/games", response_model=schemas.Page[schemas.GameSummary],
         summary="A ladder's games, newest first, filtered by bot, result and forfeit")
def ladder_games(name: str, site: SiteDep, paging: PagingDep, bot: BotQuery = None, result: ResultQuery = None,
                 forfeited: ForfeitQuery = None) -> schemas.Page[schemas.GameSummary]:
    return games(site, name, lists.Filter(bot or None, result, forfeited), paging.offset, paging.limit)


@api.get("/{name}/head-to-head", response_model=schemas.HeadToHead,
         summary="Pairs of a ladder's bots (a page of rows with offset and limit, each against every opponent): their "
                 "score against each other and how many games they met in")
def ladder_head_to_head(name: str, site: SiteDep, offset: RowOffset = 0, limit: H2hLimit = None
                        ) -> schemas.HeadToHead:
    return head_to_head(site, name, etag(site.ledger, name), None, offset, limit)


@api.get("/{name}/bots/{bot:path}/history", response_model=list[schemas.HistoryPoint],
         summary="A bot's rating after each of its games on a ladder (every version)")
def bot_history(name: str, bot: str, ledger: LedgerDep) -> list[schemas.HistoryPoint]:
    return [history_point(point) for point in league.history(ledger, name, bot)]




@pages.get("/ladders/{name}", response_class=HTMLResponse, summary="A ladder's page")
def ladder_page(name: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                q: Search = None, offset: LatestOffset = 0, at: At = None, since: Since = None, start: PageStart = 0,
                limit: PageLimit = PAGE_ROWS, division: DivisionQuery = None):
    tag = etag(site.ledger, name)
    listed = ranked(site, name, tag)
    rated = tuple((bot, version) for bot, version, games in listed if games)  # with a rating history, best first
    drawn = histories(site, name, tag, latest_number(site, name, tag), rated[:charts.SERIES])
    return render(request, "ladder.html", {
        **leaderboard_context(request, site, name, tag, sort, order, q, at, since, start, limit, division),
        "listed": len(listed),
        "series": [(bot, drawn[(bot, version)]) for bot, version in rated[:charts.SERIES]],
        "series_of": len(rated),
        "head_to_head": head_to_head(site, name, tag, MATRIX_BOTS),
        "games": games(site, name, lists.Filter(), offset, RECENT_GAMES)})


def leaderboard_context(request: Request, site: Site, name: str, tag: str, sort: str | None, order: str | None,
                        q: str | None, at: int | None, since: str | None, start: int, limit: int,
                        division: str | None = None) -> dict:
    """What a page's leaderboard (leaderboard.html) is drawn from: a page of its rows as of ``at``, with their
    movement (over the page's default window when none is chosen: an empty ``since`` is none), and every row
    in the same order (``whole``: the signed-in owner's bots, wherever they are, and the page each is on)."""
    chosen = lists.Order.of(sort, order, COLUMNS)
    window_ = PAGE_SINCE if since is None else since
    base = tag
    shown, tag = view(site, name, tag, at, window_)
    whole = board(shown, chosen, q, division)
    return {"ladder": page_with_histories(site, name, base, paged(whole, start, limit)), "whole": whole, "etag": tag,
            "order": chosen, "q": q or "",
            "division": division or "",
            "since": window_, "query": lambda **changes: query(request, **changes)}


@pages.get("/ladders/{name}/games", response_class=HTMLResponse, summary="A ladder's games (paged, filtered)")
def ladder_games_page(name: str, request: Request, site: SiteDep, paging: PagingDep, bot: BotQuery = None,
                      result: PageResult = None, forfeited: PageForfeit = None):
    chosen = lists.Filter.of(bot, result, forfeited)
    shown = ladder_rows.get(site.ledger, name)
    return render(request, "games.html", {
        "title": f"{shown['name']}: games", "back": ("ladder", shown["name"], f"/ladders/{name}"), "chosen": chosen,
        "bots": bot_names(site.ledger, name),
        "games": games(site, name, chosen, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/ladders/{name}/leaderboard", response_class=HTMLResponse, summary="A ladder's leaderboard (a fragment)",
           responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def leaderboard(name: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                q: Search = None, at: At = None, since: Since = None, start: PageStart = 0,
                limit: PageLimit = PAGE_ROWS, division: DivisionQuery = None):
    shown = leaderboard_context(request, site, name, etag(site.ledger, name), sort, order, q, at, since, start, limit,
                                division)
    if (same := unchanged(request, shown["etag"])) is not None:
        return same
    return render(request, "leaderboard.html", shown, headers={"ETag": shown["etag"], "Cache-Control": "no-cache"})
