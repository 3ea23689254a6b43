"""Uploads written by attackers, and workers that fail: a real `tourney ladder work` process never dies on a
submission. An upload it cannot read is refused with the reason at check time (so the web refuses it at once);
a validation that fails for the machine's fault is tried again once, then refused; a submission whose workers
keep dying is refused, never handed out forever; a worker stopped by SIGTERM gives its submission back."""

from __future__ import annotations

import io
import os
import shutil
import signal
import sqlite3
import struct
import subprocess
import tempfile
import time
import zipfile
from contextlib import closing
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tests import cli
from tests.tournaments.play.test_protocol import GAME, SHIPPED
from tournaments.ladder import owner_tokens, uploads
from tournaments.ladder.worker import UPLOADED

pytestmark = pytest.mark.sandbox

ROOT = Path(__file__).resolve().parents[3]
RANDOM_BOT = (SHIPPED / "random_bot.py").read_bytes()
THOUGHTFUL = (Path(__file__).resolve().parents[1] / "bots" / "thoughtful.py").read_bytes()


def lying_zip() -> bytes:
    """A zip of a good Python bot whose central directory understates the member's size by 100 bytes: its
    directory adds up, and zipfile reads the member short and fails only at its end (the CRC)."""
    content = RANDOM_BOT + b"#" * 100
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("lying.py", content)
    data = bytearray(buffer.getvalue())
    central = data.index(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, len(RANDOM_BOT))  # the uncompressed size, as the directory says
    return bytes(data)


@pytest.fixture
def league(tmp_path) -> Path:
    """An SQLite league with an empty two-seat ladder and one owner, alice (id 1)."""
    path = tmp_path / "league.db"
    ledger = Ledger(str(path))
    ladder_rows.create(ledger, "spring", GAME, 2)
    owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    ledger.close()
    return path


def queued(league: Path, name: str, filename: str, upload: bytes) -> int:
    """An upload queued as the web queues it (its check skipped: an older server may have let it in)."""
    ledger = Ledger(str(league))
    try:
        return submission_rows.add(ledger, 1, 1, name, filename, filename, upload)
    finally:
        ledger.close()


def submission(league: Path, submission_id: int) -> dict:
    ledger = Ledger(str(league), read_only=True)
    try:
        return submission_rows.get(ledger, submission_id)
    finally:
        ledger.close()


