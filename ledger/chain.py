"""The hash chain: how one event's bytes and hash are made, and how a chain is checked.

For event ``seq`` of game ``game``:

* commitment = SHA-256( salt || canonical(private) ) in hex, or null for a public event.
  The salt (16 bytes) is chosen by the writer; without it, nobody can test guesses of a
  hidden card against the commitment.
* body = canonical({"audience", "commitment", "data", "game", "seq", "type"}), where
  audience is "public" or the list of seats that may see the private part;
* hash = SHA-256( prev || body ) in hex, prev being the previous event's hash as 32 raw
  bytes (32 zero bytes before seq 0).

Removing a private part (and its salt) leaves body and hash unchanged, so a redacted
log still proves its chain.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ledger.canonical import canonical, loads

GENESIS = bytes(32)
PUBLIC = "public"


class ChainError(ValueError):
    """A chain that does not hold; ``seq`` is the first bad event, the message says why."""

    def __init__(self, seq: int, message: str) -> None:
        super().__init__(f"seq {seq}: {message}")
        self.seq = seq
        self.detail = message


@dataclass(frozen=True, slots=True)
class Record:
    """One event as stored: its hashed body, its hidden part (if kept) and its hash."""

    seq: int
    type: str
    audience: str | list[int]
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


def body_of(game: str, seq: int, type_: str, audience: str | Sequence[int], data: Any, commit: str | None) -> bytes:
    """The canonical bytes that are hashed for one event."""
    return canonical(
        {
            "audience": audience if isinstance(audience, str) else list(audience),
            "commitment": commit,
            "data": data,
            "game": game,
            "seq": seq,
            "type": type_,
        }
    )


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
) -> Record:
    """Make the stored record of one event, chained to ``prev``."""
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
    body = body_of(game, seq, type_, audience_field, data, commit)
    return Record(seq, type_, audience_field, body, private_bytes, salt, link(prev, body))


def verify_chain(game: str, records: Iterable[Record]) -> str | None:
    """Check seqs, bodies, commitments and hashes; return the head hash (None if empty).

    Raises ChainError naming the first bad seq: a changed, dropped, duplicated or
    reordered event all break it there.
    """
    prev = None
    for expected, record in enumerate(records):
        if record.seq != expected:
            raise ChainError(expected, f"expected seq {expected}, found seq {record.seq}")
        envelope = loads(record.body)
        if envelope.get("game") != game or envelope.get("seq") != expected:
            raise ChainError(expected, f"body names game {envelope.get('game')!r} seq {envelope.get('seq')!r}")
        if envelope.get("type") != record.type:
            raise ChainError(expected, f"type {record.type!r} does not match the hashed type {envelope.get('type')!r}")
        if record.private is not None:
            if record.salt is None:
                raise ChainError(expected, "private part without its salt")
            found = commitment(record.salt, record.private)
            if found != envelope.get("commitment"):
                raise ChainError(expected, f"private part does not match its commitment {envelope.get('commitment')}")
        computed = link(prev, record.body)
        if computed != record.hash:
            raise ChainError(expected, f"expected hash {computed}, found {record.hash}")
        prev = record.hash
    return prev
