"""A forfeiting bot's own account of its forfeit (its diagnosis: ledger.rows.game_rows.diagnoses), as the listings
show it: `tourney games --forfeits` and `ladder history --forfeits`, a line each under the table; their --json, whole.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from rich.console import Console

    from tournaments.play.results import GameResult

SHORT_GAME_ID = 12
"""Characters of a game id a table shows: every command that takes a game id takes a unique prefix of it."""
DIAGNOSIS = ("kind", "summary", "detail", "log")
"""What --json gives of a forfeiting bot's account, with ``stderr``: the end of its stderr the ledger kept."""


def forfeit_json(game: GameResult, told: dict) -> dict | None:
    """A game's forfeit as --json gives it (``seat``, ``bot``, ``reason``), with its bot's own account, ``diagnosis``
    (``kind``, ``summary``, ``detail``, ``log``, ``stderr``: the end of its stderr the ledger kept, as a ladder's
    games keep it, else null; null if it left none); null if no seat forfeited. ``told``: the games' diagnoses, read
    with their stderr (ledger.rows.game_rows.diagnoses, ``stderr=True``)."""
    forfeit = game.to_json()["forfeit"]
    if forfeit is not None:
        found = told.get((game.game_id, game.forfeit.seat))
        forfeit["diagnosis"] = None if found is None else {
            **{key: found[key] for key in DIAGNOSIS},
            "stderr": None if found["stderr"] is None else found["stderr"].decode("utf-8", "replace")}
    return forfeit


def own_words(console: Console, named: list[tuple[str, GameResult]], told: dict) -> None:
    """Under a table, a line per forfeit of the ``(name, game)`` pairs in the forfeiting bot's own words, for those
    whose bot left an account (``told``: ``ledger.rows.game_rows.diagnoses``)."""
    lines = [diagnosis_line(name, game, told[game.game_id, game.forfeit.seat]) for name, game in named
             if game.forfeit is not None and (game.game_id, game.forfeit.seat) in told]
    if lines:
        console.print(Text("In the bots' own words (a Python bot's exception, or a program's last line on stderr; "
                           "the whole of it in --json):"), soft_wrap=True)
    for line in lines:  # one line each, never broken here: the terminal wraps it, a pipe reads it whole
        console.print(Text(line), soft_wrap=True)


def diagnosis_line(named: str, game: GameResult, diagnosis: dict) -> str:
    """One line per forfeit: the game as its table names it and the seat, the bot's own account (``KeyError: 'hand'
    at mybot.py line 12, in act``), and where its whole log is (a path relative to here when it is under here; the
    ledger's --json when only the ledger kept its end, as a ladder's games without --bot-logs)."""
    log = diagnosis["log"]
    if log is None and diagnosis["stderr_kept"]:
        where = "no log file: the end of its stderr is in --json"
    elif log is None:
        where = "no log kept: run with --bot-logs DIR to keep one"
    else:
        path = Path(log)
        with contextlib.suppress(ValueError):
            path = path.relative_to(Path.cwd())
        where = f"log: {path}"
    seat = game.forfeit.seat
    return f"  {named} seat {seat} {game.seats[seat].bot}: {diagnosis['summary']} ({where})"
