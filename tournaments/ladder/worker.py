"""The ladder worker (`tourney ladder work`): the only place submitted bots are validated and played
for a ladder served on the web.

Its loop is a queue of jobs, each claimed, done and stored: first every waiting submission
(claimed from ``ledger.rows.submission_rows`` with a lease, validated by ``submitting.submit`` in the
sandbox exactly as `tourney ladder submit` does, and decided: listed or refused with the
reason), then matches from the ladder's match queue (tournaments.ladder.sessions: each match
claimed with a lease, played, and stored with its games' ratings in one transaction). The web
process never runs bot code; it only queues uploads. Any number of workers, on any number of
machines sharing one database, may serve one ladder: a submission's claim is one conditional
UPDATE, so no upload is validated twice, and a match is stored exactly once.

A worker never dies on a submission. Whatever is wrong with an upload or its bot (a zip that
cannot be read, a bot that forfeits) refuses it with the reason. A failure that is this
machine's (the sandbox did not start, a disk error, anything unforeseen) leaves the submission
claimed until its lease runs out, to be tried again by any worker; the second such failure
refuses it (``queue.MAX_ATTEMPTS``), so no submission is handed out forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from ledger.rows import ladder_rows, match_rows, owner_rows, submission_rows
from ledger.store import Ledger
from replays import log as logfmt
from replays.record import Recorded
from tournaments.bots.spec import BotError
from tournaments.ladder import confinement, ladder_errors, sessions, submitting, uploads
from tournaments.sandbox import leftovers
from tournaments.sandbox.sandbox import SandboxError


@dataclass(frozen=True, slots=True)
class Decided:
    """What became of one submission (VALIDATING: nothing yet, it is tried again after a failure of this
    machine's)."""

    submission: int
    name: str
    owner: str
    status: str
    reason: str | None = None
    version: int | None = None
    again: bool = False
    """Listed already: the same content under the same name (no new version)."""

    def line(self) -> str:
        if self.status == submission_rows.LISTED and self.again:
            return (f"submission {self.submission}: {self.name} v{self.version} (owner {self.owner}) was listed "
                    "already with this content: no new version")
        if self.status == submission_rows.LISTED:
            return f"submission {self.submission}: listed {self.name} v{self.version} (owner {self.owner})"
        if self.status == submission_rows.VALIDATING:
            return (f"submission {self.submission}: {self.name} (owner {self.owner}) could not be validated here "
                    f"({self.reason}); it is tried again when its lease runs out")
        return f"submission {self.submission}: refused {self.name} (owner {self.owner}): {self.reason}"


ALREADY_LISTED = "the same content was already listed"
"""The reason kept with a submission of a version listed already (the API shows it)."""
MACHINE_REASON = 300
"""How much of an unforeseen error's text the worker prints."""
UPLOADED = "tourney-upload-"
"""The prefix of the folder a submission's files are unpacked into while it is validated, in the temporary folder:
named for the worker, removed when it is done, or by a later worker if this one was killed (leftovers)."""
MACHINE_REFUSAL = ("it could not be validated, {attempts} times, for the fault of the machines validating it (the "
                   "operator sees why in the worker's output): it is not tried again; submit it again later")


def validate_next(ledger: Ledger, ladder_name: str, limits: confinement.Limits, say: Callable[[str], None] | None = None
                  ) -> Decided | None:
    """Claim the oldest waiting submission of the ladder, validate it and record the outcome; None if
    none waits. Never raises for the submission's sake (see the module's docstring). ``say`` is told its
    validation games as they end."""
    ladder = ladder_rows.get(ledger, ladder_name)
    claimed = submission_rows.claim_next(ledger, ladder["id"])
    if claimed is None:
        return None
    row, upload = claimed
    played: list[tuple[Recorded, int]] = []
    with leftovers.temporary_folder(UPLOADED) as folder:
        def said(error: BaseException | str) -> str:
            # Said to the uploader: without this machine's temporary folder in it.
            return str(error).replace(f"{folder}/", "")

        try:
            checked = uploads.check(row["filename"], upload, row["entry_point"])
            path = uploads.unpack(checked, Path(folder))
            listed = submitting.submit(ledger, ladder_name, path, row["name"], limits, row["owner_id"], say, played,
                                   row["description"])
        except (KeyboardInterrupt, SystemExit):
            submission_rows.release(ledger, row["id"])  # stopping: another worker takes it at once
            raise
        except (ladder_errors.Unavailable, SandboxError) as error:
            return _machine_failed(ledger, row, said(error))
        except ladder_errors.Refused as error:
            told = error.diagnosis
            kept = None if told is None else submission_rows.Told(told.kind, said(told.summary), said(told.detail))
            return _decided(ledger, row, submission_rows.REFUSED, said(error), diagnosis=kept, games=_kept(played))
        except (ladder_errors.LadderError, BotError, uploads.UploadError, owner_rows.NameTaken) as error:
            return _decided(ledger, row, submission_rows.REFUSED, said(error), games=_kept(played))
        except Exception as error:  # a worker never dies on a submission: counted as the machine's fault
            return _machine_failed(ledger, row, f"{type(error).__name__}: {said(error)}"[:MACHINE_REASON])
    decided = _decided(ledger, row, submission_rows.LISTED, None if listed.new else ALREADY_LISTED, listed.entry_id,
                       listed.version, games=_kept(played))
    return decided if listed.new else replace(decided, again=True)


def _machine_failed(ledger: Ledger, row: dict, error: str) -> Decided:
    """A validation that failed for this machine's fault: tried again after its lease, refused the second time
    (the uploader is told so; the error, which may name this machine's paths, is printed only)."""
    if row["attempts"] < submission_rows.MAX_ATTEMPTS:
        return Decided(row["id"], row["name"], row["owner"], submission_rows.VALIDATING, error)
    reason = MACHINE_REFUSAL.format(attempts=row["attempts"])
    submission_rows.decide(ledger, row["id"], submission_rows.REFUSED, reason, None)
    return Decided(row["id"], row["name"], row["owner"], submission_rows.REFUSED, f"{reason} (last: {error})")


def _kept(played: list[tuple[Recorded, int]]) -> list[submission_rows.KeptGame]:
    """The validation games as their owner keeps them: each one's whole log (issue 40 item 2)."""
    return [submission_rows.KeptGame(recorded.game_id, seat, logfmt.dumps(logfmt.from_recorded(recorded)))
            for recorded, seat in played]


def _decided(ledger: Ledger, row: dict, status: str, reason: str | None, entry_id: int | None = None,
             version: int | None = None, diagnosis: submission_rows.Told | None = None,
             games: Sequence[submission_rows.KeptGame] = ()) -> Decided:
    submission_rows.decide(ledger, row["id"], status, reason, entry_id, diagnosis, games)
    return Decided(row["id"], row["name"], row["owner"], status, None if status == submission_rows.LISTED else reason,
                   version)


def work(ledger: Ledger, ladder_name: str, games: int, workers: int, limits: confinement.Limits,
         seed: str | None = None,
         rounds: int | None = None, idle: float = 10.0, say: Callable[[str], None] = print,
         bot_logs: Path | None = None, lease: float = sessions.LEASE,
         rated: Callable[[sessions.Result, list[sessions.Moved]], None] | None = None) -> int:
    """Rounds of: validate every waiting submission, then play matches from the ladder's queue until none is
    left to claim (when the ladder has enough active bots), or wait ``idle`` seconds when there was nothing
    to do. ``rounds`` None: until interrupted.

    A round plays the open sessions' matches, whichever worker opened them; when no open session has
    work left it first opens one of ``games`` games, its seed drawn and secret until the session ends, or,
    with ``seed``, ``SEED-rN`` for round N (never the same deals twice). ``lease``: seconds a claimed match
    stays this worker's without renewal. ``bot_logs`` and ``rated``: as ``sessions.play``'s; ``say`` is told
    each submission's validation games and what became of it. Returns the games played."""
    ladder = ladder_rows.get(ledger, ladder_name)
    # Before claiming anything, the worker checks that a sandbox can be made: without one every
    # submission would be refused for the machine's fault, not its bot's.
    worker = sessions.Worker(ledger, ladder, limits, workers, lease, say, bot_logs=bot_logs, rated=rated)
    played = done = 0
    while rounds is None or done < rounds:
        done += 1
        busy = False
        while (decided := validate_next(ledger, ladder_name, limits, say)) is not None:
            say(decided.line())
            busy = True
        if len(ladder_rows.entries(ledger, ladder["id"])) >= ladder["players"]:
            if not match_rows.open_sessions(ledger, ladder["id"], with_work=True):
                worker.open(games, None if seed is None else f"{seed}-r{done}")
            count = worker.drive()
            played += count
            say(f"played {count} game{'' if count == 1 else 's'} on {ladder_name}")
            busy = busy or count > 0
        if not busy and (rounds is None or done < rounds):
            time.sleep(idle)
    return played
