"""`tourney match`: is the candidate better than the baseline? Paired deals, an SPRT, the statistics."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

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
    require_database,
    writing,
)
from tournaments.cli.run import seed_line
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
    bots: Annotated[list[str], typer.Argument(help="CANDIDATE BASELINE: bot files, or names of bots in --bots.",
                                              metavar="CANDIDATE BASELINE")],
    game: Annotated[str, typer.Option("--game", help="Game to play: tails-on-fire, nine-tails or lemur-tails.")],
    sprt: Annotated[str | None, typer.Option("--sprt", help="Stop when the test decides: elo0=0 elo1=5 alpha=0.05 "
                                             "beta=0.05 (normalised Elo; any subset, 'default' for all defaults; "
                                             "model=logistic for logistic Elo).")] = None,
    games: Annotated[int | None, games_option(f"Deals (pairs or blocks) to play; with --sprt the most to play "
                                              f"(default {defaults.FIXED_DEALS}, with --sprt {defaults.SPRT_DEALS}).")]
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
    jobs: Jobs = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print the statistics as JSON.")] = False,
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
    """Play CANDIDATE against BASELINE on paired deals (each deal from every seat rotation) and say which is better.

    Example: tourney match bots/heuristic_lemur_tails.py random_bot --game lemur-tails --sprt elo0=0 elo1=5
    """
    from engines import registry
    from tournaments.play import executors, runner
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
    limits = Limits(move_time, time_bank)
    resolved = [matches.resolve(ref, folder, engine.name) for ref in [*names, *(field or [])]]
    spec = matches.build(resolved[0], resolved[1], resolved[2:], engine.name, players, games, seed, limits, test,
                         batch)
    namer = matches.namer(spec)
    known = runner.known_name(ledger, name, spec.seed, resume, namer, spec.game, matches.MATCH)
    errors = terminal.console(stderr=True)
    resources = Resources(memory_mb=memory_mb, cpu_seconds=cpu_seconds, max_processes=max_processes)
    spec, prepared, notice = runner.ready_spec(ledger, known, spec, sandbox, resume, resources)
    with prepared:  # the staged copies of the bots' files are removed at the end
        if notice:
            errors.print(notice, soft_wrap=True)
        played(ledger, name, spec, resume, jobs, as_json, bot_logs, executor, ray_address)


def played(ledger, name: str | None, spec: runner.Spec, resume: bool, jobs: int | None, as_json: bool,
           bot_logs: Path | None, executor: str = defaults.LOCAL, ray_address: str | None = None) -> None:
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
    with players_at:
        _play(ledger, the_run, plan, workers, as_json, bot_logs, players_at)
    if the_run.revealed is not None and not as_json:
        typer.echo(f"the match is over: seed revealed: {the_run.revealed}")
    show(matches.statistics(plan, the_run.stored), as_json)


def _play(ledger, the_run: runner.Run, plan: matches.MatchPlan, workers: int, as_json: bool, bot_logs: Path | None,
          players_at: executors.Executor) -> None:
    from ledger import tournaments as tournament_rows
    from tournaments.play import runner

    console, errors = terminal.console(), terminal.console(stderr=True)
    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("{task.fields[llr]}"), TimeElapsedColumn(), console=console,
                      disable=not console.is_terminal or as_json, transient=True) as bar:
            task = bar.add_task("games", total=plan.total or plan.limit, completed=the_run.done, llr="")
            start = the_run.done

            def advance(stored: int) -> None:
                status = plan.status(the_run.stored)
                shown = "" if status.llr is None else (f"LLR {status.llr:.2f} of ({status.bounds[0]:.2f}, "
                                                       f"{status.bounds[1]:.2f}) after {status.deals} deals")
                bar.update(task, completed=start + stored, llr=shown)

            runner.execute(ledger, the_run, workers, advance, bot_logs,
                           lambda text: errors.print(f"notice: {text}", soft_wrap=True), players_at)
    except KeyboardInterrupt:
        stored = len(tournament_rows.game_keys(ledger, the_run.tournament["id"]))
        errors.print(f"interrupted: {plural(stored, 'game')} stored; continue with the same command plus --resume")
        raise typer.Exit(130) from None


def show(stats: matches.Statistics, as_json: bool) -> None:
    if as_json:
        typer.echo(orjson.dumps(stats.to_json(), option=orjson.OPT_INDENT_2).decode())
        return
    for line in report(stats):
        typer.echo(line)


def report(stats: matches.Statistics) -> list[str]:
    """The statistics in words, one line each."""
    from tournaments.play import match as matches

    sample = "pair" if stats.players == 2 else f"block of {stats.players}"
    lines = [f"{stats.candidate} vs {stats.baseline}: {stats.deals} deals ({sample} each), {stats.games} games"]
    status = stats.status
    if stats.sprt is not None:
        test = stats.sprt
        verdict = f"{status.decision} accepted" if status.decision else "no decision yet"
        lower, upper = status.bounds or (0.0, 0.0)
        lines.append(f"SPRT elo0={test.elo0:g} elo1={test.elo1:g} alpha={test.alpha:g} beta={test.beta:g} "
                     f"({test.model} Elo): {verdict}, LLR {status.llr or 0.0:.2f} ({lower:.2f}, {upper:.2f})")
    low, mid, high = stats.sample.elo
    lines.append(f"Elo (logistic): {mid:+.1f}, 95% [{low:+.1f}, {high:+.1f}]")
    nlow, nmid, nhigh = stats.sample.nelo
    lines.append(f"Elo (normalised): {nmid:+.1f}, 95% [{nlow:+.1f}, {nhigh:+.1f}]")
    lines.append(f"LOS: {100 * stats.sample.los:.2f}%   score: {100 * stats.sample.score:.2f}%")
    if stats.players == 2:
        counts = [stats.blocks.get(points, 0) for points in matches.pair_points()]
        lines.append("pentanomial (pair points 0, 1/2, 1, 3/2, 2): " + ", ".join(map(str, counts)))
    else:
        shown = ", ".join(f"{points}: {count}" for points, count in sorted(stats.blocks.items()))
        lines.append(f"block points (of {stats.players}) and blocks: {shown or 'none yet'}")
    versus = "per game" if stats.players == 2 else "pairwise against the baseline's seats"
    lines.append(f"W/D/L {versus}: {stats.wins}/{stats.draws}/{stats.losses}, LOS {100 * stats.per_game.los:.2f}%")
    return lines
