"""League ladders: submissions, validation, matchmaking, play, ratings folded from the ledger.

A ladder never imports a submitted bot, and never runs one outside the sandbox: every bot
plays as its own process (a Python file through ``tournaments.bots.pyhost``) in a sandbox of
its own per game, under the ladder's limits (docs/security.md); without bwrap a ladder refuses
to play. Its files are stored in the ledger (a zip per bot version), so a ladder can run a bot
for weeks after it was submitted, from any machine that has the database; each machine
unpacks them into a private cache, checked against the content hash before each use.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import re
import secrets
import shutil
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import text

from ledger import divisions as division_rows
from ledger import ladders as rows
from ledger import owners as owner_rows
from ledger import read_models
from ledger.store import Ledger
from replays import facts, projections
from tournaments.bots.diagnosis import Diagnosis
from tournaments.bots.discovery import describe, language, read_files
from tournaments.bots.spec import MANIFEST_SUFFIX, BotError, BotSpec, Resources
from tournaments.ladder import divisions, matchmaking, membership
from tournaments.play.runner import Job, Spec
from tournaments.play.runner import results as played
from tournaments.play.schedule import Scheduled
from tournaments.ratings import elo, openskill, ranks
from tournaments.sandbox import sandbox

CPU_SECONDS = Resources().cpu_seconds
"""RLIMIT_CPU of a ladder bot's process, per game."""
MEMORY_MB = Resources().memory_mb
"""RLIMIT_AS of a ladder bot's process."""
MAX_PROCESSES = Resources().max_processes
"""RLIMIT_NPROC of a ladder bot's sandbox."""
OPPONENT = Path(__file__).with_name("validation_opponent.py")
"""The bot a submission plays its validation games against (a random player, run like any other)."""


ELO = "elo"
OPENSKILL = "openskill"
RATINGS = (ELO, OPENSKILL)


class LadderError(ValueError):
    """A ladder request that cannot be done; the message is one clear line."""


class Unavailable(LadderError):
    """This machine cannot run a ladder's bots now (no working sandbox): its fault, never a bot's."""


class Refused(LadderError):
    """A submission that forfeited a validation game: the one line, and what its bot left behind (its
    traceback or last stderr lines: tournaments.bots.diagnosis), which only its owner reads."""

    def __init__(self, message: str, told: Diagnosis | None = None) -> None:
        super().__init__(message)
        self.diagnosis = told


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


def create(ledger: Ledger, name: str, game: str, players: int, rating: str | None = None,
           division_names: str | None = None) -> str:
    """Create a ladder; its rating model (default by seats) is fixed for its life, and so are its divisions
    (``"bronze,silver,gold"``, lowest first; None: none). Returns the model."""
    chosen = rating or default_rating(players)
    if chosen not in RATINGS:
        raise LadderError(f"--rating is {' or '.join(RATINGS)}, not {chosen!r}")
    try:
        names = None if division_names is None else divisions.parse(division_names)
    except divisions.DivisionsError as error:
        raise LadderError(str(error)) from None
    rows.create(ledger, name, game, players, chosen, None if names is None else orjson.dumps(names).decode())
    return chosen


def boss(ledger: Ledger, ladder_name: str, bot: str, division: str, reason: str) -> int:
    """Make the active version of ``bot`` the boss of ``division`` (an operator's fact): to leave that division
    upwards a bot must pass it (tournaments.ladder.divisions). Its version."""
    ladder = rows.get(ledger, ladder_name)
    names = divisions.names_of(ladder)
    if not names:
        raise LadderError(f"ladder {ladder_name!r} has no divisions (`tourney ladder create --divisions` makes a "
                          "ladder with them)")
    return division_rows.set_boss(ledger, ladder["id"], bot, division, names, reason)[1]


