"""The bots of a run made ready before any game: found in a folder, sandboxed or not (a resumed
tournament keeps what it was started with), their files staged, each one's handshake checked.

tournaments.play.runner plays what this prepares; the CLI's ``run`` and ``match`` call both.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from engines import registry
from engines.driver import bounded_reason
from ledger.canonical import loads
from ledger.rows import tournament_rows
from ledger.store import Ledger
from tournaments.bots import diagnosis
from tournaments.bots.discovery import discover, staged_copy
from tournaments.bots.spec import CPU, UNSANDBOXED, WALL, BotError, BotSpec, Confinement, Limits, Resources
from tournaments.play.protocol import Handshake, check_handshakes
from tournaments.play.runner import Spec, TournamentError
from tournaments.play.schedule import ScheduleError, seat_count
from tournaments.play.store_loop import unwritable
from tournaments.sandbox import leftovers, sandbox


@dataclass(slots=True)
class Prepared:
    """The bots that will play, a notice for each file left out, and the copies a sandbox shows them."""

    bots: list[BotSpec]
    notices: list[str]
    staging: tempfile.TemporaryDirectory | None = None

    def __enter__(self) -> Prepared:
        return self

    def __exit__(self, *_exc: object) -> None:
        """Removes the staged copies of the bots' files (call it when the run is over)."""
        if self.staging is not None:
            self.staging.cleanup()


def confinement_for(ledger: Ledger, name: str | None, mode: str, resume: bool, resources: Resources,
                    clock: str | None = None, ponder: bool | None = None) -> tuple[Confinement, str | None]:
    """Whether bots play in the sandbox (``mode``: on, off or auto), how their moves are timed
    (``clock``: cpu, wall, None for the best here) and whether they run between turns (``ponder``,
    None likewise), and a notice to show, if any.

    A resumed tournament keeps what it was started with (one stored before the sandbox existed
    played without it; one stored before cgroups, by the wall clock with bots never frozen):
    what was not given follows it, and a value given against it is refused.
    """
    existing = tournament_rows.find(ledger, name) if resume and name is not None else None
    if existing is None:
        on, notice = sandbox.resolve(mode)
        if not on:
            if clock == CPU or ponder is False:
                raise TournamentError("--clock cpu and --no-ponder need the sandbox (its cgroups)")
            return Confinement(False, resources), notice
        return Confinement(True, resources, *sandbox.timing(clock, ponder)), notice
    spec = loads(existing["spec"])
    stored = bool(spec.get("sandbox", False))
    stored_clock, stored_ponder = spec.get("clock", WALL), spec.get("ponder", True)
    if mode != "auto" and (mode == "on") != stored:
        raise TournamentError(f"cannot resume {name!r} with --sandbox {mode}: it was started with the sandbox "
                              f"{'on' if stored else 'off'}")
    kept_ponder = "pondering" if stored_ponder else "bots frozen between turns"
    for given, kept, flag, started in ((clock, stored_clock, f"--clock {clock}", f"the {stored_clock} clock"),
                                       (ponder, stored_ponder, "--ponder" if ponder else "--no-ponder", kept_ponder)):
        if given is not None and given != kept:
            raise TournamentError(f"cannot resume {name!r} with {flag}: it was started with {started}")
    if stored:
        sandbox.resolve("on")
        sandbox.timing(stored_clock, stored_ponder)  # this machine can still play it so
    return Confinement(stored, resources, stored_clock, stored_ponder), None



def prepare(folder: str | Path | Sequence[BotSpec], game: str, players: int | None, limits: Limits,
            confinement: Confinement = UNSANDBOXED, bot_logs: Path | None = None) -> tuple[Prepared, int]:
    """Discover the bots of a folder for ``game`` (never running them; or take the BotSpecs given), make them ready
    (``ready``: one that fails its handshake is left out with a notice, and with ``bot_logs`` its stderr written
    there, ``write_handshake_logs``), and fix k."""
    engine = registry.get(game)
    found, notices = discover(folder, game) if isinstance(folder, str | Path) else (list(folder), [])
    unique_names(found)
    prepared, shaken = ready(found, game, engine.default_seats, limits, confinement)
    try:
        prepared.notices[:0] = notices
        write_handshake_logs(bot_logs, prepared.bots, shaken)
        for spec, handshake in zip(list(prepared.bots), shaken, strict=True):
            if handshake.failure:
                prepared.notices.append(bounded_reason(f"left out {spec.name}: {handshake.failure}"))  # a bot wrote it
                prepared.bots.remove(spec)
        try:
            k = seat_count(players, engine.default_seats, engine.min_seats, engine.max_seats, len(prepared.bots),
                           game)
        except ScheduleError as error:
            # The files skipped and the bots left out are why there are too few: their reasons go in the one line.
            why = "; ".join(prepared.notices) if len(prepared.bots) < engine.min_seats else ""
            raise TournamentError(f"{error} in {folder}" + (f" ({why})" if why else "")) from None
    except BaseException:
        prepared.__exit__()
        raise
    return prepared, k


