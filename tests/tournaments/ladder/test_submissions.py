"""The submission queue and the upload checks behind the web API: leases, claims, names, zip safety."""

from __future__ import annotations

import io
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import text

from ledger.rows import ladder_rows, owner_rows, submission_rows
from ledger.store import Ledger
from tournaments.ladder import owner_tokens, uploads


@pytest.fixture
def queued(ledger: Ledger):
    ladder = ladder_rows.create(ledger, "spring", "tails-on-fire", 2)
    owner = owner_rows.add(ledger, "alice", owner_tokens.token_hash(owner_tokens.new_token()))
    first = submission_rows.add(ledger, ladder, owner, "one", "one.py", "one.py", b"x")
    second = submission_rows.add(ledger, ladder, owner, "two", "two.py", "two.py", b"y")
    return ladder, first, second


def test_claims_take_the_oldest_pending_once(ledger, queued):
    """Each claim takes the oldest pending submission; a claimed one is not claimed again; then None."""
    ladder, first, second = queued
    taken = [submission_rows.claim_next(ledger, ladder)[0]["id"] for _ in range(2)]
    assert taken == [first, second] and submission_rows.claim_next(ledger, ladder) is None
    assert submission_rows.get(ledger, first)["status"] == submission_rows.VALIDATING


def test_a_claim_whose_lease_ran_out_is_claimed_again(ledger, queued):
    """A submission left validating by a worker that died is claimed again once its lease has run out."""
    ladder, first, _ = queued
    start = datetime.now(UTC)
    row, upload = submission_rows.claim_next(ledger, ladder, at=start)
    assert (row["id"], upload) == (first, b"x")
    submission_rows.claim_next(ledger, ladder, at=start)
    assert submission_rows.claim_next(ledger, ladder, at=start + submission_rows.LEASE / 2) is None
    again = submission_rows.claim_next(ledger, ladder, at=start + submission_rows.LEASE + timedelta(seconds=1))
    assert again[0]["id"] == first


def test_a_decided_submission_is_never_claimed(ledger, queued):
    """Listed and refused submissions stay decided, whatever the time."""
    ladder, first, _ = queued
    for _ in range(2):
        row, _ = submission_rows.claim_next(ledger, ladder)
        submission_rows.decide(ledger, row["id"], submission_rows.REFUSED, "no", None)
    assert submission_rows.claim_next(ledger, ladder, at=datetime.now(UTC) + 10 * submission_rows.LEASE) is None
    assert submission_rows.get(ledger, first)["reason"] == "no"


def test_a_submission_refused_before_revision_0022_keeps_its_text_and_has_no_shaped_diagnosis(ledger, queued):
    """A refusal written at revision 0021 kept the diagnosis' text alone: after the upgrade its owner still reads the
    text, and no kind or summary is made up for it; one decided now has all three (docs/web.md, "Submitting")."""
    ladder, first, second = queued
    owner = {"id": submission_rows.get(ledger, first)["owner_id"]}
    kept = [submission_rows.KeptGame("g-1", 1, b"{}")]
    told = submission_rows.Told("stderr", "last on its stderr: fatal: book.bin not found", "fatal: book.bin not found")
    submission_rows.claim_next(ledger, ladder)
    submission_rows.decide(ledger, first, submission_rows.REFUSED, "no", None, None, kept)
    ledger.downgrade("0021")
    with ledger.write() as connection:  # as tourney wrote a refusal before revision 0022
        connection.execute(text("UPDATE submissions SET diagnosis = 'Traceback: old' WHERE id = :id"), {"id": first})
    ledger.upgrade()
    submission_rows.claim_next(ledger, ladder)
    submission_rows.decide(ledger, second, submission_rows.REFUSED, "no", None, told, kept)
    assert owner_tokens.submission_diagnosis(ledger, owner, first) == "Traceback: old"
    assert owner_tokens.validation_diagnosis(ledger, owner, first) is None
    assert owner_tokens.validation_diagnosis(ledger, owner, second) == {
        "seat": 1, "bot": "two", "kind": "stderr", "summary": told.summary, "detail": told.detail, "game_id": "g-1"}


