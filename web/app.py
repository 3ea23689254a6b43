"""The application: ``create_app(settings)`` builds it (uvicorn runs ``web.app:create_app`` as a
factory, with the settings in its environment; tests pass Settings directly)."""

from __future__ import annotations

import gc
import re
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.gzip import GZipMiddleware
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException

from ledger import read_models
from ledger.rows.ladder_rows import UnknownLadder
from ledger.rows.owner_rows import UnknownOwner
from ledger.rows.submission_rows import UnknownSubmission
from ledger.rows.tournament_rows import UnknownTournament
from ledger.store import Ledger, LedgerError
from replays import facts, projections
from tournaments.ladder.league import LadderError
from web.deps import Site
from web.openapi import HeadAsGet, complete
from web.pages import render, templates
from web.routes import account, bots, games, home, ladders, owners, submissions, tournaments
from web.security import BodyLimit, FormEnd, RateLimit, SecurityHeaders
from web.settings import Settings

STATIC = Path(__file__).resolve().parent / "static"
MULTIPART_OVERHEAD = 64 * 1024
"""Room for the form fields and boundaries around an upload of the largest size accepted."""
GZIP_FROM = 1024
"""Bytes from which an answer is sent gzip-compressed (to clients that accept it)."""
GZIP_LEVEL = 5
"""zlib's level: Starlette's default, 9, spent 65 ms of CPU on a 520 KB tournament answer, more than building it;
5 spends 3.4 ms for 52 KB where 9 makes 42 KB (docs/benchmarks.md, "Size-free pages")."""
NOT_FOUND = (UnknownLadder, UnknownTournament, UnknownSubmission, UnknownOwner)


def open_ledger(settings: Settings) -> Ledger:
    """Read-only unless submissions are on: a server that only shows the league cannot write a byte."""
    if settings.submissions:
        ledger = Ledger(settings.db)
        if projections.behind(ledger):  # written by a tourney before the read models: count its games first
            projections.catch_up(ledger)
        return ledger
    ledger = Ledger(settings.db, read_only=True)
    ledger.require_head()
    return ledger


def create_app(settings: Settings | None = None, clock: Callable[[], float] = time.monotonic) -> FastAPI:
    """The application over ``settings`` (else the environment's); ``clock`` times its rate limits (tests move
    it instead of waiting)."""
    settings = settings or Settings.from_env()
    app = FastAPI(
        title="tourney",
        version=_version(),
        summary="A league of card-game bots: ladders, tournaments, bots, games and their verifiable logs.",
        description="Every list is paginated (offset, limit). Writes need `Authorization: Bearer TOKEN` "
                    "(`tourney users add NAME` on the server). docs/web.md has the whole story.",
        docs_url=None,  # the interactive pages load scripts from a CDN: never from this site
        redoc_url=None,
        openapi_url="/openapi.json",
    )
    app.state.site = Site(settings, open_ledger(settings), templates(),
                          RateLimit(settings.requests_per_minute, clock=clock),
                          RateLimit(settings.failed_sign_ins_per_minute, clock=clock))
    for module in (home, ladders, tournaments, bots, owners, games, submissions, account):
        for router in ("api", "pages"):
            if hasattr(module, router):
                app.include_router(getattr(module, router))
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    _errors(app)
    complete(app)
    # Pages and answers over 1 KiB go compressed to a client that accepts gzip (a leaderboard, a replay).
    app.add_middleware(GZipMiddleware, minimum_size=GZIP_FROM, compresslevel=GZIP_LEVEL)
    app.add_middleware(FormEnd)
    app.add_middleware(BodyLimit, limit=settings.max_upload_bytes + MULTIPART_OVERHEAD,
                       upload=settings.max_upload_bytes)
    app.add_middleware(HeadAsGet)
    app.add_middleware(SecurityHeaders)
    # What is alive once the app is built (modules, routes, templates) is kept for the process's life: moved out of
    # the collector's generations, a full collection no longer walks it. Such a collection came every few cold
    # leaderboard answers and cost each one 50 ms of CPU (docs/benchmarks.md, "The ladder's leaderboard").
    gc.freeze()
    return app


