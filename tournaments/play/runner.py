"""The tournament runner: schedule, play (in parallel worker processes), store, resume.

Only the parent process writes to the database: workers play a scheduled game from its
key and send back the sealed records, and the parent stores finished games in groups, one
transaction per group (tournaments.play.writer: a game is stored whole or not at all). A
game that was not stored when the run died is simply played again from the start on
``--resume``; a stored one is never played twice (its key is unique in its
tournament). Every game's seeds derive from its key, so the results of a seed are the
same whatever ``--jobs`` is and in whatever order workers finish.

The organiser's process never runs bot code. With the sandbox on, every bot but tourney's
own builtin plays as a process in its own sandbox (a Python bot through pyhost). With it off,
Python bots play inside worker processes, or through pyhost when this process plays
(``--jobs 0``); a worker that such a bot ends is replaced, and its game recorded as that
bot's forfeit (tournaments.play.salvage).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engines import registry
from engines.driver import play
from ledger import checkpoints, read_models, seeds
from ledger import games as game_rows
from ledger import tournaments as tournament_rows
from ledger.canonical import canonical, loads
from ledger.store import Ledger, LedgerError
from replays.archive import finished_game
from replays.record import Recorded, SeatInfo, record
from tournaments.bots import diagnosis
from tournaments.bots.inprocess import BuiltinRandom, PythonAgent
from tournaments.bots.protocol import ProgramAgent
from tournaments.bots.spec import (
    BUILTIN,
    PROGRAM,
    PYTHON,
    WALL,
    BotSpec,
    Confinement,
    Limits,
    Resources,
)
from tournaments.play import salvage, seeding
from tournaments.play.formats import Plan, RoundRobin
from tournaments.play.schedule import Scheduled, ScheduleError
from tournaments.play.workers import box
from tournaments.play.workers import run as run_workers
from tournaments.play.writer import MAX_GAMES, GroupCommit
from tournaments.sandbox import sandbox

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection



class TournamentError(ValueError):
    """A tournament that cannot run as asked; the message is one clear line."""


class ExecutorError(TournamentError):
    """An executor that cannot start (Ray missing, a cluster out of reach); one clear line. Defined here, not in
    tournaments.play.executors, so that the Ray executor, which that module imports, needs nothing of it."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What defines a tournament (stored with it; a resume must match it)."""

    game: str
    players: int
    games: int
    seed: str | None
    """None until open_run draws one (no --seed); a worker always gets the seed itself."""
    move_time: float
    time_bank: float
    bots: tuple[BotSpec, ...]
    options: dict[str, Any] = field(default_factory=dict)
    format: Any = None
    """The format (tournaments.play.formats, or a match); None: round robin."""
    sandbox: bool = False
    """Whether every bot but tourney's builtin plays in its own sandbox (recorded with the tournament)."""
    resources: Resources = field(default_factory=Resources)
    clock: str = WALL
    """How moves are timed, ``cpu`` or ``wall`` (recorded; tournaments.bots.spec.Confinement)."""
    ponder: bool = True
    """Whether bots run between their turns (recorded; False: frozen, which needs cgroups)."""
    drawn: bool = False
    """The seed was drawn, not chosen: the stored spec keeps only its commitment (tournaments.play.seeding)."""
    deals: tuple[str, ...] | None = None
    """A deal book's seeds (tournaments.play.deals): deal d of every table is the d-th; None: deals from the seed."""
    increment: float | None = None
    """A game clock's increment (``--tc BASE+INC``): ``time_bank`` is then its BASE and ``move_time`` the increment
    (tournaments.bots.spec.Limits); None: move time and bank."""

    def limits(self) -> Limits:
        """A seat's time limits for one game (each seat its own)."""
        if self.increment is not None:
            return Limits.game_clock(self.time_bank, self.increment)
        return Limits(self.move_time, self.time_bank)

    @property
    def confinement(self) -> Confinement:
        return Confinement(self.sandbox, self.resources, self.clock, self.ponder)

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    def plan(self) -> Plan:
        """The stages to play; ScheduleError if the format cannot seat these bots."""
        return (self.format or RoundRobin()).plan(self)

    def to_json(self) -> dict[str, Any]:
        # A drawn seed is stored as its commitment only (a spec stored before drawn seeds keeps its seed).
        seed = {"seed": None, "seed_commitment": seeds.commitment(self.seed)} if self.drawn else {"seed": self.seed}
        out = {
            "game": self.game, "players": self.players, "games": self.games, **seed,
            "move_time_ms": round(self.move_time * 1000), "time_bank_ms": round(self.time_bank * 1000),
            "options": self.options,
            "bots": [{"name": b.name, "hash": b.content_hash, "kind": b.kind} for b in self.bots],
            "sandbox": self.sandbox, "resources": self.resources.to_json(), "clock": self.clock,
            "ponder": self.ponder,
        }
        # Added only when not a round robin, so the stored spec of every earlier tournament
        # still equals its command's and resumes.
        described = self.format.to_json() if self.format is not None else None
        if described is not None:
            out["format"] = described
        if self.deals is not None:  # likewise only with a deal book: the book belongs to the tournament
            out["deals"] = list(self.deals)
        if self.increment is not None:  # likewise only with a game clock
            out["tc"] = {"base_ms": round(self.time_bank * 1000), "increment_ms": round(self.increment * 1000)}
        return out


