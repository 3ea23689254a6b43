"""The hash chain: how one event's bytes and hash are made, and how a chain is checked.

For event ``seq`` of game ``game``:

* commitment = SHA-256( salt || canonical(private) ) in hex, or null for a public event.
  The salt (16 bytes) is chosen by the writer; without it, nobody can test guesses of a
  hidden card against the commitment.
* body = canonical({"audience", "commitment", "data", "game", "seq", "step", "type"}),
  where audience is "public" or the list of seats that may see the private part, and
  step numbers the writer's steps (the events one decision or chance step caused share it);
* hash = SHA-256( prev || body ) in hex, prev being the previous event's hash as 32 raw
  bytes (32 zero bytes before seq 0).

Removing a private part (and its salt) leaves body and hash unchanged, so a redacted
log still proves its chain.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import marshal
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

import orjson

from ledger.canonical import canonical, loads

GENESIS = bytes(32)
PUBLIC = "public"


class ChainError(ValueError):
    """A chain that does not hold; ``seq`` is the first bad event, the message says why."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.detail = message


class Record(NamedTuple):
    """One event as stored: its hashed body, its hidden part (if kept) and its hash.

    A NamedTuple: a game makes hundreds of them, and a frozen dataclass is slower to build.
    """

    seq: int
    type: str
    audience: str
    """As stored: "public", or the seats as compact JSON ("[0,2]")."""
    body: bytes
    private: bytes | None
    salt: bytes | None
    hash: str

    @property
    def envelope(self) -> dict[str, Any]:
        """The hashed body, parsed."""
        return loads(self.body)



def commitment(salt: bytes, private: bytes) -> str:
    """The salted commitment to a private part's canonical bytes."""
    return hashlib.sha256(salt + private).hexdigest()


def chance_salt(seed: str, seq: int) -> bytes:
    """The salt of a chance event's private part: checkable by anyone once the seed is revealed (log-format.md)."""
    return hmac.new(seed.encode("utf-8"), CHANCE_SALT % seq, hashlib.sha256).digest()[:16]


def decision_salt(salt_key: bytes, seq: int) -> bytes:
    """The salt of a decision's private part, from the game's secret salt key (never in a redacted log)."""
    return hmac.new(salt_key, DECISION_SALT % seq, hashlib.sha256).digest()[:16]


CHANCE_SALT = b"tourney-salt-v1:chance:%d"
DECISION_SALT = b"tourney-salt-v1:decision:%d"


def body_of(
    game: str, seq: int, type_: str, audience: str | Sequence[int], data: Any, commit: str | None, step: int = 0
) -> bytes:
    """The canonical bytes that are hashed for one event.

    Canonical JSON of {"audience", "commitment", "data", "game", "seq", "step", "type"}, put
    together from its parts in that (sorted) order: only ``data`` comes from a game, so only it
    goes through the canonical checks; the rest are ids, hashes and ints (``seq`` and ``step``
    must be ints). A test checks the result against orjson's own serialization of the whole.
    """
    return bodies_of(game)(seq, type_, audience, data, commit, step)


Bodies = Callable[[int, str, str | Sequence[int], Any, str | None, int], bytes]
"""``body_of`` for one game: (seq, type, audience, data, commitment, step) -> body."""


def bodies_of(game: str) -> Bodies:
    """``body_of`` for one game, its id serialized once (a game seals or checks every event with it)."""
    game_json = _dumps(game)
    type_json: dict[str, bytes] = {}  # a game's few event types, each serialized once

    def body(seq: int, type_: str, audience: str | Sequence[int], data: Any, commit: str | None, step: int) -> bytes:
        return _BODY % (
            _PUBLIC_JSON if audience == PUBLIC else _dumps(audience if isinstance(audience, str) else list(audience)),
            b"null" if commit is None else _dumps(commit),
            canonical(data),
            game_json,
            seq,
            step,
            type_json.get(type_) or type_json.setdefault(type_, _dumps(type_)),
        )

    return body


_dumps = orjson.dumps
_BODY = b'{"audience":%b,"commitment":%b,"data":%b,"game":%b,"seq":%d,"step":%d,"type":%b}'
_PUBLIC_JSON = b'"public"'


def link(prev: str | None, body: bytes) -> str:
    """The hash of an event from the previous hash (None before seq 0) and its body."""
    return hashlib.sha256((bytes.fromhex(prev) if prev else GENESIS) + body).hexdigest()


