"""`tourney match`: is the candidate better than the baseline? Paired deals, an SPRT, the statistics."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Annotated

import typer
from rich.text import Text

import tournaments.cli.output as output
import tournaments.cli.report as report
import tournaments.cli.terminal as terminal
from tournaments.bots.spec import Resources
from tournaments.cli.options import (
    BotLogs,
    Clock,
    CpuSeconds,
    Db,
    Deals,
    Executor,
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
    Sandbox,
    TimeBank,
    TimeControl,
    games_option,
    given_on_command_line,
    plural,
    require_database,
    text_option,
    time_limits,
    undone_on_failure,
    writing,
)
from tournaments.cli.output import lines, samples
from tournaments.cli.run import book_line, seed_line
from tournaments.play import defaults
from tournaments.ratings.sprt import MODELS, Sprt, SprtError, check_hypotheses

if TYPE_CHECKING:
    from tournaments.library import runs
    from tournaments.play import candidate_match, runner

DEFAULTS = Resources()
SPRT_KEYS = ("elo0", "elo1", "alpha", "beta", "model")


def parse_sprt(items: list[str]) -> Sprt:
    """``elo0=0 elo1=5 alpha=0.05 beta=0.05 model=normalized`` (any subset, commas or spaces) to an Sprt."""
    values: dict[str, float | str] = {}
    for item in (part for text in items for part in text.replace(",", " ").split()):
        if item == "default":
            continue
        key, equals, value = item.partition("=")
        if not equals or key not in SPRT_KEYS:
            raise typer.BadParameter(f"--sprt takes {'=, '.join(SPRT_KEYS)}= values, not {item!r}")
        if key == "model":
            if value not in MODELS:
                raise typer.BadParameter(f"--sprt model is {' or '.join(MODELS)}, not {value!r}")
            values[key] = value
            continue
        try:
            values[key] = number = float(value)
        except ValueError:
            raise typer.BadParameter(f"--sprt {key} must be a number, not {value!r}") from None
        if not math.isfinite(number):
            raise typer.BadParameter(f"--sprt {key} must be a finite number, not {value!r}")
    try:
        return Sprt(**values)  # type: ignore[arg-type]
    except SprtError as error:
        raise typer.BadParameter(f"--sprt: {error}") from None


def match(
    ctx: typer.Context,
    bots: Annotated[list[str], typer.Argument(help="CANDIDATE BASELINE: bot files, or names of bots in --bots.",
                                              metavar="CANDIDATE BASELINE")],
    game: Annotated[str, typer.Option("--game", help="Game to play: tails-on-fire, nine-tails or lemur-tails.")],
    sprt: Annotated[str | None, typer.Option("--sprt", help="Stop when the test decides: elo0=0 elo1=5 alpha=0.05 "
                                             "beta=0.05 (normalised Elo; any subset, 'default' for all defaults; "
                                             "model=logistic for logistic Elo).")] = None,
    games: Annotated[int | None, games_option(f"Deals (pairs or blocks) to play; with --sprt the most to play "
                                              f"(default {defaults.FIXED_DEALS}, with --sprt {defaults.SPRT_DEALS}; "
                                              "with --deals, the book's).")]
    = None,
    field: Annotated[list[str] | None, typer.Option("--field", help="A bot for a seat beside the two (repeat "
                                                    "it); seats left are filled by the baseline.")] = None,
    players: Players = None,
    folder: Annotated[str, typer.Option("--bots", help="Folder to find bots named by name in.")] = "bots",
    batch: Annotated[int, typer.Option("--batch", help="Deals per SPRT look: the test decides after each batch.")]
    = defaults.BATCH,
    seed: Annotated[str | None, text_option(
        "--seed", "Seed of every deal, chosen by you (default: a secret seed drawn at random, committed now and "
        "revealed when the match ends).", show_default=False)] = None,
    name: Annotated[str | None, text_option("--name", "Match name (default: match-A-vs-B-<game>-seed<seed>, "
                                                      "or -<commitment> for a drawn seed).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted match (or show a finished one).")]
    = False,
    deals: Deals = None,
    jobs: Jobs = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    tc: TimeControl = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
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
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Play CANDIDATE against BASELINE on paired deals (each deal from every seat rotation) and say which is better.

    \b
    Example: tourney match bots/heuristic_lemur_tails.py random_bot --game lemur-tails --sprt elo0=0 elo1=5
    Example: tourney match new.py old.py --game lemur-tails --deals lemur-tails-50.deals
    """
    from engines import registry
    from tournaments.library import runs
    from tournaments.play import naming
    from tournaments.play.executors import choice

    names = [item for item in bots if "=" not in item]
    extra = [item for item in bots if "=" in item]  # `--sprt elo0=0 elo1=5 ...`: the values after the first
    if len(names) != 2:
        raise typer.BadParameter("name two bots: CANDIDATE BASELINE")
    if extra and sprt is None:
        raise typer.BadParameter(f"{extra[0]!r} is an --sprt value: give it after --sprt")
    test = parse_sprt([sprt, *extra]) if sprt is not None else None
    check_batch(ctx, batch, test is not None, games)
    try:  # options that contradict each other, or a name that would be read as another: usage errors (exit 2)
        choice.conflicts(executor, ray_address, jobs)
        if name is not None and not resume:
            naming.check_new_name(name)
    except runs.TournamentError as error:
        raise typer.BadParameter(str(error)) from None
    choice.check(executor, ray_address, jobs)
    engine = registry.get(game)
    if test is not None:
        try:  # the hypotheses the LLR can weigh depend on the games a sample holds: the seats
            check_hypotheses(test, players if players is not None else engine.default_seats)
        except SprtError as error:
            raise typer.BadParameter(f"--sprt: {error}") from None
    ledger = writing(db, ledger_key)  # first: a database it cannot use is refused before any bot starts
    if resume:
        require_database(ledger, "resume")
    limits, clock = time_limits(ctx, tc, move_time, time_bank, clock)
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    shown = Shown(as_json, progress, report_every)
    try:
        with undone_on_failure(ledger):  # a database it made is removed if it fails before a tournament begins
            result = runs.run_match(
                names[0], names[1], game, field=field or (), players=players, games=games, sprt=test, batch=batch,
                folder=folder, seed=seed, name=name, resume=resume, deals=deals, jobs=jobs, limits=limits,
                sandbox=sandbox, clock=clock, ponder=ponder, resources=resources, bot_logs=bot_logs,
                executor=executor, ray_address=ray_address, db=ledger, observer=shown)
        if result.revealed is not None and not as_json:
            typer.echo(f"the match is over: seed revealed: {result.revealed}")
        output.renderer(as_json).match(result.statistics, result.plan)
    except runs.Interrupted as stop:
        shown.errors.print(f"interrupted: {plural(stop.stored, 'game')} stored; continue with the same command plus "
                           "--resume")
        raise typer.Exit(130) from None
    except SprtError as error:  # a test the checks above let through (a resumed match's own): one line, not a trace
        typer.echo(f"error: the match's SPRT: {error}", err=True)
        raise typer.Exit(1) from None


