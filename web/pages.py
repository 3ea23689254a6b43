"""Rendering pages: the Jinja2 environment (autoescaped), its filters, and ETag answers."""

from __future__ import annotations

import urllib.parse
from datetime import UTC, datetime
from typing import Any

from fastapi import Request, Response
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from web import charts, sign_in
from web.deps import TEMPLATES, site
from web.settings import Settings

TITLES = {"tails-on-fire": "Tails on Fire", "nine-tails": "Nine Tails", "lemur-tails": "Lemur Tails"}


def templates() -> Jinja2Templates:
    made = Jinja2Templates(directory=str(TEMPLATES))
    env = made.env
    env.autoescape = True  # every template, whatever its name ends with
    env.filters["segment"] = lambda text: urllib.parse.quote(str(text), safe="")
    env.filters["game_title"] = lambda game: TITLES.get(game, game)
    env.filters["short"] = lambda text, size=12: str(text)[:size]
    env.filters["when"] = when
    env.filters["ago"] = ago
    env.filters["ending"] = ending
    env.globals["sparkline"] = charts.sparkline
    env.globals["chart"] = charts.chart
    return made


def render(request: Request, name: str, context: dict[str, Any], status: int = 200,
           headers: dict[str, str] | None = None) -> HTMLResponse:
    """A page; its header shows the owner signed in (a page drawn for them is theirs alone: web/security.py)."""
    the_site = site(request)
    signed_in = sign_in.viewer(request)
    return the_site.templates.TemplateResponse(
        request, name, {"settings": the_site.settings, "viewer": signed_in, "csrf": sign_in.page_csrf(request),
                        "server": server(the_site.settings), **context},
        status_code=status, headers={"Vary": "Cookie", **(headers or {})})


SERVER = "$SERVER"
"""What the pages' curl examples start with when no public address is configured: a shell variable to set."""


def server(settings: Settings) -> str:
    """The address the pages' curl examples name: the configured public one (TOURNEY_PUBLIC_URL), never the request's
    Host header (anyone can send any Host, and a shared cache would serve its page to others)."""
    return settings.public_url or SERVER


def unchanged(request: Request, etag: str) -> Response | None:
    """A 304 answer when the client already has this version (If-None-Match), else None."""
    wanted = request.headers.get("if-none-match", "")
    if etag in {tag.strip() for tag in wanted.split(",")} or wanted.strip() == "*":
        return Response(status_code=304, headers={"ETag": etag, "Cache-Control": "no-cache"})
    return None


def query(request: Request, **changes: Any) -> str:
    """The current URL's query with ``changes`` applied (None removes a key): for pager and filter links."""
    params = dict(request.query_params)
    for key, value in changes.items():
        if value is None:
            params.pop(key, None)
        else:
            params[key] = str(value)
    return "?" + urllib.parse.urlencode(params) if params else request.url.path


ENDINGS = {"finished": "played to its end", "forfeit": "ended by a forfeit"}
"""A stored game ends as the driver ends it (engines/driver.py): finished by the rules, or a forfeit."""


def ending(reason: str | None) -> str:
    """How a game ended, as the end of a sentence: "played to its end", "ended by a forfeit"."""
    if not reason:
        return "not over yet"
    return ENDINGS.get(reason, f"ended: {reason}")


def ago(stamp: str | None, now: datetime | None = None) -> str:
    """A stored time (ISO 8601, UTC) as how long before ``now`` (the time of the answer) it was: "just now",
    "5 min ago", "3 h ago", "4 days ago", then its date (2026-10-01); a page gives the exact time beside it."""
    if not stamp:
        return ""
    try:
        then = datetime.fromisoformat(stamp)
    except ValueError:
        return when(stamp)
    seconds = ((now or datetime.now(UTC)) - (then if then.tzinfo else then.replace(tzinfo=UTC))).total_seconds()
    if seconds < 60:
        return "just now"
    if seconds < 3600:
        return f"{int(seconds // 60)} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    days = int(seconds // 86400)
    if days < 30:
        return f"{days} day{'s' if days > 1 else ''} ago"
    return then.date().isoformat()


def when(stamp: str | None) -> str:
    """A stored time (ISO 8601, UTC) as people read it: 2026-11-30 16:03 UTC."""
    if not stamp:
        return ""
    return stamp[:16].replace("T", " ") + (" UTC" if stamp.endswith("+00:00") else "")
