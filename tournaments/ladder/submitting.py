"""Submissions: a bot packaged, validated in games against random bots from every seat, and listed.

A ladder never imports a submitted bot, and never runs one outside the sandbox: every bot plays as its own
process (a Python file through ``tournaments.bots.pyhost``) in a sandbox of its own per game, under the
ladder's limits (docs/security.md); without bwrap a ladder refuses to play.
"""

from __future__ import annotations

import io
import secrets
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from ledger.rows import ladder_rows, owner_rows
from ledger.store import Ledger
from tournaments.bots.discovery import describe, language, read_files
from tournaments.bots.spec import MANIFEST_SUFFIX, BotError, BotSpec
from tournaments.ladder.bot_cache import materialize, runnable
from tournaments.ladder.confinement import Limits, confined, require_sandbox
from tournaments.ladder.ladder_errors import LadderError, Refused
from tournaments.ladder.owner_tokens import BadName, check_name
from tournaments.ladder.rating_models import model
from tournaments.play.runner import Job, Spec
from tournaments.play.runner import results as played
from tournaments.play.schedule import Scheduled

OPPONENT = Path(__file__).with_name("validation_opponent.py")
"""The bot a submission plays its validation games against (a random player, run like any other)."""


def package(path: Path) -> tuple[BotSpec, str, bytes]:
    """The spec of a submission, its entry point, and its files as a zip."""
    if not path.exists():
        raise LadderError(f"{path}: no such file")
    if not path.is_file():
        raise LadderError(f"{path}: not a bot file (a .py file, an executable, or a {MANIFEST_SUFFIX} manifest)")
    try:
        spec = describe(path)
    except BotError as error:
        raise LadderError(f"{path}: {error}") from None
    if spec is None:
        raise LadderError(f"{path}: not a bot (a .py file with GAMES and Bot, an executable, or a manifest)")
    try:
        files = read_files(spec)  # bounded, and only the bot's own regular files, as discovery reads them
    except BotError as error:
        raise LadderError(f"{path}: {error}") from None
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content, executable in files:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if executable else 0o644) << 16
            archive.writestr(info, content)
    return spec, path.name, buffer.getvalue()


DESCRIPTION_CHARS = 200
"""The most an author may say of a bot version (plain text; the pages escape it)."""


def submit(ledger: Ledger, ladder_name: str, path: Path, as_name: str | None, limits: Limits,
           owner_id: int | None = None, say: Callable[[str], None] | None = None,
           played: list[tuple[Any, int]] | None = None, description: str | None = None) -> ladder_rows.Submitted:
    """Validate a submission in games against random, then list it; LadderError if it fails. ``owner_id``:
    the owner whose upload it is (None: the operator's, under a name that reads as no owner's, else
    owner_rows.NameTaken, before any game). ``say`` is told a line as validation starts and as each of its
    games ends; ``played``, when given, gets each validation game (as validate's). It is listed with what it is
    written in (discovery.language) and its author's ``description``. The operator's bot name (``as_name``, else
    the file's) follows owner_tokens.TEAM_NAME (an owner's NAME, or its parts joined by "/"; BadName otherwise)."""
    ladder = ladder_rows.get(ledger, ladder_name)
    if description is not None and len(description) > DESCRIPTION_CHARS:
        raise LadderError(f"a bot's description is at most {DESCRIPTION_CHARS} characters, not {len(description)}")
    if owner_id is None and as_name is not None:
        check_name(as_name, "bot name", teams=True)
    spec, entry_point, files = package(path)
    name = as_name or spec.name
    if owner_id is None and as_name is None:
        try:
            check_name(name, "bot name", teams=True)
        except BadName as error:
            raise BadName(f"{error}; it comes from the file name {path.name!r}: name the bot with --as") from None
    left_out = spec.not_playing(ladder["game"])
    if left_out is not None:
        raise LadderError(f"{path.name} {left_out}")
    if owner_id is None:
        with ledger.read() as connection:
            owner_rows.check_operators_name(connection, name)
    if _listed(ledger, ladder["id"], name, spec.content_hash):  # nothing to validate: the no-op, as it always was
        return ladder_rows.submit(ledger, ladder["id"], name, spec.content_hash, spec.kind, entry_point, files,
                                  model(ladder).start, owner_id, language(spec), description)
    require_sandbox()
    candidate = runnable(name, spec.content_hash, materialize(spec.content_hash, entry_point, files), entry_point)
    validate(ladder, candidate, limits, say, played)
    return ladder_rows.submit(ledger, ladder["id"], name, spec.content_hash, spec.kind, entry_point, files,
                       model(ladder).start, owner_id, language(spec), description)


