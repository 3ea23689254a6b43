"""Games: a game's page (the replay viewer of `tourney replay html`, embedded), its verification,
and its JSON log (spectator, or full once published; signed when the server has a key).

Anyone sees the spectator view. The full view (every hand) is offered only for a finished
game whose ladder publishes full logs (`tourney ladder publish`), or a tournament game when
the server shows tournaments in full (`tourney serve --tournament-logs full`).

An owner sees more of a finished ladder game their bots played (issue 40 items 1 and 2): each of
their bots' seats as a view of its own (``seat:N``, the seat-redacted log, which verifies as any
other), whatever the ladder publishes, and why their bot forfeited (its traceback or last stderr
lines, tournaments.ladder.owner_tokens). Nobody else is offered either: another owner's seat view
answers 403, as an unpublished full view does. Such answers are the owner's alone (never cached).
"""

from __future__ import annotations

import re
import urllib.parse
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response

from ledger.rows import ladder_rows, tournament_rows
from replays import archive, html, signing
from replays import log as logfmt
from replays.verify import verify_log
from tournaments.ladder import owner_tokens
from tournaments.play import results
from web import schemas, sign_in
from web.deps import MaybeOwnerDep, Site, SiteDep
from web.pages import render

api = APIRouter(prefix="/api/games", tags=["games"])
pages = APIRouter(tags=["pages"])

View = Annotated[str, Query(pattern=r"^(spectator|full|seat:[0-9]{1,2})$",
                             description="spectator (anyone), full (once published), or seat:N (the owner of the "
                                         "bot in seat N of a finished ladder game)")]
FRAME_ANCESTORS = "frame-ancestors 'self'"
_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')


def _row(site: Site, game_id: str) -> dict[str, Any]:
    row = site.ledger.game(game_id)
    if row is None:
        raise HTTPException(404, f"no game {game_id!r}")
    return row


def views(site: Site, row: dict[str, Any], ladder: dict[str, Any] | None, owner: dict[str, Any] | None = None
          ) -> list[str]:
    """The views ``owner`` (None: anyone) may see of a game: spectator always; full once it is over and
    published; and, once a ladder game is over, ``seat:N`` for each seat one of the owner's bots sat in."""
    if row["status"] != "finished":
        return ["spectator"]
    published = ladder["publish"] if ladder is not None else site.settings.tournament_logs
    shown = ["spectator", "full"] if published == "full" else ["spectator"]
    return shown + (_seats_of(site, row["id"], owner) if ladder is not None else [])


def _seats_of(site: Site, game_id: str, owner: dict[str, Any] | None) -> list[str]:
    """``seat:N`` for each seat of the game whose bot ``owner`` owns (tournament games have no owners)."""
    if owner is None:
        return []
    return [f"seat:{seat}" for seat in owner_tokens.seats_of_owner(site.ledger, owner, game_id)]


def full_log(site: Site, game_id: str) -> dict[str, Any]:
    return archive.export(site.ledger, game_id)


def verification(site: Site, row: dict[str, Any]) -> schemas.Verification:
    """The stored game re-verified as `tourney replay verify` does (cached per head hash)."""
    def check() -> schemas.Verification:
        try:
            report = verify_log(full_log(site, row["id"]), row["id"])
        except logfmt.LogError as error:
            return schemas.Verification(ok=False, detail=str(error))
        detail = (f"verified: hash chain, seed commitment, {report.decisions} decisions legal, "
                  f"{report.chance_steps} chance steps drawn from the seed, the result")
        return schemas.Verification(ok=True, detail=detail + "".join(f"; {note}" for note in report.unchecked))

    return site.caches["verified"].get(("verified", row["id"], row["head"]), check)