def write_handshake_logs(folder: Path | None, bots: Sequence[BotSpec], shaken: Sequence[Handshake]) -> None:
    """With --bot-logs ``folder``, what each bot that failed its handshake wrote on stderr, as a game's seat log is
    written: ``<bot>/handshake.log``; TournamentError if it cannot be written."""
    failed = [(bot, handshake.stderr) for bot, handshake in zip(bots, shaken, strict=True)
              if handshake.failure and handshake.stderr is not None]
    if folder is None or not failed:
        return
    if unusable := unwritable(folder):
        raise TournamentError(f"cannot write bot logs to {folder}: {unusable}")
    for bot, stderr in failed:
        path = diagnosis.handshake_log_path(folder, bot.name)
        try:
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(stderr)
        except OSError as error:
            raise TournamentError(f"cannot write bot logs to {folder}: {error.strerror or error}") from None


def unique_names(bots: Sequence[BotSpec]) -> None:
    """TournamentError naming the bot and both files if two bots have one name (a bot is known by its name), before
    any bot starts or anything is stored."""
    seen: dict[str, BotSpec] = {}
    for bot in bots:
        first = seen.setdefault(bot.name, bot)
        if first is not bot:
            raise TournamentError(f"two bots are named {bot.name!r}: {first.path} and {bot.path}; rename one")


STAGING = "tourney-bots-"
"""The prefix of a run's folder of staged bot files, in the temporary folder (TMPDIR): ``tourney-bots-<pid>-<start
time>-<random>``, named for the process that made it (tournaments.sandbox.leftovers)."""


def staging_folder() -> tempfile.TemporaryDirectory:
    """A new folder for a run's staged bot files, removed when the run ends; first, those of tourney processes that
    are gone are removed (a run SIGKILLed, or stopped by the OOM killer, cannot remove its own, and a ladder's
    workers are started again and again: docs/security.md)."""
    return leftovers.temporary_folder(STAGING)


def sweep_staging() -> list[Path]:
    """Remove the staging folders (in the temporary folder) of tourney processes that no longer run; the ones
    removed (tournaments.sandbox.leftovers.sweep)."""
    return leftovers.sweep(Path(tempfile.gettempdir()), STAGING)


def ready(bots: list[BotSpec], game: str, seats: int, limits: Limits, confinement: Confinement
          ) -> tuple[Prepared, list[Handshake]]:
    """The bots as they will play: with the sandbox, their own files staged (copied where every
    sandbox can read them and no one can change them during the run); and, per bot, how its
    handshake went (why it failed, None: ready; and its stderr). Every bot that plays as a process
    shakes hands, Python bots through pyhost, so one whose import outlasts the handshake fails here.
    A bot whose files cannot be staged is dropped, with a notice."""
    prepared = Prepared([], [])
    try:
        if confinement.sandbox and bots:
            prepared.staging = staging_folder()
            staged = []
            for spec in bots:
                try:
                    staged.append(staged_copy(spec, Path(prepared.staging.name)))
                except (BotError, OSError) as error:
                    prepared.notices.append(f"skipped {Path(spec.path).name}: {error}")
            bots = staged
        prepared.bots = list(bots)
        return prepared, check_handshakes(bots, game, seats, limits, confinement)
    except BaseException:
        prepared.__exit__()
        raise


def ready_spec(ledger: Ledger, name: str | None, spec: Spec, mode: str, resume: bool, resources: Resources,
               clock: str | None = None, ponder: bool | None = None, bot_logs: Path | None = None
               ) -> tuple[Spec, Prepared, str | None]:
    """A spec whose bots were named one by one (a match): sandboxed or not as ``mode`` and a resumed
    tournament say, its bots ``ready``; TournamentError naming a bot that fails its handshake (its stderr
    written to ``bot_logs``, as ``prepare`` does). Also the staged files to remove when the run is over,
    and a notice to show, if any."""
    confinement, notice = confinement_for(ledger, name, mode, resume, resources, clock, ponder)
    prepared, shaken = ready(list(spec.bots), spec.game, spec.players, spec.limits(), confinement)
    try:
        write_handshake_logs(bot_logs, prepared.bots, shaken)
    except TournamentError:
        prepared.__exit__()
        raise
    for bot, handshake in zip(prepared.bots, shaken, strict=True):
        if handshake.failure:
            prepared.__exit__()
            raise TournamentError(f"{bot.name}: {handshake.failure}")
    if len(prepared.bots) != len(spec.bots):
        prepared.__exit__()
        raise TournamentError(prepared.notices[0])
    return replace(spec, bots=tuple(prepared.bots), sandbox=confinement.sandbox, resources=resources,
                   clock=confinement.clock, ponder=confinement.ponder), prepared, notice
