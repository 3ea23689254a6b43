"""`tourney run` and `tourney standings`."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.table import Table
from rich.text import Text

import tournaments.cli.report as report
import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.bots.spec import Resources
from tournaments.cli.options import (
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
    given_on_command_line,
    jobs_for,
    plural,
    reading,
    require_database,
    time_limits,
    tournament_or_newest,
    writing,
)
from tournaments.play import defaults, formats

if TYPE_CHECKING:
    from tournaments.play import executors, runner, standings

DEFAULTS = Resources()


def run(
    ctx: typer.Context,
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
    tc: TimeControl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    form: Annotated[str, typer.Option("--format", help="round-robin (every table), gauntlet (--candidate at every "
                                      "table of the others) or swiss (--rounds rounds of tables of similar score).")]
    = formats.ROUND_ROBIN,
    candidate: Annotated[str | None, typer.Option("--candidate", help="The gauntlet's candidate bot (by name).")]
    = None,
    rounds: Annotated[int | None, typer.Option("--rounds", help="Swiss rounds (default: ceil(log_k(bots))).")] = None,
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

    Example: tourney run bots/ --game tails-on-fire --games 20 --seed 7
    Example: tourney run bots/ --game lemur-tails --format swiss --rounds 5
    Example: tourney run bots/ --game lemur-tails --deals lemur-tails-50.deals
    Example: tourney run bots/ --game lemur-tails --tc 10+0.1
    """
    from engines import registry
    from ledger import tournaments as tournament_rows
    from tournaments.play import deals as deal_books
    from tournaments.play import executors, preparation, runner, standings
    from tournaments.sandbox import sandbox as bot_sandbox

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
    limits, clock = time_limits(ctx, tc, move_time, time_bank, clock)
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    console, errors = terminal.console(), terminal.console(stderr=True)
    form_name = None if form == formats.ROUND_ROBIN else form
    namer = runner.default_namer(folder, engine.name, form_name)
    known = runner.known_name(ledger, name, seed, resume, namer, engine.name, form_name)
    # The book is read before any bot starts; a resume without --deals plays the one its tournament keeps.
    book = deal_books.for_run(ledger, known if resume else None, deals, engine.name)
    games = deal_books.deals_to_play(book, games if given_on_command_line(ctx, "games") else None, games)
    confinement, notice = preparation.confinement_for(ledger, known, sandbox, resume, resources, clock, ponder)
    if notice:
        errors.print(notice, soft_wrap=True)
    prepared, k = preparation.prepare(folder, engine.name, players, limits, confinement)
    with prepared:  # the staged copies of the bots' files are removed at the end
        for notice in prepared.notices:
            errors.print(notice, style="yellow", soft_wrap=True)  # one line each: a pipe reads it whole
        chosen = (formats.Gauntlet(candidate) if form == formats.GAUNTLET
                  else formats.Swiss(rounds or formats.default_rounds(len(prepared.bots), k)) if form == formats.SWISS
                  else None)
        spec = runner.Spec(engine.name, k, games, seed, limits.move_time, limits.time_bank, tuple(prepared.bots),
                           format=chosen, sandbox=confinement.sandbox, resources=resources, clock=confinement.clock,
                           ponder=confinement.ponder, deals=None if book is None else book.seeds,
                           increment=limits.increment)
        the_run = runner.open_run(ledger, name, spec, resume, namer)
        tournament_name = the_run.name
        workers = jobs_for(jobs, the_run.total - the_run.done)
        done_before = the_run.done
        players_at = executors.open_executor(executor, workers, ray_address)
        if not as_json:
            console.print(f"{tournament_name}: {len(prepared.bots)} bots, {k} per table, "
                          f"{plural(the_run.total, 'game')} ({done_before} already stored), {players_at.describe()}, "
                          f"{bot_sandbox.describe(confinement)}", soft_wrap=True)
            console.print(Text(seed_line(the_run.tournament)), soft_wrap=True)
            if the_run.spec.deals is not None:
                console.print(Text(book_line(the_run.spec.deals)), soft_wrap=True)
        running = standings.Running(ledger, the_run.tournament)
        display = report.Display(console, report.mode_for(progress, console, as_json), report_every, the_run.total,
                                 done_before, lambda: running_standings(running, the_run, console),
                                 seconds=report_seconds)
        try:
            with players_at:
                played(ledger, the_run, workers, done_before, console, errors, display, bot_logs, players_at, running)
        except KeyboardInterrupt:
            stored = len(tournament_rows.game_keys(ledger, the_run.tournament["id"]))
            errors.print(f"interrupted: {stored} of {the_run.total} games stored; continue with the same command "
                         "plus --resume", highlight=False)
            raise typer.Exit(130) from None
    if the_run.revealed is not None and not as_json:
        console.print(Text(f"the tournament is over: seed revealed: {the_run.revealed}"), soft_wrap=True)
    first = tournament_rows.game_ids(ledger, the_run.tournament["id"])[:1]
    show(standings.of_tournament(ledger, str(the_run.tournament["id"]), interval), as_json, los=False, legend=True,
         game_id=first[0] if first else None, db=db)


