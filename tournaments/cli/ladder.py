"""`tourney ladder`: long-lived leagues that accept bot submissions."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import orjson
import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.text import Text

import tournaments.cli.ladder_history as ladder_history
import tournaments.cli.tables as tables
import tournaments.cli.terminal as terminal
from tournaments.bots.spec import Resources
from tournaments.cli.options import (
    MAX_SEATS,
    BotLogs,
    Check,
    CpuSeconds,
    Db,
    Jobs,
    LedgerKey,
    MaxProcesses,
    MemoryMb,
    MoveTime,
    NewDatabase,
    TimeBank,
    games_option,
    jobs_for,
    ladder_id,
    ladder_named,
    plural,
    reading,
    whole_option,
    writing,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from tournaments.ladder import league
    from tournaments.ladder.sessions import Moved
    from tournaments.play.runner import Result

DEFAULTS = Resources()
"""A ladder bot's limits unless its command says otherwise: tourney's own (tournaments.ladder.league)."""

app = typer.Typer(help="League ladders: submit bots, play matchmade games, ratings folded from the ledger.",
                  no_args_is_help=True)


@app.command("create")
def create(
    name: Annotated[str, typer.Argument(help="The ladder's name.")],
    game: Annotated[str, typer.Option("--game", help="tails-on-fire, nine-tails or lemur-tails.")],
    players: Annotated[int | None, whole_option("--players", "Seats per game (default: the game's usual count).",
                                                1, MAX_SEATS, "seats", show_default=False)] = None,
    rating: Annotated[str | None, typer.Option("--rating", help="elo or openskill (default: openskill for 3 or more "
                                               "seats, elo for 2); fixed for the ladder's life.")] = None,
    divisions: Annotated[str | None, typer.Option(
        "--divisions", help="Split the ladder into divisions, lowest first, e.g. bronze,silver,gold (fixed for its "
        "life; `ladder boss` sets each boundary's boss).", show_default=False)] = None,
    db: Db = None,
) -> None:
    """Create a ladder for one game.

    \b
    Example: tourney ladder create spring --game lemur-tails --divisions bronze,silver,gold
    """
    from engines import registry
    from tournaments.ladder import divisions as division_rules
    from tournaments.ladder import league, owner_tokens

    try:
        league.check_ladder_name(name)
    except owner_tokens.BadName as error:
        raise typer.BadParameter(str(error)) from None
    engine = registry.get(game)
    k = players if players is not None else engine.default_seats
    engine.configure(k)
    if rating is not None and rating not in league.RATINGS:
        raise typer.BadParameter(f"--rating is {' or '.join(league.RATINGS)}, not {rating!r}")
    if divisions is not None:
        try:
            division_rules.parse(divisions)
        except division_rules.DivisionsError as error:
            raise typer.BadParameter(str(error)) from None
    chosen = league.create(writing(db), name, engine.name, k, rating, divisions)
    split = "" if divisions is None else f"; divisions {', '.join(part.strip() for part in divisions.split(','))}"
    typer.echo(f"created ladder {name} ({engine.name}, {k} players per game, {chosen} ratings{split})")


@app.command("boss")
def boss(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    bot: Annotated[str, typer.Argument(help="The bot's name on the league, or the id `ladder standings` shows.")],
    division: Annotated[str, typer.Option("--division", help="The division it guards (any but the top): to leave "
                                          "it upwards a bot must pass this boss's rating with 95% confidence.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept with the ladder).")] = "set by the operator",
    db: Db = None,
) -> None:
    """Make a bot's active version the boss of a division (an operator's fact, kept with the ladder's events).

    \b
    Example: tourney ladder boss spring lemur-pro --division bronze
    """
    from tournaments.ladder import league

    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    bot = bot_named(ledger, name, bot)
    version = league.boss(ledger, name, bot, division, reason)
    typer.echo(f"{bot} v{version} is the boss of {division} on {name}")


@app.command("list")
def list_(db: Db = None) -> None:
    """List the ladders with their active bots and games played.

    \b
    Example: tourney ladder list --db league.db
    """
    from ledger.rows import ladder_rows

    columns = [tables.Column("id"), tables.Column("ladder", tables.NAME), tables.Column("game", tables.WORD),
               tables.Column("players"), tables.Column("active bots"), tables.Column("games")]
    shown = [(ladder_id(row["id"]), Text(row["name"]), row["game"], str(row["players"]), str(row["active"]),
              str(row["games"])) for row in ladder_rows.all_ladders(reading(db), counted=True)]
    console = terminal.console()
    console.print(tables.fitted(console, columns, shown))


def on_a_ladder(ledger, name: str):
    """``ledger``, unless it is a database not made yet: then there is no ladder ``name`` in it (and none is made):
    NoDatabase, worded as a reading command's (`tourney standings --db missing.db`)."""
    from ledger.store import NoDatabase

    if isinstance(ledger, NewDatabase) and not ledger.exists:
        raise NoDatabase(f"no database at {ledger.where}")
    return ledger


