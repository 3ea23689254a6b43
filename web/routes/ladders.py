"""Ladders: the list, one ladder's leaderboard (sortable, searchable, with ETags for the page's live
refresh), its games (paged, newest first, filtered), its head-to-head table, a bot's rating history."""

from __future__ import annotations

import csv
import hashlib
import io
import re
from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse

from ledger import ladders as rows
from ledger import owners as owner_rows
from ledger import read_models
from ledger import submissions as queue
from ledger.store import Ledger
from tournaments.ladder import divisions, league
from web import lists, models
from web.deps import LedgerDep, PagingDep, Site, SiteDep
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
DivisionQuery = Annotated[str | None, Query(max_length=200, description="only the bots of this division (a ladder "
                                                                     "with divisions)")]
MATRIX_BOTS = 20
"""The best-ranked bots a page's head-to-head table shows (the API gives every pair): a page's size never grows
past them, however many bots play."""


def summaries(ledger: Ledger) -> list[models.LadderSummary]:
    return [models.LadderSummary(**{k: row[k] for k in models.LadderSummary.model_fields})
            for row in rows.all_ladders(ledger)]


def shown_rating(point: dict) -> float:
    """A stored rating as every page and answer calls "rating" (league.leaderboard_rating), to 0.1."""
    return round(league.leaderboard_rating(point), 1)


def history_point(point: dict) -> models.HistoryPoint:
    """A stored history point as the API gives it: ``rating`` as the leaderboard's, OpenSkill's mu as ``mu``."""
    sigma = point.get("sigma")
    return models.HistoryPoint(**{**point, "rating": shown_rating(point),
                                  "mu": None if sigma is None else round(point["rating"], 2),
                                  "sigma": None if sigma is None else round(sigma, 2)})


def etag(ledger: Ledger, name: str) -> str:
    """Changes whenever the leaderboard may: a game stored, a ladder event, a new entry, a submission decided."""
    ladder = rows.get(ledger, name)
    version = (*rows.version_of(ledger, ladder["id"]), queue.waiting(ledger, ladder["id"]))
    digest = hashlib.sha256(repr(version).encode()).hexdigest()[:20]
    return f'W/"ladder-{ladder["id"]}-{digest}"'


SPARKLINE = 50
"""The latest games of each bot a leaderboard row's history holds (its sparkline, and the page's chart): the
whole history is `/api/ladders/NAME/bots/BOT/history`; a page's size never grows with the ladder's."""


def ladder(ledger: Ledger, name: str, retired: bool = False) -> models.Ladder:
    """A ladder with its leaderboard: the CLI's standings, plus owner, last game and its latest rating history
    (all from the ladder's rows and read models: no game is read)."""
    row = rows.get(ledger, name)
    with ledger.read() as connection:
        read = read_models.ladder(connection, row["id"])
    records = read[0]
    standings = league.standings(ledger, name, retired, read)
    entries = {(e["name"], e["version"]): e for e in rows.entries(ledger, row["id"], active_only=not retired)}
    owned = owner_rows.owners_of(ledger, [s.name for s in standings])
    board = []
    with ledger.read() as connection:
        for standing in standings:
            entry = entries[(standing.name, standing.version)]
            points = read_models.ladder_history(connection, entry["id"], SPARKLINE)
            record = records.get(entry["id"], {})
            board.append(models.LeaderRow(
                **record_of(record, row["players"]),
                rank=standing.rank, bot=standing.name, owner=owned.get(standing.name), version=standing.version,
                rank_low=standing.rank_low, rank_high=standing.rank_high, tied=standing.tied,
                rating=round(standing.rating, 1), margin=round(standing.margin, 1), games=standing.games,
                forfeits=standing.forfeits, last_played=records.get(entry["id"], {}).get("last_played"),
                provisional=standing.provisional, mu=None if standing.mu is None else round(standing.mu, 2),
                sigma=None if standing.sigma is None else round(standing.sigma, 2),
                status=standing.status, division=standing.division, boss=standing.boss,
                history=[shown_rating(point) for point in points],
                history_games=[point["number"] for point in points]))
    summary = next(s for s in summaries(ledger) if s.name == row["name"])
    return models.Ladder(**summary.model_dump(), waiting=queue.waiting(ledger, row["id"]),
                         divisions=divisions.names_of(row), leaderboard=board)


