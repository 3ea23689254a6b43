"""Tournaments: the list (newest first), one tournament's standings (as `tourney standings` computes
them: Elo with its 95% interval, head-to-head, likelihood of superiority; sortable, searchable) and
its games (newest first, filtered). Pages link a tournament by its id: a name may hold any
character, "/" included."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Request
from fastapi.responses import HTMLResponse

from ledger import read_pages
from ledger.canonical import loads
from ledger.rows import tournament_rows
from tournaments.play import plan_pages, standings
from tournaments.play.schedule import ScheduleError
from web import lists, schemas
from web.deps import MAX_PAGE, PagingDep, Site, SiteDep
from web.pages import query, render
from web.routes.ladders import (
    MATRIX_BOTS,
    BotQuery,
    ForfeitQuery,
    LatestOffset,
    PageForfeit,
    PageOrder,
    PageResult,
    ResultQuery,
    Search,
)

api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])
pages = APIRouter(tags=["pages"])

COLUMNS = ("rank", "bot", "games", "first", "mean_place", "score", "elo", "forfeits")
PageSort = Annotated[Literal[("", *COLUMNS)] | None, Query(description="the column to sort by (rank by default)")]
RECENT_GAMES = 10
TABLE_BOTS = MATRIX_BOTS
"""The rows (bots) of a tournament's LOS and head-to-head an API answer gives unless ``limit`` says otherwise: the
page's matrix, its best-ranked bots."""
TableOffset = Annotated[int, Query(ge=0, le=10**9, description="rows (bots, in rank order) of `los` and "
                                                               "`head_to_head` to skip")]
TableLimit = Annotated[int, Query(ge=1, le=MAX_PAGE, description="rows (bots) of `los` and `head_to_head` to give, "
                                                                 "each against every opponent")]


def summary_of(row: dict) -> schemas.TournamentSummary:
    return schemas.TournamentSummary(id=row["id"], name=row["name"], kind=tournament_rows.kind(row), game=row["game"],
                                    bots=row["bots"], games=row["games"], created_at=row["created_at"])


def summaries(site: Site, offset: int = 0, limit: int = 50) -> schemas.Page[schemas.TournamentSummary]:
    """One page of the tournaments, newest first (paged in the database), each with its progress."""
    found, total = tournament_rows.newest(site.ledger, offset, limit)
    return schemas.Page[schemas.TournamentSummary].of(
        [summary_of(row).model_copy(update={"progress": progress(site, row, row["games"])}) for row in found],
        total, offset, limit)


STALLED_AFTER = timedelta(minutes=10)
"""An unfinished tournament is shown running while its last game was stored (or, with none, it was created) this
recently, and interrupted after: the database holds no heartbeat of the process playing it, and a game ends within
minutes (a bot's time bank)."""


def _planned(row: dict, games: int, results: plan_pages.Results) -> tuple[int | None, bool]:
    """(the games a played tournament has when over, None if not known in advance; whether it is over), from its
    stored spec and its ``games`` stored. A drawn seed is stored as its commitment until the last game reveals it:
    a tournament whose seed is still hidden is not over (its count of games does not depend on the seed).

    The count is arithmetic (the format's ``counted``: a round robin of 120 bots plans 7,140 tables, too many to
    draw per view, issue 39): every game stored is one of those planned, so it is over when as many are stored.
    Only a format whose results decide its length (an SPRT match) draws its plan, walked from the stored
    ``results`` a page at a time (plan_pages.walk): it is over when the walk reaches the plan's end."""
    spec = loads(row["spec"])
    seed = tournament_rows.revealed(row)
    try:
        form, entrants = plan_pages.form_of(spec)
        total = form.counted(entrants)
        if total is None:
            return form.plan(entrants).total, seed is not None and plan_pages.walk(spec, seed, results).over
    except (ScheduleError, KeyError, ValueError, TypeError):
        return None, seed is not None and spec.get("seed_commitment") is not None
    return total, seed is not None and games >= total


