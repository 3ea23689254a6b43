"""League ladders: submissions, validation, matchmaking, play, ratings folded from the ledger.

A ladder never imports a submitted bot: every submission runs as its own process (a
Python file through ``tournaments.bots.pyhost``), under CPU-time and memory limits. Its files
are stored in the ledger (a zip per bot version), so a ladder can run a bot for weeks
after it was submitted, from any machine that has the database.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import stat
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from engines import registry
from ledger import ladders as rows
from ledger.store import Ledger
from replays.archive import store_recorded
from replays.record import SEAT_FORFEITED
from tournaments.bots.discovery import describe
from tournaments.bots.spec import BUILTIN, MANIFEST_SUFFIX, PROGRAM, PYTHON, BotError, BotSpec
from tournaments.ladder import matchmaking
from tournaments.play import results
from tournaments.play.runner import Job, Spec
from tournaments.play.runner import results as played
from tournaments.play.schedule import Scheduled
from tournaments.ratings import elo, openskill

CPU_SECONDS = 60
"""RLIMIT_CPU of a ladder bot's process, per game."""
MEMORY_MB = 1024
"""RLIMIT_AS of a ladder bot's process."""


ELO = "elo"
OPENSKILL = "openskill"
RATINGS = (ELO, OPENSKILL)


class LadderError(ValueError):
    """A ladder request that cannot be done; the message is one clear line."""


def default_rating(players: int) -> str:
    """OpenSkill for 3 or more seats (a ranking is one observation, not pairs), Elo for two."""
    return OPENSKILL if players >= 3 else ELO


def _elo_update(ratings: list[rows.Rating], ranks: list[int]) -> list[rows.Rating]:
    return [(rating, None) for rating in elo.multiplayer_update([r for r, _ in ratings], ranks)]


def _openskill_update(ratings: list[rows.Rating], ranks: list[int]) -> list[rows.Rating]:
    rated = openskill.rate([openskill.Skill(mu, sigma) for mu, sigma in ratings], ranks)
    return [(skill.mu, skill.sigma) for skill in rated]


def _openskill_start(previous: rows.Rating | None) -> rows.Rating:
    skill = openskill.new_version(None if previous is None else openskill.Skill(*previous))
    return (skill.mu, skill.sigma)


@dataclass(frozen=True, slots=True)
class Model:
    """How a ladder rates: the update after a game, a new version's start, the matchmaking spread."""

    update: rows.Update
    start: rows.Start
    spread: float


MODELS = {
    ELO: Model(_elo_update, rows.elo_start, matchmaking.SPREAD),
    # OpenSkill's beta is one game's performance spread: a mu gap of beta is about a 76% favourite,
    # as 200 Elo points are, so it plays the part of Elo's spread.
    OPENSKILL: Model(_openskill_update, _openskill_start, openskill.BETA),
}


def model(ladder: dict[str, Any]) -> Model:
    return MODELS[ladder.get("rating") or ELO]


def create(ledger: Ledger, name: str, game: str, players: int, rating: str | None = None) -> str:
    """Create a ladder; its rating model (default by seats) is fixed for its life. Returns the model."""
    chosen = rating or default_rating(players)
    if chosen not in RATINGS:
        raise LadderError(f"--rating is {' or '.join(RATINGS)}, not {chosen!r}")
    rows.create(ledger, name, game, players, chosen)
    return chosen


@dataclass(frozen=True, slots=True)
class Limits:
    move_time: float = 1.0
    time_bank: float = 5.0
    cpu_seconds: int = CPU_SECONDS
    memory_mb: int = MEMORY_MB


# -- submissions -----------------------------------------------------------------------