def record_of(record: dict, players: int) -> dict:
    """An entry's rated games as a row shows them: wins, draws and losses (a game's result for the seat: the only
    first, a shared first, or not first) and its score, the percent of the points it could have had against
    each other seat (a better place 1, the same place 1/2): (2 W + D) / 2 G at two seats. None before a game."""
    wins, draws, losses = (record.get(key, 0) for key in ("wins", "draws", "losses"))
    games = wins + draws + losses
    score = round(100 * record.get("points2", 0) / (2 * games * (players - 1)), 1) if games else None
    return {"wins": wins, "draws": draws, "losses": losses, "score": score}


def cached(site: Site, name: str, tag: str, retired: bool = False) -> models.Ladder:
    """The ladder as of its ETag: computed once per change however many pages poll it."""
    return site.caches["standings"].get(("ladder", name, tag, retired), lambda: ladder(site.ledger, name, retired))


def _value(row: models.LeaderRow, column: str):
    return row.last_played if column == "last" else getattr(row, column)


def board(shown: models.Ladder, order: lists.Order, words: str | None, division: str | None = None) -> models.Ladder:
    """The ladder with its leaderboard in ``order``, only the rows ``words`` finds, of ``division`` if given (404 if
    the ladder has no such division; ranks stay the ladder's)."""
    found = lists.matching(shown.leaderboard, words, lambda row: row.bot, lambda row: row.owner)
    if division:
        if division not in shown.divisions:
            raise HTTPException(404, f"no division {division!r} on ladder {shown.name!r}" + (
                f" (its divisions: {', '.join(shown.divisions)})" if shown.divisions else " (it has no divisions)"))
        found = [row for row in found if row.division == division]
    return shown.model_copy(update={"leaderboard": lists.ordered(found, order, _value)})


def head_to_head(site: Site, name: str, tag: str, best: int | None = None) -> models.HeadToHead:
    """Every pair of the ladder's bots (``best``: of its best-ranked only, a page's table): their score against
    each other over its rated games (voids left out), from its read models, once per ETag."""
    def work() -> models.HeadToHead:
        # A page's table ranks the active bots; the API's names every bot that played, retired versions too.
        bots = list(dict.fromkeys(row.bot for row in cached(site, name, tag, retired=best is None).leaderboard))
        return lists.head_to_head(site.ledger, rows.get(site.ledger, name)["id"], bots[:best], best is not None)

    return site.caches["standings"].get(("head-to-head", name, tag, best), work)


def games(site: Site, name: str, chosen: lists.Filter, offset: int, limit: int) -> models.Page[models.GameSummary]:
    """The ladder's games, newest first, filtered (a page chosen in the database)."""
    return lists.games_page(site.ledger, chosen.where(ladder_id=rows.get(site.ledger, name)["id"]), offset, limit)


def bot_names(ledger: Ledger, name: str) -> list[str]:
    """Every bot that played on the ladder, or may (its entries' names): what its games' bot filter offers."""
    return sorted({entry["name"] for entry in rows.entries(ledger, rows.get(ledger, name)["id"], active_only=False)})


@api.get("", response_model=models.Page[models.LadderSummary], summary="Every ladder")
def list_ladders(ledger: LedgerDep, paging: PagingDep) -> models.Page[models.LadderSummary]:
    return models.Page[models.LadderSummary].cut(summaries(ledger), paging.offset, paging.limit)


