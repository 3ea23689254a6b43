"""Owners and their API tokens: made here, stored as a hash (ledger/rows/owner_rows.py), checked here.

A token is 32 random bytes (URL-safe base64) behind the prefix ``tourney_``, shown once when
made. Only its SHA-256 is stored: a token is as strong as a random key, so a plain hash (not a
slow password hash) keeps a stolen database from yielding a usable token, as GitHub and PyPI do
with theirs.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from typing import Any

from ledger.rows import game_rows, owner_rows, submission_rows
from ledger.store import Ledger

TOKEN_PREFIX = "tourney_"
TOKEN_BYTES = 32
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
"""The names an owner, or a bot submitted through the API, may have: letters, digits, ".", "_"
and "-", starting with a letter or digit, at most 64 characters (they appear in URLs)."""
TEAM_NAME = re.compile(r"(?=.{1,64}\Z)[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*")
"""The names the operator may give a bot (`ladder submit --as`): ``NAME``'s parts joined by "/" (``team/bot``,
which the web serves at /bots/team%2Fbot: docs/web.md), at most 64 characters."""


class BadName(ValueError):
    """A name outside ``NAME``; the message is one line."""


def check_name(name: str, what: str, teams: bool = False) -> str:
    """``name`` if it is one (``NAME``; ``teams``: ``TEAM_NAME``, the operator's bot names), else BadName."""
    if not (TEAM_NAME if teams else NAME).fullmatch(name):
        parts = " ('/' between parts)" if teams else ""
        raise BadName(f"{what} {name!r} is not a name here: use letters, digits, '.', '_' and '-'{parts} "
                      "(starting with a letter or digit, at most 64 characters)")
    return name


def new_token() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def add(ledger: Ledger, name: str) -> str:
    """Make an owner; their token (the only time it is ever shown)."""
    check_name(name, "owner")
    token = new_token()
    owner_rows.add(ledger, name, token_hash(token))
    return token


def new_token_for(ledger: Ledger, name: str) -> str:
    """Replace an owner's token (a lost or leaked one stops working); the new token."""
    token = new_token()
    owner_rows.replace_token(ledger, name, token_hash(token))
    return token


def authenticate(ledger: Ledger, token: str) -> dict[str, Any] | None:
    """The owner a token belongs to, or None."""
    if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
        return None
    return owner_rows.by_token_hash(ledger, token_hash(token))


# -- what only a bot's owner may read --------------------------------------------------------
# Why a bot forfeited, in its own terms (tournaments.bots.diagnosis: a traceback, or its last stderr
# lines) is private as its stderr is: these calls give it to the owner of the bot and to nobody else
# (``owner`` None: nobody signed in). The web's pages and API show what they return, escaped.


def _my_seats(ledger: Ledger, owner: dict[str, Any] | None, game_id: str) -> dict[int, str]:
    """{seat: bot} of one game's seats that ``owner``'s bots sat in (empty for nobody signed in)."""
    if owner is None:
        return {}
    mine = set(owner_rows.bots_of(ledger, owner["id"]))
    return {seat["seat"]: seat["bot"] for seat in game_rows.seats(ledger, [game_id]) if seat["bot"] in mine}


def seats_of_owner(ledger: Ledger, owner: dict[str, Any] | None, game_id: str) -> list[int]:
    """The seats of one game that ``owner``'s bots sat in, in order: the seat views they may see."""
    return sorted(_my_seats(ledger, owner, game_id))


def game_diagnoses(ledger: Ledger, owner: dict[str, Any] | None, game_id: str) -> list[dict[str, Any]]:
    """The diagnoses of one game's forfeit that ``owner`` may read: the seats their bots sat in (the seat, its
    bot, ``kind``, ``summary``, ``detail``, ``game_id``); empty for anyone else, and when no seat of theirs left one."""
    bots = _my_seats(ledger, owner, game_id)
    if not bots:
        return []
    found = game_rows.diagnoses(ledger, [game_id])
    return [{"seat": seat, "bot": bots[seat], **{key: row[key] for key in ("kind", "summary", "detail", "game_id")}}
            for (_, seat), row in sorted(found.items()) if seat in bots]


def bot_diagnoses(ledger: Ledger, owner: dict[str, Any] | None, name: str, limit: int, offset: int
                  ) -> tuple[list[dict[str, Any]], int] | None:
    """A bot's diagnoses, newest game first (one page, and how many there are), for its owner; None for anyone
    else (the web answers 403, as for its logs)."""
    if owner is None or name not in owner_rows.bots_of(ledger, owner["id"]):
        return None
    found, total = game_rows.diagnoses_of_bot(ledger, name, limit, offset)
    return [{key: row[key] for key in ("game_id", "seat", "content_hash", "created_at", "kind", "summary", "detail")}
            for row in found], total


def submission_diagnosis(ledger: Ledger, owner: dict[str, Any] | None, submission_id: int) -> str | None:
    """What a refused submission's bot left behind (its traceback or last stderr lines), for the owner who
    submitted it; None for anyone else, and when it left nothing."""
    told = None if owner is None else submission_rows.diagnosis_of(ledger, submission_id, owner["id"])
    return None if told is None else told.detail


def validation_diagnosis(ledger: Ledger, owner: dict[str, Any] | None, submission_id: int) -> dict[str, Any] | None:
    """``submission_diagnosis`` in ``game_diagnoses``' shape, with the validation game it was left in (its last:
    validation stops at the bot's first forfeit); None for anyone else, when it left nothing, and for a submission
    refused before revision 0022, which kept its detail alone (``submission_diagnosis`` still has it)."""
    told = None if owner is None else submission_rows.diagnosis_of(ledger, submission_id, owner["id"])
    games = [] if told is None else submission_rows.validation_games(ledger, submission_id, owner["id"])
    if told is None or told.kind is None or not games:
        return None
    return {"seat": games[-1]["seat"], "bot": submission_rows.get(ledger, submission_id)["name"], "kind": told.kind,
            "summary": told.summary, "detail": told.detail, "game_id": games[-1]["game_id"]}
