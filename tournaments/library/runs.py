"""``run_tournament`` and ``run_match``: a tournament or a match played and stored as one call (docs/library.md).

Nothing here prints. What a caller may want to show while games are played (the notices of how the run is set up,
the run about to start, each game as it is stored) is told to an ``Observer``; the default one ignores it all.
Errors are the play machinery's own (``TournamentError`` and its kin, ``LedgerError``, ``EngineError``), one clear
line each; Ctrl-C during play raises ``Interrupted``, a KeyboardInterrupt that says how many games were stored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager as ContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from engines import registry
from ledger.rows import tournament_rows
from ledger.store import Ledger
from replays import projections
from tournaments.bots.spec import BotSpec, Confinement, Limits, Resources
from tournaments.play import candidate_match, deal_books, defaults, formats, preparation, runner, standings
from tournaments.play.dispatch import cpu_count
from tournaments.play.executors import choice
from tournaments.play.play_errors import TournamentError
from tournaments.ratings.sprt import Sprt

SETUP, BOTS, WORKER = "setup", "bots", "worker"
"""What a notice is about: how the bots are confined (the sandbox here), a bot left out, a worker that died."""
DEFAULT_LIMITS = Limits(1.0, 5.0)
"""A seat's time per move and its bank, seconds: `tourney run`'s and `tourney match`'s defaults."""


@dataclass(frozen=True, slots=True)
class Started:
    """A run about to play its games: the tournament (or match) opened, its bots ready, its executor chosen."""

    ledger: Ledger
    run: runner.Run
    bots: int
    """How many bots play (after any left out)."""
    players: int
    """Seats at a table."""
    executor: choice.Executor
    confinement: Confinement
    workers: int

    @property
    def done(self) -> int:
        """Games stored before this run (a resume)."""
        return self.run.done


class Observer:
    """What a caller is told while a run goes on; each method does nothing here (subclass it and override)."""

    def notice(self, kind: str, text: str) -> None:
        """A notice of ``kind`` (SETUP, BOTS or WORKER): the sandbox's absence, a bot left out, a worker's death."""

    def started(self, started: Started) -> None:
        """The run is open and about to play (``started.done`` games were stored before it)."""

    def playing(self, started: Started) -> ContextManager[Any]:
        """A context entered while the games are played (a progress display); by default none."""
        return contextlib.nullcontext()

    def game(self, result: runner.Result) -> None:
        """A game this run just stored (its key, sealed records and scores)."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C while games were played: what was stored is kept; the same call with ``resume=True`` continues.
    ``reason`` is the KeyboardInterrupt that stopped it (an observer may raise one of its own to stop the run)."""

    def __init__(self, name: str, stored: int, total: int | None, reason: KeyboardInterrupt | None = None) -> None:
        super().__init__(f"interrupted: {stored} games of {name} stored")
        self.name = name
        self.stored = stored
        self.total = total
        self.reason = reason


