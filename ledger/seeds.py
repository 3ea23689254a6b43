"""The seed of a tournament or of a ladder session: chosen by the organiser, or drawn and kept secret.

Every deal of a tournament (and of a `ladder play` session) derives from one seed, so whoever
knows it knows every hand before it is dealt. Without ``--seed`` it is drawn:

* a 32-byte nonce comes from the operating system's CSPRNG and is stored;
* the seed is ``LedgerKey.secret("tourney-drawn-seed-v1", nonce)``: 256 bits that only the
  holder of the ledger key can compute, so the seed itself is stored nowhere while play
  goes on (a copy of the database, a backup, a web page made from it cannot tell it), yet a
  resumed run computes it again;
* only its commitment, ``SHA-256("tourney-seed-v1:" + seed)`` (the same commitment a game
  log gives its own seed), is stored and shown;
* when the tournament ends (or the session stops) the seed is revealed: stored, printed,
  exported, and verification checks it against the commitment.

``--seed S`` keeps a run reproducible; it is recorded as chosen by the organiser (its
commitment is stored too, and it is shown from the start).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from ledger.signing_keys import LedgerKey

ORGANISER = "organiser"
DRAWN = "drawn"
LABEL = "tourney-drawn-seed-v1"


class SeedError(ValueError):
    """A drawn seed the ledger key cannot give back; the message is one line."""


def commitment(seed: str) -> str:
    """The public commitment to a seed (its hash, domain-separated)."""
    return hashlib.sha256(b"tourney-seed-v1:" + seed.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Committed:
    """What is stored of a seed while play goes on: where it came from and its commitment."""

    origin: str
    commitment: str
    nonce: str | None = None
    """Hex; what a drawn seed is derived from with the ledger key (None for a chosen seed)."""

    @property
    def secret(self) -> bool:
        return self.origin == DRAWN


def chosen(seed: str) -> Committed:
    return Committed(ORGANISER, commitment(seed))


def draw(key: LedgerKey) -> tuple[str, Committed]:
    """A new secret seed and what may be stored of it."""
    nonce = os.urandom(32)
    seed = key.secret(LABEL, nonce)
    return seed, Committed(DRAWN, commitment(seed), nonce.hex())


def recover(key: LedgerKey, committed: Committed) -> str:
    """A drawn seed again, from its nonce; SeedError if this key does not give the committed seed."""
    if committed.nonce is None:
        raise SeedError("no nonce is stored for this seed: it was not drawn with a ledger key")
    seed = key.secret(LABEL, bytes.fromhex(committed.nonce))
    if commitment(seed) != committed.commitment:
        raise SeedError(f"the ledger key {key.fingerprint} does not give back the seed committed as "
                        f"{committed.commitment[:16]}… (the seed was drawn with another key)")
    return seed
