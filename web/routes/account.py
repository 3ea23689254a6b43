"""Owners in the browser: sign in with the API token, sign out, and on their account page submit a bot
(an upload form), follow their submissions and their validation, and retire a bot; their bots' pages
show them their stderr (web/routes/bots.py).

A submission's page and the account page keep themselves current (docs/web.md, "Live updates"): each has a
fragment route, the owner's alone as its page is, that web/static/live.js polls with the ETag of what it
shows (304 while nothing changed).

Every form here POSTs and carries a CSRF token that is checked before anything else (web/sign_in.py);
a read-only server refuses all of it (403). Each POST answers 303 to the page that shows its outcome,
or draws its form again with the reason it was refused, at the status the API gives the same refusal.
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any

import orjson
from fastapi import APIRouter, File, Form, HTTPException, Query, Request, UploadFile
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ledger.rows import ladder_rows, owner_rows, submission_rows
from replays import html
from replays import log as logfmt
from tournaments.ladder import owner_tokens
from web import schemas
from web import sign_in as sessions
from web.deps import Paging, PagingDep, Site, SiteDep, SubmissionId, ValidationNumber
from web.pages import query, render, unchanged
from web.routes import bots, ladders
from web.routes.games import replay_response
from web.routes.submissions import (
    NOT_EMPTY,
    Described,
    accept,
    own_bot,
    owned_submission,
    retire_bot,
    shown,
    validation_log,
)

pages = APIRouter(tags=["account"])

Csrf = Annotated[str | None, Form(max_length=200, description="the CSRF token of the page the form is on")]
SignedIn = {"x-signed-in": True}
"""Marks an operation that reads the session cookie (web/openapi.py documents its 401 and 429)."""
SEE_OTHER = {303: {"description": "done: the page in Location shows the outcome"}}
NOT_MODIFIED = {304: {"description": "unchanged since the ETag sent in If-None-Match"}}


@pages.get("/sign-in", response_class=HTMLResponse, summary="The sign-in form (with an API token)",
           responses={403: {"description": "a read-only server: nobody signs in"}})
def sign_in_page(request: Request):
    sessions.writable(request)
    return _sign_in_form(request, 200, None)


def _sign_in_form(request: Request, status: int, error: str | None, headers: dict[str, str] | None = None) -> Response:
    value = sessions.sign_in_value(request)
    page = render(request, "sign_in.html", {"sign_in_csrf": value, "error": error}, status=status, headers=headers)
    sessions.remember_sign_in(request, page, value)
    return page


@pages.post("/sign-in", response_class=HTMLResponse, summary="Sign in: the API token, once, for a session cookie",
            responses={**SEE_OTHER, 401: {"description": "not a valid token: the form again, saying so"},
                       403: {"description": "read-only server, a form from another site, or no CSRF token"},
                       429: {"description": "too many wrong tokens from here: the form again, saying how long to "
                                            "wait"}})
def sign_in(request: Request, token: Annotated[str, Form(min_length=1, max_length=300, description="your API token")],
            csrf: Csrf = None):
    done = RedirectResponse("/account", status_code=303)
    try:
        sessions.sign_in(request, done, token, csrf)
    except HTTPException as error:
        if error.status_code not in (401, 429):
            raise
        return _sign_in_form(request, error.status_code, str(error.detail), error.headers)
    return done


SIGNING_OUT = {"response_class": HTMLResponse, "openapi_extra": SignedIn, "responses": {
    **SEE_OTHER, 403: {"description": "read-only server, or a form without its CSRF token"}}}


@pages.post("/sign-out", summary="Sign out: the session ends, its cookie is cleared", **SIGNING_OUT)
def sign_out(request: Request, csrf: Csrf = None):
    done = RedirectResponse("/", status_code=303)
    sessions.sign_out(request, done, csrf)
    return done


@pages.post("/sign-out-everywhere", summary="Sign out everywhere: every session of yours ends, in every browser",
            **SIGNING_OUT)
def sign_out_everywhere(request: Request, csrf: Csrf = None):
    done = RedirectResponse("/", status_code=303)
    sessions.sign_out_everywhere(request, done, csrf)
    return done


def tag_of(kind: str, owner: dict[str, Any], shown: dict[str, Any]) -> str:
    """The ETag of what a live fragment shows the owner: a digest of its data (models and rows), so it changes
    exactly when the fragment would (a validation ended, a game of theirs stored), and never matches another
    owner's."""
    data = orjson.dumps(shown, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS,
                        default=lambda value: value.model_dump(mode="json"))
    return f'W/"{kind}-{owner["id"]}-{hashlib.sha256(data).hexdigest()[:20]}"'