@dataclass(frozen=True, slots=True)
class Job:
    """One scheduled game, with all a worker needs to play it (picklable)."""

    spec: Spec
    scheduled: Scheduled
    keep_logs: bool = False
    """Whether the game's bot processes' stderr comes back with its result (``--bot-logs``)."""


@dataclass(frozen=True, slots=True)
class Result:
    key: str
    recorded: Recorded
    scores: list[int] | None
    logs: tuple[bytes | None, ...] | None = None
    """Per seat, the end of its bot process's stderr (None: not a process), when the job kept logs."""
    diagnosis: diagnosis.Diagnosis | None = None
    """Why the forfeiting seat's bot failed, in its own terms (tournaments.bots.diagnosis), if it left a trace."""

    def bots(self) -> list[str]:
        return [seat.name for seat in self.recorded.seats]


def make_agent(spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits,
               confinement: Confinement, in_worker: bool = False):
    """The agent of one seat: tourney's builtin in process; a Python bot in process only in a worker
    with the sandbox off; every other bot as a process (in its sandbox when it is on)."""
    if spec.kind == BUILTIN:
        return BuiltinRandom(seed)
    if spec.kind == PYTHON and in_worker and not confinement.sandbox:
        return PythonAgent(spec, game, seat, seed, limits)
    return ProgramAgent(spec, game, seat, seats, seed, limits, confinement)


def play_job(job: Job, in_worker: bool = False) -> Result:
    """Play one scheduled game to the end and seal it (runs in a worker or the parent)."""
    spec, scheduled = job.spec, job.scheduled
    engine = registry.get(spec.game)
    config = engine.configure(spec.players, spec.options)
    by_name = {bot.name: bot for bot in spec.bots}
    seated = [by_name[name] for name in scheduled.bots]
    agents: list[Any] = []
    memory = box()
    recorder = salvage.FlightRecorder(memory) if memory is not None else None
    try:
        for seat, bot in enumerate(seated):
            agents.append(make_agent(bot, spec.game, seat, spec.players, scheduled.bot_seed(spec.seed, seat),
                                     spec.limits(), spec.confinement, in_worker))
        played = play(engine, config, scheduled.seed, _flight_recorded(agents, recorder))
    finally:
        for agent in agents:
            agent.close()
        if recorder is not None:
            recorder.programs(())  # all reaped: nothing left for the parent to kill
    recorded = record(engine, config, scheduled.seed, played, [SeatInfo(b.name, b.content_hash) for b in seated])
    scores = engine.scores(played.state)
    logs = tuple(agent.stderr() if isinstance(agent, ProgramAgent) else None for agent in agents)
    return Result(scheduled.key, recorded, None if scores is None else list(scores),
                  logs if job.keep_logs else None, diagnosed(agents, played.outcome.forfeit_seat))


def diagnosed(agents: list[Any], seat: int | None) -> diagnosis.Diagnosis | None:
    """The forfeiting seat's diagnosis (after its agent closed), if its bot left one."""
    if seat is None or seat >= len(agents) or not hasattr(agents[seat], "diagnosed"):
        return None
    return agents[seat].diagnosed(seat)


