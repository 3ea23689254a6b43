"""The dependencies routes declare: the site (settings, ledger, templates), paging, the current owner.

As in FastAPI's full-stack template, a route names what it needs (``LedgerDep``, ``OwnerDep``,
``PagingDep``) and these functions provide it; the API's owner comes only from the
``Authorization: Bearer TOKEN`` header (never a cookie, a query or a form field; the pages'
signed-in owner is web/sign_in.py's).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, HTTPException, Query, Request
from fastapi import Path as InPath
from fastapi.templating import Jinja2Templates

from ledger.store import Ledger
from tournaments.ladder import owner_tokens
from web.security import RateLimit
from web.settings import Settings

T = TypeVar("T")
TEMPLATES = Path(__file__).resolve().parent / "templates"
MAX_PAGE = 200


class Cache:
    """A small thread-safe LRU of computed values (verifications, standings, replay documents), keyed by
    what determines them (a game's head hash, a tournament's game count), so an entry never goes stale."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def get(self, key: Hashable, make: Callable[[], T]) -> T:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()
        with self._lock:
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return value


@dataclass
class Site:
    settings: Settings
    ledger: Ledger
    templates: Jinja2Templates
    requests: RateLimit
    failures: RateLimit
    """Failed authentications, per client address and per token prefix (``authenticate``)."""
    caches: dict[str, Cache] = field(default_factory=lambda: {
        "verified": Cache(1024), "standings": Cache(64), "replay": Cache(16), "fits": Cache(64)})


def site(request: Request) -> Site:
    return request.app.state.site


SiteDep = Annotated[Site, Depends(site)]


def ledger(request: Request) -> Ledger:
    return site(request).ledger


LedgerDep = Annotated[Ledger, Depends(ledger)]


@dataclass(frozen=True, slots=True)
class Paging:
    offset: int
    limit: int


def paging(offset: Annotated[int, Query(ge=0, le=10**9, description="How many items to skip.")] = 0,
           limit: Annotated[int, Query(ge=1, le=MAX_PAGE, description="Items per page.")] = 50) -> Paging:
    return Paging(offset, limit)


PagingDep = Annotated[Paging, Depends(paging)]

SQL_INT_MAX = 2**63 - 1
"""The largest integer SQL stores (SQLite's INTEGER, PostgreSQL's BIGINT): every number a path names is bounded by
it (a query's by far less), so a larger one is a 422, never an overflow in the database (a 500)."""
SubmissionId = Annotated[int, InPath(ge=1, le=SQL_INT_MAX, description="the submission's number")]
ValidationNumber = Annotated[int, InPath(ge=1, le=SQL_INT_MAX, description="the validation game's number (1 first)")]


def unauthorized(detail: str) -> HTTPException:
    return HTTPException(401, detail, headers={"WWW-Authenticate": 'Bearer realm="tourney"'})


TOKEN_KEY = 16
"""The characters of a presented token that key its failures (``tourney_`` and 8 of its random ones)."""


def authenticate(request: Request, token: str) -> dict[str, Any] | None:
    """The owner of ``token``, or None; 429 while this client address, or this token's prefix, has had too many
    wrong tokens in the last minute (a good token too: else a guess that hit would still be told so). Each
    wrong token counts against both."""
    the_site = site(request)
    keys = (("address", request.client.host if request.client else ""), ("token", token[:TOKEN_KEY]))
    wait = the_site.failures.waiting(*keys)
    if wait is not None:
        raise HTTPException(429, f"more than {the_site.failures.count} wrong tokens a minute from here: wait "
                                 f"{wait:.0f} s", headers={"Retry-After": str(max(1, round(wait)))})
    owner = owner_tokens.authenticate(the_site.ledger, token)
    if owner is None:
        the_site.failures.count_one(*keys)
    return owner


def current_owner(
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer TOKEN (from `tourney users add`).")] = None,
) -> dict[str, Any]:
    """The owner whose token the request carries; 401 without a valid one, 429 past the rate limit (of this
    token's requests, or of wrong tokens from this address)."""
    if authorization is None:
        raise unauthorized("this needs an API token: send the header Authorization: Bearer TOKEN")
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise unauthorized("the Authorization header is Bearer TOKEN")
    the_site = site(request)
    owner = authenticate(request, token.strip())
    if owner is None:
        raise unauthorized("this API token is not valid (a new one: `tourney users token NAME` on the server)")
    request.state.private = True  # an answer to a token is its owner's: never cached (web/security.py)
    wait = the_site.requests.take(owner["id"])
    if wait is not None:
        raise HTTPException(429, f"more than {the_site.requests.count} requests a minute with this token: "
                                 f"wait {wait:.0f} s", headers={"Retry-After": str(max(1, round(wait)))})
    return owner


OwnerDep = Annotated[dict[str, Any], Depends(current_owner)]


def optional_owner(
    request: Request,
    authorization: Annotated[str | None, Header(description="Bearer TOKEN: the owner sees more of their own "
                                                        "bots' pages.")] = None,
) -> dict[str, Any] | None:
    """The owner whose token the request carries, or None without the header (a bad token is still a 401)."""
    return None if authorization is None else current_owner(request, authorization)


MaybeOwnerDep = Annotated[dict[str, Any] | None, Depends(optional_owner)]


def writable(request: Request) -> None:
    """403 on a server started without --submissions (its database is opened read-only)."""
    if not site(request).settings.submissions:
        raise HTTPException(403, "this server is read-only: it accepts no submissions or changes "
                                 "(the operator starts it with `tourney serve --submissions`)")


WritableDep = Depends(writable)
