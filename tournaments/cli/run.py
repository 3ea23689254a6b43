"""`tourney run` and `tourney standings`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

import tournaments.cli.output as output
import tournaments.cli.report as report
import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.bots.spec import CPU, Resources
from tournaments.cli.options import (
    MAX_ROUNDS,
    BotLogs,
    Check,
    Clock,
    CpuSeconds,
    Db,
    Deals,
    Executor,
    Interval,
    Jobs,
    LedgerKey,
    MaxProcesses,
    MemoryMb,
    MoveTime,
    Players,
    Ponder,
    ProgressMode,
    RayAddress,
    ReportEvery,
    ReportSeconds,
    Sandbox,
    TimeBank,
    TimeControl,
    games_option,
    given,
    given_on_command_line,
    plural,
    reading,
    require_database,
    text_option,
    time_limits,
    tournament_or_newest,
    undone_on_failure,
    whole_option,
    writing,
)
from tournaments.cli.output import LEGEND as LEGEND  # where tests have read it
from tournaments.cli.output import seed_line_of
from tournaments.play import defaults, formats

if TYPE_CHECKING:
    from tournaments.library import runs
    from tournaments.play import runner, standings

DEFAULTS = Resources()


def run(
    ctx: typer.Context,
    folder: Annotated[str, typer.Argument(help="Folder of bots (Python files, executables, *.bot.json manifests).",
                                          callback=given(optional=False))],
    game: Annotated[str, typer.Option("--game", help="Game to play: tails-on-fire, nine-tails or lemur-tails.")],
    players: Players = None,
    games: Annotated[int, games_option("Deals per table; each is played from every seat rotation.")]
    = defaults.DEFAULT_GAMES,
    seed: Annotated[str | None, text_option(
        "--seed", "Seed of the schedule and of every deal, chosen by you (default: a secret seed drawn at "
        "random, committed now and revealed when the tournament ends).", show_default=False)] = None,
    name: Annotated[str | None, text_option("--name", "Tournament name (default: <folder>-<game>-seed<seed>, "
                                                      "or -<commitment> for a drawn seed).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a tournament that was interrupted.")] = False,
    jobs: Jobs = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    tc: TimeControl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    form: Annotated[str, typer.Option("--format", help="round-robin (every table), gauntlet (--candidate at every "
                                      "table of the others) or swiss (--rounds rounds of tables of similar score).")]
    = formats.ROUND_ROBIN,
    candidate: Annotated[str | None, text_option("--candidate", "The gauntlet's candidate bot (by name).")] = None,
    rounds: Annotated[int | None, whole_option("--rounds", "Swiss rounds (default: ceil(log_k(bots))).", 1, MAX_ROUNDS,
                                               "rounds", show_default=False)] = None,
    deals: Deals = None,
    sandbox: Sandbox = "auto",
    clock: Clock = None,
    ponder: Ponder = None,
    memory_mb: MemoryMb = DEFAULTS.memory_mb,
    cpu_seconds: CpuSeconds = DEFAULTS.cpu_seconds,
    max_processes: MaxProcesses = DEFAULTS.max_processes,
    bot_logs: BotLogs = None,
    executor: Executor = defaults.LOCAL,
    ray_address: RayAddress = None,
    progress: ProgressMode = report.AUTO,
    report_every: ReportEvery = report.REPORT_EVERY,
    report_seconds: ReportSeconds = defaults.REPORT_SECONDS,
    interval: Interval = defaults.CURVATURE,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Play a tournament between the bots in FOLDER (round robin unless --format) and print the standings.

    \b
    Example: tourney run bots/ --game tails-on-fire --games 20 --seed 7
    Example: tourney run bots/ --game lemur-tails --format swiss --rounds 5
    Example: tourney run bots/ --game lemur-tails --deals lemur-tails-50.deals
    Example: tourney run bots/ --game lemur-tails --tc 10+0.1
    """
    from engines import registry
    from tournaments.library import runs
    from tournaments.play import naming
    from tournaments.play.executors import choice

    registry.get(game)
    ledger = writing(db, ledger_key)  # first: a database it cannot use is refused before any bot starts
    if resume:
        require_database(ledger, "resume")
    try:  # options that contradict each other, or a name that would be read as another: usage errors (exit 2)
        runs.check_format(form, candidate, rounds)
        choice.conflicts(executor, ray_address, jobs)
        if name is not None and not resume:
            naming.check_new_name(name)
    except runs.TournamentError as error:
        raise typer.BadParameter(str(error)) from None
    choice.check(executor, ray_address, jobs)
    limits, clock = time_limits(ctx, tc, move_time, time_bank, clock)
    if sandbox == "off" and (clock == CPU or ponder is False):
        raise typer.BadParameter("--clock cpu and --no-ponder need the sandbox (its cgroups): not with --sandbox off")
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    shown = Shown(as_json, progress, report_every, report_seconds)
    try:
        result = _played(shown, ledger, runs.run_tournament, Path(folder), game, players=players,
                         games=games if given_on_command_line(ctx, "games") else None, seed=seed, name=name,
                         resume=resume, jobs=jobs, limits=limits, form=form, candidate=candidate, rounds=rounds,
                         deals=deals, sandbox=sandbox, clock=clock, ponder=ponder, resources=resources,
                         bot_logs=bot_logs, executor=executor, ray_address=ray_address, interval=interval, db=ledger,
                         observer=shown)
        if result.revealed is not None and not as_json:
            shown.console.print(Text(f"the tournament is over: seed revealed: {result.revealed}"), soft_wrap=True)
        output.renderer(as_json).standings(result.standings, legend=True, game_id=result.first_game, db=db)
    except (terminal.OutputClosed, BrokenPipeError):  # before the first game, or at the standings: nothing is lost
        terminal.to_devnull(sys.stdout)
        shown.errors.print("error: stdout was closed (its reader went away); every game played is stored",
                           highlight=False, soft_wrap=True)
        raise typer.Exit(1) from None