def _flight_recorded(agents: list[Any], recorder: salvage.FlightRecorder | None) -> list[Any]:
    """In a worker: the bot programs' process groups go into the game's flight record, and, if a bot
    in process could end the worker, every turn too (tournaments.play.salvage)."""
    if recorder is None:
        return agents
    # A sandbox's guard (recorded negated) is told to end its sandbox: a frozen cgroup must be thawed
    # before its processes can die, which the guard does; SIGKILL to its group would leave them frozen.
    recorder.programs([-agent.process.process.guard if agent.process.sandboxed else agent.process.process.pid
                       for agent in agents if isinstance(agent, ProgramAgent) and agent.process is not None])
    if not any(isinstance(agent, PythonAgent) for agent in agents):
        return agents
    return [salvage.RecordingAgent(agent, seat, recorder) for seat, agent in enumerate(agents)]


def after_death(job: Job, memory: bytes, exitcode: int) -> Result | None:
    """The result of a game whose worker died: that seat's forfeit when an in-process bot was acting
    (and nothing else at the table could have killed the worker); None to play it again."""
    flight = salvage.FlightRecord.read(memory)
    flight.kill_programs()
    spec, scheduled = job.spec, job.scheduled
    by_name = {bot.name: bot for bot in spec.bots}
    seated = [by_name[name] for name in scheduled.bots]
    if flight.acting is None or spec.sandbox or seated[flight.acting].kind != PYTHON:
        return None
    if exitcode < 0 and any(bot.kind == PROGRAM for bot in seated):
        return None  # a signal may have come from a program bot outside any sandbox
    engine = registry.get(spec.game)
    config = engine.configure(spec.players, spec.options)
    reason = f"crashed: ended its worker process ({salvage.death(exitcode)})"
    played = salvage.rebuild(engine, config, scheduled.seed, flight, reason)
    if played is None:
        return None
    recorded = record(engine, config, scheduled.seed, played, [SeatInfo(b.name, b.content_hash) for b in seated])
    scores = engine.scores(played.state)
    return Result(scheduled.key, recorded, None if scores is None else list(scores),
                  (None,) * len(seated) if job.keep_logs else None)


def results(jobs: list[Job], workers: int, notice: Callable[[str], None] | None = None) -> Iterator[Result]:
    """Play ``jobs`` in ``workers`` processes (0: in this process); results in completion order.

    With one worker or more, this process stores each game while the workers play the next
    ones, so storing costs the tournament (almost) no time as long as it is faster than play.
    A worker's death is told to ``notice``.
    """
    if workers <= 0 or len(jobs) <= 1:
        for job in jobs:
            yield play_job(job)
        return
    yield from run_workers(functools.partial(play_job, in_worker=True), jobs, min(workers, len(jobs)),
                           lambda job: f"game {job.scheduled.key}", after_death, (sandbox.SandboxError,), abandon,
                           notice)


def abandon(memory: memoryview) -> None:
    """A worker that stops mid-game kills the bot programs it started (sandboxed ones die with it)."""
    salvage.FlightRecord.read(bytes(memory)).kill_programs()


@dataclass(slots=True)
class Run:
    """A tournament row, its plan, and the results stored so far (by game key)."""

    tournament: dict[str, Any]
    spec: Spec
    plan: Plan
    stored: dict[str, list[tuple[str, int]]]
    revealed: str | None = None
    """The drawn seed, once the run stored the tournament's last game and revealed it."""

    @property
    def name(self) -> str:
        return self.tournament["name"]

    @property
    def total(self) -> int | None:
        """Games the tournament has when over (None: a match that stops when its test decides)."""
        return self.plan.total

    @property
    def done(self) -> int:
        return len(self.stored)

    @property
    def pending(self) -> list[Job]:
        """The games of the current stage that are not stored yet."""
        stage = self.plan.next_stage(self.stored) or []
        return [Job(self.spec, g) for g in stage if g.key not in self.stored]


Namer = Callable[[str], str]
"""A default tournament name from its last part: ``seed<S>`` for a chosen seed, the commitment's
first 8 digits for a drawn one (whose name cannot be known before it is drawn)."""


def default_namer(folder: str | Path, game: str, form: str | None = None) -> Namer:
    """``<folder>-<game>[-<format>]-<last part>``."""
    middle = f"-{form}" if form else ""
    return lambda last: f"{Path(folder).resolve().name}-{game}{middle}-{last}"


