"""The queue of bots uploaded through the HTTP API, waiting for their validation game.

The web process only adds rows (``add``); a worker (`tourney ladder work`) claims the oldest
pending one (``claim_next``), validates it, and records the outcome (``decide``). A claim is a
lease: a submission whose worker died while validating it is claimed again once the lease has
run out, but a submission is handed out at most ``MAX_ATTEMPTS`` times: one whose validations
all ended without a decision is refused (``claim_next`` says why), never handed out forever. A
worker that stops gives its claim back (``release``), not counted. Claiming is one conditional
UPDATE, so two workers never validate the same upload (plain SQL that SQLite and PostgreSQL
both run).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

import zstandard
from sqlalchemy import text

from ledger.rows import owner_rows
from ledger.store import Ledger, LedgerError, now

PENDING = "pending"
VALIDATING = "validating"
LISTED = "listed"
REFUSED = "refused"
LEASE = timedelta(minutes=15)
"""How long a worker may take over one validation before another may claim the submission again."""
MAX_ATTEMPTS = 2
"""How many times a submission is handed out for validation before it is refused undecided."""
NEVER_FINISHED = ("its validation was started {attempts} times and never finished (the worker validating it "
                  "died or failed for its machine's fault each time): it is not tried again")

COLUMNS = ("id", "ladder_id", "owner_id", "name", "filename", "entry_point", "status", "reason", "entry_id",
           "created_at", "claimed_at", "decided_at", "attempts", "description")
_SELECT = f"SELECT {', '.join('s.' + column for column in COLUMNS)}, l.name, o.name FROM submissions s " \
          "JOIN ladders l ON l.id = s.ladder_id JOIN owners o ON o.id = s.owner_id"


class UnknownSubmission(LedgerError):
    """No submission with that id (or none of this owner's)."""


def add(ledger: Ledger, ladder_id: int, owner_id: int, name: str, filename: str, entry_point: str,
        upload: bytes, description: str | None = None) -> int:
    """Queue an upload under ``name`` for the owner, claiming the name in the same transaction
    (NameTaken if it is not theirs to use), with its author's ``description``. Returns the submission's id."""
    with ledger.write() as connection:
        owner_rows.claim(connection, name, owner_id)
        return connection.execute(text(
            "INSERT INTO submissions (ladder_id, owner_id, name, filename, entry_point, upload, status, created_at, "
            "description) VALUES (:ladder_id, :owner_id, :name, :filename, :entry_point, :upload, :status, "
            ":created_at, :description) RETURNING id"),
            {"ladder_id": ladder_id, "owner_id": owner_id, "name": name, "filename": filename,
             "entry_point": entry_point, "upload": upload, "status": PENDING, "created_at": now(),
             "description": description}).scalar_one()


def count_since(ledger: Ledger, owner_id: int, since: datetime) -> int:
    """How many submissions the owner made since ``since`` (the per-owner rate limit counts them)."""
    with ledger.read() as connection:
        return connection.execute(text(
            "SELECT COUNT(*) FROM submissions WHERE owner_id = :owner_id AND created_at >= :since"),
            {"owner_id": owner_id, "since": _stamp(since)}).scalar()


def get(ledger: Ledger, submission_id: int) -> dict[str, Any]:
    with ledger.read() as connection:
        row = connection.execute(text(f"{_SELECT} WHERE s.id = :id"), {"id": submission_id}).first()
    if row is None:
        raise UnknownSubmission(f"no submission {submission_id}")
    return _row(row)


def of_owner(ledger: Ledger, owner_id: int, limit: int, offset: int) -> tuple[list[dict[str, Any]], int]:
    """The owner's submissions, newest first: one page of them and how many there are in all."""
    with ledger.read() as connection:
        total = connection.execute(text("SELECT COUNT(*) FROM submissions WHERE owner_id = :owner_id"),
                                   {"owner_id": owner_id}).scalar()
        rows = connection.execute(text(f"{_SELECT} WHERE s.owner_id = :owner_id ORDER BY s.id DESC "
                                       "LIMIT :limit OFFSET :offset"),
                                  {"owner_id": owner_id, "limit": limit, "offset": offset}).all()
    return [_row(row) for row in rows], total


def waiting(ledger: Ledger, ladder_id: int) -> int:
    """Submissions to a ladder not decided yet (pending or being validated)."""
    with ledger.read() as connection:
        return connection.execute(text(
            "SELECT COUNT(*) FROM submissions WHERE ladder_id = :ladder_id AND status IN (:pending, :validating)"),
            {"ladder_id": ladder_id, "pending": PENDING, "validating": VALIDATING}).scalar()


def claim_next(ledger: Ledger, ladder_id: int, at: datetime | None = None) -> tuple[dict[str, Any], bytes] | None:
    """Claim the oldest submission to validate (pending, or validating with its lease run out), counting
    the attempt: the row and its upload, or None when there is none. A submission whose lease ran out
    after its last attempt is refused (NEVER_FINISHED) instead, and the next one is looked at."""
    at = at or datetime.now(UTC)
    expired = _stamp(at - LEASE)
    claimable = "(status = :pending OR (status = :validating AND claimed_at < :expired))"
    states = {"pending": PENDING, "validating": VALIDATING, "expired": expired}
    with ledger.write() as connection:
        while True:
            found = connection.execute(text(
                f"SELECT id, attempts FROM submissions WHERE ladder_id = :ladder_id AND {claimable} "
                "ORDER BY id LIMIT 1"), {"ladder_id": ladder_id, **states}).first()
            if found is None:
                return None
            if found[1] >= MAX_ATTEMPTS:
                connection.execute(text(
                    "UPDATE submissions SET status = :status, reason = :reason, decided_at = :decided_at "
                    "WHERE id = :id"),
                    {"status": REFUSED, "reason": NEVER_FINISHED.format(attempts=found[1]), "decided_at": now(),
                     "id": found[0]})
                continue
            taken = connection.execute(text(
                "UPDATE submissions SET status = :validating, claimed_at = :claimed_at, attempts = attempts + 1 "
                f"WHERE id = :id AND {claimable}"), {"claimed_at": _stamp(at), "id": found[0], **states}).rowcount
            if taken:
                row = connection.execute(text(f"{_SELECT} WHERE s.id = :id"), {"id": found[0]}).first()
                upload = connection.execute(text("SELECT upload FROM submissions WHERE id = :id"),
                                            {"id": found[0]}).scalar()
                return _row(row), bytes(upload)


def release(ledger: Ledger, submission_id: int) -> None:
    """Give a claimed submission back to the queue at once (its worker is stopping): pending again, the
    attempt not counted."""
    with ledger.write() as connection:
        connection.execute(text(
            "UPDATE submissions SET status = :pending, claimed_at = NULL, attempts = attempts - 1 "
            "WHERE id = :id AND status = :validating"),
            {"pending": PENDING, "id": submission_id, "validating": VALIDATING})


def decide(ledger: Ledger, submission_id: int, status: str, reason: str | None, entry_id: int | None,
           diagnosis: Told | None = None, games: Sequence[KeptGame] = ()) -> None:
    """Record a validation's outcome: LISTED (with the ladder entry) or REFUSED (with the reason, and what the
    bot left behind when it forfeited: its traceback or its last stderr lines, for its owner only); and, in
    the same transaction, the validation games it played, for its owner (``games``, in the order played)."""
    if status not in (LISTED, REFUSED):
        raise ValueError(f"a submission is decided as {LISTED} or {REFUSED}, not {status}")
    decided = now()
    with ledger.write() as connection:
        connection.execute(text(
            "UPDATE submissions SET status = :status, reason = :reason, entry_id = :entry_id, "
            "decided_at = :decided_at, diagnosis = :detail, diagnosis_kind = :kind, diagnosis_summary = :summary "
            "WHERE id = :id"),
            {"status": status, "reason": reason, "entry_id": entry_id, "decided_at": decided, "id": submission_id,
             **(diagnosis or Told(None, None, None))._asdict()})
        if games:
            packer = zstandard.ZstdCompressor()
            connection.execute(text(
                "INSERT INTO validation_games (submission_id, number, game_id, seat, log, created_at) "
                "VALUES (:submission_id, :number, :game_id, :seat, :log, :created_at)"),
                [{"submission_id": submission_id, "number": number, "game_id": game.game_id, "seat": game.seat,
                  "log": packer.compress(game.log), "created_at": decided} for number, game in enumerate(games, 1)])


class Told(NamedTuple):
    """What a refused submission's bot left behind, as a game's forfeit keeps it (``diagnoses``): its kind
    (traceback or stderr; None for a submission refused before revision 0022), one-line summary and detail."""

    kind: str | None
    summary: str | None
    detail: str


class KeptGame(NamedTuple):
    """A validation game as kept: its id, the seat the submitted bot sat in, its whole log (JSON bytes)."""

    game_id: str
    seat: int
    log: bytes


def validation_games(ledger: Ledger, submission_id: int, owner_id: int) -> list[dict[str, Any]]:
    """The validation games of the owner's submission (number, game_id, seat, created_at), in order; empty for
    anyone else's submission."""
    with ledger.read() as connection:
        found = connection.execute(text(
            "SELECT v.number, v.game_id, v.seat, v.created_at FROM validation_games v "
            "JOIN submissions s ON s.id = v.submission_id WHERE v.submission_id = :submission_id "
            "AND s.owner_id = :owner_id ORDER BY v.number"),
            {"submission_id": submission_id, "owner_id": owner_id}).all()
    return [dict(zip(("number", "game_id", "seat", "created_at"), row, strict=True)) for row in found]


def validation_log(ledger: Ledger, submission_id: int, owner_id: int, number: int) -> tuple[int, bytes] | None:
    """(the submitted bot's seat, the whole log) of one validation game of the owner's submission; None for
    anyone else's, and for no such game."""
    with ledger.read() as connection:
        found = connection.execute(text(
            "SELECT v.seat, v.log FROM validation_games v JOIN submissions s ON s.id = v.submission_id "
            "WHERE v.submission_id = :submission_id AND v.number = :number AND s.owner_id = :owner_id"),
            {"submission_id": submission_id, "number": number, "owner_id": owner_id}).first()
    return None if found is None else (found[0], zstandard.ZstdDecompressor().decompress(bytes(found[1])))


def diagnosis_of(ledger: Ledger, submission_id: int, owner_id: int) -> Told | None:
    """What a refused submission's bot left behind (its traceback or last stderr lines), for the owner whose
    submission it is; None for anyone else's, for none, and when it left nothing (private, as stderr is)."""
    with ledger.read() as connection:
        found = connection.execute(text(
            "SELECT diagnosis_kind, diagnosis_summary, diagnosis FROM submissions WHERE id = :id AND "
            "owner_id = :owner_id"), {"id": submission_id, "owner_id": owner_id}).first()
    return None if found is None or found[2] is None else Told(*found)


def _stamp(moment: datetime) -> str:
    # The same form as ledger.store.now(), so stored times compare as text in every database.
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _row(row: Any) -> dict[str, Any]:
    out = dict(zip(COLUMNS, row[: len(COLUMNS)], strict=True))
    out["ladder"], out["owner"] = row[len(COLUMNS)], row[len(COLUMNS) + 1]
    return out