def _played(shown: Shown, ledger, play, *args, **kwargs):
    """``play(*args, **kwargs)`` (the library's run): a database it made is removed if it fails before its
    tournament begins; stopped while playing (Ctrl-C, or stdout closed), the one line of how many games are stored
    and how to go on, exit 130 (Ctrl-C) or 1 (stdout closed)."""
    from tournaments.library import runs

    try:
        with undone_on_failure(ledger):
            return play(*args, **kwargs)
    except runs.Interrupted as stop:
        closed = isinstance(stop.reason, terminal.OutputClosed)
        shown.errors.print(f"{'stdout was closed' if closed else 'interrupted'}: {stop.stored} of {stop.total} games "
                           "stored; continue with the same command plus --resume", highlight=False, soft_wrap=True)
        raise typer.Exit(1 if closed else 130) from None


class Shown:
    """What `tourney run` shows while it plays (tournaments.library.runs.Observer): the notices on stderr, the
    run's first lines, then a line per game or a bar, and a report every --report-every games."""

    def __init__(self, as_json: bool, progress: str, every: int, seconds: float) -> None:
        self.console, self.errors = terminal.console(), terminal.console(stderr=True)
        self.as_json, self.progress, self.every, self.seconds = as_json, progress, every, seconds
        self.running: standings.Running | None = None
        self.display: report.Display | None = None

    def notice(self, kind: str, text: str) -> None:
        from tournaments.library import runs

        if kind == runs.WORKER:
            self.errors.print(f"notice: {text}", soft_wrap=True)
        elif kind == runs.BOTS:
            self.errors.print(text, style="yellow", soft_wrap=True)  # one line each: a pipe reads it whole
        else:
            self.errors.print(text, soft_wrap=True)

    def started(self, started: runs.Started) -> None:
        from tournaments.sandbox import sandbox as bot_sandbox

        the_run = started.run
        if self.as_json:
            return
        self.console.print(f"{the_run.name}: {started.bots} bots, {started.players} per table, "
                           f"{plural(the_run.total, 'game')} ({started.done} already stored), "
                           f"{started.executor.describe()}, {bot_sandbox.describe(started.confinement)}",
                           soft_wrap=True)
        self.console.print(Text(seed_line(the_run.tournament)), soft_wrap=True)
        if the_run.spec.deals is not None:
            self.console.print(Text(book_line(the_run.spec.deals)), soft_wrap=True)

    def playing(self, started: runs.Started) -> report.Display:
        from tournaments.play import standings

        the_run = started.run
        running = self.running = standings.Running(started.ledger, the_run.tournament)
        shown = self.errors if self.as_json else self.console  # with --json, stdout is the JSON alone
        self.display = report.Display(shown, report.mode_for(self.progress, shown, self.as_json),
                                      self.every, the_run.total, started.done,
                                      lambda: running_standings(running, the_run, shown),
                                      seconds=self.seconds)
        return self.display

    def game(self, result: runner.Result) -> None:
        assert self.running is not None and self.display is not None
        self.running.add(result.recorded)
        self.display.game(result)