def known_name(ledger: Ledger, name: str | None, seed: str | None, resume: bool, namer: Namer, game: str,
               form: str | None = None) -> str | None:
    """The tournament's name before its bots start: ``name``, else ``namer``'s for a chosen seed, else (a resume)
    the newest tournament named by default for this game and format (by name; None: round robin); None for a
    new tournament whose seed is still to be drawn, or a resume that finds nothing."""
    if name is not None:
        return name
    if seed is not None:
        return namer(seeding.label(seed, None))
    existing = seeding.resumable(ledger, namer(""), game, form) if resume else None
    return None if existing is None else existing["name"]


def _plan(spec: Spec) -> Plan:
    try:
        return spec.plan()
    except ScheduleError as error:
        raise TournamentError(str(error)) from None


def open_run(ledger: Ledger, name: str | None, spec: Spec, resume: bool, namer: Namer | None = None) -> Run:
    """Create the tournament, or (with resume) reopen it with the results stored so far.

    ``name`` None: ``namer``'s default name (``seed<S>`` last for a chosen seed; for a drawn one
    the commitment's first digits, and a resume continues the newest tournament named so).
    The ledger key is checked (or made) first, before any bot starts.
    """
    key = ledger.signing_key()
    namer = namer or default_namer(".", spec.game)
    name = known_name(ledger, name, spec.seed, resume, namer, spec.game,
                      None if spec.format is None else spec.format.name)
    if name is None and resume:
        raise TournamentError(f"no tournament named {namer('')}… to resume in {ledger.url}: name it with --name")
    existing = None if name is None else tournament_rows.find(ledger, name)
    if existing is None:
        if resume:
            raise TournamentError(f"no tournament {name!r} to resume in {ledger.url}")
        if name is None:
            unfinished(ledger, namer, spec)
        spec, committed = seeding.for_new(spec, key)
        plan = _plan(spec)
        name = name or namer(seeding.label(None, committed.commitment))
        with ledger.write() as connection:
            bot_ids = [ledger.ensure_bot(b.name, b.content_hash, b.kind, connection) for b in spec.bots]
        tournament_rows.create(ledger, name, spec.game, canonical(spec.to_json()).decode(), spec.seed, bot_ids,
                               committed)
        return Run(tournament_rows.get(ledger, name), spec, plan, {})
    try:
        spec = seeding.for_resume(existing, spec, key)
    except seeding.SeedMismatch as error:
        raise TournamentError(str(error)) from None
    kept = loads(existing["spec"]).get("deals")
    if spec.deals is None and kept is not None:  # a resume without --deals plays the book the tournament keeps
        spec = replace(spec, deals=tuple(kept))
    plan = _plan(spec)
    # Swiss draws and a match's stopping rule read these, from the read models (counted from each game's
    # checked rows as it was stored; `tourney db audit` holds them against the hashed events): reading every
    # game's events here would cost a resumed run's memory several KiB a game.
    with ledger.read() as connection:
        stored = read_models.tournament_results(connection, existing["id"])
    run = Run(existing, spec, plan, stored)
    if not resume:
        of = f" of {plan.total}" if plan.total is not None else ""
        state = "complete" if plan.next_stage(run.stored) is None else f"{run.done}{of} games played"
        raise TournamentError(f"tournament {name!r} already exists ({state}): add --resume to continue it, "
                              "or pick another --name or --seed")
    stored, wanted = loads(existing["spec"]), spec.to_json()
    # Specs stored before these keys existed: no sandbox, and no resource limits to keep.
    stored.setdefault("sandbox", False)
    stored.setdefault("resources", wanted["resources"])
    stored.setdefault("clock", WALL)  # before cgroups: every move timed by the wall clock, bots never frozen
    stored.setdefault("ponder", True)
    if stored.get("deals") != wanted.get("deals"):
        raise TournamentError(book_changed(name, stored.get("deals"), wanted.get("deals")))
    if stored != wanted:
        changed = sorted(k for k in {*stored, *wanted} if stored.get(k) != wanted.get(k))
        if "tc" in changed:  # a game clock is stored as move time and bank too: name the clock alone
            changed = [key for key in changed if key not in ("move_time_ms", "time_bank_ms")]
        hint = (": to play without (or with changed) bots, start a new tournament with another --name"
                if "bots" in changed else "")
        differ = ", ".join(_difference(key, stored.get(key), wanted.get(key)) for key in changed)
        raise TournamentError(f"cannot resume {name!r}: its {differ} differ from this command's{hint}")
    return run