def work(league: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """One round of a real `tourney ladder work` process (it must end well: exit 0, no traceback)."""
    done = cli.tourney("ladder", "work", "spring", "--rounds", "1",
                       "--games", "1", "--jobs", "0", "--idle", "0.1", "--move-time", "2", "--db", str(league),
                       timeout=240, cwd=league.parent, env={**os.environ, **(env or {})})
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stdout + done.stderr
    return done


def test_a_zip_whose_directory_understates_a_size_is_refused_at_check():
    """Attack: the directory understates a member's size. check() read only the directory and passed it; it now
    reads every member in full, so the upload is refused at once (a 422 on the web), with the reason."""
    refused = r"^not a readable zip \(BadZipFile: Bad CRC-32 for file 'lying.py'\)$"
    with pytest.raises(uploads.UploadError, match=refused):
        uploads.check("lying.zip", lying_zip())


def test_the_worker_refuses_a_lying_zip_and_goes_on(league):
    """Attack: the same zip already queued. `ladder work` died on it (BadZipFile from unpack, a traceback),
    leaving it `validating`, to kill the next worker when its lease ran out. The worker now refuses it with
    the reason and validates the next submission."""
    lying = queued(league, "lying", "lying.zip", lying_zip())
    good = queued(league, "good", "good.py", RANDOM_BOT)
    done = work(league)
    assert f"submission {lying}: refused lying (owner alice): not a readable zip (BadZipFile" in done.stdout
    refused = submission(league, lying)
    assert refused["status"] == submission_rows.REFUSED
    assert refused["reason"].startswith("not a readable zip (BadZipFile: ")
    assert submission(league, good)["status"] == submission_rows.LISTED


def test_a_validation_failing_twice_for_the_machines_fault_is_refused(league, tmp_path):
    """A machine that cannot validate (here its bot cache is a file, not a folder: every unpacking fails) does not
    kill the worker and does not refuse the submission for the bot's fault: it is tried again when its lease has
    run out, and refused after the second failure, saying it was the machines' fault; then never handed out."""
    broken = tmp_path / "cache-is-a-file"
    broken.write_text("")
    env = {"XDG_CACHE_HOME": str(broken)}
    waiting = queued(league, "good", "good.py", RANDOM_BOT)
    first = work(league, env)
    assert f"submission {waiting}: good (owner alice) could not be validated here (NotADirectoryError" in first.stdout
    assert (submission(league, waiting)["status"], submission(league,
                                                              waiting)["attempts"]) == (submission_rows.VALIDATING, 1)
    assert "submission" not in work(league, env).stdout  # its lease has not run out
    with closing(sqlite3.connect(league)) as connection, connection:  # 16 minutes later
        earlier = (datetime.now(UTC) - submission_rows.LEASE - timedelta(minutes=1)).isoformat(timespec="seconds")
        connection.execute("UPDATE submissions SET claimed_at = ?", (earlier,))
    second = work(league, env)
    assert f"submission {waiting}: refused good (owner alice): it could not be validated, 2 times" in second.stdout
    assert "(last: NotADirectoryError" in second.stdout
    refused = submission(league, waiting)
    assert refused["status"] == submission_rows.REFUSED
    assert "for the fault of the machines validating it" in refused["reason"]
    assert str(broken) not in refused["reason"]  # the machine's paths are the operator's to read, not the uploader's


def test_a_submission_whose_workers_keep_dying_is_refused_not_handed_out_forever(backend):
    """Attack: an upload that kills whichever worker validates it (a crash tourney cannot catch) was handed out
    again each time its lease ran out, killing a worker every 15 minutes. After MAX_ATTEMPTS claims that ended
    without a decision it is refused with the reason, and the next submission is claimed instead (SQLite and
    PostgreSQL)."""
    ledger = Ledger(backend.url)
    ladder_rows.create(ledger, "spring", GAME, 2)
    owner = owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    killer = submission_rows.add(ledger, 1, owner, "killer", "killer.py", "killer.py", b"x")
    start = datetime.now(UTC)
    lease = submission_rows.LEASE + timedelta(seconds=1)
    for attempt in range(submission_rows.MAX_ATTEMPTS):
        row, _ = submission_rows.claim_next(ledger, 1, at=start + attempt * lease)
        assert (row["id"], row["attempts"]) == (killer, attempt + 1)
    later = submission_rows.add(ledger, 1, owner, "later", "later.py", "later.py", b"y")
    row, _ = submission_rows.claim_next(ledger, 1, at=start + submission_rows.MAX_ATTEMPTS * lease)
    assert row["id"] == later
    refused = submission_rows.get(ledger, killer)
    assert refused["status"] == submission_rows.REFUSED
    assert refused["reason"] == submission_rows.NEVER_FINISHED.format(attempts=2)
    ledger.close()


def test_a_worker_stopped_by_sigterm_gives_its_submission_back(league):
    """A `ladder work` stopped (SIGTERM) in the middle of a validation puts the submission back at once, its
    attempt not counted: pending, for the next worker, not refused and not left for its lease to run out."""
    waiting = queued(league, "slow", "slow.py", THOUGHTFUL)
    process = cli.spawn("ladder", "work", "spring", "--rounds", "1",
                        "--games", "1", "--jobs", "0", "--move-time", "2", "--db", str(league),
                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=league.parent)
    try:
        deadline = time.monotonic() + 60
        while submission(league, waiting)["status"] != submission_rows.VALIDATING and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(1.0)  # inside its validation games
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130 and "Traceback" not in stderr, stderr
    back = submission(league, waiting)
    assert (back["status"], back["attempts"], back["claimed_at"]) == (submission_rows.PENDING, 0, None)


def test_a_killed_workers_copies_of_an_upload_are_removed_by_the_next_worker(league, tmp_path):
    """A `ladder work` SIGKILLed (by the OOM killer, an operator) in the middle of a validation leaves the upload's
    files in the temporary folder, in a folder named for its process; the next worker that validates a submission
    removes it (tournaments.sandbox.leftovers), so a ladder's workers started again and again fill nothing."""
    scratch = Path(tempfile.mkdtemp(prefix="tourney-uploads-test-"))  # reachable by the sandboxes' own uids
    scratch.chmod(0o1777)
    env = {"TMPDIR": str(scratch)}
    try:
        waiting = queued(league, "slow", "slow.py", THOUGHTFUL)
        process = cli.spawn("ladder", "work", "spring", "--rounds", "1", "--games", "1", "--jobs", "0",
                            "--move-time", "2", "--db", str(league), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, cwd=league.parent, env={**os.environ, **env})
        try:
            deadline = time.monotonic() + 60
            while not list(scratch.glob(f"{UPLOADED}{process.pid}-*/*")):  # validating, the upload unpacked
                assert process.poll() is None and time.monotonic() < deadline, process.communicate()[1]
                time.sleep(0.05)
            process.send_signal(signal.SIGKILL)
            process.communicate(timeout=60)
        finally:
            process.kill()
        left = sorted(scratch.glob(f"*-{process.pid}-*"))
        assert [path.name.split(str(process.pid))[0] for path in left] == [UPLOADED], left
        assert list(left[0].iterdir()) == [left[0] / "slow.py"]
        assert submission(league, waiting)["status"] == submission_rows.VALIDATING
        good = queued(league, "good", "good.py", RANDOM_BOT)
        assert f"submission {good}: listed good" in work(league, env).stdout
        assert list(scratch.iterdir()) == []
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
