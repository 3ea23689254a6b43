"""The `tourney` command line: thin commands over the library.

Each command opens what it needs, calls one library function, and turns the
library's errors into one clear line on stderr and a non-zero exit (never a
traceback for bad input).
"""

from __future__ import annotations

import sys

import typer
from typer.core import TyperGroup

from engines.base import EngineError
from ledger.canonical import CanonicalError
from ledger.store import LedgerError
from replays.log import LogError
from tournaments.bots.spec import BotError
from tournaments.cli import db, keys, ladder, replay, run
from tournaments.ladder.league import LadderError
from tournaments.play.runner import TournamentError
from tournaments.play.schedule import ScheduleError
from tournaments.play.workers import WorkerDied

USER_ERRORS: tuple[type[BaseException], ...] = (
    LedgerError, LogError, EngineError, CanonicalError, BotError, TournamentError, ScheduleError, WorkerDied,
    LadderError,
)


class CleanErrors(TyperGroup):
    """Prints a library error as ``error: <one line>`` and exits 1 instead of a traceback."""

    def invoke(self, ctx: typer.Context):
        try:
            return super().invoke(ctx)
        except USER_ERRORS as error:
            message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            typer.echo(f"error: {message}", err=True)
            raise typer.Exit(1) from None


app = typer.Typer(
    cls=CleanErrors,
    name="tourney",
    help="Play, rate and audit card-game bots: tournaments, ladders, verifiable replays.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command("run")(run.run)
app.command("standings")(run.standings_)
app.add_typer(db.app, name="db")
app.add_typer(replay.app, name="replay")
app.add_typer(keys.app, name="keys")
app.add_typer(ladder.app, name="ladder")


def main() -> None:
    """Console-script entry point."""
    sys.exit(app(standalone_mode=True))