def validate(ladder: dict[str, Any], candidate: BotSpec, limits: Limits, say: Callable[[str], None] | None = None,
             played: list[tuple[Any, int]] | None = None) -> None:
    """One deal against random bots, from every seat; any forfeit refuses the submission. ``say`` is told
    what is played, and each game's result as it ends (a validation takes seconds per game); ``played``, when
    given, gets each game as it ends (the recorded game, the candidate's seat), to be kept for its owner.

    Nothing tells the candidate it is being validated: a fresh random seed, the same keys,
    command line, sandbox and environment as a ladder game, and opponents that are bot
    processes like any other.
    """
    k = ladder["players"]
    _, entry_point, files = package(OPPONENT)
    opponent_hash = describe(OPPONENT).content_hash
    folder = materialize(opponent_hash, entry_point, files)
    opponents = [runnable(f"random-{i}", opponent_hash, folder, entry_point) for i in range(k - 1)]
    bots = (candidate, *opponents)
    seed = f"{secrets.randbits(128):032x}"
    spec = Spec(ladder["game"], k, 1, seed, limits.move_time, limits.time_bank, bots, resources=limits.resources,
                **confined())
    names = [b.name for b in bots]
    if say is not None:
        say(f"validating {candidate.name}: {k} game{'s' if k > 1 else ''} against random bots, one from each seat")
    for rotation in range(k):
        seated = tuple(names[rotation:] + names[:rotation])
        result = _play(Job(spec, Scheduled(f"ladder-r{rotation}", 0, 0, rotation, seated, seed)))
        outcome = result.recorded
        seat = seated.index(candidate.name)
        if played is not None:
            played.append((outcome, seat))
        if say is not None:
            reason = _forfeit_reason(outcome)
            said = "finished" if reason is None else f"{seated[_forfeit_seat(outcome)]} forfeited: {reason}"
            say(f"validation game {rotation + 1} of {k}: {candidate.name} in seat {seat} placed "
                f"{outcome.ranking[seat]} of {k} {{{said}}}")
        if outcome.reason == "forfeit":
            reason = _forfeit_reason(outcome)
            if outcome.ranking[seat] == k and reason:
                told = result.diagnosis if result.diagnosis is not None and result.diagnosis.seat == seat else None
                account = reason if told is None else told.told(reason)
                raise Refused(f"{candidate.name} refused: in its validation game it forfeited ({account})", told)


def _listed(ledger: Ledger, ladder_id: int, name: str, content_hash: str) -> bool:
    """Whether this content is on the ladder under this name already (any version: ladder_rows.submit's no-op)."""
    return any(entry["name"] == name and entry["content_hash"] == content_hash
               for entry in ladder_rows.entries(ledger, ladder_id, active_only=False))


def _play(job: Job):
    return next(played([job], 1))


def _forfeit_reason(recorded) -> str | None:
    for record in recorded.records:
        if record.type == "seat_forfeited":
            return orjson.loads(record.body)["data"]["reason"]
    return None


def _forfeit_seat(recorded) -> int:
    return next(orjson.loads(record.body)["data"]["seat"] for record in recorded.records
                if record.type == "seat_forfeited")
