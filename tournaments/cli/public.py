"""`tourney ladder work`, `ladder queue` and `ladder publish`: running a ladder that `tourney serve` shows."""

from __future__ import annotations

import signal
from typing import Annotated

import orjson
import typer
from rich.text import Text

import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.cli.ladder import DEFAULTS, game_lines, limits_of, on_a_ladder
from tournaments.cli.options import (
    BotLogs,
    CpuSeconds,
    Db,
    Jobs,
    LedgerKey,
    MaxProcesses,
    MemoryMb,
    MoveTime,
    TimeBank,
    games_option,
    jobs_for,
    ladder_named,
    plural,
    reading,
    seconds_option,
    whole_option,
    writing,
)
from tournaments.ladder.ladder_defaults import LEASE


def work(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    games: Annotated[int, games_option("Games to play per round (whole seat rotations, so maybe a few more).")] = 20,
    rounds: Annotated[int | None, whole_option(
        "--rounds", "Rounds to run, then stop (default: until Ctrl-C).", 1, 1_000_000, "rounds",
        show_default=False)] = None,
    idle: Annotated[float, seconds_option("--idle", "Seconds to wait when a round found nothing to do.")] = 10.0,
    jobs: Jobs = None,
    seed: Annotated[str | None, typer.Option(
        "--seed", help="Seed of the rounds' matchmaking and deals, chosen by you: round N plays session seed SEED-rN "
        "(default: each round's seed drawn at random, committed, and revealed when its session stops).",
        show_default=False)] = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    cpu_seconds: CpuSeconds = DEFAULTS.cpu_seconds,
    memory_mb: MemoryMb = DEFAULTS.memory_mb,
    max_processes: MaxProcesses = DEFAULTS.max_processes,
    bot_logs: BotLogs = None,
    lease: Annotated[float, seconds_option(
        "--lease", "Seconds a claimed match stays this worker's without renewal (renewed every third of that while "
        "it plays): when a worker dies, another claims its match once its lease has run out.")] = LEASE,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Run a ladder: validate the bots submitted through `tourney serve`, then play games, round after round.

    Each round validates every waiting submission (the same validation games as `ladder submit`,
    in the sandbox) and then plays matches from the ladder's queue in the database, opening a session
    of --games matchmade games when no open session has any left. Any number of workers, on any number
    of machines sharing the database (PostgreSQL) and the ledger key, may work one ladder: each match
    is claimed by one worker with a lease and stored exactly once. The end of each bot's stderr per game
    is stored with the game for its owner to read on the web (and, with --bot-logs, written to files too).
    SIGTERM stops a worker as Ctrl-C does: the matches it holds go back to the queue at once.

    \b
    Example: tourney ladder work spring --games 50 --jobs 2 --db league.db
    """
    from tournaments.ladder import worker

    ledger = on_a_ladder(writing(db, ledger_key), name)
    name = ladder_named(ledger, name)
    limits = limits_of(move_time, time_bank, cpu_seconds, memory_mb, max_processes)
    played = 0
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        played = worker.work(ledger, name, games, jobs_for(jobs, games), limits, seed, rounds, idle,
                             typer.echo, bot_logs, lease, game_lines(typer.echo))
    except KeyboardInterrupt:
        typer.echo(f"interrupted: every game stored so far is rated on {name}; run `tourney ladder work` again to "
                   "go on", err=True)
        raise typer.Exit(130) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    typer.echo(f"stopped after {plural(rounds or 0, 'round')}: {plural(played, 'game')} played on {name}")


def _interrupt(_signum, _frame) -> None:
    raise KeyboardInterrupt


def queue(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    every: Annotated[bool, typer.Option("--all", help="Also list the stored and cancelled matches.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: Db = None,
) -> None:
    """Show a ladder's match queue: the matches waiting or being played, with their table and worker.

    \b
    Example: tourney ladder queue spring --all --json
    """
    from ledger.rows import ladder_rows, match_rows

    ledger = reading(db)
    name = ladder_named(ledger, name)
    ladder = ladder_rows.get(ledger, name)
    labels = {e["id"]: f"{e['name']} v{e['version']}" for e in ladder_rows.entries(ledger, ladder["id"],
                                                                                   active_only=False)}
    shown = [{**match, "table": [labels[e] for e in match.pop("entries")]}
             for match in match_rows.matches(ledger, ladder["id"])
             if every or match["status"] in (match_rows.QUEUED, match_rows.PLAYING)]
    if as_json:
        typer.echo(orjson.dumps(shown, option=orjson.OPT_INDENT_2).decode())
        return
    columns = [tables.Column("match"), tables.Column("session"), tables.Column("deal"),
               tables.Column("table", tables.PROSE), tables.Column("status", tables.WORD),
               tables.Column("worker", tables.NAME), tables.Column("attempts")]
    console = terminal.console()
    console.print(tables.fitted(console, columns, [
        (str(match["id"]), str(match["session"]), str(match["deal"]), Text(", ".join(match["table"])),
         match["status"], Text(match["worker"] or ""), str(match["attempts"])) for match in shown],
        Text(f"ladder {name} queue")))
    if not shown:
        typer.echo("no match is waiting or being played" + ("" if every else " (--all lists the stored ones)"))


def publish(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    view: Annotated[str, typer.Argument(help="spectator (no hidden card ever shown) or full (every hand, once a "
                                             "game is over).")],
    db: Db = None,
) -> None:
    """Choose what `tourney serve` shows of a ladder's finished games: the spectator view, or the full one too.

    \b
    Example: tourney ladder publish spring full --db league.db
    """
    from ledger.rows import ladder_rows

    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    ladder = ladder_rows.get(ledger, name)
    if view not in ladder_rows.PUBLISHED_VIEWS:
        raise typer.BadParameter(f"{view!r} is not spectator or full")
    ladder_rows.set_publish(ledger, ladder["id"], view)
    typer.echo(f"{name} publishes {view} logs of its finished games")