def seed_line(row: dict) -> str:
    """The tournament's seed as it may be shown: chosen, drawn and revealed, or only its commitment."""
    from tournaments.play import standings

    return seed_line_of(standings.seed_of(row))


def book_line(seeds: tuple[str, ...]) -> str:
    """What a run plays from a deal book (docs/tournaments.md, "Deal books")."""
    return f"deal book: {plural(len(seeds), 'deal')} (the first {seeds[0][:12]}…), each from every seat rotation"


def running_standings(running: standings.Running, the_run: runner.Run, console) -> Table:
    """The report every --report-every games: the standings of the games stored so far (fastchess's table), from
    sums kept as games are stored, the fit started from the last report's, the interval from its curvature:
    no game is read again, nothing is resampled."""
    now = running.standings()
    return compact(now, console, f"standings after {plural(now.games, 'game')} of {the_run.total}")


def standings_(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    los: Annotated[bool, typer.Option("--los", help="Also print the likelihood-of-superiority matrix (with --csv: "
                                      "one row a pair instead of the standings, as --head-to-head).")] = False,
    head_to_head: Annotated[bool, typer.Option(
        "--head-to-head", help="Also print wins-draws-losses of every pair (with --csv: one row a pair instead of the "
        "standings).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the standings as CSV.")] = False,
    interval: Interval = defaults.CURVATURE,
    check: Check = False,
    db: Db = None,
) -> None:
    """Print a tournament's standings again, from the database alone (read-only).

    \b
    Example: tourney standings bots-tails-on-fire-seed1 --los --head-to-head
    """
    from tournaments.play import standings

    shown = output.renderer(as_json, as_csv)  # both: refused before the database is read
    ledger = reading(db)
    ref = tournament_or_newest(ledger, tournament, "its standings are in `tourney ladder standings {ref}`")
    shown.standings(standings.of_tournament(ledger, ref, interval, check=check), los, head_to_head)


COMPACT = (tables.Column("#"), tables.Column("bot", tables.NAME), tables.Column("Elo"), tables.Column("+/-"),
           tables.Column("games"), tables.Column("score"), tables.Column("draws"), tables.Column("LOS"))


def compact(result: standings.Standings, console, title: str) -> Table:
    """The standings as fastchess reports them while it plays: Elo +/- half its 95% interval, score, the share of
    drawn pairs, and the LOS of each bot over the one ranked below it (from their results against each other)."""
    rows = []
    for position, row in enumerate(result.rows):
        met = result.head_to_head.get(row.bot, {})
        pairs = sum(sum(counts) for counts in met.values())
        draws = sum(counts[1] for counts in met.values())
        below = result.rows[position + 1].bot if position + 1 < len(result.rows) else None
        los = None if below is None else result.los.get(row.bot, {}).get(below)
        rows.append((str(row.rank), Text(row.bot), f"{row.elo:.0f}", f"{(row.ci_high - row.ci_low) / 2:.0f}",
                     str(row.games), f"{row.score:.1f}%", f"{100 * draws / pairs:.1f}%" if pairs else "-",
                     "" if los is None else f"{100 * los:.1f}%"))
    return tables.fitted(console, COMPACT, rows, title)