def test_a_name_belongs_to_its_first_owner(ledger, queued):
    """Another owner cannot queue under a name already claimed; the first owner can."""
    ladder, _, _ = queued
    bob = owner_rows.add(ledger, "bob", owner_tokens.token_hash(owner_tokens.new_token()))
    with pytest.raises(owner_rows.NameTaken):
        submission_rows.add(ledger, ladder, bob, "one", "one.py", "one.py", b"z")
    assert submission_rows.add(ledger, ladder, 1, "one", "one.py", "one.py", b"z")


def test_tokens_are_random_and_checked_by_hash(ledger):
    """Two tokens differ; authenticate finds the owner by the hash alone and refuses anything else."""
    token = owner_tokens.add(ledger, "carol")
    assert token != owner_tokens.new_token() and token.startswith(owner_tokens.TOKEN_PREFIX)
    assert owner_tokens.authenticate(ledger, token)["name"] == "carol"
    assert owner_tokens.authenticate(ledger, token + "x") is None and owner_tokens.authenticate(ledger,
                                                                                                "x" * 300) is None
    with pytest.raises(owner_tokens.BadName):
        owner_tokens.add(ledger, "../carol")


def zipped(entries: list[tuple[zipfile.ZipInfo | str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, content in entries:
            archive.writestr(info, content)
    return buffer.getvalue()


def test_a_zip_bomb_is_refused_from_its_directory(tmp_path):
    """A zip that would unpack past the limit is refused before anything is written."""
    bomb = zipped([("bot.py", b"\0" * (uploads.MAX_UNPACKED + 1))])
    assert len(bomb) < 100_000
    with pytest.raises(uploads.UploadError, match="unpacks to more than"):
        uploads.check("bot.zip", bomb)


@pytest.mark.parametrize("name", ["../bot.py", "/etc/bot.py", "a/../../bot.py", ".hidden.py", "dir\\bot.py"])
def test_zip_names_leading_out_are_refused(name):
    """Absolute paths, '..' and odd names inside a zip are refused."""
    with pytest.raises(uploads.UploadError):
        uploads.check("bot.zip", zipped([(name, b"x"), ("main.py", b"GAMES = '*'")]), "main.py")


def test_a_zip_unpacks_with_its_executable_bits_only(tmp_path):
    """Unpacking writes the files under the folder, executables 0755 and the rest 0644."""
    program = zipfile.ZipInfo("run.sh")
    program.external_attr = 0o4777 << 16  # setuid asked for: never given
    data = zipped([(program, b"#!/bin/sh\n"), ("bot.bot.json", b'{"command": ["./run.sh", "lib/x.txt"]}'),
                   ("lib/x.txt", b"x")])
    checked = uploads.check("bot.zip", data)
    entry = uploads.unpack(checked, tmp_path)
    assert entry == tmp_path / "bot.bot.json"
    assert (tmp_path / "run.sh").stat().st_mode & 0o7777 == 0o755
    assert (tmp_path / "lib" / "x.txt").stat().st_mode & 0o7777 == 0o644


def test_a_single_program_upload_is_made_executable(tmp_path):
    """A single file starting with #! is a program: unpacked executable; so is an ELF executable (a compiled bot),
    which `ladder submit` takes too."""
    checked = uploads.check("C:\\Users\\me\\bot", b"#!/bin/sh\necho\n")
    assert checked.entry_point == "bot"
    assert uploads.unpack(checked, tmp_path).stat().st_mode & 0o111
    compiled = uploads.check("engine", b"\x7fELF\x02\x01\x01" + bytes(100))
    assert compiled.entry_point == "engine"
    assert uploads.unpack(compiled, tmp_path / "elf").stat().st_mode & 0o7777 == 0o755
