"""The server's settings, read from its environment (what `tourney serve` sets; any ASGI server can
run ``web.app:create_app`` with the same variables)."""

from __future__ import annotations

import os
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

VIEWS = ("spectator", "full")


class SettingsError(ValueError):
    """A setting out of range; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    db: str | None = None
    """The ledger (TOURNEY_DB, as for every command)."""
    submissions: bool = False
    """TOURNEY_SUBMISSIONS=1: accept uploads and retirements (the database is opened for writing)."""
    signing_key: Path | None = None
    """TOURNEY_SIGNING_KEY: an Ed25519 key; when set, game pages offer signed log downloads."""
    tournament_logs: str = "spectator"
    """TOURNEY_TOURNAMENT_LOGS: spectator, or full (every hand, once a tournament game is over)."""
    max_upload_bytes: int = 1024 * 1024
    """TOURNEY_MAX_UPLOAD_KB: the largest bot upload; a larger request body is refused unread."""
    submissions_per_hour: int = 10
    """TOURNEY_SUBMISSIONS_PER_HOUR: per owner, counted in the database (so across restarts)."""
    requests_per_minute: int = 120
    """TOURNEY_REQUESTS_PER_MINUTE: authenticated API requests per token (per server process)."""
    poll_seconds: int = 10
    """TOURNEY_POLL_SECONDS: how often a ladder page asks whether its leaderboard changed."""
    session_hours: int = 168
    """TOURNEY_SESSION_HOURS: how long an owner stays signed in in a browser (a week), unless they sign out."""
    failed_sign_ins_per_minute: int = 10
    """TOURNEY_FAILED_SIGN_INS_PER_MINUTE: wrong tokens (API or sign-in form) per client address, and per token
    prefix, before every authentication from there is answered 429 (per server process)."""
    https_cookies: bool = False
    """TOURNEY_HTTPS_COOKIES=1: the sign-in cookies are ``__Host-`` and Secure even on a request that came over
    plain http (they always are over https)."""
    header_seconds: int = 10
    """TOURNEY_HEADER_SECONDS: a request's line and headers must arrive within this (web/server.py)."""
    body_seconds: int = 60
    """TOURNEY_BODY_SECONDS: a request's body must arrive within this, once its headers have (web/server.py)."""
    public_url: str | None = None
    """TOURNEY_PUBLIC_URL: the address people reach the server at (https://league.example), for the pages' curl
    examples; never taken from a request's Host header. None: the examples say "$SERVER"."""

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> Settings:
        key = environ.get("TOURNEY_SIGNING_KEY") or None
        logs = environ.get("TOURNEY_TOURNAMENT_LOGS") or "spectator"
        if logs not in VIEWS:
            raise SettingsError(f"TOURNEY_TOURNAMENT_LOGS is spectator or full, not {logs!r}")
        return cls(
            db=environ.get("TOURNEY_DB") or None,
            submissions=environ.get("TOURNEY_SUBMISSIONS", "0") == "1",
            signing_key=Path(key) if key else None,
            tournament_logs=logs,
            max_upload_bytes=1024 * _whole(environ, "TOURNEY_MAX_UPLOAD_KB", 1024),
            submissions_per_hour=_whole(environ, "TOURNEY_SUBMISSIONS_PER_HOUR", 10),
            requests_per_minute=_whole(environ, "TOURNEY_REQUESTS_PER_MINUTE", 120),
            poll_seconds=_whole(environ, "TOURNEY_POLL_SECONDS", 10),
            session_hours=_whole(environ, "TOURNEY_SESSION_HOURS", 168),
            failed_sign_ins_per_minute=_whole(environ, "TOURNEY_FAILED_SIGN_INS_PER_MINUTE", 10),
            https_cookies=environ.get("TOURNEY_HTTPS_COOKIES", "0") == "1",
            header_seconds=_whole(environ, "TOURNEY_HEADER_SECONDS", 10),
            body_seconds=_whole(environ, "TOURNEY_BODY_SECONDS", 60),
            public_url=_public_url(environ.get("TOURNEY_PUBLIC_URL") or None),
        )


def _public_url(text: str | None) -> str | None:
    """An http(s) address with a host and no query, without its trailing "/"; None for none."""
    if text is None:
        return None
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment \
            or any(character.isspace() or character in "\"'<>`" for character in text):
        raise SettingsError(f"TOURNEY_PUBLIC_URL is an http or https address such as https://league.example, "
                            f"not {text!r}")
    return text.rstrip("/")


def _whole(environ: Mapping[str, str], name: str, default: int) -> int:
    text = environ.get(name) or str(default)
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise SettingsError(f"{name} is a whole number of 1 or more, not {text!r}")
    return int(text)