def bot_named(ledger, ladder: str, ref: str) -> str:
    """A ladder bot's name, from its name or from the short id `ladder standings` shows (a version's entry id)."""
    from ledger.rows import ladder_rows

    if not ref.isdigit():
        return ref
    entries = ladder_rows.entries(ledger, ladder_rows.get(ledger, ladder)["id"], active_only=False)
    if any(entry["name"] == ref for entry in entries):
        return ref
    return next((entry["name"] for entry in entries if entry["id"] == int(ref)), ref)


def game_lines(say: Callable[[str], None]) -> Callable[[Result, list[Moved]], None]:
    """What `ladder play` and `ladder work` print as each game is stored: the run's line (cutechess-cli's and
    fastchess's) and how it moved each seat's rating, as the standings show it (Elo, or OpenSkill's mu - 3σ)."""
    from tournaments.cli.report import game_line

    stored = 0

    def line(result: Result, moves: list[Moved]) -> None:
        nonlocal stored
        stored += 1
        ratings = ", ".join(f"{moved.bot} {moved.before:.1f} -> {moved.after:.1f} ({moved.after - moved.before:+.1f})"
                            for moved in moves)
        say(f"{game_line(stored, result)} ratings: {ratings}")

    return line


def limits_of(move_time: float, time_bank: float, cpu: int, memory: int, processes: int) -> league.Limits:
    from tournaments.ladder import league

    return league.Limits(move_time, time_bank, cpu, memory, processes)


@app.command("submit")
def submit(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    path: Annotated[Path, typer.Argument(help="A Python bot file, an executable, or a .bot.json manifest.")],
    as_name: Annotated[str | None, typer.Option("--as", help="The bot's name on the ladder (default: file name).")]
    = None,
    description: Annotated[str | None, typer.Option(
        "--description", help="A line on the bot, shown with it on the leaderboard and its page (200 characters at "
                              "most).")] = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    cpu_seconds: CpuSeconds = DEFAULTS.cpu_seconds,
    memory_mb: MemoryMb = DEFAULTS.memory_mb,
    max_processes: MaxProcesses = DEFAULTS.max_processes,
    db: Db = None,
) -> None:
    """Submit a bot: it must pass a validation game against random bots before it is listed.

    \b
    Example: tourney ladder submit spring bots/heuristic_lemur_tails.py --as lemur-pro
    """
    from tournaments.ladder import league, owner_tokens

    if description is not None and len(description) > league.DESCRIPTION_CHARS:
        raise typer.BadParameter(f"--description is at most {league.DESCRIPTION_CHARS} characters, not "
                                 f"{len(description)}")
    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    limits = limits_of(move_time, time_bank, cpu_seconds, memory_mb, max_processes)
    console = terminal.console()
    try:
        result = league.submit(ledger, name, path, as_name, limits, say=lambda line: console.print(Text(line),
                                                                                                  soft_wrap=True),
                               description=description)
    except owner_tokens.BadName as error:
        raise typer.BadParameter(str(error)) from None
    if not result.new:
        typer.echo(f"{result.name} v{result.version} is already on {name} with this content: nothing changed")
    else:
        retired = f" (v{result.version - 1} retired from matchmaking)" if result.retired else ""
        typer.echo(f"listed {result.name} v{result.version} on {name}{retired}")


