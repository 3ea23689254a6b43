"""`tourney run` and `tourney standings`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import orjson
import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from engines import registry
from ledger import tournaments as tournament_rows
from ledger.store import Ledger
from tournaments.bots.spec import Limits
from tournaments.cli.options import Db, Jobs, MoveTime, Players, TimeBank, games_option, jobs_for
from tournaments.play import runner, standings

# Off a terminal (pipes, CI logs) rich would wrap tables at 80 columns and cut bot names.
console = Console() if sys.stdout.isatty() else Console(width=160)
errors = Console(stderr=True) if sys.stderr.isatty() else Console(stderr=True, width=160)


def run(
    folder: Annotated[Path, typer.Argument(help="Folder of bots (Python files, executables, *.bot.json manifests).")],
    game: Annotated[str, typer.Option("--game", help="Game to play: tails-on-fire, nine-tails or lemur-tails.")],
    players: Players = None,
    games: Annotated[int, games_option("Deals per table; each is played from every seat rotation.")]
    = runner.DEFAULT_GAMES,
    seed: Annotated[str, typer.Option("--seed", help="Seed of the schedule and of every deal.")] = runner.DEFAULT_SEED,
    name: Annotated[str | None, typer.Option("--name", help="Tournament name (default: <folder>-<game>-seed<seed>).")]
    = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a tournament that was interrupted.")] = False,
    jobs: Jobs = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    db: Db = None,
) -> None:
    """Play a round-robin tournament between the bots in FOLDER and print the standings.

    Example: tourney run bots/ --game tails-on-fire --games 20 --seed 7
    """
    engine = registry.get(game)
    limits = Limits(move_time, time_bank)
    prepared, k = runner.prepare(folder, engine.name, players, limits)
    for notice in prepared.notices:
        errors.print(f"[yellow]{escape(notice)}[/yellow]", highlight=False)
    spec = runner.Spec(engine.name, k, games, seed, move_time, time_bank, tuple(prepared.bots))
    ledger = Ledger(db)
    tournament_name = name or runner.default_name(folder, engine.name, seed)
    the_run = runner.open_run(ledger, tournament_name, spec, resume)
    workers = jobs_for(jobs, len(the_run.pending))
    done_before = the_run.total - len(the_run.pending)
    if not as_json:
        console.print(f"{escape(tournament_name)}: {len(prepared.bots)} bots, {k} per table, {the_run.total} games "
                      f"({done_before} already stored), {workers} jobs", highlight=False)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=console,
                      disable=not console.is_terminal or as_json, transient=True) as bar:
            task = bar.add_task("games", total=the_run.total, completed=done_before, rate="")

            def advance(stored: int) -> None:
                elapsed = bar.tasks[0].elapsed or 0.0
                bar.update(task, completed=done_before + stored,
                           rate=f"{stored / elapsed:.1f} games/s" if elapsed > 0 else "")

            runner.execute(ledger, the_run, workers, advance)
    except KeyboardInterrupt:
        stored = len(tournament_rows.game_keys(ledger, the_run.tournament["id"]))
        errors.print(f"interrupted: {stored} of {the_run.total} games stored; continue with the same command "
                     "plus --resume", highlight=False)
        raise typer.Exit(130) from None
    show(standings.of_tournament(ledger, str(the_run.tournament["id"])), as_json, los=False)


def standings_(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    los: Annotated[bool, typer.Option("--los", help="Also print the likelihood-of-superiority matrix.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    db: Db = None,
) -> None:
    """Print a tournament's standings again, from the database alone.

    Example: tourney standings bots-tails-on-fire-seed1 --los
    """
    ledger = Ledger(db)
    if tournament is None:
        newest = tournament_rows.latest(ledger)
        if newest is None:
            raise runner.TournamentError(f"no tournaments in {ledger.url} yet: run `tourney run` first")
        tournament = str(newest["id"])
    show(standings.of_tournament(ledger, tournament), as_json, los)


def show(result: standings.Standings, as_json: bool, los: bool) -> None:
    if as_json:
        typer.echo(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    table = Table(title=f"{escape(result.tournament)} ({result.game}, {result.games} games)")
    for column in ("rank", "bot", "games", "first", "mean place", "score %", "Elo", "95% CI"):
        table.add_column(column, justify="left" if column == "bot" else "right")
    for row in result.rows:
        table.add_row(str(row.rank), escape(row.bot), str(row.games), str(row.first), f"{row.mean_place:.2f}",
                      f"{row.score:.1f}", f"{row.elo:.0f}", f"{row.ci_low:.0f} to {row.ci_high:.0f}")
    console.print(table)
    if los:
        bots = [row.bot for row in result.rows]
        matrix = Table(title="likelihood of superiority (row better than column)")
        matrix.add_column("")
        for bot in bots:
            matrix.add_column(escape(bot), justify="right")
        for a in bots:
            cells = [("-" if a == b else "n/a" if result.los[a].get(b) is None else f"{result.los[a][b]:.2f}")
                     for b in bots]
            matrix.add_row(escape(a), *cells)
        console.print(matrix)
