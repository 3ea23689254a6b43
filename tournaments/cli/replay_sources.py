"""What `tourney replay show`, `html` and `export` are given: a --view of the right form, a log file (a JSON log or a
text record) or a stored game by its id."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tournaments.cli.options import reading

if TYPE_CHECKING:  # the library is imported by the commands, never for --help
    from ledger.store import Ledger


def check_view(value: str | None) -> str | None:
    """A --view of the right form: full, spectator or seat:K (K in digits), else a usage error (exit 2); a seat the
    game does not have is the log's refusal (exit 1), said where the log is read (replays.log.parse_view)."""
    if value is None or value in ("full", "spectator"):
        return value
    kind, _, number = value.partition(":")
    if kind == "seat" and number.isascii() and number.isdigit():
        return value
    raise typer.BadParameter(f"{value!r} is not a view: use full, spectator or seat:K (K a seat number, from 0)")


def resolve_game(ledger: Ledger, game_id: str) -> str:
    """A full game id from a unique prefix (game_rows.MIN_GAME_PREFIX characters or more); LogError if none or
    several match."""
    from ledger.rows import game_rows
    from replays import log as logfmt

    found = ledger.find_games(game_rows.check_game_prefix(game_id))
    if not found:
        raise logfmt.LogError(f"no game {game_id!r} in {ledger.url}")
    if len(found) > 1 and found[0] != game_id:
        raise logfmt.LogError(f"game id {game_id!r} is ambiguous: give more characters")
    return found[0]


def log_named(source: str, db: str | None) -> tuple[dict, str, Path | None]:
    """The log `replay show` or `replay html` is given: a file (a JSON log or a text record), or else a stored
    game's id (or prefix) in ``db``; with the name its errors give and the file read (None: a stored game).
    A name that looks like a file's (a .json or .record suffix, or a slash) and is not there is refused as a
    missing file, not looked up as a game id."""
    from replays import archive
    from replays import log as logfmt
    from replays.text_record import SUFFIX
    from replays.verify import read_file

    path = Path(source)
    if path.exists():
        return read_file(path)[0], source, path
    if path.suffix in (".json", SUFFIX) or "/" in source:
        raise logfmt.LogError(f"{source}: no such file or directory")
    ledger = reading(db)
    log = archive.export(ledger, resolve_game(ledger, source))
    return log, f"game {log['game_id']}", None