@dataclass(frozen=True, slots=True)
class Limits:
    move_time: float = 1.0
    time_bank: float = 5.0
    cpu_seconds: int = CPU_SECONDS
    memory_mb: int = MEMORY_MB
    max_processes: int = MAX_PROCESSES

    @property
    def resources(self) -> Resources:
        return Resources(memory_mb=self.memory_mb, cpu_seconds=self.cpu_seconds, max_processes=self.max_processes)


def confined() -> dict[str, Any]:
    """How a ladder's games are confined (Spec's fields): sandboxed, timed and frozen as strictly as
    this machine allows (the CPU clock and no pondering with cgroups); no option relaxes it."""
    clock, ponder = sandbox.timing()
    return {"sandbox": True, "clock": clock, "ponder": ponder}


def require_sandbox() -> None:
    """Ladders run strangers' bots: without a working sandbox they refuse (one line saying how to get it)."""
    problem = sandbox.unavailable()
    if problem is not None:
        raise Unavailable(f"ladders run every bot in a sandbox, and {problem}")


# -- submissions -----------------------------------------------------------------------


def package(path: Path) -> tuple[BotSpec, str, bytes]:
    """The spec of a submission, its entry point, and its files as a zip."""
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


def cache_root() -> Path:
    """The private per-user cache of unpacked bots (mode 0700): $XDG_CACHE_HOME/tourney/bots."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    root = base / "tourney"
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    root.chmod(0o700)
    (root / "bots").mkdir(mode=0o700, exist_ok=True)
    return root / "bots"


def materialize(content_hash: str, entry_point: str, files: bytes) -> Path:
    """The folder of a stored bot, unpacked once per user and content (keyed by content hash and
    entry point) and checked against the content hash before each use: a copy that no longer
    matches (changed on disk, or half unpacked) is unpacked again."""
    root = cache_root()
    target = root / f"{content_hash}-{re.sub(r'[^A-Za-z0-9._-]', '_', entry_point)}"
    if target.is_dir() and _hash_of(target, entry_point) == content_hash:
        return target
    staging = Path(tempfile.mkdtemp(dir=root))
    with zipfile.ZipFile(io.BytesIO(files)) as archive:
        for info in archive.infolist():
            destination = staging / info.filename
            if not destination.resolve().is_relative_to(staging.resolve()):
                raise LadderError(f"stored bot {content_hash[:12]}: a file outside its folder ({info.filename})")
            destination.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            destination.write_bytes(archive.read(info))
            # Readable by the sandbox's uid; the cache's own 0700 keeps other users out.
            destination.chmod(0o755 if (info.external_attr >> 16) & 0o111 else 0o644)
    staging.chmod(0o755)
    if _hash_of(staging, entry_point) != content_hash:
        shutil.rmtree(staging, ignore_errors=True)
        raise LadderError(f"stored bot {content_hash[:12]}: its files do not match its content hash")
    # A good copy is never removed: another process (a second ladder worker) may be playing from it. A copy that
    # does not match is moved aside whole, then removed; the new one comes in by one rename, which fails if
    # another process's good copy came in first (then that one is used).
    if target.exists() and _hash_of(target, entry_point) != content_hash:
        aside = Path(tempfile.mkdtemp(dir=root, prefix=".stale-"))
        with contextlib.suppress(OSError):  # another process moved it first
            target.rename(aside / "bot")
        shutil.rmtree(aside, ignore_errors=True)
    try:
        staging.rename(target)
    except OSError:  # another process's copy came in first: the same files, checked by their hash on each use
        shutil.rmtree(staging, ignore_errors=True)
    return target


def _hash_of(folder: Path, entry_point: str) -> str | None:
    try:
        spec = describe(folder / entry_point)
    except (BotError, OSError):
        return None
    return spec.content_hash if spec is not None else None


def runnable(name: str, content_hash: str, directory: Path, entry_point: str) -> BotSpec:
    """A stored bot as the runner plays it (in its sandbox, a Python file through pyhost)."""
    spec = describe(directory / entry_point)
    if spec is None:
        raise LadderError(f"stored bot {name}: {entry_point} is not a bot")
    return BotSpec(name, spec.kind, spec.path, content_hash, ("*",), spec.command, str(directory), spec.files)


DESCRIPTION_CHARS = 200
"""The most an author may say of a bot version (plain text; the pages escape it)."""


def submit(ledger: Ledger, ladder_name: str, path: Path, as_name: str | None, limits: Limits,
           owner_id: int | None = None, say: Callable[[str], None] | None = None,
           played: list[tuple[Any, int]] | None = None, description: str | None = None) -> rows.Submitted:
    """Validate a submission in games against random, then list it; LadderError if it fails. ``owner_id``:
    the owner whose upload it is (None: the operator's, under a name that reads as no owner's, else
    owner_rows.NameTaken, before any game). ``say`` is told a line as validation starts and as each of its
    games ends; ``played``, when given, gets each validation game (as validate's). It is listed with what it is
    written in (discovery.language) and its author's ``description``."""
    ladder = rows.get(ledger, ladder_name)
    if description is not None and len(description) > DESCRIPTION_CHARS:
        raise LadderError(f"a bot's description is at most {DESCRIPTION_CHARS} characters, not {len(description)}")
    spec, entry_point, files = package(path)
    name = as_name or spec.name
    if spec.plays(ladder["game"]) is False:
        raise LadderError(f"{path.name} plays {', '.join(spec.games or ())}, not {ladder['game']}")
    if owner_id is None:
        with ledger.read() as connection:
            owner_rows.check_operators_name(connection, name)
    require_sandbox()
    candidate = runnable(name, spec.content_hash, materialize(spec.content_hash, entry_point, files), entry_point)
    validate(ladder, candidate, limits, say, played)
    return rows.submit(ledger, ladder["id"], name, spec.content_hash, spec.kind, entry_point, files,
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
                raise Refused(f"{candidate.name} refused: in its validation game it forfeited "
                              f"({told.placed(reason) if told is not None else reason})", told)


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


# -- play (tournaments.ladder.sessions plays from the queue) ------------------------------


def stored_bot(ledger: Ledger, entry: dict[str, Any]) -> BotSpec:
    """A ladder entry's bot, unpacked from the ledger into the private cache, as the runner plays it."""
    entry_point, files = rows.archive(ledger, entry["bot_id"])
    directory = materialize(entry["content_hash"], entry_point, files)
    return runnable(entry["name"], entry["content_hash"], directory, entry_point)


def candidates(ledger: Ledger, ladder: dict[str, Any], active: list[dict[str, Any]]) -> list[matchmaking.Candidate]:
    """The active entries as matchmaking weighs them: rating, games, the rating's uncertainty, and on a ladder
    with divisions each one's division."""
    if model(ladder) is MODELS[OPENSKILL]:  # sigma is the uncertainty itself
        found = [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], entry["sigma"])
                 for entry in active]
    else:
        current = {entry["name"]: entry["rating"] for entry in active}
        names = {entry["id"]: entry["name"] for entry in active}
        se = matchmaking.uncertainties_of_pairs(current, met(ledger, ladder, names))
        found = [matchmaking.Candidate(entry["name"], entry["rating"], entry["games"], se[entry["name"]])
                 for entry in active]
    if not divisions.names_of(ladder):
        return found
    with ledger.read() as connection:
        placed = membership.stored(connection, ladder)
    return [dataclasses.replace(candidate, division=placed.of(entry["id"]))
            for candidate, entry in zip(found, active, strict=True)]


