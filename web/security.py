"""What keeps the site safe to open and to call: headers on every response (a deliberate
Cache-Control among them), a cap on request bodies, a rate limit per API token and one on failed
sign-ins (docs/web.md, "Security").

* Every page carries a Content-Security-Policy that lets it load only this site's own style
  sheet and script (no inline script, no other origin, no plugin, no form posting elsewhere)
  and frame only this site's replay pages; the replay route sets the replay document's own,
  stricter policy (its inline script and style by hash, no request at all).
* Request bodies are counted as they arrive: past the limit the request is answered 413
  before the body is read further, whatever its Content-Length claims; a multipart body that
  ends before its closing boundary is a 400 (a part cut short is never taken as whole).
* Every response says how it may be cached (``caching``, docs/web.md "Caching"): an owner's
  answers and any answer that sets a cookie not at all, other errors and writes not at all,
  static files for a few minutes, every other page and API answer by anyone as long as they ask
  again first (``no-cache``).
* The rate limits are sliding windows (per token; failed authentications per client address and
  per token prefix), in this process's memory (several server processes each keep their own; the
  per-owner submission limit is counted in the database).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from python_multipart.multipart import parse_options_header
from starlette.exceptions import HTTPException

SITE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
               "frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The policy of every response that does not set its own."""
PRIVATE = b"private, no-store"
"""An owner's answer, or one that sets a cookie: no cache, shared or the browser's, keeps it."""
NO_STORE = b"no-store"
"""Errors, redirects and the answers to writes: true now, perhaps not in a moment."""
REVALIDATE = b"no-cache"
"""Anonymous pages and API answers: any cache may keep them, but asks the server again before each use
(a leaderboard that has not changed costs a 304 where the route gives an ETag)."""
STATIC = b"public, max-age=300"
"""/static/ files: not fingerprinted (their names do not change with their content), so kept five minutes,
then revalidated by their ETag."""
HEADERS = {
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
    b"cross-origin-opener-policy": b"same-origin",
    b"permissions-policy": b"camera=(), microphone=(), geolocation=(), interest-cohort=()",
}

MAX_KEYS = 10_000
"""Keys a rate limit keeps before it drops the idle ones."""

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def caching(scope: Scope, status: int, headers: list[tuple[bytes, bytes]], private: bool) -> bytes | None:
    """The Cache-Control of a response: a new value, or None to keep the one the route set.

    An answer to a request that carried its owner's credentials (a token, a session: the route marks
    ``request.state.private``) or that sets a cookie is ``private, no-store``, whatever the route said: no
    cache may keep it or hand it on. Otherwise a route's own Cache-Control stands; without one, static files
    are ``public, max-age=300``, errors, redirects and writes ``no-store``, everything else ``no-cache``."""
    names = {name.lower() for name, _ in headers}
    if private or b"set-cookie" in names:
        return PRIVATE
    if b"cache-control" in names:
        return None
    if scope.get("path", "").startswith("/static/") and status in (200, 304):
        return STATIC
    if scope.get("method") not in ("GET", "HEAD") or (status >= 300 and status != 304):
        return NO_STORE
    return REVALIDATE


