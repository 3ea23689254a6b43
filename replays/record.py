"""Turn a played game into hashed, salted records: the one path from engine to ledger.

A game's log opens with ``game_started`` (game, engine version, config, seats, the
seed's commitment) and closes with ``game_ended`` (ranking, reason, the seed itself, the
hash of game_started, and each seat's score for a game that keeps scores);
a forfeit (ruling ALL-5) adds ``seat_forfeited`` with the reason before the end.
Between them stand the engine's own events, in order.

Salts (16 bytes each) of private parts:
* of a chance or setup event: HMAC-SHA256(seed, "tourney-salt-v1:chance:<seq>"), so
  that once the seed is revealed anyone can check a redacted chance outcome;
* of a decision: HMAC-SHA256(salt_key, "tourney-salt-v1:decision:<seq>"), where the
  game's salt key is a secret never published in a redacted log, so a hidden choice
  cannot be recovered by trying the few possibilities, even after the game.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engines.base import Config, Engine, Event
from engines.chance import ALGORITHM
from engines.driver import Played
from ledger.canonical import loads
from ledger.chain import Chain, Record, pack, unpack
from ledger.seeds import commitment as seed_commitment

GAME_STARTED = "game_started"
SEAT_FORFEITED = "seat_forfeited"
GAME_ENDED = "game_ended"
META_EVENTS = frozenset({GAME_STARTED, SEAT_FORFEITED, GAME_ENDED})


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """Who sat in a seat: the bot's name and the SHA-256 of its content."""

    name: str
    hash: str


@dataclass(frozen=True, slots=True)
class Recorded:
    """A played game as stored: its id, header fields and every sealed record."""

    game_id: str
    game: str
    engine_version: int
    config: dict[str, Any]
    seats: tuple[SeatInfo, ...]
    seed: str
    seed_commitment: str
    records: list[Record]
    ranking: tuple[int, ...]
    reason: str
    salt_key: bytes | None = None
    """The key of its decisions' salts: the ledger keeps it instead of the salts (ledger.sealed), and never
    exports it (a redacted log must not let anyone re-derive a hidden choice's salt)."""

    @property
    def head(self) -> str:
        return self.records[-1].hash

    def __reduce__(self):
        # Workers send every game to the writer process: pack its records into one blob.
        fields = [getattr(self, name) for name in self.__slots__ if name != "records"]
        return _unreduce, (fields, pack(self.records))


def forfeit_seat(records: Sequence[Record]) -> int | None:
    """The seat whose forfeit ended a game (its seat_forfeited comes just before game_ended), or None."""
    for record in records[-2:]:
        if record.type == SEAT_FORFEITED:
            return int(loads(record.body)["data"]["seat"])
    return None


def _unreduce(fields: list[Any], blob: bytes) -> Recorded:
    values = dict(zip([n for n in Recorded.__slots__ if n != "records"], fields, strict=True))
    return Recorded(records=unpack(blob), **values)


class _Salts:
    """Both salt streams of one game, with each HMAC key set up once (a game needs hundreds)."""

    def __init__(self, seed: str, salt_key: bytes) -> None:
        self.chance = hmac.new(seed.encode("utf-8"), digestmod=hashlib.sha256)
        self.decision = hmac.new(salt_key, digestmod=hashlib.sha256)

    def __call__(self, seq: int, chance: bool) -> bytes:
        mac = (self.chance if chance else self.decision).copy()
        mac.update(b"tourney-salt-v1:%s:%d" % (b"chance" if chance else b"decision", seq))
        return mac.digest()[:16]


def new_game_id() -> str:
    return uuid.uuid4().hex


def new_salt_key() -> bytes:
    return os.urandom(32)


def started_data(engine: Engine, config: Config, seats: Sequence[SeatInfo], seed: str) -> dict[str, Any]:
    return {
        "config": config.to_json(),
        "engine_version": engine.version,
        "game": engine.name,
        "prng": ALGORITHM,
        "seats": [{"bot": s.name, "hash": s.hash, "seat": i} for i, s in enumerate(seats)],
        "seed_commitment": seed_commitment(seed),
    }