# -- results, from the games' hashed events ------------------------------------------------


def rated(ledger: Ledger, ladder: dict[str, Any], connection=None) -> tuple[rows.Rated, facts.Reading]:
    """Every rated game of the ladder in fold order, [(entry, rank) per seat], read from its hashed
    events (facts.Tampered if a derived row disagrees with them), and the reading itself."""
    if connection is None:
        with ledger.read() as connection:
            return rated(ledger, ladder, connection)
    reading = facts.read(ledger, rows.scope(ladder), connection)
    return _rated(connection, ladder, reading.facts, reading.order), reading


def rated_after(ledger: Ledger, ladder: dict[str, Any], connection, after: int) -> rows.Rated:
    """The rated games stored after ladder seq ``after`` (0: all), in fold order, from their hashed events: a
    refold reads the games stored while it ran this way, without auditing the whole ladder again."""
    if after == 0:
        return rated(ledger, ladder, connection)[0]
    order = dict(connection.execute(text(
        "SELECT game_id, seq FROM ladder_games WHERE ladder_id = :ladder_id AND seq > :after ORDER BY seq"),
        {"ladder_id": ladder["id"], "after": after}).fetchall())
    return _rated(connection, ladder, facts.read_games(ledger, list(order), connection), order)


def _rated(connection, ladder: dict[str, Any], found: list[facts.Fact], order: dict[str, int]) -> rows.Rated:
    entry_of = rows.entry_of_bot(connection, ladder["id"])
    void = rows.voided(connection, ladder["id"])
    out: rows.Rated = []
    for fact in found:
        if fact.game_id in void:
            continue
        if any(seat.bot_id not in entry_of for seat in fact.seats):
            raise facts.Tampered(fact.game_id, f"a seat's bot is not an entry of ladder {ladder['name']!r}")
        out.append((order[fact.game_id], [(entry_of[seat.bot_id], seat.rank) for seat in fact.seats]))
    return out


