"""`tourney run` and `tourney standings`."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from tournaments.bots.spec import Limits, Resources
from tournaments.cli import terminal
from tournaments.cli.options import (
    BotLogs,
    CpuSeconds,
    Db,
    Executor,
    Jobs,
    LedgerKey,
    MaxProcesses,
    MemoryMb,
    MoveTime,
    Players,
    RayAddress,
    Sandbox,
    TimeBank,
    games_option,
    jobs_for,
    plural,
    reading,
    require_database,
    tournament_or_newest,
    writing,
)
from tournaments.play import defaults, formats

if TYPE_CHECKING:
    from tournaments.play import executors, runner, standings

DEFAULTS = Resources()


def run(
    folder: Annotated[Path, typer.Argument(help="Folder of bots (Python files, executables, *.bot.json manifests).")],
    game: Annotated[str, typer.Option("--game", help="Game to play: tails-on-fire, nine-tails or lemur-tails.")],
    players: Players = None,
    games: Annotated[int, games_option("Deals per table; each is played from every seat rotation.")]
    = defaults.DEFAULT_GAMES,
    seed: Annotated[str | None, typer.Option(
        "--seed", help="Seed of the schedule and of every deal, chosen by you (default: a secret seed drawn at "
        "random, committed now and revealed when the tournament ends).", show_default=False)] = None,
    name: Annotated[str | None, typer.Option("--name", help="Tournament name (default: <folder>-<game>-seed<seed>, "
                                                            "or -<commitment> for a drawn seed).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a tournament that was interrupted.")] = False,
    jobs: Jobs = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    form: Annotated[str, typer.Option("--format", help="round-robin (every table), gauntlet (--candidate at every "
                                      "table of the others) or swiss (--rounds rounds of tables of similar score).")]
    = formats.ROUND_ROBIN,
    candidate: Annotated[str | None, typer.Option("--candidate", help="The gauntlet's candidate bot (by name).")]
    = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="Swiss rounds (default: ceil(log_k(bots))).")] = None,
    sandbox: Sandbox = "auto",
    memory_mb: MemoryMb = DEFAULTS.memory_mb,
    cpu_seconds: CpuSeconds = DEFAULTS.cpu_seconds,
    max_processes: MaxProcesses = DEFAULTS.max_processes,
    bot_logs: BotLogs = None,
    executor: Executor = defaults.LOCAL,
    ray_address: RayAddress = None,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Play a tournament between the bots in FOLDER (round robin unless --format) and print the standings.

    Example: tourney run bots/ --game tails-on-fire --games 20 --seed 7
    Example: tourney run bots/ --game lemur-tails --format swiss --rounds 5
    """
    from engines import registry
    from ledger import tournaments as tournament_rows
    from tournaments.play import executors, runner, standings

    engine = registry.get(game)
    ledger = writing(db, ledger_key)  # first: a database it cannot use is refused before any bot starts
    if resume:
        require_database(ledger, "resume")
    if form not in formats.FORMATS:
        raise typer.BadParameter(f"--format is one of {', '.join(formats.FORMATS)}, not {form!r}")
    if form == formats.GAUNTLET and candidate is None:
        raise typer.BadParameter("--format gauntlet needs --candidate NAME: the bot that plays at every table")
    if candidate is not None and form != formats.GAUNTLET:
        raise typer.BadParameter("--candidate is for --format gauntlet only")
    if rounds is not None and form != formats.SWISS:
        raise typer.BadParameter("--rounds is for --format swiss only")
    executors.check(executor, ray_address, jobs)
    limits = Limits(move_time, time_bank)
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    console, errors = terminal.console(), terminal.console(stderr=True)
    form_name = None if form == formats.ROUND_ROBIN else form
    namer = runner.default_namer(folder, engine.name, form_name)
    known = runner.known_name(ledger, name, seed, resume, namer, engine.name, form_name)
    confinement, notice = runner.confinement_for(ledger, known, sandbox, resume, resources)
    if notice:
        errors.print(notice, soft_wrap=True)
    prepared, k = runner.prepare(folder, engine.name, players, limits, confinement)
    with prepared:  # the staged copies of the bots' files are removed at the end
        for notice in prepared.notices:
            errors.print(notice, style="yellow")
        chosen = (formats.Gauntlet(candidate) if form == formats.GAUNTLET
                  else formats.Swiss(rounds or formats.default_rounds(len(prepared.bots), k)) if form == formats.SWISS
                  else None)
        spec = runner.Spec(engine.name, k, games, seed, move_time, time_bank, tuple(prepared.bots), format=chosen,
                           sandbox=confinement.sandbox, resources=resources)
        the_run = runner.open_run(ledger, name, spec, resume, namer)
        tournament_name = the_run.name
        workers = jobs_for(jobs, the_run.total - the_run.done)
        done_before = the_run.done
        players_at = executors.open_executor(executor, workers, ray_address)
        if not as_json:
            console.print(f"{tournament_name}: {len(prepared.bots)} bots, {k} per table, "
                          f"{plural(the_run.total, 'game')} ({done_before} already stored), {players_at.describe()}, "
                          f"{'sandboxed' if confinement.sandbox else 'not sandboxed'}", soft_wrap=True)
            console.print(Text(seed_line(the_run.tournament)), soft_wrap=True)
        try:
            with players_at:
                played(ledger, the_run, workers, done_before, console, errors, as_json, bot_logs, players_at)
        except KeyboardInterrupt:
            stored = len(tournament_rows.game_keys(ledger, the_run.tournament["id"]))
            errors.print(f"interrupted: {stored} of {the_run.total} games stored; continue with the same command "
                         "plus --resume", highlight=False)
            raise typer.Exit(130) from None
    if the_run.revealed is not None and not as_json:
        console.print(Text(f"the tournament is over: seed revealed: {the_run.revealed}"), soft_wrap=True)
    show(standings.of_tournament(ledger, str(the_run.tournament["id"])), as_json, los=False)