def _errors(app: FastAPI) -> None:
    """Errors are JSON under /api and a page elsewhere; a library's 'no such thing' is a 404."""

    def answer(request: Request, status: int, detail: str, headers: dict[str, str] | None = None) -> Response:
        if request.url.path.startswith("/api/") or request.url.path == "/openapi.json":
            return JSONResponse({"detail": detail}, status_code=status, headers=headers)
        return render(request, "error.html", {"status": status, "detail": detail}, status=status, headers=headers)

    @app.exception_handler(HTTPException)
    async def http_error(request: Request, error: HTTPException) -> Response:
        headers = getattr(error, "headers", None)
        if error.status_code == 405:
            headers = {**(headers or {}), "Allow": _allowed(app, request, (headers or {}).get("Allow", ""))}
        if request.url.path.startswith("/static/"):
            return JSONResponse({"detail": error.detail}, status_code=error.status_code, headers=headers)
        return answer(request, error.status_code, str(error.detail), headers)

    @app.exception_handler(404)
    async def not_found(request: Request, error: Exception) -> Response:
        return answer(request, 404, str(getattr(error, "detail", "not found")))

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, error: RequestValidationError) -> Response:
        # One line, as every error: which parameter or field, and what is wrong with it (never pydantic's list).
        unreadable = _not_a_form(request, error.errors())
        return answer(request, 400, unreadable) if unreadable else answer(request, 422, _said(error.errors()))

    @app.exception_handler(LedgerError)
    async def ledger_error(request: Request, error: LedgerError) -> Response:
        # The library names the database (its path) for the operator; the public is told "this league".
        ledger = request.app.state.site.ledger
        detail = str(error).splitlines()[0].replace(ledger.url, "this league").replace(ledger.where, "this league")
        return answer(request, 404 if isinstance(error, NOT_FOUND) else 409, detail)

    @app.exception_handler(read_models.Behind)
    async def behind(request: Request, error: read_models.Behind) -> Response:
        # Read models counting some games only (an older tourney's ledger, a rebuild stopped): `tourney db upgrade`.
        return answer(request, 503, "this league's read models are being brought up to date; its operator runs "
                                    "`tourney db upgrade`")

    @app.exception_handler(facts.Tampered)
    async def tampered(request: Request, error: facts.Tampered) -> Response:
        # The stored rows disagree with the hashed events: nothing derived from them is shown, and
        # the operator is told how to find out (the reason names rows, never a file).
        return answer(request, 503, f"this league's database does not verify ({error.reason}); its operator "
                                    "can list every difference with `tourney replay verify --db`")

    @app.exception_handler(LadderError)
    async def ladder_error(request: Request, error: LadderError) -> Response:
        # The league's "no bot X on ladder Y" and the like: something asked for that is not there.
        return answer(request, 404, str(error).splitlines()[0])


def _allowed(app: FastAPI, request: Request, named: str) -> str:
    """Every method the document lists for this path (Starlette names only its first route's), HEAD with GET;
    what Starlette named for a path the document leaves out (/static)."""
    methods: set[str] = set()
    for path, operations in app.openapi()["paths"].items():
        if re.fullmatch(re.sub(r"\\\{\w+\\\}", "[^/]+", re.escape(path)), request.url.path):
            methods |= {method.upper() for method in operations}
    if "GET" in methods:
        methods.add("HEAD")
    return ", ".join(sorted(methods)) if methods else named


FORMS = ("multipart/form-data", "application/x-www-form-urlencoded")
WHERE = ("query", "path", "body", "header", "cookie")


def _said(errors: Sequence[Any]) -> str:
    """Validation errors in one line: each parameter or field named, with what is wrong with it (pydantic's
    messages, but for a missing field and a text field sent where a file belongs)."""
    said: list[str] = []
    for error in errors:
        where = ".".join(str(part) for part in error.get("loc", ()) if part not in WHERE)
        message = str(error.get("msg", "invalid"))
        if error.get("type") == "missing":
            message = "missing"
        elif "Expected UploadFile" in message:
            message = "not a file: send it as a file part (curl -F NAME=@PATH), not as text"
        else:
            message = message[:1].lower() + message[1:]
        line = f"{where}: {message}" if where else message
        if line not in said:
            said.append(line)
    return "; ".join(said) or "invalid request"


def _not_a_form(request: Request, errors: Sequence[Any]) -> str | None:
    """Why a request's body cannot be read at all, if a form's fields are missing because it is not a form (JSON,
    text): Starlette reads such a body as an empty form. None otherwise (an empty body: its fields are missing)."""
    if not any(tuple(error.get("loc", ()))[:1] == ("body",) for error in errors):
        return None
    sent = request.headers.get("content-length", "0") != "0" or "transfer-encoding" in request.headers
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if not sent or kind in FORMS:
        return None
    return (f"the body is not a form: send it as multipart/form-data (curl -F), not "
            f"{kind or 'without a Content-Type'}")


def _version() -> str:
    try:
        return metadata.version("tourney")
    except metadata.PackageNotFoundError:
        return "unknown"