def unfinished(ledger: Ledger, namer: Namer, spec: Spec) -> None:
    """TournamentError if the same command (no --name, no --seed) started a tournament that was never finished:
    a drawn seed names each tournament anew, so running it again would silently start a second one beside the
    first, orphaned. It says how to go on with the first, or to start another on purpose."""
    form = None if spec.format is None else spec.format.name
    latest = seeding.resumable(ledger, namer(""), spec.game, form)
    if latest is None or tournament_rows.revealed(latest) is not None:  # over: its seed was revealed at its end
        return
    stored = len(tournament_rows.game_keys(ledger, latest["id"]))
    raise TournamentError(f"tournament {latest['name']!r}, started by this command, was not finished ({stored} "
                          f"game{'' if stored == 1 else 's'} stored): continue it with the same command plus --resume, "
                          "or start another beside it with --name NAME")


def book_changed(name: str, stored: list[str] | None, given: list[str] | None) -> str:
    """Why a resume with another deal book (or none where one was kept, or one where none was) is refused."""
    def told(book: list[str]) -> str:
        return f"{len(book)} deals, the first {book[0][:12]}…" if book else "no deals"

    if stored is None or given is None:
        return (f"cannot resume {name!r} with --deals: it was started without a deal book (its deals come from its "
                "seed); resume it without --deals")
    return (f"cannot resume {name!r} with this deal book ({told(given)}): it plays the one it was started with "
            f"({told(stored)}); resume it without --deals and it keeps its own")


SPEC_OPTIONS = {
    "games": "--games", "players": "--players", "move_time_ms": "--move-time", "time_bank_ms": "--time-bank",
    "sandbox": "--sandbox", "resources": "--memory-mb, --cpu-seconds, --max-processes", "format": "--format",
    "tc": "--tc",
}
"""The option of the command that sets each key of a stored spec, for the message of a refused resume."""


def _difference(key: str, stored: Any, given: Any) -> str:
    """One changed key of a spec, as the user can act on it: ``games (--games: stored 10, given 4)``."""
    option = SPEC_OPTIONS.get(key)
    if option is None:
        return key
    if key == "tc":
        def clock(tc: Any) -> str:
            return "none" if tc is None else f"{tc['base_ms'] / 1000:g}+{tc['increment_ms'] / 1000:g}"

        return f"{key} ({option}: stored {clock(stored)}, given {clock(given)})"
    if isinstance(stored, dict) or isinstance(given, dict):
        return f"{key} ({option})"
    if isinstance(stored, bool) or isinstance(given, bool):
        stored, given = ("on" if stored else "off"), ("on" if given else "off")
    unit = {"move_time_ms": " ms", "time_bank_ms": " ms"}.get(key, "")
    return f"{key} ({option}: stored {stored}{unit}, given {given}{unit})"


