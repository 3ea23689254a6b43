"""Create or resume: a tournament's row made (its seed drawn and committed), or an existing one reopened with the
results stored so far, its stored spec held against the command's (tournaments.play.tournament_spec); the plan's
stages walked from the stored results a page at a time (tournaments.play.plan_pages), as the runner plays them."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from ledger import read_pages
from ledger.canonical import canonical, loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tournaments.play import plan_pages, seeding
from tournaments.play.formats import Plan
from tournaments.play.jobs import Job
from tournaments.play.naming import Namer, default_namer, known_name
from tournaments.play.play_errors import TournamentError
from tournaments.play.schedule import ScheduleError, Stage
from tournaments.play.tournament_spec import Spec, resume_refusal, upcast


class StoredResults(Mapping[str, list[tuple[str, int]]]):
    """A tournament's stored results by game key, [(bot, rank)] by seat, read from the read models when asked
    (ledger.read_pages), never held: a page of keys at once (``of``), one key, the count, or every one a page at a
    time. What `tourney run` continued from when it kept every game's result in a dict (~0.5 KB a game)."""

    def __init__(self, ledger: Ledger, tournament_id: int, page: int | None = None) -> None:
        self.ledger, self.tournament_id = ledger, tournament_id
        self.page = plan_pages.PAGE if page is None else page

    def of(self, keys: Sequence[str]) -> dict[str, list[tuple[str, int]]]:
        """The results of the stored games among ``keys`` (a page of them)."""
        with self.ledger.read() as connection:
            return read_pages.tournament_results_of(connection, self.tournament_id, keys)

    def __getitem__(self, key: str) -> list[tuple[str, int]]:
        return self.of([key])[key]

    def __contains__(self, key: object) -> bool:
        return isinstance(key, str) and key in self.of([key])

    def __len__(self) -> int:
        with self.ledger.read() as connection:
            return read_pages.tournament_result_count(connection, self.tournament_id)

    def __iter__(self) -> Iterator[str]:
        return (key for key, _ in self.items())

    def items(self) -> Iterator[tuple[str, list[tuple[str, int]]]]:  # type: ignore[override]
        """Every stored result, in key order, read a page at a time."""
        with self.ledger.read() as connection:
            for found in read_pages.tournament_result_pages(connection, self.tournament_id, self.page):
                yield from found.items()


@dataclass(slots=True)
class Run:
    """A tournament row, its plan, and its results stored so far (by game key, read from the ledger when asked)."""

    tournament: dict[str, Any]
    spec: Spec
    plan: Plan
    stored: StoredResults
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
    def pending(self) -> Iterator[Job]:
        """The games of the current stage that are not stored yet, made a page at a time."""
        stage = next(self.stages(), None)
        return iter(()) if stage is None else self.jobs(stage)

    def stages(self, check: bool = True) -> Iterator[Stage]:
        """The plan's stages with games still to play, in order, walked from the stored results
        (tournaments.play.plan_pages.stages): each is given until every game of it is stored (the caller plays
        them), each checked against the stored games first (``unstored``)."""
        walking = plan_pages.stages(self.plan, self.stored.of, self.stored.page)
        for stage in walking:
            while self.unstored(stage, check):
                yield stage

    def over(self) -> bool:
        """Whether every stage of the plan is stored (the walk, with nothing played or checked)."""
        return next(self.stages(check=False), None) is None

    def unstored(self, stage: Stage, check: bool = True) -> int:
        """How many of ``stage``'s games are not stored yet (read a page at a time); with ``check``, TournamentError
        if a stored one was played by other bots than the plan seats there."""
        missing = 0
        for chunk in stage.pages(self.spec.seed, self.stored.page):
            found = self.stored.of([game.key for game in chunk])
            for game in chunk:
                seats = found.get(game.key)
                if seats is None:
                    missing += 1
                elif check and tuple(bot for bot, _ in seats) != game.bots:
                    raise TournamentError(f"stored game {game.key} was played by {', '.join(b for b, _ in seats)}, "
                                          f"but the schedule seats {', '.join(game.bots)} there: the database does "
                                          "not match this tournament's plan")
        return missing

    def jobs(self, stage: Stage, keep_logs: bool = False) -> Iterator[Job]:
        """The jobs of ``stage``'s games not stored yet, made a page at a time as they are drawn."""
        for chunk in stage.pages(self.spec.seed, self.stored.page):
            found = self.stored.of([game.key for game in chunk])
            yield from (Job(self.spec, game, keep_logs) for game in chunk if game.key not in found)


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
        row = tournament_rows.get(ledger, name)
        return Run(row, spec, plan, StoredResults(ledger, row["id"]))
    try:
        spec = seeding.for_resume(existing, spec, key)
    except seeding.SeedMismatch as error:
        raise TournamentError(str(error)) from None
    kept = loads(existing["spec"]).get("deals")
    if spec.deals is None and kept is not None:  # a resume without --deals plays the book the tournament keeps
        spec = replace(spec, deals=tuple(kept))
    plan = _plan(spec)
    # Swiss draws and a match's stopping rule read the stored results from the read models (counted from each
    # game's checked rows as it was stored; `tourney db audit` holds them against the hashed events), a page at a
    # time as the plan is walked: reading every game's events, or holding every result, would grow a resumed
    # run's memory with its games.
    run = Run(existing, spec, plan, StoredResults(ledger, existing["id"]))
    if not resume:
        of = f" of {plan.total}" if plan.total is not None else ""
        state = "complete" if run.over() else f"{run.done}{of} games played"
        raise TournamentError(f"tournament {name!r} already exists ({state}): add --resume to continue it, "
                              "or pick another --name or --seed")
    wanted = spec.to_json()
    refusal = resume_refusal(name, upcast(loads(existing["spec"]), wanted), wanted)
    if refusal is not None:
        raise TournamentError(refusal)
    return run


def unfinished(ledger: Ledger, namer: Namer, spec: Spec) -> None:
    """TournamentError if the same command (no --name, no --seed) started a tournament that was never finished:
    a drawn seed names each tournament anew, so running it again would silently start a second one beside the
    first, orphaned. It says how to go on with the first, or to start another on purpose."""
    form = None if spec.format is None else spec.format.name
    latest = seeding.resumable(ledger, namer(""), spec.game, form)
    if latest is None or tournament_rows.revealed(latest) is not None:  # over: its seed was revealed at its end
        return
    stored = len(StoredResults(ledger, latest["id"]))
    raise TournamentError(f"tournament {latest['name']!r}, started by this command, was not finished ({stored} "
                          f"game{'' if stored == 1 else 's'} stored): continue it with the same command plus --resume, "
                          "or start another beside it with --name NAME")
