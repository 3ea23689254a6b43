"""`tourney match`: is the candidate better than the baseline? Paired deals, an SPRT, the statistics."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.text import Text

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
    jobs_for,
    plural,
    require_database,
    time_limits,
    writing,
)
from tournaments.cli.run import book_line, seed_line
from tournaments.play import defaults
from tournaments.ratings.sprt import MODELS, Sprt, SprtError

if TYPE_CHECKING:
    from tournaments.play import executors, runner
    from tournaments.play import match as matches

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
            values[key] = float(value)
        except ValueError:
            raise typer.BadParameter(f"--sprt {key} must be a number, not {value!r}") from None
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
    seed: Annotated[str | None, typer.Option(
        "--seed", help="Seed of every deal, chosen by you (default: a secret seed drawn at random, committed now and "
        "revealed when the match ends).", show_default=False)] = None,
    name: Annotated[str | None, typer.Option("--name", help="Match name (default: match-A-vs-B-<game>-seed<seed>, "
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

    Example: tourney match bots/heuristic_lemur_tails.py random_bot --game lemur-tails --sprt elo0=0 elo1=5
    Example: tourney match new.py old.py --game lemur-tails --deals lemur-tails-50.deals
    """
    from dataclasses import replace

    from engines import registry
    from tournaments.play import deals as deal_books
    from tournaments.play import executors, preparation, runner
    from tournaments.play import match as matches

    names = [item for item in bots if "=" not in item]
    extra = [item for item in bots if "=" in item]  # `--sprt elo0=0 elo1=5 ...`: the values after the first
    if len(names) != 2:
        raise typer.BadParameter("name two bots: CANDIDATE BASELINE")
    if extra and sprt is None:
        raise typer.BadParameter(f"{extra[0]!r} is an --sprt value: give it after --sprt")
    test = parse_sprt([sprt, *extra]) if sprt is not None else None
    if batch < 1:
        raise typer.BadParameter(f"--batch is at least 1 deal, not {batch}")
    executors.check(executor, ray_address, jobs)
    engine = registry.get(game)
    ledger = writing(db, ledger_key)  # first: a database it cannot use is refused before any bot starts
    if resume:
        require_database(ledger, "resume")
    limits, clock = time_limits(ctx, tc, move_time, time_bank, clock)
    resolved = [matches.resolve(ref, folder, engine.name) for ref in [*names, *(field or [])]]
    spec = matches.build(resolved[0], resolved[1], resolved[2:], engine.name, players, games, seed, limits, test,
                         batch)
    namer = matches.namer(spec)
    known = runner.known_name(ledger, name, spec.seed, resume, namer, spec.game, matches.MATCH)
    # The book is read before any bot starts; a resume without --deals plays the one its match keeps.
    book = deal_books.for_run(ledger, known if resume else None, deals, engine.name)
    if book is not None:
        spec = replace(spec, games=deal_books.deals_to_play(book, games, None), deals=book.seeds)
    errors = terminal.console(stderr=True)
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    spec, prepared, notice = preparation.ready_spec(ledger, known, spec, sandbox, resume, resources, clock, ponder)
    with prepared:  # the staged copies of the bots' files are removed at the end
        if notice:
            errors.print(notice, soft_wrap=True)
        played(ledger, name, spec, resume, jobs, as_json, bot_logs, executor, ray_address, progress, report_every)