@dataclass(frozen=True, slots=True)
class TournamentResult:
    """A tournament played (or resumed) to its end: its name and row, its standings, what this call stored."""

    name: str
    tournament: dict[str, Any]
    standings: standings.Standings
    stored: int
    """Games this call stored (a resume counts only its own)."""
    total: int
    revealed: str | None
    """The drawn seed, revealed as the tournament ended (None: chosen, or revealed before)."""
    first_game: str | None
    """The id of the tournament's first stored game (to look at with `tourney replay html`)."""


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A match played (or resumed) until its test decided or its deals ran out."""

    name: str
    tournament: dict[str, Any]
    statistics: candidate_match.Statistics
    plan: candidate_match.MatchPlan
    stored: int
    revealed: str | None


def open_ledger(db: str | Ledger | None, ledger_key: Path | None = None) -> Ledger:
    """``db`` as a ledger: an open one as it is; else the database at that URL or path (None: the default,
    tourney.db here), made if missing, upgraded, its read models caught up."""
    if db is not None and not isinstance(db, str | Path):
        return db
    ledger = Ledger(None if db is None else str(db), ledger_key=ledger_key)
    if projections.behind(ledger):
        projections.catch_up(ledger)
    return ledger


def check_format(form: str, candidate: str | None, rounds: int | None) -> None:
    """TournamentError if ``form`` is no format, or an option is not its own."""
    if form not in formats.FORMATS:
        raise TournamentError(f"--format is one of {', '.join(formats.FORMATS)}, not {form!r}")
    if form == formats.GAUNTLET and candidate is None:
        raise TournamentError("--format gauntlet needs --candidate NAME: the bot that plays at every table")
    if candidate is not None and form != formats.GAUNTLET:
        raise TournamentError("--candidate is for --format gauntlet only")
    if rounds is not None and form != formats.SWISS:
        raise TournamentError("--rounds is for --format swiss only")


def workers_for(jobs: int | None, games: int | None) -> int:
    """The workers to start: ``jobs`` (None: the CPU count), never more than the games to play."""
    wanted = cpu_count() if jobs is None else jobs
    return wanted if games is None else min(wanted, games)


def run_tournament(bots: str | Path | Sequence[BotSpec], game: str, *, players: int | None = None,
                   games: int | None = None, seed: str | None = None, name: str | None = None, resume: bool = False,
                   jobs: int | None = None, limits: Limits = DEFAULT_LIMITS, form: str = formats.ROUND_ROBIN,
                   candidate: str | None = None, rounds: int | None = None, deals: Path | None = None,
                   sandbox: str = "auto", clock: str | None = None, ponder: bool | None = None,
                   resources: Resources | None = None, bot_logs: Path | None = None, executor: str = defaults.LOCAL,
                   ray_address: str | None = None, interval: str = defaults.CURVATURE,
                   db: str | Ledger | None = None, ledger_key: Path | None = None,
                   observer: Observer | None = None) -> TournamentResult:
    """Play a tournament between ``bots`` (a folder, as `tourney run` reads it, or BotSpecs) at ``game``, store every
    game in the ledger ``db`` and return its standings. The arguments are `tourney run`'s options
    (docs/tournaments.md); ``games`` None: every table plays ``defaults.DEFAULT_GAMES`` deals (with ``deals``, a
    deal book: all of its deals)."""
    observer = observer or Observer()
    engine = registry.get(game)
    ledger = open_ledger(db, ledger_key)
    check_format(form, candidate, rounds)
    choice.check(executor, ray_address, jobs)
    resources = resources or Resources()
    form_name = None if form == formats.ROUND_ROBIN else form
    folder = bots if isinstance(bots, str | Path) else "."
    namer = runner.default_namer(folder, engine.name, form_name)
    known = runner.known_name(ledger, name, seed, resume, namer, engine.name, form_name)
    # The book is read before any bot starts; a resume without ``deals`` plays the one its tournament keeps.
    book = deal_books.for_run(ledger, known if resume else None, deals, engine.name)
    games = deal_books.deals_to_play(book, games, defaults.DEFAULT_GAMES if games is None else games)
    confinement, notice = preparation.confinement_for(ledger, known, sandbox, resume, resources, clock, ponder)
    if notice:
        observer.notice(SETUP, notice)
    prepared, k = preparation.prepare(bots, engine.name, players, limits, confinement, bot_logs)
    with prepared:  # the staged copies of the bots' files are removed at the end
        for text in prepared.notices:
            observer.notice(BOTS, text)
        swiss_rounds = formats.default_rounds(len(prepared.bots), k) if rounds is None else rounds  # 0: refused
        chosen = (formats.Gauntlet(candidate) if form == formats.GAUNTLET
                  else formats.Swiss(swiss_rounds) if form == formats.SWISS
                  else None)
        spec = runner.Spec(engine.name, k, games, seed, limits.move_time, limits.time_bank, tuple(prepared.bots),
                           format=chosen, sandbox=confinement.sandbox, resources=resources, clock=confinement.clock,
                           ponder=confinement.ponder, deals=None if book is None else book.seeds,
                           increment=limits.increment)
        the_run = runner.open_run(ledger, name, spec, resume, namer)
        stored = _play(the_run, bot_logs, observer, lambda: _start(
            ledger, the_run, len(prepared.bots), k, jobs, executor, ray_address, confinement, observer))
    first = tournament_rows.first_game_id(ledger, the_run.tournament["id"])
    return TournamentResult(the_run.name, the_run.tournament,
                            standings.of_tournament(ledger, str(the_run.tournament["id"]), interval), stored,
                            the_run.total or 0, the_run.revealed, first)


def run_match(candidate: str | BotSpec, baseline: str | BotSpec, game: str, *, field: Sequence[str | BotSpec] = (),
              players: int | None = None, games: int | None = None, sprt: Sprt | None = None,
              batch: int = defaults.BATCH, folder: str | Path = "bots", seed: str | None = None,
              name: str | None = None, resume: bool = False, deals: Path | None = None, jobs: int | None = None,
              limits: Limits = DEFAULT_LIMITS, sandbox: str = "auto", clock: str | None = None,
              ponder: bool | None = None, resources: Resources | None = None, bot_logs: Path | None = None,
              executor: str = defaults.LOCAL, ray_address: str | None = None, db: str | Ledger | None = None,
              ledger_key: Path | None = None, observer: Observer | None = None) -> MatchResult:
    """Play ``candidate`` against ``baseline`` on paired deals (bot files, names of bots in ``folder``, or BotSpecs)
    until ``sprt`` decides (None: a fixed match of ``games`` deals), store every game in ``db`` and return the
    statistics (docs/match.md). The arguments are `tourney match`'s options."""
    observer = observer or Observer()
    choice.check(executor, ray_address, jobs)
    engine = registry.get(game)
    ledger = open_ledger(db, ledger_key)
    resolved = [ref if isinstance(ref, BotSpec) else candidate_match.resolve(ref, folder, engine.name)
                for ref in (candidate, baseline, *field)]
    spec = candidate_match.build(resolved[0], resolved[1], resolved[2:], engine.name, players, games, seed, limits,
                                 sprt,
                         batch)
    namer = candidate_match.namer(spec)
    known = runner.known_name(ledger, name, spec.seed, resume, namer, spec.game, candidate_match.MATCH)
    # The book is read before any bot starts; a resume without ``deals`` plays the one its match keeps.
    book = deal_books.for_run(ledger, known if resume else None, deals, engine.name)
    if book is not None:
        spec = replace(spec, games=deal_books.deals_to_play(book, games, None), deals=book.seeds)
    spec, prepared, notice = preparation.ready_spec(ledger, known, spec, sandbox, resume, resources or Resources(),
                                                    clock, ponder, bot_logs)
    with prepared:  # the staged copies of the bots' files are removed at the end
        if notice:
            observer.notice(SETUP, notice)
        the_run = runner.open_run(ledger, name, spec, resume, candidate_match.namer(spec))
        plan: candidate_match.MatchPlan = the_run.plan  # type: ignore[assignment]
        stored = _play(the_run, bot_logs, observer, lambda: _start(
            ledger, the_run, len(spec.bots), spec.players, jobs, executor, ray_address, spec.confinement, observer,
            plan.limit - the_run.done))
    return MatchResult(the_run.name, the_run.tournament, candidate_match.statistics(plan, the_run.stored), plan, stored,
                       the_run.revealed)


def _start(ledger: Ledger, the_run: runner.Run, bots: int, players: int, jobs: int | None, executor: str,
           ray_address: str | None, confinement: Confinement, observer: Observer,
           games: int | None = None) -> Started:
    """The executor for the games still to play, and the observer told the run is about to start."""
    workers = workers_for(jobs, the_run.total - the_run.done if games is None else games)  # type: ignore[operator]
    started = Started(ledger, the_run, bots, players, choice.open_executor(executor, workers, ray_address),
                      confinement, workers)
    observer.started(started)
    return started


def _play(the_run: runner.Run, bot_logs: Path | None, observer: Observer, start: Callable[[], Started]) -> int:
    """Start the run's executor (``start``) and play and store its games, the observer's ``playing`` entered
    meanwhile; Interrupted on Ctrl-C from the start on (the tournament is begun: the line says how to resume it)."""
    try:
        started = start()
        with started.executor, observer.playing(started):
            return runner.execute(started.ledger, the_run, started.workers, None, bot_logs,
                                  lambda text: observer.notice(WORKER, text), started.executor, observer.game)
    except KeyboardInterrupt as stop:
        raise Interrupted(the_run.name, the_run.done, the_run.total, stop) from None