def met(ledger: Ledger, ladder: dict[str, Any], labels: dict[int, str],
        pairs: dict[tuple[int, int], tuple[int, int, int]] | None = None) -> dict[tuple[str, str], int]:
    """How many pairwise results each ordered pair of the labelled entries has in rated games, by label (from
    the read models, ``pairs`` if already read: no game is read)."""
    if pairs is None:
        with ledger.read() as connection:
            _records, pairs = read_models.ladder(connection, ladder["id"])
    out: dict[tuple[str, str], int] = {}
    for (entry, opponent), counts in pairs.items():
        if entry in labels and opponent in labels:
            key = (labels[entry], labels[opponent])
            out[key] = out.get(key, 0) + sum(counts)
    return out


def folded(ledger: Ledger, ladder: dict[str, Any], connection, observe: rows.Observe | None = None
           ) -> tuple[rows.Folded, rows.Rated, facts.Reading]:
    """The ladder's ratings and history as its games' hashed results fold them (the rebuild's fold, writing
    nothing), with the results and the reading they come from; ``observe`` is told each game (membership)."""
    results, reading = rated(ledger, ladder, connection)
    rating = model(ladder)
    return (rows.fold(rows.versions(connection, ladder["id"]), results, rating.update, rating.start, observe),
            results, reading)


def check_ratings(ledger: Ledger, ladder: dict[str, Any], connection=None) -> tuple[rows.Rated, facts.Reading]:
    """The ladder's stored ratings must be the fold of its games' hashed results: facts.Tampered naming the
    first that is not (`ladder rebuild` refolds them). The results and the reading they were checked against."""
    if connection is None:
        with ledger.read() as connection:
            return check_ratings(ledger, ladder, connection)
    rules = membership.keeper(ladder)
    observer = None if rules is None else rules.observer(connection)
    fold, results, reading = folded(ledger, ladder, connection, observer)
    for entry, (stored, games) in sorted(rows.stored_ratings(connection, ladder["id"]).items()):
        expected = (fold.ratings.get(entry, stored), fold.games.get(entry, 0))
        if expected != (stored, games):
            raise facts.Tampered(None, f"ladder {ladder['name']!r}: entry {entry} is stored with rating "
                                       f"{_shown(stored)} after {games} games, but its games fold to "
                                       f"{_shown(expected[0])} after {expected[1]} (`tourney ladder rebuild` "
                                       "refolds the ratings from the games)")
    if observer is not None:
        membership.check(connection, ladder, observer.finish())
    return results, reading


