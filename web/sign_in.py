"""Owners in the browser: signing in with the API token, the session cookie, and CSRF tokens.

* Signing in POSTs the API token once, in a form; the server answers with a session cookie
  holding a random secret: ``__Host-tourney_session`` (Secure, Path=/, no Domain: no other host
  and no plain-http page can set or replace it) when the request came over https or
  ``TOURNEY_HTTPS_COOKIES=1``, else ``tourney_session`` (plain http, as on 127.0.0.1); HttpOnly
  and SameSite=Strict either way. A request over https reads only the ``__Host-`` cookie. Only
  the SHA-256 of the secret is stored (ledger/rows/web_session_rows.py), with when it expires
  (``Settings.session_hours``) and the hash of the token it was opened with: a new token
  (`tourney users token NAME`) ends every session of the old one. Signing out deletes the row and
  the cookie; a new sign-in in a browser ends the session its cookie held; "sign out everywhere"
  ends every session of the owner.
* Wrong tokens sent to the sign-in form count against the client's address and the token's
  prefix, as the API's do (web/deps.py ``authenticate``): past the limit, 429.
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

from ledger.rows import web_session_rows
from tournaments.ladder import owner_tokens
from web.deps import authenticate, site

SESSION = "tourney_session"
SIGN_IN = "tourney_sign_in"
HOST_PREFIX = "__Host-"
"""Over https the cookies' names start with it: the browser then keeps them only if Secure, Path=/ and without
Domain, and no other host (a sibling subdomain) nor a plain-http page can set them."""
SIGN_IN_SECONDS = 3600
"""How long a sign-in form stays good to send."""
SECRET_BYTES = 32


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def csrf_of(secret: str) -> str:
    """The CSRF token of the forms of a session: an HMAC of its secret, so only a page of this session has it."""
    return hmac.new(secret.encode("utf-8"), b"tourney-csrf-v1", hashlib.sha256).hexdigest()


def secure(request: Request) -> bool:
    """Whether this request's cookies are ``__Host-`` and Secure: over https, or when the operator says so."""
    return request.url.scheme == "https" or site(request).settings.https_cookies


def session_cookie(request: Request) -> str:
    """The name of the session cookie for this request."""
    return HOST_PREFIX + SESSION if secure(request) else SESSION


def sign_in_cookie(request: Request) -> tuple[str, str]:
    """The name and path of the sign-in form's cookie for this request (``__Host-`` needs Path=/)."""
    return (HOST_PREFIX + SIGN_IN, "/") if secure(request) else (SIGN_IN, "/sign-in")


def session_secret(request: Request) -> str | None:
    """The secret of the session cookie this request carries (under this request's name for it), if any."""
    return request.cookies.get(session_cookie(request))


def viewer(request: Request) -> dict[str, Any] | None:
    """The owner signed in with this request's session cookie, or None (read once per request). A request
    that carries a session is its owner's: its answer is marked private (web/security.py)."""
    try:
        return request.state.viewer
    except AttributeError:
        found = None
        secret = session_secret(request)
        if secret and site(request).settings.submissions and len(secret) < 200:
            found = web_session_rows.owner(site(request).ledger, _hash(secret))
        request.state.viewer = found
        if found is not None:
            request.state.private = True
        return found


def page_csrf(request: Request) -> str | None:
    """The CSRF token the forms of this page carry for its signed-in owner (None when nobody is)."""
    secret = session_secret(request)
    return csrf_of(secret) if secret and viewer(request) is not None else None


def cookie(request: Request, response: Response, name: str, value: str, seconds: int, path: str = "/") -> None:
    response.set_cookie(name, value, max_age=seconds, path=path, httponly=True, samesite="strict",
                        secure=secure(request))


def forget(request: Request, response: Response, name: str, path: str = "/") -> None:
    response.delete_cookie(name, path=path, httponly=True, samesite="strict", secure=secure(request))


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
    value = request.cookies.get(sign_in_cookie(request)[0])
    return value if value and len(value) < 100 else secrets.token_urlsafe(SECRET_BYTES)


def remember_sign_in(request: Request, response: Response, value: str) -> None:
    name, path = sign_in_cookie(request)
    cookie(request, response, name, value, SIGN_IN_SECONDS, path=path)


def sign_in(request: Request, response: Response, token: str, sent_csrf: str | None) -> dict[str, Any]:
    """Open a session for the owner of ``token`` (the form's CSRF checked first); 401 for a token that is not
    valid, 429 past the limit of wrong tokens. Ends the session this browser held, if any (a second sign-in
    replaces the first), sets the new session's cookie on ``response`` and clears the sign-in one."""
    writable(request)
    same_site(request)
    name, path = sign_in_cookie(request)
    check(request.cookies.get(name), sent_csrf)
    the_site = site(request)
    token = token.strip()
    owner = authenticate(request, token) if token else None
    if owner is None:
        raise HTTPException(401, "this API token is not valid (the operator gives a new one with "
                                 "`tourney users token NAME`)")
    old = session_secret(request)
    if old and len(old) < 200:
        web_session_rows.end(the_site.ledger, _hash(old))
    secret = secrets.token_urlsafe(SECRET_BYTES)
    hours = the_site.settings.session_hours
    web_session_rows.start(the_site.ledger, _hash(secret), owner["id"], owner_tokens.token_hash(token),
                       datetime.now(UTC) + timedelta(hours=hours))
    cookie(request, response, session_cookie(request), secret, hours * 3600)
    forget(request, response, name, path)
    return owner


def sign_out(request: Request, response: Response, sent_csrf: str | None) -> None:
    """End this browser's session (its CSRF token checked first) and clear its cookie."""
    writable(request)
    same_site(request)
    check(page_csrf(request), sent_csrf)
    web_session_rows.end(site(request).ledger, _hash(session_secret(request) or ""))
    forget(request, response, session_cookie(request))


def sign_out_everywhere(request: Request, response: Response, sent_csrf: str | None) -> int:
    """End every session of the signed-in owner, in every browser (this page's CSRF token checked first), and
    clear this browser's cookie; how many sessions ended."""
    writable(request)
    same_site(request)
    owner = signed_in(request)
    check(page_csrf(request), sent_csrf)
    ended = web_session_rows.end_all(site(request).ledger, owner["id"])
    forget(request, response, session_cookie(request))
    return ended


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
