"""Bots: a bot's versions (content hashes), its ladder entries and rating history (a chart per ladder:
each ladder rates on its own scale), its record by seat and by opponent with its latest losses, its
battles (its games, each with every seat's rating change, filtered by result, forfeit, opponent and seat), and,
for its owner only, what its processes wrote on stderr."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, HTTPException, Query, Request, Response
from fastapi.responses import HTMLResponse
from fastapi.routing import APIRoute
from starlette.routing import Match
from starlette.types import Scope

from ledger import read_pages
from ledger.rows import game_rows, ladder_rows, owner_rows
from ledger.store import Ledger
from web import lists, schemas, sign_in
from web.deps import LedgerDep, MaybeOwnerDep, OwnerDep, PagingDep, SiteDep
from web.pages import query, render
from web.routes.ladders import PageForfeit, PageResult, shown_rating


class _Named(APIRoute):
    """A route whose path ends in words after its bot's name (``/{name:path}/games``) takes a request only where those
    words were sent as written: ``/api/bots/x%2Fgames`` is the bot named "x/games", not x's games (the router
    decodes %2F before it matches, so the path as sent, ``raw_path``, decides)."""

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        match, child = super().matches(scope)
        tail = self.path_format.rsplit("}", 1)[-1].encode()
        raw = scope.get("raw_path")
        if match is not Match.NONE and tail and raw is not None and not raw.split(b"?", 1)[0].endswith(tail):
            return Match.NONE, {}
        return match, child


api = APIRouter(prefix="/api/bots", tags=["bots"], route_class=_Named)
pages = APIRouter(tags=["pages"])

Result = Annotated[Literal["win", "draw", "loss"] | None, Query(
    description="win: first alone; draw: first, shared; loss: any other place")]
Forfeited = Annotated[bool | None, Query(description="true: only games it forfeited; false: only games it did not")]
Opponent = Annotated[str | None, Query(max_length=200, description="only games where this bot sat in another seat")]
SeatQuery = Annotated[int | None, Query(ge=0, le=99, description="only games where it sat in this seat (0 first)")]
# The page's form sends an empty value for "any".
PageSeat = Annotated[str | None, Query(pattern=r"^[0-9]{0,2}$", description="a seat's number, or empty for any")]
PAGE_EXCERPTS = 10
"""The stderr excerpts the bot page shows its owner at a time (older ones a page further)."""
LOSSES = 5
"""The latest losses a bot's record links."""


def bot(ledger: Ledger, name: str, viewer: dict | None = None, mine: bool = False) -> schemas.Bot:
    """A bot as anyone may see it: one with a stored version (listed on a ladder, or played in a tournament). A name
    only claimed (its submissions pending or refused) is its owner's alone (``viewer``, or ``mine`` for a list of
    the owner's own): a 404 for anyone else, as for a name nobody holds, so that it and its owner stay private."""
    versions = game_rows.versions(ledger, name)
    owner = owner_rows.owners_of(ledger, [name]).get(name)
    if not versions and not (owner is not None and (mine or (viewer is not None and viewer["name"] == owner))):
        raise HTTPException(404, f"no bot {name!r}")
    entries = []
    for ladder in ladder_rows.all_ladders(ledger):
        for entry in ladder_rows.entries(ledger, ladder["id"], active_only=False):
            if entry["name"] == name:
                entries.append(schemas.Entry(ladder=ladder["name"], version=entry["version"],
                                            content_hash=entry["content_hash"], status=entry["status"],
                                            rating=shown_rating(entry), games=entry["games"],
                                            submitted_at=entry["submitted_at"], language=entry["language"],
                                            description=entry["description"],
                                            mu=None if entry["sigma"] is None else round(entry["rating"], 2),
                                            sigma=None if entry["sigma"] is None else round(entry["sigma"], 2)))
    return schemas.Bot(name=name, owner=owner, entries=entries,
                      versions=[schemas.Version(content_hash=v["content_hash"], kind=v["kind"],
                                               created_at=v["created_at"]) for v in versions])


CHART_GAMES = 200
"""The latest games of each version a bot page's chart draws per ladder (the whole history is
`/api/ladders/NAME/bots/BOT/history`): a page's size never grows with the ladder's."""


