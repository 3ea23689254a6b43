"""Owners' profiles (issue 41 item 4): an owner's listed bots, the rank and rating of each on every ladder it is
active on (the leaderboard's own rows), and their bots' games, newest first, each with every seat's rating change.

An owner is public once a name of theirs is listed on a ladder (it has a ladder entry, active or retired): names
only claimed (submissions pending or refused) stay private, so an owner with nothing listed answers 404, as a
name nobody holds, to everyone but themselves (their token, or signed in)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request, Response
from fastapi.responses import HTMLResponse

from ledger.rows import ladder_rows, owner_rows
from web import lists, schemas, sign_in
from web.deps import MaybeOwnerDep, PagingDep, Site, SiteDep
from web.pages import query, render
from web.routes.ladders import cached, etag

api = APIRouter(prefix="/api/owners", tags=["owners"])
pages = APIRouter(tags=["pages"])

OwnerName = Annotated[str, Path(max_length=200, description="the owner's name")]


def profile(site: Site, name: str, offset: int, limit: int, viewer: dict[str, Any] | None = None
            ) -> schemas.OwnerProfile:
    """The owner ``name`` as anyone sees them (404 for a name no owner holds, or one with nothing listed yet,
    unless ``viewer`` is that owner)."""
    owner = next((row for row in owner_rows.all_owners(site.ledger) if row["name"] == name), None)
    if owner is None:
        raise HTTPException(404, f"no owner {name!r}")
    owned = set(owner["bots"])
    listed: set[str] = set()
    ladders = []
    for ladder in ladder_rows.all_ladders(site.ledger):
        listed |= {entry["name"] for entry in ladder_rows.entries(site.ledger, ladder["id"], active_only=False)
                   if entry["name"] in owned}
        board = cached(site, ladder["name"], etag(site.ledger, ladder["name"])).leaderboard
        mine = [schemas.OwnerEntry(bot=row.bot, version=row.version, rank=row.rank, rating=row.rating, games=row.games,
                                  provisional=row.provisional) for row in board if row.owner == name]
        if mine:
            ladders.append(schemas.OwnerLadder(ladder=ladder["name"], game=ladder["game"], bots=mine))
    if not listed and not (viewer is not None and viewer["name"] == name):
        raise HTTPException(404, f"no owner {name!r}")
    return schemas.OwnerProfile(name=name, created_at=owner["created_at"],
                               bots=sorted({entry.bot for ladder in ladders for entry in ladder.bots}),
                               ladders=ladders, results=lists.owner_games(site.ledger, sorted(listed), offset, limit))


@api.get("/{name}", response_model=schemas.OwnerProfile,
         summary="An owner: their listed bots, each one's rank and rating per ladder, their bots' games (paged)")
def get_owner(name: OwnerName, site: SiteDep, paging: PagingDep, owner: MaybeOwnerDep,
              response: Response) -> schemas.OwnerProfile:
    response.headers["Vary"] = "Authorization"
    return profile(site, name, paging.offset, paging.limit, owner)


@pages.get("/owners/{name}", response_class=HTMLResponse, summary="An owner's page")
def owner_page(name: OwnerName, request: Request, site: SiteDep, paging: PagingDep, owner: MaybeOwnerDep,
               viewer: sign_in.ViewerDep):
    shown = profile(site, name, paging.offset, paging.limit, owner or viewer)
    return render(request, "owner.html", {"owner": shown, "games": shown.results,
                                          "query": lambda **changes: query(request, **changes)},
                  headers={"Vary": "Authorization, Cookie"})
