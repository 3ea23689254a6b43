"""Options shared by several commands, and the one set of validators every command uses.

A number an option takes is checked here, once, with the same words for every command
(`run`, `ladder submit`, `ladder play` and any command added later): a bad value is a
usage error (exit 2) naming the option, never a traceback or a silently changed value.
Build a new option from these pieces (``seconds_option``, ``whole_option``) rather than
checking a number inside a command.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tournaments.cli.report import PROGRESS_MODES
from tournaments.play.defaults import EXECUTORS, INTERVALS

if TYPE_CHECKING:  # the ledger (SQLAlchemy) is imported when a command opens it, never for --help
    from ledger.store import Ledger
    from tournaments.bots.spec import Limits


def given(convert: Callable[[str], object] = str, *, optional: bool = True) -> Callable[[str], object]:
    """The parser of an option (or argument) whose value is text or a path: an empty (or blank) value is a bad value
    (exit 2), never read as "not given" or as the working directory (``Path("")`` is ``.``)."""
    instead = ", or leave the option out for its default" if optional else ""

    def parse(value: str) -> object:
        if isinstance(value, str) and not value.strip():
            raise typer.BadParameter(f"it is empty: give a value{instead}")
        return convert(value)

    return parse


def text_option(flag: str, help_: str, **extra) -> typer.models.OptionInfo:
    """An option that takes text: never empty."""
    return typer.Option(flag, help=help_, parser=given(), metavar="<str>", **extra)


def path_option(flag: str, help_: str, **extra) -> typer.models.OptionInfo:
    """An option that takes a file or folder: never empty."""
    return typer.Option(flag, help=help_, parser=given(Path), metavar="<path>", **extra)


Db = Annotated[str | None, text_option(
    "--db", "Database URL or SQLite file path (default: sqlite:///tourney.db in the working directory).",
    envvar="TOURNEY_DB", show_default=False)]

LedgerKey = Annotated[Path | None, path_option(
    "--ledger-key", "The ledger's private signing key (default: the database file's path plus .key; made if missing).",
    envvar="TOURNEY_LEDGER_KEY", show_default=False)]

MAX_SECONDS = 3600.0
"""The longest move time or time bank accepted (an hour: longer is a typo, not a setting)."""
MAX_CPU_SECONDS = 86_400
MIN_MEMORY_MB = 64
"""Below this a Python bot cannot even start (its interpreter maps more address space)."""
MAX_MEMORY_MB = 1_048_576
MAX_GAMES = 1_000_000
MAX_ROUNDS = MAX_GAMES
"""A Swiss tournament's rounds, capped as --games is (each round is a table's deals at least)."""
MAX_SEATS = 64
"""More seats than any game has: the game's own limits are checked by its engine."""
JOBS_PER_CPU = 4
"""--jobs is capped at this many workers per CPU: more only adds processes that wait."""