def seed_line(row: dict) -> str:
    """The tournament's seed as it may be shown: chosen, drawn and revealed, or only its commitment."""
    from tournaments.play import standings

    return seed_line_of(standings.seed_of(row))


def seed_line_of(seed: dict) -> str:
    if seed.get("origin") is None:
        return "no seed (imported games)"
    if seed["seed"] is None:
        return f"seed drawn and secret until the end, commitment {seed['commitment']}"
    return f"seed {seed['seed']} ({'chosen by the organiser' if seed['origin'] == 'organiser' else 'drawn, revealed'})"


def played(ledger, the_run: runner.Run, workers: int, done_before: int, console, errors, as_json: bool,
           bot_logs: Path | None, players_at: executors.Executor) -> None:
    """Play and store the run's games, with a progress bar on a terminal."""
    from tournaments.play import runner

    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeRemainingColumn(), console=console,
                  disable=not console.is_terminal or as_json, transient=True) as bar:
        task = bar.add_task("games", total=the_run.total, completed=done_before, rate="")

        def advance(stored: int) -> None:
            elapsed = bar.tasks[0].elapsed or 0.0
            bar.update(task, completed=done_before + stored,
                       rate=f"{stored / elapsed:.1f} games/s" if elapsed > 0 else "")

        runner.execute(ledger, the_run, workers, advance, bot_logs,
                       lambda text: errors.print(f"notice: {text}", soft_wrap=True), players_at)


def standings_(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    los: Annotated[bool, typer.Option("--los", help="Also print the likelihood-of-superiority matrix.")] = False,
    head_to_head: Annotated[bool, typer.Option(
        "--head-to-head", help="Also print wins-draws-losses of every pair (with --csv: only these, one row a pair)."
    )] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the standings as CSV.")] = False,
    db: Db = None,
) -> None:
    """Print a tournament's standings again, from the database alone (read-only).

    Example: tourney standings bots-tails-on-fire-seed1 --los --head-to-head
    """
    from tournaments.play import standings

    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both")
    ledger = reading(db)
    result = standings.of_tournament(ledger, tournament_or_newest(ledger, tournament))
    if as_csv:
        typer.echo(to_csv(result, head_to_head), nl=False)
        return
    show(result, as_json, los, head_to_head)


CSV_COLUMNS = ("rank", "bot", "games", "first", "mean_place", "score", "elo", "ci_low", "ci_high", "forfeits")


def to_csv(result: standings.Standings, pairs: bool) -> str:
    """The standings (or, with ``pairs``, the head-to-head counts) as CSV with a header row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if pairs:
        writer.writerow(("bot", "opponent", "wins", "draws", "losses"))
        for bot, row in result.head_to_head.items():
            for opponent, counts in row.items():
                writer.writerow((bot, opponent, *counts))
        return buffer.getvalue()
    writer.writerow(CSV_COLUMNS)
    for row in result.rows:
        writer.writerow((row.rank, row.bot, row.games, row.first, f"{row.mean_place:.3f}", f"{row.score:.2f}",
                         f"{row.elo:.1f}", f"{row.ci_low:.1f}", f"{row.ci_high:.1f}", row.forfeits))
    return buffer.getvalue()


def show(result: standings.Standings, as_json: bool, los: bool, head_to_head: bool = False) -> None:
    if as_json:
        typer.echo(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    console = terminal.console()
    widest = max((len(row.bot) for row in result.rows), default=3)
    table = Table(title=f"{result.tournament} ({result.game}, {plural(result.games, 'game')}, "
                        f"{'sandboxed' if result.sandboxed else 'not sandboxed'})")
    for column in ("rank", "bot", "games", "first", "mean place", "score %", "Elo", "95% CI", "forfeits"):
        if column == "bot":
            # A bot's name is never cut: the other columns (the CI first) wrap to make room.
            table.add_column(column, min_width=widest, no_wrap=True)
        else:
            table.add_column(column, justify="right", overflow="fold")
    for row in result.rows:
        table.add_row(str(row.rank), Text(row.bot), str(row.games), str(row.first), f"{row.mean_place:.2f}",
                      f"{row.score:.1f}", f"{row.elo:.0f}", f"{row.ci_low:.0f} to {row.ci_high:.0f}",
                      str(row.forfeits))
    console.print(table)
    for line in [*result.trust.lines(), seed_line_of(result.seed)]:
        console.print(Text(line))
    bots = [row.bot for row in result.rows]
    if los:
        console.print(_matrix("likelihood of superiority (row better than column)", bots, lambda a, b: (
            "n/a" if result.los[a].get(b) is None else f"{result.los[a][b]:.2f}")))
    if head_to_head:
        console.print(_matrix("head to head: wins-draws-losses of the row against the column", bots, lambda a, b: (
            "-".join(str(n) for n in result.head_to_head[a][b]) if b in result.head_to_head[a] else "n/a")))


def _matrix(title: str, bots: list[str], cell) -> Table:
    matrix = Table(title=title)
    matrix.add_column("")
    for bot in bots:
        matrix.add_column(Text(bot), justify="right")
    for a in bots:
        matrix.add_row(Text(a), *["-" if a == b else cell(a, b) for b in bots])
    return matrix
