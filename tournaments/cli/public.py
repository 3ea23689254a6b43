"""`tourney ladder work` and `tourney ladder publish`: running a ladder that `tourney serve` shows."""

from __future__ import annotations

from typing import Annotated

import typer

from ledger import ladders as rows
from tournaments.cli.ladder import limits_of
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
    plural,
    seconds_option,
    whole_option,
    writing,
)
from tournaments.ladder import league, worker


def work(
    name: Annotated[str, typer.Argument(help="The league.")],
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
    cpu_seconds: CpuSeconds = league.CPU_SECONDS,
    memory_mb: MemoryMb = league.MEMORY_MB,
    max_processes: MaxProcesses = league.MAX_PROCESSES,
    bot_logs: BotLogs = None,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Run a ladder: validate the bots submitted through `tourney serve`, then play games, round after round.

    Each round validates every waiting submission (the same validation games as `ladder submit`,
    in the sandbox) and then plays --games matchmade games. The end of each bot's stderr per game is
    stored with the game for its owner to read on the web (and, with --bot-logs, written to files too).

    Example: tourney ladder work spring --games 50 --jobs 2 --db league.db
    """
    ledger = writing(db, ledger_key)
    limits = limits_of(move_time, time_bank, cpu_seconds, memory_mb, max_processes)
    played = 0
    try:
        played = worker.work(ledger, name, games, jobs_for(jobs, games), limits, seed, rounds, idle,
                             typer.echo, bot_logs)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: every game stored so far is rated on {name}; run `tourney ladder work` again to "
                   "go on", err=True)
        raise typer.Exit(130) from None
    typer.echo(f"stopped after {plural(rounds or 0, 'round')}: {plural(played, 'game')} played on {name}")


def publish(
    name: Annotated[str, typer.Argument(help="The league.")],
    view: Annotated[str, typer.Argument(help="spectator (no hidden card ever shown) or full (every hand, once a "
                                             "game is over).")],
    db: Db = None,
) -> None:
    """Choose what `tourney serve` shows of a ladder's finished games: the spectator view, or the full one too.

    Example: tourney ladder publish spring full --db league.db
    """
    ledger = writing(db)
    ladder = rows.get(ledger, name)
    if view not in rows.PUBLISHED_VIEWS:
        raise typer.BadParameter(f"{view!r} is not spectator or full")
    rows.set_publish(ledger, ladder["id"], view)
    typer.echo(f"{name} publishes {view} logs of its finished games")