def seed_line(row: dict) -> str:
    """The tournament's seed as it may be shown: chosen, drawn and revealed, or only its commitment."""
    from tournaments.play import standings

    return seed_line_of(standings.seed_of(row))


def book_line(seeds: tuple[str, ...]) -> str:
    """What a run plays from a deal book (docs/tournaments.md, "Deal books")."""
    return f"deal book: {plural(len(seeds), 'deal')} (the first {seeds[0][:12]}…), each from every seat rotation"


def seed_line_of(seed: dict) -> str:
    if seed.get("origin") is None:
        return "no seed (imported games)"
    if seed["seed"] is None:
        return f"seed drawn and secret until the end, commitment {seed['commitment']}"
    return f"seed {seed['seed']} ({'chosen by the organiser' if seed['origin'] == 'organiser' else 'drawn, revealed'})"


def played(ledger, the_run: runner.Run, workers: int, done_before: int, console, errors, display: report.Display,
           bot_logs: Path | None, players_at: executors.Executor, running: standings.Running) -> None:
    """Play and store the run's games, showing them as ``display`` says (``running`` adds each up for the
    reports)."""
    from tournaments.play import runner

    def stored(result: runner.Result) -> None:
        running.add(result.recorded)
        display.game(result)

    with display:
        runner.execute(ledger, the_run, workers, None, bot_logs,
                       lambda text: errors.print(f"notice: {text}", soft_wrap=True), players_at, stored)


def running_standings(running: standings.Running, the_run: runner.Run, console) -> Table:
    """The report every --report-every games: the standings of the games stored so far (fastchess's table), from
    sums kept as games are stored, the fit started from the last report's, the interval from its curvature:
    no game is read again, nothing is resampled."""
    now = running.standings()
    return compact(now, console, f"standings after {plural(now.games, 'game')} of {the_run.total}")


def standings_(
    tournament: Annotated[str | None, typer.Argument(help="Tournament id or name (default: the newest).")] = None,
    los: Annotated[bool, typer.Option("--los", help="Also print the likelihood-of-superiority matrix.")] = False,
    head_to_head: Annotated[bool, typer.Option(
        "--head-to-head", help="Also print wins-draws-losses of every pair (with --csv: only these, one row a pair)."
    )] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as JSON.")] = False,
    as_csv: Annotated[bool, typer.Option("--csv", help="Print the standings as CSV.")] = False,
    interval: Interval = defaults.CURVATURE,
    check: Check = False,
    db: Db = None,
) -> None:
    """Print a tournament's standings again, from the database alone (read-only).

    Example: tourney standings bots-tails-on-fire-seed1 --los --head-to-head
    """
    from tournaments.play import standings

    if as_json and as_csv:
        raise typer.BadParameter("give --json or --csv, not both")
    ledger = reading(db)
    result = standings.of_tournament(ledger, tournament_or_newest(ledger, tournament), interval, check=check)
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


