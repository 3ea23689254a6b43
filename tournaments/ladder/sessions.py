"""Ladder sessions, played from the match queue in the database: `ladder play` and `ladder work`.

A session is one seed (chosen by the organiser, or drawn and kept secret until the session ends:
ledger.seeds) and a number of games. Its deals are matchmade a batch at a time, at the ratings
as they stand (the tables of the batch starting at deal d come from ``matchmaking_seed(seed,
d)``), and queued in the database (ledger.rows.match_rows). A worker claims matches (one deal at one
table: every seat rotation of it), plays them in their sandboxes, renews its lease while it
plays, and stores each match's games in the one transaction that marks it stored. Any number of
workers, on any machine that has the database and the ledger key, may feed one ladder: a match
whose worker died is claimed again once its lease runs out, and none is stored twice. The worker
that stores a session's last match ends it: a signed checkpoint, and the seed revealed.

Deal d of session s is dealt from ``deal_seed(seed, 0, d)`` and its games keyed
``s<s>-d<d>-r<rotation>``, whoever plays it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import random
import secrets
import socket
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engines import registry
from ledger import checkpoints, seeds
from ledger.rows import game_rows, ladder_rows, match_rows
from ledger.store import Ledger, LedgerError
from replays.archive import store_recorded
from tournaments.bots.spec import BotSpec
from tournaments.ladder import (
    bot_cache,
    confinement,
    ladder_errors,
    leaderboard,
    matchmaking,
    membership,
    rating_models,
)
from tournaments.ladder.ladder_defaults import LEASE
from tournaments.play import store_loop
from tournaments.play.runner import Job, Result, Spec, diagnosis_row, write_logs
from tournaments.play.runner import results as played
from tournaments.play.schedule import Scheduled, deal_seed


@dataclass(frozen=True, slots=True)
class Moved:
    """A seat's bot and its rating before and after a game, as the standings show it: Elo, or OpenSkill's
    mu - 3 sigma."""

    bot: str
    before: float
    after: float


SHORT = 16
"""Hex digits of a session's commitment and seed a line shows (as a checkpoint's fingerprint): the whole of each
is in the database and in an export's ladder.manifest, where `replay verify` checks them."""


def short(digest: str) -> str:
    return digest if len(digest) <= SHORT else f"{digest[:SHORT]}…"


def shown(rating: tuple[float, float | None]) -> float:
    value, sigma = rating
    return value - 3 * sigma if sigma is not None else value


def matchmaking_seed(seed: str, first_deal: int) -> int:
    """The seed of the matchmaking of the batch of deals starting at ``first_deal``, from the session's seed
    (so a secret seed keeps the tables unpredictable too, and any worker draws the same ones)."""
    digest = hashlib.sha256(f"tourney-matchmaking-v2/{seed}/{first_deal}".encode()).digest()
    return int.from_bytes(digest[:16], "big")