def seal(
    game: str,
    seq: int,
    prev: str | None,
    type_: str,
    data: Any,
    private: Any = None,
    audience: Sequence[int] = (),
    salt: bytes | None = None,
    step: int = 0,
) -> Record:
    """Make the stored record of one event, chained to ``prev``."""
    prev_bytes = bytes.fromhex(prev) if prev else GENESIS
    return _seal(bodies_of(game), seq, prev_bytes, type_, data, private, audience, salt, step)[0]


def pack(records: Sequence[Record]) -> bytes:
    """Records as one compact blob (marshal: both ends are the same interpreter) for another process."""
    return marshal.dumps([tuple(record) for record in records])


def unpack(blob: bytes) -> list[Record]:
    """The records of ``pack``; a fraction of what pickling each NamedTuple costs."""
    return list(map(_new_record, marshal.loads(blob)))


_new_record = functools.partial(tuple.__new__, Record)
"""A Record from a tuple of its fields, without NamedTuple's Python-level __new__ (map calls it from C)."""


class Chain:
    """Seals one game's events in order, keeping the previous hash as raw bytes."""

    __slots__ = ("body", "game", "prev", "seq")

    def __init__(self, game: str) -> None:
        self.game = game
        self.body = bodies_of(game)
        self.prev = GENESIS
        self.seq = 0

    def seal(self, type_: str, data: Any, private: Any = None, audience: Sequence[int] = (),
             salt: bytes | None = None, step: int = 0) -> Record:
        record, self.prev = _seal(self.body, self.seq, self.prev, type_, data, private, audience, salt, step)
        self.seq += 1
        return record


def _seal(make_body: Bodies, seq: int, prev: bytes, type_: str, data: Any, private: Any, audience: Sequence[int],
          salt: bytes | None, step: int) -> tuple[Record, bytes]:
    if private is None:
        private_bytes = None
        commit = None
        audience_field: str | list[int] = PUBLIC
        salt = None
    else:
        if salt is None or len(salt) != 16:
            raise ValueError("a private part needs a 16-byte salt")
        private_bytes = canonical(private)
        commit = commitment(salt, private_bytes)
        audience_field = list(audience)
    body = make_body(seq, type_, audience_field, data, commit, step)
    digest = hashlib.sha256(prev + body).digest()  # one digest, its hex made from it
    return Record(seq, type_, audience_text(audience_field), body, private_bytes, salt, digest.hex()), digest


def audience_text(audience: str | Sequence[int]) -> str:
    """The stored form of an audience: "public" or the seats as compact JSON ("[0,2]")."""
    if isinstance(audience, str):
        return audience
    return "[" + ",".join(str(seat) for seat in audience) + "]"


def verify_chain(game: str, records: Iterable[Record]) -> str | None:
    """Check seqs, bodies, commitments and hashes; return the head hash (None if empty).

    Raises ChainError naming the first bad seq: a changed, dropped, duplicated or
    reordered event all break it there.
    """
    records = list(records)
    for expected, record in enumerate(records):
        if record.seq != expected:
            raise ChainError(expected, f"expected seq {expected}, found seq {record.seq}")
        envelope = loads(record.body)
        if envelope.get("game") != game or envelope.get("seq") != expected:
            raise ChainError(expected, f"body names game {envelope.get('game')!r} seq {envelope.get('seq')!r}")
        if envelope.get("type") != record.type:
            raise ChainError(expected, f"type {record.type!r} does not match the hashed type {envelope.get('type')!r}")
    return verify_links(records)


def verify_links(records: Sequence[Record], commitments: Sequence[str | None] | None = None) -> str | None:
    """Check every hash link and every private part against its commitment; return the head.

    For records whose bodies the caller built itself (so their game, seq and type are
    right by construction), pass the commitments to skip re-reading each body.
    """
    prev = None
    for seq, record in enumerate(records):
        if record.seq != seq:
            raise ChainError(seq, f"expected seq {seq}, found seq {record.seq}")
        if record.private is not None:
            if record.salt is None:
                raise ChainError(seq, "private part without its salt")
            committed = commitments[seq] if commitments is not None else loads(record.body).get("commitment")
            if commitment(record.salt, record.private) != committed:
                raise ChainError(seq, f"private part does not match its commitment {committed}")
        computed = link(prev, record.body)
        if computed != record.hash:
            raise ChainError(seq, f"expected hash {computed}, found {record.hash}")
        prev = computed
    return prev
