"""`tourney replay`: export, import (and later verify and show) JSON game logs."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ledger.store import Ledger
from replays import archive
from replays import log as logfmt
from tournaments.cli.options import Db

app = typer.Typer(help="JSON game logs: export, import.", no_args_is_help=True)


def log_files(paths: list[Path]) -> list[Path]:
    """The .json files named, directories expanded (sorted); LogError for a missing path."""
    out: list[Path] = []
    for path in paths:
        if path.is_dir():
            out.extend(sorted(p for p in path.iterdir() if p.suffix == ".json"))
        elif path.exists():
            out.append(path)
        else:
            raise logfmt.LogError(f"{path}: no such file or directory")
    return out


def resolve_game(ledger: Ledger, game_id: str) -> str:
    """A full game id from a unique prefix; LogError if none or several match."""
    found = ledger.find_games(game_id)
    if not found:
        raise logfmt.LogError(f"no game {game_id!r} in {ledger.url}")
    if len(found) > 1 and found[0] != game_id:
        raise logfmt.LogError(f"game id {game_id!r} is ambiguous: give more characters")
    return found[0]


@app.command("export")
def export_(
    game_id: Annotated[str, typer.Argument(help="Game id (or a unique prefix of it).")],
    out: Annotated[Path, typer.Option("--out", help="Directory to write <game id>.json into.")],
    db: Db = None,
) -> None:
    """Export a stored game as a self-contained JSON log.

    Example: tourney replay export 3f2a --out logs/
    """
    ledger = Ledger(db)
    full_id = resolve_game(ledger, game_id)
    log = archive.export(ledger, full_id)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{full_id}.json"
    target.write_bytes(logfmt.dumps(log))
    typer.echo(f"wrote {target} ({len(log['events'])} events)")


@app.command("import")
def import_(
    paths: Annotated[list[Path], typer.Argument(help="Log files or directories of .json logs.")],
    db: Db = None,
) -> None:
    """Verify JSON logs and store them in the ledger (the same log twice stores one game).

    Example: tourney replay import logs/ --db league.db
    """
    ledger = Ledger(db)
    files = log_files(paths)
    new = 0
    for path in files:
        result = archive.import_log(ledger, logfmt.read(path), str(path))
        new += result.new
        typer.echo(f"{path}: game {result.game_id} {'stored' if result.new else 'already stored'}")
    typer.echo(f"{len(files)} logs read, {new} new games stored")
