"""Bots: a bot's versions (content hashes), its ladder entries and rating history, its games
(filtered by result and forfeit), and, for its owner only, what its processes wrote on stderr."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse

from ledger import games as game_rows
from ledger import ladders as ladder_rows
from ledger import owners as owner_rows
from ledger.store import Ledger
from replays.record import SEAT_FORFEITED
from tournaments.play import results
from web import models
from web.deps import LedgerDep, MaybeOwnerDep, OwnerDep, PagingDep
from web.pages import query, render
from web.routes.ladders import shown_rating

api = APIRouter(prefix="/api/bots", tags=["bots"])
pages = APIRouter(tags=["pages"])

Result = Annotated[Literal["win", "draw", "loss"] | None, Query(
    description="win: first alone; draw: first, shared; loss: any other place")]
Forfeited = Annotated[bool | None, Query(description="true: only games it forfeited; false: only games it did not")]
PAGE_EXCERPTS = 10
"""The newest stderr excerpts the bot page shows its owner (the API pages through all of them)."""



def bot(ledger: Ledger, name: str) -> models.Bot:
    versions = game_rows.versions(ledger, name)
    owner = owner_rows.owners_of(ledger, [name]).get(name)
    if not versions and owner is None:
        raise HTTPException(404, f"no bot {name!r}")
    entries = []
    for ladder in ladder_rows.all_ladders(ledger):
        for entry in ladder_rows.entries(ledger, ladder["id"], active_only=False):
            if entry["name"] == name:
                entries.append(models.Entry(ladder=ladder["name"], version=entry["version"],
                                            content_hash=entry["content_hash"], status=entry["status"],
                                            rating=round(entry["rating"], 1), games=entry["games"],
                                            submitted_at=entry["submitted_at"]))
    return models.Bot(name=name, owner=owner, entries=entries,
                      versions=[models.Version(content_hash=v["content_hash"], kind=v["kind"],
                                               created_at=v["created_at"]) for v in versions])


def histories(ledger: Ledger, entries: list[models.Entry]) -> list[tuple[str, list[tuple[int, float]]]]:
    """Per ladder entry (ladder and version), its rating after each game: the bot page's chart."""
    out = []
    for ladder in sorted({entry.ladder for entry in entries}):
        row = ladder_rows.get(ledger, ladder)
        for entry in ladder_rows.entries(ledger, row["id"], active_only=False):
            if any(e.ladder == ladder and e.version == entry["version"] and e.content_hash == entry["content_hash"]
                   for e in entries):
                points = ladder_rows.history(ledger, entry["id"])
                out.append((f"{ladder} v{entry['version']}",
                            [(number, shown_rating(p)) for number, p in enumerate(points, start=1)]))
    return out


def games(ledger: Ledger, name: str, result: str | None, forfeited: bool | None, offset: int,
          limit: int) -> models.Page[models.GameSummary]:
    """The bot's games, newest first, filtered."""
    played = game_rows.of_bot(ledger, name)
    if result is not None:
        played = [g for g in played if _result(g) == result]
    if forfeited is not None:
        forfeits = results.forfeits_of(game_rows.event_bodies_of_bot(ledger, name, SEAT_FORFEITED))
        played = [g for g in played
                  if (g["game_id"] in forfeits and forfeits[g["game_id"]].seat == g["seat"]) == forfeited]
    return models.games_page(ledger, [g["game_id"] for g in played], offset, limit)


def _result(game: dict) -> str:
    if game["rank"] != 1:
        return "loss"
    return "win" if game["firsts"] == 1 else "draw"


@api.get("/{name}", response_model=models.Bot, summary="A bot: its versions and ladder entries")
def get_bot(name: str, ledger: LedgerDep) -> models.Bot:
    return bot(ledger, name)


@api.get("/{name}/games", response_model=models.Page[models.GameSummary], summary="A bot's games, newest first")
def bot_games(name: str, ledger: LedgerDep, paging: PagingDep, result: Result = None,
              forfeited: Forfeited = None) -> models.Page[models.GameSummary]:
    bot(ledger, name)
    return games(ledger, name, result, forfeited, paging.offset, paging.limit)


@api.get("/{name}/logs", response_model=models.Page[models.LogExcerpt],
         summary="What the bot's processes wrote on stderr, game by game (its owner only)",
         responses={401: {"description": "no valid token"}, 403: {"description": "not this bot's owner"}})
def bot_logs(name: str, owner: OwnerDep, ledger: LedgerDep, paging: PagingDep) -> models.Page[models.LogExcerpt]:
    if not owns(ledger, owner, name):
        raise HTTPException(403, f"only the owner of {name!r} may read its logs")
    return excerpts(ledger, name, paging.offset, paging.limit)


def owns(ledger: Ledger, owner: dict | None, name: str) -> bool:
    return owner is not None and name in owner_rows.bots_of(ledger, owner["id"])


def excerpts(ledger: Ledger, name: str, offset: int, limit: int) -> models.Page[models.LogExcerpt]:
    """What the bot's processes wrote on stderr, newest game first: for its owner's eyes only."""
    found, total = game_rows.logs_of(ledger, name, limit, offset)
    return models.Page[models.LogExcerpt].of(
        [models.LogExcerpt(**{**row, "stderr": row["stderr"].decode("utf-8", "replace")}) for row in found],
        total, offset, limit)


@pages.get("/bots/{name}", response_class=HTMLResponse, summary="A bot's page")
def bot_page(name: str, request: Request, ledger: LedgerDep, paging: PagingDep, owner: MaybeOwnerDep,
             result: Annotated[str | None, Query(description="win, draw, loss, or empty for any")] = None,
             forfeited: Annotated[str | None, Query(description="true, false, or empty for any")] = None):
    # The page's filter form sends an empty value for "any".
    result = result or None
    if result not in (None, "win", "draw", "loss"):
        raise HTTPException(422, f"result is win, draw or loss, not {result!r}")
    if forfeited not in (None, "", "true", "false"):
        raise HTTPException(422, f"forfeited is true or false, not {forfeited!r}")
    forfeited = None if not forfeited else forfeited == "true"
    shown = bot(ledger, name)
    # Shown to the owner only, who asks with their token: the page then varies by that header, and
    # no cache (the browser's, a proxy's) may keep it or hand it to anyone else.
    logs = excerpts(ledger, name, 0, PAGE_EXCERPTS) if owns(ledger, owner, name) else None
    return render(request, "bot.html", {
        "bot": shown, "chart_series": histories(ledger, shown.entries), "result": result, "forfeited": forfeited,
        "games": games(ledger, name, result, forfeited, paging.offset, paging.limit), "logs": logs,
        "query": lambda **changes: query(request, **changes)},
        headers={"Vary": "Authorization",
                 **({"Cache-Control": "private, no-store"} if "authorization" in request.headers else {})})