def check_batch(ctx: typer.Context, batch: int, with_sprt: bool, games: int | None) -> None:
    """--batch is the SPRT's step: refused without --sprt (it would change nothing), and never above the match's
    deals (--games, or the SPRT's default cap), where the test would not look until the match's end."""
    if not given_on_command_line(ctx, "batch"):
        return
    if not with_sprt:
        raise typer.BadParameter("--batch is the number of deals between two looks of the SPRT: it needs --sprt")
    if batch < 1:
        raise typer.BadParameter(f"--batch is at least 1 deal, not {batch}")
    most = games if games is not None else defaults.SPRT_DEALS
    if batch > most:
        where = f"--games {games:,}" if games is not None else f"the default --games with --sprt, {most:,}"
        raise typer.BadParameter(f"--batch is at most the match's deals ({where}), not {batch:,}")


class Shown:
    """What `tourney match` shows while it plays (tournaments.library.runs.Observer): its first lines (with what the
    SPRT is expected to take), then a line per game or a bar, and the statistics every --report-every games."""

    def __init__(self, as_json: bool, progress: str, every: int) -> None:
        self.console, self.errors = terminal.console(), terminal.console(stderr=True)
        self.as_json, self.progress, self.every = as_json, progress, every
        self.running: candidate_match.Running | None = None
        self.display: report.Display | None = None
        self.plan: candidate_match.MatchPlan | None = None

    def notice(self, kind: str, text: str) -> None:
        from tournaments.library import runs

        self.errors.print(f"notice: {text}" if kind == runs.WORKER else text, soft_wrap=True)

    def started(self, started: runs.Started) -> None:
        the_run = started.run
        spec, plan = the_run.spec, the_run.plan
        if self.as_json:
            return
        form = spec.format
        seated = ", ".join([*form.field, *form.baselines[1:]])
        typer.echo(f"{the_run.name}: {form.candidate} vs {form.baselines[0]}" + (f" with {seated}" if seated else "")
                   + f", {spec.players} seats, at most {plural(plan.limit, 'game')} ({the_run.done} already stored), "
                   f"{started.executor.describe()}")
        typer.echo(seed_line(the_run.tournament))
        if the_run.spec.deals is not None:
            typer.echo(book_line(the_run.spec.deals))
        if form.sprt is not None:
            for line in expectation(form.sprt, spec.players, plan.limit // spec.players):
                typer.echo(line)

    def playing(self, started: runs.Started) -> report.Display:
        from tournaments.play import candidate_match

        plan = self.plan = started.run.plan
        running = self.running = candidate_match.Running(plan, started.run.stored)  # read a page at a time
        shown = self.errors if self.as_json else self.console  # with --json, stdout is the JSON alone
        self.display = report.Display(shown, report.mode_for(self.progress, shown, self.as_json),
                                      self.every, expected_games(running.statistics(), plan), started.done,
                                      lambda: Text("\n".join(lines(running.statistics()))), rate=False)
        return self.display

    def game(self, result: runner.Result) -> None:
        assert self.running is not None and self.display is not None and self.plan is not None
        self.running.add(result.key, result.ranked())
        self.display.set_total(expected_games(self.running.statistics(), self.plan))
        self.display.game(result)


def expected_games(stats: candidate_match.Statistics, plan: candidate_match.MatchPlan) -> int | None:
    """The progress bar's end: --games's games for a fixed match; with an SPRT, the games it is expected to take
    at the LLR's slope so far, in whole batches, never more than --games allows (None: not known yet)."""
    from tournaments.ratings.sprt import expected_samples

    if plan.match.sprt is None:
        return plan.limit
    deals = expected_samples(stats.status.llr or 0.0, stats.deals, plan.match.sprt.bounds)
    if deals is None:
        return None
    batch = plan.match.batch
    return min(plan.limit, max(stats.games, -(-int(deals) // batch) * batch * plan.players))


FAR_ELO = 100.0
"""The strongest true candidate (normalised Elo) whose expected test length `tourney match` announces."""


def expectation(test: Sprt, players: int, deals: int) -> list[str]:
    """What the SPRT is expected to take before it decides, by the candidate's true strength (Wald's approximation,
    tournaments.ratings.wald), and what elo0 and elo1 do to that (docs/match.md, "How long a test takes")."""
    from tournaments.ratings.wald import expected_samples

    if expected_samples(test, players, test.elo1) is None:
        return [f"SPRT [{test.elo0:g}, {test.elo1:g}] ({test.model}): how long it takes depends on how drawish the "
                "games are, not known before they are played (the progress bar estimates it as they come)"]
    gap = test.elo1 - test.elo0
    # Far above about +100 the test's LLR moves less a pair than the normal approximation says (simulated: up to
    # twice as many pairs at +320): only strengths where it holds are told.
    truths = [test.elo0, test.elo1, *(elo for elo in (test.elo0 + 4 * gap, test.elo0 + 16 * gap)
                                      if elo <= FAR_ELO)]

    def told(elo: float) -> str:
        expected = round(expected_samples(test, players, elo) or 0.0)
        return f"{elo:+g}: {expected:,} ({plural(expected * players, 'game')})"

    wider = Sprt(test.elo0, test.elo0 + 4 * gap, test.alpha, test.beta, test.model)
    quicker = expected_samples(wider, players, wider.elo1) or 0.0
    longest = expected_samples(test, players, (test.elo0 + test.elo1) / 2) or 0.0
    cap = f"; at most {samples(deals, players)} (--games), then it stops undecided" if deals < longest else ""
    units = "pairs" if players == 2 else f"blocks of {players}"
    return [f"SPRT [{test.elo0:g}, {test.elo1:g}] ({test.model} Elo): {units} expected to decide, if the candidate is "
            f"truly {', '.join(told(elo) for elo in truths)} (Wald's approximation; longest halfway between){cap}",
            f"The closer elo0 and elo1, the longer it takes (about 1/(elo1 - elo0)^2): for a change you expect to be "
            f"big, raise elo1 (elo0={test.elo0:g} elo1={wider.elo1:g} decides in about {samples(quicker, players)} "
            f"at {wider.elo0:+g} or {wider.elo1:+g})"]