@api.get("/{name}", response_model=models.Ladder, summary="A ladder and its leaderboard",
         responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def get_ladder(name: str, request: Request, response: Response, site: SiteDep, retired: bool = False,
               sort: Sort = None, order: Direction = None, q: Search = None, division: DivisionQuery = None):
    tag = etag(site.ledger, name) + ("-all" if retired else "")
    if (same := unchanged(request, tag)) is not None:
        return same
    response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "no-cache"
    return board(cached(site, name, tag, retired), lists.Order.of(sort, order, COLUMNS), q, division)


EXPORTED = ("rank", "rank_low", "rank_high", "tied", "bot", "owner", "version", "rating", "margin", "mu", "sigma",
            "score", "wins", "draws", "losses", "games", "forfeits", "last_played", "provisional", "status")
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


@api.get("/{name}/games", response_model=models.Page[models.GameSummary],
         summary="A ladder's games, newest first, filtered by bot, result and forfeit")
def ladder_games(name: str, site: SiteDep, paging: PagingDep, bot: BotQuery = None, result: ResultQuery = None,
                 forfeited: ForfeitQuery = None) -> models.Page[models.GameSummary]:
    return games(site, name, lists.Filter(bot or None, result, forfeited), paging.offset, paging.limit)


@api.get("/{name}/head-to-head", response_model=models.HeadToHead,
         summary="Every pair of a ladder's bots: their score against each other and how many games they met in")
def ladder_head_to_head(name: str, site: SiteDep) -> models.HeadToHead:
    return head_to_head(site, name, etag(site.ledger, name))


@api.get("/{name}/bots/{bot:path}/history", response_model=list[models.HistoryPoint],
         summary="A bot's rating after each of its games on a ladder (every version)")
def bot_history(name: str, bot: str, ledger: LedgerDep) -> list[models.HistoryPoint]:
    return [history_point(point) for point in league.history(ledger, name, bot)]




@pages.get("/ladders/{name}", response_class=HTMLResponse, summary="A ladder's page")
def ladder_page(name: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                q: Search = None, offset: LatestOffset = 0, division: DivisionQuery = None):
    tag = etag(site.ledger, name)
    chosen = lists.Order.of(sort, order, COLUMNS)
    shown = cached(site, name, tag)
    return render(request, "ladder.html", {
        "ladder": board(shown, chosen, q, division), "etag": tag, "division": division or "", "order": chosen,
        "q": q or "", "everyone": shown,
        "series": [(row.bot, list(zip(row.history_games, row.history, strict=True))) for row in shown.leaderboard],
        "head_to_head": head_to_head(site, name, tag, MATRIX_BOTS),
        "games": games(site, name, lists.Filter(), offset, RECENT_GAMES),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/ladders/{name}/games", response_class=HTMLResponse, summary="A ladder's games (paged, filtered)")
def ladder_games_page(name: str, request: Request, site: SiteDep, paging: PagingDep, bot: BotQuery = None,
                      result: PageResult = None, forfeited: PageForfeit = None):
    chosen = lists.Filter.of(bot, result, forfeited)
    shown = rows.get(site.ledger, name)
    return render(request, "games.html", {
        "title": f"{shown['name']}: games", "back": ("ladder", shown["name"], f"/ladders/{name}"), "chosen": chosen,
        "bots": bot_names(site.ledger, name),
        "games": games(site, name, chosen, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/ladders/{name}/leaderboard", response_class=HTMLResponse, summary="A ladder's leaderboard (a fragment)",
           responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def leaderboard(name: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                q: Search = None, division: DivisionQuery = None):
    tag = etag(site.ledger, name)
    if (same := unchanged(request, tag)) is not None:
        return same
    chosen = lists.Order.of(sort, order, COLUMNS)
    return render(request, "leaderboard.html", {"ladder": board(cached(site, name, tag), chosen, q, division),
                                                "order": chosen, "division": division or "",
                                                "q": q or "", "query": lambda **changes: query(request, **changes)},
                  headers={"ETag": tag, "Cache-Control": "no-cache"})