def package(path: Path) -> tuple[BotSpec, str, bytes]:
    """The spec of a submission, its entry point, and its files as a zip."""
    if not path.is_file():
        raise LadderError(f"{path}: not a bot file (a .py file, an executable, or a {MANIFEST_SUFFIX} manifest)")
    try:
        spec = describe(path, untrusted=True)
    except BotError as error:
        raise LadderError(f"{path}: {error}") from None
    if spec is None:
        raise LadderError(f"{path}: not a bot (a .py file with GAMES and Bot, an executable, or a manifest)")
    files = [path]
    if spec.kind == PROGRAM and path.name.endswith(MANIFEST_SUFFIX):
        files += [path.parent / part for part in spec.command if (path.parent / part).is_file()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in files:
            info = zipfile.ZipInfo(str(file.relative_to(path.parent)), date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (file.stat().st_mode & 0o777) << 16
            archive.writestr(info, file.read_bytes())
    return spec, path.name, buffer.getvalue()


def materialize(content_hash: str, entry_point: str, files: bytes) -> Path:
    """Unpack a stored bot once per machine (content-addressed); the directory it runs in."""
    root = Path(tempfile.gettempdir()) / "tourney-bots"
    target = root / content_hash
    if target.exists():
        return target
    root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=root))
    with zipfile.ZipFile(io.BytesIO(files)) as archive:
        for info in archive.infolist():
            destination = staging / info.filename
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(archive.read(info))
            destination.chmod((info.external_attr >> 16) & 0o777 or stat.S_IRUSR | stat.S_IWUSR)
    with contextlib.suppress(OSError):  # another process unpacked it first
        staging.rename(target)
    return target


def process_spec(name: str, content_hash: str, kind: str, directory: Path, entry_point: str,
                 limits: Limits) -> BotSpec:
    """How to run a stored bot as a separate process with the ladder's limits."""
    entry = directory / entry_point
    if kind == PYTHON:
        command: tuple[str, ...] = (sys.executable, "-m", "tournaments.bots.pyhost", str(entry))
    elif entry_point.endswith(MANIFEST_SUFFIX):
        manifest = orjson.loads(entry.read_bytes())
        command = tuple(manifest["command"].split() if isinstance(manifest["command"], str) else manifest["command"])
    else:
        command = (str(entry),)
    return BotSpec(name, PROGRAM, str(entry), content_hash, ("*",), command, str(directory),
                   cpu_seconds=limits.cpu_seconds, memory_mb=limits.memory_mb)


def submit(ledger: Ledger, ladder_name: str, path: Path, as_name: str | None, limits: Limits) -> rows.Submitted:
    """Validate a submission in games against random, then list it; LadderError if it fails."""
    ladder = rows.get(ledger, ladder_name)
    spec, entry_point, files = package(path)
    name = as_name or spec.name
    if spec.plays(ladder["game"]) is False:
        raise LadderError(f"{path.name} plays {', '.join(spec.games or ())}, not {ladder['game']}")
    directory = materialize(spec.content_hash, entry_point, files)
    candidate = process_spec(name, spec.content_hash, spec.kind, directory, entry_point, limits)
    validate(ladder, candidate, limits)
    return rows.submit(ledger, ladder["id"], name, spec.content_hash, spec.kind, entry_point, files,
                       model(ladder).start)


def validate(ladder: dict[str, Any], candidate: BotSpec, limits: Limits) -> None:
    """One deal against random bots, from every seat; any forfeit refuses the submission."""
    k = ladder["players"]
    # The validation opponents are tourney's own random bot, run in this process (it is ours).
    opponents = [BotSpec(f"random-{i}", BUILTIN, "builtin:random", "builtin-random", ("*",)) for i in range(k - 1)]
    bots = (candidate, *opponents)
    spec = Spec(ladder["game"], k, 1, "validation", limits.move_time, limits.time_bank, bots)
    names = [b.name for b in bots]
    for rotation in range(k):
        seated = tuple(names[rotation:] + names[:rotation])
        result = _play(Job(spec, Scheduled(f"validation-r{rotation}", 0, 0, rotation, seated,
                                           "validation-seed")))
        outcome = result.recorded
        if outcome.reason == "forfeit":
            seat = next(i for i, n in enumerate(seated) if n == candidate.name)
            reason = _forfeit_reason(outcome)
            if outcome.ranking[seat] == k and reason:
                raise LadderError(f"{candidate.name} refused: in its validation game it forfeited ({reason})")


def _play(job: Job):
    return next(played([job], 1))