def cpu_count() -> int:
    """CPUs this process may run on (the affinity mask where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def check_seconds(value: float, *, zero: bool) -> float:
    """A finite number of seconds in (0, MAX_SECONDS] (or [0, ...] where ``zero`` is allowed)."""
    low = "0 or more" if zero else "more than 0"
    if math.isnan(value) or math.isinf(value) or value < 0 or (value == 0 and not zero) or value > MAX_SECONDS:
        raise typer.BadParameter(f"{value:g} is not a number of seconds {low} and at most {MAX_SECONDS:g}")
    return value


def check_whole(value: int, low: int, high: int, unit: str) -> int:
    """A whole number in [low, high]."""
    if not low <= value <= high:
        raise typer.BadParameter(f"{value} is out of range: {unit} from {low} to {high:,}")
    return value


def max_jobs() -> int:
    return JOBS_PER_CPU * cpu_count()


def jobs_check(here: str) -> Callable[[int], int]:
    """The check of a --jobs: 0 (``here``: the work in this process) up to JOBS_PER_CPU x the CPU count."""

    def check(value: int) -> int:
        top = max_jobs()
        if not 0 <= value <= top:
            raise typer.BadParameter(f"{value} is out of range: 0 ({here}) to {top} ({JOBS_PER_CPU} per CPU, "
                                     f"{cpu_count()} CPUs)")
        return value

    return check


check_jobs = jobs_check("play here")
"""run's and match's --jobs: 0 plays in this process."""


def _optional(check: Callable) -> Callable:
    # Typer calls a callback with None for an option left out that has no default.
    return lambda value: None if value is None else check(value)


def seconds_option(flag: str, help_: str, *, zero: bool = False) -> typer.models.OptionInfo:
    """A time option: finite seconds, more than 0 (or 0 and more with ``zero``)."""
    return typer.Option(flag, help=help_, callback=_optional(lambda v: check_seconds(v, zero=zero)))


def whole_option(flag: str, help_: str, low: int, high: int, unit: str, **extra) -> typer.models.OptionInfo:
    """A count option: a whole number from ``low`` to ``high``."""
    return typer.Option(flag, help=help_, callback=_optional(lambda v: check_whole(v, low, high, unit)), **extra)


MoveTime = Annotated[float, seconds_option("--move-time", "Seconds a bot may take per move.")]
TimeBank = Annotated[float, seconds_option(
    "--time-bank", "Extra seconds per game a bot may spend in all on moves that run over --move-time (0: none).",
    zero=True)]
TC_FORM = "BASE+INC, seconds (10+0.1), or BASE (60)"


def parse_tc(text: str) -> tuple[float, float]:
    """``--tc BASE+INC`` (fastchess's ``tc=``): seconds on each game's clock and seconds added after each move."""
    base, plus, increment = text.strip().partition("+")
    if "/" in base:
        raise typer.BadParameter(f"{text!r}: moves per period (fastchess's 40/60) are not supported: give {TC_FORM}")
    try:
        seconds = float(base), float(increment) if plus else 0.0
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a time control: give {TC_FORM}") from None
    return check_seconds(seconds[0], zero=False), check_seconds(seconds[1], zero=True)


TimeControl = Annotated[str | None, typer.Option(
    "--tc", help="A game clock instead of --move-time and --time-bank, as fastchess's tc: BASE+INC seconds (10+0.1: "
    "10 s per game, 0.1 s added after each move; a move may take all that is left). Wall-clock time. See "
    "docs/bot-protocol.md.", show_default=False,
    callback=lambda value: value if value is None else (parse_tc(value), value)[1])]


def time_limits(ctx: typer.Context, tc: str | None, move_time: float, time_bank: float, clock: str | None
                ) -> tuple[Limits, str | None]:
    """The run's time limits and its clock: --move-time and --time-bank, or --tc's game clock, which is counted
    by the wall clock (fastchess's meaning) and so refuses --clock cpu, and is given without the other two."""
    from tournaments.bots.spec import WALL, Limits

    if tc is None:
        return Limits(move_time, time_bank), clock
    given = [flag for name, flag in (("move_time", "--move-time"), ("time_bank", "--time-bank"))
             if given_on_command_line(ctx, name)]
    if given:
        raise typer.BadParameter(f"--tc is a game clock of its own: give it without {' and '.join(given)}")
    if clock not in (None, WALL):
        raise typer.BadParameter("--tc counts wall-clock time (fastchess's meaning): give it without --clock cpu")
    return Limits.game_clock(*parse_tc(tc)), WALL


CpuSeconds = Annotated[int, whole_option(
    "--cpu-seconds", "CPU-time limit of a bot's process, per game.", 1, MAX_CPU_SECONDS, "seconds")]
MemoryMb = Annotated[int, whole_option(
    "--memory-mb", "Memory limit of a bot, MiB: of all its processes, files and buffers together where cgroups "
    "exist, else each process's address space.", MIN_MEMORY_MB, MAX_MEMORY_MB, "MiB")]
MAX_PROCESSES = 65_536
MaxProcesses = Annotated[int, whole_option(
    "--max-processes", "Processes and threads a bot may have at once, in its sandbox (not applied without one).",
    2, MAX_PROCESSES, "processes")]
SANDBOX_MODES = ("on", "off", "auto")


def one_of(choices: tuple[str, ...]) -> Callable[[str], str]:
    """The check of an option that takes one of ``choices``."""

    def check(value: str) -> str:
        if value not in choices:
            raise typer.BadParameter(f"{value!r} is not one of {', '.join(choices)}")
        return value

    return check


check_sandbox = one_of(SANDBOX_MODES)


Sandbox = Annotated[str, typer.Option(
    "--sandbox", help="Run every bot in a bubblewrap sandbox of its own per game: on, off, or auto (on when bwrap "
    "works here, with a notice when it does not; a resumed tournament keeps its own). See docs/security.md.",
    callback=check_sandbox)]
CLOCKS = ("cpu", "wall")
check_clock = one_of(CLOCKS)
Clock = Annotated[str | None, typer.Option(
    "--clock", help="How a sandboxed bot's moves are timed: cpu (the CPU time of all its processes, or a third of "
    "the wall-clock time when that is more; the default where cgroups exist) or wall (the default without). "
    "A resumed tournament keeps its own. See docs/bot-protocol.md.", show_default=False,
    callback=lambda value: value if value is None else check_clock(value))]
Ponder = Annotated[bool | None, typer.Option(
    "--ponder/--no-ponder", help="Let bots keep running between their turns (trusted bots only). By default, "
    "where cgroups exist, a sandboxed bot is frozen from its answer to its next request, so it cannot use its "
    "opponents' time. A resumed tournament keeps its own.", show_default=False)]
BotLogs = Annotated[Path | None, path_option(
    "--bot-logs", "Keep the end (64 KiB) of each bot process's stderr in each game, as files in a folder per "
    "bot here, named by game and seat (DIR/BOT/KEY-seatN.log; DIR/KEY-seatN.log links to it).", show_default=False)]
Jobs = Annotated[int | None, typer.Option(
    "--jobs", help=f"Worker processes that play games while this process stores them (default: the CPU count; "
    f"0: play here; at most {JOBS_PER_CPU} per CPU).", callback=_optional(check_jobs), show_default=False)]
Executor = Annotated[str, typer.Option(
    "--executor", help="Where games are played: local (worker processes here, see --jobs) or ray (tasks on a Ray "
    "cluster; needs tourney[ray]; see docs/scaling.md).", callback=one_of(EXECUTORS))]
RayAddress = Annotated[str | None, text_option(
    "--ray-address", "The Ray cluster to join, host:port of its head (default: RAY_ADDRESS, else a cluster "
    "started on this machine with `ray start`, else a Ray instance of this run's own).", show_default=False)]
Players = Annotated[int | None, whole_option(
    "--players", "Seats per table (default: the game's usual count, at most the number of bots).", 1, MAX_SEATS,
    "seats", show_default=False)]


ProgressMode = Annotated[str, typer.Option(
    "--progress", help="While it plays: bar (a progress bar, the report above it), lines (a line per finished game "
    "and the report every --report-every games), none, or auto (bar on a terminal, else lines; none with --json).",
    callback=one_of(PROGRESS_MODES))]
ReportEvery = Annotated[int, whole_option(
    "--report-every", "Games between two reports while it plays (the standings; a match's statistics); 0: none.",
    0, MAX_GAMES, "games")]
ReportSeconds = Annotated[float, seconds_option(
    "--report-seconds", "Seconds at least between two reports while it plays (and at least ten times what the last "
    "one took): a report due waits for the first game stored after them; 0: every --report-every games.", zero=True)]
Check = Annotated[bool, typer.Option(
    "--check", help="Also read every game's result from its hashed events and refuse if the read models the table "
    "comes from are not what they add up to (reads every game: slower).")]
Interval = Annotated[str, typer.Option(
    "--interval", help="How Elo's 95% interval is found: curvature (from the fit; reads no game) or bootstrap (200 "
    "resamples of games, what earlier versions showed; reads every game's result).", callback=one_of(INTERVALS))]


def games_option(help_: str) -> typer.models.OptionInfo:
    return whole_option("--games", help_, 1, MAX_GAMES, "games")


def given_on_command_line(ctx: typer.Context, parameter: str) -> bool:
    """Whether the command line (or its environment variable) gave ``parameter``, rather than its default."""
    source = ctx.get_parameter_source(parameter)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


Deals = Annotated[Path | None, path_option(
    "--deals", "A deal book (`tourney deals new`): every table plays its deals, each from every seat rotation "
    "(--games: the first N of them; default: all). A resumed tournament keeps its own. See docs/tournaments.md.",
    show_default=False)]


def jobs_for(jobs: int | None, games: int) -> int:
    """The workers to start: --jobs (default: the CPU count), never more than the games to play."""
    wanted = cpu_count() if jobs is None else jobs
    return min(wanted, games)


def reading(db: str | None) -> Ledger:
    """The database for a command that only reads: opened read-only, never created or upgraded."""
    from ledger.store import Ledger

    ledger = Ledger(db, read_only=True)
    ledger.require_head()
    return ledger


def writing(db: str | None, ledger_key: Path | None = None) -> Ledger:
    """The database for a command that stores: upgraded to the newest schema; a new SQLite file is made
    only when the command first uses it (``NewDatabase``), so a command that fails before its work
    leaves no database (and no ledger key) behind.

    ``ledger_key`` is where its signing key is (commands that store games take --ledger-key).
    """
    from ledger.store import Ledger, default_path, resolve_url
    from replays import projections

    path = default_path(resolve_url(db))
    if path is not None and not path.exists() and path.parent.is_dir():
        return NewDatabase(db, ledger_key, path)  # type: ignore[return-value]
    ledger = Ledger(db, ledger_key=ledger_key)  # an existing database is checked (and refused) now
    if projections.behind(ledger):  # written by a tourney before the read models: count its games first
        projections.catch_up(ledger)
    return ledger


class NewDatabase:
    """A database file that does not exist yet, made (as ``Ledger`` makes it) when first used, with a note on
    stderr naming it (``note: new database ...``).

    Until then it answers where it will be (``url``, ``where``, ``path``) without making it, and
    ``exists`` is False; any other use makes the ledger and goes to it.
    """

    def __init__(self, db: str | None, ledger_key: Path | None, path: Path) -> None:
        from ledger import signing_keys
        from ledger.store import resolve_url

        self._args = (db, ledger_key)
        self._ledger: Ledger | None = None
        self.path = path
        self.where = str(path)
        self.url = resolve_url(db)  # an SQLite URL holds no password to hide
        key = signing_keys.key_path(ledger_key, path)
        # The key files this command would make (none where a key is already there: it is someone's).
        self._new_keys = () if key is None or os.path.lexists(key) else (key, signing_keys.public_path(key))

    @property
    def exists(self) -> bool:
        return self._ledger is not None

    def __getattr__(self, name: str):
        if name.startswith("__"):  # copy, pickle and friends ask for these: never a reason to make a database
            raise AttributeError(name)
        if self._ledger is None:
            from ledger import signing_keys
            from ledger.store import Ledger, LedgerError

            if self._new_keys:  # a key it could never make: refused before the database is made, not after
                try:
                    signing_keys.check_folder(self._new_keys[0])
                except signing_keys.KeyFileError as error:
                    raise LedgerError(f"ledger key: {error}") from None
            db, ledger_key = self._args
            self._ledger = Ledger(db, ledger_key=ledger_key)
            # A typo in --db would otherwise start a second ledger unseen: say so, once, when it is made.
            typer.echo(f"note: new database {self.where}: there was none at this path (check --db if you meant "
                       "another)", err=True)
        return getattr(self._ledger, name)


    def discard(self) -> bool:
        """Remove the database this command made, with the key files it made, if it holds no tournament, ladder or
        game (the command failed before it began one: a ledger key that cannot be made, say): a failed command leaves
        no database behind. A tournament begun is kept, played games or not (its row, its seed's commitment: what a
        --resume or an audit reads). Whether it was removed."""
        if self._ledger is None:
            return False
        from sqlalchemy import text

        with self._ledger.read() as connection:
            if connection.execute(text("SELECT EXISTS (SELECT 1 FROM games) OR EXISTS (SELECT 1 FROM tournaments) "
                                       "OR EXISTS (SELECT 1 FROM ladders)")).scalar():
                return False
        self._ledger.close()
        if self.path.with_name(self.path.name + "-wal").exists():
            return False  # another connection has it open (SQLite's last one to close removes the -wal): theirs too
        for made in (*(self.path.with_name(self.path.name + end) for end in ("", "-wal", "-shm", "-journal")),
                     *self._new_keys):
            made.unlink(missing_ok=True)
        return True


@contextmanager
def undone_on_failure(ledger: Ledger) -> Iterator[None]:
    """A command's work: if it fails (an error, not Ctrl-C) before beginning a tournament in a database it made,
    the database and the key files made with it are removed (``NewDatabase.discard``)."""
    try:
        yield
    except Exception:
        if isinstance(ledger, NewDatabase):
            with suppress(Exception):  # the command's own error is the one to tell
                ledger.discard()
        raise


def require_database(ledger: Ledger, why: str) -> None:
    """NoDatabase (exit 1) if ``ledger`` is a database not made yet: there is nothing in it to ``why``."""
    from ledger.store import NoDatabase

    if isinstance(ledger, NewDatabase) and not ledger.exists:
        raise NoDatabase(f"no database at {ledger.where}: nothing to {why}")


def plural(count: int, noun: str) -> str:
    """"1 game", "2 games": the count with its noun."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


LADDER_ID = "L"
"""What `tourney list` puts before a ladder's id (``L1``), so that no ladder's id reads as a tournament's."""


def ladder_id(ladder_id: int) -> str:
    return f"{LADDER_ID}{ladder_id}"


def ladder_named(ledger, ref: str) -> str:
    """A ladder's name, from its name or from the id `tourney list` shows, ``L1`` (or its digits alone, ``1``, as
    before ids had their L); a ladder named so wins."""
    from ledger.rows import ladder_rows

    digits = ref[len(LADDER_ID):] if ref[:len(LADDER_ID)].upper() == LADDER_ID else ref
    if not (digits.isascii() and digits.isdigit()):
        return ref
    found = ladder_rows.all_ladders(ledger)
    if any(row["name"] == ref for row in found):
        return ref
    return next((row["name"] for row in found if row["id"] == int(digits)), ref)


def not_a_ladder(ledger: Ledger, ref: str, instead: str) -> None:
    """UnknownTournament saying where to look when ``ref`` names no tournament but a ladder (its name, or ``L1``;
    digits alone name a tournament here): ``instead``, with ``{ref}`` for it, says what shows a ladder's."""
    from ledger.rows import ladder_rows, tournament_rows

    if ref.isdigit() or tournament_rows.find(ledger, ref) is not None:
        return
    named = ladder_named(ledger, ref)
    if any(row["name"] == named for row in ladder_rows.all_ladders(ledger)):
        raise tournament_rows.UnknownTournament(f"{ref} is a ladder: {instead.format(ref=ref)}")


def tournament_or_newest(ledger: Ledger, ref: str | None, instead: str) -> str:
    """The tournament a command was given, or the newest one; UnknownTournament if there is none (saying where to
    look when ``ref`` is a ladder's: ``not_a_ladder``)."""
    from ledger.rows import tournament_rows

    if ref is not None:
        not_a_ladder(ledger, ref, instead)
        return ref
    newest = tournament_rows.latest(ledger)
    if newest is None:
        raise tournament_rows.UnknownTournament(f"no tournaments in {ledger.where} yet: run `tourney run` first")
    return str(newest["id"])
