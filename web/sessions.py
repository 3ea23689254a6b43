"""Owners in the browser: signing in with the API token, the session cookie, and CSRF tokens.

* Signing in POSTs the API token once, in a form; the server answers with a session cookie
  (``tourney_session``: HttpOnly, SameSite=Strict, Secure when the site is served over TLS,
  Path=/) holding a random secret. Only the SHA-256 of the secret is stored (ledger/web_sessions.py),
  with when it expires (``Settings.session_hours``) and the hash of the token it was opened with:
  a new token (`tourney users token NAME`) ends every session of the old one. Signing out deletes
  the row and the cookie.
* The session is read by the pages only. The JSON API still takes a token in the Authorization
  header alone, so no API route can be driven by a cookie from another site.
* Every form that changes something carries a CSRF token, checked before anything is done: for a
  signed-in owner an HMAC of the session's secret (no other site can read the cookie to make it);
  for the sign-in form, the value of a short-lived cookie of its own, repeated in the form (a
  double submit). A request that says it comes from another site (``Origin``, ``Sec-Fetch-Site``)
  is refused as well.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, Response

from ledger import web_sessions
from tournaments.ladder import owners
from web.deps import site

SESSION = "tourney_session"
SIGN_IN = "tourney_sign_in"
SIGN_IN_SECONDS = 3600
"""How long a sign-in form stays good to send."""
SECRET_BYTES = 32


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def csrf_of(secret: str) -> str:
    """The CSRF token of the forms of a session: an HMAC of its secret, so only a page of this session has it."""
    return hmac.new(secret.encode("utf-8"), b"tourney-csrf-v1", hashlib.sha256).hexdigest()


def viewer(request: Request) -> dict[str, Any] | None:
    """The owner signed in with this request's session cookie, or None (read once per request). A request
    that carries a session is its owner's: its answer is marked private (web/security.py)."""
    try:
        return request.state.viewer
    except AttributeError:
        found = None
        secret = request.cookies.get(SESSION)
        if secret and site(request).settings.submissions and len(secret) < 200:
            found = web_sessions.owner(site(request).ledger, _hash(secret))
        request.state.viewer = found
        if found is not None:
            request.state.private = True
        return found


def page_csrf(request: Request) -> str | None:
    """The CSRF token the forms of this page carry for its signed-in owner (None when nobody is)."""
    secret = request.cookies.get(SESSION)
    return csrf_of(secret) if secret and viewer(request) is not None else None


def cookie(request: Request, response: Response, name: str, value: str, seconds: int, path: str = "/") -> None:
    response.set_cookie(name, value, max_age=seconds, path=path, httponly=True, samesite="strict",
                        secure=request.url.scheme == "https")


def same_site(request: Request) -> None:
    """403 for a request that says it comes from another site. (Under this site's ``Referrer-Policy:
    no-referrer`` a browser sends ``Origin: null`` with its own forms: that says nothing, and the CSRF
    token decides.)"""
    fetched = request.headers.get("sec-fetch-site")
    origin = request.headers.get("origin")
    here = f"{request.url.scheme}://{request.url.netloc}"
    if (fetched is not None and fetched not in ("same-origin", "none")) or origin not in (None, "null", here):
        raise HTTPException(403, "this form was sent from another site: open this site's own page and send it there")


def check(expected: str | None, sent: str | None) -> None:
    """403 unless the form's CSRF token is the one expected."""
    if not expected or not sent or not hmac.compare_digest(expected.encode(), sent.encode()):
        raise HTTPException(403, "this form's CSRF token is missing or out of date: reload the page and send it "
                                 "again")


def writable(request: Request) -> None:
    if not site(request).settings.submissions:
        raise HTTPException(403, "this server is read-only: owners cannot sign in or change anything here "
                                 "(the operator starts it with `tourney serve --submissions`)")


def sign_in_value(request: Request) -> str:
    """The CSRF value of a sign-in form: its cookie's, or a new one (``remember_sign_in`` then sets it)."""
    value = request.cookies.get(SIGN_IN)
    return value if value and len(value) < 100 else secrets.token_urlsafe(SECRET_BYTES)


def remember_sign_in(request: Request, response: Response, value: str) -> None:
    cookie(request, response, SIGN_IN, value, SIGN_IN_SECONDS, path="/sign-in")


def sign_in(request: Request, response: Response, token: str, sent_csrf: str | None) -> dict[str, Any]:
    """Open a session for the owner of ``token`` (the form's CSRF checked first); 401 for a token that is not
    valid. Sets the session cookie on ``response`` and clears the sign-in one."""
    writable(request)
    same_site(request)
    check(request.cookies.get(SIGN_IN), sent_csrf)
    the_site = site(request)
    token = token.strip()
    owner = owners.authenticate(the_site.ledger, token) if token else None
    if owner is None:
        raise HTTPException(401, "this API token is not valid (the operator gives a new one with "
                                 "`tourney users token NAME`)")
    secret = secrets.token_urlsafe(SECRET_BYTES)
    hours = the_site.settings.session_hours
    web_sessions.start(the_site.ledger, _hash(secret), owner["id"], owners.token_hash(token),
                       datetime.now(UTC) + timedelta(hours=hours))
    cookie(request, response, SESSION, secret, hours * 3600)
    response.delete_cookie(SIGN_IN, path="/sign-in", httponly=True, samesite="strict",
                           secure=request.url.scheme == "https")
    return owner


def sign_out(request: Request, response: Response, sent_csrf: str | None) -> None:
    """End this browser's session (its CSRF token checked first) and clear its cookie."""
    writable(request)
    same_site(request)
    check(page_csrf(request), sent_csrf)
    web_sessions.end(site(request).ledger, _hash(request.cookies[SESSION]))
    response.delete_cookie(SESSION, path="/", httponly=True, samesite="strict", secure=request.url.scheme == "https")


def signed_in(request: Request) -> dict[str, Any]:
    """The signed-in owner of a page that needs one: 403 on a read-only server, 401 without a session."""
    writable(request)
    owner = viewer(request)
    if owner is None:
        raise HTTPException(401, "sign in first: /sign-in, with the API token the operator gave you")
    return owner


def changing(request: Request, sent_csrf: str | None) -> dict[str, Any]:
    """The signed-in owner of a form that changes something, once its origin and CSRF token are checked and
    the owner's request limit allows it (the API's, per owner)."""
    owner = signed_in(request)
    same_site(request)
    check(page_csrf(request), sent_csrf)
    wait = site(request).requests.take(owner["id"])
    if wait is not None:
        raise HTTPException(429, f"more than {site(request).requests.count} requests a minute: wait {wait:.0f} s",
                            headers={"Retry-After": str(max(1, round(wait)))})
    return owner


ViewerDep = Annotated[dict[str, Any] | None, Depends(viewer)]
