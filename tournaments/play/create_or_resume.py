"""Create or resume: a tournament's row made (its seed drawn and committed), or an existing one reopened with the
results stored so far, its stored spec held against the command's (tournaments.play.tournament_spec)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ledger import read_pages
from ledger.canonical import canonical, loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tournaments.play import seeding
from tournaments.play.formats import Plan
from tournaments.play.jobs import Job
from tournaments.play.naming import Namer, default_namer, known_name
from tournaments.play.play_errors import TournamentError
from tournaments.play.schedule import ScheduleError
from tournaments.play.tournament_spec import Spec, resume_refusal, upcast


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
        stored = read_pages.tournament_results(connection, existing["id"])
    run = Run(existing, spec, plan, stored)
    if not resume:
        of = f" of {plan.total}" if plan.total is not None else ""
        state = "complete" if plan.next_stage(run.stored) is None else f"{run.done}{of} games played"
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
    stored = len(tournament_rows.game_keys(ledger, latest["id"]))
    raise TournamentError(f"tournament {latest['name']!r}, started by this command, was not finished ({stored} "
                          f"game{'' if stored == 1 else 's'} stored): continue it with the same command plus --resume, "
                          "or start another beside it with --name NAME")
