"""The league: one place to call every ladder operation from (the CLI, the web, tests); each role is its own module.

A ladder is made here (``create``, ``boss``, ``retire``: the operator's facts); the rest is re-exported from
the module of its role, so callers keep writing ``league.submit``, ``league.standings``:

* submissions (tournaments.ladder.submitting): ``package``, ``submit``, ``validate``;
* the bot cache (tournaments.ladder.bot_cache): ``materialize``, ``runnable``, ``stored_bot``;
* confinement (tournaments.ladder.confinement): ``Limits``, ``confined``, ``require_sandbox``;
* ratings (tournaments.ladder.rating_models, rated_games, rating_fold): ``model``, ``MODELS``,
  ``checked_fold`` (the stored ratings held against the fold, a page of games at a time), ``rebuild``, ``void``;
* standings (tournaments.ladder.leaderboard): ``standings``, ``checked_standings``, ``history``,
  ``candidates`` (what matchmaking weighs; tournaments.ladder.matchmaking pairs them);
* play (tournaments.ladder.sessions) and the worker (tournaments.ladder.worker), which callers import by name.
"""

from __future__ import annotations

import orjson

from ledger.rows import division_rows, ladder_rows
from ledger.store import Ledger
from tournaments.ladder import divisions, owner_tokens
from tournaments.ladder.bot_cache import cache_root, materialize, runnable, stored_bot
from tournaments.ladder.confinement import (
    CPU_SECONDS,
    MAX_PROCESSES,
    MEMORY_MB,
    Limits,
    confined,
    default_workers,
    require_sandbox,
)
from tournaments.ladder.ladder_errors import LadderError, Refused, Unavailable
from tournaments.ladder.leaderboard import (
    Standing,
    _ranged,
    candidates,
    checked_standings,
    history,
    met,
    order,
    ordered,
    placed,
    standings,
)
from tournaments.ladder.rated_games import checked_fold, folded, rated, rated_after, rebuild, void
from tournaments.ladder.rating_models import (
    ELO,
    MODELS,
    OPENSKILL,
    RATINGS,
    Model,
    default_rating,
    leaderboard_rating,
    model,
)
from tournaments.ladder.submitting import DESCRIPTION_CHARS, OPPONENT, package, submit, validate
from tournaments.play import naming

__all__ = [
    "CPU_SECONDS", "DESCRIPTION_CHARS", "ELO", "MAX_PROCESSES", "MEMORY_MB", "MODELS", "OPENSKILL", "OPPONENT",
    "RATINGS", "LadderError", "Limits", "Model", "Refused", "Standing", "Unavailable", "_ranged", "boss", "cache_root",
    "candidates", "check_ladder_name", "checked_fold", "checked_standings", "confined", "create", "default_rating",
    "default_workers",
    "folded", "history", "leaderboard_rating", "materialize", "met", "model", "order", "ordered", "package", "placed",
    "rated", "rated_after", "rebuild", "require_sandbox", "retire", "runnable", "standings", "stored_bot", "submit",
    "validate", "void",
]


SHORT_ID = naming.SHORT_ID
"""The shape of the short ids `tourney list` prints (tournaments.play.naming, where a new tournament's --name is held
to it too): no new ladder is named so."""


def check_ladder_name(name: str) -> str:
    """A new ladder's name: an owner's or a bot's rule (owner_tokens.NAME), and not the shape of a short id;
    owner_tokens.BadName (one line) otherwise. Ladders named before this rule keep their names."""
    owner_tokens.check_name(name, "ladder name")
    if SHORT_ID.fullmatch(name):
        raise owner_tokens.BadName(f"ladder name {name!r} reads as a short id (`tourney list` prints a ladder's as "
                                   "L1, a tournament's as 3): pick another name")
    return name


def create(ledger: Ledger, name: str, game: str, players: int, rating: str | None = None,
           division_names: str | None = None) -> str:
    """Create a ladder; its rating model (default by seats) is fixed for its life, and so are its divisions
    (``"bronze,silver,gold"``, lowest first; None: none). Returns the model. Its name is checked
    (``check_ladder_name``; one that reads as another ladder's is refused by ladder_rows.create)."""
    check_ladder_name(name)
    chosen = rating or default_rating(players)
    if chosen not in RATINGS:
        raise LadderError(f"--rating is {' or '.join(RATINGS)}, not {chosen!r}")
    try:
        names = None if division_names is None else divisions.parse(division_names)
    except divisions.DivisionsError as error:
        raise LadderError(str(error)) from None
    ladder_rows.create(ledger, name, game, players, chosen, None if names is None else orjson.dumps(names).decode())
    return chosen


def boss(ledger: Ledger, ladder_name: str, bot: str, division: str, reason: str) -> int:
    """Make the active version of ``bot`` the boss of ``division`` (an operator's fact): to leave that division
    upwards a bot must pass it (tournaments.ladder.divisions). Its version."""
    ladder = ladder_rows.get(ledger, ladder_name)
    names = divisions.names_of(ladder)
    if not names:
        raise LadderError(f"ladder {ladder_name!r} has no divisions (`tourney ladder create --divisions` makes a "
                          "ladder with them)")
    return division_rows.set_boss(ledger, ladder["id"], bot, division, names, reason)[1]


def retire(ledger: Ledger, ladder_name: str, bot: str, reason: str) -> int:
    """Retire a bot's active version: it plays no more games; its games and rating stay. Its version."""
    ladder = ladder_rows.get(ledger, ladder_name)
    return ladder_rows.retire(ledger, ladder["id"], bot, reason)
