"""Signed checkpoints: one root over every game of a tournament or a ladder, in their order.

A game's own signature proves its events; it cannot prove that the game still belongs where
it is, nor that no game was removed. A checkpoint does: it chains the games of one
tournament (in the order they were stored, ``games.store_seq``) or of one ladder (in rating
order, ``ladder_games.seq``),

    root_0 = 32 zero bytes
    root_i = SHA-256(root_(i-1) || game_id 0x00 key 0x00 head)      (key: the schedule key, or "")

and the ledger key signs ``("tourney-checkpoint-v1", scope, name, games, root, state)``
(ledger.signing_keys.checkpoint_message), state being ``complete`` once every scheduled game of a
tournament is stored, else ``open``. Writers append one every ``EVERY`` games and when they
stop; each extends the last one's root with the games stored since, so writing one costs
the new games only. Checking recomputes the whole chain (one SHA-256 per game) and one
signature per checkpoint: games covered by a checkpoint whose root holds need no signature
check of their own, and a game removed, added, moved between tournaments or re-sealed
before the last checkpoint changes the root. Games stored after the last checkpoint are
vouched for by their own signatures only. Checkpoints are append-only (revision 0005's
triggers).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from sqlalchemy import text
from sqlalchemy.engine import Connection

from ledger import signing_keys
from ledger.store import Ledger, LedgerError, now

TOURNAMENT = "tournament"
LADDER = "ladder"
COMPLETE = "complete"
OPEN = "open"
EVERY = 100
"""A writer appends a checkpoint after this many new games (and whenever it stops)."""
_ZERO = bytes(32)


class CheckpointError(LedgerError):
    """A checkpoint that does not hold over the stored games; the message names what and where."""


@dataclass(frozen=True, slots=True)
class Scope:
    """A tournament or a ladder: what a checkpoint covers."""

    kind: str
    id: int
    name: str

    @property
    def column(self) -> str:
        return "tournament_id" if self.kind == TOURNAMENT else "ladder_id"

    def __str__(self) -> str:
        return f"{self.kind} {self.name!r}"


@dataclass(frozen=True, slots=True)
class Member:
    """One game of a scope as the chain sees it."""

    order: int
    game_id: str
    key: str
    head: str
    signature: str | None


@dataclass(frozen=True, slots=True)
class Checkpoint:
    seq: int
    games: int
    through: int
    root: str
    state: str
    signature: str
    created_at: str

    @property
    def fingerprint(self) -> str:
        """The first 16 hex digits of the root: what `tourney standings` prints, to compare with a published one."""
        return self.root[:16]


@dataclass(slots=True)
class Audit:
    """What the checkpoints of one scope say about its stored games."""

    scope: Scope
    members: list[Member]
    checkpoints: list[Checkpoint]
    covered: int = 0
    """How many of ``members`` (the first ones) the last checkpoint vouches for."""
    problems: list[tuple[str | None, str]] = field(default_factory=list)
    """(game id or None, what is wrong), in the order found."""
    stored: int = 0
    """How many games the chain holds (``len(members)`` when they are kept)."""
    tail: list[Member] | None = None
    """When the members are not kept: those the last checkpoint does not cover (what a reader vouches for one by
    one; a writer appends a checkpoint every ``EVERY`` games)."""

    @property
    def latest(self) -> Checkpoint | None:
        return self.checkpoints[-1] if self.checkpoints else None

    @property
    def uncovered(self) -> list[Member]:
        return self.members[self.covered:] if self.tail is None else self.tail

    @property
    def stored_after(self) -> int:
        """How many games the last checkpoint does not cover."""
        return self.stored - self.covered


def members(connection: Connection, scope: Scope, after: int = 0) -> list[Member]:
    """The scope's finished games in chain order (only those past order number ``after``)."""
    if scope.kind == TOURNAMENT:
        query = ("SELECT store_seq, id, game_key, head, signature FROM games WHERE tournament_id = :scope "
                 "AND store_seq IS NOT NULL AND store_seq > :after ORDER BY store_seq")
    else:
        query = ("SELECT l.seq, g.id, g.game_key, g.head, g.signature FROM ladder_games l JOIN games g "
                 "ON g.id = l.game_id WHERE l.ladder_id = :scope AND l.seq > :after ORDER BY l.seq")
    return [Member(order, game_id, key or "", head or "", signature) for order, game_id, key, head, signature
            in connection.execute(text(query), {"scope": scope.id, "after": after})]


PAGE = 1000
"""Members read at once by ``audit`` when it does not keep them."""
_PAGED = {
    TOURNAMENT: text("SELECT store_seq, id, game_key, head, signature FROM games WHERE tournament_id = :id "
                     "AND store_seq IS NOT NULL AND store_seq > :after ORDER BY store_seq LIMIT :page"),
    LADDER: text("SELECT l.seq, g.id, g.game_key, g.head, g.signature FROM ladder_games l JOIN games g "
                 "ON g.id = l.game_id WHERE l.ladder_id = :id AND l.seq > :after ORDER BY l.seq LIMIT :page"),
}


def paged_members(connection: Connection, scope: Scope, page: int | None = None) -> Iterator[Member]:
    """``members``, read ``page`` (default ``PAGE``) at a time after the last one read (keyset paging), none of
    them kept."""
    page, after = page or PAGE, 0
    while rows := connection.execute(_PAGED[scope.kind], {"id": scope.id, "after": after, "page": page}).all():
        for order, game_id, key, head, signature in rows:
            yield Member(order, game_id, key or "", head or "", signature)
        after = rows[-1][0]


