"""Tournaments: the list (newest first), one tournament's standings (as `tourney standings` computes
them: Elo with its 95% interval, head-to-head, likelihood of superiority) and its games."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse

from ledger import tournaments as tournament_rows
from ledger.store import Ledger
from tournaments.play import standings
from web import models
from web.deps import LedgerDep, PagingDep, Site, SiteDep
from web.pages import query, render

api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])
pages = APIRouter(tags=["pages"])


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


def games(ledger: Ledger, ref: str, offset: int, limit: int) -> models.Page[models.GameSummary]:
    """A tournament's games, in schedule order."""
    return models.games_page(ledger, tournament_rows.game_ids(ledger, tournament_rows.get(ledger, ref)["id"]), offset,
                             limit)


@api.get("", response_model=models.Page[models.TournamentSummary], summary="Every tournament, newest first")
def list_tournaments(ledger: LedgerDep, paging: PagingDep) -> models.Page[models.TournamentSummary]:
    return models.Page[models.TournamentSummary].cut(summaries(ledger), paging.offset, paging.limit)


@api.get("/{ref}", response_model=models.Tournament, summary="A tournament (by id or name) and its standings")
def get_tournament(ref: str, site: SiteDep) -> models.Tournament:
    return tournament(site, ref)


@api.get("/{ref}/games", response_model=models.Page[models.GameSummary], summary="A tournament's games")
def tournament_games(ref: str, ledger: LedgerDep, paging: PagingDep) -> models.Page[models.GameSummary]:
    return games(ledger, ref, paging.offset, paging.limit)


@pages.get("/tournaments/{ref}", response_class=HTMLResponse, summary="A tournament's page")
def tournament_page(ref: str, request: Request, site: SiteDep, paging: PagingDep):
    shown = tournament(site, ref)
    return render(request, "tournament.html", {
        "tournament": shown, "games": games(site.ledger, ref, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})