def ended_data(engine: Engine, played: Played, seed: str, opening: str) -> dict[str, Any]:
    """game_ended's data: the ranking, why, the seed, the opening's hash, and the scores where the game keeps them.

    ``opening`` (the hash of game_started) ties the header to the end: a reader who checks
    the last event's link to the signed head can trust the seats and config it names
    without walking the whole chain (docs/replays.md, "What reading checks").
    """
    outcome = played.outcome
    data = {"opening": opening, "ranking": list(outcome.ranking), "reason": outcome.reason, "seed": seed}
    scores = engine.scores(played.state)
    if scores is not None:
        data["scores"] = list(scores)
    return data


class Sealer:
    """Seals one game's events into its hash chain step by step, as ``record`` does at once.

    Step 0 is ``game_started``; each ``step`` call seals the events of the next step (salted
    as chance or as a decision), and ``end`` seals the log's own ending. A text record is
    rebuilt with it decision by decision (replays.text_record), so that the chain after each
    of its lines can be compared as soon as the line is read. ``decision_salt(seq)`` gives a
    decision's salts: from the game's secret salt key when playing, as written when rebuilding.
    """

    __slots__ = ("chain", "decision_salt", "number", "records", "salts")

    def __init__(self, game_id: str, seed: str, decision_salt: Callable[[int], bytes] | None = None,
                 salt_key: bytes | None = None) -> None:
        self.salts = _Salts(seed, salt_key if salt_key is not None else new_salt_key())
        self.decision_salt = decision_salt
        self.chain = Chain(game_id)
        self.records: list[Record] = []
        self.number = 0  # the step the next call seals

    def step(self, events: Sequence[Event], chance: bool, own: bool = False) -> None:
        """Seal the events of the next step; ``own``: the log's own (game_started, the ending), a name an
        engine's events may not take."""
        number, chain, add = self.number, self.chain, self.records.append
        salts, given = self.salts, self.decision_salt
        for event in events:
            if event.type in META_EVENTS and not own:
                raise ValueError(f"an engine emitted {event.type!r}, a name the log keeps for itself")
            if event.private is None:
                salt = None
            elif chance or given is None:
                salt = salts(chain.seq, chance)
            else:
                salt = given(chain.seq)
            add(chain.seal(event.type, event.data, event.private, event.audience, salt, number))
        self.number = number + 1

    def end(self, engine: Engine, played: Played, seed: str, ended_keys: frozenset[str] | None = None) -> None:
        """Seal the ending: ``seat_forfeited`` after a forfeit (ALL-5), then ``game_ended``.

        ``ended_keys`` keeps only those keys of game_ended's data (a log written before it named
        its opening holds ranking, reason and seed alone).
        """
        outcome = played.outcome
        if outcome.forfeit_seat is not None:
            self.step([Event(SEAT_FORFEITED, {"reason": outcome.forfeit_reason, "seat": outcome.forfeit_seat})], True,
                      own=True)
        data = ended_data(engine, played, seed, self.records[0].hash)
        if ended_keys is not None:
            data = {key: value for key, value in data.items() if key in ended_keys}
        self.step([Event(GAME_ENDED, data)], True, own=True)


def record(
    engine: Engine,
    config: Config,
    seed: str,
    played: Played,
    seats: Sequence[SeatInfo],
    *,
    game_id: str | None = None,
    salt_key: bytes | None = None,
) -> Recorded:
    """Seal every event of ``played`` into a hash chain, meta events included."""
    game_id = game_id or new_game_id()
    salt_key = salt_key if salt_key is not None else new_salt_key()
    sealer = Sealer(game_id, seed, salt_key=salt_key)
    # Step 0 is game_started; the driver's steps follow, each numbered, then the end.
    sealer.step([Event(GAME_STARTED, started_data(engine, config, seats, seed))], True, own=True)
    for step in played.steps:
        sealer.step(step.events, step.actor < 0)
    sealer.end(engine, played, seed)
    outcome = played.outcome
    return Recorded(
        game_id, engine.name, engine.version, config.to_json(), tuple(seats), seed,
        seed_commitment(seed), sealer.records, outcome.ranking, outcome.reason, salt_key,
    )