def played(ledger, name: str | None, spec: runner.Spec, resume: bool, jobs: int | None, as_json: bool,
           bot_logs: Path | None, executor: str = defaults.LOCAL, ray_address: str | None = None,
           progress: str = report.AUTO, every: int = report.REPORT_EVERY) -> None:
    """Play (or resume) the match and show its statistics."""
    from tournaments.play import executors, runner
    from tournaments.play import match as matches

    the_run = runner.open_run(ledger, name, spec, resume, matches.namer(spec))
    match_name = the_run.name
    plan: matches.MatchPlan = the_run.plan  # type: ignore[assignment]
    workers = jobs_for(jobs, plan.limit - the_run.done)
    players_at = executors.open_executor(executor, workers, ray_address)
    if not as_json:
        form = spec.format
        seated = ", ".join([*form.field, *form.baselines[1:]])
        typer.echo(f"{match_name}: {form.candidate} vs {form.baselines[0]}" + (f" with {seated}" if seated else "")
                   + f", {spec.players} seats, at most {plural(plan.limit, 'game')} ({the_run.done} already stored), "
                   f"{players_at.describe()}")
        typer.echo(seed_line(the_run.tournament))
        if the_run.spec.deals is not None:
            typer.echo(book_line(the_run.spec.deals))
        if form.sprt is not None:
            for line in expectation(form.sprt, spec.players, plan.limit // spec.players):
                typer.echo(line)
    with players_at:
        _play(ledger, the_run, plan, workers, as_json, bot_logs, players_at, progress, every)
    if the_run.revealed is not None and not as_json:
        typer.echo(f"the match is over: seed revealed: {the_run.revealed}")
    stats = matches.statistics(plan, the_run.stored)
    if as_json:
        typer.echo(orjson.dumps(stats.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    for line in [*lines(stats), stopped(stats, plan)]:
        typer.echo(line)


def _play(ledger, the_run: runner.Run, plan: matches.MatchPlan, workers: int, as_json: bool, bot_logs: Path | None,
          players_at: executors.Executor, progress: str, every: int) -> None:
    from ledger import tournaments as tournament_rows
    from tournaments.play import match as matches
    from tournaments.play import runner

    console, errors = terminal.console(), terminal.console(stderr=True)
    running = matches.Running(plan, the_run.stored)
    display = report.Display(console, report.mode_for(progress, console, as_json), every,
                             expected_games(running.statistics(), plan), the_run.done,
                             lambda: Text("\n".join(lines(running.statistics()))), rate=False)

    def finished(result: runner.Result) -> None:
        running.add(result.key, the_run.stored[result.key])
        display.set_total(expected_games(running.statistics(), plan))
        display.game(result)

    try:
        with display:
            runner.execute(ledger, the_run, workers, None, bot_logs,
                           lambda text: errors.print(f"notice: {text}", soft_wrap=True), players_at, finished)
    except KeyboardInterrupt:
        stored = len(tournament_rows.game_keys(ledger, the_run.tournament["id"]))
        errors.print(f"interrupted: {plural(stored, 'game')} stored; continue with the same command plus --resume")
        raise typer.Exit(130) from None


def expected_games(stats: matches.Statistics, plan: matches.MatchPlan) -> int | None:
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


def samples(count: int | float, players: int) -> str:
    """Pairs or blocks, in words: "1 pair", "230 blocks of 4"."""
    count = round(count)
    if players == 2:
        return plural(count, "pair")
    return f"{count:,} {'block' if count == 1 else 'blocks'} of {players}"


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


def lines(stats: matches.Statistics) -> list[str]:
    """The statistics as fastchess and cutechess-cli print them (docs/match.md, "The statistics")."""
    from tournaments.play import match as matches

    results = stats.wins + stats.draws + stats.losses
    points = stats.wins + stats.draws / 2
    out = [f"Score of {stats.candidate} vs {stats.baseline}: {stats.wins} - {stats.losses} - {stats.draws} "
           f"[{points / results if results else 0.5:.3f}] {results}"]
    sample = stats.sample
    unit = "pair" if stats.players == 2 else f"block of {stats.players}"
    if not stats.deals:
        out.append(f"Elo: n/a, nElo: n/a (no {unit} complete yet)")
    elif sample.bound is not None:
        side = ">=" if sample.bound[0] > 0 else "<="
        verdict = "won" if sample.bound[0] > 0 else "lost"
        out.append(f"Elo: {side} {sample.bound[0]:+.2f}, nElo: {side} {sample.bound[1]:+.2f} (every {unit} {verdict}: "
                   "one-sided 95% bounds)")
    else:
        low, mid, high = sample.elo
        nlow, nmid, nhigh = sample.nelo
        if high > low and math.isfinite(nmid):
            out.append(f"Elo: {_signed(mid)} +/- {(high - low) / 2:.2f}, nElo: {_signed(nmid)} +/- "
                       f"{(nhigh - nlow) / 2:.2f}")
        else:  # every sample scored the same: no spread, so no interval (not a "+/- 0.00")
            out.append(f"Elo: {_signed(mid)}, nElo: n/a (every {unit} scored {sample.score:g}: no spread yet, so no "
                       "interval)")
    draws = 100 * stats.draws / results if results else 0.0
    out.append(f"LOS: {100 * sample.los:.2f} %, DrawRatio: {draws:.2f} %, "
               f"{samples(stats.deals, stats.players)}" + ("" if stats.players == 2 else
                                                           f" ({plural(stats.games, 'game')})"))
    if stats.players == 2:
        counts = [stats.blocks.get(p, 0) for p in matches.pair_points()]
        out.append(f"Ptnml(0-2): [{', '.join(map(str, counts))}]")
    else:
        shown = ", ".join(f"{points}: {count}" for points, count in sorted(stats.blocks.items()))
        out.append(f"Blocks(0-{stats.players}): [{shown}]")
    if stats.sprt is not None:
        lower, upper = stats.sprt.bounds
        out.append(f"LLR: {stats.status.llr or 0.0:.2f} ({lower:.2f}, {upper:.2f}) "
                   f"[{stats.sprt.elo0:.2f}, {stats.sprt.elo1:.2f}]")
    return out


def _signed(value: float) -> str:
    """``+1.25``; zero as ``+0.00``, never ``-0.00``."""
    return f"{value + 0.0:+.2f}" if round(value, 2) != 0 else "+0.00"


def stopped(stats: matches.Statistics, plan: matches.MatchPlan) -> str:
    """Why the match stopped, in one line."""
    after = f"after {samples(stats.deals, stats.players)} ({plural(stats.games, 'game')})"
    status, test = stats.status, stats.sprt
    if test is None:
        return (f"Stopped: all {plural(plan.games, 'deal')} played ({plural(stats.games, 'game')}): a fixed match "
                "(--games, no --sprt)")
    lower, upper = test.bounds
    llr = status.llr or 0.0
    if status.decision == "H1":
        return (f"Stopped: H1 accepted {after}: the LLR {llr:.2f} reached the upper bound {upper:.2f}, so "
                f"{stats.candidate} is better by {test.elo1:g} Elo rather than {test.elo0:g} ({test.model})")
    if status.decision == "H0":
        return (f"Stopped: H0 accepted {after}: the LLR {llr:.2f} reached the lower bound {lower:.2f}, so "
                f"{stats.candidate} is better by {test.elo0:g} Elo rather than {test.elo1:g} ({test.model})")
    return (f"Stopped: no decision {after}: --games {plan.games} deals were played and the LLR {llr:.2f} is still "
            f"between {lower:.2f} and {upper:.2f}")