class SecurityHeaders:
    """Adds the security headers and the Cache-Control of ``caching``; a response that set its own policy
    keeps it."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        state = scope.setdefault("state", {})

        async def sending(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                cache = caching(scope, message["status"], headers, bool(state.get("private")))
                if cache is not None:
                    headers = [(name, value) for name, value in headers if name.lower() != b"cache-control"]
                    headers.append((b"cache-control", cache))
                names = {name.lower() for name, _ in headers}
                headers += [(name, value) for name, value in HEADERS.items() if name not in names]
                if b"content-security-policy" not in names:
                    headers.append((b"content-security-policy", SITE_POLICY.encode()))
                if b"x-frame-options" not in names:
                    headers.append((b"x-frame-options", b"DENY"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, sending)


class BodyTooLarge(HTTPException):
    """Raised from the body's stream: an HTTPException, so that the route's body parsing lets it through
    (FastAPI turns any other error while reading a body into a 400) and the app answers 413."""

    def __init__(self, upload: int) -> None:
        super().__init__(413, too_large(upload))


def too_large(upload: int) -> str:
    """What a 413 says: the upload limit the owner can act on (the body's own limit leaves room for the form)."""
    return f"the upload is larger than {upload // 1024} KiB"


class BodyLimit:
    """Answers 413 to a request whose body is larger than ``limit`` bytes, reading no more of it; the answer names
    ``upload``, the largest upload accepted (``limit`` adds the room a form's other fields take)."""

    def __init__(self, app: App, limit: int, upload: int) -> None:
        self.app = app
        self.limit = limit
        self.upload = upload

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        page = not scope.get("path", "").startswith("/api/")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(send, self.upload, page)
            return
        seen = 0
        started = False

        async def receiving() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.upload)
            return message

        async def sending(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        except BodyTooLarge:
            if not started:
                await _too_large(send, self.upload, page)


class CutShort(HTTPException):
    """Raised from the body's stream (as BodyTooLarge) when a multipart body ends before its closing boundary."""

    def __init__(self) -> None:
        super().__init__(400, "the multipart body ends before its closing boundary: it was cut short")


class FormEnd:
    """Answers 400 to a multipart body that ends before its closing boundary (``--BOUNDARY--``): python-multipart
    reads such a body as the parts it finished, leaving out, without a word, the one cut short (a file, a name)."""

    def __init__(self, app: App) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind, options = parse_options_header(dict(scope.get("headers", [])).get(b"content-type", b""))
        boundary = options.get(b"boundary") if scope["type"] == "http" else None
        if kind != b"multipart/form-data" or not boundary:  # no boundary: Starlette's own 400
            await self.app(scope, receive, send)
            return
        close = b"\r\n--" + boundary + b"--"
        tail = b"\r\n"  # a body of no part is its closing boundary alone
        closed = False

        async def receiving() -> dict[str, Any]:
            nonlocal tail, closed
            message = await receive()
            if message["type"] == "http.request" and not closed:
                seen = tail + message.get("body", b"")
                closed = close in seen  # a part's content never holds it: it would have ended the part
                tail = seen[-len(close):]
                if not closed and not message.get("more_body", False):
                    raise CutShort()
            return message

        await self.app(scope, receiving, send)


TOO_LARGE_PAGE = (b'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>413 \xc2\xb7 tourney</title>'
                  b'<link rel="stylesheet" href="/static/site.css"></head><body><main><h1>413</h1><p class="error">'
                  b"The file sent is larger than this server accepts (%d KiB): go back and choose a smaller one."
                  b'</p><p><a href="/account">Back to your account</a></p></main></body></html>')
"""A page form's answer (the body was not read, so the page cannot be drawn from the request)."""


async def _too_large(send: Send, upload: int, page: bool = False) -> None:
    if page:
        body, kind = TOO_LARGE_PAGE % (upload // 1024), b"text/html; charset=utf-8"
    else:
        body, kind = orjson.dumps({"detail": too_large(upload)}), b"application/json"
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RateLimit:
    """At most ``count`` events per ``window`` seconds per key (a sliding window). ``clock`` is injectable, so
    tests move time instead of waiting."""

    def __init__(self, count: int, window: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.count = count
        self.window = window
        self.clock = clock
        self._seen: dict[Any, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, key: Any) -> float | None:
        """Count one event for ``key``: None if allowed, else the seconds until one would be."""
        now = self.clock()
        with self._lock:
            wait = self._wait(key, now)
            if wait is None:
                self._seen[key].append(now)
            return wait

    def waiting(self, *keys: Any) -> float | None:
        """The seconds until every one of ``keys`` is allowed an event again, or None if they are now (nothing
        is counted)."""
        now = self.clock()
        with self._lock:
            waits = [wait for key in keys if (wait := self._wait(key, now)) is not None]
        return max(waits) if waits else None

    def count_one(self, *keys: Any) -> None:
        """Count one event for each of ``keys``, allowed or not (a failure that happened)."""
        now = self.clock()
        with self._lock:
            for key in keys:
                self._wait(key, now)
                self._seen[key].append(now)

    def _wait(self, key: Any, now: float) -> float | None:
        if key not in self._seen and len(self._seen) >= MAX_KEYS:
            self._forget(now)
        seen = self._seen.setdefault(key, deque())
        while seen and seen[0] <= now - self.window:
            seen.popleft()
        return seen[0] + self.window - now if len(seen) >= self.count else None

    def _forget(self, now: float) -> None:
        """Drop the keys whose events have all left the window (so many addresses do not grow memory forever)."""
        for key in [key for key, seen in self._seen.items() if not seen or seen[-1] <= now - self.window]:
            del self._seen[key]