def _fragment(request: Request, template: str, tag: str, context: dict[str, Any]) -> Response:
    """A live fragment: 304 if the client already has ``tag`` (If-None-Match), else drawn with it as its ETag
    (private, no-store, as every answer drawn for a signed-in owner: web/security.py)."""
    if (same := unchanged(request, tag)) is not None:
        return same
    return render(request, template, context, headers={"ETag": tag})


def _lists(site: Site, owner: dict[str, Any], paging: Paging) -> dict[str, Any]:
    """What the account page's live part shows: the owner's bots (each entry's status, rating and games) and one
    page of their submissions."""
    found, total = submission_rows.of_owner(site.ledger, owner["id"], paging.limit, paging.offset)
    return {
        "bots": [bots.bot(site.ledger, name, mine=True) for name in owner_rows.bots_of(site.ledger, owner["id"])],
        "submissions": schemas.Page[schemas.Submission].of([shown(row) for row in found], total, paging.offset,
                                                         paging.limit)}


def _account(request: Request, site: Site, owner: dict[str, Any], paging: Paging,
             refused: HTTPException | None = None) -> Response:
    """The account page; with ``refused``, at its status and saying why (the form's refusal: its CSRF token
    was good, so the page may be drawn for the owner)."""
    lists = _lists(site, owner, paging)
    return render(request, "account.html", {
        "owner": owner, "error": None if refused is None else str(refused.detail),
        "ladders": ladders.summaries(site.ledger), **lists, "etag": tag_of("account", owner, lists),
        "query": lambda **changes: query(request, **changes)},
        status=200 if refused is None else refused.status_code, headers=None if refused is None else refused.headers)


@pages.get("/account", response_class=HTMLResponse, summary="Your account: submit a bot, your bots, your submissions",
           responses={**SEE_OTHER, 403: {"description": "a read-only server"}}, openapi_extra=SignedIn)
def account(request: Request, site: SiteDep, paging: PagingDep):
    sessions.writable(request)
    owner = sessions.viewer(request)
    if owner is None:
        return RedirectResponse("/sign-in", status_code=303)
    return _account(request, site, owner, paging)


@pages.get("/account/lists", response_class=HTMLResponse, openapi_extra=SignedIn,
           summary="Your bots and submissions as the account page lists them (a fragment its script polls)",
           responses={**NOT_MODIFIED, 403: {"description": "a read-only server"}})
def account_lists(request: Request, site: SiteDep, paging: PagingDep):
    owner = sessions.signed_in(request)
    lists = _lists(site, owner, paging)
    return _fragment(request, "account_lists.html", tag_of("account", owner, lists),
                     {**lists, "query": lambda **changes: query(request, **changes)})


@pages.post("/account/submissions", response_class=HTMLResponse, summary="Submit a bot from the account page",
            responses={**SEE_OTHER, 403: {"description": "read-only server, a form without its CSRF token, or the "
                                                         "name is another's"}}, openapi_extra=SignedIn)
async def submit(request: Request, site: SiteDep, paging: PagingDep,
                 ladder: Annotated[str, Form(min_length=1, max_length=200, description="the ladder to submit to")],
                 file: Annotated[UploadFile, File(description="the bot: a .py file, a program starting with #!, "
                                                              "an ELF executable, or a zip",
                                                  json_schema_extra=NOT_EMPTY)],
                 bot: Annotated[str | None, Form(max_length=200, description="its name (default: the file's)")] = None,
                 entry: Annotated[str | None, Form(max_length=200, description="in a zip, the file to start")] = None,
                 description: Described = None, csrf: Csrf = None):
    owner = sessions.changing(request, csrf)
    try:
        row = await accept(site, owner, ladder, file, bot, entry, description)
    except HTTPException as error:
        return _account(request, site, owner, paging, error)
    return RedirectResponse(f"/account/submissions/{row['id']}", status_code=303)


def _state(site: Site, owner: dict[str, Any], submission_id: int) -> dict[str, Any]:
    """What a submission's page shows of it (404 if it is not the owner's): its row, what its bot left behind, its
    validation games."""
    return {"submission": shown(owned_submission(site.ledger, owner, submission_id)),
            "diagnosis": owner_tokens.submission_diagnosis(site.ledger, owner, submission_id),
            "games": submission_rows.validation_games(site.ledger, submission_id, owner["id"])}


