"""Tournaments: the list (newest first), one tournament's standings (as `tourney standings` computes
them: Elo with its 95% interval, head-to-head, likelihood of superiority; sortable, searchable) and
its games (newest first, filtered). Pages link a tournament by its id: a name may hold any
character, "/" included."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from ledger import tournaments as tournament_rows
from ledger.store import Ledger
from tournaments.play import standings
from tournaments.play.results import GameResult
from web import lists, models
from web.deps import LedgerDep, PagingDep, Site, SiteDep
from web.pages import query, render
from web.routes.ladders import BotQuery, ForfeitQuery, PageForfeit, PageOrder, PageResult, ResultQuery, Search

api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])
pages = APIRouter(tags=["pages"])

COLUMNS = ("rank", "bot", "games", "first", "mean_place", "score", "elo", "forfeits")
PageSort = Annotated[Literal[("", *COLUMNS)] | None, Query(description="the column to sort by (rank by default)")]
RECENT_GAMES = 10


def summaries(ledger: Ledger) -> list[models.TournamentSummary]:
    """Every tournament, newest first."""
    return [models.TournamentSummary(id=row["id"], name=row["name"], kind=tournament_rows.kind(row), game=row["game"],
                                     bots=row["bots"], games=row["games"], created_at=row["created_at"])
            for row in reversed(tournament_rows.all_tournaments(ledger))]


def tournament(site: Site, ref: str) -> models.Tournament:
    row = tournament_rows.get(site.ledger, ref)
    summary = next(s for s in summaries(site.ledger) if s.id == row["id"])
    # Standings bootstrap their intervals: computed once per tournament and number of games stored.
    computed = site.caches["standings"].get(("tournament", row["id"], summary.games),
                                            lambda: standings.of_tournament(site.ledger, str(row["id"])).to_json())
    return models.Tournament(**summary.model_dump(), standings=computed["standings"], los=computed["los"],
                             head_to_head=computed["head_to_head"])


def results(site: Site, shown: models.TournamentSummary) -> list[GameResult]:
    """A tournament's games, newest first (latest stored first; games stored in the same second by key, the
    schedule's last first), read once per number of games stored."""
    def read() -> list[GameResult]:
        found = lists.of_games(site.ledger, tournament_rows.game_ids(site.ledger, shown.id))
        return sorted(found, key=lambda game: (game.created_at, game.key or ""), reverse=True)

    return site.caches["results"].get(("tournament", shown.id, shown.games), read)


def games(site: Site, ref: str, chosen: lists.Filter, offset: int, limit: int) -> models.Page[models.GameSummary]:
    """A tournament's games, newest first, filtered."""
    row = tournament_rows.get(site.ledger, ref)
    shown = next(s for s in summaries(site.ledger) if s.id == row["id"])
    return lists.games_page(results(site, shown), chosen, offset, limit)


def ranked(shown: models.Tournament, order: lists.Order, words: str | None) -> list[standings.Row]:
    found = lists.matching(shown.standings, words, lambda row: row.bot)
    return lists.ordered(found, order, getattr)


@api.get("", response_model=models.Page[models.TournamentSummary], summary="Every tournament, newest first")
def list_tournaments(ledger: LedgerDep, paging: PagingDep) -> models.Page[models.TournamentSummary]:
    return models.Page[models.TournamentSummary].cut(summaries(ledger), paging.offset, paging.limit)


@api.get("/{ref}", response_model=models.Tournament, summary="A tournament (by id or name) and its standings")
def get_tournament(ref: str, site: SiteDep) -> models.Tournament:
    return tournament(site, ref)


@api.get("/{ref}/games", response_model=models.Page[models.GameSummary],
         summary="A tournament's games, newest first, filtered by bot, result and forfeit")
def tournament_games(ref: str, site: SiteDep, paging: PagingDep, bot: BotQuery = None, result: ResultQuery = None,
                     forfeited: ForfeitQuery = None) -> models.Page[models.GameSummary]:
    return games(site, ref, lists.Filter(bot or None, result, forfeited), paging.offset, paging.limit)


@pages.get("/tournaments/{ref}", response_class=HTMLResponse, summary="A tournament's page")
def tournament_page(ref: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                    q: Search = None):
    shown = tournament(site, ref)
    chosen = lists.Order.of(sort, order, COLUMNS)
    return render(request, "tournament.html", {
        "tournament": shown, "rows": ranked(shown, chosen, q), "order": chosen, "q": q or "",
        "games": lists.games_page(results(site, shown), lists.Filter(), 0, RECENT_GAMES),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/tournaments/{ref}/games", response_class=HTMLResponse, summary="A tournament's games (paged, filtered)")
def tournament_games_page(ref: str, request: Request, site: SiteDep, paging: PagingDep, bot: BotQuery = None,
                          result: PageResult = None, forfeited: PageForfeit = None):
    shown = tournament(site, ref)
    chosen = lists.Filter.of(bot, result, forfeited)
    return render(request, "games.html", {
        "title": f"{shown.name}: games", "back": ("tournament", shown.name, f"/tournaments/{shown.id}"),
        "chosen": chosen, "bots": [row.bot for row in shown.standings],
        "games": games(site, ref, chosen, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})