def _shown(rating: rows.Rating) -> str:
    value, sigma = rating
    return f"{value:.6g}" if sigma is None else f"{value:.6g} (sigma {sigma:.6g})"


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
    rank_low: int = 0
    """The best and worst rank it holds with 95% confidence (tournaments.ratings.ranks)."""
    rank_high: int = 0
    tied: bool = False
    """Statistically tied with the row above it."""
    division: str | None = None
    """Its division, on a ladder with divisions (tournaments.ladder.divisions)."""
    boss: bool = False
    """It guards its division: to leave it upwards a bot must pass it."""


def standings(ledger: Ledger, ladder_name: str, include_retired: bool = False,
              read: tuple[dict[int, dict[str, Any]], dict[tuple[int, int], tuple[int, int, int]]] | None = None
              ) -> list[Standing]:
    """The ladder's standings, from its ratings and read models (``read``: its records and pairs, if already
    read): no game is read (`tourney db audit` checks them against the games' hashed results)."""
    ladder = rows.get(ledger, ladder_name)
    listed = rows.entries(ledger, ladder["id"], active_only=not include_retired)
    if read is None:
        with ledger.read() as connection:
            read = read_models.ladder(connection, ladder["id"])
    return placed(ledger, ladder, _standings(ledger, ladder, listed, read, include_retired),
                  {(entry["name"], entry["version"]): entry["id"] for entry in listed})


def placed(ledger: Ledger, ladder: dict[str, Any], shown: list[Standing], ids: dict[tuple[str, int], int]
           ) -> list[Standing]:
    """``shown`` with each row's division and boss mark as the ladder's stored membership has them now (``ids``:
    each row's entry id by name and version); unchanged on a ladder without divisions."""
    names = divisions.names_of(ladder)
    if not names:
        return shown
    with ledger.read() as connection:
        members = membership.stored(connection, ladder)
    bosses = set(members.boss_of.values())
    return [dataclasses.replace(s, division=names[members.of(ids[(s.name, s.version)])],
                                boss=ids[(s.name, s.version)] in bosses) for s in shown]


def _standings(ledger: Ledger, ladder: dict[str, Any], listed: list[dict[str, Any]],
               read: tuple[dict[int, dict[str, Any]], dict[tuple[int, int], tuple[int, int, int]]],
               include_retired: bool) -> list[Standing]:
    records, pairs = read
    forfeits = {entry: record["forfeits"] for entry, record in records.items()}
    if model(ladder) is MODELS[OPENSKILL]:
        skills = {e["id"]: openskill.Skill(e["rating"], e["sigma"]) for e in listed}
        listed.sort(key=lambda e: (-skills[e["id"]].ordinal, e["name"], e["version"]))
        return _ranged([
            Standing(position, e["name"], e["version"], skills[e["id"]].ordinal, 1.96 * e["sigma"], e["games"],
                     e["games"] < matchmaking.PROVISIONAL_GAMES, e["status"], forfeits.get(e["id"], 0),
                     e["rating"], e["sigma"])
            for position, e in enumerate(listed, start=1)
        ])
    labels = {entry["id"]: _label(entry, include_retired) for entry in listed}
    se = matchmaking.uncertainties_of_pairs({labels[e["id"]]: e["rating"] for e in listed},
                                            met(ledger, ladder, labels, pairs))
    return _ranged([
        Standing(position, entry["name"], entry["version"], entry["rating"], 1.96 * se[labels[entry["id"]]],
                 entry["games"], entry["games"] < matchmaking.PROVISIONAL_GAMES, entry["status"],
                 forfeits.get(entry["id"], 0))
        for position, entry in enumerate(listed, start=1)
    ])


