"""What keeps the site safe to open and to call: headers on every response, a cap on request
bodies, and a rate limit per API token (docs/web.md, "Security").

* Every page carries a Content-Security-Policy that lets it load only this site's own style
  sheet and script (no inline script, no other origin, no plugin, no form posting elsewhere)
  and frame only this site's replay pages; the replay route sets the replay document's own,
  stricter policy (its inline script and style by hash, no request at all).
* Request bodies are counted as they arrive: past the limit the request is answered 413
  before the body is read further, whatever its Content-Length claims.
* The rate limit is a sliding window per token, in this process's memory (several server
  processes each keep their own; the per-owner submission limit is counted in the database).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.exceptions import HTTPException

SITE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
               "frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
"""The policy of every response that does not set its own."""
HEADERS = {
    b"x-content-type-options": b"nosniff",
    b"referrer-policy": b"no-referrer",
    b"cross-origin-opener-policy": b"same-origin",
    b"permissions-policy": b"camera=(), microphone=(), geolocation=(), interest-cohort=()",
}

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


class SecurityHeaders:
    """Adds the security headers; a response that set its own policy keeps it. An answer to a request that
    carried its owner's credentials (a token, a session: the route marks ``request.state.private``) gets
    ``Cache-Control: private, no-store``, whatever else it said: no cache may keep it or hand it on."""

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
                if state.get("private"):
                    headers = [(name, value) for name, value in headers if name.lower() != b"cache-control"]
                    headers.append((b"cache-control", b"private, no-store"))
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

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than this server accepts ({limit // 1024} KiB)")


class BodyLimit:
    """Answers 413 to a request whose body is larger than ``limit`` bytes, reading no more of it."""

    def __init__(self, app: App, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        page = not scope.get("path", "").startswith("/api/")
        if declared is not None and (not declared.isdigit() or int(declared) > self.limit):
            await _too_large(send, self.limit, page)
            return
        seen = 0
        started = False

        async def receiving() -> dict[str, Any]:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.limit:
                    raise BodyTooLarge(self.limit)
            return message

        async def sending(message: dict[str, Any]) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receiving, sending)
        except BodyTooLarge:
            if not started:
                await _too_large(send, self.limit, page)


TOO_LARGE_PAGE = (b'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>413 \xc2\xb7 tourney</title>'
                  b'<link rel="stylesheet" href="/static/site.css"></head><body><main><h1>413</h1><p class="error">'
                  b"The file sent is larger than this server accepts (%d KiB): go back and choose a smaller one."
                  b'</p><p><a href="/account">Back to your account</a></p></main></body></html>')
"""A page form's answer (the body was not read, so the page cannot be drawn from the request)."""


async def _too_large(send: Send, limit: int, page: bool = False) -> None:
    if page:
        body, kind = TOO_LARGE_PAGE % (limit // 1024), b"text/html; charset=utf-8"
    else:
        body = b'{"detail":"the request body is larger than this server accepts (%d KiB)"}' % (limit // 1024)
        kind = b"application/json"
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode()),
                            (b"connection", b"close")]})
    await send({"type": "http.response.body", "body": body})


class RateLimit:
    """At most ``count`` events per ``window`` seconds per key (a sliding window)."""

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
            seen = self._seen.setdefault(key, deque())
            while seen and seen[0] <= now - self.window:
                seen.popleft()
            if len(seen) >= self.count:
                return seen[0] + self.window - now
            seen.append(now)
            return None
