"""The `tourney` command line: thin commands over the library.

Each command opens what it needs, calls one library function, and turns the
library's errors into one clear line on stderr and a non-zero exit (never a
traceback for bad input): ``error: <one line>``, exit 1; a usage error (an unknown
option, a value out of range) is one such line too, with exit 2; Ctrl-C is one line
and exit 130 (a second press, while the command stops, is ignored).

Starting is cheap: `tourney --help`, `--version` and every command's `--help` import no
database or web library (issue 30.5, bench/startup.py). The command modules import the
library (the ledger, SQLAlchemy) inside the commands, and the errors a command turns into
one line are looked up only once a command has failed.
"""

from __future__ import annotations

import signal
import sys
import threading
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from tournaments.cli import db, deals, keys, ladder, listing, match, public, replay, run, serve, users


def user_errors() -> tuple[type[BaseException], ...]:
    """The library's errors that a user (or a bot) can cause: each is one line and exit 1.

    Imported when a command has failed, never at start-up (the ledger's module brings SQLAlchemy).
    """
    from engines.base import EngineError
    from ledger.canonical import CanonicalError
    from ledger.store import LedgerError
    from replays.log import LogError
    from tournaments.bots.spec import BotError
    from tournaments.ladder.league import LadderError
    from tournaments.play.executors.local_pool import WorkerDied
    from tournaments.play.runner import TournamentError
    from tournaments.play.schedule import ScheduleError

    return (LedgerError, LogError, EngineError, CanonicalError, BotError, TournamentError, ScheduleError,
            WorkerDied, LadderError, serve.WebMissing)

# Typer ships click (or its own copy of it): its errors come from the module BadParameter lives in.
_click_errors = sys.modules[typer.BadParameter.__module__]
ClickException = _click_errors.ClickException
NoArgsIsHelpError = getattr(_click_errors, "NoArgsIsHelpError", ())



def one_line(text: str, fallback: str) -> str:
    """The first non-empty line of ``text`` (error messages are one line on the terminal)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[0] if lines else fallback


def os_error_line(error: OSError) -> str:
    where = error.filename if error.filename is not None else ""
    reason = error.strerror or one_line(str(error), type(error).__name__)
    return f"{where}: {reason}" if where else reason


class CleanErrors(TyperGroup):
    """Every failure a user can cause ends as one ``error: ...`` line, never a traceback."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except NoArgsIsHelpError as shown:
            typer.echo(shown.format_message())
            code = 2
        except ClickException as error:
            # Click's own form is a usage line, a hint and a boxed message: one line here, as for every error.
            command = error.ctx.command_path if getattr(error, "ctx", None) is not None else "tourney"
            hint = f" (see `{command} --help`)" if error.exit_code == 2 else ""
            typer.echo(f"error: {one_line(error.format_message(), type(error).__name__)}{hint}", err=True)
            code = error.exit_code
        except typer.Abort:
            typer.echo("error: aborted", err=True)
            code = 1
        if standalone_mode:
            sys.exit(code)
        return code

    def invoke(self, ctx: typer.Context) -> Any:
        handler = _take_ctrl_c()
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            typer.echo("error: interrupted", err=True)
            raise typer.Exit(130) from None
        except (typer.Exit, ClickException):
            raise
        except Exception as error:
            if isinstance(error, user_errors()):
                typer.echo(f"error: {one_line(str(error), type(error).__name__)}", err=True)
                raise typer.Exit(1) from None
            if isinstance(error, OSError):  # a file the user named: missing, unwritable, a folder, a full disk
                typer.echo(f"error: {os_error_line(error)}", err=True)
                raise typer.Exit(1) from None
            raise
        finally:
            if handler is not None and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
                signal.signal(signal.SIGINT, handler)  # once stopped by Ctrl-C, the process ends ignoring it
            # A command's warm sandboxes end with it (in a test's process too, which lives on), and
            # what its dead workers' sandboxes left (groups frozen when a worker was SIGKILLed) with them.
            warm = sys.modules.get("tournaments.sandbox.warm")
            if warm is not None:
                warm.pool.close()
                sys.modules["tournaments.sandbox.cgroups"].sweep()


def _take_ctrl_c() -> Any:
    """Make Ctrl-C Python's KeyboardInterrupt while a command runs, once (_stopped); the handler it replaced."""
    if threading.current_thread() is not threading.main_thread():
        return None
    previous = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, _stopped)
    return previous


def _stopped(_signum: int, _frame: Any) -> None:
    """The first Ctrl-C stops the command; the next ones are ignored, so that none cuts short what it stores as it
    stops, or adds a second line to the one that says what was stored."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    raise KeyboardInterrupt


def version() -> str:
    from importlib import metadata  # only `--version` reads it: its import (email, zipfile, csv) costs every start

    try:
        return metadata.version("tourney")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        typer.echo(f"tourney {version()}")
        raise typer.Exit(0)


app = typer.Typer(
    cls=CleanErrors,
    name="tourney",
    help="Play, rate and audit card-game bots: tournaments, ladders, verifiable replays.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
)


@app.callback()
def _top(
    _version: Annotated[bool, typer.Option("--version", help="Print tourney's version and exit.",
                                           callback=_show_version, is_eager=True)] = False,
) -> None:
    """Play, rate and audit card-game bots: tournaments, ladders, verifiable replays."""


app.command("run")(run.run)
app.command("standings")(run.standings_)
app.command("list")(listing.list_)
app.command("games")(listing.games)
app.command("match")(match.match)
app.add_typer(db.app, name="db")
app.add_typer(deals.app, name="deals")
app.add_typer(replay.app, name="replay")
app.add_typer(keys.app, name="keys")
app.add_typer(ladder.app, name="ladder")
app.add_typer(users.app, name="users")
app.command("serve")(serve.serve)
ladder.app.command("work")(public.work)
ladder.app.command("queue")(public.queue)
ladder.app.command("publish")(public.publish)


def main() -> None:
    """Run the command line (the console script goes through tournaments.__main__ first)."""
    app(prog_name="tourney")