def game(site: Site, game_id: str, owner: dict[str, Any] | None = None) -> schemas.Game:
    row = _row(site, game_id)
    ladder = ladder_rows.ladder_of_game(site.ledger, game_id)
    tournament = tournament_rows.find(site.ledger, str(row["tournament_id"])) if row["tournament_id"] else None
    found = results.of_games(site.ledger, [game_id])
    summary = schemas.game_summary(found[0]) if found else None
    return schemas.Game(
        game_id=row["id"], game=row["game"], title=html.TITLES.get(row["game"], row["game"]),
        engine_version=row["engine_version"], status=row["status"], created_at=row["created_at"],
        end=row["end_reason"], head=row["head"], seats=summary.seats if summary else [],
        forfeit=summary.forfeit if summary else None, ladder=ladder["name"] if ladder else None,
        tournament=tournament["name"] if tournament else None,
        tournament_id=tournament["id"] if tournament else None, views=views(site, row, ladder, owner),
        signed=site.settings.signing_key is not None, verification=verification(site, row),
        diagnoses=[schemas.Diagnosis(**found) for found in owner_tokens.game_diagnoses(site.ledger, owner, game_id)])


def _allowed(site: Site, game_id: str, view: str, owner: dict[str, Any] | None) -> dict[str, Any]:
    row = _row(site, game_id)
    if view not in views(site, row, ladder_rows.ladder_of_game(site.ledger, game_id), owner):
        raise HTTPException(403, f"the {view} view of game {game_id} is not published")
    return row


@api.get("/{game_id}", response_model=schemas.Game, summary="A game: seats, result, verification, views offered")
def get_game(game_id: str, site: SiteDep, owner: MaybeOwnerDep) -> schemas.Game:
    return game(site, game_id, owner)


@api.get("/{game_id}/log", summary="A game's JSON log (docs/log-format.md), to download",
         responses={200: {"content": {"application/json": {}}}, 403: {"description": "view not published"}})
def game_log(game_id: str, site: SiteDep, owner: MaybeOwnerDep, view: View = "spectator",
             signed: Annotated[bool, Query(description="signed with the server's key")] = False) -> Response:
    _allowed(site, game_id, view, owner)
    log = full_log(site, game_id)
    if view != "full":
        log = logfmt.redact(log, view)
    if signed:
        if site.settings.signing_key is None:
            raise HTTPException(404, "this server signs no logs (it was started without --sign)")
        log = signing.sign(log, signing.load_private(site.settings.signing_key))
    name = f"{html.file_name(game_id)[:-len('.html')]}-{view}{'-signed' if signed else ''}.json"
    return Response(logfmt.dumps(log), media_type="application/json", headers={
        "Content-Disposition": f"attachment; filename=\"{name}\"; filename*=UTF-8''{urllib.parse.quote(name)}"})


NOT_PUBLISHED = {403: {"description": "that view of the game is not published"}}


@pages.get("/games/{game_id}", response_class=HTMLResponse, summary="A game's page", responses=NOT_PUBLISHED)
def game_page(game_id: str, request: Request, site: SiteDep, view: View = "spectator"):
    shown = game(site, game_id, sign_in.viewer(request))
    if view not in shown.views:
        raise HTTPException(403, f"the {view} view of game {game_id} is not published")
    return render(request, "game.html", {"game": shown, "view": view})


@pages.get("/games/{game_id}/replay", response_class=HTMLResponse, summary="A game's replay document (framed)",
           responses=NOT_PUBLISHED)
def replay(game_id: str, request: Request, site: SiteDep, view: View = "spectator"):
    """The self-contained replay page of `tourney replay html`, with its own policy: its inline script and
    style by hash, no request at all, framed only by this site."""
    row = _allowed(site, game_id, view, sign_in.viewer(request))

    def make() -> str:
        return html.document(html.page_data(full_log(site, game_id), view, game_id))

    try:
        document = site.caches["replay"].get(("replay", game_id, row["head"], view), make)
    except logfmt.LogError as error:
        raise HTTPException(409, f"game {game_id} cannot be replayed: {error}") from None
    return replay_response(document)


def replay_response(document: str) -> HTMLResponse:
    """A replay document served with its own policy (its inline script and style by hash), framed only here."""
    policy = _POLICY.search(document)
    headers = {"Content-Security-Policy": f"{policy.group(1)}; {FRAME_ANCESTORS}" if policy else "default-src 'none'",
               "X-Frame-Options": "SAMEORIGIN"}
    return HTMLResponse(document, headers=headers)