def extend(root: str | None, chained: Sequence[Member]) -> str:
    """The root after ``chained``, from ``root`` (None: the empty chain)."""
    value = bytes.fromhex(root) if root else _ZERO
    sha256 = hashlib.sha256
    for member in chained:
        value = sha256(value + f"{member.game_id}\x00{member.key}\x00{member.head}".encode()).digest()
    return value.hex()


def stored(connection: Connection, scope: Scope) -> list[Checkpoint]:
    """The scope's checkpoints, oldest first."""
    rows = connection.execute(text(
        "SELECT seq, games, through, root, state, signature, created_at FROM checkpoints "
        f"WHERE {scope.column} = :scope ORDER BY seq"), {"scope": scope.id})
    return [Checkpoint(*row) for row in rows]


def write(ledger: Ledger, scope: Scope, complete: bool = False, connection: Connection | None = None
          ) -> Checkpoint | None:
    """Append a signed checkpoint over every game of ``scope`` stored so far; None if the last one
    already says as much."""
    if connection is None:
        ledger.signing_key()
        with ledger.write() as connection:
            return write(ledger, scope, complete, connection)
    found = stored(connection, scope)
    last = found[-1] if found else None
    new = members(connection, scope, last.through if last else 0)
    state = COMPLETE if complete else OPEN
    if last is not None and not new and last.state == state:
        return None
    games = (last.games if last else 0) + len(new)
    root = extend(last.root if last else None, new)
    through = new[-1].order if new else (last.through if last else 0)
    signature = ledger.signing_key(connection).sign(signing_keys.checkpoint_message(scope.kind, scope.name, games, root,
                                                                            state))
    created = now()
    seq = connection.execute(text(
        f"INSERT INTO checkpoints ({scope.column}, games, through, root, state, signature, created_at) "
        "VALUES (:scope, :games, :through, :root, :state, :signature, :created_at) RETURNING seq"),
        {"scope": scope.id, "games": games, "through": through, "root": root, "state": state,
         "signature": signature, "created_at": created}).scalar_one()
    return Checkpoint(seq, games, through, root, state, signature, created)


def audit(connection: Connection, scope: Scope, public: bytes | None, keep: bool = True) -> Audit:
    """Recompute the scope's chain and hold every checkpoint against it.

    With ``public`` (the ledger's key), each checkpoint's signature is checked too. Never
    raises for what it finds: ``problems`` lists it (a removed or changed game names the
    checkpoint it breaks; an added one after a complete checkpoint is named itself). With ``keep``
    False, the chain is read a page at a time and not kept (``members`` stays empty; ``stored`` and
    ``covered`` count them, ``tail`` holds those after the last checkpoint): what a reader of a large
    scope holds is a page and the games stored since its last checkpoint.
    """
    chain = members(connection, scope) if keep else []
    result = Audit(scope, chain, stored(connection, scope))
    ahead = _Ahead(iter(chain) if keep else paged_members(connection, scope))
    done, root = 0, None
    for checkpoint in result.checkpoints:
        where = f"checkpoint {checkpoint.seq} of {scope} ({checkpoint.games} games, root {checkpoint.fingerprint}…)"
        if public is not None and not signing_keys.signature_holds(
                public, checkpoint.signature,
                signing_keys.checkpoint_message(scope.kind, scope.name, checkpoint.games, checkpoint.root,
                                                checkpoint.state)):
            result.problems.append((None, f"{where}: its signature does not hold under the ledger key"))
            result.stored = done + ahead.count_rest()
            return result
        value, span = bytes.fromhex(root) if root else _ZERO, 0
        sha256 = hashlib.sha256
        for member in ahead.through(checkpoint.through):
            value = sha256(value + f"{member.game_id}\x00{member.key}\x00{member.head}".encode()).digest()
            span += 1
        if done + span != checkpoint.games:
            result.problems.append((None, f"{where}: {done + span} games are stored up to where it ends: "
                                          f"a game was {'removed' if done + span < checkpoint.games else 'added'}"
                                          " or moved"))
            result.stored = done + span + ahead.count_rest()
            return result
        root = value.hex()
        if root != checkpoint.root:
            result.problems.append((None, f"{where}: the stored games give root {root[:16]}…: a game it covers "
                                          "was changed, re-sealed, replaced or moved"))
            result.stored = done + span + ahead.count_rest()
            return result
        done = checkpoint.games
        result.covered = done
    latest = result.latest
    result.stored = done
    result.tail = None if keep else []
    for member in ahead.rest():
        result.stored += 1
        if result.tail is not None:
            result.tail.append(member)
        if latest is not None and latest.state == COMPLETE:
            result.problems.append((member.game_id, f"stored after the complete checkpoint {latest.seq} of {scope}: "
                                                    "a game was added"))
    return result


class _Ahead:
    """Members in chain order, one looked at before it is taken (where a checkpoint's span ends)."""

    def __init__(self, source: Iterator[Member]) -> None:
        self.source = source
        self.next: Member | None = next(source, None)

    def through(self, order: int) -> Iterator[Member]:
        """The members up to ``order`` (taken)."""
        while self.next is not None and self.next.order <= order:
            member, self.next = self.next, next(self.source, None)
            yield member

    def rest(self) -> Iterator[Member]:
        while self.next is not None:
            member, self.next = self.next, next(self.source, None)
            yield member

    def count_rest(self) -> int:
        return sum(1 for _ in self.rest())