def _forfeit_reason(recorded) -> str | None:
    for record in recorded.records:
        if record.type == "seat_forfeited":
            return orjson.loads(record.body)["data"]["reason"]
    return None


# -- play ------------------------------------------------------------------------------


def play(ledger: Ledger, ladder_name: str, games: int, workers: int, limits: Limits, rng: random.Random,
         progress: Callable[[int], None] | None = None) -> int:
    """Play at least ``games`` games (whole seat rotations), each stored and rated at once."""
    ladder = rows.get(ledger, ladder_name)
    engine = registry.get(ladder["game"])
    k = ladder["players"]
    rating = model(ladder)
    stored = 0
    while stored < games:
        active = rows.entries(ledger, ladder["id"])
        if len(active) < k:
            raise LadderError(f"ladder {ladder_name!r} needs {k} active bots to play, it has {len(active)}: "
                              "submit more with `tourney ladder submit`")
        by_name = {entry["name"]: entry for entry in active}
        specs = {entry["name"]: _runnable(ledger, entry, limits) for entry in active}
        candidates = _candidates(ledger, ladder, active)
        jobs: list[Job] = []
        while len(jobs) < max(1, min(games - stored, 2 * workers * k)):
            table = matchmaking.next_table(candidates, k, rng, spread=rating.spread)
            seed = f"{rng.getrandbits(128):032x}"
            spec = Spec(engine.name, k, 1, seed, limits.move_time, limits.time_bank,
                        tuple(specs[name] for name in table))
            for rotation in range(k):
                seated = tuple(table[rotation:] + table[:rotation])
                jobs.append(Job(spec, Scheduled(f"ladder-r{rotation}", 0, 0, rotation, seated, seed)))
        for result in played(jobs, workers):
            recorded = result.recorded
            seated = [by_name[seat.name] for seat in recorded.seats]

            def store(connection, recorded=recorded, seated=seated, scores=result.scores):
                store_recorded(ledger, recorded, [e["bot_id"] for e in seated], scores, connection=connection)
                return recorded.game_id

            rows.store_game(ledger, ladder["id"], store, [e["id"] for e in seated], list(recorded.ranking),
                            rating.update)
            stored += 1
            if progress is not None:
                progress(stored)
    return stored


def _runnable(ledger: Ledger, entry: dict[str, Any], limits: Limits) -> BotSpec:
    entry_point, files = rows.archive(ledger, entry["bot_id"])
    directory = materialize(entry["content_hash"], entry_point, files)
    return process_spec(entry["name"], entry["content_hash"], entry["kind"], directory, entry_point, limits)


def _candidates(ledger: Ledger, ladder: dict[str, Any], active: list[dict[str, Any]]) -> list:
    if model(ladder) is MODELS[OPENSKILL]:  # sigma is the uncertainty itself
        return [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], entry["sigma"])
                for entry in active]
    names = {entry["id"]: entry["name"] for entry in active}
    games = [[(names[e], rank) for e, rank in seats if e in names] for _, seats in
             rows.results_in_order(ledger, ladder["id"])]
    current = {entry["name"]: entry["rating"] for entry in active}
    se = matchmaking.uncertainties(current, games)
    return [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], se[entry["name"]])
            for entry in active]


# -- standings -------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    name: str
    version: int
    rating: float
    """Elo, or OpenSkill's leaderboard value mu - 3 sigma."""
    margin: float
    """The 95% margin: 1.96 SE for Elo, 1.96 sigma (of mu) for OpenSkill."""
    games: int
    provisional: bool
    status: str
    forfeits: int = 0
    mu: float | None = None
    sigma: float | None = None