def execute(ledger: Ledger, run: Run, workers: int, progress: Callable[[int], None] | None = None,
            bot_logs: Path | None = None, notice: Callable[[str], None] | None = None, executor: Any = None,
            finished: Callable[[Result], None] | None = None) -> int:
    """Play and store every game still to play, stage by stage; returns how many were stored.

    The games are played by ``executor`` (tournaments.play.executors; None: the local pool of
    ``workers`` processes); this process alone stores them, each once.
    With ``bot_logs``, the end of each bot process's stderr in each stored game is written there
    (``write_logs``). A forfeiting bot's diagnosis is stored with its game. A worker's death is told to
    ``notice``. ``finished`` is told each game this run stored, as soon as it is stored (the command's
    line per game), before ``progress``.

    A signed checkpoint is appended every ``checkpoints.EVERY`` games and when the run stops
    (done, interrupted or failed); once the tournament is over, the last one says so and a
    drawn seed is revealed (``run.revealed``).
    """
    bot_ids: dict[str, int] = {}
    with ledger.write() as connection:
        for bot in run.spec.bots:
            bot_ids[bot.name] = ledger.ensure_bot(bot.name, bot.content_hash, bot.kind, connection)
    if bot_logs is not None:
        try:
            bot_logs.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            raise TournamentError(f"cannot write bot logs to {bot_logs}: {error.strerror or error}") from None
    stored = 0

    def store(connection: Connection, group: list[Result]) -> None:
        # The logs first: a diagnosis stored with its game names a log file that is there.
        if bot_logs is not None:
            for result in group:
                write_logs(bot_logs, result.key, result.logs, result.bots())
        ledger.store_games([finished_game(r.recorded, [bot_ids[s.name] for s in r.recorded.seats], r.scores,
                                          run.tournament["id"], r.key) for r in group], connection)
        game_rows.store_diagnoses(connection, [diagnosis_row(r, r.diagnosis, r.key, bot_logs) for r in group
                                               if r.diagnosis is not None])

    def alone(result: Result) -> bool:
        try:
            with ledger.write() as connection:
                store(connection, [result])
        except LedgerError:
            if result.key not in tournament_rows.game_keys(ledger, run.tournament["id"]):
                raise
            return False  # another process resumed the same tournament and stored it first (the same game)
        return True

    def committed(result: Result, new: bool) -> None:
        nonlocal stored
        recorded = result.recorded
        if new:
            stored += 1
            if stored % checkpoints.EVERY == 0:
                checkpoints.write(ledger, tournament_rows.scope(run.tournament))
        run.stored[result.key] = [(s.name, rank) for s, rank in zip(recorded.seats, recorded.ranking, strict=True)]
        if new and finished is not None:
            finished(result)
        if progress is not None:
            progress(stored)

    try:
        while (stage := run.plan.next_stage(run.stored)) is not None:
            for game in stage:
                seats = run.stored.get(game.key)
                if seats is not None and tuple(bot for bot, _ in seats) != game.bots:
                    raise TournamentError(f"stored game {game.key} was played by {', '.join(b for b, _ in seats)}, "
                                          f"but the schedule seats {', '.join(game.bots)} there: the database does "
                                          "not match this tournament's plan")
            jobs = [Job(run.spec, g, bot_logs is not None) for g in stage if g.key not in run.stored]
            if not jobs:
                raise RuntimeError("a stage with every game stored is not the next stage")
            played = results(jobs, workers, notice) if executor is None else executor.results(jobs, notice)
            # Played here (no workers), a game is stored as it ends: nothing overlaps the storing to
            # save, and an interruption (the progress callback, Ctrl-C) then finds no game held back.
            here = executor is None and workers <= 0
            writer = GroupCommit(ledger, store, alone, committed, max_games=1 if here else MAX_GAMES)
            try:
                for result in played:
                    writer.add(result)
            finally:
                writer.flush()  # the games finished so far are kept, whatever stopped the stage
    finally:
        close(ledger, run)
    return stored


def close(ledger: Ledger, run: Run) -> None:
    """Checkpoint what is stored; once the tournament is over, say so and reveal a drawn seed."""
    over = run.plan.next_stage(run.stored) is None
    checkpoints.write(ledger, tournament_rows.scope(run.tournament), over)
    if over and run.spec.drawn and tournament_rows.reveal(ledger, run.tournament["id"], run.spec.seed):
        run.revealed = run.spec.seed
        run.tournament = tournament_rows.get(ledger, str(run.tournament["id"]))


def write_logs(folder: Path, name: str, logs: tuple[bytes | None, ...] | None, bots: list[str]) -> None:
    """One file per seat that was a bot process, the end of its stderr, in a folder per bot:
    ``<bot>/<name>-seat<N>.log`` (``name``: the game's key, or a ladder game's id). The name it had
    before (``<name>-seat<N>.log``, at the top) is kept as a link to it (docs/tournaments.md)."""
    for seat, log in enumerate(logs or ()):
        if log is None:
            continue
        path = diagnosis.log_path(folder, bots[seat], name, seat)
        link = folder / path.name
        try:
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(log)
            if link.is_symlink() or link.exists():
                link.unlink()
            link.symlink_to(path.relative_to(folder))
        except OSError as error:
            raise TournamentError(f"cannot write bot logs to {folder}: {error.strerror or error}") from None


def diagnosis_row(result: Result, told: diagnosis.Diagnosis, name: str, bot_logs: Path | None
                  ) -> tuple[str, int, str, str, str, str | None]:
    """What ledger.games.store_diagnoses keeps of a result's diagnosis ``told``: with the absolute path of the
    seat's log, if --bot-logs wrote one (``name``: the game's key, or a ladder game's id)."""
    kept = bot_logs is not None and result.logs is not None and result.logs[told.seat] is not None
    log = (str(diagnosis.log_path(bot_logs.resolve(), result.bots()[told.seat], name, told.seat))
           if bot_logs is not None and kept else None)
    return (result.recorded.game_id, told.seat, told.kind, told.summary, told.detail, log)


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