def progress(site: Site, row: dict, games: int) -> schemas.Progress:
    """Where a tournament stands: finished, running, or interrupted (see STALLED_AFTER), with the games it stored
    of those it schedules. Whether it is over is computed once per number of games stored; the rest each time."""
    if tournament_rows.kind(row) == tournament_rows.IMPORTED:
        return schemas.Progress(state="imported", stored=games, scheduled=None, last_game_at=None)

    def results(keys: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
        with site.ledger.read() as connection:
            return read_pages.tournament_results_of(connection, row["id"], keys)

    def over() -> tuple[int | None, bool]:
        whole = row if "seed" in row else tournament_rows.get(site.ledger, str(row["id"]))  # a list's row: no seed
        return _planned(whole, games, results)

    scheduled, finished = site.caches["standings"].get(("progress", row["id"], games), over)
    with site.ledger.read() as connection:
        last = read_pages.tournament_last_game(connection, row["id"])
    if finished:
        state = "finished"
    else:
        since = datetime.fromisoformat(last or row["created_at"])
        since = since if since.tzinfo else since.replace(tzinfo=UTC)
        state = "running" if datetime.now(UTC) - since < STALLED_AFTER else "interrupted"
    return schemas.Progress(state=state, stored=games, scheduled=scheduled, last_game_at=last)


def tournament(site: Site, ref: str, offset: int = 0, limit: int = TABLE_BOTS) -> schemas.Tournament:
    """A tournament, its standings, and the LOS and head-to-head of the bots ranked ``offset`` to ``offset +
    limit`` against every opponent (only their pairs read: an answer's size never grows with the bots squared).
    The fit is the one the ledger keeps (ledger.read_fits); when a game was stored since and the server may not
    write, it is refitted once per number of games, from the last fit."""
    row = tournament_rows.get(site.ledger, ref)
    summary = summary_of(tournament_rows.summary(site.ledger, row["id"]))
    fits = site.caches["fits"]

    def fitted() -> dict:
        found = standings.of_tournament(site.ledger, str(row["id"]), start=fits.get(("fit", row["id"]), dict),
                                        vouched=False, rows=(offset, limit))
        fits.put(("fit", row["id"]), {r.bot: r.elo for r in found.rows})
        return found.to_json()

    computed = site.caches["standings"].get(("tournament", row["id"], summary.games, offset, limit), fitted)
    total = len(computed["standings"])
    return schemas.Tournament(**summary.model_dump(exclude={"progress"}), standings=computed["standings"],
                             los=computed["los"], head_to_head=computed["head_to_head"],
                             table_bots=[r["bot"] for r in computed["standings"][offset:offset + limit]],
                             table_offset=offset, table_total=total,
                             table_next=offset + limit if offset + limit < total else None,
                             progress=progress(site, row, summary.games))


def games(site: Site, ref: str, chosen: lists.Filter, offset: int, limit: int) -> schemas.Page[schemas.GameSummary]:
    """A tournament's games, newest (the last stored) first, filtered: a page chosen in the database."""
    row = tournament_rows.get(site.ledger, ref)
    return lists.games_page(site.ledger, chosen.where(tournament_id=row["id"]), offset, limit)


def ranked(shown: schemas.Tournament, order: lists.Order, words: str | None) -> list[standings.Row]:
    found = lists.matching(shown.standings, words, lambda row: row.bot)
    return lists.ordered(found, order, getattr)


@api.get("", response_model=schemas.Page[schemas.TournamentSummary], summary="Every tournament, newest first")
def list_tournaments(site: SiteDep, paging: PagingDep) -> schemas.Page[schemas.TournamentSummary]:
    return summaries(site, paging.offset, paging.limit)


@api.get("/{ref}", response_model=schemas.Tournament, summary="A tournament (by id or name) and its standings")
def get_tournament(ref: str, site: SiteDep, offset: TableOffset = 0, limit: TableLimit = TABLE_BOTS
                   ) -> schemas.Tournament:
    return tournament(site, ref, offset, limit)


@api.get("/{ref}/games", response_model=schemas.Page[schemas.GameSummary],
         summary="A tournament's games, newest first, filtered by bot, result and forfeit")
def tournament_games(ref: str, site: SiteDep, paging: PagingDep, bot: BotQuery = None, result: ResultQuery = None,
                     forfeited: ForfeitQuery = None) -> schemas.Page[schemas.GameSummary]:
    return games(site, ref, lists.Filter(bot or None, result, forfeited), paging.offset, paging.limit)


@pages.get("/tournaments/{ref}", response_class=HTMLResponse, summary="A tournament's page")
def tournament_page(ref: str, request: Request, site: SiteDep, sort: PageSort = None, order: PageOrder = None,
                    q: Search = None, offset: LatestOffset = 0):
    shown = tournament(site, ref)
    chosen = lists.Order.of(sort, order, COLUMNS)
    return render(request, "tournament.html", {
        "tournament": shown, "rows": ranked(shown, chosen, q), "order": chosen, "q": q or "",
        "matrix": [row.bot for row in shown.standings[:MATRIX_BOTS]],
        "games": games(site, str(shown.id), lists.Filter(), offset, RECENT_GAMES),
        "query": lambda **changes: query(request, **changes)})


@pages.get("/tournaments/{ref}/games", response_class=HTMLResponse, summary="A tournament's games (paged, filtered)")
def tournament_games_page(ref: str, request: Request, site: SiteDep, paging: PagingDep, bot: BotQuery = None,
                          result: PageResult = None, forfeited: PageForfeit = None):
    row = tournament_rows.get(site.ledger, ref)
    chosen = lists.Filter.of(bot, result, forfeited)
    return render(request, "games.html", {
        "title": f"{row['name']}: games", "back": ("tournament", row["name"], f"/tournaments/{row['id']}"),
        "chosen": chosen, "bots": sorted(tournament_rows.entrants(site.ledger, row["id"])),
        "games": games(site, ref, chosen, paging.offset, paging.limit),
        "query": lambda **changes: query(request, **changes)})