def standings(ledger: Ledger, ladder_name: str, include_retired: bool = False) -> list[Standing]:
    ladder = rows.get(ledger, ladder_name)
    listed = rows.entries(ledger, ladder["id"], active_only=not include_retired)
    forfeits = forfeit_counts(ledger, ladder["id"])
    if model(ladder) is MODELS[OPENSKILL]:
        skills = {e["id"]: openskill.Skill(e["rating"], e["sigma"]) for e in listed}
        listed.sort(key=lambda e: (-skills[e["id"]].ordinal, e["name"], e["version"]))
        return [
            Standing(position, e["name"], e["version"], skills[e["id"]].ordinal, 1.96 * e["sigma"], e["games"],
                     e["games"] < matchmaking.PROVISIONAL_GAMES, e["status"], forfeits.get(e["id"], 0),
                     e["rating"], e["sigma"])
            for position, e in enumerate(listed, start=1)
        ]
    labels = {entry["id"]: _label(entry, include_retired) for entry in listed}
    games = [[(labels[e], rank) for e, rank in seats if e in labels]
             for _, seats in rows.results_in_order(ledger, ladder["id"])]
    se = matchmaking.uncertainties({labels[e["id"]]: e["rating"] for e in listed}, games)
    return [
        Standing(position, entry["name"], entry["version"], entry["rating"], 1.96 * se[labels[entry["id"]]],
                 entry["games"], entry["games"] < matchmaking.PROVISIONAL_GAMES, entry["status"],
                 forfeits.get(entry["id"], 0))
        for position, entry in enumerate(listed, start=1)
    ]


def forfeit_counts(ledger: Ledger, ladder_id: int) -> dict[int, int]:
    """Ladder entry -> the rated games it forfeited, from each game's hashed seat_forfeited event."""
    seated = rows.seat_entries(ledger, ladder_id)
    rated = set(rows.game_ids(ledger, ladder_id)) - voided(ledger, ladder_id)
    out: dict[int, int] = {}
    for game_id, forfeit in results.forfeits_of(rows.event_bodies(ledger, ladder_id, SEAT_FORFEITED)).items():
        if game_id in rated:
            entry = seated[(game_id, forfeit.seat)]
            out[entry] = out.get(entry, 0) + 1
    return out


def voided(ledger: Ledger, ladder_id: int) -> set[str]:
    return {event["game_id"] for event in rows.events(ledger, ladder_id) if event["kind"] == rows.VOID}


def void(ledger: Ledger, ladder_name: str, game_ref: str, reason: str) -> tuple[str, int]:
    """Void a ladder game (found by id or unique prefix): ratings are refolded without it. (game id, seq)."""
    ladder = rows.get(ledger, ladder_name)
    if not reason.strip():
        raise LadderError("a void needs a --reason (it is kept with the ladder's events)")
    found = [game_id for game_id in rows.game_ids(ledger, ladder["id"]) if game_id.startswith(game_ref)]
    if len(found) != 1:
        raise LadderError(f"no game {game_ref!r} on ladder {ladder_name!r}" if not found else
                          f"game id {game_ref!r} is ambiguous on ladder {ladder_name!r}: give more characters")
    rating = model(ladder)
    return found[0], rows.void(ledger, ladder["id"], found[0], reason, rating.update, rating.start)


def retire(ledger: Ledger, ladder_name: str, bot: str, reason: str) -> int:
    """Retire a bot's active version: it plays no more games; its games and rating stay. Its version."""
    ladder = rows.get(ledger, ladder_name)
    return rows.retire(ledger, ladder["id"], bot, reason)


def _label(entry: dict[str, Any], versions: bool) -> str:
    return f"{entry['name']} v{entry['version']}" if versions else entry["name"]


def history(ledger: Ledger, ladder_name: str, bot: str) -> list[dict[str, Any]]:
    """Every rating a bot had (all versions), game by game."""
    ladder = rows.get(ledger, ladder_name)
    found = [e for e in rows.entries(ledger, ladder["id"], active_only=False) if e["name"] == bot]
    if not found:
        raise LadderError(f"no bot {bot!r} on ladder {ladder_name!r}")
    out = []
    for entry in sorted(found, key=lambda e: e["version"]):
        out += [{"version": entry["version"], **row} for row in rows.history(ledger, entry["id"])]
    return out


def rebuild(ledger: Ledger, ladder_name: str) -> dict[int, tuple[rows.Rating, rows.Rating]]:
    ladder = rows.get(ledger, ladder_name)
    rating = model(ladder)
    return rows.rebuild(ledger, ladder["id"], rating.update, rating.start)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