@app.command("play")
def play(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    games: Annotated[int, games_option("Games to play (whole seat rotations, so maybe a few more).")] = 20,
    jobs: Jobs = None,
    seed: Annotated[str | None, typer.Option(
        "--seed", help="Seed of this session's matchmaking and deals, chosen by you (default: a secret seed drawn at "
        "random, committed now and revealed when the session stops).", show_default=False)] = None,
    move_time: MoveTime = 1.0,
    time_bank: TimeBank = 5.0,
    cpu_seconds: CpuSeconds = DEFAULTS.cpu_seconds,
    memory_mb: MemoryMb = DEFAULTS.memory_mb,
    max_processes: MaxProcesses = DEFAULTS.max_processes,
    bot_logs: BotLogs = None,
    db: Db = None,
    ledger_key: LedgerKey = None,
) -> None:
    """Play matchmade games on a ladder; each is stored and rated as soon as it ends.

    \b
    Example: tourney ladder play spring --games 200 --jobs 2
    """
    from tournaments.ladder import sessions

    ledger = on_a_ladder(writing(db, ledger_key), name)
    name = ladder_named(ledger, name)
    workers = jobs_for(jobs, games)
    console = terminal.console()
    stored = 0

    def advance(count: int) -> None:
        nonlocal stored
        stored = count
        bar.update(task, completed=count)

    try:
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=console, disable=not console.is_terminal, transient=True) as bar:
            task = bar.add_task(f"{name}", total=games)
            limits = limits_of(move_time, time_bank, cpu_seconds, memory_mb, max_processes)
            say = lambda line: console.print(Text(line), soft_wrap=True)  # noqa: E731 (one line, used twice)
            played = sessions.play(ledger, name, games, workers, limits, seed, advance, say, bot_logs,
                                   game_lines(say))
    except KeyboardInterrupt:
        terminal.console(stderr=True).print(
            f"interrupted: {plural(stored, 'game')} stored and rated on {name}; run `tourney ladder play` again to "
            "play more (every stored game counts, none is lost)")
        raise typer.Exit(130) from None
    typer.echo(f"played {plural(played, 'game')} on {name}")


@app.command("standings")
def standings(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    retired: Annotated[bool, typer.Option("--all", help="Also list retired versions.")] = False,
    check: Check = False,
    db: Db = None,
) -> None:
    """Show a ladder's ratings with their 95% margin, games, a provisional mark, and which ranks are
    statistically tied (--json: the ranks each bot holds with 95% confidence).

    \b
    Example: tourney ladder standings spring --json
    """
    from tournaments.ladder import league

    ledger = reading(db)
    name = ladder_named(ledger, name)
    rows_, trust = league.checked_standings(ledger, name, retired, check)
    from ledger.rows import ladder_rows
    from tournaments.ladder import divisions

    rows_ = by_division(rows_, divisions.names_of(ladder_rows.get(ledger, name)))
    if as_json:
        typer.echo(orjson.dumps([{
            "rank": r.rank, "bot": r.name, "version": r.version, "rating": round(r.rating, 1),
            "margin": round(r.margin, 1), "games": r.games, "provisional": r.provisional, "status": r.status,
            "forfeits": r.forfeits, "rank_range": [r.rank_low, r.rank_high], "tied": r.tied,
            **({} if r.mu is None else {"mu": round(r.mu, 3), "sigma": round(r.sigma or 0.0, 3)}),
            **({} if r.division is None else {"division": r.division, "boss": r.boss}),
        } for r in rows_], option=orjson.OPT_INDENT_2).decode())
        return
    ids = {(e["name"], e["version"]): e["id"] for e in ladder_rows.entries(ledger, ladder_rows.get(ledger,
                                                                                                   name)["id"], False)}
    skill = any(r.mu is not None for r in rows_)
    values = ("mu - 3σ", "mu", "σ") if skill else ("rating", "± 95%")
    split = any(r.division is not None for r in rows_)
    columns = [*([tables.Column("division", tables.WORD)] if split else []),
               tables.Column("#"), tables.Column("id"), tables.Column("bot", tables.NAME),
               tables.Column("version", tables.WORD), *(tables.Column(v) for v in values), tables.Column("games"),
               tables.Column("forfeits"), tables.Column("", tables.WORD)]
    shown = []
    for r in rows_:
        mark = "provisional" if r.provisional else ""
        if r.status != "active":
            mark = (mark + " " + r.status).strip()
        if r.boss:
            mark = (mark + " boss").strip()
        numbers = ((f"{r.rating:.2f}", f"{r.mu:.2f}", f"{r.sigma:.2f}") if skill
                   else (f"{r.rating:.0f}", f"{r.margin:.0f}"))
        shown.append((*([r.division] if split else []), str(r.rank), str(ids.get((r.name, r.version), "")),
                      Text(r.name), f"v{r.version}", *numbers, str(r.games), str(r.forfeits), mark))
    console = terminal.console()
    console.print(tables.fitted(console, columns, shown, Text(f"ladder {name}")))
    console.print(Text(ties_line(sorted(rows_, key=lambda r: r.rank))))
    for line in trust.lines():
        console.print(Text(line))