@pages.get("/account/submissions/{submission_id}", response_class=HTMLResponse,
           summary="One of your submissions: its validation, and why it was refused", openapi_extra=SignedIn,
           responses={403: {"description": "a read-only server"}})
def submission(submission_id: SubmissionId, request: Request, site: SiteDep):
    owner = sessions.signed_in(request)
    state = _state(site, owner, submission_id)
    return render(request, "submission.html", {**state, "etag": tag_of("submission", owner, state)})


@pages.get("/account/submissions/{submission_id}/state", response_class=HTMLResponse, openapi_extra=SignedIn,
           summary="Where one of your submissions stands, as its page shows it (a fragment its script polls until "
                   "the validation ends)",
           responses={**NOT_MODIFIED, 403: {"description": "a read-only server"},
                      404: {"description": "not your submission"}})
def submission_state(submission_id: SubmissionId, request: Request, site: SiteDep):
    owner = sessions.signed_in(request)
    state = _state(site, owner, submission_id)
    return _fragment(request, "submission_state.html", tag_of("submission", owner, state), state)


@pages.get("/account/submissions/{submission_id}/validation/{number}", response_class=HTMLResponse,
           summary="A validation game of your submission, replayed from your bot's seat", openapi_extra=SignedIn,
           responses={404: {"description": "not your submission, or no such game"}})
def validation_replay(submission_id: SubmissionId, number: ValidationNumber, request: Request,
                      site: SiteDep):
    owner = sessions.signed_in(request)
    game_id, log = validation_log(site.ledger, owner, submission_id, number)
    try:
        document = html.document(html.page_data(log, log["view"], game_id))
    except logfmt.LogError as error:
        raise HTTPException(409, f"validation game {number} cannot be replayed: {error}") from None
    return replay_response(document)


def _entry(site: Site, owner: dict[str, Any], ladder: str, bot: str) -> schemas.Entry:
    """The owner's active entry of ``bot`` on ``ladder``, as retiring it would: 404 if there is no such bot, 403 if
    it is not theirs, 404 if it has no active version there (the checks retire_bot makes, made before its
    confirmation is asked)."""
    ladder_rows.get(site.ledger, ladder)
    own_bot(site.ledger, owner, bot)
    for entry in bots.bot(site.ledger, bot, mine=True).entries:
        if entry.ladder == ladder and entry.status == "active":
            return entry
    raise HTTPException(404, f"{bot!r} has no active version on {ladder!r}")


def _confirm(request: Request, site: Site, owner: dict[str, Any], ladder: str, bot: str) -> Response:
    """The confirmation of a retirement: what it does, and a form (with the CSRF token) that does it."""
    return render(request, "retire.html", {"owner": owner, "ladder": ladder, "bot": bot,
                                           "entry": _entry(site, owner, ladder, bot)})


@pages.get("/account/retire", response_class=HTMLResponse,
           summary="Confirm retiring one of your bots (changes nothing)",
           responses={403: {"description": "a read-only server, or not your bot"},
                      404: {"description": "no active version of the bot on that ladder"}}, openapi_extra=SignedIn)
def confirm_retire(request: Request, site: SiteDep,
                   ladder: Annotated[str, Query(min_length=1, max_length=200, description="the ladder")],
                   bot: Annotated[str, Query(min_length=1, max_length=200, description="your bot")]):
    return _confirm(request, site, sessions.signed_in(request), ladder, bot)


@pages.post("/account/retire", response_class=HTMLResponse, summary="Retire one of your bots from a ladder",
            responses={**SEE_OTHER, 403: {"description": "read-only server, a form without its CSRF token, or not "
                                                         "your bot"}}, openapi_extra=SignedIn)
def retire(request: Request, site: SiteDep, paging: PagingDep,
           ladder: Annotated[str, Form(min_length=1, max_length=200, description="the ladder")],
           bot: Annotated[str, Form(min_length=1, max_length=200, description="your bot")], csrf: Csrf = None,
           confirm: Annotated[str | None, Form(max_length=10, description="yes: retire it (else: the confirmation "
                                                                          "page, nothing retired)")] = None):
    owner = sessions.changing(request, csrf)
    if confirm != "yes":
        # One click never retires: without the confirmation page's "yes" this is that page (nothing changed).
        try:
            return _confirm(request, site, owner, ladder, bot)
        except HTTPException as error:
            return _account(request, site, owner, paging, error)
    try:
        retire_bot(site.ledger, owner, ladder, bot)
    except HTTPException as error:
        return _account(request, site, owner, paging, error)
    return RedirectResponse("/account#bots", status_code=303)