def histories(ledger: Ledger, name: str) -> list[tuple[dict, list[tuple[str, list[tuple[int, float]]]]]]:
    """Per ladder the bot is on (its row), the rating of each of the bot's versions after each of its latest
    games there, numbered by the ladder's game: one chart per ladder, as ladders rate on scales of their own
    (Elo near 1500, OpenSkill's mu - 3 sigma near 0). Entries are the bot's by name: another bot made from the
    same file has entries of its own."""
    out = []
    for ladder in ladder_rows.all_ladders(ledger):
        mine = sorted((e for e in ladder_rows.entries(ledger, ladder["id"], active_only=False) if e["name"] == name),
                      key=lambda entry: entry["version"])
        if not mine:
            continue
        with ledger.read() as connection:
            out.append((ladder, [(f"v{entry['version']}", [
                (point["number"], shown_rating(point))
                for point in read_pages.ladder_history(connection, entry["id"], CHART_GAMES)]) for entry in mine]))
    return out


def owns(ledger: Ledger, owner: dict | None, name: str) -> bool:
    return owner is not None and name in owner_rows.bots_of(ledger, owner["id"])


def excerpts(ledger: Ledger, name: str, offset: int, limit: int) -> schemas.Page[schemas.LogExcerpt]:
    """What the bot's processes wrote on stderr, newest game first: for its owner's eyes only."""
    found, total = game_rows.logs_of(ledger, name, limit, offset)
    return schemas.Page[schemas.LogExcerpt].of(
        [schemas.LogExcerpt(**{**row, "stderr": row["stderr"].decode("utf-8", "replace")}) for row in found],
        total, offset, limit)


@api.get("/{name:path}/games", response_model=schemas.Page[schemas.GameSummary],
         summary="A bot's games (its battles), newest first, filtered by result, forfeit, opponent and seat")
def bot_games(name: str, site: SiteDep, paging: PagingDep, result: Result = None, forfeited: Forfeited = None,
              opponent: Opponent = None, seat: SeatQuery = None) -> schemas.Page[schemas.GameSummary]:
    bot(site.ledger, name)
    chosen = lists.Filter(name, result, forfeited, opponent or None, seat)
    return lists.games_page(site.ledger, chosen.where(), paging.offset, paging.limit, chosen)


@api.get("/{name:path}/results", response_model=schemas.BotRecord,
         summary="A bot's record: by seat, by opponent, and its latest losses")
def bot_results(name: str, site: SiteDep) -> schemas.BotRecord:
    bot(site.ledger, name)
    return lists.record(site.ledger, name, LOSSES)


@api.get("/{name:path}/logs", response_model=schemas.Page[schemas.LogExcerpt],
         summary="What the bot's processes wrote on stderr, game by game (its owner only)",
         responses={401: {"description": "no valid token"}, 403: {"description": "not this bot's owner"}})
def bot_logs(name: str, owner: OwnerDep, ledger: LedgerDep, paging: PagingDep) -> schemas.Page[schemas.LogExcerpt]:
    if not owns(ledger, owner, name):
        raise HTTPException(403, f"only the owner of {name!r} may read its logs")
    return excerpts(ledger, name, paging.offset, paging.limit)


# Registered after its sub-resources, which a name's "/" (its %2F decoded) would otherwise reach as the bot's.
@api.get("/{name:path}", response_model=schemas.Bot, summary="A bot: its versions and ladder entries")
def get_bot(name: str, ledger: LedgerDep, owner: MaybeOwnerDep, response: Response) -> schemas.Bot:
    # Its owner's token may find a name not listed yet (a 404 for everyone else): the answer varies by it.
    response.headers["Vary"] = "Authorization"
    return bot(ledger, name, owner)


@pages.get("/bots/{name:path}", response_class=HTMLResponse, summary="A bot's page")
def bot_page(name: str, request: Request, site: SiteDep, paging: PagingDep, owner: MaybeOwnerDep,
             viewer: sign_in.ViewerDep, result: PageResult = None, forfeited: PageForfeit = None,
             opponent: Opponent = None, seat: PageSeat = None,
             logs: Annotated[int, Query(ge=0, le=10**9, description="how many stderr excerpts to skip")] = 0):
    chosen = lists.Filter.of(name, result, forfeited, opponent, seat)
    # The owner (signed in, or asking with their token) sees its stderr, and the name before it is listed: the
    # answer is then theirs alone (marked private, no-store), and every bot page varies by those.
    reader = owner or viewer
    shown = bot(site.ledger, name, reader)
    return render(request, "bot.html", {
        "bot": shown, "charts": histories(site.ledger, name), "chosen": chosen,
        "record": lists.record(site.ledger, name, LOSSES),
        "games": lists.games_page(site.ledger, chosen.where(), paging.offset, paging.limit, chosen),
        "logs": excerpts(site.ledger, name, logs, PAGE_EXCERPTS) if owns(site.ledger, reader, name) else None,
        "query": lambda **changes: query(request, **changes)},
        headers={"Vary": "Authorization, Cookie"})
