"""The tournament runner: schedule, play (in parallel worker processes), store, resume.

Only the parent process writes to the database: workers play a scheduled game from its
key and send back the sealed records, and the parent stores each finished game in one
transaction. A game that was not stored when the run died is simply played again from
the start on ``--resume``; a stored one is never played twice (its key is unique in its
tournament). Every game's seeds derive from its key, so the results of a seed are the
same whatever ``--jobs`` is and in whatever order workers finish.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines import registry
from engines.driver import play
from ledger import tournaments as tournament_rows
from ledger.canonical import canonical, loads
from ledger.store import Ledger, LedgerError
from replays.archive import store_recorded
from replays.record import Recorded, SeatInfo, record
from tournaments.bots.discovery import discover
from tournaments.bots.inprocess import BuiltinRandom, PythonAgent
from tournaments.bots.protocol import ProgramAgent, check_handshake
from tournaments.bots.spec import BUILTIN, PROGRAM, PYTHON, BotSpec, Limits
from tournaments.play.formats import Plan, RoundRobin
from tournaments.play.schedule import Scheduled, ScheduleError, seat_count
from tournaments.play.workers import run as run_workers

DEFAULT_GAMES = 10
DEFAULT_SEED = "1"


class TournamentError(ValueError):
    """A tournament that cannot run as asked; the message is one clear line."""


@dataclass(frozen=True, slots=True)
class Spec:
    """What defines a tournament (stored with it; a resume must match it)."""

    game: str
    players: int
    games: int
    seed: str
    move_time: float
    time_bank: float
    bots: tuple[BotSpec, ...]
    options: dict[str, Any] = field(default_factory=dict)
    format: Any = None
    """The format (tournaments.play.formats, or a match); None: round robin."""

    @property
    def bot_names(self) -> list[str]:
        return [bot.name for bot in self.bots]

    def plan(self) -> Plan:
        """The stages to play; ScheduleError if the format cannot seat these bots."""
        return (self.format or RoundRobin()).plan(self)

    def to_json(self) -> dict[str, Any]:
        out = {
            "game": self.game, "players": self.players, "games": self.games, "seed": self.seed,
            "move_time_ms": round(self.move_time * 1000), "time_bank_ms": round(self.time_bank * 1000),
            "options": self.options,
            "bots": [{"name": b.name, "hash": b.content_hash, "kind": b.kind} for b in self.bots],
        }
        # Added only when not a round robin, so the stored spec of every earlier tournament
        # still equals its command's and resumes.
        described = self.format.to_json() if self.format is not None else None
        if described is not None:
            out["format"] = described
        return out


@dataclass(frozen=True, slots=True)
class Job:
    """One scheduled game, with all a worker needs to play it (picklable)."""

    spec: Spec
    scheduled: Scheduled


@dataclass(frozen=True, slots=True)
class Result:
    key: str
    recorded: Recorded
    scores: list[int] | None


@dataclass(slots=True)
class Prepared:
    """The bots that will play, and a notice for each file left out."""

    bots: list[BotSpec]
    notices: list[str]


def prepare(folder: str | Path, game: str, players: int | None, limits: Limits) -> tuple[Prepared, int]:
    """Discover the bots of a folder for ``game``, shake hands with the programs, fix k."""
    engine = registry.get(game)
    found, notices = discover(folder, game)
    ready = []
    for spec in found:
        if spec.kind == PROGRAM:
            failure = check_handshake(spec, game, engine.default_seats, limits)
            if failure:
                notices.append(f"left out {spec.name}: {failure}")
                continue
        ready.append(spec)
    try:
        k = seat_count(players, engine.default_seats, engine.min_seats, engine.max_seats, len(ready), game)
    except ScheduleError as error:
        raise TournamentError(f"{error} in {folder}") from None
    return Prepared(ready, notices), k


def make_agent(spec: BotSpec, game: str, seat: int, seats: int, seed: int, limits: Limits):
    if spec.kind == PYTHON:
        return PythonAgent(spec, game, seat, seed, limits)
    if spec.kind == BUILTIN:
        return BuiltinRandom(seed)
    return ProgramAgent(spec, game, seat, seats, seed, limits)


def play_job(job: Job) -> Result:
    """Play one scheduled game to the end and seal it (runs in a worker or the parent)."""
    spec, scheduled = job.spec, job.scheduled
    engine = registry.get(spec.game)
    config = engine.configure(spec.players, spec.options)
    by_name = {bot.name: bot for bot in spec.bots}
    seated = [by_name[name] for name in scheduled.bots]
    agents = [
        make_agent(bot, spec.game, seat, spec.players, scheduled.bot_seed(spec.seed, seat),
                   Limits(spec.move_time, spec.time_bank))
        for seat, bot in enumerate(seated)
    ]
    try:
        played = play(engine, config, scheduled.seed, agents)
    finally:
        for agent in agents:
            agent.close()
    recorded = record(engine, config, scheduled.seed, played, [SeatInfo(b.name, b.content_hash) for b in seated])
    scores = getattr(engine, "scores", None)
    return Result(scheduled.key, recorded, list(scores(played.state)) if scores else None)


def results(jobs: list[Job], workers: int) -> Iterator[Result]:
    """Play ``jobs`` in ``workers`` processes (0: in this process); results in completion order.

    With one worker or more, this process stores each game while the workers play the next
    ones, so storing costs the tournament (almost) no time as long as it is faster than play.
    """
    if workers <= 0 or len(jobs) <= 1:
        for job in jobs:
            yield play_job(job)
        return
    yield from run_workers(play_job, jobs, min(workers, len(jobs)), lambda job: f"game {job.scheduled.key}")


@dataclass(slots=True)
class Run:
    """A tournament row, its plan, and the results stored so far (by game key)."""

    tournament: dict[str, Any]
    spec: Spec
    plan: Plan
    stored: dict[str, list[tuple[str, int]]]

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


def default_name(folder: str | Path, game: str, seed: str, form: str | None = None) -> str:
    middle = f"-{form}" if form else ""
    return f"{Path(folder).resolve().name}-{game}{middle}-seed{seed}"


def open_run(ledger: Ledger, name: str, spec: Spec, resume: bool) -> Run:
    """Create the tournament, or (with resume) reopen it with the results stored so far."""
    try:
        plan = spec.plan()
    except ScheduleError as error:
        raise TournamentError(str(error)) from None
    existing = tournament_rows.find(ledger, name)
    if existing is None:
        if resume:
            raise TournamentError(f"no tournament {name!r} to resume in {ledger.url}")
        with ledger.write() as connection:
            bot_ids = [ledger.ensure_bot(b.name, b.content_hash, b.kind, connection) for b in spec.bots]
        tournament_rows.create(ledger, name, spec.game, canonical(spec.to_json()).decode(), spec.seed, bot_ids)
        return Run(tournament_rows.get(ledger, name), spec, plan, {})
    run = Run(existing, spec, plan, tournament_rows.results_by_key(ledger, existing["id"]))
    if not resume:
        of = f" of {plan.total}" if plan.total is not None else ""
        state = "complete" if plan.next_stage(run.stored) is None else f"{run.done}{of} games played"
        raise TournamentError(f"tournament {name!r} already exists ({state}): add --resume to continue it, "
                              "or pick another --name or --seed")
    stored, wanted = loads(existing["spec"]), spec.to_json()
    if stored != wanted:
        changed = sorted(k for k in {*stored, *wanted} if stored.get(k) != wanted.get(k))
        hint = (": to play without (or with changed) bots, start a new tournament with another --name"
                if "bots" in changed else "")
        raise TournamentError(f"cannot resume {name!r}: its {', '.join(changed)} differ from this command's{hint}")
    return run


def execute(ledger: Ledger, run: Run, workers: int, progress: Callable[[int], None] | None = None) -> int:
    """Play and store every game still to play, stage by stage; returns how many were stored."""
    bot_ids: dict[str, int] = {}
    with ledger.write() as connection:
        for bot in run.spec.bots:
            bot_ids[bot.name] = ledger.ensure_bot(bot.name, bot.content_hash, bot.kind, connection)
    stored = 0
    while (stage := run.plan.next_stage(run.stored)) is not None:
        for game in stage:
            seats = run.stored.get(game.key)
            if seats is not None and tuple(bot for bot, _ in seats) != game.bots:
                raise TournamentError(f"stored game {game.key} was played by {', '.join(b for b, _ in seats)}, "
                                      f"but the schedule seats {', '.join(game.bots)} there: the database does "
                                      "not match this tournament's plan")
        jobs = [Job(run.spec, g) for g in stage if g.key not in run.stored]
        if not jobs:
            raise RuntimeError("a stage with every game stored is not the next stage")
        for result in results(jobs, workers):
            recorded = result.recorded
            ids = [bot_ids[s.name] for s in recorded.seats]
            try:
                store_recorded(ledger, recorded, ids, result.scores, run.tournament["id"], result.key)
            except LedgerError:
                if result.key not in tournament_rows.game_keys(ledger, run.tournament["id"]):
                    raise
                # another process resumed the same tournament and stored it first (the same game)
            else:
                stored += 1
            run.stored[result.key] = [(s.name, rank) for s, rank in zip(recorded.seats, recorded.ranking, strict=True)]
            if progress is not None:
                progress(stored)
    return stored


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