def by_division(rows_, names: list[str]):
    """Standings grouped by division (``names``, lowest first), the top division first, each in rank order; a
    ladder without divisions as it is."""
    order = {name: i for i, name in enumerate(names)}
    return sorted(rows_, key=lambda r: (-order[r.division], r.rank)) if names else rows_


def ties_line(rows_) -> str:
    """Which ranks the ratings cannot tell apart at 95% (tournaments.ratings.ranks): runs of tied neighbours."""
    runs: list[list[int]] = []
    for row in rows_:
        if row.tied and runs:
            runs[-1].append(row.rank)
        else:
            runs.append([row.rank])
    tied = [f"#{run[0]}-#{run[-1]}" for run in runs if len(run) > 1]
    if not tied:
        return "no ties at 95%: every rank is told apart"
    return f"tied at 95%: {', '.join(tied)} (--json: each bot's rank_range)"


@app.command("history")
def history(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    bot: Annotated[str, typer.Argument(help="The bot's name on the league, or the id `ladder standings` shows.")],
    forfeits: Annotated[bool, typer.Option("--forfeits", help="Only the games this bot forfeited.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    db: Db = None,
) -> None:
    """Show a bot's rating after each of its ladder games (every version), and why it forfeited any.

    With --forfeits, under the table the bot's own account of each forfeit: where in its file a Python bot's
    exception was raised (or a program's last line on stderr), and the path of its whole log when the
    ladder kept logs (--bot-logs); --json has the whole traceback.

    \b
    Example: tourney ladder history spring lemur-pro --forfeits
    """
    ledger = reading(db)
    name = ladder_named(ledger, name)
    ladder_history.show(ledger, name, bot_named(ledger, name, bot), forfeits, as_json)


@app.command("rebuild")
def rebuild(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    db: Db = None,
) -> None:
    """Recompute every rating of a ladder from the stored games alone, and compare.

    \b
    Example: tourney ladder rebuild spring
    """
    from tournaments.ladder import league, membership

    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    before = membership.moves(ledger, name)
    changes = league.rebuild(ledger, name)
    moved = {entry: pair for entry, pair in changes.items() if pair[0] != pair[1]}
    if moved:
        typer.echo(f"rebuilt {name}: {len(moved)} of {len(changes)} ratings differed from the incremental ones "
                   "and were replaced")
    else:
        typer.echo(f"rebuilt {name}: all {len(changes)} ratings equal the incremental ones")
    if before is not None:
        appended = (membership.moves(ledger, name) or 0) - before
        typer.echo(f"divisions: {appended} {'entry' if appended == 1 else 'entries'} moved to the division the fold "
                   "gives" if appended else
                   "divisions: every entry's division equals the fold")


@app.command("void")
def void(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    game: Annotated[str, typer.Argument(help="The game's id (or a unique prefix), as `ladder history` shows it.")],
    reason: Annotated[str, typer.Option("--reason", help="Why it no longer counts (kept with the ladder).")],
    db: Db = None,
) -> None:
    """Void a ladder game: it stays stored, but no rating counts it (every rating is refolded without it).

    \b
    Example: tourney ladder void spring 3f2a9c --reason "played with a leaked seed"
    """
    from tournaments.ladder import league

    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    game_id, seq = league.void(ledger, name, game, reason)
    typer.echo(f"voided game {game_id} (ladder game {seq}) on {name}; ratings refolded without it")


@app.command("retire")
def retire(
    name: Annotated[str, typer.Argument(help="The league: its name, or the id `tourney list` shows.")],
    bot: Annotated[str, typer.Argument(help="The bot's name on the league, or the id `ladder standings` shows.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (kept with the ladder).")] = "retired by the operator",
    db: Db = None,
) -> None:
    """Retire a bot: its active version plays no more games; its games, rating and history stay.

    \b
    Example: tourney ladder retire spring lemur-pro --reason "author withdrew it"
    """
    from tournaments.ladder import league

    ledger = on_a_ladder(writing(db), name)
    name = ladder_named(ledger, name)
    bot = bot_named(ledger, name, bot)
    version = league.retire(ledger, name, bot, reason)
    typer.echo(f"retired {bot} v{version} on {name}")
