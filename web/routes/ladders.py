"""Ladders: the list, one ladder's leaderboard (with ETags, for the page's live refresh), its games,
a bot's rating history on it."""

from __future__ import annotations

import hashlib

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from ledger import ladders as rows
from ledger import owners as owner_rows
from ledger import submissions as queue
from ledger.store import Ledger
from tournaments.ladder import league
from web import models
from web.deps import LedgerDep, PagingDep, Site, SiteDep
from web.pages import query, render, unchanged

api = APIRouter(prefix="/api/ladders", tags=["ladders"])
pages = APIRouter(tags=["pages"])


def summaries(ledger: Ledger) -> list[models.LadderSummary]:
    return [models.LadderSummary(**{k: row[k] for k in models.LadderSummary.model_fields})
            for row in rows.all_ladders(ledger)]


def shown_rating(point: dict) -> float:
    """A history point as the leaderboard ranks: Elo, or OpenSkill's mu - 3 sigma."""
    return round(point["rating"] - 3 * point["sigma"] if point.get("sigma") is not None else point["rating"], 1)


def etag(ledger: Ledger, name: str) -> str:
    """Changes whenever the leaderboard may: a game stored, a ladder event, a new entry, a submission decided."""
    ladder = rows.get(ledger, name)
    version = (*rows.version_of(ledger, ladder["id"]), queue.waiting(ledger, ladder["id"]))
    digest = hashlib.sha256(repr(version).encode()).hexdigest()[:20]
    return f'W/"ladder-{ladder["id"]}-{digest}"'


def ladder(ledger: Ledger, name: str, retired: bool = False) -> models.Ladder:
    """A ladder with its leaderboard: the CLI's standings, plus owner, last game and rating history."""
    row = rows.get(ledger, name)
    standings = league.standings(ledger, name, retired)
    entries = {(e["name"], e["version"]): e for e in rows.entries(ledger, row["id"], active_only=not retired)}
    last = rows.last_played(ledger, row["id"])
    owned = owner_rows.owners_of(ledger, [s.name for s in standings])
    board = []
    for standing in standings:
        entry = entries[(standing.name, standing.version)]
        points = rows.history(ledger, entry["id"])
        board.append(models.LeaderRow(
            rank=standing.rank, bot=standing.name, owner=owned.get(standing.name), version=standing.version,
            rating=round(standing.rating, 1), margin=round(standing.margin, 1), games=standing.games,
            forfeits=standing.forfeits, last_played=last.get(entry["id"]), provisional=standing.provisional,
            mu=None if standing.mu is None else round(standing.mu, 2),
            sigma=None if standing.sigma is None else round(standing.sigma, 2),
            status=standing.status, history=[shown_rating(point) for point in points],
            history_games=[point["seq"] for point in points]))
    summary = next(s for s in summaries(ledger) if s.name == row["name"])
    return models.Ladder(**summary.model_dump(), waiting=queue.waiting(ledger, row["id"]), leaderboard=board)


def cached(site: Site, name: str, tag: str, retired: bool = False) -> models.Ladder:
    """The ladder as of its ETag: computed once per change however many pages poll it."""
    return site.caches["standings"].get(("ladder", name, tag, retired), lambda: ladder(site.ledger, name, retired))


def games(ledger: Ledger, name: str, offset: int, limit: int) -> models.Page[models.GameSummary]:
    """The ladder's games, newest first."""
    return models.games_page(ledger, rows.game_ids(ledger, rows.get(ledger, name)["id"])[::-1], offset, limit)


@api.get("", response_model=models.Page[models.LadderSummary], summary="Every ladder")
def list_ladders(ledger: LedgerDep, paging: PagingDep) -> models.Page[models.LadderSummary]:
    return models.Page[models.LadderSummary].cut(summaries(ledger), paging.offset, paging.limit)


@api.get("/{name}", response_model=models.Ladder, summary="A ladder and its leaderboard",
         responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def get_ladder(name: str, request: Request, response: Response, site: SiteDep, retired: bool = False):
    tag = etag(site.ledger, name) + ("-all" if retired else "")
    if (same := unchanged(request, tag)) is not None:
        return same
    response.headers["ETag"] = tag
    response.headers["Cache-Control"] = "no-cache"
    return cached(site, name, tag, retired)


@api.get("/{name}/games", response_model=models.Page[models.GameSummary], summary="A ladder's games, newest first")
def ladder_games(name: str, ledger: LedgerDep, paging: PagingDep) -> models.Page[models.GameSummary]:
    return games(ledger, name, paging.offset, paging.limit)


@api.get("/{name}/bots/{bot}/history", response_model=list[models.HistoryPoint],
         summary="A bot's rating after each of its games on a ladder (every version)")
def bot_history(name: str, bot: str, ledger: LedgerDep) -> list[models.HistoryPoint]:
    return [models.HistoryPoint(**point) for point in league.history(ledger, name, bot)]


@pages.get("/ladders/{name}", response_class=HTMLResponse, summary="A ladder's page")
def ladder_page(name: str, request: Request, site: SiteDep, paging: PagingDep):
    ledger = site.ledger
    tag = etag(ledger, name)
    shown = cached(site, name, tag)
    return render(request, "ladder.html", {
        "ladder": shown, "etag": tag,
        "series": [(row.bot, list(zip(row.history_games, row.history, strict=True))) for row in shown.leaderboard],
        "games": games(ledger, name, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/ladders/{name}/leaderboard", response_class=HTMLResponse, summary="A ladder's leaderboard (a fragment)",
           responses={304: {"description": "unchanged since the ETag sent in If-None-Match"}})
def leaderboard(name: str, request: Request, site: SiteDep):
    tag = etag(site.ledger, name)
    if (same := unchanged(request, tag)) is not None:
        return same
    return render(request, "leaderboard.html", {"ladder": cached(site, name, tag)},
                  headers={"ETag": tag, "Cache-Control": "no-cache"})