def _ranged(rows_: list[Standing]) -> list[Standing]:
    """The standings with the ranks each holds with 95% confidence and its ties: from Elo's rating and standard
    error, or OpenSkill's mu and sigma (the skill itself, which mu - 3 sigma only ranks conservatively)."""
    estimates = [(s.rating, s.margin / 1.96) if s.mu is None else (s.mu, s.sigma or 0.0) for s in rows_]
    return [dataclasses.replace(s, rank_low=r.low, rank_high=r.high, tied=r.tied_above)
            for s, r in zip(rows_, ranks.rank_ranges(estimates), strict=True)]


def checked_standings(ledger: Ledger, ladder_name: str, include_retired: bool = False, check: bool = False
                      ) -> tuple[list[Standing], facts.Trust]:
    """The ladder's standings, and who vouches for its games (the ledger key, by checkpoint: facts.trust).

    With ``check``, every game's result is read from its hashed events, and the ratings and the read
    models must be what they fold and add up to (facts.Tampered naming the first that is not): it reads
    every game."""
    ladder = rows.get(ledger, ladder_name)
    with ledger.read() as connection:
        if check:
            _results, reading = check_ratings(ledger, ladder, connection)
            projections.check_ladder(connection, ladder["id"], reading.facts)
            trust = reading.trust
        else:
            trust = facts.trust(ledger, rows.scope(ladder), connection)
    return standings(ledger, ladder_name, include_retired), trust


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
    return found[0], rows.void(ledger, ladder["id"], found[0], reason, rating.update, _results(ledger, ladder),
                               rating.start, membership.keeper(ladder))


def retire(ledger: Ledger, ladder_name: str, bot: str, reason: str) -> int:
    """Retire a bot's active version: it plays no more games; its games and rating stay. Its version."""
    ladder = rows.get(ledger, ladder_name)
    return rows.retire(ledger, ladder["id"], bot, reason)


def _label(entry: dict[str, Any], versions: bool) -> str:
    return f"{entry['name']} v{entry['version']}" if versions else entry["name"]


def leaderboard_rating(point: dict[str, Any]) -> float:
    """A stored rating (an entry, a history point: ``rating`` and ``sigma``) as the leaderboard ranks and every page,
    answer and command calls "rating": Elo, or OpenSkill's conservative mu - 3 sigma (its mu and sigma go by those
    names)."""
    sigma = point.get("sigma")
    return point["rating"] if sigma is None else openskill.Skill(point["rating"], sigma).ordinal


def history(ledger: Ledger, ladder_name: str, bot: str) -> list[dict[str, Any]]:
    """Every rating a bot had (all versions), game by game, each with the game's number on the ladder."""
    ladder = rows.get(ledger, ladder_name)
    found = [e for e in rows.entries(ledger, ladder["id"], active_only=False) if e["name"] == bot]
    if not found:
        raise LadderError(f"no bot {bot!r} on ladder {ladder_name!r}")
    out = []
    with ledger.read() as connection:
        read_models.require_current(connection)
        for entry in sorted(found, key=lambda e: e["version"]):
            out += [{"version": entry["version"], **row}
                    for row in read_models.ladder_history(connection, entry["id"])]
    return out


def rebuild(ledger: Ledger, ladder_name: str) -> dict[int, tuple[rows.Rating, rows.Rating]]:
    """Refold every rating from the games' hashed results (never from a derived row): facts.Tampered, and
    nothing rewritten, if any game's rows disagree with its events."""
    ladder = rows.get(ledger, ladder_name)
    rating = model(ladder)
    return rows.rebuild(ledger, ladder["id"], rating.update, _results(ledger, ladder), rating.start,
                        membership.keeper(ladder))


def _results(ledger: Ledger, ladder: dict[str, Any]) -> rows.Results:
    return lambda connection, after: rated_after(ledger, ladder, connection, after)


def default_workers() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