LEGEND = (
    "Ranked by Elo, not by score: Elo weighs each result by whom it was against.",
    "Elo: fitted to every result, mean 1500; 200 points apart: a 76% expected score.",
    "95% CI: from the fit's curvature (or --interval bootstrap); overlaps may swap.",
    "score: results against each other seat, ties half; first: wins; place: its mean.",
)
"""What orders the standings and what their columns mean, under the table of `tourney run` (docs/tournaments.md,
"Standings"): a bot with the higher score can rank lower, when its points came from weaker opponents."""


def show(result: standings.Standings, as_json: bool, los: bool, head_to_head: bool = False,
         legend: bool = False, game_id: str | None = None, db: str | None = None) -> None:
    """The standings (or their JSON); with ``legend``, what the columns mean and how to look at ``game_id``."""
    if as_json:
        typer.echo(orjson.dumps(result.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    console = terminal.console()
    console.print(standings_table(result, console))
    for line in [*result.trust.lines(), seed_line_of(result.seed)]:
        console.print(Text(line))
    if los:
        console.print(_matrix(console, "likelihood of superiority (row better than column)", result, lambda a, b: (
            "n/a" if result.los[a].get(b) is None else f"{result.los[a][b]:.2f}")))
    if head_to_head:
        console.print(_matrix(console, "head to head: wins-draws-losses of the row against the column", result,
                              lambda a, b: ("-".join(str(n) for n in result.head_to_head[a][b])
                                            if b in result.head_to_head[a] else "n/a")))
    if legend:
        for line in LEGEND:
            console.print(Text(line), soft_wrap=True)
        if game_id is not None:
            where = "" if db is None else f" --db {db}"
            console.print(Text(f"Look at a game: tourney replay html {game_id[:12]}{where} -o game.html"),
                          soft_wrap=True)


STANDINGS = (tables.Column("#"), tables.Column("id"), tables.Column("bot", tables.NAME), tables.Column("games"),
             tables.Column("first"), tables.Column("place"), tables.Column("score"), tables.Column("Elo"),
             tables.Column("95% CI"), tables.Column("forfeits"))


def standings_table(result: standings.Standings, console) -> Table:
    """Rank, short id, bot, games, first places, mean place, score %, Elo, its 95% interval, forfeits."""
    # From the values --json gives (rounded the same), so that a cell never differs from the JSON by a rounding.
    rows = [(str(row.rank), _id(row.bot_id), Text(row.bot), str(row.games), str(row.first),
             f"{round(row.mean_place, 3):.2f}", f"{round(row.score, 2):.1f}%", f"{round(row.elo, 1):.0f}",
             f"{round(row.ci_low, 1):.0f}-{round(row.ci_high, 1):.0f}", str(row.forfeits))
            for row in result.rows]
    return tables.fitted(console, STANDINGS, rows, Text(
        f"{result.tournament} ({result.game}, {plural(result.games, 'game')}, "
        f"{'sandboxed' if result.sandboxed else 'not sandboxed'})"))


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


def _id(bot_id: int | None) -> str:
    return "" if bot_id is None else str(bot_id)


def _matrix(console, title: str, result: standings.Standings, cell) -> Table:
    """A square of every pair of bots: rows by short id and name, columns by short id (so that it fits)."""
    heads = [_id(row.bot_id) or str(row.rank) for row in result.rows]
    columns = [tables.Column("id"), tables.Column("bot", tables.NAME), *(tables.Column(head) for head in heads)]
    bots = [row.bot for row in result.rows]
    rows = [(head, Text(a), *["-" if a == b else cell(a, b) for b in bots]) for head, a in zip(heads, bots,
                                                                                              strict=True)]
    return tables.fitted(console, columns, rows, title)