def worker_name() -> str:
    """A worker's name in the queue: its machine, its process and a nonce (a restarted worker is another)."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(3)}"


class Lease(threading.Thread):
    """Renews the lease of every match its worker holds, every third of the lease, until stopped."""

    def __init__(self, ledger: Ledger, worker: str, seconds: float) -> None:
        super().__init__(name="tourney-lease", daemon=True)
        self.ledger, self.worker, self.seconds = ledger, worker, seconds
        self._held: set[int] = set()
        self._lock = threading.Lock()
        self._stopped = threading.Event()

    def hold(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._held.update(ids)

    def drop(self, ids: Iterable[int]) -> None:
        with self._lock:
            self._held.difference_update(ids)

    @property
    def held(self) -> list[int]:
        with self._lock:
            return sorted(self._held)

    def run(self) -> None:
        while not self._stopped.wait(self.seconds / 3):
            try:
                match_rows.renew(self.ledger, self.worker, self.held, self.seconds)
            except LedgerError:
                # The database is out of reach for now: try again next time. A lease that runs out
                # meanwhile is found when the match is stored (matches.Lost).
                continue

    def stop(self) -> None:
        self._stopped.set()
        self.join()


def rated_game(ledger: Ledger, result: Result, seated: list[dict[str, Any]],
               also: Callable[[Any], None] | None = None) -> tuple[Callable[[Any], str], list[int], list[int]]:
    """One played game of a ladder match as ``ledger.rows.ladder_rows.store_games`` takes it: how to store it (its
    events, by the seated entries' bots, then ``also`` in the same transaction), the entries in seat order and the
    ranking it rates."""

    def store(connection) -> str:
        store_recorded(ledger, result.recorded, [entry["bot_id"] for entry in seated], result.scores,
                       game_key=result.key, connection=connection)
        if also is not None:
            also(connection)
        return result.recorded.game_id

    return store, [entry["id"] for entry in seated], list(result.recorded.ranking)


@dataclass
class Worker:
    """One process playing a ladder's matches from the queue, ``workers`` games at a time."""

    ledger: Ledger
    ladder: dict[str, Any]
    limits: confinement.Limits
    workers: int
    lease: float = LEASE
    say: Callable[[str], None] = lambda _line: None
    progress: Callable[[int], None] | None = None
    bot_logs: Path | None = None
    rated: Callable[[Result, list[Moved]], None] | None = None
    """Told each game this worker stored, with each seat's rating before and after it, in seat order."""
    name: str = field(default_factory=worker_name)
    stored: int = 0
    """Games this worker has stored."""
    _seeds: dict[int, tuple[str, bool]] = field(default_factory=dict)
    """Per session: its seed, and whether it is secret until the session ends."""
    _specs: dict[int, BotSpec] = field(default_factory=dict)

    def __post_init__(self) -> None:
        confinement.require_sandbox()
        ready_bot_logs(self.bot_logs)  # before any session opens or any game is played
        self.engine = registry.get(self.ladder["game"])
        self.players = self.ladder["players"]
        self.rating = rating_models.model(self.ladder)
        self.key = self.ledger.signing_key()  # before any bot starts
        # Matches claimed (and deals queued) at once: enough to keep every process busy while the last
        # games of a batch end, and few enough that matchmaking follows the ratings closely.
        self.batch = 2 * max(1, self.workers)

    # -- sessions ------------------------------------------------------------------------

    def open(self, games: int, seed: str | None = None) -> int:
        """Open a session of ``games`` games (whole seat rotations) with its seed committed; its id."""
        if seed is None:
            seed, committed = seeds.draw(self.key)
        else:
            committed = seeds.chosen(seed)
        session = ladder_rows.open_session(self.ledger, self.ladder["id"], committed, seed, games, self.batch)
        self._seeds[session] = (seed, committed.secret)
        self.say(f"session {session}: " + (
            f"seed {seed} (chosen by the organiser)" if not committed.secret else
            f"seed drawn and secret until the session stops, commitment {short(committed.commitment)}"))
        return session

    def stop_session(self, session: int) -> None:
        """Queue nothing more of the session, and end it unless another worker is still playing a match of it
        (that worker ends it when it stores the match)."""
        match_rows.stop_queueing(self.ledger, session)
        self._end_if_done(session)

    def _seed(self, session: int) -> str:
        if session not in self._seeds:
            committed, stored = ladder_rows.committed_seed(self.ledger, session)
            seed = stored if stored is not None else seeds.recover(self.key, committed)
            self._seeds[session] = (seed, committed.secret)
        return self._seeds[session][0]

    def _end_if_done(self, session: int) -> None:
        with self.ledger.write() as connection:
            ended = match_rows.done(connection, session) and ladder_rows.reveal(connection, session,
                                                                                self._seed(session))
        if ended:
            checkpoints.write(self.ledger, ladder_rows.scope(self.ladder))
            if self._seeds[session][1]:
                self.say(f"session {session} is over: seed revealed: {short(self._seed(session))} (`tourney replay "
                         "verify --db --ladder` checks it against its commitment)")

    # -- the queue -----------------------------------------------------------------------

    def drive(self, session: int | None = None) -> int:
        """Claim, play and store matches of the ladder (of one session, if given) until none is left to claim
        and no session has a deal left to queue; the games this call stored. Matches it still holds when it
        stops (an interrupt, an error) go back to the queue for any worker."""
        before = self.stored
        lease = Lease(self.ledger, self.name, self.lease)
        lease.start()
        try:
            while True:
                claimed = match_rows.claim(self.ledger, self.ladder["id"], self.name, self.lease, self.batch, session)
                if not claimed:
                    if self.queue_next(session):
                        continue
                    break
                lease.hold(match.id for match in claimed)
                self._play(claimed, lease)
        finally:
            lease.stop()
            # If the database is out of reach the leases run out instead, and other workers claim the matches.
            with contextlib.suppress(LedgerError):
                match_rows.release(self.ledger, self.name, lease.held)
        return self.stored - before

    def queue_next(self, session: int | None) -> bool:
        """Queue the next batch of deals of the session (None: of the first open session of the ladder that has
        deals left and none waiting), matchmade now; whether any was queued."""
        for candidate in [session] if session is not None else match_rows.open_sessions(self.ledger, self.ladder["id"]):
            if match_rows.top_up(self.ledger, candidate, lambda _connection, first, count, s=candidate:
                              self._tables(s, first, count)):
                return True
        return False

    def require_players(self) -> list[dict[str, Any]]:
        """The ladder's active entries; LadderError if they are fewer than its seats (nothing can be played)."""
        active = ladder_rows.entries(self.ledger, self.ladder["id"])
        if len(active) < self.players:
            raise ladder_errors.LadderError(
                f"ladder {self.ladder['name']!r} needs {self.players} active bots to play, it has {len(active)}: "
                "submit more with `tourney ladder submit`")
        return active

    def _tables(self, session: int, first_deal: int, count: int) -> list[list[int]]:
        active = self.require_players()
        rng = random.Random(matchmaking_seed(self._seed(session), first_deal))
        candidates = leaderboard.candidates(self.ledger, self.ladder, active)
        ids = {entry["name"]: entry["id"] for entry in active}
        return [[ids[name] for name in matchmaking.next_table(candidates, self.players, rng, spread=self.rating.spread)]
                for _ in range(count)]

    def _play(self, claimed: list[match_rows.Match], lease: Lease) -> None:
        entries = {entry["id"]: entry for entry in ladder_rows.entries(self.ledger, self.ladder["id"],
                                                                       active_only=False)}
        retired = [match for match in claimed if any(entries[e]["status"] != "active" for e in match.entries)]
        if retired:
            match_rows.cancel(self.ledger, self.name, [match.id for match in retired])
            lease.drop(match.id for match in retired)
            self.say(f"cancelled {len(retired)} queued match(es): a seat's bot was retired since they were queued")
        jobs: list[Job] = []
        of_game: dict[str, tuple[match_rows.Match, int]] = {}
        for match in claimed:
            if match in retired:
                continue
            table = [entries[e] for e in match.entries]
            dealt = deal_seed(self._seed(match.session_id), 0, match.deal)
            spec = Spec(self.engine.name, self.players, 1, dealt, self.limits.move_time, self.limits.time_bank,
                        tuple(self._spec(entry) for entry in table), resources=self.limits.resources,
                        **confinement.confined())
            names = [entry["name"] for entry in table]
            for rotation in range(self.players):
                key = f"s{match.session_id}-d{match.deal}-r{rotation}"
                seated = tuple(names[rotation:] + names[:rotation])
                jobs.append(Job(spec, Scheduled(key, 0, match.deal, rotation, seated, dealt), keep_logs=True))
                of_game[key] = (match, rotation)
        finished: dict[int, dict[int, Result]] = {}
        for result in played(jobs, self.workers):
            match, rotation = of_game[result.key]
            finished.setdefault(match.id, {})[rotation] = result
            if len(finished[match.id]) == self.players:
                by_rotation = finished.pop(match.id)
                self._store(match, [entries[e] for e in match.entries], [by_rotation[r] for r in sorted(by_rotation)])
                lease.drop([match.id])

    def _spec(self, entry: dict[str, Any]) -> BotSpec:
        if entry["id"] not in self._specs:
            self._specs[entry["id"]] = bot_cache.stored_bot(self.ledger, entry)
        return self._specs[entry["id"]]

    def _store(self, match: match_rows.Match, table: list[dict[str, Any]], results: list[Result]) -> None:
        """Store the match's games, rated in rotation order, in the transaction that marks it stored."""
        by_name = {entry["name"]: entry for entry in table}
        games: list[ladder_rows.Game] = []
        moves: list[tuple[list, list]] = []

        def update(ratings: list, ranks: list[int]) -> list:
            new = self.rating.update(ratings, ranks)
            moves.append((list(ratings), list(new)))  # the games are rated in this order, in one transaction
            return new

        for result in results:
            game_id = result.recorded.game_id

            def kept(connection, result=result, game_id=game_id) -> None:
                game_rows.store_logs(self.ledger, game_id,
                                     [(seat, log) for seat, log in enumerate(result.logs or ()) if log], connection)
                if result.diagnosis is not None:
                    game_rows.store_diagnoses(connection, [diagnosis_row(result, result.diagnosis, game_id,
                                                                         self.bot_logs)])

            games.append(rated_game(self.ledger, result, [by_name[seat.name] for seat in result.recorded.seats], kept))
        try:
            ladder_rows.store_games(self.ledger, self.ladder["id"], games, update,
                             lambda connection: match_rows.finish(connection, match.id, self.name),
                             membership.keeper(self.ladder))
        except match_rows.Lost as lost:
            self.say(f"{lost}: the games this worker played of it are dropped")
            return
        for result in results:
            if self.bot_logs is not None:
                self.bot_logs.mkdir(parents=True, exist_ok=True)
                write_logs(self.bot_logs, result.recorded.game_id, result.logs, result.bots())
            self.stored += 1
            if self.stored % checkpoints.EVERY == 0:
                checkpoints.write(self.ledger, ladder_rows.scope(self.ladder))
            if self.progress is not None:
                self.progress(self.stored)
        # The lines after the count: a Ctrl-C while they are printed finds every stored game counted.
        for result, (before, after) in zip(results, moves, strict=True):
            if self.rated is not None:
                self.rated(result, [Moved(seat.name, shown(old), shown(new))
                                    for seat, old, new in zip(result.recorded.seats, before, after, strict=True)])
        self._end_if_done(match.session_id)


def ready_bot_logs(folder: Path | None) -> None:
    """Make the --bot-logs folder (None: none asked for), or LadderError in one line: a file there, a folder that
    cannot be made or written to."""
    unusable = folder and store_loop.unwritable(folder)
    if unusable:
        raise ladder_errors.LadderError(f"cannot write bot logs to {folder}: {unusable}")


def play(ledger: Ledger, ladder_name: str, games: int, workers: int, limits: confinement.Limits,
         seed: str | None = None,
         progress: Callable[[int], None] | None = None, announce: Callable[[str], None] | None = None,
         bot_logs: Path | None = None, rated: Callable[[Result, list[Moved]], None] | None = None) -> int:
    """`ladder play`: one session of at least ``games`` games (whole seat rotations), each stored and rated as
    its match ends; the games this process stored.

    When it stops (done, interrupted or failed) the session queues nothing more; it ends (a signed
    checkpoint, the seed revealed) once no other worker is playing a match of it. The end of each bot
    process's stderr per game is stored with the game (its owner reads it on the web), and so is a forfeiting
    bot's diagnosis; with ``bot_logs``, the stderr also goes there as ``<bot>/<game id>-seat<N>.log``.
    ``rated`` is told each stored game with its seats' rating moves.
    """
    worker = Worker(ledger, ladder_rows.get(ledger, ladder_name), limits, workers, say=announce or (lambda _line: None),
                    progress=progress, bot_logs=bot_logs, rated=rated)
    worker.require_players()  # before the session opens: a ladder too small to play stores nothing
    session = worker.open(games, seed)
    try:
        return worker.drive(session)
    finally:
        worker.stop_session(session)
